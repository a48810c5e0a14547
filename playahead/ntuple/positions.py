"""Real late-game Threes positions from seeded games, for training to start from.

``python -m playahead.ntuple.positions --agent SPEC --games N --seed S --out FILE``
plays games ``0 .. N-1`` of ``playahead evaluate --seed S`` (the same env and agent
seeds: :func:`playahead.agents.game_seeds`) and keeps, in each game, the position
where the largest card first reaches ``from_card``, then one every ``every`` moves, at
most ``per_game``, until the game ends. A position is what a player sees before a move:
the packed board and the cards word (deck counts and preview), i.e. what
:func:`playahead.games.threes.new_game` returns and ``clone_state()`` carries, never the
deck's order or the env's generator.

The file (``.npz``, read with ``allow_pickle=False`` by :func:`load_positions`) holds
``board: uint64[M]``, ``cards: int64[M]`` and, per position, ``game`` (the game index),
``move`` (moves played before it) and ``top`` (its largest card's rank); a JSON file
beside it (same name, ``.json``) records the command, the agent spec, the seed and every
game's score, largest card and length.

``--from-positions FILE`` plays game ``i`` on from position ``i`` of ``FILE`` instead
of from a new deal (a cheap way to many positions of one stage, all reached by the
agent's own play). ``--subset-of FILE`` plays nothing: it writes the positions of
``FILE`` whose largest card is at least ``--from-card`` (e.g. the 3072 and 6144
positions of a 1536 set, to train the late stages), its record naming ``FILE``'s
sha256 and command.

``--games-of RECORD --reaching CARD`` plays again only the games of a strength record
(``benchmarks/results/strength/*.json``, with its agent and seed) whose largest card
reached ``CARD``, and ``--stop`` ends each game once it has kept ``--per-game``
positions: ``--games-of benchmarks/results/strength/threes-default.json --from-card
6144 --per-game 1 --stop`` gives the position where each of the default's games first
made a 6144, to play on from (``--from-positions``) with another net or search;
``--games N`` keeps only the record's games ``0 .. N-1``. ``--stop-at CARD`` ends
each game before its first move with that card: played on from each game's first 3072
with ``--stop-at 6144``, the rows say how often the agent gets from there to 6144
(``max_tile``).
"""

from __future__ import annotations

import dataclasses
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from playahead.games import threes

#: Arrays of a positions file and their dtypes.
FIELDS = {
    "board": np.uint64,
    "cards": np.int64,
    "game": np.int32,
    "move": np.int32,
    "top": np.int8,
}
MAX_POSITIONS = 1_000_000


def _rank(card, name: str = "from_card") -> int:
    """The rank of Threes card value ``card`` (ValueError naming ``name`` if none)."""
    from playahead.games.threes import CARD_VALUES

    if card not in CARD_VALUES[3:]:
        raise ValueError(f"{name} {card!r} is not a Threes card (3, 6, ...)")
    return CARD_VALUES.index(card)


