"""Train an n-tuple network: ``train_ntuple`` and ``playahead train ntuple``.

Randomness: the training games draw all chance from one ``np.random.default_rng(seed)``
(its state is checkpointed, so a resumed run continues the same stream); evaluation
game ``i`` uses ``np.random.default_rng(EVAL_SEED_BASE + i)``, a stream the training
never uses. The same seed and options give the same network (with one worker; with
``workers > 1`` the threads' updates race, as in the literature's multi-threaded
trainers, and the network depends on their timing).

A run directory holds the model (``model.json`` + ``weights.npz``, rewritten at every
checkpoint), ``progress.csv`` (one row per evaluation) and TensorBoard scalars under
``tb/`` (``rollout/score_mean`` over moves played, which ``playahead curves`` draws,
plus ``eval/score_mean`` and ``eval/goal_rate``). No torch is needed.

Ctrl-C or SIGTERM stops a run after its current chunk of games (``CHUNK``) with a
checkpoint there, from which ``--resume`` trains the network an uninterrupted run
would (see ``_StopRequest``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np

from playahead._procs import on_signals
from playahead._rundirs import refuse_another_run
from playahead.games import threes, twenty48
from playahead.kernels import td
from playahead.kernels.ntuple import pattern_runs
from playahead.ntuple.config import LR_PLAIN, LR_TC, NTupleConfig
from playahead.ntuple.model import (
    DEFAULT_PATTERNS,
    THREES_PATTERNS,
    NTupleModel,
    check_memory,
    load_model,
    net_bytes,
    parse_patterns,
    parse_stages,
    read_sparse,
    tile_faces,
)

EVAL_SEED_BASE = 1_000_000_007
CHUNK = 500  # games per kernel call
#: The top rank whose rate evaluation reports: 2048 (rank 11) and 384 (rank 10).
GOAL_RANK = {"2048-v0": 11, "Threes-v0": 10}


def rules(model: NTupleModel):
    """``(moves, rewards, bonus_preview)`` kernel arguments of the model's env."""
    if model.game == 0:
        moves, rewards = twenty48.TABLES
        return moves, rewards, 0
    kw = model.env_kwargs
    moves, rewards, _ = threes.tables(bool(kw.get("merge_6144", True)))
    return moves, rewards, threes.BONUS_PREVIEWS[kw.get("bonus_preview", "window")]


def evaluate(model: NTupleModel, games: int, first_seed: int = EVAL_SEED_BASE):
    """Greedy games without learning; int64[games, 3] rows of (score, top rank,
    moves), game ``i`` played with ``np.random.default_rng(first_seed + i)``."""
    runs = pattern_runs(model.cells)
    game = td.td_game(model.game, model.weights, runs, model.stage_ranks, *rules(model))
    trail = td.trail_buffers(runs)
    out = np.empty((games, 3), np.int64)
    for i in range(games):
        out[i] = td.play(game, np.random.default_rng(first_seed + i), trail)
    return out


class _Scalars:
    """TensorBoard scalars through the ``tensorboard`` package (skipped without it)."""

    def __init__(self, logdir: Path, enabled: bool):
        self.writer = None
        if not enabled:
            return
        try:
            from tensorboard.summary.writer.event_file_writer import EventFileWriter
        except ImportError:
            return
        self.writer = EventFileWriter(str(logdir))

    def add(self, step: int, values: dict[str, float]) -> None:
        if self.writer is None:
            return
        from tensorboard.compat.proto.event_pb2 import Event
        from tensorboard.compat.proto.summary_pb2 import Summary

        summary = Summary(
            value=[Summary.Value(tag=t, simple_value=v) for t, v in values.items()]
        )
        self.writer.add_event(Event(wall_time=time.time(), step=step, summary=summary))
        self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _tc_state(model: NTupleModel, out: Path, resume: bool):
    """``(E, A)`` temporal-coherence accumulators shaped like the weights (zeros at
    the start, read back on resume), or two empty arrays without TC."""
    if not model.meta.get("tc", False):
        empty = np.zeros(0, np.float32)
        return empty, empty
    if not resume:
        return np.zeros_like(model.weights), np.zeros_like(model.weights)
    for name in ("tc_e.npz", "tc_a.npz"):
        if not (out / name).is_file():
            raise ValueError(f"{out} was trained with tc but {name} is missing")
    shape = model.weights.shape
    return read_sparse(out / "tc_e.npz", shape), read_sparse(out / "tc_a.npz", shape)


