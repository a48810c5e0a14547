"""Every script in examples/ runs on a small budget and shows what it promises."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).parent.parent / "examples"


def load(name: str):
    """The example ``examples/<name>.py`` as a module (its ``main`` not yet run)."""
    spec = importlib.util.spec_from_file_location(
        f"example_{name}", EXAMPLES / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_example_is_tested_here():
    tested = {"monty_hall", "tictactoe_mc", "chips_minimax", "threes_hint"}
    tested |= {"twenty48_rollouts", "train_and_evaluate"}
    assert {p.stem for p in EXAMPLES.glob("*.py")} == tested


def test_monty_hall_switching_wins_two_thirds(capsys):
    stay, switch = load("monty_hall").main(["--games", "30000", "--seed", "1"])
    assert stay + switch == pytest.approx(1.0)  # exactly one of the two wins
    assert switch == pytest.approx(2 / 3, abs=0.015)
    assert f"switching wins {switch:.1%}" in capsys.readouterr().out


def test_chips_losing_piles_are_fibonacci_numbers_under_last_chip():
    labels = load("chips_minimax").main(["--max-chips", "13"])  # checks the planner too
    losing = [n for n, label in labels["last_chip"].items() if label == "L"]
    assert losing == [2, 3, 5, 8, 13]
    assert set(labels["even_total"]) == {3, 5, 7, 9, 11, 13}


def test_monte_carlo_tictactoe_beats_random_and_never_beats_minimax():
    example = load("tictactoe_mc")
    against_random = example.main(["--games", "8", "--trials", "40"])
    assert against_random["wins"] > against_random["losses"]
    against_minimax = example.main(
        ["--games", "4", "--trials", "20", "--opponent", "minimax"]
    )
    assert against_minimax["wins"] == 0


def test_mc_update_scores_credits_the_winners_squares():
    import gymnasium as gym

    example = load("tictactoe_mc")
    env = gym.make("TicTacToe-v0", opponent=None)
    env.reset(seed=0)
    for cell in (0, 3, 1, 4, 2):  # X takes the top row
        env.step(cell)
    scores = np.zeros(9)
    example.mc_update_scores(scores, env.unwrapped, me=0)
    assert scores.tolist() == [1, 1, 1, -1, -1, 0, 0, 0, 0]


def test_threes_hint_for_a_typed_board(capsys):
    result = load("threes_hint").main(["--agent", "expectimax:depth=1"])
    assert len(result.moves) == 4 and result.best is result.moves[0]
    assert f"best: slide {result.best.name}" in capsys.readouterr().out


def test_twenty48_rollouts_play_on_and_repeat_with_the_seed():
    example = load("twenty48_rollouts")
    argv = ["--rollouts", "3", "--moves", "15", "--seed", "2"]
    first, again = example.main(argv), example.main(argv)
    assert first == again and first["moves"] == 15 and first["score"] > 0


def test_train_and_evaluate_a_small_agent(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    result = load("train_and_evaluate").main(
        ["--steps", "256", "--games", "2", "--out", str(out)]
    )
    assert (out / "model.zip").exists()
    players = {p.spec.split(":")[0]: p for p in result.agents}
    assert set(players) == {"random", "minimax", "ppo"}
    assert players["minimax"].losses == 0
    assert "minimax" in capsys.readouterr().out
