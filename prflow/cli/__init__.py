"""The ``prflow`` command line."""
