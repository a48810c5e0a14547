"""numba's on-disk caches of playahead's kernels, dropped when compiled code changes.

numba keys a ``cache=True`` kernel on its own file alone: a kernel that calls one from
another file (every search calls the rules in :mod:`playahead.games`) keeps the callee's
code as it was when it was cached. So before the first kernel is defined,
:func:`drop_stale` compares the files that hold compiled code (every module of the
package with ``cache=True`` in it) with the stamp it wrote last time, and if one of
them changed, was added or went away, it removes every cached kernel under the package's
``__pycache__`` folders; numba compiles them anew on first use. An installed
playahead whose files never change keeps its caches; where the folders cannot be
written nothing is done (numba then caches elsewhere, keyed the same way).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: The stamp of the compiled files the caches were made from.
STAMP = "numba-sources.stamp"
_SUFFIXES = (".nbi", ".nbc")


def sources_digest(root: Path) -> str:
    """sha256 over the path, size and modification time of every module under
    ``root`` whose text holds ``cache=True``."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        try:
            if b"cache=True" not in path.read_bytes():
                continue
            st = path.stat()
        except OSError:
            continue
        h.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def drop_stale(root: Path = PACKAGE) -> bool:
    """Remove the numba caches under ``root`` if its compiled files changed since the
    stamp (``root/__pycache__/numba-sources.stamp``) was written; True if it did."""
    digest = sources_digest(root)
    stamp = root / "__pycache__" / STAMP
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    try:
        for cache in root.rglob("__pycache__"):
            for path in cache.iterdir():
                if path.suffix in _SUFFIXES:
                    path.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        tmp = stamp.with_suffix(".tmp")
        tmp.write_text(digest)
        tmp.replace(stamp)
    except OSError:
        return False
    return True
