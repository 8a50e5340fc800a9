"""What every model agent shares: its plan, budget, messages, state and outcome."""
