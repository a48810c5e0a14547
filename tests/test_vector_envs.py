"""The compiled vector envs follow Gymnasium's VectorEnv API and the game's rules."""

import gymnasium as gym
import numpy as np
import pytest

import playahead  # noqa: F401
from benchmarks.speed import reference as ref
from playahead.envs.tiles import ThreesState, Twenty48State

IDS = ["2048-v0", "Threes-v0"]


def _make(env_id, n=16, **kwargs):
    return gym.make_vec(
        env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs
    )


def _random_actions(masks, rng):
    return (rng.random(masks.shape) * masks).argmax(axis=1)


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_and_shapes(env_id):
    env = _make(env_id)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert (
        info["action_mask"].shape == (16, 4) and info["action_mask"].any(axis=1).all()
    )
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"])
    obs, r, term, trunc, info = env.step(
        _random_actions(info["action_mask"], np.random.default_rng(0))
    )
    assert r.shape == term.shape == trunc.shape == (16,)
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_trajectory(env_id):
    runs = []
    for _ in range(2):
        env = _make(env_id)
        _, info = env.reset(seed=42)
        rng = np.random.default_rng(1)
        total = 0.0
        for _ in range(200):
            _, r, _, _, info = env.step(_random_actions(info["action_mask"], rng))
            total += r.sum()
        runs.append((total, info["score"].tolist()))
    assert runs[0] == runs[1]


@pytest.mark.kernel
def test_2048_vector_steps_follow_the_rules_and_autoreset():
    env = _make("2048-v0", n=8)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    ended_before = np.zeros(8, dtype=bool)
    for _ in range(400):
        before = np.where(obs > 0, 1 << obs.astype(np.int64), 0)
        actions = _random_actions(info["action_mask"], rng)
        obs, reward, term, _, info = env.step(actions)
        after = np.where(obs > 0, 1 << obs.astype(np.int64), 0)
        for i in range(8):
            if ended_before[i]:  # next-step autoreset: a fresh board, reward 0
                assert reward[i] == 0 and (after[i] > 0).sum() == 2
                continue
            slid, r = ref.move_2048(before[i].tolist(), int(actions[i]))
            assert r >= 0 and reward[i] == r
            changed = (after[i] != np.array(slid)).sum()
            assert changed == 1
        ended_before = term


def test_bad_actions_are_refused():
    env = _make("Threes-v0", n=4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="0..3"):
        env.step(np.array([0, 1, 2, 4]))
    with pytest.raises(ValueError, match="4 integers"):
        env.step(np.array([0, 1]))


@pytest.mark.parametrize("env_id", IDS)
def test_partial_reset_touches_only_the_masked_boards(env_id):
    env = _make(env_id, n=6)
    _, info = env.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(30):
        obs, _, _, _, info = env.step(_random_actions(info["action_mask"], rng))
    before = obs["board"] if isinstance(obs, dict) else obs
    which = np.array([True, False, True, False, False, False])
    fresh, info = env.reset(options={"reset_mask": which})
    after = fresh["board"] if isinstance(fresh, dict) else fresh
    assert np.array_equal(after[~which], before[~which])
    assert (
        (after[which] > 0).sum(axis=(1, 2)) == (2 if env_id == "2048-v0" else 9)
    ).all()
    assert info["action_mask"][which].any(axis=1).all()
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.ones(3, dtype=bool)})


def _single_state(env_id, venv, i):
    """Board ``i`` of the compiled env as a state the single env restores."""
    board = int(venv._boards[i])
    if env_id == "2048-v0":
        return Twenty48State(board, int(venv._scores[i]), 0)
    return ThreesState(board, int(venv._cards[i]), 0, "window", True)


