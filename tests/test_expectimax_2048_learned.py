"""Expectimax over learned leaves on 2048: its automatic defaults
(:data:`LEARNED_AUTO_2048`) and tile-downgrading (``downgrade``,
:func:`playahead.games.twenty48.downgrade`)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playahead.agents import make_agent, resolved_options
from playahead.games import twenty48
from playahead.games._board64 import pack, unpack
from playahead.planners.expectimax import (
    LEARNED_AUTO_2048,
    ExpectimaxAgent,
    game_defaults,
)
from tests.helpers.clocks import fast_clocks, game, same_moves
from tests.helpers.expectimax import agents_page, env_2048, model_dir

#: A late 2048 board: a 32768 in the corner, no 16384 (the gap), 8192 and 4096 next.
LATE = np.array(
    [
        [32768, 8192, 4096, 2],
        [16, 256, 1024, 4],
        [4, 32, 8, 0],
        [2, 0, 0, 0],
    ]
)


def test_the_learned_2048_defaults_are_one_place_with_their_numbers():
    assert LEARNED_AUTO_2048 == {
        "prob_cutoff": 0.01,
        "min_depth": 2,
        "max_depth": 3,
        "budget": 500_000,
        "downgrade": 32768,
    }
    assert "LEARNED_AUTO_2048" in game_defaults.__doc__


def test_learned_leaves_on_2048_resolve_to_their_defaults(tmp_path):
    path = model_dir(tmp_path, "2048-v0", 0)
    got = resolved_options(f"expectimax:evaluator=ntuple:path={path}", "2048-v0")
    assert {k: got[k] for k in LEARNED_AUTO_2048} == LEARNED_AUTO_2048
    # explicit options win; downgrade=0 is "never", and then not named at all
    got = resolved_options(
        f"expectimax:max_depth=4,downgrade=0,evaluator=ntuple:path={path}", "2048-v0"
    )
    assert got["max_depth"] == 4 and got["prob_cutoff"] == 0.01
    assert "downgrade" not in got
    # a fixed depth keeps the plain defaults (the records of such agents keep their
    # fingerprints), and so does the hand-made evaluator
    fixed = f"expectimax:depth=2,evaluator=ntuple:path={path}"
    fixed = resolved_options(fixed, "2048-v0")
    assert fixed["prob_cutoff"] == 1e-4 and "downgrade" not in fixed
    plain = resolved_options("expectimax:evaluator=monotonic", "2048-v0")
    assert plain["min_depth"] == 3 and "downgrade" not in plain
    threes = resolved_options("expectimax:downgrade=32768", "Threes-v0")
    assert "downgrade" not in threes


@pytest.mark.parametrize("bad", [-1, 3, 6, 65536, 1.5, True, "big"])
def test_a_bad_downgrade_is_one_line(bad):
    with pytest.raises(ValueError, match="downgrade is the 2048 tile") as err:
        ExpectimaxAgent(downgrade=bad)
    assert "\n" not in str(err.value)


def test_downgrade_of_known_boards():
    # the gap is 16384: the 32768 alone goes down
    got = twenty48.to_faces(twenty48.downgrade(twenty48.from_faces(LATE)))
    assert got.tolist() == np.where(LATE == 32768, 16384, LATE).tolist()
    # a 16384 but no 8192: both go down, the 4096 below the gap stays
    board = LATE.copy()
    board[0, 1] = 16384
    got = twenty48.to_faces(twenty48.downgrade(twenty48.from_faces(board)))
    assert got[0].tolist() == [16384, 8192, 4096, 2]
    assert (got[1:] == board[1:]).all()
    # below the threshold, or with no gap, the board is returned as it is
    packed = twenty48.from_faces(LATE)
    assert twenty48.downgrade(packed, 65536) == packed
    assert twenty48.downgrade(packed, 16384) != packed
    early = twenty48.from_faces(np.where(LATE == 32768, 2048, LATE))
    assert twenty48.downgrade(early) == early
    full = np.array([1 << r for r in range(1, 16)] + [0]).reshape(4, 4)
    assert twenty48.downgrade(twenty48.from_faces(full)) == twenty48.from_faces(full)
    assert twenty48.downgrade(np.uint64(0)) == 0


@st.composite
def late_boards(draw):
    """Packed boards with one 32768 and at least one gap below it."""
    ranks = draw(st.lists(st.integers(0, 14), min_size=15, max_size=15))
    ranks = [*ranks, 15]
    order = draw(st.permutations(range(16)))
    board = np.array([ranks[i] for i in order], np.int64).reshape(4, 4)
    return np.uint64(pack(board))


@given(late_boards())
@settings(max_examples=300, deadline=None)
def test_a_downgraded_board_moves_as_the_board_does(board):
    """Every tile above the gap goes one rank down, and the moves commute with that
    map: each legal move of the board is legal on the downgraded board, and slides
    the same cells into the same places (merge for merge)."""
    ranks = unpack(board)
    present = set(ranks.ravel().tolist())
    gaps = [r for r in range(1, 15) if r not in present]
    down = twenty48.downgrade(board)
    if not gaps:
        assert down == board
        return
    gap = gaps[-1]

    def mapped(x):
        r = unpack(np.uint64(x))
        return np.uint64(pack(np.where(r > gap, r - 1, r)))

    assert down == mapped(board)
    assert twenty48.max_tile(down) == 16384
    moves, rewards = twenty48.TABLES
    np.testing.assert_array_equal(
        twenty48.legal_mask(board, moves, rewards),
        twenty48.legal_mask(down, moves, rewards),
    )
    for a in range(4):
        after, _ = twenty48.move(board, a, moves, rewards)
        after_down, _ = twenty48.move(down, a, moves, rewards)
        if int(unpack(np.uint64(after)).ravel().tolist().count(15)) > 1:
            continue  # two 32768s: the packed engine's cap, not the map's
        assert after_down == mapped(after)


def test_the_learned_search_downgrades_a_late_board(tmp_path):
    """With learned leaves at the automatic depth a board with a 32768 is searched
    downgraded: the values are those of the downgraded board (plus the score so
    far), the move the same; ``downgrade=0`` searches the board itself."""
    path = model_dir(tmp_path, "2048-v0", 1)
    spec = f"expectimax:evaluator=ntuple:path={path}"
    got = make_agent(spec, seed=0).analyze(env_2048(LATE, score=500_000))
    assert got.stats["downgraded"]
    down = twenty48.to_faces(twenty48.downgrade(twenty48.from_faces(LATE)))
    same = make_agent(f"{spec},downgrade=0", seed=0).analyze(
        env_2048(down, score=500_000)
    )
    assert not same.stats["downgraded"]
    np.testing.assert_array_equal(got.values, same.values)
    assert got.action == same.action
    real = make_agent(f"{spec},downgrade=0", seed=0).analyze(
        env_2048(LATE, score=500_000)
    )
    assert not real.stats["downgraded"]
    assert not np.array_equal(real.values, got.values, equal_nan=True)
    # a board below 32768 is searched as it is
    early = np.where(LATE == 32768, 2048, LATE)
    assert not make_agent(spec, seed=0).analyze(env_2048(early)).stats["downgraded"]


@pytest.mark.parametrize("budget", ["", ",budget=2000"])
def test_the_learned_2048_search_reads_no_clock(tmp_path, budget, monkeypatch):
    """The learned 2048 defaults count nodes: the same decisions with every clock 4x
    fast and with a CPU hog beside the game, a budget that binds too."""
    spec = f"expectimax:evaluator=ntuple:path={model_dir(tmp_path, '2048-v0', 3)}"
    spec += budget
    plain = game("2048-v0", spec, 20)
    if budget:
        assert any(cut for *_, cut in plain), "the budget should bind somewhere"
    with monkeypatch.context() as patch:
        fast_clocks(patch)
        same_moves(plain, game("2048-v0", spec, 20))
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = game("2048-v0", spec, 20)
    finally:
        hog.kill()
        hog.wait()
    same_moves(plain, loaded)


def test_the_agents_page_states_the_learned_2048_defaults():
    text = agents_page()
    auto = LEARNED_AUTO_2048
    want = (
        f"to depth {auto['min_depth']} to {auto['max_depth']} (`distinct tiles - 2`) "
        f"at a cut-off of {auto['prob_cutoff']:g} within {auto['budget']:,} nodes, "
        f"with tile-downgrading from {auto['downgrade']}"
    )
    assert want in text


def test_the_2048_default_is_the_shipped_net_named_by_its_sha256(monkeypatch):
    """The default 2048 agent's fingerprint holds the shipped net's sha256, so a store
    sees a changed net as another agent."""
    from playahead.evaluate.store import agent_identity, fingerprint
    from playahead.ntuple import packaged

    got = resolved_options("expectimax", "2048-v0")
    sha = packaged.PACKAGED["2048-v0"][1]
    assert got["evaluator"] == f"ntuple:sha256={sha}"
    assert {k: got[k] for k in LEARNED_AUTO_2048} == LEARNED_AUTO_2048
    before = fingerprint(agent_identity("expectimax", "2048-v0"))
    other = dict(packaged.PACKAGED, **{"2048-v0": ("2048-ntuple.npz", "0" * 64)})
    monkeypatch.setattr(packaged, "PACKAGED", other)
    assert fingerprint(agent_identity("expectimax", "2048-v0")) != before
    # the hand-made search is one option away, and is not the default's agent
    hand = fingerprint(agent_identity("expectimax:evaluator=monotonic", "2048-v0"))
    assert hand != before


def test_features_names_the_hand_made_2048_search():
    """``evaluator=features`` is the hand-made search on either game; on 2048 it is
    the ``monotonic`` agent under another spelling: the same resolved options (so
    the same records) and the same values."""
    from playahead.evaluate.store import agent_identity, fingerprint

    spelled = [f"expectimax:depth=1,evaluator={e}" for e in ("features", "monotonic")]
    assert resolved_options(spelled[0], "2048-v0") == resolved_options(
        spelled[1], "2048-v0"
    )
    ids = {fingerprint(agent_identity(s, "2048-v0")) for s in spelled}
    assert len(ids) == 1
    env = env_2048(LATE)
    got = [make_agent(s, seed=0).analyze(env) for s in spelled]
    assert got[0].value_kind == "eval"
    np.testing.assert_array_equal(got[0].values, got[1].values)
    threes = resolved_options("expectimax:evaluator=features", "Threes-v0")
    assert threes["evaluator"] == "features"


def test_the_shipped_nets_fit_their_caps():
    """Each packaged net is at most 40 MiB (the reader's cap), and all the package
    data, which the wheel carries compressed as it is, at most 60 MiB."""
    from playahead.ntuple import packaged

    sizes = [
        (packaged.DATA / name).stat().st_size for name, _ in packaged.PACKAGED.values()
    ]
    assert packaged.MAX_BYTES == 40 * 2**20
    assert all(size <= packaged.MAX_BYTES for size in sizes)
    data = sum(p.stat().st_size for p in packaged.DATA.rglob("*") if p.is_file())
    assert data <= 60 * 2**20


def test_a_loaded_default_2048_agent_stays_within_400_mb_resident():
    """A fresh process that made the default 2048 agent and played with it holds at
    most 400 MB (``VmRSS``; the decoded-net cache of the tests is cold, so this
    process decoded the net itself)."""
    from benchmarks.speed.bench_memory import resident

    got = resident("2048-v0", "expectimax", 5)
    assert got["VmRSS"] <= 400 * 1024  # kB
