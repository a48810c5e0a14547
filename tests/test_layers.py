"""The library's layers never import the user-facing tools (``playahead.tools``)."""

import ast
from pathlib import Path

import pytest

import playahead

ROOT = Path(playahead.__file__).parent
LAYERS = ("games", "envs", "planners", "train", "evaluate")
TOOLS = ("playahead.tools",)


def imported_modules(source: str, package: str) -> set[str]:
    """Every module ``source`` (a module of ``package``) imports, relative imports
    resolved to absolute names."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def library_files() -> list[Path]:
    files = [ROOT / "__init__.py", ROOT / "agents.py"]
    for layer in LAYERS:
        files += sorted((ROOT / layer).rglob("*.py"))
    return files


def test_the_scan_sees_imports_of_the_tools():
    # the checker itself: absolute, relative and function-level imports are caught
    source = "from ..tools import games\ndef f():\n    import playahead.tools.hint\n"
    names = imported_modules(source, "playahead.envs")
    assert {"playahead.tools.games", "playahead.tools.hint"} <= names


@pytest.mark.parametrize(
    "path", library_files(), ids=lambda p: str(p.relative_to(ROOT))
)
def test_library_layers_never_import_the_tools(path):
    package = ".".join(path.relative_to(ROOT.parent).parts[:-1])
    bad = sorted(
        name
        for name in imported_modules(path.read_text(), package)
        if any(name == t or name.startswith(t + ".") for t in TOOLS)
    )
    assert not bad, f"{path.relative_to(ROOT)} imports the tools: {bad}"
