"""Tests of the impact report renderers."""
