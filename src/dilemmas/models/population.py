"""Parsing the ``population`` parameter (docs/rules/README.md, rule 3), shared by every game.

``population`` is a comma-separated list of ``name`` or ``name:count`` entries, e.g.
``"firefighter:2,free_rider:2"``. Seats are filled in the order written. One name alone
(``"random"``) fills every seat; a bare name among several entries counts as one seat.
Counts must add up to the number of agents.
"""

from collections.abc import Mapping


def entries(population: str) -> list[tuple[str, int]]:
    """The ``(name, count)`` entries of a population value, in the order written, without
    checking it (``parse_population`` checks); a bare name counts 1 (alone, it fills every
    seat)."""
    out = []
    for entry in str(population).split(","):
        name, sep, count = entry.partition(":")
        out.append((name.strip(), int(count) if sep and count.strip().isdigit() else 1))
    return out


def parse_population(population, num_agents: int, behaviours: Mapping[str, type]) -> list[type]:
    """Return the behaviour class of each seat, in seat order."""

    def invalid(why):
        shown = repr(population)
        shown = shown if len(shown) <= 80 else f"{shown[:60]}... ({len(population):,} characters)"
        return ValueError(f"population={shown} is invalid: {why}")

    if not isinstance(population, str) or not population.strip():
        raise invalid("must be a string of 'name' or 'name:count' entries separated by commas")
    entries = [entry.strip() for entry in population.split(",")]
    names_and_counts = []
    for entry in entries:
        name, sep, count_text = entry.partition(":")
        name = name.strip()
        if name not in behaviours:
            raise invalid(f"unknown behaviour {name!r}; allowed: {sorted(behaviours)}")
        if not sep:
            count = num_agents if len(entries) == 1 else 1
        else:
            digits = count_text.strip()
            if not (digits.isascii() and digits.isdigit()):
                raise invalid(f"count {digits[:20]!r} of {name!r} is not a whole number "
                              "written in the digits 0-9")
            if len(digits.lstrip("0")) > len(str(num_agents)):
                raise invalid(f"count of {name!r} ({len(digits):,} digits) is more than the "
                              f"game's {num_agents} agents")
            count = int(digits)
            if count < 1:
                raise invalid(f"count of {name!r} must be at least 1, got {count}")
        names_and_counts.append((name, count))
    total = sum(count for _, count in names_and_counts)
    if total != num_agents:
        raise invalid(f"counts add up to {total}, but the game has {num_agents} agents")
    return [behaviours[name] for name, count in names_and_counts for _ in range(count)]
