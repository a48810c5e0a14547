"""Every module imports only its own layer or the layers below it, and never the tests.

:data:`LAYERS` is the order, lowest first: the game rules, the compiled kernels, the
agent registry, the envs, the planner interface, the learners and planners, the
evaluation, the user-facing tools, and the benchmarks on top. Imports are read with
``ast`` from every module (function-level and relative imports included), so an import
that climbs the order fails here even where no test happens to execute it. A layer
order leaves no room for a loop between layers; :func:`test_no_import_loops` checks
the modules inside a layer too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import playahead

PACKAGE = Path(playahead.__file__).parent
REPO = PACKAGE.parent
#: The layers, lowest first: a module may import its own layer and those before it.
LAYERS = (
    "playahead._extras",  # optional dependencies: one-line errors
    "playahead._procs",  # child processes
    "playahead._numba_cache",  # the kernels' caches, dropped when compiled code changes
    "playahead.games",  # the rules, compiled
    "playahead.kernels",  # the compiled searches and n-tuple kernels
    "playahead.agents",  # the agent registry and specs
    "playahead.envs",  # Gymnasium shells around the rules
    "playahead.wrappers",  # observation wrappers
    "playahead",  # the package's face: registers the envs, exposes make_agent
    "playahead.planner",  # what every planner shares
    "playahead.ntuple",  # n-tuple nets: model, trainer, agent
    "playahead.planners",  # the planners (expectimax reads n-tuple nets)
    "playahead.train",  # RL baselines
    "playahead.evaluate",  # seeded head-to-head games
    "playahead.tools",  # what a person runs
    "playahead.cli",
    "playahead.__main__",
    "benchmarks",  # may import playahead, never the tests
)
#: Imported by nothing that :data:`LAYERS` holds.
NEVER = ("tests",)


def imported_modules(source: str, package: str) -> set[tuple[str, int]]:
    """``(module, line)`` of every import in ``source`` (a module of ``package``),
    relative imports resolved to absolute names; ``from m import x`` gives ``m`` and
    ``m.x`` (``x`` may be a module). Imports under ``if TYPE_CHECKING:`` are left
    out: they never run."""
    tree = ast.parse(source)
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    names = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names.update((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add((base, node.lineno))
            names.update((f"{base}.{alias.name}", node.lineno) for alias in node.names)
    return names


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of ``module`` (the longest layer that holds it; a name
    of the package's face, ``playahead.__version__``, is the face's), or None for a
    module outside the project."""
    best = None
    for i, layer in enumerate(LAYERS):
        if layer != "playahead" and (module == layer or module.startswith(layer + ".")):
            if best is None or len(layer) > len(LAYERS[best]):
                best = i
    if best is None and (module == "playahead" or module.startswith("playahead.")):
        best = LAYERS.index("playahead")
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    files += sorted(p for p in (REPO / "benchmarks").rglob("*.py") if p.is_file())
    return [p for p in files if "__pycache__" not in p.parts]


def _imports(path: Path) -> set[tuple[str, int]]:
    package = module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    return imported_modules(path.read_text(), package)


def test_the_scan_sees_every_kind_of_import():
    # absolute, relative, function-level imports are seen; TYPE_CHECKING ones are not
    source = (
        "from typing import TYPE_CHECKING\n"
        "from ..tools import games\n"
        "def f():\n    import playahead.tools.hint\n"
        "if TYPE_CHECKING:\n    from playahead.evaluate import store\n"
    )
    names = {name for name, _ in imported_modules(source, "playahead.envs")}
    assert {"playahead.tools.games", "playahead.tools.hint"} <= names
    assert "playahead.evaluate.store" not in names


def test_the_order_places_every_name():
    assert layer_of("playahead.kernels.td") == LAYERS.index("playahead.kernels")
    assert layer_of("playahead.planner") == LAYERS.index("playahead.planner")
    assert layer_of("playahead.planners.base") == LAYERS.index("playahead.planners")
    assert layer_of("playahead.__version__") == LAYERS.index("playahead")
    assert layer_of("numpy") is None
    assert layer_of("playahead.tools") > layer_of("playahead.evaluate")


@pytest.mark.parametrize("path", project_files(), ids=lambda p: module_name(p))
def test_imports_never_climb(path):
    me = module_name(path)
    mine = layer_of(me)
    assert mine is not None, f"{me} is in no layer: add its package to LAYERS"
    bad = []
    for name, line in sorted(_imports(path)):
        if name.split(".")[0] in NEVER:
            bad.append(f"line {line}: {name} (the tests)")
            continue
        theirs = layer_of(name)
        if theirs is not None and theirs > mine:
            bad.append(
                f"line {line}: {name} ({LAYERS[theirs]} is above {LAYERS[mine]})"
            )
    assert not bad, f"{path.relative_to(REPO)} imports upward: " + "; ".join(bad)


def _find_loop(graph: dict[str, set[str]]) -> list[str] | None:
    """One loop of ``graph`` (module -> modules it imports) as a path, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_loop_finder_finds_loops():
    assert _find_loop({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_loop({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_loops():
    """No two modules of the library import each other, however indirectly (a package
    counts as its ``__init__``; a module's own packages, which Python imports before
    it, are left out, and so is the package's face)."""
    files = [p for p in project_files() if p.is_relative_to(PACKAGE)]
    modules = {module_name(p) for p in files}
    graph = {}
    for path in files:
        me = module_name(path)
        graph[me] = {
            name
            for name, _ in _imports(path)
            if name in modules and not (me == name or me.startswith(name + "."))
        }
    loop = _find_loop(graph)
    assert loop is None, "import loop: " + " -> ".join(loop)
