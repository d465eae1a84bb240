"""``python -m dilemmas``: the ``dilemmas`` command."""

import sys

from dilemmas.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
