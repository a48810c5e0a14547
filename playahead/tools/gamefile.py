"""Game files: a small versioned JSON record of one game that replays exactly.

A game file holds the env (its id and keyword arguments), the start, and every move
with the chance outcome that followed it, in a form the rules re-apply:

* 2048: ``{"action": 3, "cell": 13, "tile": 2}``: the move (0 up, 1 right, 2 down,
  3 left), then the cell (``4 * row + column``, from 0) where the new tile came in,
  and the tile (2 or 4).
* Threes: ``{"action": 3, "line": 2, "card": 1, "next": 2}``: the move, the line
  that the card came in on (rows for left/right, columns for up/down, from 0; one of
  the lines that moved), the card's value (the preview's, or one of a bonus
  preview's candidates), and the next preview (1, 2 or 3 from the counted deck, or a
  bonus card's candidates such as ``[6, 12, 24]``). A move that makes a 12288 ends
  the game: no card comes in (``{"action": 0}``).
* Tic-tac-toe, Connect Four, Nim, Chips: ``{"action": 4}`` (the env's action: cell,
  column, or sticks taken minus one).

The start: 2048 ``{"board": rows of faces, "score": 0}``; Threes ``{"board", "deck":
[1s, 2s, 3s left after the preview], "next"}``; the two-player games start from the
rules' empty position (``null``). ``seed``, when known, is the env's reset seed:
:func:`load` checks that it gives the recorded start.

A file::

    {"format": "playahead-game", "version": 1, "env": "2048-v0", "kwargs": {},
     "seed": 7, "start": {...}, "players": ["expectimax"], "moves": [...],
     "sha256": "..."}

``sha256`` is the hash of the rest (canonical JSON), so an edit by hand is found.
:func:`load` refuses, with a one-line ``ValueError``: a file over :data:`MAX_BYTES`,
one that is not JSON (a truncated file), another format or version, a wrong hash, a
game with no moves, and a move the rules rule out (named: ``move 12 (left): ...``).
:func:`save` writes a temporary file and renames it over the target, so an
interrupted write (even ``kill -9``) leaves the old file or the new one, never half.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from playahead.tools.games import TILE_ACTIONS, action_label, get_game, make_env

FORMAT = "playahead-game"
#: The version :func:`save` writes and :func:`load` reads.
VERSION = 1
#: The largest game file :func:`load` reads: 16 MiB (a 2048 game of 300,000 moves).
MAX_BYTES = 16 * 2**20

_KEYS = {"format", "version", "env", "kwargs", "seed", "start", "players", "moves"}


@dataclasses.dataclass
class GameFile:
    """One game, as :func:`save` writes it.

    Attributes:
        game: the tools' name of the game (``"threes"``; see
            :data:`playahead.tools.games.GAMES`).
        kwargs: the env's rule options, e.g. ``{"bonus_preview": "window"}``.
        start: the starting position (see the module docstring), None for the
            two-player games' empty position.
        moves: one dict per move: ``action`` and the chance outcome after it.
        seed: the env's reset seed when known.
        players: who played, as agent specs or ``"human"``.
    """

    game: str
    kwargs: dict[str, Any]
    start: dict[str, Any] | None
    moves: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    seed: int | None = None
    players: list[str] = dataclasses.field(default_factory=list)

    @property
    def env_id(self) -> str:
        """The Gymnasium id, e.g. ``"Threes-v0"``."""
        return get_game(self.game).env_id

    def to_json(self) -> dict[str, Any]:
        """The file's content, ``sha256`` included."""
        body = {
            "format": FORMAT,
            "version": VERSION,
            "env": self.env_id,
            "kwargs": self.kwargs,
            "seed": self.seed,
            "start": self.start,
            "players": self.players,
            "moves": self.moves,
        }
        return body | {"sha256": _digest(body)}


def _digest(body: dict) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# ----------------------------------------------------------------- positions


