"""``evaluate(...)``: play every agent on the same seeded games, store each game as it
ends, and summarise.

Order of work: check the inputs (env, options, specs, store) and let every agent that
still has games to play choose one move on game 0, so a bad spec or an agent for the
wrong game fails in a second with a clear message; then play the games the store does
not hold yet, writing each one the moment it ends; then build the statistics from the
store. Re-running the same call therefore resumes an interrupted evaluation and gives
the same result as an uninterrupted one.

Stored games count only if the same agent played them: the same spec with the same
fully resolved options and playahead version (:mod:`.store`). Games of an agent whose
defaults changed since are played again, and the result's ``notes`` say why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import gymnasium as gym

from playahead.agents import parse_spec
from playahead.envs import registered_id
from playahead.evaluate.backends import BACKENDS, import_modules, run_tasks
from playahead.evaluate.play import Task, check_agent, make_env
from playahead.evaluate.report import EvaluationResult
from playahead.evaluate.store import Store, agent_identity, canonical_options
from playahead.evaluate.summary import build_result, round_robin


def evaluate(
    env_id: str,
    agents: Sequence[str],
    n_games: int = 100,
    seed: int = 0,
    *,
    env_kwargs: dict | None = None,
    store: str | Path | None = None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    imports: Sequence[str] = (),
    progress: bool = False,
    n_resamples: int = 2000,
) -> EvaluationResult:
    """Play ``agents`` head to head on ``env_id`` and summarise the results.

    One-player games (2048-v0, Threes-v0): every agent plays games ``0..n_games-1``;
    game ``i`` has the same seed for every agent (common random numbers), so pairwise
    differences are paired. Two-player games (TicTacToe-v0, ConnectFour-v0, Nim-v0,
    Chips-v0): a round robin in which every pair plays each game seed once from each
    side (``2 * n_games`` games per pair), with Elo ratings fitted to all games.

    Args:
        env_id: a registered Gymnasium id, or a playahead game's short name
            (``"connect4"``, :func:`playahead.envs.env_id_of`).
        agents: agent spec strings (``"random"``, ``"mc:n_rollouts=50"``, ...), all
            different; at least two for two-player games.
        n_games: games per agent (one-player) or game seeds per pair (two-player).
        seed: the root seed (``>= 0``); see :mod:`playahead.evaluate.play`.
        env_kwargs: options for ``gym.make`` (JSON-serialisable), e.g.
            ``{"bonus_preview": "plus"}``.
        store: SQLite file that keeps every finished game; re-running with the same
            store plays only the missing games. None keeps games in memory only.
        workers: processes for the local backend (1 = play in this process).
        backend: ``"local"`` or ``"ray"`` (see :mod:`playahead.evaluate.backends`).
        address: Ray cluster address for ``backend="ray"`` (None: a local Ray).
        imports: modules to import here and in every worker before building agents
            (where custom agents call ``register_agent``).
        progress: show a progress bar (games done, games/s, ETA) on stderr.
        n_resamples: bootstrap resamples for intervals (half of them for Elo).

    Returns:
        An :class:`~playahead.evaluate.report.EvaluationResult`.

    Raises:
        ValueError: unknown env or option, bad agent spec, an agent that cannot play
            this env, ``n_games < 1``, a store from another evaluation, ...
        playahead.evaluate.play.AgentError: an agent failed during a game (the games
            finished before it are kept in the store).
    """
    env_id = registered_id(env_id)
    specs = _check_specs(agents)
    n_games, seed, workers = _check_counts(n_games, seed, workers)
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r} is not one of {', '.join(BACKENDS)}")
    env_kwargs = dict(env_kwargs or {})
    options = canonical_options(env_kwargs)
    import_modules(imports)
    num_players, game_name = _inspect_env(env_id, env_kwargs)
    kind = "single" if num_players == 1 else "two_player"
    if kind == "two_player" and len(specs) < 2:
        raise ValueError(
            f"{env_id} is a two-player game: give at least two agents for a round "
            f"robin, got {specs}"
        )
    fresh = store is None or not Path(store).exists()
    if fresh:  # every agent plays: check them all before a store is made
        for spec in specs:
            check_agent(env_id, options, spec, kind == "two_player", seed)
    with Store(store or ":memory:", env_id, env_kwargs, seed, kind) as db:
        db.check_files(
            {spec: d for spec in specs if (d := file_fingerprint(spec)) is not None}
        )
        db.use_agents({spec: agent_identity(spec, env_id) for spec in specs})
        notes = db.notes()
        done = db.done()
        every = list(_all_tasks(env_id, options, specs, n_games, seed, kind))
        tasks = [t for t in every if t.key not in done]
        if not fresh:  # only the agents that still have games to play
            for spec in dict.fromkeys(s for t in tasks for s in t.agents):
                check_agent(env_id, options, spec, kind == "two_player", seed)
        bar = GameProgress(progress, env_id, len(every), len(every) - len(tasks))
        with bar as (advance, report):
            records = run_tasks(tasks, backend, workers, address, imports, report)
            for record in records:
                db.add(record)
                advance()
        result = build_result(
            db, specs, n_games, seed, kind, env_kwargs, game_name, n_resamples
        )
        result.notes = notes
        return result


def file_fingerprint(spec: str) -> str | None:
    """sha256 of the file an agent spec loads (its ``path=`` option, or one inside
    another option such as ``evaluator=ntuple:path=DIR``: a file, or a run folder's
    ``model.zip``, or every file directly in the folder), or None."""
    _, options = parse_spec(spec)
    found = options.get("path")
    for value in options.values():
        if found is None and isinstance(value, str) and ":path=" in value:
            found = value.split(":path=", 1)[1]
    if found is None:
        return None
    path = Path(str(found))
    if path.is_dir() and (path / "model.zip").is_file():
        files = [path / "model.zip"]
    elif path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file())
    elif path.is_file():
        files = [path]
    else:
        return None  # the agent itself says what is missing
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode() + b"\0")
        with open(file, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _check_specs(agents) -> list[str]:
    if isinstance(agents, str):
        agents = [agents]
    specs = []
    for spec in agents:
        if not isinstance(spec, str):
            raise ValueError(
                f"agents travel as spec strings (e.g. 'random', 'mc:n_rollouts=50'); "
                f"got {spec!r}. Register custom agents with playahead.register_agent "
                "and pass their names"
            )
        parse_spec(spec)
        specs.append(spec.strip())
    if not specs:
        raise ValueError("give at least one agent spec")
    dupes = sorted({s for s in specs if specs.count(s) > 1})
    if dupes:
        raise ValueError(f"agent specs must differ; repeated: {', '.join(dupes)}")
    return specs


def _check_counts(n_games, seed, workers) -> tuple[int, int, int]:
    for name, value, least in (
        ("n_games", n_games, 1),
        ("seed", seed, 0),
        ("workers", workers, 1),
    ):
        if isinstance(value, bool) or int(value) != value or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    return int(n_games), int(seed), int(workers)


def _inspect_env(env_id: str, env_kwargs: dict) -> tuple[int, str]:
    """``(num_players, game_name)``, or a clear error for a bad id or option."""
    if "opponent" in env_kwargs:
        raise ValueError(
            "env option 'opponent' cannot be set: the evaluator plays both sides of "
            "two-player games itself (turn by turn)"
        )
    try:
        spec = gym.spec(env_id)
    except gym.error.Error:
        ours = sorted(i for i in gym.registry if "/" not in i and _is_playahead(i))
        raise ValueError(
            f"unknown env {env_id!r}; playahead envs: {', '.join(ours)}"
        ) from None
    try:
        env = make_env(env_id, canonical_options(env_kwargs), two_player=False)
    except TypeError as err:
        raise ValueError(f"bad options {env_kwargs} for {spec.id}: {err}") from None
    base = env.unwrapped
    return int(getattr(base, "num_players", 1)), str(getattr(base, "game_name", ""))


def _is_playahead(env_id: str) -> bool:
    entry = gym.registry[env_id].entry_point
    return isinstance(entry, str) and entry.startswith("playahead.")


def _all_tasks(env_id, options, specs, n_games, seed, kind) -> Iterable[Task]:
    """Every game of the evaluation, interleaved by game index."""
    for i in range(n_games):
        if kind == "single":
            for spec in specs:
                yield Task(env_id, options, (spec,), i, 0, seed)
        else:
            for a, b in round_robin(specs):
                for side in (0, 1):
                    yield Task(env_id, options, (a, b), i, side, seed)


class GameProgress:
    """A rich progress bar on stderr (games done / total, games/s, ETA, and the games
    in flight with their moves and score so far), or nothing.

    Entering gives ``(advance, report)``: ``advance()`` counts a finished game;
    ``report(key, moves, score)`` updates a game in flight (``moves`` None: it ended).
    """

    def __init__(self, show: bool, env_id: str, total: int, done: int):
        self.show, self.env_id, self.total, self.done = show, env_id, total, done
        self.in_flight: dict = {}

    def report(self, key, moves, score) -> None:
        """Show game ``key`` in flight with its moves and score (``moves`` None: the
        game ended)."""
        if moves is None:
            self.in_flight.pop(key, None)
        else:
            self.in_flight[key] = (moves, score)

    def line(self) -> str:
        """``game 3: 812 moves, 45,210`` for each game in flight (at most three)."""
        games = sorted(self.in_flight.items())[:3]
        return "  ".join(
            f"game {key[2]}: {moves} moves, {score:,.0f}"
            for key, (moves, score) in games
        )

    def __enter__(self):
        if not self.show:
            return (lambda: None), None
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        class Rate(ProgressColumn):
            def render(self, task) -> Text:
                speed = task.finished_speed or task.speed
                return Text("- games/s" if speed is None else f"{speed:.2f} games/s")

        line = self.line

        class Playing(ProgressColumn):
            max_refresh = 0.5

            def render(self, task) -> Text:
                return Text(line(), style="dim")

        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            Rate(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            Playing(),
            console=Console(stderr=True),
        )
        self._bar.__enter__()
        task = self._bar.add_task(
            f"{self.env_id} games", total=self.total, completed=self.done
        )
        return (lambda: self._bar.advance(task)), self.report

    def __exit__(self, *exc) -> None:
        if self.show:
            self._bar.__exit__(*exc)


_progress = GameProgress  # the name it had before it was public
