"""Expectimax with learned n-tuple leaves (``evaluator=ntuple:path=DIR``): the compiled
search against a plain-Python reference on random boards for 2048 and Threes, depth 0
is the greedy n-tuple player, fairness, spec parsing and errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import playahead
from playahead.games import threes, twenty48
from playahead.ntuple.model import NTupleModel, load_model
from playahead.planners.expectimax import ExpectimaxAgent
from tests import naive_ntuple as naive
from tests.helpers.expectimax import (
    CELLS,
    PATTERNS,
    assert_ignores_the_env_generator,
    assert_values_match,
    env_2048,
    env_threes,
    model_dir,
    played_lowest,
    random_2048,
    random_preview,
    random_threes,
    weights_of,
)

#: every test here checks a kernel (``make test-nojit`` runs them as plain Python)
pytestmark = pytest.mark.kernel


@pytest.mark.parametrize(
    ("seed", "depth", "cutoff", "tt"),
    [(0, 1, 0.0, True), (1, 1, 0.05, False), (2, 2, 0.0, True), (3, 2, 0.01, False)],
)
def test_2048_learned_leaves_match_reference(tmp_path, seed, depth, cutoff, tt):
    rng = np.random.default_rng(seed)
    path = model_dir(tmp_path, "2048-v0", seed)
    for _ in range(2):
        faces = random_2048(rng, int(rng.integers(10, 14)))
        if twenty48.is_over(twenty48.from_faces(faces), *twenty48.TABLES):
            continue
        agent = playahead.make_agent(
            f"expectimax:depth={depth},prob_cutoff={cutoff},transposition={tt},"
            f"evaluator=ntuple:path={path}",
            seed=0,
        )
        got = agent.analyze(env_2048(faces, score=40))
        assert got.value_kind == "score" and got.stats["evaluator"] == "ntuple"
        want = naive.expectimax_2048(
            faces.tolist(), depth, cutoff, weights_of(path), CELLS
        )
        assert_values_match(got.values - 40, want)  # expected final score: 40 so far


@pytest.mark.parametrize(
    ("seed", "depth", "cutoff", "tt", "preview"),
    [
        (0, 1, 0.0, True, True),
        (1, 1, 0.05, False, True),
        (2, 2, 1e-3, True, True),
        (3, 2, 0.0, False, True),
        (4, 1, 0.0, True, False),  # no preview index: every card reads one set
        (5, 2, 1e-3, False, False),
    ],
)
def test_threes_learned_leaves_match_reference(
    tmp_path, seed, depth, cutoff, tt, preview
):
    rng = np.random.default_rng(seed)
    path = model_dir(tmp_path, "Threes-v0", seed, preview=preview)
    assert load_model(path).weights.shape[1] == (4 if preview else 1)
    weights = weights_of(path)
    for _ in range(2):
        top_rank = int(rng.integers(5, 10))
        faces = random_threes(rng, int(rng.integers(9, 13)), top_rank)
        if threes.is_over(threes.from_faces(faces), *threes.tables(True)[:2]):
            continue
        deck = tuple(int(x) for x in rng.integers(0, 3, 3))
        window, preview = random_preview(rng, int(faces.max()))
        agent = ExpectimaxAgent(
            depth=depth,
            prob_cutoff=cutoff,
            transposition=tt,
            evaluator=f"ntuple:path={path}",
            seed=0,
        )
        got = agent.analyze(env_threes(faces, deck, window))
        want = naive.expectimax_threes(
            faces.tolist(), deck, preview, depth, cutoff, weights, CELLS
        )
        assert_values_match(got.values, want)


HIGH_LAST_CELL = [[2, 4, 0, 0], [0, 0, 0, 0], [0, 0, 8, 0], [0, 0, 0, 1024]]


@pytest.mark.parametrize(
    "make_env",
    [
        lambda: played_lowest("2048-v0"),
        lambda: played_lowest("Threes-v0"),
        lambda: env_2048(np.array(HIGH_LAST_CELL)),  # a board word above 2**63
    ],
)
def test_depth_0_is_the_greedy_ntuple_player(tmp_path, make_env):
    """Depth 0 values each move by the score so far plus the move's reward and the
    net's afterstate value (an expected final score), as the ``ntuple`` agent does."""
    env = make_env()
    path = model_dir(tmp_path, env.spec.id, 5)
    greedy = playahead.make_agent(f"ntuple:path={path}", seed=0).analyze(env)
    search = playahead.make_agent(
        f"expectimax:evaluator=ntuple:path={path},depth=0", seed=0
    ).analyze(env)
    legal = ~np.isnan(greedy.values)
    np.testing.assert_array_equal(np.isnan(search.values), ~legal)
    np.testing.assert_allclose(search.values[legal], greedy.values[legal], rtol=1e-12)
    assert search.action == greedy.action


def test_learned_leaves_ignore_the_env_generator(tmp_path):
    path = model_dir(tmp_path, "Threes-v0", 6)
    spec = f"expectimax:depth=2,evaluator=ntuple:path={path}"
    assert_ignores_the_env_generator(lambda: playahead.make_agent(spec, seed=3))


