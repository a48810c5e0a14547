"""The test suite's own settings: a per-test timeout, every test that checks a
compiled kernel against a plain-Python reference runs again with the JIT off, and
tests share helpers through :mod:`tests.helpers` (or fixtures), never each other."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
ROOT = TESTS.parent
#: the plain-Python references of the compiled kernels, where they live
REFERENCES = {
    "benchmarks.speed.reference",
    "benchmarks.speed.naive_expectimax",
    "tests.naive_ntuple",
    "tests.helpers.chance_reference",
}


def test_every_reference_exists():
    for name in REFERENCES:
        assert (ROOT / (name.replace(".", "/") + ".py")).is_file(), name


def test_every_test_has_a_timeout(request):
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    assert 60 <= int(options["ini_options"]["timeout"]) <= 1800
    assert request.config.pluginmanager.hasplugin("timeout")


def _reference_names(tree: ast.AST) -> set[str]:
    """The names a test module (or function) binds to the reference modules or to
    names taken from them."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                if node.module in REFERENCES or f"{node.module}.{a.name}" in REFERENCES:
                    names.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in REFERENCES:
                    names.add(a.asname or a.name.split(".")[0])
    return names


def _marked_kernel(node: ast.AST) -> bool:
    return any("mark.kernel" in ast.unparse(d) for d in node.decorator_list)


def _checks_a_kernel(func: ast.FunctionDef, names: set[str]) -> bool:
    """Uses a reference, or compares compiled search with the generic one."""
    for node in (n for statement in func.body for n in ast.walk(statement)):
        if isinstance(node, ast.Name) and node.id in names:
            return True
        if isinstance(node, ast.Constant) and "compiled=false" in str(node.value):
            return True
    return False


def kernel_tests_not_marked(source: str) -> list[str]:
    """The test functions of ``source`` that check a kernel without the ``kernel``
    mark (on the function or the module's ``pytestmark``)."""
    tree = ast.parse(source)
    module_marked = "pytestmark = pytest.mark.kernel" in source
    names = _reference_names(tree)
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("test_")
        and _checks_a_kernel(node, names | _reference_names(node))
        and not (module_marked or _marked_kernel(node))
    ]


@pytest.mark.parametrize(
    "binding",
    [
        "from tests import naive_ntuple as naive",
        "from benchmarks.speed import naive_expectimax as naive",
        "from benchmarks.speed import reference as naive",
        "import benchmarks.speed.reference as naive",
    ],
)
def test_the_check_sees_an_unmarked_kernel_test(binding):
    source = (
        f"{binding}\n"
        "def test_a():\n    assert naive.value(1) == 1\n"
        "@pytest.mark.kernel\ndef test_b():\n    assert naive.value(1) == 1\n"
        "def test_c():\n    make_agent('minimax:compiled=false')\n"
        "def test_d():\n    assert 1\n"
    )
    assert kernel_tests_not_marked(source) == ["test_a", "test_c"]


def test_the_check_sees_a_name_taken_from_a_reference():
    source = (
        "from benchmarks.speed.naive_expectimax import values_2048\n"
        "def test_a():\n    assert values_2048(1) == 1\n"
    )
    assert kernel_tests_not_marked(source) == ["test_a"]


def test_the_check_finds_references_in_the_suite():
    """The guard is live: the suite's own reference tests are seen (and marked)."""
    seen = [
        path.name
        for path in sorted(TESTS.glob("test_*.py"))
        if _reference_names(ast.parse(path.read_text()))
    ]
    assert {"test_expectimax.py", "test_tile_rules.py"} <= set(seen)


def test_every_test_of_a_kernel_against_its_reference_runs_with_the_jit_off():
    unmarked = {
        path.name: names
        for path in sorted(TESTS.glob("test_*.py"))
        if (names := kernel_tests_not_marked(path.read_text()))
    }
    assert not unmarked, f"mark these @pytest.mark.kernel: {unmarked}"
    makefile = (ROOT / "Makefile").read_text()
    target = re.search(r"^test-nojit:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    command = " ".join(target.replace("\\\n", " ").split())
    assert "NUMBA_DISABLE_JIT=1" in command and "-m kernel tests" in command


def imports_of_test_modules(source: str) -> list[str]:
    """The test modules (``tests.test_*``, ``tests.conftest``) ``source`` imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found += [n for n in names if re.fullmatch(r"tests\.(test_\w+|conftest)", n)]
    return found


def test_the_scan_sees_a_test_importing_a_test():
    source = (
        "from tests.test_a import helper\n"
        "from tests import test_b\n"
        "def f():\n    import tests.conftest\n"
        "from tests.helpers.train import TINY\n"
    )
    assert imports_of_test_modules(source) == [
        "tests.test_a",
        "tests.test_b",
        "tests.conftest",
    ]


def assert_helpers_shared_through_tests_helpers(folder: Path) -> None:
    """No Python file below ``folder`` imports a test module (the guard)."""
    importing = [
        path.relative_to(folder).as_posix()
        for path in sorted(folder.rglob("*.py"))
        if imports_of_test_modules(path.read_text())
    ]
    assert not importing, f"import shared helpers from tests.helpers: {importing}"


def test_the_guard_fails_on_a_test_importing_a_test(tmp_path):
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "boards.py").write_text("from tests import conftest\n")
    (tmp_path / "test_a.py").write_text("from tests.helpers.boards import env\n")
    with pytest.raises(AssertionError, match=r"\['helpers/boards.py'\]"):
        assert_helpers_shared_through_tests_helpers(tmp_path)
    (tmp_path / "helpers" / "boards.py").write_text("BOARD = 0\n")
    assert_helpers_shared_through_tests_helpers(tmp_path)
    (tmp_path / "test_b.py").write_text("def f():\n    from tests.test_a import g\n")
    with pytest.raises(AssertionError, match=r"\['test_b.py'\]"):
        assert_helpers_shared_through_tests_helpers(tmp_path)


def test_tests_share_helpers_through_tests_helpers():
    assert_helpers_shared_through_tests_helpers(TESTS)
