"""``playahead export``: a game of an evaluation as a game file, by its index.

The evaluator's store and the strength records keep each game's seeds, not its moves:
game ``i`` of a run with root seed ``s`` is played from
``SeedSequence(s, spawn_key=(i,))`` (:func:`playahead.evaluate.play.game_seeds`), and
the agents' searches read no clock, so playing it again gives the same game. Export
plays it again, records every move and chance outcome
(:class:`playahead.tools.gamefile.Recorder`), checks that it ends as recorded (score
and moves), and writes the game file::

    playahead export --record benchmarks/results/strength/threes-default.json \\
        --index 7 --out game7.json
    playahead evaluate --env 2048-v0 --agents greedy --games 10 --seed 0 \\
        --out runs/eval.sqlite
    playahead export --store runs/eval.sqlite --index 7 --agent greedy --out g7.json
    playahead review game7.json
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

from playahead.tools import gamefile
from playahead.tools.games import get_game, make_env


def play_game(
    env_id: str,
    kwargs: dict,
    agents: tuple[str, ...],
    index: int,
    seed: int,
    side: int = 0,
) -> tuple[gamefile.GameFile, dict]:
    """Play game ``index`` of an evaluation again, recorded.

    Args:
        env_id: the env, e.g. ``"Threes-v0"``.
        kwargs: the env's options.
        agents: ``(spec,)``, or ``(agent, opponent)`` in two-player games.
        index: the game's index.
        seed: the evaluation's root seed.
        side: the side ``agents[0]`` played (two-player games).

    Returns:
        ``(game file, last info)``.
    """
    from playahead.agents import build_agent, game_seeds

    game = get_game(env_id)
    env_seed, *agent_seeds = game_seeds(seed, index)
    specs = list(agents) if side == 0 else list(reversed(agents))
    players = [build_agent(s, a) for s, a in zip(specs, agent_seeds, strict=False)]
    env = make_env(game, render_mode=None, **kwargs)
    _, info = env.reset(seed=env_seed)
    recorder = gamefile.Recorder(game.name, env, kwargs, env_seed, specs)
    while env.action_masks().any():
        player = int(getattr(env.unwrapped, "current_player", 0))
        _, _, _, _, info = recorder.step(int(players[player].act(env)))
    return recorder.game_file, info


def _check_end(game_file, info, score, moves, what: str) -> None:
    got = (len(game_file.moves), float(info.get("score", 0)))
    if get_game(game_file.game).num_players == 2:  # a score in points: moves only
        got, score = (got[0], 0.0), 0.0
    if got != (int(moves), float(score)):
        raise ValueError(
            f"{what} ends with {got[1]:,.0f} in {got[0]} moves, recorded "
            f"{float(score):,.0f} in {moves}: not today's agent's game (another "
            "version or default)"
        )


def from_record(path: str | Path, index: int) -> gamefile.GameFile:
    """Game ``index`` of a strength record (``benchmarks/results/strength/*.json``),
    played again.

    Raises:
        ValueError: not a strength record, no such game, or the game ends otherwise
            than recorded.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text())
        env_id, agent, seed = data["env"], data["agent"], int(data["seed"])
        rows = {int(g["index"]): g for g in data["games"]}
    except (json.JSONDecodeError, KeyError, TypeError, ValueError):
        raise ValueError(
            f"{path} is not a strength record (env, agent, seed, games)"
        ) from None
    if index not in rows:
        raise ValueError(f"{path} has no game {index} (games {min(rows)}-{max(rows)})")
    game_file, info = play_game(env_id, {}, (agent,), index, seed)
    row = rows[index]
    _check_end(game_file, info, row["score"], row["moves"], f"game {index}")
    return game_file


def from_store(
    path: str | Path, index: int, agent: str | None = None, side: int = 0
) -> gamefile.GameFile:
    """Game ``index`` of an evaluator store (``--out`` of ``playahead evaluate``),
    played again; ``agent`` picks the agent when the store holds several.

    Raises:
        ValueError: not a store, no such game, several agents and none chosen, or
            the game ends otherwise than stored.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no store {path}")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            rows = db.execute(
                "SELECT agent, opponent, side, score, moves FROM games "
                "WHERE game_index = ? AND side = ?",
                (int(index), int(side)),
            ).fetchall()
        finally:
            db.close()
    except sqlite3.DatabaseError as err:
        raise ValueError(f"{path} is not a playahead results store ({err})") from None
    rows = [r for r in rows if agent is None or r[0] == agent]
    if not rows:
        raise ValueError(
            f"{path} has no game {index} (side {side}) of {agent or 'any agent'}"
        )
    if len({r[:2] for r in rows}) > 1:
        names = sorted({r[0] + (f" vs {r[1]}" if r[1] else "") for r in rows})
        raise ValueError(
            f"{path} holds game {index} of several agents ({'; '.join(names)}): "
            "choose one with --agent"
        )
    spec, opponent, side, score, moves = rows[0]
    agents = (spec, opponent) if opponent else (spec,)
    kwargs = json.loads(meta["env_options"])
    game_file, info = play_game(
        meta["env_id"], kwargs, agents, index, int(meta["seed"]), side
    )
    _check_end(game_file, info, score, moves, f"game {index}")
    return game_file


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead export``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = "examples:\n" + __doc__.split("::\n\n")[1]
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--record", type=Path, help="a strength record (JSON)")
    source.add_argument("--store", type=Path, help="an evaluator store (SQLite)")
    parser.add_argument("--index", type=int, required=True, help="the game's index")
    parser.add_argument("--agent", help="store: the agent spec (when it holds several)")
    parser.add_argument(
        "--side", type=int, default=0, choices=(0, 1), help="store: the agent's side"
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="the game file to write"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``playahead export``."""
    if args.record is not None:
        game_file = from_record(args.record, args.index)
    else:
        game_file = from_store(args.store, args.index, args.agent, args.side)
    gamefile.save(game_file, args.out)
    print(f"{args.out}: {len(game_file.moves)} moves (playahead review {args.out})")
    return 0
