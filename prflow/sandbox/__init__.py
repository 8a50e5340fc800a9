"""Where repository code runs: pure planning of the sandbox around it.

Everything prflow runs that came from a repository (its tests, its install
scripts, any later command a kind runs) goes through one sandbox. This package
decides what that sandbox is, without running anything: ``models`` (modes,
limits, the report a run carries), ``environment`` (the variables the code
sees, from an allow-list), ``layout`` (the bubblewrap command line: mounts,
namespaces, identity) and ``choice`` (which sandbox this worker can give, or
the one-line refusal). The process that runs it is ``activities.sandbox``.
"""
