"""What the expectimax tests share: boards drawn into envs, random boards and
previews, played positions, nets of random weights, the late Threes boards, and the
checks that compare two searches."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import playahead  # noqa: F401  (registers the ids)
from playahead.envs.tiles import ThreesState, Twenty48State
from playahead.games import threes, twenty48
from playahead.ntuple.model import NTupleModel, load_model
from playahead.planners.expectimax import ExpectimaxAgent

# ---------------------------------------------------------------- positions


def env_2048(faces, score=0):
    env = gym.make("2048-v0")
    env.reset(seed=0)
    board = int(twenty48.from_faces(faces))
    env.unwrapped.restore_state(Twenty48State(board, score, 0))
    return env


def env_threes(faces, deck=(4, 4, 4), preview=(1, 1)):
    env = gym.make("Threes-v0")
    env.reset(seed=0)
    cards = threes.pack_cards(*deck, *preview)
    board = int(threes.from_faces(faces))
    env.unwrapped.restore_state(ThreesState(board, int(cards), 0, "window", True))
    return env


def random_ranks(rng, n_tiles, top_rank):
    ranks = np.zeros(16, dtype=np.int64)
    cells = rng.choice(16, size=n_tiles, replace=False)
    ranks[cells] = rng.integers(1, top_rank + 1, n_tiles)
    return ranks.reshape(4, 4)


def random_2048(rng, n_tiles):
    return twenty48.ranks_to_faces(random_ranks(rng, n_tiles, 6))


def random_threes(rng, n_cards, top_rank):
    return threes.ranks_to_faces(random_ranks(rng, n_cards, top_rank))


def random_preview(rng, top):
    """((lo, hi) preview window of ranks, the card faces it allows): once the top
    card is >= 48, half the time a bonus window from 6 .. top / 8, else a basic card."""
    if top >= 48 and rng.random() < 0.5:
        ranks = list(range(4, threes.face_to_rank(top) - 2))
        lo = int(rng.choice(ranks))
        preview = (lo, min(lo + 2, ranks[-1]))
    else:
        preview = (int(rng.integers(1, 4)),) * 2
    return preview, [threes.card_values()[r] for r in range(preview[0], preview[1] + 1)]


def played(env_id, seed, moves):
    """An env after ``moves`` uniformly random legal moves of game ``seed``."""
    env = gym.make(env_id)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    over = False
    for _ in range(moves):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, over, _, _ = env.step(int(rng.choice(legal)))
        if over:
            break
    assert not over, "pick fewer moves: the game ended"
    return env


def played_lowest(env_id):
    """An env after six moves of game seed 4, each the lowest legal action."""
    env = gym.make(env_id)
    env.reset(seed=4)
    for _ in range(6):
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    return env


def early_2048_states(seed=3, n=3, moves=30):
    """``n`` 2048 states ``moves`` moves apart from a seeded game that always plays
    its first legal move: cheap positions for tests that search them."""
    env = gym.make("2048-v0")
    env.reset(seed=seed)
    states = []
    for _ in range(n):
        for _ in range(moves):
            env.step(int(env.unwrapped.action_masks().argmax()))
        states.append(env.unwrapped.clone_state())
    return states


#: a late Threes board: a 3072 in the corner, room to move
LATE = [
    [3072, 768, 96, 3],
    [1536, 192, 12, 0],
    [384, 48, 6, 0],
    [24, 2, 1, 0],
]
#: the same board one card higher
END = [[6144 if v == 3072 else v for v in row] for row in LATE]
#: the same board one card lower
EARLY = [[1536 if v == 3072 else v for v in row] for row in LATE]
EARLY[1][0] = 6


def analyze_threes(faces, **options):
    """The decision on Threes board ``faces`` over the shipped net's leaves."""
    return ExpectimaxAgent(seed=0, evaluator="ntuple", **options).analyze(
        env_threes(faces)
    )


# ---------------------------------------------------------------- learned leaves

PATTERNS = ("012", "459")
CELLS = [tuple(int(c, 16) for c in p) for p in PATTERNS]


def model_dir(tmp_path, env_id, seed=0, stages=(), preview=True, **env_kwargs):
    """A saved net with random weights (afterstate values of a few hundred points);
    ``stages``: tile values of a multi-stage net; ``preview`` False: a Threes net
    without the preview index."""
    model = NTupleModel.new(
        env_id, PATTERNS, stages=stages, preview=preview, env_kwargs=env_kwargs
    )
    rng = np.random.default_rng(seed)
    model.weights[:] = rng.normal(0, 20, size=model.weights.shape)
    return model.save(tmp_path / f"{env_id}-{seed}-{len(stages)}-{preview}")


def weights_of(path):
    return load_model(path).weights


# ---------------------------------------------------------------- checks


def assert_values_match(compiled, reference):
    for a in range(4):
        if reference[a] is None:
            assert np.isnan(compiled[a])
        else:
            assert compiled[a] == pytest.approx(reference[a], rel=1e-9)


def assert_ignores_the_env_generator(make):
    """Two Threes envs in the same visible position but with different generators
    (so different deck orders): agents from ``make()`` decide alike, and the env's
    generator is untouched."""
    a = gym.make("Threes-v0")
    b = gym.make("Threes-v0")
    a.reset(seed=1)
    b.reset(seed=2)
    for _ in range(5):
        a.step(int(np.flatnonzero(a.unwrapped.action_masks())[0]))
    b.unwrapped.restore_state(a.unwrapped.clone_state())
    rng_state = a.unwrapped.np_random.bit_generator.state
    first = make().analyze(a)
    second = make().analyze(b)
    assert first.action == second.action
    assert np.array_equal(first.values, second.values, equal_nan=True)
    assert a.unwrapped.np_random.bit_generator.state == rng_state


def agents_page() -> str:
    """``docs/agents.md`` with its whitespace runs made single spaces."""
    page = (Path(__file__).parents[2] / "docs" / "agents.md").read_text()
    return " ".join(page.split())
