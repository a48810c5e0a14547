"""The n-tuple model: weights in ``weights.npz``, metadata in ``model.json``.

The weights are saved sparsely (the flat indices and float32 values of the non-zero
entries, compressed), so a 4 x 6-tuple net of 268 MB in memory takes a few MB on disk.
Loading uses ``allow_pickle=False``; a file that is not such a model raises a
``ValueError`` saying what is wrong.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import zipfile
from pathlib import Path

import numpy as np

from playahead.kernels.ntuple import N_CODES, symmetric_cells

FORMAT = "playahead-ntuple"
VERSION = 1
ENVS = ("2048-v0", "Threes-v0")
#: TDL2048-Demo's 4 x 6-tuples (cells 0..15 in reading order; "a" = 10).
DEFAULT_PATTERNS = ("012345", "456789", "012456", "45689a")
#: Threes' default: 5-tuples, since each is stored once per preview code (4 x 16 MB
#: as float32; 6-tuples would take 1 GB).
THREES_PATTERNS = ("01234", "45678", "01245", "45689")
#: Named pattern sets (``--patterns 8x6``), in this package's cell numbering (0 top
#: left, reading order); a set is the same under any of the 8 symmetries.
PATTERN_SETS = {
    "4x6": DEFAULT_PATTERNS,  # TDL2048-Demo, Szubert & Jaskowski 2014
    # ziap/2048-tdl's nw5x6: the four plus the third row's pair
    "5x6": (*DEFAULT_PATTERNS[:2], "89abcd", *DEFAULT_PATTERNS[2:]),
    # Matsuzaki's 8 x 6-tuples (ziap's nw8x6)
    "8x6": (
        "012456",
        "12569d",
        "012345",
        "01567a",
        "01259a",
        "0159de",
        "01589d",
        "01246a",
    ),
    "4x5": THREES_PATTERNS,
    "5x4": ("0123", "4567", "0145", "1256", "569a"),  # ziap's nw5x4
}
MAX_CELLS = 6
MAX_STAGES = 3


def tile_faces(env_id: str) -> tuple[int, ...]:
    """The tile (card) value of each rank 0..15 of ``env_id``'s packed board."""
    if env_id == "2048-v0":
        return (0, *(2**r for r in range(1, 16)))
    from playahead.games.threes import CARD_VALUES

    return tuple(CARD_VALUES)


def parse_stages(env_id: str, stages) -> tuple[int, ...]:
    """Validate the stage boundaries of a multi-stage net: tile values of the game,
    ascending, at most :data:`MAX_STAGES` (each adds a weight set).

    Raises:
        ValueError: a value that is no tile of the game, not ascending, or too many.
    """
    if stages is None:
        return ()
    if isinstance(stages, str):
        stages = [x for x in stages.replace(",", " ").split() if x]
    faces = tile_faces(env_id)
    out = []
    for x in stages:
        try:
            v = int(x)
        except (TypeError, ValueError):
            v = None
        if v is None or v not in faces[2:] or isinstance(x, bool):
            raise ValueError(
                f"stage {x!r} is not a tile of {env_id}: give tile values such as "
                + ("2048,4096" if env_id == "2048-v0" else "384,768")
            )
        out.append(v)
    if out != sorted(set(out)):
        raise ValueError(f"stages must be distinct and ascending, got {out}")
    if len(out) > MAX_STAGES:
        raise ValueError(f"at most {MAX_STAGES} stage boundaries, got {len(out)}")
    return tuple(out)


def parse_patterns(patterns) -> tuple[str, ...]:
    """Validate tuple patterns: the name of a set in :data:`PATTERN_SETS` (``"8x6"``)
    or hex strings of distinct cells, all the same length, no two on the same cells.

    Raises:
        ValueError: an unknown set name, empty, a cell outside 0..f, a repeated cell,
            a repeated pattern or unequal lengths.
    """
    if isinstance(patterns, str):
        patterns = [p for p in patterns.replace(",", " ").split() if p]
    out = tuple(str(p).lower() for p in patterns)
    if len(out) == 1 and "x" in out[0]:
        if out[0] not in PATTERN_SETS:
            raise ValueError(
                f"unknown pattern set {out[0]!r}: give one of "
                f"{', '.join(PATTERN_SETS)} or hex cells such as 012345,456789"
            )
        return PATTERN_SETS[out[0]]
    if not out:
        raise ValueError("no tuple patterns given (example: 012345,456789)")
    for p in out:
        if not 1 <= len(p) <= MAX_CELLS or any(c not in "0123456789abcdef" for c in p):
            raise ValueError(
                f"tuple pattern {p!r} must be 1-{MAX_CELLS} hex cells 0-f (0 top-left, "
                "reading order), e.g. 012345"
            )
        if len(set(p)) != len(p):
            raise ValueError(f"tuple pattern {p!r} repeats a cell")
    if len({len(p) for p in out}) != 1:
        raise ValueError(f"tuple patterns must have equal lengths, got {out}")
    seen = {}
    for p in out:
        key = frozenset(p)
        if key in seen:
            raise ValueError(
                f"tuple patterns {seen[key]!r} and {p!r} cover the same cells"
            )
        seen[key] = p
    return out


