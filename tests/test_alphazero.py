"""AlphaZero: the compiled PUCT search against a plain-Python one, self-play's
determinism, the agent, and the files it reads."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import playahead  # noqa: F401
from playahead import make_agent
from playahead.alphazero import kernels as k
from playahead.alphazero.net import NetFileError, PolicyValueNet, load_net, save_net
from playahead.alphazero.search import (
    Batch,
    Evaluator,
    SelfPlaySettings,
    mirror_actions,
    root_values,
    search,
    self_play,
)
from playahead.games import connect_four as c4
from tests import naive_puct


def hashed_evaluator(obs: np.ndarray):
    """Logits and values that depend only on each position, in exact binary
    fractions, so float32 sums are the same in any order."""
    weights = np.arange(1, obs[0].size + 1, dtype=np.int64).reshape(obs.shape[1:])
    keys = [
        int((o.astype(np.int64) * weights).sum() * 2654435761 % 1_000_003) for o in obs
    ]
    n_actions = 7 if obs.shape[2:] == (6, 7) else 9
    logits = np.array(
        [[(key >> a) % 4 - 1.5 for a in range(n_actions)] for key in keys], np.float32
    )
    values = np.array([((key % 9) - 4) / 8 for key in keys], np.float32)
    return logits, values


class _Calls:
    def __init__(self, f):
        self.f, self.calls, self.positions = f, 0, 0

    def __call__(self, obs):
        self.calls += 1
        self.positions += len(obs)
        return self.f(obs)


def _c4_position(moves: list[int]):
    state = c4.initial_state()
    for m in moves:
        if not c4.legal_mask(state)[m]:
            continue
        state = c4.apply(state, m)
        if c4.is_terminal(state):
            break
    return int(state[0]), int(state[1])


@pytest.mark.kernel
@given(
    moves=st.lists(st.integers(0, 6), max_size=30),
    n_simulations=st.integers(1, 60),
)
def test_compiled_puct_matches_the_plain_python_search(moves, n_simulations):
    s0, s1 = _c4_position(moves)
    legal = np.zeros(7, np.bool_)
    done, _ = k.game_status(k.CONNECT_FOUR, s0, s1, legal)
    if done:
        s0, s1 = 0, 0
    batch = Batch.new(k.CONNECT_FOUR, 2, n_simulations)
    roots = np.array([[s0, s1], [0, 0]], np.int64)
    search(
        batch,
        roots,
        np.array([True, False]),
        _Calls(hashed_evaluator),
        n_simulations,
        1.5,
    )
    ref = naive_puct.search(
        k.CONNECT_FOUR, s0, s1, hashed_evaluator, n_simulations, 1.5
    )
    visits, _ = root_values(batch.trees, 0)
    np.testing.assert_array_equal(visits, ref.visits)
    np.testing.assert_array_equal(batch.trees.value_sum[0, 0], ref.value_sum)
    np.testing.assert_array_equal(batch.trees.prior[0, 0], ref.prior)
    assert batch.trees.n_nodes[1] == 0  # the inactive slot was left alone


@pytest.mark.kernel
def test_compiled_puct_matches_on_tic_tac_toe():
    batch = Batch.new(k.TIC_TAC_TOE, 1, 200)
    search(
        batch,
        np.zeros((1, 2), np.int64),
        np.ones(1, np.bool_),
        _Calls(hashed_evaluator),
        200,
        1.0,
    )
    ref = naive_puct.search(k.TIC_TAC_TOE, 0, 0, hashed_evaluator, 200, 1.0)
    np.testing.assert_array_equal(root_values(batch.trees, 0)[0], ref.visits)
    np.testing.assert_array_equal(batch.trees.value_sum[0, 0], ref.value_sum)


def _uniform(obs):
    return np.zeros((len(obs), 7), np.float32), np.zeros(len(obs), np.float32)


def test_search_takes_a_win_and_blocks_a_loss():
    batch = Batch.new(k.CONNECT_FOUR, 2, 400)
    # red to move with three on the bottom row; yellow to move facing them
    roots = np.array([_c4_position([0, 6, 1, 6, 2, 5]), _c4_position([0, 6, 1, 6, 2])])
    search(batch, roots, np.ones(2, np.bool_), _Calls(_uniform), 400, 1.5)
    visits, q = root_values(batch.trees, 0)
    assert visits.argmax() == 3 and q[3] == 1.0
    visits, q = root_values(batch.trees, 1)
    assert visits.argmax() == 3 and q[3] > -1.0
    # any other move loses at once: the search has seen it and left it
    assert np.nanmax(np.delete(q, 3)) < 0 and visits[3] > 0.8 * visits.sum()


class _RowNet(torch.nn.Module):
    """A net whose output for a row depends on that row only (exactly)."""

    def forward(self, obs):
        logits, values = hashed_evaluator(obs.numpy())
        return torch.from_numpy(logits), torch.from_numpy(values)


def test_self_play_games_do_not_depend_on_slots_or_order():
    settings = SelfPlaySettings(n_simulations=12, slots=5)
    a = self_play(
        k.CONNECT_FOUR, _RowNet(), [0, 1, 2, 3], seed=7, iteration=2, settings=settings
    )
    b = self_play(
        k.CONNECT_FOUR,
        _RowNet(),
        [2, 3],
        seed=7,
        iteration=2,
        settings=SelfPlaySettings(n_simulations=12, slots=1),
    )
    n = int(a.lengths[:2].sum())
    np.testing.assert_array_equal(a.obs[n:], b.obs)
    np.testing.assert_array_equal(a.policy[n:], b.policy)
    np.testing.assert_array_equal(a.results[2:], b.results)
    c = self_play(
        k.CONNECT_FOUR, _RowNet(), [0, 1, 2, 3], seed=8, iteration=2, settings=settings
    )
    assert not np.array_equal(a.results, c.results) or not np.array_equal(
        a.lengths, c.lengths
    )


def test_self_play_targets_are_results_for_the_player_to_move():
    games = self_play(
        k.TIC_TAC_TOE,
        _RowNet(),
        list(range(6)),
        seed=1,
        iteration=1,
        settings=SelfPlaySettings(n_simulations=8, slots=3),
    )
    start = 0
    for result, length in zip(games.results, games.lengths, strict=True):
        z = games.z[start : start + length]
        # the first player moves at even plies
        np.testing.assert_array_equal(z[0::2], result)
        np.testing.assert_array_equal(z[1::2], -result)
        np.testing.assert_allclose(
            games.policy[start : start + length].sum(1), 1.0, rtol=1e-6
        )
        assert not (games.policy[start : start + length] > 0)[
            ~games.legal[start : start + length]
        ].any()
        start += length
    assert start == len(games.z)


@pytest.fixture(scope="module")
def c4_net(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("net") / "net.npz"
    save_net(PolicyValueNet(k.CONNECT_FOUR, 8, 1), path)
    return path


@pytest.mark.parametrize("game", [k.CONNECT_FOUR, k.TIC_TAC_TOE])
def test_the_frozen_net_is_the_eager_net_at_any_batch_size(game):
    """Self-play's frozen net (traced on a batch of 16) answers as the eager net, to
    float rounding, on batches of other sizes."""
    from playahead.alphazero.net import frozen

    torch.manual_seed(3)
    net = PolicyValueNet(game, 16, 2).eval()
    with torch.no_grad():  # batch-norm statistics that are not the identity
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    fast = frozen(net, 16)
    assert isinstance(fast, torch.jit.ScriptModule)
    rng = np.random.default_rng(0)
    rows, cols = k.SHAPES[game]
    for n in (1, 5, 16, 40):
        boards = rng.integers(0, 2, (n, 2, rows, cols)).astype(np.float32)
        obs = torch.from_numpy(boards)
        with torch.inference_mode():
            (a_logits, a_values), (b_logits, b_values) = net(obs), fast(obs)
        assert a_logits.shape == b_logits.shape == (n, k.N_ACTIONS[game])
        np.testing.assert_allclose(b_logits, a_logits, rtol=0, atol=1e-4)
        np.testing.assert_allclose(b_values, a_values, rtol=0, atol=1e-5)


def test_the_learning_rate_falls_geometrically_from_lr_to_lr_final(tmp_path):
    from playahead.alphazero.config import AlphaZeroConfig

    cfg = AlphaZeroConfig(
        env_id="TicTacToe-v0", out=tmp_path, iterations=5, lr=1e-3, lr_final=1e-5
    )
    rates = [cfg.learning_rate(i) for i in range(1, 6)]
    np.testing.assert_allclose(rates, [1e-3, 10**-3.5, 1e-4, 10**-4.5, 1e-5])
    assert cfg.learning_rate(9) == pytest.approx(1e-5)  # held past the last
    flat = AlphaZeroConfig(env_id="TicTacToe-v0", out=tmp_path, iterations=5)
    assert {flat.learning_rate(i) for i in range(1, 6)} == {1e-3}


def test_net_file_round_trip_and_damage(c4_net, tmp_path):
    net, meta = load_net(c4_net, "ConnectFour-v0")
    assert meta["channels"] == 8 and meta["env_id"] == "ConnectFour-v0"
    with pytest.raises(NetFileError, match="not for TicTacToe-v0"):
        load_net(c4_net, "TicTacToe-v0")
    data = bytearray(c4_net.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.npz"
    bad.write_bytes(bytes(data))
    with pytest.raises(NetFileError, match="bad.npz"):
        load_net(bad)
    with pytest.raises(NetFileError, match="no AlphaZero net"):
        load_net(tmp_path / "missing.npz")
    (tmp_path / "pickle.npz").write_bytes(b"\x80\x04not a zip")
    with pytest.raises(NetFileError, match="not a readable"):
        load_net(tmp_path / "pickle.npz")


def test_agent_is_deterministic_given_its_seed(c4_net):
    env = gym.make("ConnectFour-v0", opponent=None)
    moves = []
    for seed in (3, 3):
        agent = make_agent(f"alphazero:path={c4_net},n_simulations=30,seed={seed}")
        env.reset(seed=0)
        played = []
        for _ in range(6):
            a = agent.act(env.unwrapped)
            played.append(a)
            env.step(a)
        moves.append(played)
    assert moves[0] == moves[1]
    raw = make_agent(f"alphazero:path={c4_net},n_simulations=0,seed=1")
    analysis = raw.analyze(env.unwrapped)
    assert analysis.value_kind == "policy"
    assert np.nansum(analysis.values) == pytest.approx(1.0)
    assert analysis.stats["net_calls"] == 1


@pytest.mark.parametrize("game, channels", [(k.CONNECT_FOUR, 8), (k.TIC_TAC_TOE, 4)])
def test_the_mirrored_evaluation_is_the_same_for_a_position_and_its_mirror(
    game, channels
):
    torch.manual_seed(1)
    net = PolicyValueNet(game, channels, 1)
    mirror = mirror_actions(game)
    rows, cols = k.SHAPES[game]
    obs = (np.random.default_rng(0).random((5, 2, rows, cols)) < 0.3).astype(np.float32)
    plain_logits, plain_values = Evaluator(net)(obs)
    logits, values = Evaluator(net, mirror)(obs)
    flipped_logits, flipped_values = Evaluator(net, mirror)(obs[..., ::-1].copy())
    np.testing.assert_allclose(flipped_logits, logits[:, mirror], atol=1e-5)
    np.testing.assert_allclose(flipped_values, values, atol=1e-5)
    # the average of the two plain answers, not the plain answer alone
    back_logits, back_values = Evaluator(net)(obs[..., ::-1].copy())
    np.testing.assert_allclose(
        logits, (plain_logits + back_logits[:, mirror]) / 2, atol=1e-5
    )
    np.testing.assert_allclose(values, (plain_values + back_values) / 2, atol=1e-5)
    assert not np.allclose(logits, plain_logits, atol=1e-3)


def test_mirror_is_a_left_right_flip_of_the_actions():
    assert mirror_actions(k.CONNECT_FOUR).tolist() == [6, 5, 4, 3, 2, 1, 0]
    assert mirror_actions(k.TIC_TAC_TOE).tolist() == [2, 1, 0, 5, 4, 3, 8, 7, 6]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("alphazero:mirror=3", "mirror must be true or false"),
        ("alphazero:n_simulations=100_000_000", "n_simulations must be"),
        ("alphazero:n_simulations=-1", "n_simulations must be"),
        ("alphazero:path=/nonexistent/dir", "no AlphaZero net"),
    ],
)
def test_agent_refuses_bad_options(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_agent_refuses_a_net_of_another_game(c4_net):
    env = gym.make("TicTacToe-v0")
    env.reset(seed=0)
    agent = make_agent(f"alphazero:path={c4_net},n_simulations=4")
    with pytest.raises(ValueError, match="not TicTacToe-v0"):
        agent.act(env.unwrapped)


@pytest.mark.parametrize("env_id", ["ConnectFour-v0", "TicTacToe-v0"])
def test_the_shipped_nets_play_out_of_the_box(env_id):
    env = gym.make(env_id, opponent=None)
    env.reset(seed=0)
    first = [make_agent("alphazero:seed=4").analyze(env.unwrapped) for _ in range(2)]
    assert first[0].action == first[1].action
    np.testing.assert_array_equal(first[0].visits, first[1].visits)
    assert first[0].visits.sum() == 400  # the default simulations


def test_a_damaged_shipped_net_is_refused_in_one_line(tmp_path, monkeypatch):
    from playahead.alphazero import agent as az

    name = az.SHIPPED["TicTacToe-v0"][0]
    data = bytearray((az.DATA / name).read_bytes())
    data[-100] ^= 1
    (tmp_path / name).write_bytes(bytes(data))
    monkeypatch.setattr(az, "DATA", tmp_path)
    env = gym.make("TicTacToe-v0", opponent=None)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="damaged"):
        make_agent("alphazero").act(env.unwrapped)


def test_tic_tac_toe_alphazero_does_not_lose_to_minimax():
    """Three seeds from both sides here; the committed record holds 100 games."""
    from playahead.evaluate import evaluate

    pair = evaluate("TicTacToe-v0", ["alphazero", "minimax"], 3, seed=5).to_dict()
    (pair,) = pair["pairs"]
    assert pair["games"] == 6 and pair["losses"] == 0


def test_the_committed_tic_tac_toe_record_has_no_loss():
    import json
    from pathlib import Path

    path = (
        Path(__file__).parents[1] / "benchmarks/results/alphazero/eval-tictactoe.json"
    )
    (pair,) = json.loads(path.read_text())["pairs"]
    assert pair["a"] == "alphazero" and pair["b"] == "minimax"
    assert pair["games"] == 100 and pair["losses"] == 0


STUDY = Path(__file__).parents[1] / "benchmarks/results/alphazero"


def test_wilson_interval_matches_known_values():
    from benchmarks.records.alphazero_curve import wilson

    lo, hi = wilson(0, 10)
    assert lo == pytest.approx(0, abs=1e-12) and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(50, 100)
    assert (lo, hi) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_the_committed_curve_table_is_written_from_its_record():
    from benchmarks.records.alphazero_curve import table

    folder = STUDY / "c4-curve"
    assert (folder / "curve.md").read_text() == table(folder / "curve.csv")


def test_the_shipped_connect_four_net_is_the_measured_snapshot():
    """The shipped net's iteration is a row of the curve, and the test set's
    records of ``alphazero`` (raw and at its default 400 simulations) equal the
    curve's records of that snapshot, position by position."""
    import csv

    from playahead.alphazero.agent import shipped_net_path
    from playahead.alphazero.net import read_net_file

    meta, _ = read_net_file(shipped_net_path("ConnectFour-v0"))
    it = int(meta["iteration"])
    testset = STUDY.parent / "c4-testset/records"
    for sims, name in ((0, "alphazero_n_simulations=0"), (400, "alphazero")):
        curve = STUDY / f"c4-curve/records/iter-{it:05d}-sims-{sims}.csv"
        with open(curve) as a, open(testset / f"{name}.csv") as b:
            assert list(csv.reader(a)) == list(csv.reader(b))


def test_the_development_set_holds_no_test_set_position():
    from benchmarks.records import c4_perfect

    dev = c4_perfect.load(c4_perfect.TESTSET.parent / "c4-devset")
    test = {row["moves"] for row in c4_perfect.load()}
    assert len(dev) == 1035 and not test & {row["moves"] for row in dev}
