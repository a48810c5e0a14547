"""Agents from spec strings: ``make_agent("mcts:n_simulations=400,c=1.4")``.

A spec is a registered name, optionally followed by ``:`` and comma-separated
``key=value`` options. Values are read as int, float, bool (``true``/``false``) or
``none`` where they look like one, otherwise kept as strings. Every agent has
``act(env) -> int``; planners also have ``analyze(env) -> Analysis``.

Agents register themselves with :func:`register_agent` when their module is imported;
:func:`make_agent` imports the built-in modules on first use.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

# Modules whose import registers the built-in agents (imported lazily, on first use).
_BUILTIN_MODULES = (
    "playahead.planners",
    "playahead.planners.solver",
    "playahead.ntuple.agent",
    "playahead.train.agents",
    "playahead.alphazero.agent",
)


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(env) -> action``; ``env`` is what ``gym.make`` returns."""

    def act(self, env) -> int:
        """The action to play in ``env``'s position (the env is not changed)."""
        ...


@dataclasses.dataclass(frozen=True)
class Analysis:
    """What a planner thinks of a position.

    Attributes:
        action: the chosen action.
        values: ``float[n_actions]``, the planner's value of each action (NaN where
            illegal). Units: expected final score (tile games) or expected result in
            [-1, 1] for the player to move (two-player games), unless ``value_kind``
            says otherwise.
        visits: ``int[n_actions]`` visit or rollout counts, or None.
        value_kind: a short word naming the units, e.g. ``"score"``, ``"win_rate"``,
            ``"solved"``.
        stats: counters such as ``nodes``, ``rollouts``, ``seconds``, ``depth``.
    """

    action: int
    values: np.ndarray
    visits: np.ndarray | None = None
    value_kind: str = "score"
    stats: dict[str, Any] = dataclasses.field(default_factory=dict)

    def ranked(self) -> list[tuple[int, float]]:
        """Legal actions with their values, best first."""
        legal = [(a, float(v)) for a, v in enumerate(self.values) if not np.isnan(v)]
        return sorted(legal, key=lambda av: -av[1])


@dataclasses.dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Agent]
    summary: str


_REGISTRY: dict[str, _Entry] = {}
_loaded = False


def register_agent(name: str, factory: Callable[..., Agent], summary: str = "") -> None:
    """Make ``factory`` available as ``make_agent(name)``; options become kwargs."""
    if name in _REGISTRY and _REGISTRY[name].factory is not factory:
        raise ValueError(f"agent name {name!r} is already registered")
    _REGISTRY[name] = _Entry(factory, summary or (factory.__doc__ or "").split("\n")[0])


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in _BUILTIN_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as err:  # an optional extra (e.g. torch) is missing
            if err.name and err.name.startswith("playahead"):
                raise


def available_agents() -> dict[str, str]:
    """Registered agent names with a one-line summary each."""
    _load_builtins()
    return {name: entry.summary for name, entry in sorted(_REGISTRY.items())}


def _parse_value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for cast in (int, float):
        try:
            return cast(text.replace("_", "")) if cast is int else cast(text)
        except ValueError:
            pass
    return text.strip()


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split a spec into a name and options.

    ``"mcts:n_simulations=400"`` -> ``("mcts", {"n_simulations": 400})``; values read as
    int, float, bool or None where they look like one. A spec is parsed once per
    process; each call gets its own dict.

    Raises:
        ValueError: the spec is empty or an option is not ``key=value``.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    name, options = _parsed(spec)
    return name, dict(options)


