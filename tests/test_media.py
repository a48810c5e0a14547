"""``playahead media`` (the README's GIF and screenshot) and ``render_mode="human"``."""

import argparse
import io
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from playahead.envs import human
from playahead.envs.tiles import ThreesEnv, Twenty48Env
from playahead.tools import media
from playahead.tools.games import agent_seeds, build_agent, make_env


def test_gif_frames_are_the_envs_rgb_array_pictures():
    frames = media.game_frames("threes", "greedy", seed=3, n_frames=8, every=2)
    env = make_env("threes", render_mode="rgb_array")
    env.reset(seed=agent_seeds(3, 2)[0])
    assert len(frames) == 8
    np.testing.assert_array_equal(frames[0], env.render())
    assert all(f.shape == frames[0].shape and f.dtype == np.uint8 for f in frames)
    assert not np.array_equal(frames[0], frames[1])
    again = media.game_frames("threes", "greedy", seed=3, n_frames=8, every=2)
    assert all(np.array_equal(a, b) for a, b in zip(frames, again, strict=True))


def test_the_default_gif_is_the_whole_game_ending_on_the_final_board():
    frames = media.game_frames("threes", "greedy", seed=3, n_frames=8)
    env = make_env("threes", render_mode="rgb_array")
    env_seed, agent_seed = agent_seeds(3, 2)
    env.reset(seed=env_seed)
    first = env.render()
    player = build_agent("greedy", agent_seed)
    moves = 0
    while env.action_masks().any():
        env.step(player.act(env))
        moves += 1
    assert moves > 8 and len(frames) == 8
    np.testing.assert_array_equal(frames[0], first)
    np.testing.assert_array_equal(frames[-1], env.render())


def test_a_game_that_ends_early_ends_the_gif_on_the_final_position():
    frames = media.game_frames("tictactoe", "random", seed=1, n_frames=60)
    assert 6 <= len(frames) <= 10  # a game of 5 to 9 plies, plus the empty board
    assert frames[-1].shape == (192, 192, 3)


def test_save_gif_loops_and_holds_the_last_frame(tmp_path):
    frames = media.game_frames("2048", "random", seed=0, n_frames=5)
    path = media.save_gif(frames, tmp_path / "sub" / "g.gif", fps=4, hold=1.5)
    with Image.open(path) as gif:
        assert gif.n_frames == 5 and gif.size == frames[0].shape[1::-1]
        assert gif.info["loop"] == 0
        durations = []
        for i in range(gif.n_frames):
            gif.seek(i)
            durations.append(gif.info["duration"])
        gif.seek(0)
        first = np.asarray(gif.convert("RGB"))
    assert durations == [250, 250, 250, 250, 1500]
    assert np.abs(first.astype(int) - frames[0]).max() <= 8  # palette rounding


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: media.game_frames(n_frames=0), "must be >= 1"),
        (
            lambda: media.game_frames(agent="expectimax:budget=10000000000"),
            "budget is at most 300,000,000 in playahead media",
        ),
        (
            lambda: media.game_frames(agent="mcts:time_limit=1000"),
            "time_limit is seconds per search in playahead media",
        ),
        (lambda: media.save_gif([], "x.gif"), "no frames"),
        (lambda: media.serve_screenshot("x.png", chromium="/nowhere"), "Chromium"),
    ],
)
def test_media_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_media_cli_writes_the_gif(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    media.configure(parser)
    argv = ["--out", str(tmp_path), "--agent", "greedy", "--frames", "6"]
    args = parser.parse_args(argv + ["--no-screenshot"])
    assert args.func(args) == 0
    assert (tmp_path / "threes.gif").exists() and not (tmp_path / "serve.png").exists()
    assert "6 frames" in capsys.readouterr().out


# ---------------------------------------------------------------------------- human
def _human(cls, **kwargs):
    """``cls`` in human mode: the class itself once it lists "human", else a subclass
    with exactly the hook proposed for playahead/envs/tiles.py."""
    if "human" not in cls.metadata["render_modes"]:

        class Human(cls):
            metadata = {**cls.metadata, "render_modes": ["ansi", "rgb_array", "human"]}

            def render(self):
                if self.render_mode == "human":
                    return human.render_human(self)
                return super().render()

        cls = Human
    env = cls(render_mode="human", **kwargs)
    env.metadata = {**env.metadata, "render_fps": 0}  # no pause in tests
    return env


def test_human_mode_without_a_display_prints_the_ansi_board(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(human.sys, "platform", "linux")
    env = _human(ThreesEnv)
    env.reset(seed=0)
    assert env.render() is None
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    out = capsys.readouterr().out
    text = human.frame(env, "ansi")
    assert out.endswith(text.rstrip("\n") + "\n")
    assert out.count("score ") == 3  # reset, render, step
    human.close_human(env)


def test_a_display_with_a_non_interactive_backend_falls_back_to_text(
    monkeypatch, capsys
):
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(matplotlib, "get_backend", lambda: "agg")
    env = _human(Twenty48Env)
    env.reset(seed=0)
    assert "score 0" in capsys.readouterr().out
    human.close_human(env)


def test_window_viewer_draws_the_rgb_array_picture():
    figure = Figure()
    FigureCanvasAgg(figure)
    viewer = human.WindowViewer(figure=figure)
    env = make_env("2048", render_mode="rgb_array")
    env.reset(seed=1)
    picture = env.render()
    viewer.show(picture)
    np.testing.assert_array_equal(viewer.image.get_array(), picture)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    viewer.show(env.render())
    np.testing.assert_array_equal(viewer.image.get_array(), env.render())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    assert buffer.tell() > 0


def test_frame_restores_the_render_mode():
    env = make_env("connect4", render_mode=None)
    env.reset(seed=0)
    assert human.frame(env, "rgb_array").shape == (336, 392, 3)
    assert env.render_mode is None


@pytest.mark.skipif(not Path(media.CHROMIUM).exists(), reason="needs Chromium")
def test_serve_screenshot(tmp_path):
    pytest.importorskip("playwright", reason="needs Playwright")
    path = media.serve_screenshot(tmp_path / "serve.png", keys=("ArrowLeft",))
    with Image.open(path) as png:
        assert png.size == (1100, 680)
