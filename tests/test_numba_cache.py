"""numba's cached kernels are dropped when compiled code changes, so a kernel never
keeps the code of a callee in another file as it was (numba keys a cache on the
kernel's own file alone)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from playahead import _numba_cache

CALLER = """
import numba as nb
from pkg import callee

@nb.njit(cache=True)
def f(x):
    return callee.g(x) + 1
"""


def _package(tmp_path: Path, factor: int) -> Path:
    root = tmp_path / "pkg"
    root.mkdir(exist_ok=True)
    (root / "__init__.py").write_text(
        "from playahead._numba_cache import drop_stale\n"
        "from pathlib import Path\n"
        "drop_stale(Path(__file__).parent)\n"
    )
    (root / "caller.py").write_text(CALLER)
    callee = root / "callee.py"
    callee.write_text(
        "import numba as nb\n\n"
        "@nb.njit(cache=True)\n"
        f"def g(x):\n    return x * {factor}\n"
    )
    # an edit within the same second still counts: the stamp reads nanoseconds,
    # and the size changes with the factor's digits below
    return root


def _run(tmp_path: Path) -> int:
    code = "from pkg import caller; print(caller.f(10))"
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "NUMBA_DISABLE_JIT": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return int(out.stdout.strip())


def test_a_changed_callee_is_compiled_anew(tmp_path):
    """A kernel calling one from another file, cached, then the callee edited: the
    next process computes with the new callee (numba alone would keep the old)."""
    _package(tmp_path, 2)
    assert _run(tmp_path) == 21
    caches = list((tmp_path / "pkg" / "__pycache__").glob("caller.f-*.nbi"))
    assert caches  # the caller's kernel was cached
    assert _run(tmp_path) == 21  # and read back
    _package(tmp_path, 30)
    assert _run(tmp_path) == 301


def test_the_stamp_keeps_caches_while_nothing_changes(tmp_path):
    root = _package(tmp_path, 2)
    assert _numba_cache.drop_stale(root)  # no stamp yet: whatever is there goes
    cache = root / "__pycache__" / "caller.f-5.py311.nbi"
    cache.write_bytes(b"x")
    assert not _numba_cache.drop_stale(root) and cache.exists()
    (root / "plain.py").write_text("X = 1\n")  # no compiled code: no change
    assert not _numba_cache.drop_stale(root) and cache.exists()
    (root / "caller.py").write_text(CALLER + "\n# edited\n")
    assert _numba_cache.drop_stale(root) and not cache.exists()


def test_an_unwritable_place_changes_nothing(tmp_path, monkeypatch):
    root = _package(tmp_path, 2)

    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(Path, "mkdir", refuse)
    monkeypatch.setattr(Path, "write_text", refuse)
    assert _numba_cache.drop_stale(root) is False


def test_the_package_stamp_names_every_compiled_module():
    """Every module of playahead with a cached kernel counts in the stamp."""
    compiled = [
        p
        for p in _numba_cache.PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts and "cache=True" in p.read_text()
    ]
    names = {p.relative_to(_numba_cache.PACKAGE).as_posix() for p in compiled}
    assert {"games/twenty48.py", "kernels/expectimax.py", "kernels/td.py"} <= names