def _split(model: NTupleModel, stages: tuple[int, ...], done: int, out: Path):
    """Split a one-stage net into ``stages``, each a copy of its weights."""
    if model.stages:
        raise ValueError(
            f"{out} is already a multi-stage net (stages {list(model.stages)}); "
            "only a one-stage net can be split on resume"
        )
    if model.meta.get("tc", False):
        raise ValueError(
            "a net trained with tc cannot be split on resume (its accumulators "
            "would not match the new weights); split a net trained without tc"
        )
    model.weights = np.tile(model.weights, (1, len(stages) + 1, 1))
    model.stages = stages
    schedule = _schedule(model.meta)
    schedule.append({**schedule[-1], "from_game": done, "stages": list(stages)})


def _settings(meta: dict) -> dict:
    """The settings a resume may change (a model from before TD(lambda) and
    restarts existed trained with lambda 0 and without restarts)."""
    out = {
        "lr": float(meta["lr"]),
        "tc": bool(meta.get("tc", False)),
        "lambda": float(meta.get("lambda", 0.0)),
        "restarts": bool(meta.get("restarts", False)),
    }
    if "search_share" in meta:  # a run that has had search-driven games
        out["search_share"] = float(meta["search_share"])
        out["search_depth"] = int(meta["search_depth"])
    if "stop_at" in meta:  # a run that has had stage-stopped games
        out["stop_at"] = int(meta["stop_at"])
    if "online" in meta:  # a run that has learned online
        out["online"] = bool(meta["online"])
    return out


#: A run's search-driven games before any were asked for: none (greedy games only).
NO_SEARCH = {"search_share": 0.0, "search_depth": 2}
#: A run's stage-stop before one was asked for: none (games play to their end).
NO_STOP = {"stop_at": 0}
#: A run's update order before online TD was asked for: the backward pass.
NO_ONLINE = {"online": False}


def _schedule(meta: dict) -> list[dict]:
    """``meta``'s schedule, started with the run's first settings if it has none."""
    return meta.setdefault("schedule", [{"from_game": 0, **_settings(meta)}])


def _change_schedule(meta: dict, done: int, changes: dict) -> bool:
    """Apply a resumed run's new settings (``changes``: ``lr``, ``tc``, ``lambda``,
    ``restarts``, ``search_share``, ``search_depth``, ``stop_at``, ``online``, None
    for unchanged) to ``meta``
    and its ``schedule``; True if TC was just switched on (its accumulators start
    from zero)."""
    old = _settings(meta)
    for defaults in (NO_SEARCH, NO_STOP, NO_ONLINE):
        if any(changes.get(k) is not None for k in defaults):
            old = {**defaults, **old}
    new = {k: old[k] if changes.get(k) is None else changes[k] for k in old}
    new = {k: type(old[k])(v) for k, v in new.items()}
    if new == old:
        return False
    schedule = _schedule(meta)
    if schedule[-1]["from_game"] == done:  # changed again before any game
        schedule[-1].update(new)
    else:
        schedule.append({"from_game": done, **new})
    meta.update(new)
    return new["tc"] and not old["tc"]


