#!/usr/bin/env bash
# The Action's analysis step: run prflow on the checked-out repository (--repo .) for the
# pull request under test (--pr), posting to it. Inputs arrive as ACTION_* variables.
set -euo pipefail

fail() { echo "::error title=prflow::$1"; exit 2; }

mode="${ACTION_MODE:-impact}"
case "$mode" in
  impact | review | docsync) ;;
  *) fail "mode must be impact, review or docsync, not '${mode}'" ;;
esac
if [ -z "${ACTION_PR_NUMBER:-}" ]; then
  fail "no pull request in this event: run the action on pull_request or pull_request_target"
fi
pr="${GITHUB_REPOSITORY}#${ACTION_PR_NUMBER}"
args=(--repo . --pr "$pr")
if [ "${ACTION_POST_COMMENT:-true}" = "true" ]; then args+=(--post); fi
if [ -n "${ACTION_THRESHOLD:-}" ]; then
  # docsync gates on a bucket (must_update or review), the others on a score or severity
  if [ "$mode" = docsync ]; then args+=(--fail-on "$ACTION_THRESHOLD"); else args+=(--threshold "$ACTION_THRESHOLD"); fi
fi
if [ -z "${ANTHROPIC_API_KEY:-}" ]; then
  echo "prflow: no anthropic-api-key given; running static analysis only"
  args+=(--no-llm)
else
  args+=(--budget-usd "$ACTION_BUDGET_USD")
  # A review routes each of its agents to its own tier; impact runs one agent on --model.
  if [ "$mode" != review ]; then args+=(--model "$ACTION_MODEL"); fi
fi
if [ "$mode" = docsync ]; then
  # The doc sync report (buckets, patches, reasons) as JSON where the SARIF file would go.
  exec prflow docsync "${args[@]}" --quiet --format json --output "$ACTION_SARIF_FILE"
fi
exec prflow "$mode" "${args[@]}" --quiet --format sarif --output "$ACTION_SARIF_FILE"
