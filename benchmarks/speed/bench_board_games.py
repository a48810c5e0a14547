"""Speed of the two-player games, each next to a baseline measured in the same run.

Prints, for tic-tac-toe, Connect Four, Nim and Chips: compiled random playouts/s
(``random_playouts`` kernels) next to a plain-Python random playout of the same rules;
``env.step`` plies/s through ``gym.make`` in turn-by-turn mode next to PettingZoo's
classic AEC env of the same game where installed (``pip install "pettingzoo[classic]"``;
tic-tac-toe and Connect Four only), and our own AEC view; ``env.step`` steps/s against
the built-in random opponent (two plies per step). Times are printed, never asserted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import playahead  # noqa: F401  (registers the ids it knows)
from benchmarks.common import Report, timed
from playahead.envs.pettingzoo_aec import aec_env
from playahead.games import connect_four, nim, tictactoe

ENTRY_POINTS = {
    "TicTacToe-v0": "playahead.envs.tictactoe:TicTacToeEnv",
    "ConnectFour-v0": "playahead.envs.connect_four:ConnectFourEnv",
    "Nim-v0": "playahead.envs.nim:NimEnv",
    "Chips-v0": "playahead.envs.nim:ChipsEnv",
}
TTT_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8)] + [
    (0, 4, 8),
    (2, 4, 6),
]


# ----------------------------------------------------------- plain-Python playouts
def py_tictactoe(rng) -> int:
    board, player = [0] * 9, 0
    empty = list(range(9))
    while empty:
        cell = empty.pop(int(rng.random() * len(empty)))
        board[cell] = player + 1
        if any(all(board[i] == player + 1 for i in line) for line in TTT_LINES):
            return player
        player = 1 - player
    return -1


def py_connect_four(rng) -> int:
    board = [[0] * 6 for _ in range(7)]  # board[col][row], row 0 at the bottom
    heights, player = [0] * 7, 0
    for _ in range(42):
        open_cols = [c for c in range(7) if heights[c] < 6]
        col = open_cols[int(rng.random() * len(open_cols))]
        row = heights[col]
        board[col][row], heights[col] = player + 1, row + 1
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                c, r = col + sign * dc, row + sign * dr
                while 0 <= c < 7 and 0 <= r < 6 and board[c][r] == player + 1:
                    run, c, r = run + 1, c + sign * dc, r + sign * dr
            if run >= 4:
                return player
        player = 1 - player
    return -1


def py_take_away(rng, pile: int, limit: int, doubling: bool) -> int:
    player = 0
    while pile:
        take = 1 + int(rng.random() * min(limit, pile))
        pile, player = pile - take, 1 - player
        limit = 2 * take if doubling else limit
    return 1 - player  # whoever took the last one


# ----------------------------------------------------------------- measurements
def rate(fn: Callable[[], int], seconds: float) -> float:
    """Calls of ``fn`` (each returning how many units it did) per second."""
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += fn()
    return done / (time.perf_counter() - start)


def best_of(rates: dict[str, Callable[[float], float]], seconds: float, rounds=3):
    """The best rate of each measurement over ``rounds`` interleaved rounds, so that
    load from other processes hits ours and the baseline alike."""
    best = dict.fromkeys(rates, 0.0)
    for _ in range(rounds):
        for name, measure in rates.items():
            best[name] = max(best[name], measure(seconds / rounds))
    return best


def gym_plies(env, seconds: float) -> float:
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)

    def ply() -> int:
        nonlocal info
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(
            int(legal[int(rng.random() * len(legal))])
        )
        if terminated or truncated:
            _, info = env.reset()
        return 1

    return rate(ply, seconds)


def aec_plies(env, seconds: float) -> float:
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def ply() -> int:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            return 0
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
        return 1

    return rate(ply, seconds)


def make(env_id: str, **kwargs) -> gym.Env:
    if env_id not in gym.registry:  # until the ids are in playahead.envs.ENV_IDS
        gym.register(env_id, ENTRY_POINTS[env_id], disable_env_checker=True)
    return gym.make(env_id, **kwargs)


def pettingzoo_classic(game: str):
    try:
        from pettingzoo.classic import connect_four_v3, tictactoe_v3
    except ImportError:
        return None
    classic = {"TicTacToe": tictactoe_v3, "ConnectFour": connect_four_v3}
    return classic[game].env() if game in classic else None


def main(seconds: float = 1.0) -> Report:
    report = Report("board games")
    rng = np.random.default_rng(0)
    games = [
        ("TicTacToe", tictactoe, tictactoe.initial_state(3), lambda: py_tictactoe(rng)),
        (
            "ConnectFour",
            connect_four,
            connect_four.initial_state(),
            lambda: py_connect_four(rng),
        ),
        ("Nim", nim, nim.nim_state(21, 3), lambda: py_take_away(rng, 21, 3, False)),
        ("Chips", nim, nim.chips_state(21), lambda: py_take_away(rng, 21, 20, True)),
    ]
    for name, rules, start, py_playout in games:
        rules.random_playouts(start, 10, rng)  # compile or load from the cache

        def compiled(secs, rules=rules, start=start) -> float:
            batch = 1000
            while True:
                _, dt = timed(lambda: rules.random_playouts(start, batch, rng))  # noqa: B023
                if dt > secs / 4:
                    return batch / dt
                batch *= 4

        def plain(secs, py_playout=py_playout) -> float:
            return rate(lambda: (py_playout(), 1)[1], secs)

        best = best_of({"compiled": compiled, "plain": plain}, seconds)
        report.add(
            name, "random playouts/s", best["compiled"], "plain Python", best["plain"]
        )

        env_id = f"{name}-v0"
        ours_env, aec, vs_random = (
            make(env_id, opponent=None),
            aec_env(name),
            make(env_id),
        )
        rates = {
            "ours": lambda secs: gym_plies(ours_env, secs),  # noqa: B023
            "aec": lambda secs: aec_plies(aec, secs),  # noqa: B023
            "vs_random": lambda secs: gym_plies(vs_random, secs),  # noqa: B023
        }
        theirs_env = pettingzoo_classic(name)
        if theirs_env is not None:
            rates["theirs"] = lambda secs: aec_plies(theirs_env, secs)  # noqa: B023
        best = best_of(rates, seconds)
        if name in ("TicTacToe", "ConnectFour"):
            report.add(
                name,
                "env.step plies/s",
                best["ours"],
                "PettingZoo classic",
                best.get("theirs"),
                target=5,
            )
        else:
            report.add(name, "env.step plies/s", best["ours"])
        report.add(name, "our AEC view plies/s", best["aec"])
        report.add(name, "env.step vs random opponent /s", best["vs_random"])
    return report


if __name__ == "__main__":
    main().print()
