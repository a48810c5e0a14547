"""``playahead review GAME_FILE``: was each move the best? A move-by-move review.

Every position of a game file (:mod:`playahead.tools.gamefile`) is analysed by a
planner (``--agent``; by default the search ``playahead hint`` uses, with the same
budgets: :func:`playahead.tools.hint.default_agent` within
:func:`~playahead.tools.games.capped_budget`), in the order of the game, by one
planner, as ``watch`` and ``play`` run it. A game that playahead's default played is
therefore reviewed with the values it played by: zero loss on every move.

For each move: the move played and its value, the best move and its value, the
**loss** (best value - played value, for the player who moved), and a mark:

* Threes and 2048, by the loss as a share of the best move's value:
  **inaccuracy** from 1% (:data:`TILE_MARKS`), **mistake** from 3%, **blunder** from
  10%. The values are the planner's: expected final scores in points for the default
  (learned leaves; :mod:`playahead.tools.calibration`), heuristic values for a
  hand-made evaluator (e.g. 2048's ``monotonic``).
* Tic-tac-toe, Connect Four, Nim, Chips (values: the game's value for the mover from
  the solver, +1 won, 0 drawn, -1 lost), by the change of value
  (:data:`DUEL_MARKS`): a move that changes the result (won to drawn, drawn to lost:
  1; won to lost: 2) is a **blunder**; a search that does not solve the position
  gives values in between, where a loss from 0.3 is a **mistake** and from 0.1 an
  **inaccuracy**.
* Connect Four with the default ``solver`` (values: Pons' exact scores, ``+n`` a win
  with the mover's ``22-n``-th disc; see :mod:`playahead.planners.solver`): a move
  that turns a win into a draw or a loss, or a draw into a loss, is a **blunder**; a
  longer road to the same result (a later win, a sooner loss) an **inaccuracy**
  (:func:`outcome_mark`). The loss is in score points. Positions the solver does not
  solve within its node budget get minimax's values and marks, as above.

Each move's values are in its own analysis' unit (``value_kind``). A review whose
moves differ in unit (a Connect Four game whose opening the solver did not solve)
names each unit with its moves in the header, sums the losses unit by unit, orders
the costliest moves by their marks, and draws one graph a unit. In a two-player game
a move is ``exact`` when its position was solved; the text marks the others' marks
``(estimate)`` and the summary counts the exact moves.

The summary: accuracy (the share of moves that were the best: loss 0), total and mean
loss, the number of each mark, and the three costliest moves with their boards.
``--json`` prints one object (``player``; ``moves``: ``played``, ``best``,
``played_value``, ``best_value``, ``loss``, ``mark``, every legal move's value and the
``board`` before the move; ``summary``); ``--marked`` lists only the marked moves;
``--plot FILE`` draws the evaluation graph (matplotlib; a path that cannot be written
is refused before the review runs). The header and the graph's title name who played
(the file's agents, ``you`` for a person) and the planner that reviewed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from playahead.tools import gamefile
from playahead.tools.calibration import calibrate
from playahead.tools.games import format_value, get_game, strip_ansi, value_unit
from playahead.tools.hint import exactness

#: Where a tile game's move gets a mark: its loss as a share of the best move's value.
TILE_MARKS = (("blunder", 0.10), ("mistake", 0.03), ("inaccuracy", 0.01))
#: Where a two-player game's move gets a mark: its loss of the game's value.
DUEL_MARKS = (("blunder", 1.0), ("mistake", 0.3), ("inaccuracy", 0.1))
PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
#: How bad each mark is: no mark 0, inaccuracy 1, mistake 2, blunder 3.
SEVERITY = {"": 0, "inaccuracy": 1, "mistake": 2, "blunder": 3}
#: Value kinds that are not values of the moves (a review cannot weigh them).
NOT_VALUES = ("probability", "policy")
#: A loss below this (in the values' units) counts as none: two moves of equal value.
TOLERANCE = 1e-9
#: The tool named in an error about a spec over its cap.
WHERE = "playahead review"


@dataclasses.dataclass(frozen=True)
class MoveReview:
    """One move of a review.

    Attributes:
        number: the move's number, from 1.
        player: who moved (0 in one-player games).
        played, best: the moves' names (``"left"``, ``"cell 4"``).
        played_value, best_value: their values, for the player who moved.
        loss: ``best_value - played_value`` (0 when the move was the best).
        mark: ``"inaccuracy"``, ``"mistake"``, ``"blunder"`` or ``""``.
        values: every legal move's value, by name.
        value_kind: what the values are (see
            :func:`~playahead.tools.games.value_unit`).
        exact: every value is exact (a two-player position solved: the Connect
            Four solver's scores, or minimax's proven results); False for
            estimates and in one-player games.
    """

    number: int
    player: int
    played: str
    best: str
    played_value: float
    best_value: float
    loss: float
    mark: str
    values: dict[str, float]
    value_kind: str
    exact: bool = False


@dataclasses.dataclass
class Review:
    """What :func:`review` returns: the moves, and what they add up to."""

    game_file: gamefile.GameFile
    agent: str
    moves: list[MoveReview]
    states: list

    @property
    def kinds(self) -> list[str]:
        """The moves' value kinds, each once, in the order they first appear."""
        return list(dict.fromkeys(m.value_kind for m in self.moves))

    @property
    def value_kind(self) -> str:
        """The value kind of every move, or ``"mixed"`` when they differ."""
        kinds = self.kinds
        return kinds[0] if len(kinds) == 1 else "mixed"

    @property
    def unit(self) -> str:
        """What the values are, e.g. ``"expected final score"``; with mixed kinds,
        each unit and its moves, e.g. ``"exact score: ... (moves 9-20); heuristic
        value ... (moves 1-8)"``."""
        if self.value_kind != "mixed":
            return value_unit(self.value_kind)
        return "; ".join(
            f"{value_unit(k)} (moves {_ranges(self._numbers(k))})" for k in self.kinds
        )

    def _numbers(self, kind: str) -> list[int]:
        return [m.number for m in self.moves if m.value_kind == kind]

    @property
    def player(self) -> str:
        """Who played the game: the file's agents (``"you"`` for a person), e.g.
        ``"greedy"``, ``"you vs minimax"``."""
        return player_name(self.game_file)

    @property
    def title(self) -> str:
        """The game, who played it and who reviewed it, e.g. ``"threes game of 59
        moves played by greedy, reviewed by expectimax"``."""
        n = len(self.moves)
        return (
            f"{self.game_file.game} game of {n} move{'s' * (n != 1)} played by "
            f"{self.player}, reviewed by {self.agent}"
        )

    def summary(self) -> dict[str, Any]:
        """``moves``, ``accuracy`` (share of moves with no loss), ``total_loss``,
        ``mean_loss``, ``losses`` (``moves``, ``total`` and ``mean`` loss by value
        kind), ``exact_moves`` (moves whose values are all exact, in two-player
        games), ``marks`` (count of each) and ``costliest`` (the three moves that lost
        most: number and board). With mixed value kinds ``total_loss`` and
        ``mean_loss`` are None (losses in different units do not add up) and the
        costliest moves are the worst marked, then the largest losses."""
        losses = np.array([m.loss for m in self.moves])
        best = int(np.sum(losses <= TOLERANCE))
        marks = {name: 0 for name, _ in TILE_MARKS}
        for m in self.moves:
            if m.mark:
                marks[m.mark] += 1
        by_kind = {}
        for kind in self.kinds:
            some = np.array([m.loss for m in self.moves if m.value_kind == kind])
            by_kind[kind] = {
                "moves": len(some),
                "total": float(some.sum()),
                "mean": float(some.mean()),
            }
        mixed = self.value_kind == "mixed"
        order = sorted(
            self.moves, key=lambda m: (-SEVERITY[m.mark] if mixed else 0, -m.loss)
        )[:3]
        costliest = [
            {"number": m.number, "loss": m.loss, "board": self.board(m.number)}
            for m in order
            if m.loss > TOLERANCE
        ]
        return {
            "moves": len(self.moves),
            "best_moves": best,
            "accuracy": best / len(self.moves),
            "exact_moves": sum(m.exact for m in self.moves),
            "total_loss": None if mixed else float(losses.sum()),
            "mean_loss": None if mixed else float(losses.mean()),
            "losses": by_kind,
            "marks": marks,
            "costliest": costliest,
        }

    def board(self, number: int) -> str:
        """The board before move ``number`` (from 1), as text."""
        env = gamefile.position_env(self.game_file, self.states[number - 1])
        return strip_ansi(env.render()).rstrip("\n")

    def to_json(self) -> dict[str, Any]:
        """One object: the game, the agent, the unit, ``moves`` and ``summary``."""
        return {
            "game": self.game_file.game,
            "env": self.game_file.env_id,
            "agent": self.agent,
            "player": self.player,
            "value_kind": self.value_kind,
            "unit": self.unit,
            "marks": thresholds(self.game_file.game),
            "moves": [
                dataclasses.asdict(m) | {"board": self.board(m.number)}
                for m in self.moves
            ],
            "summary": self.summary(),
        }

    def __str__(self) -> str:
        return self.text()

    def text(self, marked_only: bool = False) -> str:
        """The review as text: every move (``marked_only``: the marked moves), the
        summary and the costliest moves."""
        shown = [m for m in self.moves if m.mark or not marked_only]
        two = get_game(self.game_file.game).num_players == 2
        rows = [
            (
                str(m.number),
                m.played,
                format_value(m.played_value, m.value_kind),
                m.best,
                format_value(m.best_value, m.value_kind),
                format_value(m.loss, m.value_kind) if m.loss > TOLERANCE else "0",
                m.mark + (" (estimate)" if m.mark and two and not m.exact else ""),
            )
            for m in shown
        ]
        head = ("move", "played", "value", "best", "value", "loss", "mark")
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(7)]
        right = {0, 2, 4, 5}

        def line(row):
            cells = [
                c.rjust(w) if i in right else c.ljust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ]
            return "  ".join(cells).rstrip()

        n = len(self.moves)
        lines = [
            f"review of a {self.title}; values: {self.unit}",
            line(head),
            *(line(r) for r in rows),
        ]
        s = self.summary()
        counts = ", ".join(
            f"{v} {PLURALS[k] if v != 1 else k}" for k, v in s["marks"].items()
        )
        if len(s["losses"]) == 1:
            ((kind, loss),) = s["losses"].items()
            lost = (
                f"loss: total {format_value(loss['total'], kind)}, mean "
                f"{format_value(loss['mean'], kind)} a move"
            )
        else:
            lost = "loss: " + ", ".join(
                f"{format_value(loss['total'], kind)} in {_short_unit(kind)} "
                f"over {loss['moves']} move{'s' * (loss['moves'] != 1)}"
                for kind, loss in s["losses"].items()
            )
        exact = ""
        if two and s["exact_moves"] < n:
            exact = (
                f"; exact values on {s['exact_moves']} of {n} moves, depth-limited "
                "estimates on the others (their marks say estimate)"
            )
        lines += [
            "",
            f"accuracy {s['accuracy']:.1%} ({s['best_moves']} of {n} moves the best); "
            f"{lost}; {counts}{exact}",
        ]
        by_number = {m.number: m for m in self.moves}
        for i, c in enumerate(s["costliest"]):
            m = by_number[c["number"]]
            if i == 0:
                lines.append("the costliest moves:")
            kind = m.value_kind
            lines.append(
                f"move {m.number}: {m.played} ({format_value(m.played_value, kind)}) "
                f"instead of {m.best} ({format_value(m.best_value, kind)}), loss "
                f"{format_value(m.loss, kind)}{f' ({m.mark})' if m.mark else ''}"
            )
            lines.append(c["board"])
        return "\n".join(lines)


