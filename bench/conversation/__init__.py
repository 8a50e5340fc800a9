"""Conversation benchmark (issue 28): replies, pushes and redeliveries on many reviewed PRs,
with the worker and the Temporal server killed on the way."""