@pytest.mark.parametrize("env_id", IDS)
def test_stall_cap_truncates_on_the_same_step_as_the_single_env(env_id):
    """Same positions and actions: a single env replaying each board (restored from
    the compiled env after every legal move, as chance differs) truncates on the same
    step, with ``stalled`` and the same no-op observation."""
    n, cap = 4, 4
    venv = _make(env_id, n=n, max_noop_moves=cap).unwrapped
    singles = [gym.make(env_id, max_noop_moves=cap).unwrapped for _ in range(n)]
    _, info = venv.reset(seed=5)
    for i, single in enumerate(singles):
        single.restore_state(_single_state(env_id, venv, i))
    rng = np.random.default_rng(5)
    actions = rng.integers(0, 4, n)
    ended = np.zeros(n, dtype=bool)
    stalls = 0
    for _ in range(600):
        # stubborn: mostly the same move again, so illegal moves come in runs
        change = rng.random(n) < 0.3
        actions = np.where(change, rng.integers(0, 4, n), actions)
        obs, _, term, trunc, info = venv.step(actions)
        board = obs["board"] if isinstance(obs, dict) else obs
        for i, single in enumerate(singles):
            if not ended[i]:
                s_obs, _, s_term, s_trunc, s_info = single.step(int(actions[i]))
                assert (term[i], trunc[i]) == (s_term, s_trunc)
                assert info["stalled"][i] == s_info.get("stalled", False)
                if s_info.get("illegal_action"):
                    s_board = s_obs["board"] if isinstance(s_obs, dict) else s_obs
                    np.testing.assert_array_equal(board[i], s_board)
                    continue
            single.restore_state(_single_state(env_id, venv, i))
        stalls += int(info["stalled"].sum())
        ended = term | trunc
    assert stalls > 0


def _reset_at_a_wall(venv) -> np.ndarray:
    """Reset a one-board env with the first seed that has an illegal move; return it."""
    for seed in range(200):
        _, info = venv.reset(seed=seed)
        if not info["stalled"].any() and not info["action_mask"][0].all():
            return np.flatnonzero(~info["action_mask"][0])[:1]
    raise AssertionError("no start position with an illegal move in 200 seeds")


def test_compiled_env_stall_cap_default_none_and_bad_values():
    venv = _make("2048-v0", n=1).unwrapped
    assert venv.max_noop_moves == 100
    wall = _reset_at_a_wall(venv)
    truncated = [bool(venv.step(wall)[3][0]) for _ in range(100)]
    assert truncated == [False] * 99 + [True]
    forever = _make("2048-v0", n=1, max_noop_moves=None).unwrapped
    wall = _reset_at_a_wall(forever)
    assert not any(forever.step(wall)[3][0] for _ in range(300))
    with pytest.raises(ValueError, match="max_noop_moves"):
        _make("Threes-v0", max_noop_moves=0)
    with pytest.raises(ValueError, match="no-ops only"):
        _make("Threes-v0", illegal_action="end")


def _rollout(env, steps=300):
    """Scores and episode ends of ``steps`` random legal moves from seed 3."""
    _, info = env.reset(seed=3)
    rng, ends = np.random.default_rng(0), 0
    for _ in range(steps):
        _, _, term, trunc, info = env.step(_random_actions(info["action_mask"], rng))
        ends += int((term | trunc).sum())
    return info["score"].tolist(), ends


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("mode", [gym.vector.AutoresetMode.NEXT_STEP, "NextStep"])
def test_make_vec_takes_next_step_autoreset_the_mode_it_implements(env_id, mode):
    env = _make(env_id, n=4, autoreset_mode=mode)
    assert env.metadata["autoreset_mode"] is gym.vector.AutoresetMode.NEXT_STEP
    scores, ends = _rollout(env)
    assert ends > 0  # games ended and were autoreset, as without the option
    assert (scores, ends) == _rollout(_make(env_id, n=4))


@pytest.mark.parametrize(
    ("mode", "shown"),
    [
        (gym.vector.AutoresetMode.SAME_STEP, "AutoresetMode.SAME_STEP"),
        ("Disabled", "AutoresetMode.DISABLED"),
        ("next_step", "'next_step'"),  # not a mode Gymnasium knows
    ],
)
def test_other_autoreset_modes_are_refused_naming_the_accepted_one(mode, shown):
    with pytest.raises(ValueError) as err:
        _make("Threes-v0", n=2, autoreset_mode=mode)
    message = str(err.value)
    assert f"not autoreset_mode={shown}" in message
    assert "accepted is gym.vector.AutoresetMode.NEXT_STEP (or 'NextStep')" in message
    # the way out the message gives works
    sync = gym.make_vec(
        "Threes-v0",
        2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
    )
    assert sync.metadata["autoreset_mode"] is gym.vector.AutoresetMode.SAME_STEP
