"""A real (if short) training run: PPO learns tic-tac-toe against a random player."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import playahead  # noqa: E402
from playahead.train import train  # noqa: E402


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 100,000 PPO steps
def test_ppo_beats_or_draws_random_at_tictactoe(tmp_path):
    out = train(
        "ppo",
        "TicTacToe-v0",
        steps=100_000,
        seed=0,
        out=tmp_path / "ttt",
        tensorboard=False,
    )
    agent = playahead.make_agent(f"ppo:path={out}")
    results = []
    for side in (0, 1):  # 100 games moving first, 100 moving second
        env = gym.make("TicTacToe-v0", agent_player=side, illegal_action="raise")
        for game in range(100):
            env.reset(seed=10_000 + 100 * side + game)
            done, reward = False, 0.0
            while not done:
                _, reward, done, _, _ = env.step(agent.act(env))
            results.append(reward)
    results = np.array(results)
    assert len(results) == 200
    assert np.mean(results >= 0) >= 0.90, f"losses: {np.sum(results < 0)} of 200"
