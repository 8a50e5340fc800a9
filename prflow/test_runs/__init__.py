"""Running a repository's own tests: pure planning, parsing and comparison.

``models`` (inputs and results), ``junit`` (JUnit XML → per-test outcomes),
``environment`` (which dependency spec a project declares, and its hash),
``compare`` (before/after per test). The activity that runs them is
``activities.test_runs``, in the sandbox of :mod:`prflow.sandbox`.
"""
