"""Near-duplicate findings merged by meaning, measured on labelled pairs (issue 18 item 4)."""
