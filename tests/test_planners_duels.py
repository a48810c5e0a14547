"""Planners on two-player games: facts about tic-tac-toe, Connect Four, Nim, Chips."""

from __future__ import annotations

import functools

import numba
import numpy as np
import pytest

import playahead
from playahead.envs.connect_four import ConnectFourEnv
from playahead.envs.nim import ChipsEnv, NimEnv
from playahead.envs.tictactoe import TicTacToeEnv

SEARCHERS = [
    "mc:n_rollouts=2000",
    "lookahead:depth=2,n_sims=30",
    "mcts:n_simulations=3000",
    "minimax:depth=6",
]


def _play(make, agent_spec: str, side: int, games: int) -> np.ndarray:
    """Rewards of ``games`` games of ``agent_spec`` against the env's random player."""
    env = make(opponent="random", agent_player=side)
    agent = playahead.make_agent(agent_spec, seed=side)
    results = []
    for g in range(games):
        env.reset(seed=g)
        reward, done = 0.0, False
        while not done:
            _, reward, done, _, _ = env.step(agent.act(env))
        results.append(reward)
    return np.array(results)


def _c4_after(moves) -> ConnectFourEnv:
    env = ConnectFourEnv(opponent=None)
    env.reset(seed=0)
    for column in moves:
        env.step(column)
    return env


def _ttt(board: str) -> TicTacToeEnv:
    """A turn-by-turn env at ``board`` ("x o . / ..." rows, X moved first)."""
    cells = {"x": 1, "o": 2, ".": 0}
    flat = [cells[c] for c in board.split() if c != "/"]
    env = TicTacToeEnv(opponent=None)
    env.reset(seed=0)
    state = env.clone_state()
    env.restore_state(type(state)(state.game, state.rules, tuple(flat), None))
    return env


# ----------------------------------------------------------------- tic-tac-toe


def test_tictactoe_empty_board_is_a_draw():
    env = TicTacToeEnv(opponent=None)
    env.reset(seed=0)
    analysis = playahead.make_agent("minimax", seed=0).analyze(env)
    assert analysis.value_kind == "solved"
    np.testing.assert_array_equal(analysis.values, np.zeros(9))


@pytest.mark.parametrize("side", [0, 1])
def test_tictactoe_minimax_never_loses_to_random(side):
    results = _play(TicTacToeEnv, "minimax", side, 40)
    assert (results >= 0).all()
    assert (results > 0).mean() > 0.5


def test_tictactoe_minimax_against_itself_draws():
    env = TicTacToeEnv(opponent="minimax", agent_player=1)
    agent = playahead.make_agent("minimax", seed=1)
    for seed in range(5):
        env.reset(seed=seed)
        reward, done = 0.0, False
        while not done:
            _, reward, done, _, _ = env.step(agent.act(env))
        assert reward == 0.0


@pytest.mark.parametrize("side", [0, 1])
def test_tictactoe_mcts_loses_none_of_200_games_to_random(side):
    assert (_play(TicTacToeEnv, "mcts:n_simulations=1000", side, 200) >= 0).all()


@pytest.mark.parametrize("spec", SEARCHERS)
def test_tictactoe_planners_complete_a_line(spec):
    win = _ttt("x x . / o o . / . . .")  # X completes the top row
    assert playahead.make_agent(spec, seed=0).act(win) == 2


@pytest.mark.parametrize("spec", SEARCHERS[1:])  # flat Monte Carlo can miss it
def test_tictactoe_search_blocks_a_line(spec):
    block = _ttt("x x . / o . . / . . .")  # O must block the top row
    assert playahead.make_agent(spec, seed=0).act(block) == 2


# ----------------------------------------------------------------- Connect Four

C4_WIN = [0, 0, 1, 1, 2, 2]  # red to move: column 3 completes the bottom row
C4_BLOCK = [0, 6, 1, 6, 2]  # yellow to move: column 3 stops red's bottom row
C4_BLOCK_VERTICAL = [3, 0, 3, 1, 3]  # yellow must cap column 3


@pytest.mark.parametrize("spec", SEARCHERS)
def test_connect_four_planners_take_an_immediate_win(spec):
    assert playahead.make_agent(spec, seed=0).act(_c4_after(C4_WIN)) == 3


@pytest.mark.parametrize("spec", SEARCHERS)
@pytest.mark.parametrize("moves", [C4_BLOCK, C4_BLOCK_VERTICAL])
def test_connect_four_planners_block_an_immediate_loss(spec, moves):
    assert playahead.make_agent(spec, seed=0).act(_c4_after(moves)) == 3


