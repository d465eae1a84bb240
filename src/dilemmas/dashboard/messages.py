"""A one-line message in the page: an error said, never raised (the page shows no
traceback)."""

import solara

STYLE = {"color": "#b00020", "font-size": "13px"}


def one_line(error) -> str:
    """An error (or a text) as one line of at most 300 characters."""
    text = " ".join(str(error).split())
    return text if len(text) <= 300 else text[:297] + "..."


def message(text, kind: str = "inline-message"):
    """``text`` in one line, in the page's error colour, with the class ``kind``."""
    solara.Text(one_line(text), classes=[kind], style=STYLE)
