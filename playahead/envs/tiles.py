"""Gymnasium shells around the compiled 2048 and Threes rules."""

from __future__ import annotations

import dataclasses

import numpy as np
from gymnasium import spaces

from playahead.envs.base import GameEnv, check_count
from playahead.envs.human import render_human
from playahead.envs.render import ansi_grid, tile_grid_image
from playahead.games import threes, twenty48
from playahead.games._board64 import MASKS, legal_bits, max_rank, unpack, unpack_into

_U64_MAX = (1 << 64) - 1
#: Largest score or move count a restored state may hold (exact in a JSON double).
MAX_COUNT = (1 << 53) - 1
#: Consecutive no-op moves that truncate an episode (see :mod:`playahead.envs.base`).
DEFAULT_MAX_NOOP_MOVES = 100


@dataclasses.dataclass(frozen=True)
class Twenty48State:
    """A 2048 position: packed board, score so far, moves played."""

    board: int
    score: int
    moves: int


@dataclasses.dataclass(frozen=True)
class ThreesState:
    """A Threes position: packed board, cards word (deck counts + preview), moves, and
    the rule variant it belongs to."""

    board: int
    cards: int
    moves: int
    bonus_preview: str
    merge_6144: bool


def _check_board(state, name: str) -> np.uint64:
    board = state.board
    if not isinstance(board, int | np.integer) or not 0 <= int(board) <= _U64_MAX:
        raise ValueError(f"{name}.board must be a packed uint64, got {board!r}")
    return np.uint64(board)