#: The default recipe of a new run, per env (``train_ntuple``'s None options): for
#: 2048 TD(lambda = 0.5) with temporal coherence and restarts at rate 1.0, as
#: ziap/2048-tdl and TDL2048+ train (measured in benchmarks/results/ntuple-2048/);
#: Threes keeps TD(0) at 0.1 until its recipe is measured.
RECIPES = {
    "2048-v0": {"lr": LR_TC, "tc": True, "lambda": 0.5, "restarts": True},
    "Threes-v0": {"lr": LR_PLAIN, "tc": False, "lambda": 0.0, "restarts": False},
}
MAX_STARTS = 10_000_000


def _stop_rank(model: NTupleModel, stop_at: int) -> int:
    """The rank of ``stop_at``, a tile where a stage of ``model`` starts.

    Raises:
        ValueError: not a tile where one of the net's stages starts.
    """
    if stop_at not in model.stages:
        where = ", ".join(map(str, model.stages))
        raise ValueError(
            f"stop_at {stop_at} is not where a stage of the net starts ("
            + (f"its stages start at {where}" if where else "it has one stage")
            + "): give one of those tiles, or 0 to play every game to its end"
        )
    return int(tile_faces(model.env_id).index(stop_at))


def load_starts(path: str | Path, env_id: str, env_kwargs: dict | None = None):
    """Saved start positions: an ``.npz`` with ``board`` (uint64[M], packed boards)
    and, for Threes, ``cards`` (int64[M], the cards words of ``clone_state()``).

    Returns:
        ``(boards, cards, sha256)``.

    Raises:
        ValueError: unreadable or pickled, missing or misshapen arrays, or a position
            whose game is over.
    """
    import hashlib

    path = Path(path)
    try:
        data = path.read_bytes()
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError) as err:
        raise ValueError(f"start positions {path}: cannot be read ({err})") from None
    if "board" not in arrays or (env_id == "Threes-v0" and "cards" not in arrays):
        need = "board" if env_id == "2048-v0" else "board and cards"
        raise ValueError(f"start positions {path}: needs arrays {need}")
    boards = np.asarray(arrays["board"])
    cards = np.asarray(arrays.get("cards", np.zeros(boards.shape, np.int64)))
    if boards.ndim != 1 or cards.shape != boards.shape or boards.dtype.kind not in "ui":
        raise ValueError(
            f"start positions {path}: board and cards must be 1-D integers"
        )
    if not 1 <= boards.size <= MAX_STARTS:
        raise ValueError(f"start positions {path}: 1..{MAX_STARTS:,} positions")
    boards, cards = boards.astype(np.uint64), cards.astype(np.int64)
    model = NTupleModel.new(env_id, ("0",), env_kwargs=dict(env_kwargs or {}))
    moves, rewards, _ = rules(model)
    game = twenty48 if env_id == "2048-v0" else threes
    for i, b in enumerate(boards):
        if b == 0 or game.is_over(b, moves, rewards):
            raise ValueError(f"start positions {path}: position {i} has no legal move")
    return boards, cards, hashlib.sha256(data).hexdigest()


@contextlib.contextmanager
def run_lock(out: str | Path):
    """Hold the lock of run directory ``out`` for a training run: a second run into
    the same directory while one lives (a resume started before a stopped run has
    saved its checkpoint, or a second terminal) gets a one-line error instead of
    racing it for the files. The lock file lies beside the directory
    (``.NAME.lock``), so it holds across a directory replaced under a live run; the
    operating system frees it when its process ends, however it ends."""
    from filelock import FileLock, Timeout

    out = Path(out)
    path = out.parent / f".{out.name}.lock"
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path, thread_local=False)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise ValueError(
            f"another run is training into {out} (it holds {path}); let it finish "
            "or stop it, and wait for its checkpoint, before starting this one"
        ) from None
    try:
        yield
    finally:
        lock.release()


