"""The n-tuple nets that ship inside playahead (``playahead/data/*.npz``).

A packaged net is one file: the weights of an :class:`~playahead.ntuple.model.
NTupleModel` as a bit mask of the entries that differ from the most common value
(``mask: uint8``, :func:`numpy.packbits` order), their values (``values``), that
value (``fill``), the shape (``shape: int64[3]``) and the model's metadata as UTF-8 JSON
bytes (``meta: uint8``). The values are float32, or, in a quantized net
(:data:`QUANTIZE`), integers with one float32 step per pattern (``scale:
float32[P]``): an entry of pattern ``p`` is ``fill + q * scale[p]`` (in float32), within
half a step (plus float32 rounding, ``err[p]``) of the trained weight, so a value (a sum
over ``8 * P`` lookups) is within ``8 * sum(err)`` of the trained net's
(``meta["max_value_error"]``). A net quantized with a fixed ``step`` (in the net's
units: points of score) has the same step for every pattern and ``fill`` 0, keeps in
``mask`` only the entries that round to a non-zero multiple of it, and stores those
multiples (int16, zigzag-coded) as two byte planes, ``lo`` and ``hi``, instead of
``values``, LZMA-compressed: most multiples are small, so ``hi`` is nearly all zeros.
The search keeps those multiples as they are (half the memory of float32).

Decoding a large stepped net takes seconds (LZMA), so the shipped nets' multiples are
also kept decoded between processes, as a plain ``.npy`` named by the file's sha256
under ``$PLAYAHEAD_CACHE/nets/`` (default ``$XDG_CACHE_HOME/playahead``, else
``~/.cache/playahead``; ``PLAYAHEAD_CACHE=off`` keeps none): read without pickle and
checked against the weights' sha256 in the net's metadata, so a damaged copy is
decoded anew from the file, never used. A cache that cannot be written is skipped.

A packaged net is read with ``allow_pickle=False`` from bytes whose sha256 was checked
first (:data:`PACKAGED`), so a damaged or swapped file is refused
with an error that names the file and the sha256 it should have, and nothing in it is
run.

``evaluator=ntuple`` (no path) is the packaged net of the game being played
(:func:`packaged_model`); :func:`export_packaged` writes a training run's checkpoint in
this form, the same bytes for the same weights (fixed zip timestamps and order), and
:func:`unpack_checkpoint` turns the file back into that checkpoint (the training
metadata, generator state included, travels in ``meta``), so a run resumes from the
shipped net on a fresh machine::

    python -m playahead.ntuple.packaged export RUN_DIR playahead/data/NAME.npz
    python -m playahead.ntuple.packaged unpack playahead/data/NAME.npz RUN_DIR
    python -m playahead.ntuple.packaged info playahead/data/NAME.npz  # what it holds
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from playahead.ntuple.model import (
    ENVS,
    NTupleModel,
    load_model,
    parse_patterns,
    parse_stages,
)

DATA = Path(__file__).resolve().parent.parent / "data"
#: env id -> (file name under ``playahead/data``, sha256 of the file). How the nets
#: were trained and how to resume them: ``benchmarks/results/ntuple-threes-staged/``
#: (Threes) and ``benchmarks/results/ntuple-2048-5x6/`` (2048, exported with step 16:
#: ``benchmarks/results/ntuple-2048-compact/``).
PACKAGED: dict[str, tuple[str, str]] = {
    "Threes-v0": (
        "threes-ntuple.npz",
        "74048b4995ecf5d6309bb6e19bd79fdcd84abee34f7d7d5b5bf1056aceb22ec8",
    ),
    "2048-v0": (
        "2048-ntuple.npz",
        "146977e21da2a57c8802f298c61217d245f28a827909f2b904efb1ba37356a51",
    ),
}
#: env id -> the hand-made evaluator that plays without the packaged net.
HAND_MADE = {"Threes-v0": "features", "2048-v0": "features"}
#: The largest packaged file this reads (bytes).
MAX_BYTES = 40 * 1024 * 1024
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_KEYS = ("mask", "values", "fill", "shape", "meta")
#: The keys of a quantized net.
_QKEYS = (*_KEYS, "scale")
#: Quantized value types: name -> (dtype, largest magnitude).
QUANTIZE = {"int16": (np.int16, 32767), "int8": (np.int8, 127)}
#: The keys of a net quantized with a fixed step.
_SKEYS = ("mask", "lo", "hi", "fill", "shape", "meta", "scale")
#: The accepted fixed steps.
MIN_STEP, MAX_STEP = 1e-3, 1e6
#: Entries decoded at a time when a net is read (bounds the memory a read needs
#: beside the weights themselves).
_BLOCK = 1 << 22


class PackagedNetError(ValueError):
    """A packaged net that is missing, damaged or not the one this version ships."""


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def weights_sha256(weights: np.ndarray, step: float = 1.0, fill: float = 0.0) -> str:
    """sha256 of the weights' float32 bytes (C order): the same for the same net
    whatever the file's compression. Integer ``weights`` are multiples of ``step``
    from ``fill`` (a stepped net kept as it is read for search): hashed as the
    float32 weights they decode to, :data:`_BLOCK` entries at a time."""
    flat = weights.reshape(-1)
    digest = hashlib.sha256()
    for lo in range(0, flat.size, _BLOCK):
        part = flat[lo : lo + _BLOCK]
        if part.dtype != np.float32:
            part = np.float32(fill) + part.astype(np.float32) * np.float32(step)
        digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()


def export_packaged(
    model_dir: str | Path,
    out: str | Path,
    quantize: str | None = None,
    step: float | None = None,
) -> str:
    """Write the model in ``model_dir`` (a ``playahead train ntuple`` run) to ``out``
    as a packaged net; returns the file's sha256.

    Args:
        model_dir: a run directory :func:`~playahead.ntuple.model.load_model` reads.
        out: the file to write (the same bytes for the same weights).
        quantize: None keeps float32 values; a key of :data:`QUANTIZE` stores each
            entry as that integer times its pattern's step (the largest magnitude of
            the pattern's entries over the type's range).
        step: stores each entry as a multiple of ``step`` (int16, the same step for
            every pattern) and drops the entries that round to 0 (module docstring);
            not with ``quantize``.

    Raises:
        ValueError: an unreadable model, an unknown ``quantize``, a ``step`` out of
            range or too small for the net's largest entry, or a file larger than
            :data:`MAX_BYTES`.
    """
    if quantize is not None and quantize not in QUANTIZE:
        raise ValueError(
            f"quantize must be one of {', '.join(QUANTIZE)} (or none), got {quantize!r}"
        )
    if step is not None:
        if quantize is not None:
            raise ValueError("give quantize or step, not both")
        if not MIN_STEP <= step <= MAX_STEP:
            raise ValueError(
                f"step must be in [{MIN_STEP:g}, {MAX_STEP:g}], got {step!r}"
            )
    model = load_model(model_dir)
    flat = model.weights.reshape(-1)
    fill = np.float32(0 if step else np.median(flat[:: max(1, flat.size // 4096)]))
    meta = {
        "env_id": model.env_id,
        "env_kwargs": model.env_kwargs,
        "patterns": list(model.patterns),
        "stages": list(model.stages),
        "training": model.meta,
    }
    if step is not None:
        arrays, keys = _stepped(model.weights, fill, float(step), meta), _SKEYS
    elif quantize is None:
        keep = flat != fill
        arrays = {"mask": np.packbits(keep), "values": flat[keep].astype(np.float32)}
        meta["weights_sha256"] = weights_sha256(model.weights)
        keys = _KEYS
    else:
        arrays, keys = _quantized(model.weights, fill, quantize, meta), _QKEYS
    arrays |= {
        "fill": np.array([fill], np.float32),
        "shape": np.array(model.weights.shape, np.int64),
        "meta": np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8),
    }
    # A stepped net's members are LZMA (about 10% smaller than deflate on its
    # planes); the other forms keep deflate, so their files keep their bytes.
    method = zipfile.ZIP_LZMA if step is not None else zipfile.ZIP_DEFLATED
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method, compresslevel=9) as z:
        for key in keys:
            info = zipfile.ZipInfo(f"{key}.npy", date_time=_ZIP_TIME)
            info.compress_type = method
            part = io.BytesIO()
            np.lib.format.write_array(part, arrays[key], allow_pickle=False)
            z.writestr(info, part.getvalue(), compresslevel=9)
    data = buf.getvalue()
    if len(data) > MAX_BYTES:
        raise ValueError(
            f"{out}: {len(data):,} bytes, a packaged net may have at most {MAX_BYTES:,}"
            + ("" if quantize or step else "; try step=16")
        )
    Path(out).write_bytes(data)
    return sha256_of(data)


def _errors(scale, span, meta) -> None:
    """The stated errors of a quantized net with per-pattern ``scale`` and largest
    magnitudes ``span``, into ``meta``: half a step plus float32 rounding per
    weight, and 8 times their sum per value."""
    err = scale.astype(np.float64) / 2 + 2 * np.spacing(span.astype(np.float32))
    meta["weight_errors"] = [float(e) for e in err]
    meta["max_value_error"] = float(8 * err.sum())


def _quantized(weights, fill, quantize, meta) -> dict:
    """The ``mask``, ``values`` and ``scale`` of ``weights`` quantized to
    ``QUANTIZE[quantize]`` with one step per pattern; fills ``meta``."""
    dtype, top = QUANTIZE[quantize]
    rows = weights.reshape(weights.shape[0], -1).astype(np.float64)
    rows -= fill
    span = np.abs(rows).max(axis=1)
    scale = (np.where(span > 0, span, 1.0) / top).astype(np.float32)
    q = np.rint(rows / scale[:, None])
    del rows
    q = np.clip(q, -top, top).astype(dtype)
    back = fill + q.astype(np.float32) * scale[:, None]
    keep = weights.reshape(-1) != fill
    meta["quantized"] = quantize
    meta["source_weights_sha256"] = weights_sha256(weights)
    meta["weights_sha256"] = weights_sha256(back.reshape(weights.shape))
    _errors(scale, span, meta)
    return {"mask": np.packbits(keep), "values": q.reshape(-1)[keep], "scale": scale}


def _stepped(weights, fill, step, meta) -> dict:
    """The ``mask``, ``lo``, ``hi`` and ``scale`` of ``weights`` as multiples of
    ``step`` (module docstring); fills ``meta``."""
    rows = weights.reshape(weights.shape[0], -1).astype(np.float64)
    rows -= fill
    span = np.abs(rows).max(axis=1)
    top = float(span.max()) / step
    if top > 32767:
        raise ValueError(
            f"step {step:g} is too small for this net: its largest entry is "
            f"{span.max():,.1f} from the fill value, so step must be at least "
            f"{float(span.max()) / 32767:.4g}"
        )
    q = np.rint(rows / step).astype(np.int16).reshape(-1)
    del rows
    keep = q != 0
    v = q[keep].astype(np.int32)
    zz = ((v << 1) ^ (v >> 31)).astype(np.uint32)
    scale = np.full(weights.shape[0], step, np.float32)
    meta["quantized"] = "step"
    meta["step"] = step
    meta["source_weights_sha256"] = weights_sha256(weights)
    meta["weights_sha256"] = weights_sha256(q, step, fill)  # as read back
    _errors(scale, span, meta)
    return {
        "mask": np.packbits(keep),
        "lo": (zz & 0xFF).astype(np.uint8),
        "hi": (zz >> 8).astype(np.uint8),
        "scale": scale,
    }


def _unzigzag(lo, hi) -> np.ndarray:
    """The int16 multiples of a stepped net from its byte planes, :data:`_BLOCK`
    entries at a time (a first read's peak memory stays near the net's own size)."""
    out = np.empty(lo.size, np.int16)
    for a in range(0, lo.size, _BLOCK):
        zz = lo[a : a + _BLOCK].astype(np.int32) | (
            hi[a : a + _BLOCK].astype(np.int32) << 8
        )
        out[a : a + _BLOCK] = (zz >> 1) ^ -(zz & 1)
    return out


def _decode(mask, values, fill, scale, shape, steps=False) -> np.ndarray:
    """The float32 weights of ``shape`` from a packaged net's arrays, decoded
    :data:`_BLOCK` entries at a time; ``steps``: a stepped net's int16 multiples
    themselves (0 where ``mask`` is clear)."""
    n = int(np.prod(shape))
    flat = np.zeros(n, np.int16) if steps else np.full(n, fill, np.float32)
    row = int(np.prod(shape[1:]))
    done = 0  # values used so far
    for lo in range(0, n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        keep = np.unpackbits(mask[lo // 8 : (hi + 7) // 8], count=hi - lo).view(bool)
        got = int(np.count_nonzero(keep))
        if done + got > values.size:
            raise PackagedNetError("mask and values disagree")
        v = values[done : done + got]
        if scale is None or steps:
            flat[lo:hi][keep] = v
        else:
            where = np.flatnonzero(keep) + lo
            flat[where] = fill + v.astype(np.float32) * scale[where // row]
        done += got
    if done != values.size:
        raise PackagedNetError("mask and values disagree")
    return flat.reshape(shape)


def cache_dir() -> Path | None:
    """Where decoded nets are kept between processes (see the module docstring), or
    None with ``PLAYAHEAD_CACHE=off``."""
    given = os.environ.get("PLAYAHEAD_CACHE")
    if given is not None:
        return None if given.strip().lower() in ("off", "0", "") else Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "playahead"


def _cached_path(sha256: str) -> Path | None:
    where = cache_dir()
    return None if where is None else where / "nets" / f"{sha256}.npy"


def _read_cached(sha256: str, shape: tuple) -> np.ndarray | None:
    """The decoded int16 multiples of the net whose file has ``sha256``, if a copy of
    the right shape is kept (its content is checked by the caller)."""
    path = _cached_path(sha256)
    if path is None or not path.is_file():
        return None
    try:
        weights = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if weights.dtype != np.int16 or weights.shape != shape:
        return None
    return weights


def _write_cached(sha256: str, weights: np.ndarray) -> None:
    """Keep the decoded ``weights`` (written under a temporary name, then renamed, so a
    reader never sees half a file); nothing if the cache cannot be written."""
    path = _cached_path(sha256)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                np.save(f, weights, allow_pickle=False)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        return


def _drop_cached(sha256: str) -> None:
    path = _cached_path(sha256)
    if path is not None:
        try:
            path.unlink()
        except OSError:
            pass


def read_packaged(
    path: str | Path,
    sha256: str | None,
    fallback: str = "features",
    keep_steps: bool = False,
    _cache: bool = True,
) -> NTupleModel:
    """Read a packaged net, refusing it unless its bytes have ``sha256`` (None: no
    check, for a file just written by :func:`export_packaged`); a missing or damaged
    file's message names ``fallback``, the evaluator that plays without it.
    ``keep_steps``: a stepped net whose fill value is 0 keeps its int16 multiples as
    the weights, with ``step`` set on the model (half the memory; what the search
    reads, :func:`packaged_model`); every other net is decoded to float32. With
    ``keep_steps`` and a ``sha256`` to match, the multiples are kept decoded between
    processes (:func:`cache_dir`) and read from there once checked.

    Raises:
        PackagedNetError: a missing, oversized, damaged or swapped file, or one that
            is no packaged net (the message names the file and the expected sha256).
    """
    path = Path(path)
    want = f" (expected sha256 {sha256})" if sha256 else ""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise PackagedNetError(f"packaged net {path} is {size:,} bytes{want}")
        data = path.read_bytes()
    except OSError as err:
        raise PackagedNetError(
            f"packaged net {path} cannot be read ({err.strerror or err}){want}; "
            f"reinstall playahead, or use evaluator={fallback}"
        ) from None
    got = sha256_of(data)
    if sha256 is not None and got != sha256:
        raise PackagedNetError(
            f"packaged net {path} is damaged or not the one this playahead ships: "
            f"sha256 {got}, expected {sha256}; reinstall playahead, or use "
            f"evaluator={fallback}"
        )
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            if sorted(z.files) not in (sorted(_KEYS), sorted(_QKEYS), sorted(_SKEYS)):
                raise PackagedNetError(f"{path} holds {sorted(z.files)}, not {_KEYS}")
            fill, shape, meta = (z[k] for k in ("fill", "shape", "meta"))
            scale = z["scale"] if "scale" in z.files else None
            cached = None
            if _cache and keep_steps and sha256 is not None and "lo" in z.files:
                cached = _read_cached(sha256, tuple(int(s) for s in shape))
            if cached is not None:  # checked below, as a decoded net is
                mask = values = None
            elif "values" in z.files:
                mask, values = z["mask"], z["values"]
            else:
                mask, lo, hi = z["mask"], z["lo"], z["hi"]
                if lo.dtype != np.uint8 or hi.dtype != np.uint8 or lo.shape != hi.shape:
                    raise PackagedNetError("lo/hi have the wrong dtypes")
                values = _unzigzag(lo, hi)
                del lo, hi  # the planes are not needed once joined
        meta = json.loads(meta.tobytes().decode())
        env_id = meta["env_id"]
        if env_id not in ENVS:
            raise PackagedNetError(f"{path}: env {env_id!r} is not one of {ENVS}")
        patterns = parse_patterns(meta["patterns"])
        stages = parse_stages(env_id, meta["stages"])
        shape = tuple(int(s) for s in shape)
        preview = meta.get("training", {}).get("preview", True) is not False
        codes = (1 if env_id == "2048-v0" or not preview else 4) * (len(stages) + 1)
        if shape != (len(patterns), codes, 16 ** len(patterns[0])):
            raise PackagedNetError(f"{path}: weights shape {shape} does not fit")
        quantized = meta.get("quantized")
        if cached is not None:
            fill = np.float32(fill.reshape(-1)[0])
            if quantized != "step" or fill != 0 or scale is None:
                raise PackagedNetError(f"{path}: not a stepped net of fill 0")
            weights, step = cached, float(scale[0])
        elif quantized is None:
            ok = scale is None and values.dtype == np.float32
        else:
            dtype = np.int16 if quantized == "step" else QUANTIZE[quantized][0]
            ok = (
                values.dtype == dtype
                and scale is not None
                and scale.dtype == np.float32
                and scale.shape == (shape[0],)
            )
        if cached is None:
            if mask.dtype != np.uint8 or not ok or mask.size != -(-np.prod(shape) // 8):
                raise PackagedNetError(f"{path}: mask/values have the wrong dtypes")
            fill = np.float32(fill.reshape(-1)[0])
            steps = keep_steps and quantized == "step" and fill == 0
            weights = _decode(mask, values, fill, scale, shape, steps)
            step = float(scale[0]) if steps else 1.0
    except PackagedNetError as err:
        if str(path) in str(err):
            raise
        raise PackagedNetError(f"{path}: {err}") from None
    except (ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as err:
        raise PackagedNetError(
            f"{path} is not a packaged n-tuple net ({type(err).__name__}: {err})"
        ) from None
    if weights_sha256(weights, step, fill) != meta.get("weights_sha256"):
        if cached is not None:  # a damaged copy: decoded anew from the file
            _drop_cached(sha256)
            return read_packaged(path, sha256, fallback, keep_steps, _cache=False)
        raise PackagedNetError(f"{path}: the weights do not match their sha256")
    if cached is None and sha256 is not None and weights.dtype == np.int16:
        _write_cached(sha256, weights)
    train_meta = dict(meta.get("training", {}))
    return NTupleModel(
        env_id, patterns, weights, dict(meta["env_kwargs"]), train_meta, stages, step
    )


def packaged_path(env_id: str) -> tuple[Path, str]:
    """``(path, sha256)`` of the net playahead ships for ``env_id``.

    Raises:
        PackagedNetError: no net ships for ``env_id``.
    """
    if env_id not in PACKAGED:
        ships = ", ".join(PACKAGED) or "no game"
        raise PackagedNetError(
            f"playahead ships no n-tuple net for {env_id} (it ships one for {ships}); "
            "give evaluator=ntuple:path=DIR"
        )
    name, sha = PACKAGED[env_id]
    return DATA / name, sha


@functools.cache
def packaged_model(env_id: str = "Threes-v0") -> NTupleModel:
    """The packaged net for ``env_id``, read once per process and sha256-checked,
    as the search reads it (a stepped net keeps its int16 multiples)."""
    path, sha = packaged_path(env_id)
    return read_packaged(path, sha, HAND_MADE.get(env_id, "features"), True)


def describe(path: str | Path) -> dict:
    """What a packaged net holds: its file's bytes and sha256, env, patterns, stages,
    the form of its values (``float32``, a key of :data:`QUANTIZE`, or ``step``
    with the step), the entries it stores, the trained games, the sha256 of the
    weights (and of the trained weights it was quantized from) and the stated
    ``max_value_error`` (0 for float32). The file is read as
    :func:`read_packaged` reads it (no sha256 to match)."""
    path = Path(path)
    model = read_packaged(path, None, keep_steps=True)  # one line if it is none
    data = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        meta = json.loads(np.load(z.open("meta.npy"), allow_pickle=False).tobytes())
        mask = np.load(z.open("mask.npy"), allow_pickle=False)
    return {
        "file": path.name,
        "bytes": len(data),
        "sha256": sha256_of(data),
        "env_id": model.env_id,
        "patterns": list(model.patterns),
        "stages": list(model.stages),
        "values": meta.get("quantized", "float32"),
        "step": meta.get("step"),
        "entries": int(np.prod(model.weights.shape)),
        "stored": int(np.unpackbits(mask).sum()),
        "games": model.meta.get("games"),
        "weights_sha256": meta["weights_sha256"],
        "source_weights_sha256": meta.get("source_weights_sha256"),
        "max_value_error": float(meta.get("max_value_error", 0.0)),
    }


def unpack_checkpoint(
    path: str | Path, out: str | Path, sha256: str | None = None
) -> Path:
    """Write the packaged net ``path`` as a run directory ``out`` that ``playahead
    train ntuple --resume`` continues; returns ``out``.

    The directory holds ``weights.npz`` and ``model.json`` (the training metadata,
    generator state and schedule included). A packaged file carries no
    temporal-coherence accumulators, so for a net trained with TC (``"tc": true``)
    they are written as zeros (``tc_e.npz``, ``tc_a.npz``): a resume with TC starts
    every weight's rate again at 1, and a resume with ``--no-tc`` trains on at the
    run's base rate."""
    model = read_packaged(path, sha256)
    extra = {}
    if model.meta.get("tc", False):
        zeros = np.zeros_like(model.weights)
        extra = {"tc_e.npz": zeros, "tc_a.npz": zeros}
    return model.save(out, extra)


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m playahead.ntuple.packaged",
        description="write a training run as a packaged net, or a packaged net "
        "back as a training checkpoint",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="RUN_DIR -> packaged .npz (prints its sha256)")
    ex.add_argument("run")
    ex.add_argument("file")
    ex.add_argument(
        "--quantize",
        choices=sorted(QUANTIZE),
        default=None,
        help="store each entry as this integer times its pattern's step "
        "(default: float32)",
    )
    ex.add_argument(
        "--step",
        type=float,
        default=None,
        help="store each entry as a multiple of STEP (points of score; the same "
        "for every pattern), dropping those that round to 0 (not with --quantize)",
    )
    un = sub.add_parser(
        "unpack",
        help="packaged .npz -> RUN_DIR to --resume (temporal-coherence "
        "accumulators, if the net was trained with them, start at zero)",
    )
    un.add_argument("file")
    un.add_argument("run")
    un.add_argument("--sha256", default=None, help="refuse the file unless it has it")
    info = sub.add_parser("info", help="what a packaged .npz holds, as JSON")
    info.add_argument("file")
    info.add_argument("--json", default=None, help="also write it to this file")
    a = parser.parse_args(argv)
    try:
        if a.command == "export":
            print(export_packaged(a.run, a.file, a.quantize, a.step))
        elif a.command == "info":
            text = json.dumps(describe(a.file), indent=1)
            print(text)
            if a.json:
                Path(a.json).write_text(text + "\n")
        else:
            print(unpack_checkpoint(a.file, a.run, a.sha256))
    except ValueError as err:
        raise SystemExit(f"python -m playahead.ntuple.packaged: {err}") from None
    return 0


if __name__ == "__main__":
    from playahead._procs import reader_may_leave

    with reader_may_leave():
        code = main()
    raise SystemExit(code)