def net_bytes(
    env_id: str, patterns, stages=(), copies: int = 1, preview: bool = True
) -> int:
    """Bytes of the float32 weights of such a net (``copies`` 3 with the TC
    accumulators; ``preview`` False: a Threes net without the preview index)."""
    patterns = parse_patterns(patterns)
    codes = _base_codes(env_id, preview) * (len(stages) + 1)
    return 4 * copies * len(patterns) * codes * 16 ** len(patterns[0])


def available_memory() -> int | None:
    """Bytes of memory available now (``MemAvailable`` of ``/proc/meminfo``), or None
    where that cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            return next(int(x.split()[1]) * 1024 for x in f if x.startswith("MemAvail"))
    except (OSError, StopIteration, ValueError, IndexError):
        return None


def check_memory(nbytes: int, what: str) -> None:
    """ValueError if ``nbytes`` (of ``what``) exceed :func:`available_memory`."""
    free = available_memory()
    if free is not None and nbytes > free:
        raise ValueError(
            f"{what} needs {nbytes / 2**20:,.0f} MB but only {free / 2**20:,.0f} MB "
            "of memory is available: choose smaller patterns or fewer stages"
        )


@dataclasses.dataclass
class NTupleModel:
    """A trained (or new) n-tuple network.

    Attributes:
        env_id: ``"2048-v0"`` or ``"Threes-v0"``.
        patterns: tuple patterns as hex strings.
        weights: ``float32[P, C * (S + 1), 16**K]``; ``C`` is 1 for 2048, 4 preview
            codes for Threes (1 with ``meta["preview"]`` False: a net that values an
            afterstate alike whatever card comes next, as threes-meadow-ai's does);
            ``S`` the number of ``stages``.
        env_kwargs: the rule variant (Threes: ``merge_6144``, ``bonus_preview``).
        meta: training facts (games, seed, lr, init, ...).
        stages: multi-stage boundaries (tile values, ascending; Yeh et al.'s
            multi-stage nets): an afterstate whose largest tile reaches ``k`` of
            them is valued by weight set ``k``. Empty: one stage.
        step: points per unit of ``weights``: 1.0 for float32 weights; a stepped
            packaged net read for search keeps its int16 multiples of its step
            (:func:`playahead.ntuple.packaged.packaged_model`), which only the
            search reads (it cannot be saved or trained).
    """

    env_id: str
    patterns: tuple[str, ...]
    weights: np.ndarray
    env_kwargs: dict = dataclasses.field(default_factory=dict)
    meta: dict = dataclasses.field(default_factory=dict)
    stages: tuple[int, ...] = ()
    step: float = 1.0

    @classmethod
    def new(
        cls,
        env_id: str,
        patterns=None,
        init: float = 0.0,
        stages=(),
        preview: bool = True,
        **kw,
    ):
        """Zero weights, or ``init`` spread so every afterstate starts at ``init``;
        ``patterns`` None takes the env's default; ``preview`` False: a Threes net
        without the preview index (recorded as ``meta["preview"]``)."""
        if env_id not in ENVS:
            raise ValueError(f"env {env_id!r}: n-tuple nets play {', '.join(ENVS)}")
        if patterns is None:
            patterns = DEFAULT_PATTERNS if env_id == "2048-v0" else THREES_PATTERNS
        patterns = parse_patterns(patterns)
        stages = parse_stages(env_id, stages)
        codes = _base_codes(env_id, preview) * (len(stages) + 1)
        per = float(init) / (8 * len(patterns))
        w = np.full((len(patterns), codes, 16 ** len(patterns[0])), per, np.float32)
        model = cls(env_id, patterns, w, stages=stages, **kw)
        if not preview and env_id == "Threes-v0":
            model.meta = {**model.meta, "preview": False}
        return model

    @property
    def n_base(self) -> int:
        """Codes of one stage: 1 for 2048, the 4 preview codes for Threes (1 for a
        Threes net without the preview index)."""
        return _base_codes(self.env_id, self.meta.get("preview", True))

    @property
    def stage_ranks(self) -> np.ndarray:
        """int64 ranks of :attr:`stages` (the kernels' ``stages`` argument)."""
        faces = tile_faces(self.env_id)
        return np.array([faces.index(v) for v in self.stages], np.int64)

    @property
    def cells(self) -> np.ndarray:
        """int64[P, 8, K] cell indices of every pattern's 8 images."""
        return symmetric_cells([[int(c, 16) for c in p] for p in self.patterns])

    @property
    def game(self) -> int:
        """0 for 2048, 1 for Threes (the kernels' ``game`` argument)."""
        return ENVS.index(self.env_id)

    def check_position(self, env_id: str, state) -> None:
        """ValueError unless this model was trained on ``env_id`` and, for Threes, on
        the rule variant (``merge_6144``) of ``state``, a ``clone_state()``."""
        if env_id != self.env_id:
            raise ValueError(f"the ntuple model plays {self.env_id}, not {env_id}")
        merge = bool(self.env_kwargs.get("merge_6144", True))
        if env_id == "Threes-v0" and bool(state.merge_6144) != merge:
            raise ValueError(
                "the ntuple model was trained on the other merge_6144 rule"
            )

    def save(self, out: str | Path, extra: dict | None = None) -> Path:
        """Write ``weights.npz`` and ``model.json`` (and ``extra``, file name ->
        float32 array, e.g. training's ``tc_e.npz``) into directory ``out``, as one
        checkpoint: every file is staged under a temporary name, a list of them
        (``checkpoint.pending``) marks the checkpoint as written, then each is renamed
        into place. A crash before the list leaves the previous checkpoint whole; a
        crash after it is finished by the next :func:`load_model`. So a resumed run
        never pairs new weights with old counters."""
        if self.weights.dtype != np.float32:
            raise ValueError(
                "this net holds int16 multiples of its step, as the search reads a "
                "packaged net; unpack the packaged file to train or save it"
            )
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        arrays = {"weights.npz": self.weights, **(extra or {})}
        for name in arrays:
            if name not in CHECKPOINT_FILES or name == "model.json":
                raise ValueError(f"cannot save {name!r} in a checkpoint")
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "env_id": self.env_id,
            "env_kwargs": self.env_kwargs,
            "patterns": list(self.patterns),
            **({"stages": list(self.stages)} if self.stages else {}),
            **self.meta,
        }
        for name, array in arrays.items():
            write_sparse(out / _staged(name), array)
        (out / _staged("model.json")).write_text(json.dumps(meta, indent=2) + "\n")
        listing = out / _staged(PENDING)
        listing.write_text(json.dumps(sorted([*arrays, "model.json"])) + "\n")
        listing.replace(out / PENDING)  # the checkpoint is written
        finish_checkpoint(out)
        return out


#: The files of a checkpoint, and the list that marks one as written.
CHECKPOINT_FILES = ("model.json", "weights.npz", "tc_e.npz", "tc_a.npz")
PENDING = "checkpoint.pending"


def _staged(name: str) -> str:
    """``weights.npz`` -> ``weights.new.npz`` (every checkpoint file has a suffix)."""
    stem, _, ext = name.rpartition(".")
    return f"{stem}.new.{ext}"


def finish_checkpoint(out: str | Path) -> None:
    """Rename the staged files of a written checkpoint (``checkpoint.pending``) into
    place, if a crash stopped :meth:`NTupleModel.save` between its renames; a no-op
    otherwise. Only the checkpoint's own file names are ever renamed."""
    out = Path(out)
    pending = out / PENDING
    try:
        names = json.loads(pending.read_text())
    except FileNotFoundError:
        return
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        _fail(out, f"{PENDING} is not a list of checkpoint files ({err})")
    if not isinstance(names, list) or not all(n in CHECKPOINT_FILES for n in names):
        _fail(out, f"{PENDING} lists other files than {list(CHECKPOINT_FILES)}")
    for name in names:
        try:
            (out / _staged(name)).replace(out / name)
        except FileNotFoundError:  # renamed before the crash
            pass
    pending.unlink(missing_ok=True)


def write_sparse(path: Path, array: np.ndarray) -> None:
    """Save a float32 array to ``path`` (an ``.npz``) as the flat indices and values
    of its entries that differ from the most common one (``fill``), compressed.

    The archive is what :func:`numpy.savez_compressed` writes but for the deflate
    level: 1 instead of zlib's default 6, because a training run rewrites its
    checkpoint (a large net's weights and accumulators) at every evaluation, and the
    lowest level writes it fastest. :func:`read_sparse` reads either."""
    flat = array.reshape(-1)
    fill = float(np.median(flat[:: max(1, flat.size // 4096)]))
    idx = np.flatnonzero(flat != np.float32(fill)).astype(np.uint32)
    members = {
        "index": idx,
        "value": flat[idx],
        "fill": np.float32(fill),
        "shape": np.array(array.shape, np.int64),
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, value in members.items():
            with z.open(f"{name}.npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(value), allow_pickle=False)


def read_sparse(path: Path, want: tuple[int, ...]) -> np.ndarray:
    """Read :func:`write_sparse`'s file without pickle; float32 array of shape
    ``want``.

    Raises:
        ValueError: not an npz archive, pickled data, missing keys, another shape or
            inconsistent indices.
    """
    with path.open("rb") as f:
        if f.read(4) != b"PK\x03\x04":
            _fail(path, f"{path.name} cannot be read (not an npz/zip archive)")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = {"index", "value", "fill", "shape"} - set(z.files)
            if missing:
                _fail(path, f"{path.name} lacks {sorted(missing)}")
            idx, val, fill, shape = z["index"], z["value"], z["fill"], z["shape"]
    except (OSError, zipfile.BadZipFile, EOFError) as err:
        _fail(path, f"{path.name} cannot be read ({err})")
    except ValueError as err:
        if "pickle" in str(err):
            _fail(path, f"{path.name} holds pickled objects (refused)")
        raise
    if tuple(int(s) for s in shape) != want:
        _fail(path, f"weights shape {tuple(shape)} does not match {want}")
    if idx.shape != val.shape or (idx.size and int(idx.max()) >= np.prod(want)):
        _fail(path, "index/value arrays are inconsistent")
    w = np.full(int(np.prod(want)), np.float32(fill), dtype=np.float32)
    w[idx.astype(np.int64)] = val.astype(np.float32)
    return w.reshape(want)


def _fail(path, why: str):
    raise ValueError(f"{path} is not a playahead n-tuple model: {why}")


def load_model(path: str | Path, env_id: str | None = None) -> NTupleModel:
    """Read a model directory written by :meth:`NTupleModel.save`.

    Args:
        path: the directory (or its ``model.json`` / ``weights.npz``).
        env_id: if given, the env the model must be for.

    Raises:
        ValueError: missing or unreadable files, a foreign format, pickled data,
            missing keys, inconsistent shapes or the wrong env.
    """
    path = Path(path)
    if path.is_file():
        path = path.parent
    finish_checkpoint(path)
    meta_path, w_path = path / "model.json", path / "weights.npz"
    for p in (meta_path, w_path):
        if not p.is_file():
            _fail(path, f"{p.name} is missing")
    try:
        meta = json.loads(meta_path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        _fail(meta_path, f"model.json is not JSON ({err})")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        _fail(meta_path, f'model.json has no "format": "{FORMAT}"')
    if meta.get("version") != VERSION:
        _fail(meta_path, f"version {meta.get('version')!r}, this reads {VERSION}")
    for key in ("env_id", "patterns"):
        if key not in meta:
            _fail(meta_path, f"model.json lacks {key!r}")
    if meta["env_id"] not in ENVS:
        _fail(meta_path, f"env {meta['env_id']!r} is not one of {ENVS}")
    if env_id is not None and meta["env_id"] != env_id:
        raise ValueError(f"{path} is a model for {meta['env_id']}, not {env_id}")
    patterns = parse_patterns(meta["patterns"])
    try:
        stages = parse_stages(meta["env_id"], meta.get("stages", []))
    except ValueError as err:
        _fail(meta_path, str(err))
    preview = meta.get("preview", True)
    if not isinstance(preview, bool):
        _fail(meta_path, f'"preview" must be true or false, got {preview!r}')
    codes = _base_codes(meta["env_id"], preview) * (len(stages) + 1)
    check_memory(
        net_bytes(meta["env_id"], patterns, stages, preview=preview),
        f"the net in {path}",
    )
    w = read_sparse(w_path, (len(patterns), codes, 16 ** len(patterns[0])))
    rest = {
        k: v
        for k, v in meta.items()
        if k not in ("format", "version", "env_id", "env_kwargs", "patterns", "stages")
    }
    return NTupleModel(
        meta["env_id"], patterns, w, meta.get("env_kwargs", {}), rest, stages
    )


def shared_model(path: str | Path, env_id: str | None = None) -> NTupleModel:
    """:func:`load_model` for players, which only read the weights.

    The process keeps the last two nets it read, keyed by the identity of their files
    (inode, size, modification time), so an evaluator that builds an agent for every
    game reads a large net once, and a net saved again is read again. Training must use
    :func:`load_model`: it changes the weights in place.
    """
    path = Path(path)
    if path.is_file():
        path = path.parent
    finish_checkpoint(path)
    key = [str(path.resolve())]
    for name in ("model.json", "weights.npz"):
        try:
            st = (path / name).stat()
        except OSError:
            return load_model(path, env_id)  # says what is missing
        key.append((st.st_ino, st.st_size, st.st_mtime_ns))
    model = _shared(tuple(key))
    if env_id is not None and model.env_id != env_id:
        raise ValueError(f"{path} is a model for {model.env_id}, not {env_id}")
    return model


@functools.lru_cache(maxsize=2)
def _shared(key: tuple) -> NTupleModel:
    return load_model(key[0])


def _base_codes(env_id: str, preview: bool = True) -> int:
    return 1 if env_id == "2048-v0" or not preview else N_CODES
