"""Renderers of the impact report: Markdown, JSON, SARIF 2.1.0 and the PR comment.

Import the submodule you need (``prflow.impact.render.sarif`` ...); nothing is
re-exported here, so importing one renderer does not load the others.
"""