def train_ntuple(
    config: NTupleConfig | str, games: int | None = None, out=None, **options
) -> Path:
    """Train (or continue) an n-tuple net as ``config`` says, for ``config.games``
    games in total.

    ``train_ntuple(NTupleConfig(env_id="2048-v0", out="runs/nt", games=100_000))``,
    or the same as ``train_ntuple("2048-v0", 100_000, "runs/nt", **options)`` (the
    fields of :class:`~playahead.ntuple.config.NTupleConfig` as keywords).

    The defaults are :data:`RECIPES`: for 2048 TD(0.5) with temporal coherence and
    restarts at rate 1.0. ``lr``, ``tc``, ``lam`` and ``restarts`` None take them; on
    ``resume``, None keeps the run's setting and a value changes it from the
    checkpoint on, appended as ``{"from_game", "lr", "tc", "lambda", "restarts"}`` to
    ``model.json``'s ``"schedule"`` (whose first entry is the start), so a fine-tuned
    net is rebuilt by the same commands.

    Args:
        config: the run's options, or its env id (then ``games``, ``out`` and
            ``options`` are the other fields).
        games: total training games, with an env id.
        out: run directory, with an env id.
        **options: the other fields of the config, with an env id.

    Returns:
        The run directory (a model :func:`~playahead.ntuple.model.load_model` reads).

    Raises:
        ValueError: bad options (before any game), a net too large for the memory,
            ``resume`` without a model in ``out``, a new run into an ``out`` that
            holds one, or another live run training into ``out``
            (:func:`run_lock`).
        TypeError: a config with other arguments beside it.
    """
    if isinstance(config, NTupleConfig):
        if games is not None or out is not None or options:
            raise TypeError(
                "train_ntuple takes a config alone, or an env id and keywords"
            )
    else:
        if games is not None:
            options["games"] = games
        config = NTupleConfig(env_id=config, out=out, **options)
    with run_lock(config.out):
        return _train(config)


