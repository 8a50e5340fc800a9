"""What every kind's report renderer shares: inert Markdown text, finding labels, SARIF's
fixed parts and the removal of active content from model-written text."""
