"""The evaluation figure shows every agent's full name and every game's dot."""

import matplotlib
import numpy as np

from playahead.evaluate import plots
from playahead.evaluate.report import AgentSummary, EvaluationResult

matplotlib.use("Agg")

LONG = "ppo:path=playahead-demo/ppo-threes/model.zip"


def _agent(spec, scores):
    s = np.asarray(scores, dtype=float)
    return AgentSummary(
        spec, s.size, s.mean(), (s.mean() * 0.9, s.mean() * 1.1), float(np.median(s)),
        s.min(), s.max(), {384: 0.5, 768: 0.0}, 100.0, 1e-3, 2e-3, s.tolist(),
        [384] * s.size, [100] * s.size,
    )  # fmt: skip


def test_labels_wrap_long_specs_without_cutting_them():
    for spec in ("random", "mcts:n_simulations=2000,c=1.4", LONG):
        text = plots._label(spec, 20)
        assert text.replace("\n", "") == spec and "…" not in text
    assert plots._label(LONG, 20) == "ppo:\npath=playahead-demo/\nppo-threes/model.zip"


def test_the_widest_violin_and_every_dot_stay_inside_the_axes():
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    result = EvaluationResult(
        "Threes-v0",
        {},
        0,
        20,
        "single",
        [
            _agent("random", rng.normal(250, 50, 20).clip(50)),
            _agent("expectimax:depth=3", rng.lognormal(11.5, 0.2, 20)),
            _agent(LONG, rng.lognormal(6, 0.4, 20)),
        ],
        [],
        (384, 768),
    )
    fig = plots._single(plt, result)
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    data = np.log10(np.concatenate([a.scores for a in result.agents]))  # log scale
    span = data.max() - data.min()
    assert low < data.min() - 0.02 * span and high > data.max() + 0.02 * span
    bottom, top = ax.get_ylim()
    assert bottom <= -0.5 and top >= len(result.agents) - 0.5  # violins are 0.8 wide
    names = [t.get_text().replace("\n", "") for t in ax.get_yticklabels()]
    assert names == [a.spec for a in result.agents]
    plt.close(fig)