def _train(cfg: NTupleConfig) -> Path:
    """:func:`train_ntuple` of a checked config, holding the run's lock."""
    env_id, games, out, resume = cfg.env_id, cfg.games, Path(cfg.out), cfg.resume
    lr, tc, lam, restarts = cfg.lr, cfg.tc, cfg.lam, cfg.restarts
    starts, start_share, stages = cfg.starts, cfg.start_share, cfg.stages
    env_kwargs, preview, patterns = cfg.env_kwargs, cfg.preview, cfg.patterns
    start_arrays = td.NO_STARTS
    if starts is not None:
        *start_arrays, starts_sha = load_starts(starts, env_id, env_kwargs)
    fresh_tc = not resume
    changes = {"lr": lr, "tc": tc, "lambda": lam, "restarts": restarts}
    changes |= {"search_share": cfg.search_share, "search_depth": cfg.search_depth}
    changes |= {"stop_at": cfg.stop_at, "online": cfg.online}
    if resume:
        model = load_model(out, env_id)
        done = int(model.meta.get("games", 0))
        rng = np.random.default_rng()
        rng.bit_generator.state = model.meta["rng_state"]
        moves_done = int(model.meta.get("moves", 0))
        if stages is not None and parse_stages(env_id, stages) != model.stages:
            _split(model, parse_stages(env_id, stages), done, out)
        fresh_tc = _change_schedule(model.meta, done, changes)
        if cfg.switch_starts:
            if starts is None:
                raise ValueError("switching start positions needs --starts FILE.npz")
            model.meta.pop("starts", None)
        if starts is not None and "starts" not in model.meta:  # from here on
            model.meta["starts"] = {
                "file": Path(starts).name,
                "sha256": starts_sha,
                "positions": int(start_arrays[0].size),
                "share": float(start_share),
                "from_game": done,
            }
            last = _schedule(model.meta)[-1]
            if last["from_game"] != done:
                last = {**last, "from_game": done}
                model.meta["schedule"].append(last)
            last["starts"] = True
            if cfg.switch_starts:
                last["starts"] = {
                    k: model.meta["starts"][k] for k in ("file", "sha256", "share")
                }
        _check_starts(model.meta, starts, start_share, out)
    else:
        refuse_another_run(out, "model.json")
        recipe = dict(RECIPES[env_id])
        if cfg.search_share is not None or cfg.search_depth is not None:
            recipe.update(NO_SEARCH)
        if cfg.stop_at is not None:
            recipe.update(NO_STOP)
        if cfg.online is not None:
            recipe.update(NO_ONLINE)
            if cfg.online and lam is None:
                recipe["lambda"] = 0.0
        recipe.update({k: v for k, v in changes.items() if v is not None})
        if lr is None and changes["tc"] is not None:
            recipe["lr"] = LR_TC if recipe["tc"] else LR_PLAIN
        patterns = parse_patterns(
            patterns or (DEFAULT_PATTERNS if env_id == "2048-v0" else THREES_PATTERNS)
        )
        ranks = parse_stages(env_id, stages)
        copies = 6 if recipe["tc"] else 1  # the accumulators, and a packed copy
        nbytes = net_bytes(env_id, patterns, ranks, copies, preview=preview)
        check_memory(nbytes, "this net")
        model = NTupleModel.new(
            env_id,
            patterns,
            cfg.init,
            stages,
            preview,
            env_kwargs=dict(env_kwargs or {}),
        )
        model.meta = {
            "seed": cfg.seed,
            "init": cfg.init,
            **_settings(recipe),
            "games": 0,
        }
        if not preview:
            model.meta["preview"] = False
        if starts is not None:
            model.meta["starts"] = {
                "file": Path(starts).name,
                "sha256": starts_sha,
                "positions": int(start_arrays[0].size),
                "share": float(start_share),
            }
        done, moves_done = 0, 0
        rng = np.random.default_rng(cfg.seed)
    settings = _settings(model.meta)
    if settings.get("online") and (
        settings["lambda"]
        or settings.get("search_share", 0.0)
        or settings.get("stop_at", 0)
    ):
        raise ValueError(
            f"{out} learns online TD(0) from greedy games played to their end: "
            "resume it with --lambda 0 and without search_share or stop_at"
        )
    stop_rank = 0
    if settings.get("stop_at", 0):
        stop_rank = _stop_rank(model, settings["stop_at"])
    moves, rewards, bonus = rules(model)
    runs = pattern_runs(model.cells)
    tc_e, tc_a = _tc_state(model, out, not fresh_tc)
    scalars = _Scalars(out / "tb", cfg.tensorboard)
    from tqdm.auto import tqdm

    bar = tqdm(total=games, initial=done, disable=not cfg.progress, unit="game")
    cpu = float(model.meta.get("cpu_seconds", 0.0))
    updates = int(model.meta.get("updates", 0))
    csv = out / "progress.csv"
    if not csv.exists():
        out.mkdir(parents=True, exist_ok=True)
        csv.write_text(",".join(CSV_COLUMNS) + "\n")
    lines = csv.read_text().splitlines()
    columns = lines[0].split(",")
    kept = [lines[0]] + [x for x in lines[1:] if int(x.split(",")[0]) <= done]
    if len(kept) < len(lines):  # rows after the checkpoint of a killed run
        csv.write_text("\n".join(kept) + "\n")
    share = float(model.meta.get("starts", {}).get("share", 0.0))
    t0 = time.process_time()
    train = _Trainer(
        model,
        (
            settings["lr"],
            settings["lambda"],
            settings["restarts"],
            settings.get("online", False),
        ),
        (runs, moves, rewards, bonus),
        (tc_e, tc_a, model.stage_ranks, *start_arrays, share),
        (settings.get("search_share", 0.0), settings.get("search_depth", 2)),
        stop_rank,
    )
    cpu += time.process_time() - t0  # packing the weights is training work
    train(0, rng, 1)  # compiles the kernel outside the CPU clock
    stop = _StopRequest()
    try:
        stop.install()
        while done < games:
            n = min(CHUNK, games - done, cfg.eval_every - done % cfg.eval_every)
            t0 = time.process_time()
            rows, n_updates = train(n, rng, cfg.workers)
            updates += n_updates
            done += n
            at_eval = done % cfg.eval_every == 0 or done == games
            if at_eval:  # evaluated below
                train.sync()
            cpu += time.process_time() - t0
            moves_done += int(rows[:, 2].sum())
            bar.update(n)
            bar.set_postfix(score=f"{rows[:, 0].mean():.0f}")
            scalars.add(moves_done, {"rollout/score_mean": float(rows[:, 0].mean())})
            if at_eval:
                ev = evaluate(model, cfg.eval_games)
                goal = float((ev[:, 1] >= GOAL_RANK[env_id]).mean())
                scalars.add(
                    moves_done,
                    {"eval/score_mean": float(ev[:, 0].mean()), "eval/goal_rate": goal},
                )
                row = {
                    "games": done,
                    "moves": moves_done,
                    "train_score_mean": f"{rows[:, 0].mean():.1f}",
                    "eval_score_mean": f"{ev[:, 0].mean():.1f}",
                    "eval_goal_rate": f"{goal:.4f}",
                    "updates": updates,
                    "cpu_seconds": f"{cpu:.3f}",
                }
                with csv.open("a") as f:
                    f.write(",".join(str(row.get(c, "")) for c in columns) + "\n")
            if at_eval or stop.signum is not None:
                t0 = time.process_time()
                train.sync()  # saved below (a signal may have come since)
                cpu += time.process_time() - t0
                model.meta.update(
                    games=done,
                    moves=moves_done,
                    updates=updates,
                    cpu_seconds=round(cpu, 3),
                    rng_state=rng.bit_generator.state,
                    eval_seed_base=EVAL_SEED_BASE,
                    workers=int(cfg.workers),
                )
                tc_files = {"tc_e.npz": tc_e, "tc_a.npz": tc_a} if tc_e.size else None
                try:
                    with stop.deferred():  # not cut short by a second signal
                        model.save(out, tc_files)
                except KeyboardInterrupt:  # a second signal: the checkpoint is whole
                    _say_how_to_resume(cfg, games, out, starts, share, done)
                    raise
            if stop.signum is not None and done < games:
                _say_how_to_resume(cfg, games, out, starts, share, done)
                raise KeyboardInterrupt
    finally:
        stop.restore()
        bar.close()
        scalars.close()
    return out


