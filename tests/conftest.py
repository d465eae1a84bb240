"""Test-wide settings: hypothesis draws the same examples on every machine and run, so a
property test passes or fails the same way locally and in CI."""

from hypothesis import settings

settings.register_profile("dilemmas", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("dilemmas")

# The test-only fifth game registers itself on import (tests/public_goods/), so every test
# that goes over dilemmas.GAMES -- the contract suite, the CLI, the runner, the dashboard --
# sees it.
import public_goods  # noqa: E402,F401
