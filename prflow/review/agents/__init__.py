"""The review's agents as data: each one's terminal tool, first message and answer parser.

Every agent is run by the platform's one agent loop; these modules only say
what it is told and how what it submits becomes typed, bounded, checked data.
"""