def _say_how_to_resume(cfg, games: int, out, starts, share: float, done: int) -> None:
    """Print where an interrupted run saved its checkpoint and the command that goes
    on from there (naming its start positions, and the options a resume does not
    take from the run, :data:`RESUME_FLAGS`, where they are not the defaults)."""
    again = f"--env {cfg.env_id} --games {games} --out {out} --resume"
    if starts is not None:  # a resume must name its positions again
        again += f" --starts {starts} --start-share {share:g}"
    defaults = {f.name: f.default for f in dataclasses.fields(cfg)}
    for flag, field in RESUME_FLAGS:  # a resume takes the defaults
        if getattr(cfg, field) != defaults[field]:
            again += f" {flag} {getattr(cfg, field)}"
    print(
        f"interrupted: saved {out} at {done:,} games; continue with: "
        f"playahead train ntuple {again}",
        file=sys.stderr,
    )


#: Options a resume does not take from the run (it takes their defaults unless told),
#: named in the line an interrupted run prints when they are not the defaults.
RESUME_FLAGS = (
    ("--eval-every", "eval_every"),
    ("--eval-games", "eval_games"),
    ("--workers", "workers"),
)
#: The columns of ``progress.csv``, one row per evaluation: the training games so
#: far; their moves (first episodes: a restart's moves are in the updates); the mean
#: score of the last :data:`CHUNK` training games before the row (the last kernel
#: call's, fewer where ``eval_every`` is not a multiple of it); the greedy mean and
#: goal rate (2048 / 384) on the held-out games; the TD updates so far; and the
#: training CPU seconds so far (every thread's, the evaluations left out).
CSV_COLUMNS = (
    "games",
    "moves",
    "train_score_mean",
    "eval_score_mean",
    "eval_goal_rate",
    "updates",
    "cpu_seconds",
)


