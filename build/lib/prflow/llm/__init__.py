"""Anthropic Messages API support: the models that cross Temporal and the pure rules
(pricing, error classification, prompt-cache breakpoints, token estimates) that the
``llm_call`` activity and the agent loop share."""
