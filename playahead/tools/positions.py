"""Positions typed by hand, for ``playahead hint``: boards read from text, JSON or a
file, and checked and restored into a fresh env of the game.

A board is rows separated by ``/`` or new lines, cells by spaces or commas (``.`` is an
empty cell), or a JSON list of rows. Tile games take face values (Threes: 1, 2, 3, 6,
12, ...; 2048: 2, 4, 8, ...); tic-tac-toe and Connect Four take ``x``/``o`` (also
``r``/``y`` or ``1``/``2``; ``x`` moved first). Inputs are capped (:data:`MAX_PILE`,
:data:`MAX_BOARD_FILE`, :data:`MAX_CELL`, :data:`MAX_SCORE`): larger ones get a clear
``ValueError``, never a hang.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

GAMES = ("threes", "2048", "tictactoe", "connect4", "nim", "chips")
#: Caps on what a position may hold (larger inputs get a clear error, not a hang).
MAX_PILE = 100
MAX_BOARD_FILE = 64 * 1024  # bytes
MAX_CELL = 10**9
MAX_SCORE = 2**53
ALIASES = {
    "ttt": "tictactoe",
    "tic-tac-toe": "tictactoe",
    "connect_four": "connect4",
    "connect-four": "connect4",
    "c4": "connect4",
    "twenty48": "2048",
}
_EMPTY = {".", "-", "_", "0"}


def short_name(game: str) -> str:
    """The short name of ``game``: one of :data:`GAMES`, an alias, or any name
    :func:`playahead.envs.env_id_of` takes (``"ConnectFour-v0"`` -> ``"connect4"``).

    Raises:
        ValueError: unknown game; the message lists the short names.
    """
    if isinstance(game, str) and game in GAMES:  # already a short name
        return game
    from playahead.envs import game_name_of

    try:
        return game_name_of(ALIASES.get(str(game).lower(), str(game)))
    except ValueError:
        raise ValueError(
            f"unknown game {game!r}; choose from {', '.join(GAMES)}"
        ) from None


_MARKS = {"x": 1, "r": 1, "1": 1, "o": 2, "y": 2, "2": 2}


# ----------------------------------------------------------------- reading boards


def read_board(board) -> list[list[str]]:
    """Rows of cell tokens from a string (rows split by ``/`` or new lines, cells by
    spaces or commas; or JSON), a nested list or an array."""
    if isinstance(board, str):
        text = board.strip()
        if text.startswith("["):
            try:
                board = json.loads(text)
            except json.JSONDecodeError as err:
                raise ValueError(
                    f"the board looks like JSON but is not: {err}"
                ) from None
        else:
            rows = text.replace("\n", "/").split("/")
            return [r.replace(",", " ").split() for r in rows if r.strip()]
    try:
        return [[str(c).strip() for c in row] for row in board]
    except TypeError:
        raise ValueError(f"cannot read a board from {board!r}") from None


def _shape(rows: list[list[str]], n_rows: int, n_cols: int, what: str) -> None:
    if list(map(len, rows)) != [n_cols] * n_rows:
        found = ", ".join(str(len(r)) for r in rows)
        raise ValueError(
            f"{what} is {n_rows} rows of {n_cols} cells; got {len(rows)} rows with "
            f"{found} cells"
        )


def _numbers(rows: list[list[str]], what: str) -> np.ndarray:
    out = np.zeros((len(rows), len(rows[0])), dtype=np.int64)
    for r, row in enumerate(rows):
        for c, token in enumerate(row):
            if token in _EMPTY:
                continue
            try:
                value = int(token)
            except ValueError:
                raise ValueError(
                    f"{what}: cell {token!r} at row {r + 1}, column {c + 1} is not a "
                    "number ('.' or 0 for empty)"
                ) from None
            if not 0 <= value <= MAX_CELL:
                raise ValueError(
                    f"{what}: cell {token!r} at row {r + 1}, column {c + 1} is out of "
                    f"range (cells are 0 to {MAX_CELL:,}; '.' or 0 for empty)"
                )
            out[r, c] = value
    return out


def read_board_file(path: str | Path) -> str:
    """The text of a board file, read only up to :data:`MAX_BOARD_FILE` bytes.

    Raises:
        ValueError: the path is missing, a folder, unreadable, too large or not text.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"--board-file {path}: is a folder, not a file")
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BOARD_FILE + 1)
    except OSError as err:
        raise ValueError(
            f"--board-file {path}: cannot read it ({err.strerror})"
        ) from None
    if len(data) > MAX_BOARD_FILE:
        raise ValueError(
            f"--board-file {path}: more than {MAX_BOARD_FILE // 1024} KiB; a board "
            "file holds one board (a few lines of text)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"--board-file {path}: not a text file (UTF-8)") from None


def _marks(rows: list[list[str]], n_rows: int, n_cols: int, what: str) -> np.ndarray:
    """``int8[n_rows, n_cols]`` of 0 (empty), 1 (x, moved first) and 2 (o); a row may
    also be written without spaces (``"xo."``)."""
    rows = [list(r[0]) if len(r) == 1 and len(r[0]) > 1 else r for r in rows]
    _shape(rows, n_rows or len(rows), n_cols or len(rows), what)
    out = np.zeros((len(rows), len(rows[0])), dtype=np.int8)
    for r, row in enumerate(rows):
        for c, token in enumerate(row):
            t = token.lower()
            if t in _EMPTY:
                continue
            if t not in _MARKS:
                raise ValueError(
                    f"{what}: cell {token!r} at row {r + 1}, column {c + 1} is not "
                    "x, o (or r, y, 1, 2) or '.'"
                )
            out[r, c] = _MARKS[t]
    return out


def _counts_ok(cells: np.ndarray, names: tuple[str, str]) -> None:
    first, second = int(np.sum(cells == 1)), int(np.sum(cells == 2))
    if not 0 <= first - second <= 1:
        raise ValueError(
            f"{names[0]} moves first, so it has as many marks as {names[1]} or one "
            f"more; this board has {first} and {second}"
        )


# ----------------------------------------------------------------- positions


def _threes(board, next_card, deck):
    from playahead.envs.tiles import ThreesEnv, ThreesState
    from playahead.games import chance, threes

    rows = read_board(board)
    _shape(rows, 4, 4, "a Threes board")
    faces = _numbers(rows, "Threes")
    ranks = np.zeros((4, 4), dtype=np.uint8)
    for (r, c), v in np.ndenumerate(faces):
        ranks[r, c] = threes.face_to_rank(v, f"at row {r + 1}, column {c + 1}")
    if ranks.max() > threes.RANK_12288:
        raise ValueError("Threes cards go up to 12288")
    if next_card is None:
        raise ValueError(
            "Threes needs the previewed card: --next 1, 2 or 3, or the candidates of "
            "a bonus card such as 6,12,24"
        )
    lo, hi = _preview(next_card, int(ranks.max()))
    if deck is None:
        counts = chance.deck_after(lo)
    else:
        counts = _deck(deck, lo)
    env = ThreesEnv()
    env.reset(seed=0)
    cards = threes.pack_cards(*counts, lo, hi)
    env.restore_state(
        ThreesState(int(threes.pack(ranks)), int(cards), 0, "window", True)
    )
    ones, twos, threes_left = counts
    return env, f"next card {next_card}, deck 1s/2s/3s = {ones}/{twos}/{threes_left}"


def _preview(next_card, top_rank: int) -> tuple[int, int]:
    """Rank window of a preview: ``2 -> (2, 2)``; ``"6,12,24" -> (4, 6)``."""
    from playahead.games import threes

    text = str(next_card).replace(" ", "")
    try:
        ranks = [threes.face_to_rank(int(v), "in --next") for v in text.split(",")]
    except ValueError as err:
        raise ValueError(f"illegal preview {next_card!r}: {err}") from None
    if len(ranks) == 1 and 1 <= ranks[0] <= 3:
        return ranks[0], ranks[0]
    top = top_rank - 3  # a bonus card is at most the highest card / 8
    ok = (
        top_rank >= threes.BONUS_ELIGIBLE_RANK
        and len(ranks) <= 3
        and ranks == list(range(ranks[0], ranks[0] + len(ranks)))
        and threes.BONUS_MIN_RANK <= ranks[0]
        and ranks[-1] <= top
    )
    if not ok:
        raise ValueError(
            f"illegal preview {next_card!r}: the next card is 1, 2 or 3, or a bonus "
            "card shown as up to three consecutive values from 6 to the highest card "
            "/ 8 (bonus cards appear once the highest card is 48 or more)"
        )
    return ranks[0], ranks[-1]


def _deck(deck, preview_rank: int) -> list[int]:
    try:
        counts = [int(v) for v in str(deck).split(",")]
    except ValueError:
        counts = []
    if len(counts) != 3 or not all(0 <= c <= 4 for c in counts):
        raise ValueError(
            f"--deck {deck!r}: give the 1s, 2s and 3s left in the deck as three "
            "numbers from 0 to 4, e.g. 4,3,4"
        )
    if preview_rank <= 3 and counts[preview_rank - 1] == 4:
        raise ValueError(
            f"--deck {deck!r}: the previewed {preview_rank} came from the deck, so at "
            f"most three {preview_rank}s are left"
        )
    return counts


def _twenty48(board, score):
    from playahead.envs.tiles import Twenty48Env, Twenty48State
    from playahead.games import twenty48

    rows = read_board(board)
    _shape(rows, 4, 4, "a 2048 board")
    faces = _numbers(rows, "2048")
    for (r, c), v in np.ndenumerate(faces):
        if v and (v < 2 or v & (v - 1) or v > 32768):
            raise ValueError(
                f"2048 tile {v} at row {r + 1}, column {c + 1} is not a power of two "
                "from 2 to 32768 (0 or '.' = empty)"
            )
    packed = twenty48.from_faces(faces)
    if int(score) != score or not 0 <= score <= MAX_SCORE:
        raise ValueError(
            f"--score must be a whole number from 0 to 2**53, got {score!r}"
        )
    env = Twenty48Env()
    env.reset(seed=0)
    env.restore_state(Twenty48State(int(packed), int(score), 0))
    return env, f"score {int(score)}"


def _tictactoe(board):
    from playahead.envs.tictactoe import TicTacToeEnv

    cells = _marks(read_board(board), 0, 0, "a tic-tac-toe board (n rows of n)")
    if cells.shape[0] < 2:
        raise ValueError("a tic-tac-toe board has at least 2 rows of 2")
    _counts_ok(cells, ("x", "o"))
    env = TicTacToeEnv(size=cells.shape[0], opponent=None)
    env.reset(seed=0)
    state = env.clone_state()
    env.restore_state(
        dataclasses.replace(state, position=tuple(cells.ravel().tolist()))
    )
    return env, f"{'xo'[env.current_player]} to move"


def _connect4(board):
    from playahead.envs.connect_four import ConnectFourEnv
    from playahead.games import connect_four

    cells = _marks(read_board(board), 6, 7, "a Connect Four board (top row first)")
    for c in range(7):
        filled = (cells[::-1, c] != 0).astype(int)  # bottom up
        if (np.diff(filled) > 0).any():
            raise ValueError(f"column {c} has a disc above an empty cell")
    _counts_ok(cells, ("x", "o"))
    env = ConnectFourEnv(opponent=None)
    env.reset(seed=0)
    p0, p1 = connect_four.from_board(cells)
    state = env.clone_state()
    env.restore_state(dataclasses.replace(state, position=(int(p0), int(p1))))
    return env, f"{'xo'[env.current_player]} to move"


def _take_away(game, pile, k, misere, limit, held, rule):
    from playahead.envs.nim import ChipsEnv, NimEnv
    from playahead.games import nim

    if pile is None:
        raise ValueError(f"{game} needs --pile N (the sticks or chips left)")
    if not 1 <= pile <= MAX_PILE:
        raise ValueError(
            f"--pile {pile}: the hint takes piles from 1 to {MAX_PILE} (a larger game "
            "tree cannot be searched in time)"
        )
    if game == "nim":
        env = NimEnv(n=pile, k=k, misere=misere, opponent=None)
        env.reset(seed=0)
        return env, f"pile {pile}, take 1..{k}" + (" (misere)" if misere else "")
    mine, theirs = _held(held)
    if limit is not None and mine + theirs == 0:
        if rule != "last_chip":
            raise ValueError("with --limit, even_total needs --held MINE,THEIRS")
        theirs = (limit + 1) // 2  # the other player's last take made the limit
    env = ChipsEnv(n=pile + mine + theirs, rule=rule, opponent=None)
    env.reset(seed=0)
    if limit is not None or mine + theirs:
        cap = limit if limit is not None else env.n - 1
        position = (pile, 0, cap, mine, theirs, nim.CHIPS_RULES[rule])
        env.restore_state(dataclasses.replace(env.clone_state(), position=position))
    most = int(env.board[3])
    return env, f"pile {pile}, take 1..{most}, rule {rule}"


def _held(held) -> tuple[int, int]:
    if held is None:
        return 0, 0
    try:
        mine, theirs = (int(v) for v in str(held).split(","))
    except ValueError:
        raise ValueError(f"--held {held!r}: give MINE,THEIRS, e.g. 3,4") from None
    if mine < 0 or theirs < 0:
        raise ValueError(f"--held {held!r}: chip counts are >= 0")
    return mine, theirs


def position(
    game: str,
    board=None,
    next_card=None,
    *,
    deck=None,
    score: int = 0,
    pile: int | None = None,
    k: int = 3,
    misere: bool = False,
    limit: int | None = None,
    held=None,
    rule: str = "last_chip",
):
    """A fresh env restored to the position described (see the module docstring).

    Returns:
        ``(env, one-line description)``.

    Raises:
        ValueError: unknown game, or a malformed position (naming the problem).
    """
    name = short_name(game)
    if name in ("nim", "chips"):
        env, text = _take_away(name, pile, k, misere, limit, held, rule)
    elif board is None:
        raise ValueError(f"{name} needs a position: --board or --board-file")
    elif name == "threes":
        env, text = _threes(board, next_card, deck)
    elif name == "2048":
        env, text = _twenty48(board, score)
    elif name == "tictactoe":
        env, text = _tictactoe(board)
    else:
        env, text = _connect4(board)
    if not env.action_masks().any():
        raise ValueError("the game is over in this position: no legal move")
    return env, text
