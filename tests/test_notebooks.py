"""Every notebook's code cells run, in order, against the current code."""

import json
from pathlib import Path

import matplotlib
import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_code_cells_run(path):
    matplotlib.use("Agg")
    cells = json.loads(path.read_text())["cells"]
    namespace = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{path.name}", "exec"), namespace)
    import matplotlib.pyplot as plt
    plt.close("all")


def test_there_is_a_notebook():
    assert NOTEBOOKS
