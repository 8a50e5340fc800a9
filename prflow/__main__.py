"""``python -m prflow``: the ``prflow`` command, for when an interpreter flag is wanted
(``python -X importtime -m prflow impact ...`` shows what a command imports)."""

from prflow.cli.app import main

if __name__ == "__main__":
    main()