@functools.lru_cache(maxsize=256)
def _parsed(spec: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    if rest.strip():
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                raise ValueError(
                    f"agent spec {spec!r}: option {part!r} is not key=value "
                    "(example: 'mcts:n_simulations=400,c=1.4')"
                )
            options[key.strip()] = _parse_value(value)
    return name.strip(), tuple(options.items())


#: The default of an option that has none in :func:`agent_options`.
REQUIRED = inspect.Parameter.empty
#: An option name standing for "any option" in :func:`agent_options` (a factory that
#: takes ``**kwargs``).
ANY_OPTION = "**"


def agent_options(name: str) -> dict[str, Any]:
    """The options the agent ``name`` takes, each with its default (:data:`REQUIRED`
    where it has none): the fields of its settings record where its factory
    declares one (``Settings``, a dataclass, as ``expectimax`` does; its field
    docstrings are the options' help, :func:`playahead._options.field_docs`), else
    its factory's keyword parameters, ``seed`` included where it takes one. A
    factory that takes any option lists :data:`ANY_OPTION`. Empty for an unknown
    name.
    """
    _load_builtins()
    entry = _REGISTRY.get(name)
    if entry is None:
        return {}
    settings = getattr(entry.factory, "Settings", None)
    out = {}
    for p in inspect.signature(entry.factory).parameters.values():
        if p.kind is p.VAR_KEYWORD and settings is None:
            out[ANY_OPTION] = REQUIRED
        elif p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            out[p.name] = p.default
    for f in dataclasses.fields(settings) if settings is not None else ():
        out[f.name] = REQUIRED if f.default is dataclasses.MISSING else f.default
    return out


def takes_option(spec: str, option: str) -> bool:
    """Whether the agent named in ``spec`` accepts ``option`` (e.g. ``"seed"``);
    False for an unknown name (``make_agent`` then says what is accepted)."""
    declared = agent_options(parse_spec(spec)[0])
    return option in declared or ANY_OPTION in declared


def option_default(spec: str, option: str) -> Any:
    """The default of ``option`` of the agent named in ``spec`` (None for an unknown
    name, an option it does not take, or one without a default)."""
    default = agent_options(parse_spec(spec)[0]).get(option, REQUIRED)
    return None if default is REQUIRED else default


def check_spec(spec: str, **overrides: Any) -> tuple[str, dict[str, Any]]:
    """``(name, options)`` of ``spec`` once the name is registered and every option is
    one its factory takes (nothing is built: a spec can be checked before it is used).

    Raises:
        ValueError: malformed spec, unknown agent name or option; the message lists
            what is accepted.
    """
    name, options = parse_spec(spec)
    options.update(overrides)
    _load_builtins()
    if name not in _REGISTRY:
        raise ValueError(
            f"unknown agent {name!r}; available: {', '.join(sorted(_REGISTRY))}"
        )
    params = agent_options(name)
    if ANY_OPTION not in params:
        unknown = sorted(set(options) - set(params))
        if unknown:
            raise ValueError(
                f"agent {name!r} has no option(s) {', '.join(map(repr, unknown))}; "
                f"accepted: {', '.join(params) or '(none)'}"
            )
    return name, options


def resolved_options(spec: str, env_id: str | None = None) -> dict[str, Any]:
    """The options an agent of ``spec`` plays with on ``env_id``: the spec's options
    over its factory's defaults, then the game's defaults filled in by the factory's
    ``resolve_options(options, env_id)`` where it has one (nothing is built).

    ``seed`` is left out: the evaluator gives every game its own. Two specs with the
    same resolved options (and playahead version) play the same games, and a default
    that changes changes them (the evaluator's store keys games by them).

    Raises:
        ValueError: as :func:`check_spec`.
    """
    name, options = check_spec(spec)
    return resolve_named_options(name, options, env_id)


def resolve_named_options(
    name: str, options: dict[str, Any], env_id: str | None = None
) -> dict[str, Any]:
    """:func:`resolved_options` of agent ``name`` (registered) with ``options``
    (checked, e.g. by :func:`check_spec`) rather than a spec string."""
    _load_builtins()
    factory = _REGISTRY[name].factory
    out = {
        k: v
        for k, v in agent_options(name).items()
        if v is not REQUIRED and k != ANY_OPTION
    }
    out.update(options)
    resolve = getattr(factory, "resolve_options", None)
    if callable(resolve):
        out = resolve(out, env_id)
    out.pop("seed", None)
    return dict(sorted(out.items()))


def make_agent(spec: str | Agent, **overrides: Any) -> Agent:
    """Build an agent from a spec string (an agent object is returned unchanged).

    Args:
        spec: e.g. ``"random"``, ``"mc:n_rollouts=50"``, ``"mcts:n_simulations=400"``.
        **overrides: options that take precedence over the spec's (e.g. ``seed=3``).

    Raises:
        ValueError: unknown agent name or option; the message lists what is accepted.
    """
    if not isinstance(spec, str) and isinstance(spec, Agent):
        return spec
    name, options = check_spec(spec, **overrides)
    agent = _REGISTRY[name].factory(**options)
    if not getattr(agent, "spec", None):
        try:
            agent.spec = spec
        except AttributeError:
            pass
    return agent


def game_seeds(seed: int, game_index: int) -> tuple[int, int, int]:
    """``(env_seed, side_0_agent_seed, side_1_agent_seed)`` of game ``game_index`` of
    a seeded evaluation (``playahead evaluate --seed``).

    Derived from ``np.random.SeedSequence(seed).spawn(n)[game_index]`` (any ``n``), so
    adding games later never changes the earlier ones.
    """
    child = np.random.SeedSequence(int(seed), spawn_key=(int(game_index),))
    words = child.generate_state(3, np.uint64) >> np.uint64(1)  # fit SQLite INTEGER
    return int(words[0]), int(words[1]), int(words[2])


def build_agent(spec: str, seed: int):
    """A fresh agent from ``spec``, seeded with ``seed`` if its factory takes one.

    A ``seed`` option in the spec is mixed into ``seed`` (so ``"random:seed=1"`` and
    ``"random:seed=2"`` are two different, reproducible random players).

    Raises:
        ValueError: unknown agent or option (from :func:`playahead.make_agent`).
    """
    own = parse_spec(spec)[1].get("seed")
    if own is not None:
        if isinstance(own, bool) or not isinstance(own, int) or own < 0:
            raise ValueError(f"agent spec {spec!r}: seed must be an integer >= 0")
        mixed = np.random.SeedSequence([int(seed), own]).generate_state(1, np.uint64)
        seed = int(mixed[0] >> np.uint64(1))
    if takes_option(spec, "seed"):
        return make_agent(spec, seed=seed)
    return make_agent(spec)
