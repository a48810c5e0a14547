"""Threes-v0 and 2048-v0 as Gymnasium envs: the contract and the chance rules."""

import subprocess
import sys
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import playahead  # noqa: F401  (registers the ids)
from benchmarks.speed import reference as ref
from playahead.envs.checks import check_game_env
from playahead.envs.tiles import ThreesState, Twenty48State
from playahead.games import threes

TILE_IDS = ["2048-v0", "Threes-v0"]


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("2048-v0", {}),
        ("Threes-v0", {}),
        ("Threes-v0", {"bonus_preview": "plus"}),
        ("Threes-v0", {"merge_6144": False}),
        ("playahead/2048-v0", {}),
        ("2048-v0", {"illegal_action": "raise"}),
    ],
)
def test_env_contract(env_id, kwargs):
    check_game_env(gym.make(env_id, **kwargs))


def test_make_with_module_prefix_needs_no_import():
    code = (
        "import gymnasium as gym; e = gym.make('playahead:Threes-v0'); e.reset(seed=0)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_id_registered_by_another_package_is_left_alone():
    code = (
        "import warnings, gymnasium as gym\n"
        "gym.register('2048-v0',\n"
        "             entry_point='gymnasium.envs.classic_control:CartPoleEnv')\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    import playahead\n"
        "assert any('already registered' in str(x.message) for x in w)\n"
        "assert gym.spec('2048-v0').entry_point.startswith('gymnasium')\n"
        "gym.make('playahead/2048-v0').reset(seed=0)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("env_id", TILE_IDS)
def test_masks_reachable_through_wrappers_and_match_info(env_id):
    env = gym.make(env_id)
    _, info = env.reset(seed=3)
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), info["action_mask"])
    assert {"score", "max_tile", "action_mask", "moves"} <= info.keys()


@pytest.mark.parametrize("env_id", TILE_IDS)
def test_restoring_one_clone_draws_fresh_chance_each_time(env_id):
    env = gym.make(env_id)
    _, info = env.reset(seed=0)
    state = env.unwrapped.clone_state()
    action = int(np.flatnonzero(info["action_mask"])[0])
    outcomes = set()
    for _ in range(30):
        env.unwrapped.restore_state(state)
        env.step(action)
        outcomes.add(env.unwrapped.clone_state())
    assert len(outcomes) > 1
    env.unwrapped.restore_state(state)
    assert env.unwrapped.clone_state() == state


def test_restore_refuses_foreign_and_malformed_states():
    t48, thr = gym.make("2048-v0"), gym.make("Threes-v0")
    t48.reset(seed=0)
    thr.reset(seed=0)
    with pytest.raises(ValueError, match="Twenty48State"):
        t48.unwrapped.restore_state(thr.unwrapped.clone_state())
    with pytest.raises(ValueError, match="ThreesState"):
        thr.unwrapped.restore_state(t48.unwrapped.clone_state())
    with pytest.raises(ValueError, match="uint64"):
        t48.unwrapped.restore_state(Twenty48State(-1, 0, 0))
    with pytest.raises(ValueError, match="malformed"):
        thr.unwrapped.restore_state(
            ThreesState(0, threes.pack_cards(5, 0, 0, 1, 1), 0, "window", True)
        )
    with pytest.raises(ValueError, match="bonus_preview"):
        plus = gym.make("Threes-v0", bonus_preview="plus")
        plus.reset(seed=0)
        thr.unwrapped.restore_state(plus.unwrapped.clone_state())


@pytest.mark.parametrize("env_id", TILE_IDS)
def test_out_of_range_and_illegal_actions(env_id):
    env = gym.make(env_id, illegal_action="raise")
    env.reset(seed=0)
    for bad in (4, -1, 1.5, "up"):
        with pytest.raises(ValueError, match="0..3|out of range|not an integer"):
            env.step(bad)
    # A board where only some moves are legal: an illegal one is refused, harmlessly.
    env.unwrapped.restore_state(_corner_state(env_id))
    before = env.unwrapped.clone_state()
    with pytest.raises(ValueError, match="illegal"):
        env.step(3)  # left: the only card is already against the left wall
    assert env.unwrapped.clone_state() == before
    noop = gym.make(env_id)
    noop.reset(seed=0)
    noop.unwrapped.restore_state(before)
    _, reward, term, trunc, info = noop.step(3)
    assert (reward, term, trunc, info["illegal_action"]) == (0.0, False, False, True)
    ended = gym.make(env_id, illegal_action="end")
    ended.reset(seed=0)
    ended.unwrapped.restore_state(before)
    assert ended.step(3)[3] is True


def _corner_state(env_id):
    board = [[3 if env_id == "Threes-v0" else 2, 0, 0, 0]] + [[0] * 4] * 3
    if env_id == "Threes-v0":
        return ThreesState(
            int(threes.from_faces(board)),
            threes.pack_cards(4, 4, 3, 3, 3),
            0,
            "window",
            True,
        )
    from playahead.games import twenty48

    return Twenty48State(int(twenty48.from_faces(board)), 0, 0)


def test_threes_every_12_basic_cards_hold_four_of_each():
    env = gym.make("Threes-v0")
    obs, info = env.reset(seed=5)
    drawn = [v for row in env.unwrapped.board.tolist() for v in row if v]
    drawn.append(info["next_card"])
    rng = np.random.default_rng(0)
    done = False
    while not done and len(drawn) < 240:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, done, _, info = env.step(action)
        if info["next_card"]:  # 0: a bonus card, outside the deck
            drawn.append(info["next_card"])
    for start in range(0, len(drawn) - 11, 12):
        assert Counter(drawn[start : start + 12]) == {1: 4, 2: 4, 3: 4}


