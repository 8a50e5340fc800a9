"""``python -m bench.impact``: ``prflow impact`` on real release pairs, against an anchor tool.

Each pair is two released versions of a public package committed as a base
tag and a head branch, so the "PR" is the real change between the releases.
"""