def _check_starts(meta: dict, starts, share: float, out: Path) -> None:
    """A resumed run takes the start positions it was trained with, or none."""
    had = meta.get("starts")
    if had is None and starts is not None:
        raise ValueError(f"{out} was trained without start positions")
    if had is None:
        return
    if starts is None:
        raise ValueError(
            f"{out} was trained with start positions {had['file']} (sha256 "
            f"{had['sha256'][:12]}...): pass the file again"
        )
    import hashlib

    if hashlib.sha256(Path(starts).read_bytes()).hexdigest() != had["sha256"]:
        raise ValueError(f"{starts} is not the start positions {out} was trained with")
    if float(share) != float(had["share"]):
        raise ValueError(f"{out} was trained with start share {had['share']}")


class _Trainer:
    """``trainer(n, rng, workers) -> (rows, updates)``: ``n`` training games of the
    compiled kernel on ``model``'s weights; with ``workers > 1``, that many threads
    over the same weights, each with a generator seeded from ``rng``.

    With temporal coherence (and no search-driven games) the kernel trains a packed
    copy of the weights and their accumulators (:func:`playahead.kernels.td.pack`:
    one cache line a lookup instead of three, the same bits); :meth:`sync` writes it
    back into ``model.weights`` and the accumulators, before they are read."""

    def __init__(self, model, recipe, tables, rest, search=(0.0, 2), stop_rank=0):
        runs, moves, rewards, bonus = tables
        tc_e, tc_a, stages, *starts = rest  # (..., boards, cards, share)
        self.search_share, self.search_depth = search
        self.model, self.tc, self.starts = model, (tc_e, tc_a), starts
        self.packed = None
        weights, spread = model.weights, 1
        if tc_e.size and self.search_share <= 0.0:
            self.packed = weights = td.pack(model.weights, tc_e, tc_a)
            empty = np.zeros(0, np.float32)
            self.tc, spread = (empty, empty), 3
        self.game = td.td_game(
            model.game, weights, runs, stages, moves, rewards, bonus, stop_rank, spread
        )
        self.recipe = recipe
        self._searches = {}  # per thread: the search's tables are its scratch space
        self._tc = (tc_e, tc_a)
        self._trained = False

    def sync(self) -> None:
        """Bring ``model.weights`` and the accumulators up to the packed copy (if
        games were trained since the last time)."""
        if self.packed is not None and self._trained:
            td.unpack(self.packed, self.model.weights, *self._tc)
        self._trained = False

    def _search(self, i):
        """Thread ``i``'s search context (None without search-driven games)."""
        if self.search_share <= 0.0:
            return None
        if i not in self._searches:
            self._searches[i] = td.fixed_search(self.game, self.search_depth)
        return self._searches[i]

    def _run(self, n, rng, out, i=0):
        lr, lam, restart, online = self.recipe
        search = self._search(i)
        share = self.search_share if search is not None else 0.0
        args = (self.game, n, lr, lam, restart, rng, out, self.tc, self.starts)
        return td.run_games(*args, share, search, online)

    def __call__(self, n: int, rng, workers: int):
        self._trained = self._trained or n > 0
        rows = np.empty((n, 3), np.int64)
        if workers == 1 or n < 2:
            return rows, self._run(n, rng, rows)
        import threading

        workers = min(workers, n)
        seeds = rng.integers(0, 2**63, size=workers)
        bounds = np.linspace(0, n, workers + 1).astype(int)
        counts = [0] * workers

        def work(i):
            part = rows[bounds[i] : bounds[i + 1]]
            gen = np.random.default_rng(seeds[i])
            counts[i] = self._run(part.shape[0], gen, part, i)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return rows, sum(counts)


