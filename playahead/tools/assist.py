"""``playahead assist threes|2048``: follow a game played on another device.

You enter the board once (``--board``, or at the prompt: one line with the rows split
by ``/``, or four lines of four cells; Threes also the preview: ``--next``, or the next
line). Threes' deck: a new game deals 9 cards from the 12-card deck and previews the
10th, so on a fresh deal (nine 1s, 2s and 3s) the deck is counted from the board and
the preview; on another board give ``--deck`` as in ``playahead hint``, or answer the
prompt (Enter: a fresh deck less the preview). Then, after each move, one short line
says what happened; playahead keeps the board, counts Threes' deck, and shows every
move's expected final score (:mod:`playahead.tools.calibration`) and the best move,
listed first on a tie.

An entry, spaces ignored (the swipe may be left out: it is then the suggested move):

* the swipe: ``h`` left, ``j`` down, ``k`` up, ``l`` right (vim's keys), or a word
  (``left``, ``up``, ...);
* 2048: the cell where the new tile came in, one key laid out like the board on the
  left of the keyboard (``1234`` the top row, ``qwer``, ``asdf``, ``zxcv`` the bottom
  row), then ``4`` when the tile was a 4; the cell may be left out when one cell was
  empty (``h4`` = swiped left, a 4 came in on the one empty cell). ``q`` = a 2 came in
  at row 2, column 1; ``jv4`` = swiped down, a 4 came in at the bottom right.
* Threes: the line the card came in on (``1``-``4``: rows from the top after a left
  or right swipe, columns from the left after up or down; left out when one line
  moved), the next preview: ``1``, ``2`` or ``3``, or ``+`` for a bonus card (``+6``:
  its lowest candidate, when the window is not the only one possible; left out when
  the deck count and the bonus rule leave one card), and ``=VALUE`` when the preview
  was a bonus card (which of its candidates came in). ``32`` = the card came in on
  line 3, the next card is a 2; ``h1+`` = swiped left, line 1, a bonus card is next;
  ``13=12`` = line 1, next a 3, the bonus card that came in was a 12.
* ``u`` undoes the last move.

An empty entry (Enter alone) takes every default: the suggested move, and where the
card or tile came in when only one place was possible.

An entry that the rules or the deck count rule out gets one line saying why, and
nothing changes. The game file (:mod:`playahead.tools.gamefile`; ``--save``, by default
``assist-GAME.json``) is written after every move (atomically), so a ``kill -9`` loses
nothing: ``--resume FILE`` goes on, and ``playahead review FILE`` reviews the game. A
new game never overwrites a game file (it is refused, naming ``--resume``), and Ctrl-C
names the file and how to resume it. Steps are read from standard input line by
line, so a script can drive it.

``--keys-of GAME_FILE`` prints the shortest entries that replay a recorded game, one a
move, and the keys typed per move (Enter included), for the suggested moves of
``--agent``.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from playahead.tools import gamefile
from playahead.tools.calibration import calibrate
from playahead.tools.gamefile import check_folder
from playahead.tools.games import (
    TILE_ACTIONS,
    action_label,
    format_value,
    strip_ansi,
    value_unit,
)

#: The swipe keys (vim's): action -> key, in the env's action order (up, right, down,
#: left).
SWIPE_KEYS = "kljh"
#: 2048's cells as keys laid out like the board: ``GRID[4 * row + column]``.
GRID = "1234qwerasdfzxcv"
UNDO = "u"
_THREES = re.compile(r"^(?P<line>[1-4])?(?P<next>[123]|\+\d*)?(?:=(?P<card>\d+))?$")


class Assistant:
    """A game followed move by move: :meth:`enter` takes one entry line.

    Args:
        game_file: the game so far (its moves may be empty).
        agent: the planner spec whose values are shown (default: ``hint``'s).
        path: write the game file here after every move (None: do not).
        seed: the planner's seed.
        planner: a planner built by the caller (``False``: none; entries then name
            the swipe, or the caller sets :attr:`suggested`).

    Raises:
        ValueError: the game is not Threes or 2048, does not replay, or the agent
            cannot analyze.
    """

    def __init__(
        self,
        game_file: gamefile.GameFile,
        agent=None,
        path=None,
        seed=0,
        planner=None,
    ):
        from playahead.tools.review import review_agent

        if game_file.game not in ("threes", "2048"):
            raise ValueError(f"assist follows threes and 2048, not {game_file.game}")
        self.game_file = game_file
        self.states = gamefile.replay(game_file)
        self.env = gamefile.new_env(game_file)
        self.env.unwrapped.restore_state(self.states[-1])
        self.path = None if path is None else Path(path)
        if planner is None:
            self.spec, self.planner = review_agent(game_file.game, agent, seed)
        else:
            self.spec, self.planner = agent, planner or None
        self.analysis = None
        #: The move an entry without a swipe means (the planner's choice).
        self.suggested: int | None = None
        self._save()
        self._analyze()

    @property
    def over(self) -> bool:
        """True once no move is legal."""
        return not self.env.action_masks().any()

    @property
    def suggestion(self) -> int | None:
        """The move an entry without a swipe means (None once the game is over)."""
        return self.suggested

    def _analyze(self) -> None:
        self.analysis = self.suggested = None
        if self.planner is not None and not self.over:
            analysis = self.planner.analyze(self.env)
            self.analysis = calibrate(self.env, analysis, self.planner)
            self.suggested = int(self.analysis.action)

    def _save(self) -> None:
        if self.path is not None:
            gamefile.save(self.game_file, self.path)

    def screen(self) -> str:
        """The board, (Threes) the preview and the counted deck, and every move's
        value with the suggestion."""
        base = self.env.unwrapped
        lines = [strip_ansi(self.env.render()).rstrip("\n")]
        if self.game_file.game == "threes":
            ones, twos, threes_left, _, _ = base._card_fields()
            lines.append(
                f"deck after the preview: 1s/2s/3s {ones}/{twos}/{threes_left}"
            )
        if self.over:
            lines.append(f"game over after {len(self.game_file.moves)} moves")
        elif self.analysis is not None:
            lines.append(values_line(self.env, self.analysis))
            name = TILE_ACTIONS[self.suggestion]
            lines.append(
                f"play {name} ({SWIPE_KEYS[self.suggestion]}), then enter what came in"
            )
        return "\n".join(lines)

    def enter(self, line: str) -> str:
        """Take one entry (see the module docstring); return what to show: the new
        screen, or one line saying why the entry changes nothing.
        """
        text = "".join(line.split()).lower()
        if text == UNDO:
            return self.undo()
        if self.over:
            return f"the game is over: {UNDO} undoes the last move"
        try:
            move = self.parse(text)
            gamefile.apply_move(self.env, move)
        except ValueError as err:
            self.env.unwrapped.restore_state(self.states[-1])
            return f"not taken: {err}"
        self.game_file.moves.append(move)
        self.states.append(self.env.unwrapped.clone_state())
        self._save()
        self._analyze()
        return self.screen()

    def undo(self) -> str:
        """Take back the last move."""
        if not self.game_file.moves:
            return "nothing to undo"
        self.game_file.moves.pop()
        self.states.pop()
        self.env.unwrapped.restore_state(self.states[-1])
        self._save()
        self._analyze()
        return self.screen()

    # ----------------------------------------------------------------- entries

    def parse(self, text: str) -> dict:
        """The move dict of an entry (spaces removed, lower case).

        Raises:
            ValueError: the entry cannot be read, or leaves a choice open.
        """
        action, rest = self._swipe(text)
        base = self.env.unwrapped
        if not base.action_masks()[action]:
            raise ValueError(f"{TILE_ACTIONS[action]} does not move anything here")
        if self.game_file.game == "2048":
            return {"action": action} | self._twenty48(action, rest)
        return {"action": action} | self._threes(action, rest)

    def _swipe(self, text: str) -> tuple[int, str]:
        for action, word in enumerate(TILE_ACTIONS):
            if text.startswith(word):
                return action, text[len(word) :]
        if text[:1] and text[0] in SWIPE_KEYS:
            return SWIPE_KEYS.index(text[0]), text[1:]
        if self.suggestion is None:
            raise ValueError("say which way you swiped first: h, j, k or l")
        return self.suggestion, text

    def _twenty48(self, action: int, rest: str) -> dict:
        slid = gamefile._slide(self.env.unwrapped, self.states[-1].board, action)[0]
        empty = [c for c in range(16) if (int(slid) >> (4 * c)) & 15 == 0]
        if len(empty) == 1 and rest in ("", "2", "4"):
            # one empty cell: the cell goes without saying, a lone 4 is the tile
            return {"cell": empty[0], "tile": int(rest or 2)}
        if not rest:
            raise ValueError(
                f"say where the tile came in: one of the keys {_keys(empty)} "
                "(laid out like the board: 1234 / qwer / asdf / zxcv)"
            )
        if rest[0] not in GRID or rest[1:] not in ("", "2", "4"):
            raise ValueError(
                f"{rest!r} is not a cell key (1234 / qwer / asdf / zxcv) and an "
                "optional 4"
            )
        cell = GRID.index(rest[0])
        if cell not in empty:
            raise ValueError(
                f"{rest[0]} is row {cell // 4 + 1}, column {cell % 4 + 1}, which is "
                f"not empty after the move: the empty cells are {_keys(empty)}"
            )
        return {"cell": cell, "tile": 4 if rest[1:] == "4" else 2}

    def _threes(self, action: int, rest: str) -> dict:
        from playahead.games import threes

        base = self.env.unwrapped
        state = self.states[-1]
        slid, moved, _ = gamefile._slide(base, state.board, action)
        if int(slid) and _max_rank(slid) == threes.RANK_12288:
            if rest:
                raise ValueError("a 12288 ends the game: no card comes in")
            return {}
        found = _THREES.match(rest)
        if found is None:
            raise ValueError(
                f"{rest!r} is not [line 1-4][next 1, 2, 3 or +][=value]: e.g. 32"
            )
        line, card, nxt = found.group("line"), found.group("card"), found.group("next")
        lines = [i for i in range(4) if moved >> i & 1]
        ones, twos, threes_left, lo, hi = (
            int(x) for x in threes.unpack_cards(state.cards)
        )
        candidates = list(threes.CARD_VALUES[lo : hi + 1])
        if line is not None and nxt is None and len(lines) == 1:
            line, nxt = None, line  # one digit, and the line is known: the preview
        if line is None:
            if len(lines) != 1:
                shown = ", ".join(str(i + 1) for i in lines)
                raise ValueError(
                    f"say which line the card came in on ({shown}), then the next "
                    "card: e.g. " + f"{lines[0] + 1}2"
                )
            line = lines[0] + 1
        if card is None:
            if len(candidates) != 1:
                raise ValueError(
                    f"the preview was a bonus card: say which came in, e.g. "
                    f"={candidates[0]} (candidates {', '.join(map(str, candidates))})"
                )
            card = candidates[0]
        card, line = int(card), int(line) - 1
        if card not in candidates:
            shown = ", ".join(map(str, candidates))
            raise ValueError(
                f"the card that came in was {card}; the preview said {shown}"
            )
        if line not in lines:
            shown = ", ".join(str(i + 1) for i in lines)
            raise ValueError(
                f"line {line + 1} did not move (lines that moved: {shown})"
            )
        rank = threes.CARD_VALUES.index(card)
        board = int(slid) | rank << 4 * gamefile._far_cell(action, line)
        deck = (ones, twos, threes_left)
        return {"line": line, "card": card, "next": self._next(nxt, board, deck)}

    def _next(self, nxt: str | None, board: int, deck) -> int | list[int]:
        """The next preview of an entry (``None``: the only one possible)."""
        options = next_options(board, deck, self.env.unwrapped.bonus_preview)
        if nxt is None:
            if len(options) != 1:
                raise ValueError(
                    "say the next card: 1, 2 or 3 (the deck has "
                    f"{'/'.join(map(str, deck))} 1s/2s/3s), or + for a bonus card"
                )
            return options[0]
        if nxt in "123":
            return int(nxt)
        bonus = [o for o in options if isinstance(o, list)]
        if not bonus:
            raise ValueError(
                "a bonus card comes only once the highest card is 48 or more"
            )
        if nxt == "+" and len(bonus) == 1:
            return bonus[0]
        window = next((b for b in bonus if f"+{b[0]}" == nxt), None)
        if window is None:
            shown = ", ".join(f"+{b[0]}" for b in bonus)
            raise ValueError(f"say the bonus card's lowest candidate: one of {shown}")
        return window


def values_line(env, analysis, width: int = 78) -> str:
    """Every legal move's value, best first and on a tie the suggested move (starred)
    first, e.g. ``values (expected final score):  left 412,300*  up 412,300``."""
    kind = analysis.value_kind
    ranked = sorted(
        analysis.ranked(), key=lambda av: (-av[1], av[0] != analysis.action)
    )
    lines = [f"values ({value_unit(kind)}):"]
    for action, value in ranked:
        star = "*" if action == analysis.action else ""
        part = f"  {action_label(env, action)} {format_value(value, kind)}{star}"
        if len(lines[-1]) + len(part) > width:
            lines.append(" ")
        lines[-1] += part
    return "\n".join(lines)


def _max_rank(board) -> int:
    from playahead.games._board64 import max_rank

    return int(max_rank(np.uint64(board)))


def _keys(cells: list[int]) -> str:
    return " ".join(GRID[c] for c in cells)


def next_options(board: int, deck, bonus_preview: str) -> list:
    """Every Threes preview possible after a card came in on ``board`` (packed), with
    ``deck`` (1s, 2s, 3s left) before the draw: basic cards as ints, bonus windows as
    lists of values."""
    from playahead.games import chance, threes

    outcomes, _ = chance.preview_outcomes(
        np.uint64(board),
        chance.pack_cards(*deck, 0, 0),
        chance.BONUS_PREVIEWS[bonus_preview],
    )
    out: list = []
    for cards in outcomes:
        _, _, _, lo, hi = (int(v) for v in chance.unpack_cards(cards))
        out.append(lo if hi <= 3 else list(threes.CARD_VALUES[lo : hi + 1]))
    return out


# ----------------------------------------------------------------- keys per move


def entries(game_file: gamefile.GameFile, agent=None, seed=0) -> Iterator[str]:
    """The shortest entries that replay ``game_file`` in ``assist`` (each the
    first of a few candidates that :meth:`Assistant.parse` reads as the move)."""
    start = dataclasses.replace(game_file, moves=[])
    helper = Assistant(start, agent, None, seed)
    for move in game_file.moves:
        text = next(t for t in _candidates(helper, move) if _reads_as(helper, t, move))
        yield text
        helper.enter(text)


def _reads_as(helper: Assistant, text: str, move: dict) -> bool:
    try:
        return helper.parse(text) == move
    except ValueError:
        return False


def _candidates(helper: Assistant, move: dict) -> Iterable[str]:
    action = move["action"]
    swipes = (
        ["", SWIPE_KEYS[action]]
        if action == helper.suggestion
        else [SWIPE_KEYS[action]]
    )
    if "cell" in move:
        key = GRID[move["cell"]]
        tails = ["4", key + "4"] if move["tile"] == 4 else ["", key]
    elif "line" in move:
        nxt = move["next"]
        nexts = ["", str(nxt)] if isinstance(nxt, int) else ["", "+", f"+{nxt[0]}"]
        card = ["", f"={move['card']}"]
        tails = [
            line + n + c
            for line in ("", str(move["line"] + 1))
            for c in card
            for n in nexts
        ]
        tails.sort(key=len)
    else:
        tails = [""]
    for swipe in swipes:
        for tail in tails:
            yield swipe + tail
    yield TILE_ACTIONS[action]  # never reached for a legal move; keeps next() total


def keys_per_move(game_file: gamefile.GameFile, agent=None, seed=0) -> tuple[int, int]:
    """``(moves, keys)``: the keys typed to replay ``game_file`` in ``assist``,
    Enter included."""
    typed = [len(t) + 1 for t in entries(game_file, agent, seed)]
    return len(typed), sum(typed)


# ----------------------------------------------------------------- the command


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead assist``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    text = __doc__.split("\n\n", 2)[2]  # plain text, without reST markup
    parser.epilog = re.sub(r":\w+:`~?([^`]*)`", r"\1", text).replace("``", "")
    parser.add_argument("game", help="threes or 2048")
    parser.add_argument(
        "--board",
        help="the board: rows split by '/' (else asked: one line, or row by row)",
    )
    parser.add_argument("--next", dest="next_card", help="Threes: the previewed card")
    parser.add_argument(
        "--deck",
        help="Threes: 1s,2s,3s left in the deck after the preview, e.g. 4,3,4 "
        "(default: counted from a fresh deal of 9 cards, else asked)",
    )
    parser.add_argument("--score", type=int, default=0, help="2048: the score so far")
    parser.add_argument(
        "--save", type=Path, help="the game file (default: assist-GAME.json)"
    )
    parser.add_argument("--resume", type=Path, help="go on with this game file")
    parser.add_argument("--agent", help="planner spec (default: the one hint uses)")
    parser.add_argument("--seed", type=int, default=0, help="the planner's seed")
    parser.add_argument(
        "--keys-of",
        type=Path,
        metavar="GAME_FILE",
        help="print the entries that replay this game file here, one a move, and "
        "the keys typed per move",
    )
    parser.set_defaults(func=run)


def _start(args, lines: Iterator[str]) -> gamefile.GameFile:
    from playahead.tools.positions import position

    name = "threes" if args.game.lower() == "threes" else args.game.lower()
    board = args.board if args.board is not None else _read_board(lines)
    next_card = args.next_card
    if name == "threes" and next_card is None:
        next_card = _read(lines, NEXT_PROMPT)
        if not next_card:
            raise ValueError(
                "no next card given: type the previewed card, 1, 2 or 3 (a bonus "
                "card: its candidates, e.g. 6,12,24)"
            )
    deck = args.deck
    if name == "threes" and deck is None:
        env, _ = position(name, board, next_card)
        deck = dealt_deck(env)
        if deck is None:
            deck = _read_deck(lines, env)
        else:
            print(f"a fresh deal: the deck after the preview holds 1s/2s/3s {deck}")
    env, _ = position(name, board, next_card, deck=deck, score=args.score)
    return gamefile.GameFile(name, {}, gamefile.start_of(env), [], None, ["human"])


#: The prompts of a new game's start.
BOARD_PROMPT = (
    "board: 4 rows of 4 numbers (0 or . for an empty cell), on one line with the "
    "rows split by '/' (e.g. 1 2 0 3 / 0 6 0 0 / 0 0 3 0 / 2 0 0 1), or row by row"
)
NEXT_PROMPT = "next card (1, 2 or 3; a bonus card: its candidates, e.g. 6,12,24)"


def dealt_deck(env) -> str | None:
    """The deck a fresh Threes deal leaves after its preview (``"ones,twos,threes"``),
    or None if ``env``'s board is not a fresh deal.

    A new game deals 9 cards from a 12-card deck of four 1s, 2s and 3s and previews the
    10th (see the Threes rules), so 2 cards are left: four of each less those dealt
    and the preview. A board of nine 1s, 2s and 3s, at most four of each with the
    preview, is taken as such a deal.
    """
    from playahead.games import threes

    base = env.unwrapped
    faces = np.asarray(base.board).ravel()
    _, _, _, lo, hi = (int(v) for v in threes.unpack_cards(base.clone_state().cards))
    counts = [int(np.sum(faces == v)) for v in (1, 2, 3)]
    if lo != hi or lo > 3 or np.count_nonzero(faces) != 9 or sum(counts) != 9:
        return None
    counts[lo - 1] += 1
    if max(counts) > 4:
        return None
    return ",".join(str(4 - c) for c in counts)


def _read_deck(lines: Iterator[str], env) -> str:
    """Ask for the deck; Enter takes a fresh deck less the preview."""
    from playahead.games import chance, threes

    _, _, _, lo, _ = (
        int(v) for v in threes.unpack_cards(env.unwrapped.clone_state().cards)
    )
    default = chance.deck_after(lo)
    shown = ",".join(map(str, default))
    text = _read(
        lines,
        "deck: the 1s, 2s and 3s left after the preview, e.g. 4,3,4 (not a fresh "
        f"deal, so it cannot be counted from the board; Enter: {shown})",
        required=False,
    )
    return text or shown


def _read_board(lines: Iterator[str]) -> str:
    """A board typed on one line (rows split by ``/``, or JSON), or row by row."""
    first = _read(lines, BOARD_PROMPT)
    if "/" in first or "[" in first or len(first.replace(",", " ").split()) != 4:
        return first
    rows = [first]
    while len(rows) < 4:
        try:
            rows.append(next(lines).strip())
        except StopIteration:
            raise ValueError(
                f"the board has {len(rows)} of its 4 rows: type the rest, one row "
                "a line"
            ) from None
    return " / ".join(rows)


def _read(lines: Iterator[str], what: str, required: bool = True) -> str:
    print(f"{what}:", flush=True)
    try:
        return next(lines).strip()
    except StopIteration:
        if not required:
            return ""
        name = what.split()[0].split(":")[0]
        raise ValueError(f"no {name} given (--{name} or a line of input)") from None


def run(args: argparse.Namespace) -> int:
    """Run ``playahead assist``."""
    if args.game.lower() not in ("threes", "2048"):
        raise ValueError(f"assist follows threes and 2048, not {args.game!r}")
    if args.keys_of is not None:
        game_file = gamefile.load(args.keys_of)
        if game_file.game != args.game.lower():
            raise ValueError(
                f"{args.keys_of} is a {game_file.game} game, not {args.game}"
            )
        typed = []
        print("move  entry (Enter alone: every default taken)")
        for number, entry in enumerate(entries(game_file, args.agent, args.seed), 1):
            print(f"{number:>4}  {entry}", flush=True)
            typed.append(len(entry) + 1)
        moves, keys = len(typed), sum(typed)
        print(
            f"{moves} moves, {keys} keys typed (Enter included): "
            f"{keys / max(moves, 1):.2f} a move"
        )
        return 0
    lines = iter(sys.stdin)
    check_folder(args.save)
    name = args.game.lower()
    if args.resume is not None:
        game_file = gamefile.load(args.resume, empty_ok=True)
        if game_file.game != name:
            raise ValueError(
                f"{args.resume} is a {game_file.game} game, not {name}: go on with "
                f"playahead assist {game_file.game} --resume {args.resume}"
            )
        path = args.save or args.resume
    else:
        path = args.save or Path(f"assist-{name}.json")
        if path.exists():
            raise ValueError(
                f"{path} holds a game already: go on with it with --resume {path}, "
                "or start a new one in another file with --save FILE"
            )
        game_file = _start(args, lines)
    try:
        helper = Assistant(game_file, args.agent, path, args.seed)
        print(f"game file: {path}")
        print(helper.screen(), flush=True)
        for line in lines:  # an empty line is an entry too: every default taken
            print(helper.enter(line), flush=True)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: the game so far is in {path}; go on with "
            f"playahead assist {name} --resume {path}",
            file=sys.stderr,
        )
        return 130
    return 0
