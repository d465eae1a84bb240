"""Parsing the ``population`` parameter (docs/rules/README.md, rule 3), shared by every game.

``population`` is a comma-separated list of ``name`` or ``name:count`` entries, e.g.
``"firefighter:2,free_rider:2"``. Seats are filled in the order written. One name alone
(``"random"``) fills every seat; a bare name among several entries counts as one seat.
Counts must add up to the number of agents.
"""

from collections.abc import Mapping


def parse_population(population, num_agents: int, behaviours: Mapping[str, type]) -> list[type]:
    """Return the behaviour class of each seat, in seat order."""

    def invalid(why):
        return ValueError(f"population={population!r} is invalid: {why}")

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
            if not count_text.strip().isdecimal():
                raise invalid(f"count {count_text.strip()!r} of {name!r} is not a whole number")
            count = int(count_text)
            if count < 1:
                raise invalid(f"count of {name!r} must be at least 1, got {count}")
        names_and_counts.append((name, count))
    total = sum(count for _, count in names_and_counts)
    if total != num_agents:
        raise invalid(f"counts add up to {total}, but the game has {num_agents} agents")
    return [behaviours[name] for name, count in names_and_counts for _ in range(count)]