class _StopRequest:
    """Ctrl-C (SIGINT) and ``kill`` (SIGTERM, also a batch scheduler's notice) ask
    the training loop to stop after the current chunk of games, where the weights,
    the generator and the counters agree: the loop writes a checkpoint there, and
    ``--resume`` from it trains the same network an uninterrupted run would. A
    second signal stops at once (losing the games since the last checkpoint), or,
    while a checkpoint is being written, as soon as it is written (and the run
    then says how to resume from it).
    Only the main thread can set handlers; elsewhere signals act as before
    (:func:`playahead._procs.on_signals`)."""

    def __init__(self):
        self.signum: int | None = None
        self._deferring = self._hurry = False
        self.restore = lambda: None

    def install(self) -> None:
        self.restore = on_signals((signal.SIGINT, signal.SIGTERM), self._handle)

    def _handle(self, signum, frame) -> None:
        if self.signum is None:
            self.signum = signum
        elif self._deferring:
            self._hurry = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def deferred(self):
        """A second signal inside the block stops at its end, not in the middle."""
        self._deferring = True
        try:
            yield
        finally:
            self._deferring = False
        if self._hurry:
            raise KeyboardInterrupt


def write_evaluation(
    model_dir: str | Path,
    games: int,
    out: str | Path,
    first_seed: int = EVAL_SEED_BASE,
) -> dict:
    """Evaluate a saved model (a run directory, or a packaged net's ``.npz``, read
    to float32 as :func:`playahead.ntuple.packaged.read_packaged` reads it) greedily
    on the held-out seeds (game ``i`` seeded ``first_seed + i``) and write per-game
    rows (index, seed, score, max tile, moves) as JSON; returns the summary."""
    packaged = None
    if Path(model_dir).is_file():
        from playahead.ntuple.packaged import read_packaged, sha256_of

        model = read_packaged(model_dir, None)
        packaged = sha256_of(Path(model_dir).read_bytes())
    else:
        model = load_model(model_dir)
    rows = evaluate(model, games, first_seed)
    faces = tile_faces(model.env_id)
    top = [int(faces[r]) for r in rows[:, 1]]
    goal = GOAL_RANK[model.env_id]
    summary = {
        "env_id": model.env_id,
        "model_games": model.meta.get("games"),
        "games": games,
        "first_seed": first_seed,
        "score_mean": float(rows[:, 0].mean()),
        "score_sem": float(rows[:, 0].std(ddof=1) / np.sqrt(games)) if games > 1 else 0,
        "goal_tile": int(faces[goal]),
        "goal_rate": float((rows[:, 1] >= goal).mean()),
    }
    if packaged is not None:
        summary["packaged_sha256"] = packaged
    per_game = [
        {
            "index": i,
            "seed": first_seed + i,
            "score": int(r[0]),
            "max_tile": t,
            "moves": int(r[2]),
        }
        for i, (r, t) in enumerate(zip(rows, top, strict=True))
    ]
    Path(out).write_text(json.dumps({"summary": summary, "games": per_game}) + "\n")
    return summary


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="greedy evaluation of a saved model")
    parser.add_argument("model", help="a run directory or a packaged net (.npz)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--json", required=True)
    parser.add_argument(
        "--first-seed",
        type=int,
        default=EVAL_SEED_BASE,
        help=f"game i is seeded FIRST_SEED + i (default: {EVAL_SEED_BASE:,}, the "
        "held-out games training evaluates on)",
    )
    a = parser.parse_args()
    summary = write_evaluation(a.model, a.games, a.json, a.first_seed)
    print(json.dumps(summary, indent=2))
