"""What ``playahead play`` draws: the screen of a :class:`~.session.Session` as text.

Functions only read the session; they never change it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playahead.tools.games import strip_ansi

if TYPE_CHECKING:
    from playahead.tools.play.session import Session

KEYS = """keys:
  every game           h hint, p autoplay on/off, n new game, q quit
  threes, 2048         arrows or w/a/s/d slide the tiles
  tictactoe            digit of a cell (as drawn, from 0; boards up to 3x3) marks
                       it, or arrows/wasd move the cursor and Enter/space marks
  connect4             0-6 drop a disc in that column (as drawn), or left/right
                       move the cursor and Enter/space/down drops
  nim, chips           1-9 take that many, or up/down change the amount and
                       Enter/space takes"""

#: How each side is drawn in the two-player games (player 0, player 1).
SIDES = {
    "tictactoe": ("X", "O"),
    "connect4": ("X (red)", "O (yellow)"),
}


def side_name(game: str, side: int) -> str:
    """How ``side`` is drawn in ``game``: ``"X (red)"``, ``"O"``, ``"player 1"``."""
    return SIDES.get(game, ("player 0", "player 1"))[side]


def keys_help(game: str) -> str:
    """One line naming the keys of ``game``."""
    common = "h hint, p autoplay, n new game, q quit"
    moves = {
        "tictactoe": "digit or arrows+Enter: mark a cell",
        "connect4": "0-6 or left/right+Enter: drop a disc",
        "nim": "1-9 or up/down+Enter: take",
        "chips": "1-9 or up/down+Enter: take",
    }.get(game, "arrows or w/a/s/d: slide")
    return f"{moves}; {common}"


def selection(session: Session) -> str:
    """The cursor line of two-player games ("" for the tile games)."""
    name, cursor = session.game.name, session.cursor
    if name == "tictactoe":
        row, col = divmod(cursor, session.env.size)
        return f"cursor: cell {cursor} (row {row}, col {col})"
    if name == "connect4":
        return " " * (2 * cursor) + "^ cursor: column " + str(cursor)
    if name in ("nim", "chips"):
        return f"cursor: take {cursor}"
    return ""


def status(session: Session) -> str:
    """One line: which side the person plays, or how the game ended."""
    game = session.game
    if not session.done:
        if game.num_players == 2:
            you = side_name(game.name, session.side)
            first = "you move first" if session.side == 0 else "you move second"
            return f"you play {you} against {session.opponent_spec} ({first})"
        return ""
    if game.num_players == 1:
        score, top = session.info["score"], session.info["max_tile"]
        return f"game over: score {score}, max tile {top}"
    winner = session.env.winner
    if winner < 0:
        return "game over: draw"
    return f"game over: {'you win' if winner == session.side else 'you lose'}"


def screen(session: Session) -> str:
    """The text to draw (ANSI colours unless ``session.color`` is False)."""
    parts = [
        f"playahead play {session.game.name}  (game {session.games}, "
        f"autoplay {'on' if session.autoplay else 'off'})",
        session.env.render().rstrip("\n"),
        selection(session),
        "  ".join(reversed(session.history)),
        status(session),
        session.hint,
        session.message,
        keys_help(session.game.name),
    ]
    text = "\n".join(p for p in parts if p) + "\n"
    return text if session.color else strip_ansi(text)
