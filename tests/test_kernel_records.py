"""The bundles the kernels take are named records, read by name and built in one place.

A record's fields are read by name (``cfg.cutoff``, never ``cfg[0]``), so adding a
field cannot shift another; each record has one builder, so no copy of a bundle can
miss a new field. Both are checked on the source with ``ast``; the records themselves
are checked to pass through the compiled kernels and back unchanged.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numba as nb
import numpy as np
import pytest

import playahead
from playahead.games import threes
from playahead.kernels import expectimax, td
from playahead.kernels import ntuple as k

PACKAGE = Path(playahead.__file__).parent
KERNELS = sorted((PACKAGE / "kernels").glob("*.py"))
#: Names a kernel gives its bundles (the records below, and their parts).
BUNDLES = (
    "ctx",
    "cfg",
    "net",
    "dims",
    "search",
    "g",
    "trail",
    "was",
    "tc",
    "starts",
    "learning",
)
#: Each record and the one function that builds it.
BUILDERS = {
    "SearchContext": "search_context",
    "SearchConfig": "search_config",
    "LeafNet": "leaf_net",
    "TDGame": "td_game",
    "Trail": "trail_buffers",
    "FixedSearch": "fixed_search",
    "Coherence": "coherence",
    "Starts": "saved_starts",
    "OnlineLearning": "online_learning",
}


def positional_reads(source: str) -> list[str]:
    """``name[...]`` and ``a, b = name`` of the :data:`BUNDLES` in ``source``, with
    their lines."""
    return [
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(ast.parse(source))
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in BUNDLES
        )
        or (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Tuple)
            and isinstance(node.value, ast.Name)
            and node.value.id in BUNDLES
        )
    ]


def constructions(source: str) -> list[tuple[str, str]]:
    """``(record, function)`` of every call of a record of :data:`BUILDERS` in
    ``source`` (``function`` is ``""`` at module level)."""
    found = []

    def visit(node, where):
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            if isinstance(child, ast.Call):
                name = ast.unparse(child.func).rpartition(".")[2]
                if name in BUILDERS:
                    found.append((name, where))
            visit(child, inner)

    visit(ast.parse(source), "")
    return found


def test_the_scans_see_what_they_look_for():
    source = (
        "def f(cfg, net):\n    return cfg[0] + net.flat[1]\n"
        "def g(tc):\n    e, a = tc\n    return e\n"
        "def search_context(a):\n    return SearchContext(a)\n"
        "def other(a):\n    return k.SearchContext(a)\n"
    )
    assert sorted(positional_reads(source)) == ["line 2: cfg[0]", "line 4: e, a = tc"]
    assert constructions(source) == [
        ("SearchContext", "search_context"),
        ("SearchContext", "other"),
    ]


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_no_kernel_reads_a_bundle_by_position(path):
    reads = positional_reads(path.read_text())
    assert not reads, f"{path.name} reads a record by position: {reads}"


def test_each_record_is_built_by_its_builder_alone():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for record, where in constructions(path.read_text()):
            if where != BUILDERS[record]:
                rel = path.relative_to(PACKAGE.parent)
                wrong.append(f"{rel}: {record} built in {where or 'module'}")
    assert not wrong, wrong


def test_search_config_is_the_same_record_from_python_and_from_a_kernel():
    """A config built in Python and one a kernel restamps have the same field types
    (so both reach one compiled search)."""
    cfg = expectimax.search_config(0.01, 0.0, 5, 12, True)
    assert cfg == (0.01, 0.0, 5, 12, True, False)
    assert cfg.cutoff == 0.01 and cfg.tt_bits == 12 and not cfg.window
    kinds = ["float64", "float64", "int64", "int64", "bool", "bool"]
    assert [str(t) for t in nb.typeof(cfg).types] == kinds


def test_a_training_search_restamps_its_config_per_decision():
    """Each decision of a search-driven game bumps the search's stamp, and the
    config it was built with stays as built."""
    rng = np.random.default_rng(0)
    runs = k.pattern_runs(k.symmetric_cells([(0, 1, 2), (4, 5, 9)]))
    weights = rng.normal(size=(2, 4, 16**3)).astype(np.float32)
    moves, rewards, _ = threes.tables(True)
    g = td.td_game(
        1, weights, runs, (), moves, rewards, threes.BONUS_PREVIEWS["window"]
    )
    search = td.fixed_search(g, 1, 12)
    built = tuple(search.cfg)
    trail = td.trail_buffers(runs, 200)
    _, _, n = td.play(g, np.random.default_rng(1), trail, 0, 0, search)
    assert n > 0 and search.stamp[0] == n  # one stamp per move played
    assert tuple(search.cfg) == built
    assert search.net.stride == 1 and search.net.clamp
    assert search.net.flat.base is weights or np.shares_memory(
        search.net.flat, weights
    )  # the search reads the weights as trained