class _TileEnv(GameEnv):
    """What 2048 and Threes share: 4 actions, a packed board, masks from the kernels."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(
        self,
        illegal_action: str = "noop",
        render_mode: str | None = None,
        max_noop_moves: int | None = DEFAULT_MAX_NOOP_MOVES,
    ):
        super().__init__(illegal_action, render_mode, max_noop_moves)
        self.action_space = spaces.Discrete(4)
        self._board = np.uint64(0)
        self._bits = 0  # legal moves as bits (see _board64.legal_bits)
        self._moves = 0

    @property
    def board(self) -> np.ndarray:
        """int64[4, 4] face values (0 = empty)."""
        return self._to_faces(self._board)

    def _legal_mask(self) -> np.ndarray:
        return MASKS[self._bits]

    def _is_over(self) -> bool:
        return self._bits == 0

    def _ranks(self) -> np.ndarray:
        return unpack(self._board)

    def render(self):
        if self.render_mode == "ansi":
            return self._ansi()
        if self.render_mode == "rgb_array":
            return self._rgb()
        if self.render_mode == "human":
            return render_human(self)
        return None


class Twenty48Env(_TileEnv):
    """2048 (Gabriele Cirulli, 2014).

    ## Description
    Slide numbered tiles on a 4x4 grid; two equal tiles that meet merge into their sum
    (once per move). After every move that changes the board a 2 (p = 0.9) or a 4
    (p = 0.1) appears on a uniformly chosen empty cell. The rules' sources and test
    vectors: the documentation's 2048 page (``docs/games/2048.md``).

    ## Action Space
    ``Discrete(4)``: 0 up, 1 right, 2 down, 3 left. ``action_masks()`` and
    ``info["action_mask"]`` mark the moves that change the board.

    ## Observation Space
    ``Box(0, 15, (4, 4), uint8)``: log2 of each tile (0 = empty, 1 = a 2, 11 = 2048).
    ``env.unwrapped.board`` gives face values.

    ## Rewards
    The sum of the tiles created by merges in the move (the game's score increment).
    An episode's return is the final score.

    ## Starting State
    An empty board with two spawned tiles.

    ## Episode End
    Terminated when no move changes the board. Truncated (``info["stalled"]``) after
    ``max_noop_moves`` consecutive moves that change nothing. Tiles are capped at 32768:
    the packed engine keeps 32768 + 32768 as one 32768 (scored 65536), as nneonneo's
    2048-ai does.

    ## Arguments
    * ``illegal_action``: ``"noop"`` (default), ``"raise"`` or ``"end"`` (see
      :mod:`playahead.envs.base`).
    * ``max_noop_moves``: consecutive no-op moves that truncate the episode (100;
      None: never).
    * ``render_mode``: ``"ansi"``, ``"rgb_array"`` or ``"human"`` (a window, or the
      ansi board printed when there is no display).

    ``info``: ``score``, ``max_tile``, ``moves``, ``action_mask``.

    ## Version History
    * v0: first release.
    """

    game_name = "2048"

    def __init__(
        self,
        illegal_action: str = "noop",
        render_mode: str | None = None,
        max_noop_moves: int | None = DEFAULT_MAX_NOOP_MOVES,
    ):
        super().__init__(illegal_action, render_mode, max_noop_moves)
        self.observation_space = spaces.Box(0, 15, (4, 4), dtype=np.uint8)
        self._moves_table, self._rewards_table = twenty48.TABLES
        self._score = 0
        self._obs = np.zeros((4, 4), dtype=np.uint8)  # ranks of the board
        self._top = 0  # largest rank on the board

    @staticmethod
    def _to_faces(board) -> np.ndarray:
        return twenty48.to_faces(board)

    def _set(self, board) -> None:
        self._board = np.uint64(board)
        self._bits = legal_bits(self._board, *twenty48.TABLES)
        self._top = unpack_into(self._board, self._obs)

    def _reset_state(self, options) -> None:
        self._score = 0
        self._moves = 0
        self._set(twenty48.new_game(self.np_random))

    def _apply(self, action: int) -> float:
        board, reward, self._bits, self._top = twenty48.step_with(
            self._board, action, self.np_random.random(), *twenty48.TABLES, self._obs
        )
        self._board = np.uint64(board)
        self._score += reward
        self._moves += 1
        return reward

    def _observation(self) -> np.ndarray:
        return self._obs.copy()

    def _info_extra(self) -> dict:
        return {
            "score": self._score,
            "max_tile": 1 << self._top if self._top else 0,
            "moves": self._moves,
        }

    def clone_state(self) -> Twenty48State:
        return Twenty48State(int(self._board), self._score, self._moves)

    def restore_state(self, state: Twenty48State) -> None:
        if not isinstance(state, Twenty48State):
            raise ValueError(
                f"2048-v0 restores a Twenty48State (from clone_state()), got "
                f"{type(state).__name__}"
            )
        board = _check_board(state, "Twenty48State")
        self._score = check_count(state.score, "Twenty48State.score", MAX_COUNT)
        self._moves = check_count(state.moves, "Twenty48State.moves", MAX_COUNT)
        self._set(board)
        self._started, self._noops = True, 0

    # ------------------------------------------------------------------ rendering
    _COLORS = {
        0: ((205, 193, 180), (0, 0, 0)),
        1: ((238, 228, 218), (119, 110, 101)),
        2: ((237, 224, 200), (119, 110, 101)),
        3: ((242, 177, 121), (249, 246, 242)),
        4: ((245, 149, 99), (249, 246, 242)),
        5: ((246, 124, 95), (249, 246, 242)),
        6: ((246, 94, 59), (249, 246, 242)),
        7: ((237, 207, 114), (249, 246, 242)),
        8: ((237, 204, 97), (249, 246, 242)),
        9: ((237, 200, 80), (249, 246, 242)),
        10: ((237, 197, 63), (249, 246, 242)),
        11: ((237, 194, 46), (249, 246, 242)),
    }

    def _labels(self) -> list[list[str]]:
        return [[str(v) if v else "" for v in row] for row in self.board.tolist()]

    def _ansi(self) -> str:
        ranks = self._ranks()
        palette = ["", "47;30", "43;30", "103;30", "41;97", "101;97", "45;97", "105;97"]
        colors = [
            [palette[min(int(r), 7)] if r < 8 else "1;30;103" for r in row]
            for row in ranks
        ]
        head = f"score {self._score}  moves {self._moves}"
        return head + "\n" + ansi_grid(self._labels(), colors) + "\n"

    def _rgb(self) -> np.ndarray:
        ranks = self._ranks()
        fills = [
            [self._COLORS.get(int(r), ((60, 58, 50), (249, 246, 242)))[0] for r in row]
            for row in ranks
        ]
        inks = [
            [self._COLORS.get(int(r), ((60, 58, 50), (249, 246, 242)))[1] for r in row]
            for row in ranks
        ]
        footer = f"SCORE {self._score}"
        return tile_grid_image(self._labels(), fills, inks, footer=footer)


class ThreesEnv(_TileEnv):
    """Threes! (Sirvo, 2014): the real game, with the 12-card deck, bonus cards and
    the next-card preview.

    ## Description
    Cards move one cell per swipe. 1 + 2 makes 3; two equal cards of 3 or more make
    their sum; one merge per line, nearest the wall. After every legal move the
    previewed card enters at the far edge of a uniformly chosen line that moved.
    Basic cards come from a shuffled deck of four 1s, 2s and 3s; once the highest card
    is 48 or more, a new card is a bonus card (6 .. max/8) with probability 1/21.
    The rules' sources, and the choices where they differ: the documentation's Threes
    page (``docs/games/threes.md``).

    ## Action Space
    ``Discrete(4)``: 0 up, 1 right, 2 down, 3 left, with masks as in 2048.

    ## Observation Space
    ``Dict`` of what a player sees:

    * ``"board"``: ``Box(0, 15, (4, 4), uint8)`` ranks: 0 empty, 1 and 2 the blue and
      red cards, rank r >= 3 the card ``3 * 2**(r - 3)`` (3 = 3, 4 = 6, 7 = 48).
    * ``"next"``: ``Box(0, 15, (2,), uint8)``: the preview as a rank window
      ``[lo, hi]``; ``lo == hi`` for a basic card (1, 2 or 3); a bonus card shows its
      candidates (up to three consecutive values, or all with ``bonus_preview="plus"``).
    * ``"deck"``: ``Box(0, 4, (3,), uint8)``: 1s, 2s and 3s left in the deck after the
      preview (what a player who counts cards knows).

    ## Rewards
    The change in the game's score (sum of ``3**(log2(v/3) + 1)`` over cards >= 3),
    including the points of the card that entered. An episode's return is the final
    score minus the starting board's score (``info["score"]`` is the game's score).

    ## Starting State
    Nine cards of a fresh deck on distinct uniform cells; the tenth is the preview.

    ## Episode End
    Terminated when no move is legal, or at once when two 6144s make 12288 (the app's
    ending; no card enters). Truncated (``info["stalled"]``) after ``max_noop_moves``
    consecutive moves that change nothing.

    ## Arguments
    * ``bonus_preview``: ``"window"`` (default, app v1.2 and later) or ``"plus"`` (the
      2014 builds: a bonus card shows only "+", its value uniform over 6 .. max/8).
    * ``merge_6144``: True (default: 6144 + 6144 -> 12288 ends the game); False for
      the variant where 6144s never merge (Yeh et al. 2016).
    * ``illegal_action``: ``"noop"`` (default), ``"raise"`` or ``"end"``.
    * ``max_noop_moves``: consecutive no-op moves that truncate the episode (100;
      None: never).
    * ``render_mode``: ``"ansi"``, ``"rgb_array"`` or ``"human"`` (a window, or the
      ansi board printed when there is no display).

    ``info``: ``score``, ``max_tile``, ``moves``, ``action_mask``, ``next_card`` (int:
    the previewed basic card 1, 2 or 3, or 0 when the next card is a bonus card) and
    ``next_range`` (``int64[2]``: the smallest and largest value the next card can
    have; equal for a basic card, a bonus window's ends otherwise). Every key has one
    type and shape on every step, so Gymnasium's vector envs can batch them. The
    :attr:`next_card` property gives the preview as an int or a tuple of candidates.

    ## Version History
    * v0: first release.
    """

    game_name = "Threes"

    def __init__(
        self,
        bonus_preview: str = "window",
        merge_6144: bool = True,
        illegal_action: str = "noop",
        render_mode: str | None = None,
        max_noop_moves: int | None = DEFAULT_MAX_NOOP_MOVES,
    ):
        super().__init__(illegal_action, render_mode, max_noop_moves)
        if bonus_preview not in threes.BONUS_PREVIEWS:
            raise ValueError(
                f"bonus_preview={bonus_preview!r} is not one of "
                f"{sorted(threes.BONUS_PREVIEWS)}"
            )
        self.bonus_preview = bonus_preview
        self.merge_6144 = bool(merge_6144)
        self._preview_model = threes.BONUS_PREVIEWS[bonus_preview]
        self._tables = threes.tables(self.merge_6144)
        self.observation_space = spaces.Dict(
            {
                "board": spaces.Box(0, 15, (4, 4), dtype=np.uint8),
                "next": spaces.Box(0, 15, (2,), dtype=np.uint8),
                "deck": spaces.Box(0, 4, (3,), dtype=np.uint8),
            }
        )
        self._cards = 0

    @staticmethod
    def _to_faces(board) -> np.ndarray:
        return threes.to_faces(board)

    @property
    def tables(self):
        """``(moves, rewards, row_scores)`` for this rule variant's kernels."""
        return self._tables

    def _set(self, board, cards) -> None:
        self._board = np.uint64(board)
        self._cards = int(cards)
        if max_rank(self._board) == threes.RANK_12288:
            self._bits = 0
        else:
            self._bits = legal_bits(self._board, self._tables[0], self._tables[1])

    def _reset_state(self, options) -> None:
        self._moves = 0
        self._set(*threes.new_game(self.np_random, self._preview_model))

    def _apply(self, action: int) -> float:
        u1, u2, u3, u4 = self.np_random.random(4).tolist()
        board, self._cards, reward, self._bits = threes.step_with(
            self._board,
            self._cards,
            action,
            u1,
            u2,
            u3,
            u4,
            self._tables[0],
            self._tables[1],
            self._preview_model,
        )
        self._board = np.uint64(board)
        self._moves += 1
        return reward

    def _card_fields(self) -> tuple[int, int, int, int, int]:
        """(ones, twos, threes left, preview lo, preview hi) of the cards word."""
        return tuple(map(int, threes.unpack_cards(np.int64(self._cards))))

    @property
    def next_card(self) -> int | tuple[int, ...]:
        """The preview: a card value, or the tuple of a bonus card's candidates."""
        *_, lo, hi = self._card_fields()
        if lo == hi and lo <= 3:
            return lo
        return threes.CARD_VALUES[lo : hi + 1]

    def _observation(self) -> dict:
        ones, twos, threes_left, lo, hi = self._card_fields()
        return {
            "board": self._ranks(),
            "next": np.array([lo, hi], dtype=np.uint8),
            "deck": np.array([ones, twos, threes_left], dtype=np.uint8),
        }

    def _info_extra(self) -> dict:
        *_, lo, hi = self._card_fields()
        return {
            "score": int(threes.score(self._board, self._tables[2])),
            "max_tile": threes.CARD_VALUES[max_rank(self._board)],
            "moves": self._moves,
            "next_card": lo if lo == hi and lo <= 3 else 0,
            "next_range": np.array(
                [threes.CARD_VALUES[lo], threes.CARD_VALUES[hi]], dtype=np.int64
            ),
        }

    def clone_state(self) -> ThreesState:
        return ThreesState(
            int(self._board),
            self._cards,
            self._moves,
            self.bonus_preview,
            self.merge_6144,
        )

    def restore_state(self, state: ThreesState) -> None:
        if not isinstance(state, ThreesState):
            raise ValueError(
                f"Threes-v0 restores a ThreesState (from clone_state()), got "
                f"{type(state).__name__}"
            )
        if (state.bonus_preview, state.merge_6144) != (
            self.bonus_preview,
            self.merge_6144,
        ):
            raise ValueError(
                f"state is from Threes with bonus_preview={state.bonus_preview!r}, "
                f"merge_6144={state.merge_6144}; this env has "
                f"bonus_preview={self.bonus_preview!r}, merge_6144={self.merge_6144}"
            )
        board = _check_board(state, "ThreesState")
        cards = check_count(state.cards, "ThreesState.cards", (1 << 17) - 1)
        moves = check_count(state.moves, "ThreesState.moves", MAX_COUNT)
        ones, twos, threes_left, lo, hi = threes.unpack_cards(cards)
        basic = lo == hi and 1 <= lo <= 3
        bonus = threes.BONUS_MIN_RANK <= lo <= hi <= threes.BONUS_MAX_RANK and (
            self.bonus_preview == "plus" or hi - lo <= 2
        )
        if max(ones, twos, threes_left) > 4 or not (basic or bonus):
            raise ValueError(f"malformed ThreesState {state!r}")
        self._moves = moves
        self._set(board, cards)
        self._started, self._noops = True, 0

    # ------------------------------------------------------------------ rendering
    def _labels(self) -> list[list[str]]:
        return [[str(v) if v else "" for v in row] for row in self.board.tolist()]

    def _style(self, rank: int) -> tuple[tuple, tuple, str]:
        if rank == 0:
            return (187, 217, 217), (0, 0, 0), ""
        if rank == 1:
            return (102, 204, 255), (255, 255, 255), "1;97;44"
        if rank == 2:
            return (255, 102, 128), (255, 255, 255), "1;97;41"
        ink = (0, 0, 0) if rank < 7 else (255, 102, 128)
        return (254, 255, 255), ink, "1;30;107" if rank < 7 else "1;31;107"

    def _next_label(self) -> str:
        card = self.next_card
        return "+".join(map(str, card)) if isinstance(card, tuple) else str(card)

    def _ansi(self) -> str:
        styles = [[self._style(int(r))[2] for r in row] for row in self._ranks()]
        info = self._info_extra()
        head = f"score {info['score']}  moves {self._moves}  next {self._next_label()}"
        return head + "\n" + ansi_grid(self._labels(), styles) + "\n"

    def _rgb(self) -> np.ndarray:
        ranks = self._ranks()
        fills = [[self._style(int(r))[0] for r in row] for row in ranks]
        inks = [[self._style(int(r))[1] for r in row] for row in ranks]
        footer = f"NEXT {self._next_label()}"
        return tile_grid_image(
            self._labels(),
            fills,
            inks,
            background=(250, 250, 250),
            footer=footer,
            footer_ink=(60, 60, 60),
        )


__all__ = ["ThreesEnv", "ThreesState", "Twenty48Env", "Twenty48State"]
