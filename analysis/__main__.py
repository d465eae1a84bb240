"""``python -m analysis``: the ``dilemmas`` command."""

import sys

from analysis.cli import main

sys.exit(main())
