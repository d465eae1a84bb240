"""A registered game's parameters and behaviours as tables, for the documentation, notebooks
and ``dilemmas games GAME``."""

import pandas as pd

from dilemmas import GAMES


def first_sentence(text) -> str:
    """The first sentence of a docstring, on one line."""
    words = " ".join((text or "").split())
    end = words.find(". ")
    return words if end < 0 else words[:end + 1]


def parameters(game: str) -> pd.DataFrame:
    """Every declared parameter of ``game``: name, default, what is allowed, meaning."""
    rows = GAMES[game].parameters.describe()
    return pd.DataFrame(rows, columns=["parameter", "default", "allowed", "meaning"])


def behaviours(game: str) -> pd.DataFrame:
    """Every behaviour ``population`` accepts for ``game``, with the first sentence of its
    docstring."""
    return pd.DataFrame([(name, first_sentence(cls.__doc__))
                         for name, cls in GAMES[game].behaviours.items()],
                        columns=["behaviour", "what it does"])
