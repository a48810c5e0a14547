"""Learning curves read back from a real training run's TensorBoard logs."""

import pytest

pytest.importorskip("tensorboard")

from playahead.cli import main  # noqa: E402
from playahead.train import train  # noqa: E402
from playahead.train.curves import load_curve  # noqa: E402
from tests.helpers.train import small_hp  # noqa: E402


def test_curves_of_a_run_are_read_and_plotted(tmp_path):
    out = tmp_path / "run"
    hp = {**small_hp("ppo", "2048-v0"), "n_steps": 64}
    train("ppo", "2048-v0", steps=2048, seed=0, out=out, n_envs=4, hp=hp)
    tag, steps, values = load_curve(out)
    assert tag == "rollout/score_mean"
    assert len(steps) >= 2 and (steps[1:] > steps[:-1]).all() and steps[-1] <= 2048
    assert (values > 0).all()  # 2048 scores of finished games
    figure = tmp_path / "curves.png"
    assert main(["curves", str(out), "--out", str(figure)]) == 0
    assert figure.stat().st_size > 1000
    # a second run refuses to overwrite the figure, unless told to
    figure.write_bytes(b"mine")
    assert main(["curves", str(out), "--out", str(figure)]) == 2
    assert figure.read_bytes() == b"mine"
    assert main(["curves", str(out), "--out", str(figure), "--force"]) == 0
    assert figure.stat().st_size > 1000
    with pytest.raises(ValueError, match="logged none of"):
        load_curve(out, "rollout/no_such_tag")
    with pytest.raises(FileNotFoundError, match="TensorBoard"):
        load_curve(tmp_path)


def test_the_axis_names_the_measure_not_the_tensorboard_tag():
    from playahead.train.curves import axis_label

    assert axis_label({"rollout/score_mean"}) == "game score (mean over recent games)"
    assert axis_label({"rollout/win_rate"}) == "win rate (recent games)"
    assert axis_label({"custom/tag"}) == "custom/tag"