def new_env(game_file: GameFile):
    """A fresh env of the file's game and rules at its start.

    Raises:
        ValueError: unknown game or rule option, or a malformed start.
    """
    env = make_env(game_file.game, render_mode="ansi", **game_file.kwargs)
    env.reset(seed=game_file.seed if game_file.seed is not None else 0)
    name = get_game(game_file.game).name
    if name in ("threes", "2048"):
        if game_file.start is None:
            raise ValueError(f"a {name} game file needs a start")
        env.unwrapped.restore_state(_start_state(name, env, game_file.start))
    elif game_file.start is not None:
        raise ValueError(f"a {name} game starts from the empty position (start null)")
    return env


def start_of(env) -> dict[str, Any] | None:
    """The start of a game file for ``env``'s position (None for two-player games)."""
    base = env.unwrapped
    if base.num_players == 2:
        return None
    board = base.board.tolist()
    if base.game_name == "2048":
        return {"board": board, "score": int(base.clone_state().score)}
    ones, twos, threes_left, _, _ = base._card_fields()
    return {"board": board, "deck": [ones, twos, threes_left], "next": _next(base)}


def _next(base) -> int | list[int]:
    card = base.next_card
    return list(card) if isinstance(card, tuple) else int(card)


def _start_state(name: str, env, start):
    from playahead.envs.tiles import ThreesState, Twenty48State
    from playahead.games import threes, twenty48
    from playahead.tools.positions import _numbers, _shape

    if not isinstance(start, dict) or not isinstance(start.get("board"), list):
        raise ValueError("the start is not {'board': rows, ...}")
    rows = [
        [str(c) for c in row] if isinstance(row, list) else [] for row in start["board"]
    ]
    _shape(rows, 4, 4, f"a {name} start board")
    faces = _numbers(rows, name)
    if name == "2048":
        score = start.get("score", 0)
        if not isinstance(score, int) or isinstance(score, bool) or score < 0:
            raise ValueError(f"start score must be a whole number >= 0, got {score!r}")
        return Twenty48State(int(twenty48.from_faces(faces)), score, 0)
    deck, lo, hi = start.get("deck"), *_preview_ranks(start.get("next"))
    ok = isinstance(deck, list) and len(deck) == 3
    if not ok or not all(isinstance(c, int) and 0 <= c <= 4 for c in deck):
        raise ValueError(f"start deck must be three counts from 0 to 4, got {deck!r}")
    base = env.unwrapped
    cards = threes.pack_cards(*deck, lo, hi)
    board = int(threes.from_faces(faces))
    return ThreesState(board, int(cards), 0, base.bonus_preview, base.merge_6144)


def _preview_ranks(value) -> tuple[int, int]:
    """Rank window of a recorded preview: ``2 -> (2, 2)``, ``[6, 12, 24] -> (4, 6)``."""
    from playahead.games import threes

    values = value if isinstance(value, list) else [value]
    try:
        ranks = [threes.face_to_rank(v) for v in values]
    except (ValueError, TypeError):
        ranks = []
    basic = len(ranks) == 1 and 1 <= ranks[0] <= 3
    bonus = (
        1 <= len(ranks)
        and ranks[0] >= threes.BONUS_MIN_RANK
        and ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    )
    if not (basic or bonus):
        raise ValueError(
            f"next card {value!r} is not 1, 2, 3 or a bonus card's candidates "
            "(consecutive values from 6, e.g. [6, 12, 24])"
        )
    return ranks[0], ranks[-1]


# ----------------------------------------------------------------- chance


def chance_of(env, before, action: int, after) -> dict[str, Any]:
    """The move dict of ``action`` played from state ``before`` to state ``after``
    in ``env``'s game (its chance outcome read off the two states)."""
    from playahead.games import threes

    base = env.unwrapped
    move = {"action": int(action)}
    if base.num_players == 2:
        return move
    name = base.game_name
    slid = _slide(base, before.board, action)[0]
    new = np.uint64(after.board) ^ np.uint64(slid)
    if new == 0:  # a 12288 ended the game: no card came in
        return move
    cell = (int(new).bit_length() - 1) // 4
    rank = (int(after.board) >> (4 * cell)) & 15
    if name == "2048":
        return move | {"cell": cell, "tile": 1 << rank}
    line = next(i for i in range(4) if _far_cell(action, i) == cell)
    _, _, _, lo, hi = threes.unpack_cards(after.cards)
    nxt = int(lo) if lo == hi and lo <= 3 else list(threes.CARD_VALUES[lo : hi + 1])
    return move | {"line": line, "card": threes.CARD_VALUES[rank], "next": nxt}


