"""``python -m bench.tokens``: prompt tokens of a scripted 6-turn impact agent run."""
