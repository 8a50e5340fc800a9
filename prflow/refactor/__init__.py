"""The refactor kind's domain: plans, steps, audits, gates and the validation report."""