def _far_cell(action: int, line: int) -> int:
    """The cell where a Threes card comes in on ``line`` after ``action``: the far
    end of the line from the wall the cards moved toward."""
    from playahead.games._board64 import line_cell

    r, c = line_cell(action, line, 3)
    return 4 * int(r) + int(c)


def _slide(base, board, action: int) -> tuple[np.uint64, int, int]:
    """``(board after the slide, moved lines as bits, reward)``."""
    from playahead.games import twenty48
    from playahead.games._board64 import move_rows

    tables = twenty48.TABLES if base.game_name == "2048" else base.tables[:2]
    after, moved, reward = move_rows(np.uint64(board), int(action), *tables)
    return np.uint64(after), int(moved), int(reward)


def apply_move(env, move) -> None:
    """Play ``move`` (a move dict) on ``env``: the action, then its recorded chance
    outcome (``env`` is restored to the state the rules give).

    Raises:
        ValueError: the move is malformed, or the rules (or Threes' deck count) rule
            it out; the message says why, without the move's number.
    """
    base = env.unwrapped
    if not isinstance(move, dict):
        raise ValueError(f"a move is an object with an action, got {move!r}")
    action = move.get("action")
    n = base.action_space.n
    if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < n:
        raise ValueError(f"action {action!r} is not an action of the game (0-{n - 1})")
    if not base.action_masks()[action]:
        raise ValueError("not a legal move in this position")
    if base.num_players == 2:
        if set(move) != {"action"}:
            raise ValueError(f"unexpected fields {sorted(set(move) - {'action'})}")
        base.step(action)
        return
    if base.game_name == "2048":
        state = _twenty48_after(base, move)
    else:
        state = _threes_after(base, move)
    base.restore_state(state)


def _check_fields(move: dict, fields: set[str]) -> None:
    if set(move) != fields:
        raise ValueError(f"a move has the fields {sorted(fields)}, got {sorted(move)}")


