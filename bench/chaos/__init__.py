"""Chaos benchmark: impact runs whose worker is SIGKILLed at random moments (issue 11)."""
