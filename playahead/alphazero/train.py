"""AlphaZero training: self-play with the net-guided search, then learning from it.

An iteration plays ``games_per_iteration`` games (:func:`~playahead.alphazero.search.
self_play`) in worker processes or Ray actors, adds their positions to a replay buffer
of the most recent ``buffer_positions``, takes ``replay_ratio * new positions /
batch_size`` AdamW steps on ``cross-entropy(policy, visit shares) + (value - result)^2``
(each batch mirrored left-right at random), and writes a checkpoint.

A run directory holds:

* ``checkpoint/``: ``state.json`` (written last, atomically) names the net,
  optimizer and buffer files of the last finished iteration with their sha256, so a
  ``kill -9`` loses at most the iteration under way and ``resume`` redoes it from
  the same seeds;
* ``net.npz``: the latest net (an agent: ``alphazero:path=DIR``);
* ``snapshots/iter-NNNNN.npz``: nets kept every ``snapshot_every`` iterations and
  at the run's last iteration (its ``iterations`` or its ``max_cpu_hours`` reached);
* ``curve.csv``: a row an iteration (games, positions, CPU hours, losses, results);
* ``tb/``: TensorBoard scalars (``playahead curves DIR`` draws the loss).

Every game's chance and every training batch comes from generators seeded by
``(seed, iteration, game)`` and ``(seed, iteration)``, so an interrupted and resumed run
plays the same games as an unbroken one.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import time
from pathlib import Path

import numpy as np
import torch

from playahead._procs import stop_on_sigterm
from playahead._rundirs import refuse_another_run
from playahead.alphazero.config import AlphaZeroConfig
from playahead.alphazero.kernels import N_ACTIONS, SHAPES
from playahead.alphazero.net import (
    GAMES,
    NetFileError,
    PolicyValueNet,
    frozen,
    load_net,
    net_bytes,
    net_from_bytes,
    write_atomic,
)
from playahead.alphazero.search import (
    Games,
    SelfPlaySettings,
    mirror_actions,
    self_play,
)

MARKER = "checkpoint/state.json"
CURVE_FIELDS = (
    "iteration",
    "games",
    "positions",
    "cpu_hours",
    "policy_loss",
    "value_loss",
    "first_player_score",
    "draws",
    "mean_length",
)


def _settings(cfg: AlphaZeroConfig) -> SelfPlaySettings:
    return SelfPlaySettings(
        n_simulations=cfg.n_simulations,
        c_puct=cfg.c_puct,
        dirichlet_alpha=cfg.dirichlet_alpha,
        noise_fraction=cfg.noise_fraction,
        sample_moves=cfg.sample_moves,
        slots=cfg.slots,
    )


# ---- self-play where it runs ---------------------------------------------------------


def _play_chunk(game, weights: bytes, ids, seed, iteration, settings):
    """Self-play in a worker with the net frozen for inference
    (:func:`~playahead.alphazero.net.frozen`): ``(Games, CPU seconds)``."""
    torch.set_num_threads(1)
    start = time.process_time()
    net = frozen(net_from_bytes(weights), min(settings.slots, len(ids)))
    games = self_play(game, net, ids, seed, iteration, settings)
    return games, time.process_time() - start


def _worker_init(parent_pid: int) -> None:
    """A self-play worker: it ends with its parent, and leaves Ctrl-C to it (the
    parent stops the run and ends the workers)."""
    import signal

    from playahead._procs import die_with_parent

    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)


class _Players:
    """Where self-play runs: this process, worker processes or Ray actors."""

    def __init__(self, cfg: AlphaZeroConfig, game: int) -> None:
        self.cfg, self.game = cfg, game
        self.pool = None
        self.actors = None
        if cfg.ray:
            import ray

            if not ray.is_initialized():
                ray.init(
                    num_cpus=None if os.environ.get("RAY_ADDRESS") else cfg.workers,
                    log_to_driver=False,
                    include_dashboard=False,
                )
            actor = ray.remote(num_cpus=1)(_RayPlayer)
            self.actors = [actor.remote() for _ in range(cfg.workers)]
        elif cfg.workers > 0:
            import multiprocessing

            self.pool = multiprocessing.get_context("spawn").Pool(
                cfg.workers, initializer=_worker_init, initargs=(os.getpid(),)
            )

    def play(self, weights: bytes, iteration: int) -> tuple[Games, float]:
        cfg = self.cfg
        ids = list(range(cfg.games_per_iteration))
        n = max(1, len(self.actors or []) or (cfg.workers if self.pool else 1))
        chunks = [c.tolist() for c in np.array_split(ids, n) if len(c)]
        args = (self.game, weights)
        tail = (cfg.seed, iteration, _settings(cfg))
        if self.actors is not None:
            import ray

            refs = [
                a.play.remote(*args, c, *tail)
                for a, c in zip(self.actors, chunks, strict=False)
            ]
            results = ray.get(refs)
        elif self.pool is not None:
            futures = [
                self.pool.apply_async(_play_chunk, (*args, c, *tail)) for c in chunks
            ]
            results = [f.get() for f in futures]
        else:
            results = [_play_chunk(*args, c, *tail) for c in chunks]
        games = [g for g, _ in results]
        cpu = sum(s for _, s in results)
        merged = Games(
            **{
                f: np.concatenate([getattr(g, f) for g in games])
                for f in ("obs", "policy", "legal", "z", "results", "lengths")
            },
            positions_evaluated=sum(g.positions_evaluated for g in games),
        )
        return merged, cpu

    def close(self, interrupted: bool = False) -> None:
        """End the workers: after their games, or at once if the run was
        ``interrupted`` (the iteration under way is lost, as after ``kill -9``)."""
        if self.pool is not None:
            if interrupted:
                self.pool.terminate()
            else:
                self.pool.close()
            self.pool.join()
        if self.actors is not None:
            import ray

            for a in self.actors:
                ray.kill(a)


class _RayPlayer:
    """A Ray actor that plays self-play chunks."""

    def __init__(self) -> None:
        torch.set_num_threads(1)

    def play(self, game, weights, ids, seed, iteration, settings):
        return _play_chunk(game, weights, ids, seed, iteration, settings)


# ---- checkpoints ---------------------------------------------------------------------


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _buffer_bytes(buf: dict) -> bytes:
    out = io.BytesIO()
    np.savez(out, **buf)
    return out.getvalue()


def _save_checkpoint(out: Path, it: int, net, opt, buf: dict, state: dict) -> None:
    ck = out / "checkpoint"
    ck.mkdir(parents=True, exist_ok=True)
    files = {
        "net": (f"net-{it:05d}.npz", net_bytes(net)),
        "optimizer": (f"optimizer-{it:05d}.pt", _torch_bytes(opt.state_dict())),
        "buffer": (f"buffer-{it:05d}.npz", _buffer_bytes(buf)),
    }
    for name, data in files.values():
        write_atomic(ck / name, data)
    state = {**state, "files": {k: [n, _sha(d)] for k, (n, d) in files.items()}}
    write_atomic(ck / "state.json", json.dumps(state, indent=1).encode())
    keep = {n for n, _ in files.values()} | {"state.json"}
    for old in ck.iterdir():
        if old.name not in keep:
            old.unlink()


def _torch_bytes(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def _load_checkpoint(out: Path):
    ck = out / "checkpoint"
    try:
        state = json.loads((ck / "state.json").read_text())
        files = state["files"]
    except (OSError, ValueError, KeyError, TypeError):
        raise NetFileError(
            f"{ck / 'state.json'} is missing or damaged; the run cannot resume"
        ) from None
    data = {}
    for key, (name, sha) in files.items():
        try:
            blob = (ck / name).read_bytes()
        except OSError:
            raise NetFileError(f"checkpoint file {ck / name} is missing") from None
        if _sha(blob) != sha:
            raise NetFileError(f"checkpoint file {ck / name} is damaged (sha256)")
        data[key] = blob
    return state, data


# ---- the run -------------------------------------------------------------------------


def _train_steps(net, opt, buf, n_steps, batch_size, rng, mirror):
    """AdamW steps on batches drawn from ``buf``; mean (policy, value) losses."""
    net.train()
    n = len(buf["z"])
    losses = np.zeros(2)
    for _ in range(n_steps):
        idx = rng.integers(0, n, size=min(batch_size, n))
        obs = buf["obs"][idx].astype(np.float32)
        policy = buf["policy"][idx]
        legal = buf["legal"][idx]
        flip = rng.random(len(idx)) < 0.5
        obs[flip] = obs[flip][..., ::-1]
        policy = np.where(flip[:, None], policy[:, mirror], policy)
        legal = np.where(flip[:, None], legal[:, mirror], legal)
        logits, value = net(torch.from_numpy(np.ascontiguousarray(obs)))
        logits = logits.masked_fill(~torch.from_numpy(legal), -1e9)
        p_loss = (
            -(torch.from_numpy(policy) * torch.log_softmax(logits, 1)).sum(1).mean()
        )
        v_loss = torch.mean((value - torch.from_numpy(buf["z"][idx])) ** 2)
        opt.zero_grad()
        (p_loss + v_loss).backward()
        opt.step()
        losses += (p_loss.item(), v_loss.item())
    net.eval()
    return losses / max(n_steps, 1)


def _empty_buffer(game: int) -> dict:
    rows, cols = SHAPES[game]
    a = N_ACTIONS[game]
    return {
        "obs": np.zeros((0, 2, rows, cols), np.int8),
        "policy": np.zeros((0, a), np.float32),
        "legal": np.zeros((0, a), np.bool_),
        "z": np.zeros(0, np.float32),
    }


def _write_curve(out: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CURVE_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(out / "curve.csv", buf.getvalue().encode())


def _spent(cfg: AlphaZeroConfig, state: dict) -> bool:
    """Whether the run has used its ``max_cpu_hours``: the iteration that got it there
    is its last."""
    return (
        cfg.max_cpu_hours is not None
        and state["cpu_seconds"] >= 3600 * cfg.max_cpu_hours
    )


def train_alphazero(cfg: AlphaZeroConfig) -> Path:
    """Run (or resume) the AlphaZero run ``cfg`` and return the path of its net.

    Raises:
        ValueError: ``out`` holds another run and ``resume`` is not set; the run in
            ``out`` is for another env; a damaged or missing checkpoint
            (:class:`~playahead.alphazero.net.NetFileError`).
        KeyboardInterrupt: on Ctrl-C or SIGTERM, once the workers are ended; the
            last finished iteration's checkpoint is the one ``resume`` takes.
    """
    out = Path(cfg.out)
    game = GAMES[cfg.env_id]
    if cfg.resume:
        state, data = _load_checkpoint(out)
        if state["env_id"] != cfg.env_id:
            raise ValueError(f"{out} is a run on {state['env_id']}, not {cfg.env_id}")
        net = net_from_bytes(data["net"])
        opt = torch.optim.AdamW(
            net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay
        )
        opt.load_state_dict(
            torch.load(io.BytesIO(data["optimizer"]), weights_only=True)
        )
        for group in opt.param_groups:
            group["lr"], group["weight_decay"] = cfg.lr, cfg.weight_decay
        with np.load(io.BytesIO(data["buffer"]), allow_pickle=False) as npz:
            buf = {k: npz[k] for k in npz.files}
    else:
        refuse_another_run(out, MARKER)
        if out.exists() and any(out.iterdir()):
            raise ValueError(
                f"{out} is not empty; choose a new directory for a new run"
            )
        torch.manual_seed(cfg.seed)
        if cfg.init is None:
            net = PolicyValueNet(game, cfg.channels, cfg.blocks).eval()
            meta = {"channels": cfg.channels, "blocks": cfg.blocks}
        else:  # the net's architecture, and its run's counts carried on
            net, meta = load_net(cfg.init, cfg.env_id)
        opt = torch.optim.AdamW(
            net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay
        )
        buf = _empty_buffer(game)
        state = {
            "env_id": cfg.env_id,
            "seed": cfg.seed,
            "iteration": int(meta.get("iteration", 0)),
            "games": int(meta.get("games", 0)),
            "positions": int(meta.get("positions", 0)),
            "cpu_seconds": 3600.0 * float(meta.get("cpu_hours", 0.0)),
            "curve": [],
            "net": {"channels": meta["channels"], "blocks": meta["blocks"]},
        }
    torch.set_num_threads(1)
    (out / "snapshots").mkdir(parents=True, exist_ok=True)
    if not cfg.resume:
        _save_checkpoint(out, 0, net, opt, buf, state)
        write_atomic(
            out / "config.json",
            json.dumps(
                {k: str(v) if isinstance(v, Path) else v for k, v in vars(cfg).items()},
                indent=1,
            ).encode(),
        )
    writer = None
    if cfg.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(out / "tb"), purge_step=state["positions"] + 1)
    mirror = mirror_actions(game)
    players = _Players(cfg, game)
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(
            total=cfg.iterations,
            initial=state["iteration"],
            unit="it",
            desc=f"alphazero {cfg.env_id}",
        )
    restore = stop_on_sigterm()
    interrupted = False
    try:
        while state["iteration"] < cfg.iterations:
            if _spent(cfg, state):
                break
            it = state["iteration"] + 1
            games, play_cpu = players.play(net_bytes(net), it)
            learn_start = time.process_time()
            buf = {
                k: np.concatenate([buf[k], getattr(games, k)])[-cfg.buffer_positions :]
                for k in buf
            }
            new = len(games.z)
            n_steps = math.ceil(cfg.replay_ratio * new / cfg.batch_size)
            rng = np.random.default_rng([cfg.seed, 1_000_003, it])
            for group in opt.param_groups:
                group["lr"] = cfg.learning_rate(it)
            p_loss, v_loss = _train_steps(
                net, opt, buf, n_steps, cfg.batch_size, rng, mirror
            )
            cpu = play_cpu + (time.process_time() - learn_start)
            state["iteration"] = it
            state["games"] += len(games.results)
            state["positions"] += new
            state["cpu_seconds"] += cpu
            row = {
                "iteration": it,
                "games": state["games"],
                "positions": state["positions"],
                "cpu_hours": round(state["cpu_seconds"] / 3600, 5),
                "policy_loss": round(float(p_loss), 5),
                "value_loss": round(float(v_loss), 5),
                "first_player_score": round(float((games.results + 1).mean() / 2), 4),
                "draws": int((games.results == 0).sum()),
                "mean_length": round(float(games.lengths.mean()), 2),
            }
            state["curve"].append(row)
            last = it == cfg.iterations or _spent(cfg, state)
            if it % cfg.snapshot_every == 0 or last:
                write_atomic(
                    out / "snapshots" / f"iter-{it:05d}.npz",
                    net_bytes(net, {"iteration": it, **_progress(state)}),
                )
            _save_checkpoint(out, it, net, opt, buf, state)
            write_atomic(
                out / "net.npz", net_bytes(net, {"iteration": it, **_progress(state)})
            )
            _write_curve(out, state["curve"])
            if writer is not None:
                step = state["positions"]
                for key in (
                    "policy_loss",
                    "value_loss",
                    "first_player_score",
                    "mean_length",
                    "cpu_hours",
                ):
                    writer.add_scalar(f"alphazero/{key}", row[key], step)
                writer.add_scalar(
                    "alphazero/loss", row["policy_loss"] + row["value_loss"], step
                )
                writer.flush()
            if bar is not None:
                bar.update(1)
                bar.set_postfix(
                    games=state["games"],
                    loss=f"{p_loss + v_loss:.3f}",
                    cpu_h=f"{state['cpu_seconds'] / 3600:.2f}",
                )
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM
        interrupted = True
        raise
    finally:
        restore()
        players.close(interrupted)
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
    if not (out / "net.npz").exists():
        write_atomic(out / "net.npz", net_bytes(net, {"iteration": 0}))
    return out / "net.npz"


def _progress(state: dict) -> dict:
    return {
        "games": state["games"],
        "positions": state["positions"],
        "cpu_hours": round(state["cpu_seconds"] / 3600, 5),
    }