def _twenty48_after(base, move):
    from playahead.envs.tiles import Twenty48State
    from playahead.games._board64 import get_cell, set_cell

    _check_fields(move, {"action", "cell", "tile"})
    before = base.clone_state()
    slid, _, reward = _slide(base, before.board, move["action"])
    cell, tile = move["cell"], move["tile"]
    if not isinstance(cell, int) or not 0 <= cell < 16:
        raise ValueError(f"cell {cell!r} is not a cell (0-15, 4 * row + column)")
    if get_cell(slid, cell) != 0:
        raise ValueError(
            f"the new tile came in on cell {cell} (row {cell // 4}, column "
            f"{cell % 4}), which is not empty after the move"
        )
    if tile not in (2, 4) or isinstance(tile, bool):
        raise ValueError(f"a new tile is 2 or 4, got {tile!r}")
    board = set_cell(slid, cell, tile // 2)
    return Twenty48State(int(board), before.score + reward, before.moves + 1)


def _threes_after(base, move):
    from playahead.envs.tiles import ThreesState
    from playahead.games import threes
    from playahead.games._board64 import max_rank, set_cell

    before = base.clone_state()
    action = move["action"]
    slid, moved, _ = _slide(base, before.board, action)
    ones, twos, threes_left, lo, hi = (
        int(x) for x in threes.unpack_cards(before.cards)
    )
    if max_rank(slid) == threes.RANK_12288:
        _check_fields(move, {"action"})
        return dataclasses.replace(before, board=int(slid), moves=before.moves + 1)
    _check_fields(move, {"action", "line", "card", "next"})
    lines = [i for i in range(4) if moved >> i & 1]
    line = move["line"]
    if line not in lines or isinstance(line, bool):
        raise ValueError(
            f"the card came in on line {line!r}, which did not move (lines that "
            f"moved: {', '.join(map(str, lines))})"
        )
    card = move["card"]
    allowed = threes.CARD_VALUES[lo : hi + 1]
    if card not in allowed or isinstance(card, bool):
        shown = ", ".join(map(str, allowed))
        raise ValueError(
            f"the card that came in was {card!r}; the preview said {shown}"
        )
    board = set_cell(slid, _far_cell(action, line), threes.CARD_VALUES.index(card))
    cards = next_cards(board, (ones, twos, threes_left), move["next"], base)
    return ThreesState(
        int(board),
        int(cards),
        before.moves + 1,
        before.bonus_preview,
        before.merge_6144,
    )


def next_cards(board, deck: tuple[int, int, int], nxt, base) -> int:
    """The Threes cards word after ``nxt`` was previewed on ``board`` (the board
    after the card came in), from the deck counts ``deck`` before the draw: one of
    :func:`playahead.games.chance.preview_outcomes`.

    Raises:
        ValueError: the deck count or the bonus rule rules ``nxt`` out.
    """
    from playahead.games import chance

    lo, hi = _preview_ranks(nxt)
    before = chance.pack_cards(*deck, 0, 0)
    model = chance.BONUS_PREVIEWS[base.bonus_preview]
    outcomes, _ = chance.preview_outcomes(np.uint64(board), before, model)
    for cards in outcomes:
        if int(cards) >> 9 == lo | hi << 4:
            return int(cards)
    raise ValueError(
        chance.preview_problem(board, before, lo, hi, base.bonus_preview, repr(nxt))
    )


# ----------------------------------------------------------------- recording


class Recorder:
    """Records a game as it is played: make it at the start, call :meth:`step`
    instead of ``env.step``; :attr:`game_file` is the game so far, and with ``path``
    the file is written (atomically) after every move.

    Args:
        game: the tools' name of the game.
        env: the env, reset (its position is the start).
        kwargs: the env's rule options.
        seed: the env's reset seed, if known.
        players: who plays (agent specs or ``"human"``).
        path: write the file here after every move (None: keep it in memory).
    """

    def __init__(self, game, env, kwargs=None, seed=None, players=(), path=None):
        self.env = env
        self.path = None if path is None else Path(path)
        self.game_file = GameFile(
            get_game(game).name,
            dict(kwargs or {}),
            start_of(env),
            [],
            seed,
            list(players),
        )

    def step(self, action: int):
        """``env.step(action)``, recording the move and its chance outcome."""
        base = self.env.unwrapped
        before = base.clone_state()
        legal = bool(base.action_masks()[action])
        out = self.env.step(action)
        if legal:
            self.game_file.moves.append(
                chance_of(base, before, action, base.clone_state())
            )
            if self.path is not None:
                save(self.game_file, self.path)
        return out


# ----------------------------------------------------------------- files


def check_folder(path: str | Path | None) -> None:
    """Refuse, before a game starts, a game file ``path`` whose folder does not exist
    (None: no file).

    Raises:
        ValueError: the folder is missing.
    """
    if path is not None and not Path(path).resolve().parent.is_dir():
        raise ValueError(f"cannot write {path}: no folder {Path(path).parent}")


def save(game_file: GameFile, path: str | Path) -> Path:
    """Write ``game_file`` to ``path`` atomically (a temporary file in the same
    folder, flushed to disk, then renamed over ``path``)."""
    path = Path(path)
    text = json.dumps(game_file.to_json(), separators=(",", ":")) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def parse(text: str, where: str = "the game file", empty_ok: bool = False) -> GameFile:
    """A :class:`GameFile` from JSON text, checked as :func:`load` checks a file.

    Raises:
        ValueError: one line saying what is wrong (see the module docstring).
    """
    return parse_replayed(text, where, empty_ok)[0]


def parse_replayed(
    text: str, where: str = "the game file", empty_ok: bool = False
) -> tuple[GameFile, list]:
    """:func:`parse`, and the game's states (as :func:`replay` gives them), from
    one replay.

    Raises:
        ValueError: one line saying what is wrong (see the module docstring).
    """
    if len(text) > MAX_BYTES:
        raise ValueError(f"{where} is over {MAX_BYTES // 2**20} MiB: not a game file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{where} is not complete JSON ({err.msg} at line {err.lineno}): "
            "truncated or damaged"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where} is not a playahead game file (no format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise ValueError(
            f"{where} is a version {data.get('version')!r} game file; this playahead "
            f"reads version {VERSION}"
        )
    body = {k: v for k, v in data.items() if k != "sha256"}
    if set(body) != _KEYS:
        raise ValueError(
            f"{where} has the fields {sorted(data)}; expected "
            f"{sorted(_KEYS | {'sha256'})}"
        )
    if data.get("sha256") != _digest(body):
        raise ValueError(
            f"{where} was changed after it was written (its sha256 does not match)"
        )
    game = get_game(data["env"])
    if not isinstance(data["kwargs"], dict) or not isinstance(data["moves"], list):
        raise ValueError(f"{where}: kwargs must be an object and moves a list")
    if not isinstance(data["players"], list):
        raise ValueError(f"{where}: players must be a list of agent specs")
    seed = data["seed"]
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ValueError(f"{where}: seed must be an integer or null, got {seed!r}")
    game_file = GameFile(
        game.name,
        data["kwargs"],
        data["start"],
        data["moves"],
        seed,
        [str(p) for p in data["players"]],
    )
    if not game_file.moves and not empty_ok:
        raise ValueError(f"{where} holds a game with no moves")
    return game_file, replay(game_file)


def load(path: str | Path, empty_ok: bool = False) -> GameFile:
    """Read and check a game file: it must replay (see the module docstring); a
    game with no moves is refused unless ``empty_ok`` (``assist`` resumes one).

    Raises:
        ValueError: one line naming what is wrong (the first move that fails).
        FileNotFoundError: no such file.
    """
    path = Path(path)
    if path.stat().st_size > MAX_BYTES:
        raise ValueError(f"{path} is over {MAX_BYTES // 2**20} MiB: not a game file")
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not text: not a game file") from None
    except IsADirectoryError:
        raise ValueError(f"{path} is a folder, not a game file") from None
    except PermissionError:
        raise ValueError(f"{path} cannot be read (permission denied)") from None
    return parse(text, str(path), empty_ok)


def replay(game_file: GameFile) -> list:
    """The states of the game: ``states[i]`` before move ``i`` (from 0), and the
    final state last (``len(moves) + 1`` states, from ``clone_state()``).

    Raises:
        ValueError: the start is malformed, or a move does not replay: ``move N
            (left): why`` (N from 1).
    """
    env = new_env(game_file)
    base = env.unwrapped
    if game_file.seed is not None and game_file.start is not None:
        fresh = make_env(game_file.game, **game_file.kwargs)
        fresh.reset(seed=game_file.seed)
        if start_of(fresh) != game_file.start:
            raise ValueError(f"the start is not the one seed {game_file.seed} gives")
    states = [base.clone_state()]
    for i, move in enumerate(game_file.moves):
        action = move.get("action") if isinstance(move, dict) else None
        label = (
            action_label(env, action)
            if isinstance(action, int) and 0 <= action < base.action_space.n
            else repr(action)
        )
        if not base.action_masks().any():
            raise ValueError(f"move {i + 1} ({label}): the game was already over")
        try:
            apply_move(env, move)
        except ValueError as err:
            raise ValueError(f"move {i + 1} ({label}): {err}") from None
        states.append(base.clone_state())
    return states


def position_env(game_file: GameFile, state):
    """A fresh env of the file's game at ``state`` (one of :func:`replay`'s)."""
    env = make_env(game_file.game, render_mode="ansi", **game_file.kwargs)
    env.reset(seed=0)
    env.unwrapped.restore_state(state)
    return env


def move_name(game: str, action: int) -> str:
    """A move's short name: ``"left"``, ``"cell 4"``, ``"col 3"``, ``"take 2"``."""
    name = get_game(game).name
    if name in ("threes", "2048"):
        return TILE_ACTIONS[action]
    return {"tictactoe": "cell {}", "connect4": "col {}"}.get(name, "take {}").format(
        action + (name in ("nim", "chips"))
    )
