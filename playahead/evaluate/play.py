"""Playing one game of an evaluation: what runs inside a worker.

A :class:`Task` names everything a game needs as plain data (env id and options, agent
spec strings, game index, side, root seed), so it travels to a process pool or a Ray
cluster as is, and the same task gives the same game anywhere.

Seeds (common random numbers): game ``i`` uses the child ``i`` of
``np.random.SeedSequence(seed)`` (``SeedSequence(seed).spawn(n)[i]``, which is
``SeedSequence(seed, spawn_key=(i,))``). Three words drawn from it give the env's
reset seed and the seeds of the agents playing side 0 and side 1. Every agent therefore
meets the same games, the same tile spawns and deck shuffles, and paired statistics
apply. A fresh agent is built per game from its spec with ``seed=`` its game seed (when
its factory takes a ``seed`` option; a ``seed`` in the spec is mixed in, see
:func:`~playahead.agents.build_agent`).
"""

from __future__ import annotations

import dataclasses
import json
import time

import gymnasium as gym
import numpy as np

from playahead.agents import build_agent, game_seeds
from playahead.evaluate.store import GameRecord


class AgentError(RuntimeError):
    """An agent failed or chose an illegal move during a game."""


@dataclasses.dataclass(frozen=True)
class Task:
    """One game to play.

    Attributes:
        env_id: a registered Gymnasium id, e.g. ``"Threes-v0"``.
        env_options: the env's keyword arguments as canonical JSON.
        agents: ``(spec,)`` for one-player games; ``(agent, opponent)`` for two.
        game_index: which game seed (0-based).
        side: the player ``agents[0]`` is (0 moves first); 0 in one-player games.
        seed: the evaluation's root seed.
    """

    env_id: str
    env_options: str
    agents: tuple[str, ...]
    game_index: int
    side: int
    seed: int

    @property
    def key(self) -> tuple[str, str, int, int]:
        opponent = self.agents[1] if len(self.agents) > 1 else ""
        return (self.agents[0], opponent, self.game_index, self.side)


_ENVS: dict[tuple[str, str, bool], gym.Env] = {}


def make_env(env_id: str, env_options: str, two_player: bool) -> gym.Env:
    """The env for a task, reused within a process (every game resets it with a seed).

    Two-player envs are made in turn-by-turn mode (``opponent=None``).
    """
    key = (env_id, env_options, two_player)
    if key not in _ENVS:
        kwargs = json.loads(env_options)
        if two_player:
            kwargs["opponent"] = None
        _ENVS[key] = gym.make(env_id, **kwargs)
    return _ENVS[key]


def _act(agent, spec: str, env, task: Task) -> tuple[int, float]:
    mask = env.unwrapped.action_masks()
    # thinking time is the CPU time of this thread, which other jobs on the machine
    # don't inflate (work an agent hands to other threads, e.g. torch's pool, is not
    # counted)
    start = time.thread_time()
    try:
        action = agent.act(env)
    except Exception as err:
        raise AgentError(
            f"agent {spec!r} failed in game {task.game_index} of {task.env_id}: "
            f"{type(err).__name__}: {err}"
        ) from err
    elapsed = time.thread_time() - start
    try:
        legal = int(action) == action and 0 <= int(action) < mask.size
        legal = legal and bool(mask[int(action)])
    except (TypeError, ValueError):
        legal = False
    if not legal:
        raise AgentError(
            f"agent {spec!r} chose action {action!r} in game {task.game_index} of "
            f"{task.env_id}, which is not legal; legal actions: "
            f"{np.flatnonzero(mask).tolist()}"
        )
    return int(action), elapsed


#: Called as ``report(task, moves, score)`` every :data:`REPORT_EVERY` moves of a
#: one-player game, so a progress display can show the games in flight (see
#: :func:`set_reporter`); None reports nothing.
_reporter = None
REPORT_EVERY = 20


def set_reporter(report) -> None:
    """Install ``report(task, moves, score)`` (or None) for games played here."""
    global _reporter
    _reporter = report


def play_task(task: Task) -> GameRecord:
    """Play one game and return its record (the function workers run)."""
    from playahead import __version__

    env_seed, seed_0, seed_1 = game_seeds(task.seed, task.game_index)
    if len(task.agents) == 1:
        return _play_single(task, env_seed, seed_0, __version__)
    return _play_two(task, env_seed, (seed_0, seed_1), __version__)


def _play_single(task: Task, env_seed: int, agent_seed: int, version: str):
    spec = task.agents[0]
    env = make_env(task.env_id, task.env_options, two_player=False)
    _, info = env.reset(seed=env_seed)
    agent = build_agent(spec, agent_seed)
    times: list[float] = []
    done = not env.unwrapped.action_masks().any()
    while not done:
        action, elapsed = _act(agent, spec, env, task)
        times.append(elapsed)
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        if _reporter is not None and len(times) % REPORT_EVERY == 0:
            _reporter(task, len(times), info.get("score", 0))
    if _reporter is not None:
        _reporter(task, None, None)  # the game is over
    return GameRecord(
        agent=spec,
        opponent="",
        game_index=task.game_index,
        side=0,
        seed=env_seed,
        score=float(info.get("score", 0)),
        max_tile=int(info["max_tile"]) if "max_tile" in info else None,
        moves=len(times),
        winner=None,
        seconds=float(np.sum(times)),
        move_seconds=np.asarray(times, dtype=np.float32),
        version=version,
    )


def _play_two(task: Task, env_seed: int, side_seeds: tuple[int, int], version: str):
    first, second = task.agents
    # by_player[p] is the spec playing side p
    by_player = (first, second) if task.side == 0 else (second, first)
    env = make_env(task.env_id, task.env_options, two_player=True)
    _, info = env.reset(seed=env_seed)
    agents = [build_agent(by_player[p], side_seeds[p]) for p in (0, 1)]
    times: tuple[list[float], list[float]] = ([], [])
    done = not env.unwrapped.action_masks().any()
    while not done:
        player = int(info.get("current_player", env.unwrapped.current_player))
        action, elapsed = _act(agents[player], by_player[player], env, task)
        times[player].append(elapsed)
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    winner = int(getattr(env.unwrapped, "winner", -1))
    points = 0.5 if winner < 0 else float(winner == task.side)
    mine, theirs = times[task.side], times[1 - task.side]
    return GameRecord(
        agent=first,
        opponent=second,
        game_index=task.game_index,
        side=task.side,
        seed=env_seed,
        score=points,
        max_tile=None,
        moves=len(mine) + len(theirs),
        winner=winner,
        seconds=float(np.sum(mine)),
        move_seconds=np.asarray(mine, dtype=np.float32),
        opponent_seconds=float(np.sum(theirs)),
        opponent_move_seconds=np.asarray(theirs, dtype=np.float32),
        version=version,
    )


def check_agent(env_id: str, env_options: str, spec: str, two_player: bool, seed: int):
    """Build ``spec`` and let it choose one move at the start of game 0.

    Raises:
        ValueError: the spec is unknown or malformed, or the agent cannot play this env
            (it raised, or chose an illegal move).
    """
    env_seed, agent_seed, _ = game_seeds(seed, 0)
    agent = build_agent(spec, agent_seed)
    env = make_env(env_id, env_options, two_player)
    env.reset(seed=env_seed)
    probe = Task(env_id, env_options, (spec,), 0, 0, seed)
    try:
        _act(agent, spec, env, probe)
    except AgentError as err:
        raise ValueError(
            f"agent {spec!r} cannot play {env_id}: {err.__cause__ or err}"
        ) from None