@pytest.mark.kernel
def test_threes_new_card_enters_only_at_far_edges_of_moved_lines():
    env = gym.make("Threes-v0")
    _, info = env.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(300):
        before = env.unwrapped.board.tolist()
        preview = env.unwrapped.next_card
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, done, _, info = env.step(action)
        slid, moved = ref.move_threes(before, action)
        after = env.unwrapped.board.tolist()
        diff = [[r, c] for r in range(4) for c in range(4) if after[r][c] != slid[r][c]]
        assert len(diff) == 1 and diff[0] in ref.spawn_cells_threes(action, moved)
        card = after[diff[0][0]][diff[0][1]]
        one = isinstance(preview, int | np.integer)  # np.int64 with the JIT off
        assert card == preview if one else card in preview
        assert reward == ref.score_threes(after) - ref.score_threes(before)
        if done:
            _, info = env.reset(seed=int(rng.integers(1000)))


def test_threes_bonus_cards_follow_the_rules():
    # A board whose highest card is 768: bonus values are 6..96, windows of three.
    board = [[768, 3, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    b = threes.from_faces(board)
    rng = np.random.default_rng(0)
    cards = threes.pack_cards(4, 4, 4, 1, 1)
    windows = Counter()
    n = 42_000
    for _ in range(n):
        nxt = threes.draw_next(b, cards, rng, threes.WINDOW)
        _, _, _, lo, hi = threes.unpack_cards(nxt)
        if lo >= 4:
            windows[(lo, hi)] += 1
    bonus = sum(windows.values())
    assert abs(bonus / n - 1 / 21) < 0.005
    assert set(windows) == {(4, 6), (5, 7), (6, 8)}  # 6-24, 12-48, 24-96
    small = threes.from_faces([[48, 0, 0, 0]] + [[0] * 4] * 3)
    seen = {
        threes.unpack_cards(threes.draw_next(small, cards, rng, 0))[3:]
        for _ in range(5000)
    }
    assert {w for w in seen if w[0] >= 4} == {(4, 4)}  # max 48: only a 6


@pytest.mark.kernel
def test_2048_spawns_are_about_ten_percent_fours():
    env = gym.make("2048-v0")
    _, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    fours = spawns = 0
    while spawns < 6000:
        before = env.unwrapped.board.tolist()
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, done, _, info = env.step(action)
        slid, _ = ref.move_2048(before, action)
        new = [
            v
            for r, row in enumerate(env.unwrapped.board.tolist())
            for c, v in enumerate(row)
            if v != slid[r][c]
        ]
        assert len(new) == 1 and new[0] in (2, 4)
        fours += new[0] == 4
        spawns += 1
        if done:
            _, info = env.reset(seed=spawns)
    assert abs(fours / spawns - 0.1) < 0.015


@pytest.mark.parametrize("env_id", TILE_IDS)
def test_returns_add_up_to_the_score(env_id):
    env = gym.make(env_id)
    _, info = env.reset(seed=7)
    start, total, done = info["score"], 0.0, False
    rng = np.random.default_rng(7)
    while not done:
        _, r, done, _, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        total += r
    assert total == info["score"] - start
    assert not env.unwrapped.action_masks().any()


@pytest.mark.parametrize("env_id", TILE_IDS)
def test_renders_text_and_picture(env_id):
    env = gym.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 3
    text = gym.make(env_id, render_mode="ansi")
    text.reset(seed=0)
    assert "score" in text.render()


@pytest.mark.parametrize("env_id", TILE_IDS)
def test_big_tiles_in_the_last_cell_step_fine(env_id):
    # Boards whose top nibble is >= 8 do not fit in an int64; the env must cope.
    if env_id == "2048-v0":
        from playahead.games import twenty48

        faces = [[2, 0, 0, 0], [0] * 4, [0] * 4, [0, 0, 4096, 2048]]
        state = Twenty48State(int(twenty48.from_faces(faces)), 0, 0)
    else:
        faces = [[3, 0, 0, 0], [0] * 4, [0] * 4, [0, 0, 768, 1536]]
        state = ThreesState(
            int(threes.from_faces(faces)),
            threes.pack_cards(4, 4, 3, 3, 3),
            0,
            "window",
            True,
        )
    env = gym.make(env_id)
    env.reset(seed=0)
    env.unwrapped.restore_state(state)
    assert env.unwrapped.action_masks().all()  # each board moves every way
    for action in (0, 3, 1, 2):
        env.unwrapped.restore_state(state)
        env.step(action)
        assert env.unwrapped.board.max() >= 1536


@pytest.mark.parametrize(
    ("env_id", "label"), [("2048-v0", "SCORE 0"), ("Threes-v0", "NEXT ")]
)
def test_picture_labels_the_score_and_the_next_card(env_id, label):
    from playahead.envs.render import FONT

    env = gym.make(env_id, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    footer = img[-28:]  # below the tiles: the footer line
    ink = np.flatnonzero((footer != footer[0, 0]).any(axis=(0, 2)))
    glyph = 12  # 3 px wide at scale 3, plus the gap; a bare number is 1-2 glyphs
    assert ink[-1] - ink[0] >= glyph * (len(label.strip()) - 1)
    # every letter has its own glyph, and no letter looks like a digit (S vs 5, O vs 0)
    digits = [FONT[d] for d in "0123456789"]
    for letter in {ch for ch in label if ch.isalpha()}:
        assert not any(np.array_equal(FONT[letter], d) for d in digits), letter
