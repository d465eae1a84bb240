"""``python -m analysis``: the ``dilemmas`` command."""

import sys

from analysis.cli import main

if __name__ == "__main__":
    sys.exit(main())
