"""What every planner shares: the :class:`Planner` base class, the position it searches
(:class:`Root`) and a search model of any env (:class:`GenericGame`). The planners
(:mod:`playahead.planners`) and the n-tuple agent (:mod:`playahead.ntuple.agent`) build
on it; it sits below both.

A planner is built with explicit keyword options (``seed``, budgets, ``time_limit``) and
answers two questions about the position of an env (as ``gym.make`` returns it):

* ``act(env) -> action``: the move it would play.
* ``analyze(env) -> Analysis``: a value for every legal action (NaN for illegal ones),
  visit counts where the method has them, the chosen action and counters.

Randomness: the planner owns one ``np.random.Generator`` made from ``seed``; every call
spawns a child generator from it, so a new planner with the same seed makes the same
decisions. Chance inside the search (new tiles, deck draws, playouts) comes from that
child generator, never from the env's: a planner sees only what a player could know
(the position, the preview, the counted deck).

Backends: for playahead's own games (the exact env classes, not subclasses) planners
run compiled kernels on the raw game state; any other env that follows the contract of
:mod:`playahead.envs.base` is searched through :func:`~playahead.envs.base.simulator`
with ``restore_state``/``step``/``action_masks`` (:class:`GenericGame`).
``compiled=False`` forces the generic path on every env.
"""

from __future__ import annotations

import abc
import dataclasses
import math
import pickle
import time
from typing import Any

import numpy as np

from playahead.agents import Analysis
from playahead.envs.base import simulator

#: Names of the compiled backends; ``"generic"`` is the clone/restore path.
KINDS = ("2048", "threes", "tictactoe", "connect_four", "nim", "generic")


def check_positive(
    name: str,
    value,
    *,
    integer: bool = True,
    allow_none: bool = False,
    at_most: float | None = None,
):
    """Validate a budget option; returns it (as int when ``integer``).

    Raises:
        ValueError: not a positive number (or None when ``allow_none``), or above
            ``at_most``.
    """
    if value is None and allow_none:
        return None
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )
    if ok and integer:
        ok = float(value).is_integer()
    if not ok or not value > 0 or (at_most is not None and value > at_most):
        kind = "a positive integer" if integer else "a positive number"
        extra = " or none" if allow_none else ""
        cap = "" if at_most is None else f" at most {at_most:,}"
        raise ValueError(f"{name} must be {kind}{cap}{extra}, got {value!r}")
    return int(value) if integer else float(value)


def check_choice(name: str, value, choices: tuple[str, ...]) -> str:
    """Validate a string option against ``choices``."""
    if value not in choices:
        raise ValueError(
            f"{name}={value!r} is not one of {', '.join(map(repr, choices))}"
        )
    return value


@dataclasses.dataclass
class Root:
    """The position a planner is asked about.

    Attributes:
        env: the unwrapped env (read through ``clone_state``; never stepped).
        mask: ``bool[n_actions]`` legal actions (at least one is True).
        player: the player to move (0 in one-player games).
        num_players: 1 or 2.
        kind: the compiled backend (see :data:`KINDS`), ``"generic"`` otherwise.
        score: the game's score so far for 2048 and Threes (values of tile games are
            final scores), else 0.
    """

    env: Any
    mask: np.ndarray
    player: int
    num_players: int
    kind: str
    score: float = 0.0

    @property
    def legal(self) -> np.ndarray:
        """``int64[n_legal]`` legal actions in increasing order."""
        return np.flatnonzero(self.mask)