def _short_unit(kind: str) -> str:
    """The unit of ``kind`` in its first words: ``"exact score"``, ``"heuristic
    value"``."""
    return re.split(r"[:,]| in \[", value_unit(kind))[0]


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` as ``"1-3, 7, 9-10"``."""
    parts: list[list[int]] = []
    for n in numbers:
        if parts and n == parts[-1][1] + 1:
            parts[-1][1] = n
        else:
            parts.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


def player_name(game_file: gamefile.GameFile) -> str:
    """Who played ``game_file``: its agents joined by ``vs``, ``"you"`` for a person
    (``"human"``) or when the file names nobody."""
    names = ["you" if p in ("", "human") else p for p in game_file.players]
    return " vs ".join(names) if names else "you"


def thresholds(game: str) -> dict[str, Any]:
    """The marks of ``game``'s moves: what the loss is measured against and where
    each mark starts."""
    if get_game(game).num_players == 1:
        return {"loss_of": "share of the best value", **dict(TILE_MARKS)}
    return {"loss_of": "game value (+1 won, 0 drawn, -1 lost)", **dict(DUEL_MARKS)}


def mark(game: str, loss: float, best_value: float) -> str:
    """The mark of a move that lost ``loss`` where the best move was worth
    ``best_value`` (see the module docstring)."""
    if loss <= TOLERANCE:
        return ""
    one_player = get_game(game).num_players == 1
    size = loss / max(abs(best_value), TOLERANCE) if one_player else loss
    marks = TILE_MARKS if one_player else DUEL_MARKS
    return next((name for name, start in marks if size >= start - TOLERANCE), "")


def review_agent(game: str, agent: str | None = None, seed: int = 0):
    """The planner a review uses: ``agent`` (default: :func:`hint`'s), within the
    caps ``hint`` applies; returns ``(spec, planner)``.

    Raises:
        ValueError: unknown agent, a budget over its cap, or no ``analyze()``.
    """
    from playahead.tools.games import build_capped_agent
    from playahead.tools.hint import default_agent

    spec = agent or default_agent(get_game(game).name)
    planner = build_capped_agent(spec, seed, WHERE)
    if not callable(getattr(planner, "analyze", None)):
        raise ValueError(f"agent {spec!r} cannot analyze positions (no analyze())")
    return spec, planner


def review(
    game_file: gamefile.GameFile,
    agent: str | None = None,
    *,
    seed: int = 0,
    progress: bool = False,
) -> Review:
    """Review every move of ``game_file`` (see the module docstring).

    Args:
        game_file: a game (from :func:`playahead.tools.gamefile.load`).
        agent: a planner spec with ``analyze()`` (default: ``hint``'s).
        seed: the planner's seed.
        progress: show a progress bar on standard error (tqdm; only on a terminal).

    Raises:
        ValueError: a game with no moves, a game that does not replay, or an agent
            that cannot analyze.
    """
    from tqdm.auto import tqdm

    if not game_file.moves:
        raise ValueError("the game has no moves to review")
    states = gamefile.replay(game_file)
    spec, planner = review_agent(game_file.game, agent, seed)
    env = gamefile.new_env(game_file)
    base = env.unwrapped
    moves = []
    bar = tqdm(
        total=len(game_file.moves),
        desc="review",
        unit="move",
        disable=None if progress else True,
        file=sys.stderr,
    )
    with bar:
        for i, move in enumerate(game_file.moves):
            base.restore_state(states[i])
            player = int(getattr(base, "current_player", 0))
            analysis = calibrate(env, planner.analyze(env), planner)
            if analysis.value_kind in NOT_VALUES:
                raise ValueError(
                    f"agent {spec!r} gives {value_unit(analysis.value_kind)}s, not "
                    "values of the moves: review needs a planner (expectimax, mcts, "
                    "mc, minimax)"
                )
            moves.append(move_review(game_file.game, i + 1, player, move, analysis))
            bar.update()
    return Review(game_file, spec, moves, states)


def move_review(
    game: str, number: int, player: int, move: dict, analysis
) -> MoveReview:
    """The review of ``move`` (a game file's move dict, number ``number``, played by
    ``player``) from an analysis of the position before it."""
    values = {gamefile.move_name(game, a): v for a, v in analysis.ranked()}
    action = move["action"]
    played_value = float(analysis.values[action])
    best_action = max(
        (a for a, _ in analysis.ranked()),
        key=lambda a: (float(analysis.values[a]), a == analysis.action),
    )
    best_value = float(analysis.values[best_action])
    loss = max(best_value - played_value, 0.0)
    if loss <= TOLERANCE:
        loss, best_action = 0.0, action
    return MoveReview(
        number,
        player,
        gamefile.move_name(game, action),
        gamefile.move_name(game, best_action),
        played_value,
        best_value,
        loss,
        outcome_mark(best_value, played_value)
        if analysis.value_kind == "pons_score"
        else mark(game, loss, best_value),
        values,
        analysis.value_kind,
        get_game(game).num_players == 2 and exactness(analysis)[0],
    )


def outcome_mark(best: float, played: float) -> str:
    """The mark of a move scored exactly (Pons scores, Connect Four's ``solver``): a
    **blunder** when it changes the result (win to draw or loss, draw to loss), an
    **inaccuracy** when it keeps the result by a longer road (a later win, a sooner
    loss); ``8, 3 -> "inaccuracy"``, ``1, 0 -> "blunder"``."""
    if np.sign(played) < np.sign(best):
        return "blunder"
    return "inaccuracy" if played < best - TOLERANCE else ""


def plot(result: Review, path: str | Path) -> Path:
    """Draw the evaluation graph of ``result`` to ``path`` (PNG, SVG or PDF, by its
    suffix): the best move's value at each move (for player 0 in two-player games),
    the played move's value, and the marked moves; one graph a value kind, over the
    moves in that kind."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    two = get_game(result.game_file.game).num_players == 2
    kinds = result.kinds
    fig, axes = plt.subplots(
        len(kinds),
        1,
        figsize=(9, 3.6 * len(kinds)),
        layout="constrained",
        sharex=True,
        squeeze=False,
    )
    colors = {"inaccuracy": "gold", "mistake": "darkorange", "blunder": "red"}
    sign = np.array([-1.0 if two and m.player else 1.0 for m in result.moves])
    x = np.array([m.number for m in result.moves])
    best_all = np.array([m.best_value for m in result.moves]) * sign
    played_all = np.array([m.played_value for m in result.moves]) * sign
    kind_of = np.array([m.value_kind for m in result.moves])
    mark_of = np.array([m.mark for m in result.moves])
    for ax, kind in zip(axes[:, 0], kinds, strict=True):
        mine = kind_of == kind  # the moves of other kinds are gaps in this graph
        best = np.where(mine, best_all, np.nan)
        played = np.where(mine, played_all, np.nan)
        ax.plot(x, best, color="tab:blue", lw=1.2, label="best move")
        ax.plot(x, played, color="tab:orange", lw=0.8, alpha=0.8, label="move played")
        for name, color in colors.items():
            where = mine & (mark_of == name)
            if where.any():
                ax.scatter(
                    x[where], played[where], s=18, color=color, label=name, zorder=3
                )
        ax.set_ylabel(_short_unit(kind) + (" (player 0)" if two else ""))
        ax.legend(loc="best", fontsize="small")
    axes[-1, 0].set_xlabel("move")
    axes[0, 0].set_title(result.title, fontsize="medium")
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ----------------------------------------------------------------- the command


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead review``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "marks: Threes and 2048 by the loss as a share of the best value "
        "(inaccuracy 1%, mistake 3%, blunder 10%); two-player games by the loss of "
        "game value (blunder: the result changed)"
    )
    parser.add_argument(
        "game_file", type=Path, help="a game file (playahead-game JSON)"
    )
    parser.add_argument(
        "--agent",
        help="planner spec with analyze() (default: the search playahead hint uses)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the planner's seed")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", type=Path, help="write the evaluation graph here")
    parser.add_argument(
        "--marked",
        action="store_true",
        help="list only the marked moves (inaccuracies, mistakes, blunders)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``playahead review``."""
    game_file = gamefile.load(args.game_file)
    if args.plot is not None:
        check_writable(args.plot)
    result = review(game_file, args.agent, seed=args.seed, progress=True)
    if args.plot is not None:
        plot(result, args.plot)
    if args.json:
        body = result.to_json()
        if args.marked:
            body["moves"] = [m for m in body["moves"] if m["mark"]]
        json.dump(body, sys.stdout, indent=1)
        print()
    else:
        print(result.text(marked_only=args.marked))
    return 0


def check_writable(path: Path) -> None:
    """Refuse, before any work, a ``--plot`` path that cannot be written.

    Raises:
        ValueError: a folder that does not exist or cannot be written, an unknown
            image type, or a path that is a folder.
    """
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ValueError(f"--plot {path}: a folder, not a file")
    suffixes = (".png", ".svg", ".pdf")
    if path.suffix.lower() not in suffixes:
        raise ValueError(
            f"--plot {path}: name a .png, .svg or .pdf file (the type follows the "
            "suffix)"
        )
    if not folder.is_dir():
        raise ValueError(f"--plot {path}: {folder} is not an existing folder")
    if not os.access(folder, os.W_OK) or (
        path.exists() and not os.access(path, os.W_OK)
    ):
        raise ValueError(f"--plot {path}: cannot write there (permission denied)")
