"""The ``dilemmas`` command (``dilemmas --help``)."""