def backend_kind(base) -> str:
    """The compiled backend for an unwrapped env, or ``"generic"``.

    Only playahead's own classes qualify (``type(base) is ...``): a subclass may change
    the rules, so it is searched through its own ``step``.
    """
    from playahead.envs.tiles import ThreesEnv, Twenty48Env

    kinds = {Twenty48Env: "2048", ThreesEnv: "threes"}
    try:
        from playahead.envs.connect_four import ConnectFourEnv
        from playahead.envs.nim import ChipsEnv, NimEnv
        from playahead.envs.tictactoe import TicTacToeEnv
    except ImportError:  # pragma: no cover - the two-player envs are optional
        pass
    else:
        kinds.update(
            {
                TicTacToeEnv: "tictactoe",
                ConnectFourEnv: "connect_four",
                NimEnv: "nim",
                ChipsEnv: "nim",
            }
        )
    kind = kinds.get(type(base), "generic")
    if kind == "tictactoe" and base.size > 8:  # the packed position holds 64 cells
        return "generic"
    return kind


def make_root(env, compiled: bool = True) -> Root:
    """Describe ``env``'s position for a search.

    Raises:
        ValueError: the env does not follow the contract, or its game is over.
    """
    base = env.unwrapped
    for method in ("clone_state", "restore_state", "action_masks"):
        if not callable(getattr(base, method, None)):
            raise ValueError(
                f"planners need an env with clone_state(), restore_state() and "
                f"action_masks() (see playahead.envs.base); {type(base).__name__} has "
                f"no {method}()"
            )
    mask = np.asarray(base.action_masks(), dtype=bool)
    if not mask.any():
        raise ValueError("the game is over: no legal action to analyze")
    num_players = int(getattr(base, "num_players", 1))
    if num_players not in (1, 2):
        raise ValueError(f"planners handle 1 or 2 players, got {num_players}")
    kind = backend_kind(base) if compiled else "generic"
    score = 0.0
    if kind == "2048":
        score = float(base.clone_state().score)
    elif kind == "threes":
        from playahead.games import threes

        score = float(threes.score(base._board, base.tables[2]))
    player = int(getattr(base, "current_player", 0))
    return Root(base, mask, player, num_players, kind, score)


def state_key(state):
    """A dict key for an env state: the state itself when hashable (the contract asks
    for it), else its pickle."""
    try:
        hash(state)
    except TypeError:
        return pickle.dumps(state)
    return state


