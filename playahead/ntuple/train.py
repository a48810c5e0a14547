"""Train an n-tuple network: ``train_ntuple`` and ``playahead train ntuple``.

Randomness: the training games draw all chance from one ``np.random.default_rng(seed)``
(its state is checkpointed, so a resumed run continues the same stream); evaluation
game ``i`` uses ``np.random.default_rng(EVAL_SEED_BASE + i)``, a stream the training
never uses. The same seed and options give the same network.

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
import json
import signal
import sys
import time
from pathlib import Path

import numpy as np

from playahead._procs import on_signals
from playahead.games import threes, twenty48
from playahead.ntuple import _td
from playahead.ntuple._kernels import pattern_runs
from playahead.ntuple.model import (
    NTupleModel,
    load_model,
    parse_stages,
    read_sparse,
    tile_faces,
)

EVAL_SEED_BASE = 1_000_000_007
CHUNK = 500  # games per kernel call
MAX_GAMES = 100_000_000
MAX_EVAL_GAMES = 100_000
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
    moves, rewards, bonus = rules(model)
    runs = pattern_runs(model.cells)
    trail, gains = _td.trail_buffers(runs)
    out = np.empty((games, 3), np.int64)
    stages = model.stage_ranks
    for i in range(games):
        rng = np.random.default_rng(first_seed + i)
        out[i] = _td.play(
            model.game,
            model.weights,
            runs,
            rng,
            moves,
            rewards,
            bonus,
            trail,
            gains,
            stages,
        )
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
    entry = {"from_game": done, "lr": schedule[-1]["lr"], "tc": False}
    schedule.append({**entry, "stages": list(stages)})


def _schedule(meta: dict) -> list[dict]:
    """``meta``'s schedule, started with the run's first settings if it has none."""
    first = {"lr": float(meta["lr"]), "tc": bool(meta.get("tc", False))}
    return meta.setdefault("schedule", [{"from_game": 0, **first}])


def _change_schedule(meta: dict, done: int, lr, tc) -> bool:
    """Apply a resumed run's new ``lr``/``tc`` to ``meta`` and its ``schedule``;
    True if TC was just switched on (its accumulators start from zero)."""
    new = {"lr": meta["lr"] if lr is None else float(lr)}
    new["tc"] = bool(meta.get("tc", False)) if tc is None else bool(tc)
    old = {"lr": float(meta["lr"]), "tc": bool(meta.get("tc", False))}
    if new == old:
        return False
    schedule = _schedule(meta)
    if schedule[-1]["from_game"] == done:  # changed again before any game
        schedule[-1].update(new)
    else:
        schedule.append({"from_game": done, **new})
    meta.update(new)
    return new["tc"] and not old["tc"]


def train_ntuple(
    env_id: str,
    games: int,
    out: str | Path,
    *,
    seed: int = 0,
    lr: float | None = None,
    patterns=None,
    init: float = 0.0,
    tc: bool | None = None,
    stages=None,
    env_kwargs: dict | None = None,
    eval_every: int = 10_000,
    eval_games: int = 100,
    resume: bool = False,
    progress: bool = True,
    tensorboard: bool = True,
) -> Path:
    """Train (or continue) an n-tuple net for ``games`` games in total.

    Args:
        env_id: ``"2048-v0"`` or ``"Threes-v0"``.
        games: total training games (a resumed run plays the rest).
        out: run directory.
        seed: seed of the training generator.
        lr: TD learning rate, spread over the ``8 * P`` lookups (None: 0.1; on
            ``resume``, None keeps the run's rate and a number changes it from the
            checkpoint on: see ``schedule`` below).
        patterns: tuple patterns (hex strings of cells, e.g. ``"012345"``); None:
            4 x 6-tuples for 2048, 4 x 5-tuples for Threes.
        init: optimistic initial value of every afterstate.
        tc: temporal coherence (Jaskowski's TC(0)): each weight's step is ``lr``
            times ``|E| / A`` of its accumulated errors (see
            :mod:`playahead.ntuple._td`); the accumulators are saved beside the
            model (``tc_e.npz``, ``tc_a.npz``). None: off; on ``resume``, None
            keeps the run's setting and True/False switches it from the checkpoint
            on (switched on, the accumulators start from zero). A change on resume
            appends ``{"from_game", "lr", "tc"}`` to ``model.json``'s
            ``"schedule"`` (whose first entry is the start), so a fine-tuned net
            is rebuilt by the same commands.
        stages: multi-stage boundaries, tile values (e.g. ``"384,768"``): one
            weight set per stage, chosen by the afterstate's largest tile (see
            :class:`~playahead.ntuple.model.NTupleModel`). On ``resume`` of a
            one-stage net it splits the net: every stage starts as a copy of the
            trained weights (so the split net plays as before, then specialises);
            the split is recorded in ``schedule``. A multi-stage run keeps its own.
        env_kwargs: Threes' rule variant (``merge_6144``, ``bonus_preview``).
        eval_every: games between greedy evaluations (and checkpoints).
        eval_games: held-out games per evaluation.
        resume: continue the model in ``out``.
        progress: show a tqdm bar.
        tensorboard: write TensorBoard scalars under ``out/tb``.

    Returns:
        The run directory (a model :func:`~playahead.ntuple.model.load_model` reads).

    Raises:
        ValueError: bad options, or ``resume`` without a model in ``out``.
    """
    for name, v, cap in (
        ("games", games, MAX_GAMES),
        ("eval_every", eval_every, MAX_GAMES),
        ("eval_games", eval_games, MAX_EVAL_GAMES),
    ):
        if not isinstance(v, int | np.integer) or not 1 <= v <= cap:
            raise ValueError(f"{name} must be an integer in 1..{cap}, got {v!r}")
    if lr is not None and not (isinstance(lr, int | float) and 0 < lr <= 1):
        raise ValueError(f"lr must be in (0, 1], got {lr!r}")
    out = Path(out)
    fresh_tc = not resume
    if resume:
        model = load_model(out, env_id)
        done = int(model.meta.get("games", 0))
        rng = np.random.default_rng()
        rng.bit_generator.state = model.meta["rng_state"]
        moves_done = int(model.meta.get("moves", 0))
        if stages is not None and parse_stages(env_id, stages) != model.stages:
            _split(model, parse_stages(env_id, stages), done, out)
        fresh_tc = _change_schedule(model.meta, done, lr, tc)
    else:
        model = NTupleModel.new(
            env_id, patterns, init, stages, env_kwargs=dict(env_kwargs or {})
        )
        lr, tc = 0.1 if lr is None else float(lr), bool(tc)
        model.meta = {"seed": seed, "lr": lr, "init": init, "tc": tc, "games": 0}
        done, moves_done = 0, 0
        rng = np.random.default_rng(seed)
    moves, rewards, bonus = rules(model)
    runs = pattern_runs(model.cells)
    lr = float(model.meta["lr"])
    tc_e, tc_a = _tc_state(model, out, not fresh_tc)
    scalars = _Scalars(out / "tb", tensorboard)
    from tqdm.auto import tqdm

    bar = tqdm(total=games, initial=done, disable=not progress, unit="game")
    cpu = float(model.meta.get("cpu_seconds", 0.0))
    updates = int(model.meta.get("updates", 0))
    csv = out / "progress.csv"
    if not csv.exists():
        out.mkdir(parents=True, exist_ok=True)
        csv.write_text("games,moves,train_score_mean,eval_score_mean,eval_goal_rate\n")
    args = (lr, model.weights, runs, rng, moves, rewards, bonus)
    stages = model.stage_ranks
    none = np.empty((0, 3), np.int64)
    _td.train_games(model.game, 0, *args, none, tc_e, tc_a, stages)
    stop = _StopRequest()
    try:  # (the call above compiled the kernel outside the CPU clock)
        stop.install()
        while done < games:
            n = min(CHUNK, games - done, eval_every - done % eval_every)
            rows = np.empty((n, 3), np.int64)
            t0 = time.process_time()
            updates += int(
                _td.train_games(model.game, n, *args, rows, tc_e, tc_a, stages)
            )
            cpu += time.process_time() - t0
            done += n
            moves_done += int(rows[:, 2].sum())
            bar.update(n)
            bar.set_postfix(score=f"{rows[:, 0].mean():.0f}")
            scalars.add(moves_done, {"rollout/score_mean": float(rows[:, 0].mean())})
            at_eval = done % eval_every == 0 or done == games
            if at_eval:
                ev = evaluate(model, eval_games)
                goal = float((ev[:, 1] >= GOAL_RANK[env_id]).mean())
                scalars.add(
                    moves_done,
                    {"eval/score_mean": float(ev[:, 0].mean()), "eval/goal_rate": goal},
                )
                with csv.open("a") as f:
                    f.write(
                        f"{done},{moves_done},{rows[:, 0].mean():.1f},"
                        f"{ev[:, 0].mean():.1f},{goal:.4f}\n"
                    )
            if at_eval or stop.signum is not None:
                model.meta.update(
                    games=done,
                    moves=moves_done,
                    updates=updates,
                    cpu_seconds=round(cpu, 3),
                    rng_state=rng.bit_generator.state,
                    eval_seed_base=EVAL_SEED_BASE,
                )
                tc_files = {"tc_e.npz": tc_e, "tc_a.npz": tc_a} if tc_e.size else None
                with stop.deferred():  # not cut short by a second signal
                    model.save(out, tc_files)
            if stop.signum is not None and done < games:
                print(
                    f"interrupted: saved {out} at {done:,} games; continue with: "
                    f"playahead train ntuple --env {env_id} --games {games} "
                    f"--out {out} --resume",
                    file=sys.stderr,
                )
                raise KeyboardInterrupt
    finally:
        stop.restore()
        bar.close()
        scalars.close()
    return out


class _StopRequest:
    """Ctrl-C (SIGINT) and ``kill`` (SIGTERM, also a batch scheduler's notice) ask
    the training loop to stop after the current chunk of games, where the weights,
    the generator and the counters agree: the loop writes a checkpoint there, and
    ``--resume`` from it trains the same network an uninterrupted run would. A
    second signal stops at once (losing the games since the last checkpoint), or,
    while a checkpoint is being written, as soon as it is written.
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


def write_evaluation(model_dir: str | Path, games: int, out: str | Path) -> dict:
    """Evaluate a saved model greedily on the held-out seeds and write per-game rows
    (index, seed, score, max tile, moves) as JSON; returns the summary."""
    model = load_model(model_dir)
    rows = evaluate(model, games)
    faces = tile_faces(model.env_id)
    top = [int(faces[r]) for r in rows[:, 1]]
    goal = GOAL_RANK[model.env_id]
    summary = {
        "env_id": model.env_id,
        "model_games": model.meta.get("games"),
        "games": games,
        "first_seed": EVAL_SEED_BASE,
        "score_mean": float(rows[:, 0].mean()),
        "score_sem": float(rows[:, 0].std(ddof=1) / np.sqrt(games)) if games > 1 else 0,
        "goal_tile": int(faces[goal]),
        "goal_rate": float((rows[:, 1] >= goal).mean()),
    }
    per_game = [
        {
            "index": i,
            "seed": EVAL_SEED_BASE + i,
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
    parser.add_argument("model")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--json", required=True)
    a = parser.parse_args()
    print(json.dumps(write_evaluation(a.model, a.games, a.json), indent=2))
