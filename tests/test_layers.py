"""Every module imports only its own layer or the layers below it, and never the tests.

:data:`LAYERS` is the order, lowest first: the game rules, the compiled kernels, the
agent registry, the envs, the planner interface, the learners and planners, the
evaluation, the user-facing tools, and the benchmarks on top. Imports are read with
``ast`` from every module (function-level and relative imports included, and the
modules a string names, as ``importlib.import_module`` and entry points take them), so
an import that climbs the order fails here even where no test happens to execute it;
the agent registry's loads on first use are the one declared exception
(:data:`REGISTRY_LOADS`). A layer
order leaves no room for a loop between layers; :func:`test_no_import_loops` checks
the modules inside a layer too.
"""

from __future__ import annotations

import ast
import importlib.util
import re
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
    "playahead.alphazero",  # self-play PUCT with a policy-value net
    "playahead.train",  # RL baselines (``train alphazero`` among its trainers)
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


#: A module named in a string: ``"playahead.planners"`` or an entry point
#: ``"playahead.envs.tiles:ThreesEnv"``.
_MODULE_STRING = re.compile(r"(playahead(?:\.\w+)+)(?::\w+)?")


def imported_by_name(source: str) -> set[tuple[str, int]]:
    """``(module, line)`` of every string in ``source`` that names a module of the
    project (``importlib.import_module`` strings, entry points): what a registry
    imports by name."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _MODULE_STRING.fullmatch(node.value)
            if match:
                found.add((match.group(1), node.lineno))
    return found


#: The imports by name that climb the order on purpose: the agent registry loads the
#: planners, the n-tuple agent and the RL agents on first use (``agents.py``
#: ``_BUILTIN_MODULES``), after every layer below them is imported.
REGISTRY_LOADS = {
    "playahead.agents": {
        "playahead.planners",
        "playahead.planners.solver",
        "playahead.ntuple.agent",
        "playahead.train.agents",
        "playahead.alphazero.agent",
    },
}


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


def _imports(path: Path, by_name: bool = True) -> set[tuple[str, int]]:
    """What ``path`` imports, with the modules it names in strings unless not
    ``by_name``."""
    package = module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    source = path.read_text()
    found = imported_modules(source, package)
    if by_name:
        found |= imported_by_name(source)
    return found


def test_the_scan_sees_imports_by_name():
    source = (
        "MODULES = ('playahead.planners', 'playahead.train.agents')\n"
        "ENTRY = 'playahead.envs.tiles:ThreesEnv'\n"
        "TEXT = 'see playahead.planners'\n"
    )
    names = {name for name, _ in imported_by_name(source)}
    assert names == {
        "playahead.planners",
        "playahead.train.agents",
        "playahead.envs.tiles",
    }


def test_the_registry_imports_by_name_are_seen_and_resolve():
    """The modules the registry loads by name are seen as its imports, and exist."""
    path = PACKAGE / "agents.py"
    named = {name for name, _ in imported_by_name(path.read_text())}
    assert named == REGISTRY_LOADS["playahead.agents"]
    for module, loads in REGISTRY_LOADS.items():
        for name in loads:
            assert importlib.util.find_spec(name) is not None, name
            assert layer_of(name) > layer_of(module)


def _climbs(me: str, imports: set[tuple[str, int]]) -> list[str]:
    """The ``imports`` of module ``me`` that climb the order or reach the tests."""
    mine = layer_of(me)
    bad = []
    for name, line in sorted(imports):
        if name.split(".")[0] in NEVER:
            bad.append(f"line {line}: {name} (the tests)")
            continue
        theirs = layer_of(name)
        if theirs is None or theirs <= mine or name in REGISTRY_LOADS.get(me, ()):
            continue
        bad.append(f"line {line}: {name} ({LAYERS[theirs]} is above {LAYERS[mine]})")
    return bad


def test_an_import_by_name_that_climbs_fails():
    source = "import importlib\nimportlib.import_module('playahead.tools.hint')\n"
    bad = _climbs("playahead.kernels.td", imported_by_name(source))
    assert bad == [
        "line 2: playahead.tools.hint (playahead.tools is above playahead.kernels)"
    ]
    # the registry's own loads pass only from the registry
    assert _climbs("playahead.agents", {("playahead.planners", 1)}) == []
    assert _climbs("playahead.envs.tiles", {("playahead.planners", 1)}) != []


@pytest.mark.parametrize("path", project_files(), ids=lambda p: module_name(p))
def test_imports_never_climb(path):
    me = module_name(path)
    assert layer_of(me) is not None, f"{me} is in no layer: add its package to LAYERS"
    bad = _climbs(me, _imports(path))
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
            if name in modules
            and not (me == name or me.startswith(name + "."))
            and name not in REGISTRY_LOADS.get(me, ())  # loaded on first use
        }
    loop = _find_loop(graph)
    assert loop is None, "import loop: " + " -> ".join(loop)
