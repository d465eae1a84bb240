"""A registered game's parameters and behaviours as tables, for the documentation, notebooks
and ``dilemmas games GAME``."""

from dilemmas import GAMES


def first_sentence(text) -> str:
    """The first sentence of a docstring, on one line."""
    words = " ".join((text or "").split())
    end = words.find(". ")
    return words if end < 0 else words[:end + 1]


def parameters(game: str) -> "pd.DataFrame":
    """Every declared parameter of ``game``: name, default, what is allowed, meaning."""
    rows = GAMES[game].parameters.describe()
    import pandas as pd

    return pd.DataFrame(rows, columns=["parameter", "default", "allowed", "meaning"])


def behaviours(game: str) -> "pd.DataFrame":
    """Every behaviour ``population`` accepts for ``game``, with the first sentence of its
    docstring."""
    import pandas as pd

    return pd.DataFrame([(name, first_sentence(cls.__doc__))
                         for name, cls in GAMES[game].behaviours.items()],
                        columns=["behaviour", "what it does"])


def rules_with_parameters(text: str, table: str) -> str:
    """The rules document ``text`` with the table under its "## Parameters" heading replaced
    by ``table``; a ``ValueError`` if it has no such table."""
    head, found, rest = text.partition("## Parameters\n")
    lines = rest.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
    if not found or start is None:
        raise ValueError("the rules have no table under '## Parameters'")
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")),
               len(lines))
    return head + found + "".join(lines[:start]) + table + "".join(lines[end:])


def write_rules_tables(games=None) -> list:
    """Write each game's parameter table, generated from its declaration, into its rules
    document; returns the documents changed."""
    changed = []
    for game in games or list(GAMES.values()):
        text = game.rules.read_text(encoding="utf-8")
        new = rules_with_parameters(text, game.parameters.markdown())
        if new != text:
            game.rules.write_text(new, encoding="utf-8")
            changed.append(game.rules)
    return changed


if __name__ == "__main__":
    for path in write_rules_tables():
        print(f"wrote the parameter table of {path}")
