"""The package's layers point one way (``dilemmas/__init__.py``): each module imports only its
own layer and those below it, and model code names no module above it, not even by a string
(a ``"module:name"`` reference or an ``import_module`` argument)."""

import ast
import re
from pathlib import Path

import pytest

import dilemmas

PACKAGE = Path(dilemmas.__file__).parent
#: The layers, lowest first; a module may import its own layer and those before it. The
#: registry (``dilemmas.registry``, and ``GAMES`` re-exported by ``dilemmas``) is below all.
LAYERS = ("models", "agents", "analysis", "dashboard", "envs", "learning", "scenarios",
          "cli")
ANYWHERE = {"dilemmas.registry"}


def _layer(path: Path) -> str | None:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 and parts[0] in LAYERS else None


def _imports(tree) -> list[tuple[int, str]]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "dilemmas":
                names += [(node.lineno, f"dilemmas.{alias.name}") for alias in node.names]
            else:
                names.append((node.lineno, node.module))
    return names


def _strings(tree) -> list[tuple[int, str]]:
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and re.fullmatch(r"dilemmas(\.\w+)+(:\w+)?", node.value)]


MODULES = sorted(path for path in PACKAGE.rglob("*.py") if _layer(path))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_its_layer_and_those_below(path):
    layer = _layer(path)
    allowed = LAYERS[:LAYERS.index(layer) + 1]
    tree = ast.parse(path.read_text(), str(path))
    named = _imports(tree) + (_strings(tree) if layer == "models" else [])
    wrong = []
    for line, name in named:
        parts = name.split(":")[0].split(".")
        if parts[0] != "dilemmas" or ".".join(parts[:2]) in ANYWHERE:
            continue
        target = parts[1] if len(parts) > 1 else None
        if target == "GAMES" and layer != "models":
            continue  # the registry, re-exported
        if target not in allowed:
            wrong.append(f"line {line}: {name}")
    assert not wrong, f"{path.relative_to(PACKAGE)} ({layer}) reaches above its layer: {wrong}"


def test_every_layer_has_modules_and_the_top_level_holds_only_the_package_modules():
    assert {_layer(path) for path in MODULES} == set(LAYERS)
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "batch_run.py", "games.py", "registry.py"]


def test_batch_run_reaches_only_the_registry_and_the_models():
    """``dilemmas.batch_run`` sits beside the layers (``dilemmas/__init__.py``), which import
    it: it may import nothing above the models."""
    path = PACKAGE / "batch_run.py"
    named = _imports(ast.parse(path.read_text(), str(path)))
    wrong = [f"line {line}: {name}" for line, name in named if name.startswith("dilemmas")
             and name not in ANYWHERE and not name.startswith("dilemmas.models")]
    assert not wrong, f"batch_run.py reaches above the models: {wrong}"


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_module_imports_itself_round_a_circle():
    """The import graph of the package, deferred imports (inside functions) included, has no
    circle (``graphlib`` finds one if there is)."""
    import graphlib

    paths = {_module(path): path for path in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        imported = {target for _, target in _imports(ast.parse(path.read_text(), str(path)))}
        # ``from dilemmas.x import y`` imports y when it is a module of x
        imported |= {f"{target}.{alias.name}" for node in ast.walk(ast.parse(path.read_text()))
                     if isinstance(node, ast.ImportFrom) and node.module and not node.level
                     for target in [node.module] for alias in node.names}
        graph[name] = {target for target in imported if target in paths and target != name
                       and target != "dilemmas"}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"an import circle: {' -> '.join(error.args[1])}")