def collect_positions(
    agent: str,
    games: int | Sequence[int],
    seed: int = 0,
    *,
    from_card: int = 1536,
    every: int = 50,
    per_game: int = 40,
    progress: bool = False,
    starts: dict[str, np.ndarray] | None = None,
    stop: bool = False,
    stop_at: int | None = None,
) -> tuple[dict[str, np.ndarray], list[dict]]:
    """Play seeded Threes games with ``agent`` and keep late positions.

    Args:
        agent: an agent spec (e.g. ``"expectimax:depth=2,evaluator=features"``).
        games: how many games to play, ``0 .. games-1``, or the game indices to play
            (game ``i`` is game ``i`` of ``playahead evaluate``, so a strength
            record's games reaching a card can be played again to it).
        seed: the evaluation's root seed.
        from_card: keep positions from the move where the largest card first reaches
            this value (a card value: 1536, 3072, ...).
        every: moves between kept positions after the first.
        per_game: most positions kept from one game.
        progress: print a line per game.
        starts: positions (:func:`load_positions`) to play on from: game ``i``
            starts from position ``i`` (the env seeded as game ``i`` of the
            evaluation, so its cards are drawn afresh from the deck counts) and keeps
            one position every ``every`` moves from then on (not the start itself),
            while its largest card is at least ``from_card``. With game indices,
            the ``k``-th game played starts from position ``k``.
        stop: end each game once it has kept ``per_game`` positions (its row then
            gives the score and length where it stopped).
        stop_at: end each game before its first move with this card (a card value)
            on the board; its row's ``max_tile`` is then this card. Played on from
            ``starts`` with a larger ``stop_at`` than their cards, it measures how
            often play from them gets there, without playing on after it.

    Returns:
        ``(arrays, rows)``: the arrays of :data:`FIELDS` and one summary dict per game
        (index, env seed, score, max tile, moves, positions kept).

    Raises:
        ValueError: bad counts or a card value that is no Threes card.
    """
    from playahead.agents import build_agent, game_seeds

    indices = list(range(games)) if isinstance(games, int) else list(games)
    count = games if isinstance(games, int) else len(indices)
    for name, v in (("games", count), ("every", every), ("per_game", per_game)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    if any(isinstance(i, bool) or not isinstance(i, int) or i < 0 for i in indices):
        raise ValueError(f"game indices must be integers >= 0, got {games!r}")
    stop_rank = None if stop_at is None else _rank(stop_at, "stop_at")
    import gymnasium as gym

    import playahead.envs  # noqa: F401  (registers Threes-v0)

    first_rank = _rank(from_card)
    if starts is not None and len(indices) > starts["board"].size:
        raise ValueError(
            f"games {len(indices)} is more than the {starts['board'].size} start "
            "positions"
        )
    env = gym.make("Threes-v0")
    kept: dict[str, list] = {k: [] for k in FIELDS}
    rows = []
    for k, i in enumerate(indices):
        env_seed, agent_seed, _ = game_seeds(seed, i)
        env.reset(seed=env_seed)
        moves, taken, next_at = 0, 0, None
        if starts is not None:
            start = dataclasses.replace(
                env.unwrapped.clone_state(),
                board=int(starts["board"][k]),
                cards=int(starts["cards"][k]),
                moves=0,
            )
            env.unwrapped.restore_state(start)
            next_at = every
        player = build_agent(agent, agent_seed)
        info = {}
        while env.unwrapped.action_masks().any():
            state = env.unwrapped.clone_state()
            top = int(threes.max_rank(np.uint64(state.board)))
            if stop_rank is not None and top >= stop_rank:
                break
            if next_at is None and top >= first_rank:
                next_at = moves
            late = top >= first_rank
            if late and next_at is not None and moves == next_at and taken < per_game:
                for key, value in (
                    ("board", state.board),
                    ("cards", state.cards),
                    ("game", i),
                    ("move", moves),
                    ("top", top),
                ):
                    kept[key].append(value)
                taken += 1
                next_at += every
                if stop and taken == per_game:
                    break
            _, _, term, trunc, info = env.step(player.act(env))
            moves += 1
            if term or trunc:
                break
        row = {
            "index": i,
            "seed": env_seed,
            "score": int(info.get("score", 0)),
            "max_tile": int(info.get("max_tile", 0)),
            "moves": moves,
            "positions": taken,
        }
        rows.append(row)
        if progress:
            print(json.dumps(row), flush=True)
    arrays = {k: np.asarray(kept[k], dtype=t) for k, t in FIELDS.items()}
    return arrays, rows


def subset_positions(path: str | Path, from_card: int) -> dict[str, np.ndarray]:
    """The positions of file ``path`` whose largest card is at least ``from_card``
    (in the file's order).

    Raises:
        ValueError: a card value that is no Threes card, or what
            :func:`load_positions` refuses.
    """
    first_rank = _rank(from_card)
    arrays = load_positions(path)
    keep = arrays["top"] >= first_rank
    return {k: a[keep] for k, a in arrays.items()}


def save_positions(path: str | Path, arrays: dict[str, np.ndarray], record: dict):
    """Write ``arrays`` to ``path`` (``.npz``, compressed) and ``record`` beside it
    as ``.json``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **{k: arrays[k] for k in FIELDS})
    path.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")


def load_positions(path: str | Path) -> dict[str, np.ndarray]:
    """Read a positions file without pickle.

    Raises:
        ValueError: not an npz archive, pickled or missing arrays, wrong dtypes or
            lengths, too many positions, or a board that is no legal Threes board
            (a rank above 12288) or that has no legal move.
    """
    path = Path(path)
    try:
        with path.open("rb") as f:
            if f.read(4) != b"PK\x03\x04":
                raise ValueError(f"{path} cannot be read (not an npz archive)")
        with np.load(path, allow_pickle=False) as z:
            missing = set(FIELDS) - set(z.files)
            if missing:
                raise ValueError(
                    f"{path} is no positions file: lacks {sorted(missing)}"
                )
            arrays = {k: z[k] for k in FIELDS}
    except (OSError, zipfile.BadZipFile, EOFError) as err:
        raise ValueError(f"{path} cannot be read as a positions file ({err})") from err
    except ValueError as err:
        if "pickle" in str(err):
            raise ValueError(f"{path} holds pickled objects (refused)") from err
        raise
    n = arrays["board"].shape
    for key, dtype in FIELDS.items():
        a = arrays[key]
        if a.dtype != dtype or a.shape != n or a.ndim != 1:
            raise ValueError(f"{path}: {key} must be {np.dtype(dtype)}[M] like board")
    if n[0] > MAX_POSITIONS:
        raise ValueError(f"{path}: {n[0]} positions, at most {MAX_POSITIONS}")
    moves, rewards, _ = threes.tables(True)
    for j, (b, c) in enumerate(zip(arrays["board"], arrays["cards"], strict=True)):
        ones, twos, three, lo, hi = (int(x) for x in threes.unpack_cards(int(c)))
        if not (max(ones, twos, three) <= 4 and 1 <= lo <= hi <= threes.BONUS_MAX_RANK):
            raise ValueError(f"{path}: position {j} has no valid cards word")
        if threes.is_over(np.uint64(b), moves, rewards):
            raise ValueError(f"{path}: position {j} is over (no legal move)")
    return arrays


def _games_of(
    path: str, reaching: int, seed: int, agent: str | None, below: int | None = None
) -> tuple[list[int], str, dict]:
    """The indices of a strength record's games whose largest card reached
    ``reaching`` (of its games ``0 .. below-1`` only, if ``below`` is given), the
    record's agent, and what the positions record says of their source.

    Raises:
        ValueError: an unreadable record, one of another seed, agent or game, or no
            game that reached the card.
    """
    from playahead.ntuple.packaged import sha256_of

    _rank(reaching, "reaching")
    source = Path(path)
    try:
        data = source.read_bytes()
        record = json.loads(data)
        env = record.get("env")
        rows = record["games"]
        indices = [
            int(g["index"])
            for g in rows
            if int(g.get("max_tile", 0)) >= reaching
            and (below is None or int(g["index"]) < below)
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"{path} cannot be read as a strength record ({err})") from err
    if env != "Threes-v0":
        raise ValueError(f"{path} is a record of {env!r}, not of Threes-v0")
    if record.get("seed") != seed:
        raise ValueError(f"{path} was played at seed {record.get('seed')}, not {seed}")
    if agent is not None and agent != record.get("agent"):
        raise ValueError(
            f"{path} is a record of {record.get('agent')!r}; its games replay with "
            f"that agent, not {agent!r} (leave --agent out)"
        )
    if not indices:
        among = "" if below is None else f" below {below}"
        raise ValueError(f"no game of {path}{among} reached {reaching}")
    bound = {} if below is None else {"games_below": below}
    return (
        indices,
        str(record["agent"]),
        {
            "games_of": source.name,
            "games_of_sha256": sha256_of(data),
            "reaching": reaching,
            **bound,
        },
    )


def main(argv=None) -> int:
    import argparse
    import shlex
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m playahead.ntuple.positions",
        description="late-game Threes positions from seeded games",
    )
    parser.add_argument(
        "--agent",
        default=None,
        help="agent spec (default expectimax:depth=2,evaluator=features; with "
        "--games-of, the record's agent)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games 0 .. GAMES-1 (default 100); with --games-of, only the record's "
        "games among them",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--from-card", type=int, default=1536)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--per-game", type=int, default=40)
    parser.add_argument("--out", required=True, help="the .npz to write")
    parser.add_argument(
        "--from-positions",
        metavar="FILE",
        help="game i plays on from FILE's position i (keeping one every --every "
        "moves after it) instead of from a new deal",
    )
    parser.add_argument(
        "--games-of",
        metavar="RECORD",
        help="play the games of this strength record (its seed) that reached "
        "--reaching, instead of games 0 .. --games-1",
    )
    parser.add_argument(
        "--reaching",
        type=int,
        default=6144,
        help="with --games-of: the card a game must have reached (default 6144)",
    )
    parser.add_argument(
        "--stop",
        action="store_true",
        help="end each game once it has kept --per-game positions",
    )
    parser.add_argument(
        "--stop-at",
        type=int,
        metavar="CARD",
        help="end each game before its first move with this card on the board",
    )
    parser.add_argument(
        "--subset-of",
        metavar="FILE",
        help="play nothing: keep FILE's positions whose largest card is at least "
        "--from-card",
    )
    a = parser.parse_args(argv)
    args = sys.argv[1:] if argv is None else list(argv)
    command = "python -m playahead.ntuple.positions " + shlex.join(args)
    if a.subset_of is not None:
        from playahead.ntuple.packaged import sha256_of

        try:
            arrays = subset_positions(a.subset_of, a.from_card)
        except ValueError as err:
            parser.error(str(err))
        source = Path(a.subset_of)
        source_record = source.with_suffix(".json")
        record = {
            "command": command,
            "subset_of": source.name,
            "subset_of_sha256": sha256_of(source.read_bytes()),
            "subset_of_command": (
                json.loads(source_record.read_text()).get("command")
                if source_record.is_file()
                else None
            ),
            "from_card": a.from_card,
            "positions": int(arrays["board"].size),
        }
        save_positions(a.out, arrays, record)
        print(f"{arrays['board'].size} positions of {source.name} -> {a.out}")
        return 0
    starts, source = None, {}
    games = 100 if a.games is None else a.games
    agent = a.agent or "expectimax:depth=2,evaluator=features"
    try:
        if a.games_of is not None:
            games, agent, source = _games_of(
                a.games_of, a.reaching, a.seed, a.agent, below=a.games
            )
        if a.from_positions is not None:
            from playahead.ntuple.packaged import sha256_of

            starts = load_positions(a.from_positions)
            path = Path(a.from_positions)
            source = {
                **source,
                "from_positions": path.name,
                "from_positions_sha256": sha256_of(path.read_bytes()),
            }
        arrays, rows = collect_positions(
            agent,
            games,
            a.seed,
            from_card=a.from_card,
            every=a.every,
            per_game=a.per_game,
            progress=True,
            starts=starts,
            stop=a.stop,
            stop_at=a.stop_at,
        )
    except ValueError as err:
        parser.error(str(err))
    from playahead.agents import resolved_options

    record = {
        "command": command,
        "agent": agent,
        # what the spec meant when it played: a default may change later
        "options": resolved_options(agent, "Threes-v0"),
        "seed": a.seed,
        "from_card": a.from_card,
        "every": a.every,
        "per_game": a.per_game,
        "stop": a.stop,
        "stop_at": a.stop_at,
        **source,
        "positions": int(arrays["board"].size),
        "games": rows,
    }
    save_positions(a.out, arrays, record)
    print(f"{arrays['board'].size} positions from {len(rows)} games -> {a.out}")
    return 0


if __name__ == "__main__":
    from playahead._procs import reader_may_leave

    with reader_may_leave():
        code = main()
    raise SystemExit(code)
