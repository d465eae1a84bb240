"""Every notebook is stored without outputs and ends with a Markdown cell that interprets its
results. The notebooks are executed, in a Jupyter kernel, by the documentation build
(tests/test_docs.py), which fails on any cell that raises."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))

#: Fewest words (heading excluded) of a notebook's closing interpretation.
INTERPRETATION_WORDS = 80


def test_there_is_a_notebook():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    cells = json.loads(path.read_text())["cells"]
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name}: code cell {index} holds outputs"
            assert cell.get("execution_count") is None, \
                f"{path.name}: code cell {index} has an execution count"


def _source(cell) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_ends_with_an_interpretation(path):
    last = json.loads(path.read_text())["cells"][-1]
    assert last["cell_type"] == "markdown", f"{path.name}: the last cell is not Markdown"
    heading, _, body = _source(last).strip().partition("\n")
    assert re.fullmatch(r"#{1,6} +\S.*", heading), \
        f"{path.name}: the last cell does not open with a heading: {heading!r}"
    words = re.findall(r"[^\W\d_]+(?:['-][^\W\d_]+)*", body)
    assert len(words) >= INTERPRETATION_WORDS, \
        f"{path.name}: the closing interpretation has {len(words)} words, fewer than " \
        f"{INTERPRETATION_WORDS}"
