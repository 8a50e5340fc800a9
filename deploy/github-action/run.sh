#!/usr/bin/env bash
# The Action's analysis step: run prflow on the checked-out repository (--repo .) for the
# pull request under test (--pr), posting to it. Inputs arrive as ACTION_* variables.
set -euo pipefail

fail() { echo "::error title=prflow::$1"; exit 2; }

mode="${ACTION_MODE:-impact}"
case "$mode" in
  impact | review) ;;
  *) fail "mode must be impact or review, not '${mode}'" ;;
esac
if [ -z "${ACTION_PR_NUMBER:-}" ]; then
  fail "no pull request in this event: run the action on pull_request or pull_request_target"
fi
pr="${GITHUB_REPOSITORY}#${ACTION_PR_NUMBER}"
args=(--repo . --pr "$pr")
if [ "${ACTION_POST_COMMENT:-true}" = "true" ]; then args+=(--post); fi
if [ -n "${ACTION_THRESHOLD:-}" ]; then args+=(--threshold "$ACTION_THRESHOLD"); fi
if [ -z "${ANTHROPIC_API_KEY:-}" ]; then
  echo "prflow: no anthropic-api-key given; running static analysis only"
  args+=(--no-llm)
else
  args+=(--budget-usd "$ACTION_BUDGET_USD")
  # A review routes each of its agents to its own tier; impact runs one agent on --model.
  if [ "$mode" = impact ]; then args+=(--model "$ACTION_MODEL"); fi
fi
exec prflow "$mode" "${args[@]}" --quiet --format sarif --output "$ACTION_SARIF_FILE"