def test_greedy_takes_an_immediate_win():
    assert playahead.make_agent("greedy", seed=0).act(_c4_after(C4_WIN)) == 3


def _endgames(count: int, empty: int) -> list[ConnectFourEnv]:
    """Positions of random games with ``empty`` cells left whose moves have different
    solved values (so there is a wrong move to avoid)."""
    found, seed = [], 0
    solver = playahead.make_agent("minimax", seed=0)
    while len(found) < count:
        rng = np.random.default_rng(seed)
        seed += 1
        env = _c4_after([])
        while 42 - np.count_nonzero(env.board) > empty and env.action_masks().any():
            env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if env.action_masks().any():
            values = solver.analyze(env).values
            if np.unique(values[~np.isnan(values)]).size > 1:
                found.append(env)
    return found


def test_mcts_agrees_with_minimax_on_small_endgames():
    for env in _endgames(6, 12):
        solved = playahead.make_agent("minimax", seed=0).analyze(env).values
        choice = playahead.make_agent("mcts:n_simulations=4000", seed=1).act(env)
        assert solved[choice] == np.nanmax(solved)


# ----------------------------------------------------------------- Nim and Chips


@pytest.mark.kernel
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("misere", [False, True])
def test_nim_minimax_solves_every_start(k, misere):
    agent = playahead.make_agent("minimax", seed=0)
    losing = 1 if misere else 0
    for n in range(1, 26):
        env = NimEnv(n=n, k=k, misere=misere, opponent=None)
        env.reset(seed=0)
        analysis = agent.analyze(env)
        wins = n % (k + 1) != losing
        assert np.nanmax(analysis.values) == (1.0 if wins else -1.0)
        if wins:  # the move leaves the other player a losing pile
            assert (n - analysis.action - 1) % (k + 1) == losing


def test_nim_minimax_wins_every_game_from_a_winning_start():
    results = _play(functools.partial(NimEnv, n=22, k=3), "minimax", 0, 20)
    assert (results == 1.0).all()


@functools.cache
def _last_chip_wins(pile: int, limit: int) -> bool:
    """Plain-Python solver of Chips ``last_chip``: can the mover force a win?"""
    return any(
        not _last_chip_wins(pile - t, 2 * t) for t in range(1, min(limit, pile) + 1)
    )


@pytest.mark.kernel
def test_chips_last_chip_follows_the_fibonacci_rule():
    fibonacci = {1, 2, 3, 5, 8, 13, 21, 34}
    agent = playahead.make_agent("minimax", seed=0)
    # piles to 35 (past 34, a Fibonacci number; the search's cost doubles about every
    # two chips); to 16 when the kernel runs as plain Python (make test-nojit)
    top = 16 if numba.config.DISABLE_JIT else 35
    for n in range(2, top + 1):
        env = ChipsEnv(n=n, opponent=None)
        env.reset(seed=0)
        analysis = agent.analyze(env)
        first_player_wins = np.nanmax(analysis.values) == 1.0
        assert first_player_wins == (n not in fibonacci)
        assert first_player_wins == _last_chip_wins(n, n - 1)
        take = analysis.action + 1
        if first_player_wins:  # the first move leaves a losing position
            assert not _last_chip_wins(n - take, 2 * take)


@pytest.mark.kernel
@pytest.mark.parametrize("n", [7, 9, 15])
def test_chips_even_total_compiled_search_matches_the_generic_one(n):
    env = ChipsEnv(n=n, rule="even_total", opponent=None)
    env.reset(seed=0)
    fast = playahead.make_agent("minimax", seed=0).analyze(env)
    slow = playahead.make_agent("minimax:compiled=false", seed=0).analyze(env)
    assert fast.stats["backend"] == "nim" and slow.stats["backend"] == "generic"
    np.testing.assert_array_equal(fast.values, slow.values)


@pytest.mark.kernel
def test_compiled_minimax_matches_generic_on_tictactoe_positions():
    rng = np.random.default_rng(0)
    fast = playahead.make_agent("minimax", seed=0)
    slow = playahead.make_agent("minimax:compiled=false", seed=0)
    for _ in range(8):
        env = TicTacToeEnv(opponent=None)
        env.reset(seed=0)
        for _ in range(rng.integers(0, 6)):
            if env.action_masks().any():
                env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if env.action_masks().any():
            np.testing.assert_array_equal(
                fast.analyze(env).values, slow.analyze(env).values
            )