def test_learned_leaf_errors(tmp_path):
    path = model_dir(tmp_path, "2048-v0")
    threes_env = gym.make("Threes-v0")
    threes_env.reset(seed=0)
    agent = playahead.make_agent(f"expectimax:depth=1,evaluator=ntuple:path={path}")
    with pytest.raises(ValueError, match="plays 2048-v0, not Threes-v0"):
        agent.act(threes_env)
    with pytest.raises(ValueError, match="ntuple:path=DIR"):
        playahead.make_agent("expectimax:evaluator=ntuple:dir=x")
    with pytest.raises(ValueError, match="missing"):
        playahead.make_agent(f"expectimax:evaluator=ntuple:path={tmp_path / 'none'}")
    other = model_dir(tmp_path, "Threes-v0", merge_6144=False)
    with pytest.raises(ValueError, match="merge_6144"):
        ExpectimaxAgent(depth=1, evaluator=f"ntuple:path={other}").act(threes_env)


@pytest.mark.parametrize("env_id", ["2048-v0", "Threes-v0"])
def test_multi_stage_leaves_match_reference(tmp_path, env_id):
    """A multi-stage net values each leaf with the weight set of the leaf's own
    largest tile (boundaries low enough that searches cross them)."""
    rng = np.random.default_rng(7)
    stages = (16, 64) if env_id == "2048-v0" else (12, 48)
    path = model_dir(tmp_path, env_id, 7, stages=stages)
    weights = weights_of(path)
    ranks = tuple(int(r) for r in load_model(path).stage_ranks)
    checked = 0
    for _ in range(4):
        if env_id == "2048-v0":
            faces = random_2048(rng, int(rng.integers(10, 14)))
            if twenty48.is_over(twenty48.from_faces(faces), *twenty48.TABLES):
                continue
            got = ExpectimaxAgent(
                depth=1, prob_cutoff=0.0, evaluator=f"ntuple:path={path}", seed=0
            ).analyze(env_2048(faces))
            want = naive.expectimax_2048(faces.tolist(), 1, 0.0, weights, CELLS, ranks)
        else:
            faces = random_threes(rng, int(rng.integers(9, 13)), 6)
            if threes.is_over(threes.from_faces(faces), *threes.tables(True)[:2]):
                continue
            deck = tuple(int(x) for x in rng.integers(0, 3, 3))
            window, preview = random_preview(rng, int(faces.max()))
            got = ExpectimaxAgent(
                depth=1, prob_cutoff=0.0, evaluator=f"ntuple:path={path}", seed=0
            ).analyze(env_threes(faces, deck, window))
            want = naive.expectimax_threes(
                faces.tolist(), deck, preview, 1, 0.0, weights, CELLS, ranks
            )
        assert_values_match(got.values, want)
        one_stage = naive.expectimax_2048 if env_id == "2048-v0" else None
        if one_stage is not None:  # the stages matter on these boards
            flat = naive.expectimax_2048(faces.tolist(), 1, 0.0, weights, CELLS)
            assert flat != want
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize(("seed", "depth", "cutoff"), [(0, 1, 0.0), (1, 2, 1e-3)])
def test_packaged_leaves_clamp_at_zero_and_match_reference(
    shipped, monkeypatch, seed, depth, cutoff
):
    """``evaluator=ntuple`` reads the packaged net and counts a negative learned
    value as 0 (no score still to come is negative): the reference with its learned
    value clamped agrees, the unclamped one does not on these boards."""
    rng = np.random.default_rng(seed)
    ranks = tuple(int(r) for r in shipped.stage_ranks)
    raw = naive.value
    differs = 0
    for _ in range(3):
        faces = random_threes(rng, int(rng.integers(9, 13)), 7)
        if threes.is_over(threes.from_faces(faces), *threes.tables(True)[:2]):
            continue
        deck = tuple(int(x) for x in rng.integers(0, 3, 3))
        window, preview = random_preview(rng, int(faces.max()))
        got = ExpectimaxAgent(
            depth=depth, prob_cutoff=cutoff, evaluator="ntuple", seed=0
        ).analyze(env_threes(faces, deck, window))
        args = (faces.tolist(), deck, preview, depth, cutoff, shipped.weights, CELLS)
        with monkeypatch.context() as m:
            m.setattr(naive, "value", lambda *a: max(0.0, raw(*a)))
            want = naive.expectimax_threes(*args, ranks)
        assert_values_match(got.values, want)
        differs += want != naive.expectimax_threes(*args, ranks)
    assert differs >= 1


def test_packaged_leaves_ignore_the_env_generator(shipped):
    assert_ignores_the_env_generator(
        lambda: playahead.make_agent("expectimax:depth=2,evaluator=ntuple", seed=3)
    )


