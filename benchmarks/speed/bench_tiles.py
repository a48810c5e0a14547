"""Speed of the tile games, each next to a baseline measured in the same run.

Prints, for 2048 and Threes: kernel moves/s, compiled random-rollout steps/s,
``env.step`` steps/s through ``gym.make``, clone+restore pairs/s and vectorized env
steps/s at N=1024; baselines: the plain-Python reference rules from the tests, and,
where installed (``pip install "playahead[bench]"``), gymnasium-2048's env and
OpenSpiel's 2048 driven from Python.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time

import gymnasium as gym
import numba as nb
import numpy as np

import playahead  # noqa: F401
from benchmarks.common import Report, interleaved, timed
from benchmarks.speed import reference as ref
from playahead.games import _board64, threes, twenty48


@nb.njit
def _moves_2048(boards, repeat, moves, rewards):
    acc = np.uint64(0)
    for _ in range(repeat):
        for i in range(boards.shape[0]):
            after, _ = twenty48.move(boards[i], i & 3, moves, rewards)
            acc ^= after
    return acc


@nb.njit
def _moves_threes(boards, repeat, moves, rewards):
    acc = np.uint64(0)
    for _ in range(repeat):
        for i in range(boards.shape[0]):
            after, _, _ = _board64.move_rows(boards[i], i & 3, moves, rewards)
            acc ^= after
    return acc


@nb.njit
def _rollouts_2048(rng, n, moves, rewards):
    steps = 0
    for _ in range(n):
        _, _, played = twenty48.random_rollout(
            twenty48.new_game(rng), rng, 1 << 30, moves, rewards
        )
        steps += played
    return steps


@nb.njit
def _rollouts_threes(rng, n, moves, rewards, preview):
    steps = 0
    for _ in range(n):
        board, cards = threes.new_game(rng, preview)
        _, _, _, played = threes.random_rollout(
            board, cards, rng, 1 << 30, moves, rewards, preview
        )
        steps += played
    return steps


def _sample_boards(game: str, n: int, rng) -> np.ndarray:
    """Mid-game boards from random play."""
    env = gym.make("2048-v0" if game == "2048" else "Threes-v0")
    boards = []
    _, info = env.reset(seed=0)
    while len(boards) < n:
        boards.append(np.uint64(env.unwrapped.clone_state().board))
        mask = info["action_mask"]
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done:
            _, info = env.reset(seed=len(boards))
    return np.array(boards, dtype=np.uint64)


def _env_steps(make, seconds: float) -> float:
    env = make()
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 4, 1 << 16)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        mask = info["action_mask"]
        a = int(actions[n & 0xFFFF])
        if not mask[a]:
            a = int(np.flatnonzero(mask)[0])
        _, _, done, _, info = env.step(a)
        n += 1
        if done:
            _, info = env.reset()
    return n / (time.perf_counter() - start)


def _gymnasium_2048_steps(seconds: float) -> float | None:
    try:
        import gymnasium_2048  # noqa: F401
    except ImportError:
        return None
    env = gym.make("gymnasium_2048/TwentyFortyEight-v0")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, done, trunc, _ = env.step(int(rng.integers(4)))
        n += 1
        if done or trunc:
            env.reset()
    return n / (time.perf_counter() - start)


def _openspiel_2048_steps(seconds: float) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("2048(max_tile=131072)")
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            n += 1  # count player moves, as env.step does
    return n / (time.perf_counter() - start)


def _vector_steps(env_id: str, seconds: float, n_envs: int = 1024) -> float:
    env = gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point")
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = info["action_mask"]
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        _, _, _, _, info = env.step(actions)
        steps += n_envs
    return steps / (time.perf_counter() - start)


def _clone_restore(env_id: str, seconds: float) -> float:
    env = gym.make(env_id)
    env.reset(seed=0)
    base = env.unwrapped
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        base.restore_state(base.clone_state())
        n += 1
    return n / (time.perf_counter() - start)


def _per_second(count_fn) -> float:
    count, seconds = timed(count_fn)
    return count / seconds


def _bench_kernels(report: Report, game: str, rng, rnd) -> None:
    module = twenty48 if game == "2048" else threes
    boards = _sample_boards(game, 4096, rng)
    faces = [module.to_faces(b).tolist() for b in boards[:512]]
    if game == "2048":
        tables, kernel, slow_move = twenty48.TABLES, _moves_2048, ref.move_2048
    else:
        tables, kernel, slow_move = threes.tables()[:2], _moves_threes, ref.move_threes
    kernel(boards[:8], 1, *tables)  # compile outside the timing
    repeat = 500
    _, seconds = timed(lambda: kernel(boards, repeat, *tables))
    fast = len(boards) * repeat / seconds
    _, seconds = timed(lambda: [slow_move(b, i & 3) for i, b in enumerate(faces)])
    slow = len(faces) / seconds
    report.add(game, "kernel moves/s", fast, "plain-Python rules", slow, target=300)

    if game == "2048":
        _rollouts_2048(rng, 1, *tables)
        fast = _per_second(lambda: _rollouts_2048(rng, 300, *tables))
        start = ref.spawn_2048(ref.spawn_2048([[0] * 4] * 4, rnd), rnd)
        slow = _per_second(lambda: sum(ref.rollout_2048(start, rnd)[1] for _ in "abc"))
        report.add(game, "random-rollout steps/s", fast, "plain-Python rules", slow)
    else:
        _rollouts_threes(rng, 1, *tables, threes.WINDOW)
        fast = _per_second(lambda: _rollouts_threes(rng, 3000, *tables, threes.WINDOW))
        report.add(game, "random-rollout steps/s", fast)


def _bench_envs(report: Report, game: str, env_id: str, seconds: float) -> None:
    third = seconds / 3  # three interleaved rounds (median), the same time in all

    def ours_rate():
        return _env_steps(lambda: gym.make(env_id), third)

    if game == "2048":
        ours, gym2048, spiel = interleaved(
            [
                ours_rate,
                lambda: _gymnasium_2048_steps(third),
                lambda: _openspiel_2048_steps(third),
            ]
        )
        report.add(game, "gym.make env.step/s", ours, "gymnasium-2048", gym2048, 15)
        report.add(
            game, "gym.make env.step/s", ours, "OpenSpiel 2048 via Python", spiel, 1
        )
    else:
        (ours,) = interleaved([ours_rate])
        report.add(game, "gym.make env.step/s", ours)
    report.add(game, "clone+restore pairs/s", _clone_restore(env_id, seconds))
    vector = _vector_steps(env_id, seconds)
    report.add(game, "vector env steps/s, N=1024", vector, "gym.make env.step", ours)


_WARM_START = """
import time
start = time.perf_counter()
import gymnasium as gym
import playahead
for env_id in ("Threes-v0", "2048-v0"):
    env = gym.make(env_id)
    _, info = env.reset(seed=0)
    env.step(int(info["action_mask"].argmax()))
print(time.perf_counter() - start)
"""


def _warm_start_seconds(runs: int = 3) -> float:
    """Best of ``runs`` fresh processes: import playahead, make both envs, one step.

    The first run also fills numba's cache if it is empty, so it is not counted.
    """
    times = []
    for _ in range(runs + 1):
        out = subprocess.run(
            [sys.executable, "-c", _WARM_START],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        times.append(float(out))
    return min(times[1:])


def main(seconds: float = 1.0) -> Report:
    report = Report("tile games")
    rng = np.random.default_rng(0)
    rnd = random.Random(0)
    for game, env_id in (("2048", "2048-v0"), ("threes", "Threes-v0")):
        _bench_kernels(report, game, rng, rnd)
        _bench_envs(report, game, env_id, seconds)
    warm = _warm_start_seconds()
    report.add("both", "warm import + first steps, ms (target < 1000)", warm * 1000)
    return report


if __name__ == "__main__":
    main().print()