def pick_max(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of the largest non-NaN value, ties broken uniformly with ``rng``."""
    finite = np.where(np.isnan(values), -np.inf, values)
    best = np.flatnonzero(finite == finite.max())
    return int(best[0] if best.size == 1 else best[rng.integers(best.size)])


def masked(values, mask: np.ndarray) -> np.ndarray:
    """``float64[n_actions]`` copy of ``values`` with NaN where ``mask`` is False."""
    out = np.asarray(values, dtype=np.float64).copy()
    out[~mask] = np.nan
    return out


class Planner(abc.ABC):
    """Base class of playahead's planners (see the module docstring).

    Subclasses call ``super().__init__(seed, time_limit, compiled)`` and implement
    ``_analyze(root, rng, deadline) -> Analysis``; ``deadline`` is a
    ``time.perf_counter()`` value (``math.inf`` without a time limit) that search
    loops check between chunks of work.

    Args:
        seed: seed of the planner's own generator (None: fresh entropy).
        time_limit: seconds per decision, or None. With a time limit the work done
            depends on the machine, so decisions are no longer reproducible.
        compiled: use playahead's compiled kernels for its own games (False: always
            search through the env's clone/restore).
    """

    name = "planner"
    #: The spec the planner was made from (:func:`playahead.agents.make_agent` sets
    #: it; None for a planner built directly).
    spec: str | None = None

    def __init__(
        self, seed: int | None = None, time_limit: float | None = None, compiled=True
    ):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"seed must be an integer or none, got {seed!r}")
        self.seed = seed
        self.time_limit = check_positive(
            "time_limit", time_limit, integer=False, allow_none=True
        )
        self.compiled = bool(compiled)
        self._rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"

    def act(self, env) -> int:
        """The action this planner plays in ``env``'s position."""
        return int(self.analyze(env).action)

    def analyze(self, env) -> Analysis:
        """Search ``env``'s position (the env is not changed).

        Returns:
            an :class:`~playahead.agents.Analysis` with ``stats["seconds"]``.

        Raises:
            ValueError: the game is over, or the env does not follow the contract.
        """
        root = make_root(env, self.compiled)
        rng = self._rng.spawn(1)[0]
        start = time.perf_counter()
        deadline = start + self.time_limit if self.time_limit else math.inf
        analysis = self._analyze(root, rng, deadline)
        analysis.stats["seconds"] = time.perf_counter() - start
        analysis.stats.setdefault("backend", root.kind)
        return analysis

    @abc.abstractmethod
    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        """Search ``root`` with ``rng`` until the budget or ``deadline`` is spent."""


class GenericGame:
    """A search model of any env of the contract, built on ``simulator(env, rng)``.

    States are the env's own ``clone_state()`` objects. Two-player envs are searched
    turn by turn (playahead's envs give a copy without the built-in opponent), and a
    reward belongs to the player who just moved; :meth:`step` reports it as a
    ``float64[num_players]`` vector (zero-sum for two players).

    Args:
        env: the unwrapped env to model (not changed).
        rng: the generator every chance event in the model draws from.
    """

    def __init__(self, env, rng: np.random.Generator):
        self.sim = simulator(env, rng)
        self.rng = rng
        self.num_players = int(getattr(env, "num_players", 1))
        self.n_actions = int(env.action_space.n)
        self.root = env.clone_state()
        self._here = None
        self.steps = 0

    def _goto(self, state) -> None:
        if state is not self._here:
            self.sim.restore_state(state)
            self._here = state

    def legal(self, state) -> np.ndarray:
        """``bool[n_actions]`` legal actions (all False once the game is over)."""
        self._goto(state)
        return np.asarray(self.sim.action_masks(), dtype=bool)

    def player(self, state) -> int:
        """The player to move."""
        self._goto(state)
        return int(getattr(self.sim, "current_player", 0))

    def step(self, state, action: int) -> tuple[Any, np.ndarray, bool]:
        """``(next state, rewards: float64[num_players], game over)``."""
        self._goto(state)
        mover = int(getattr(self.sim, "current_player", 0))
        _, reward, terminated, truncated, _ = self.sim.step(int(action))
        self.steps += 1
        child = self.sim.clone_state()
        self._here = child
        return child, self.credit(mover, float(reward)), bool(terminated or truncated)

    def credit(self, mover: int, reward: float) -> np.ndarray:
        """A reward of ``mover`` as a per-player vector (the other player gets -r)."""
        out = np.zeros(self.num_players)
        out[mover] = reward
        if self.num_players == 2:
            out[1 - mover] = -reward
        return out

    def rollout(self, state, greedy: bool = False, max_depth: int = -1) -> np.ndarray:
        """Play to the end (or ``max_depth`` moves) from ``state``.

        Moves are uniformly random, or with ``greedy`` the best one-move reward for
        the mover (ties uniform). Returns the ``float64[num_players]`` rewards
        collected.
        """
        total = np.zeros(self.num_players)
        depth = 0
        while max_depth < 0 or depth < max_depth:
            legal = np.flatnonzero(self.legal(state))
            if legal.size == 0:
                break
            if greedy and legal.size > 1:
                action = self.greedy_action(state, legal)
            else:
                action = int(legal[self.rng.integers(legal.size)])
            state, reward, over = self.step(state, action)
            total += reward
            depth += 1
            if over:
                break
        return total

    def greedy_action(self, state, legal: np.ndarray) -> int:
        """The legal action with the best one-move reward for the mover."""
        mover = self.player(state)
        rewards = np.full(self.n_actions, np.nan)
        for a in legal:
            _, reward, _ = self.step(state, int(a))
            rewards[a] = reward[mover]
        return pick_max(rewards, self.rng)