def test_packaged_net_is_the_games_own(shipped, tmp_path, monkeypatch):
    """``evaluator=ntuple`` reads the net shipped for the game being played: on
    2048, while only a Threes net ships, one line says so (and what plays without
    it); once a 2048 net ships, the same agent plays 2048 with it and Threes with
    the Threes net, and each game's resolved options carry its own net's sha256."""
    from playahead.agents import resolved_options
    from playahead.ntuple import packaged

    env = gym.make("2048-v0")
    env.reset(seed=0)
    agent = playahead.make_agent("expectimax:depth=1,evaluator=ntuple", seed=0)
    with pytest.raises(packaged.PackagedNetError) as err:
        agent.act(env)
    message = str(err.value)
    assert "\n" not in message and "ships no n-tuple net for 2048-v0" in message
    assert message.endswith("evaluator=features works without it")
    model = NTupleModel.new("2048-v0", PATTERNS, stages=(2048,))
    rng = np.random.default_rng(12)  # >= 0: the packaged leaves' clamp never acts
    model.weights[:] = np.abs(rng.normal(0, 20, size=model.weights.shape))
    net = tmp_path / "net2048.npz"
    sha = packaged.export_packaged(model.save(tmp_path / "run"), net, step=0.5)
    ships = dict(packaged.PACKAGED, **{"2048-v0": ("net2048.npz", sha)})
    monkeypatch.setattr(packaged, "PACKAGED", ships)
    packaged.packaged_model.cache_clear()
    given = agent.analyze(env)
    unpacked = packaged.unpack_checkpoint(net, tmp_path / "unpacked", sha)
    want = playahead.make_agent(
        f"expectimax:depth=1,evaluator=ntuple:path={unpacked}", seed=0
    ).analyze(env)
    np.testing.assert_array_equal(given.values, want.values)
    assert given.value_kind == "score"
    threes_env = played_lowest("Threes-v0")
    assert agent.analyze(threes_env).value_kind == "score"
    for env_id, (_, digest) in ships.items():
        got = resolved_options("expectimax:depth=1,evaluator=ntuple", env_id)
        assert got["evaluator"] == f"ntuple:sha256={digest}"


def test_packaged_net_is_named_by_its_sha256(shipped):
    """Games of ``evaluator=ntuple`` belong to one shipped net: the resolved options
    (which key the evaluator's store) carry its sha256."""
    from playahead.agents import resolved_options
    from playahead.ntuple import packaged

    got = resolved_options("expectimax:depth=2,evaluator=ntuple", "Threes-v0")
    assert got["evaluator"] == f"ntuple:sha256={packaged.PACKAGED['Threes-v0'][1]}"


@pytest.mark.kernel
@pytest.mark.parametrize("depth", [0, 1, 2])
def test_a_stepped_packaged_net_searches_as_its_float32_weights(
    tmp_path, monkeypatch, depth
):
    """The search keeps a stepped packaged net's int16 multiples (half the memory)
    and scales each learned value once: with a power-of-two step the values are
    those of the same net decoded to float32, bit for bit, on 2048 and on a
    multi-stage Threes net; the int16 model cannot be saved as a checkpoint."""
    from playahead.ntuple import packaged

    ships = {}
    for env_id, stages in [("2048-v0", (256,)), ("Threes-v0", (12, 48))]:
        model = NTupleModel.new(env_id, PATTERNS, stages=stages)
        rng = np.random.default_rng(21)  # >= 0: the packaged leaves' clamp never acts
        model.weights[:] = np.abs(rng.normal(0, 300, size=model.weights.shape))
        model.weights[rng.random(model.weights.shape) < 0.5] = 0  # the fill: 0
        run = model.save(tmp_path / env_id)
        sha = packaged.export_packaged(run, tmp_path / f"{env_id}.npz", step=4.0)
        ships[env_id] = (f"{env_id}.npz", sha)
    monkeypatch.setattr(packaged, "DATA", tmp_path)
    monkeypatch.setattr(packaged, "PACKAGED", ships)
    packaged.packaged_model.cache_clear()
    try:
        for env_id, (name, sha) in ships.items():
            kept = packaged.packaged_model(env_id)
            full = packaged.read_packaged(tmp_path / name, sha)
            assert kept.weights.dtype == np.int16 and kept.step == 4.0
            assert kept.weights.nbytes * 2 == full.weights.nbytes
            np.testing.assert_array_equal(kept.weights * np.float32(4), full.weights)
            with pytest.raises(ValueError, match="int16 multiples"):
                kept.save(tmp_path / "nope")
            unpacked = packaged.unpack_checkpoint(tmp_path / name, tmp_path / env_id)
            env = played_lowest(env_id)
            got = ExpectimaxAgent(depth=depth, evaluator="ntuple", seed=0)
            want = ExpectimaxAgent(
                depth=depth, evaluator=f"ntuple:path={unpacked}", seed=0
            )
            from_file = ExpectimaxAgent(
                depth=depth, evaluator=f"ntuple:path={tmp_path / name}", seed=0
            )
            got, want = got.analyze(env), want.analyze(env)
            assert got.value_kind == want.value_kind == "score"
            np.testing.assert_array_equal(got.values, want.values)
            # the file given as a path: its int16 multiples, unclamped (none < 0)
            assert from_file._leaf.model.weights.dtype == np.int16
            np.testing.assert_array_equal(from_file.analyze(env).values, want.values)
    finally:
        packaged.packaged_model.cache_clear()
