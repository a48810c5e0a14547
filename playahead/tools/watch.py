"""``playahead watch``: a game plays itself in the terminal.

Every frame shows the env's ANSI board (score, and the next card in Threes), the move
number, and the agent's value for each legal move with its unit (from
``agent.analyze(env)`` when the agent has it; the chosen move is starred), e.g.
``values (expected final score):  left 412,300*  up 398,120``. In two-player games
``--agent`` plays player 0 and ``--opponent`` player 1.

On a terminal, ``q`` (or Ctrl-C) stops the game; every frame says so.

Searches are capped as ``playahead hint`` caps them
(:func:`~playahead.tools.games.capped_budget`): simulations and rollouts at most
1,000,000, ``expectimax`` bounded by its node budget (a fixed ``depth`` too: the
deepest depth that fits), a planner without a node budget 10 s a move unless its spec
sets a ``time_limit`` (at most 60); a spec over a cap is refused before the game
starts.

Seeds: ``--seed`` seeds the env and both agents (three seeds derived with
``np.random.SeedSequence(seed)``), so the same command shows the same game.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from playahead.tools import gamefile
from playahead.tools.gamefile import Recorder
from playahead.tools.games import (
    CLEAR,
    action_label,
    add_game_arguments,
    agent_seeds,
    build_capped_agent,
    choose,
    format_values,
    get_game,
    make_env,
    parse_rules,
    strip_ansi,
)

#: The tool named in an error about a spec over its cap.
WHERE = "playahead watch"


def frames(
    game: str,
    agent: str = "random",
    *,
    opponent: str = "random",
    seed: int | None = None,
    max_moves: int | None = None,
    rules: dict[str, Any] | None = None,
    color: bool = True,
    save: str | os.PathLike | None = None,
) -> Iterator[str]:
    """The frames of one game played by ``agent`` (and ``opponent``), as text.

    One frame per decision (the board, then each legal move's value and the move
    chosen), and a last frame with the final board and the result.

    Args:
        game: a name from :data:`playahead.tools.games.GAMES`.
        agent: agent spec (player 0 in two-player games).
        opponent: agent spec of player 1 in two-player games.
        seed: seeds the env and the agents (None: fresh entropy).
        max_moves: stop after this many moves (None: play to the end).
        rules: the game's rule options.
        color: keep ANSI colours.
        save: write the game file (:mod:`playahead.tools.gamefile`) here when the
            game ends or is stopped.

    Raises:
        ValueError: unknown game, rule option or agent spec, a budget over its cap
            (:func:`~playahead.tools.games.capped_budget`); ``max_moves < 0``.
    """
    if max_moves is not None and max_moves < 0:
        raise ValueError(f"max_moves must be >= 0 or None, got {max_moves}")
    info_game = get_game(game)
    env = make_env(info_game, **(rules or {}))
    env_seed, seed_0, seed_1 = agent_seeds(seed, 3)
    specs = [agent, opponent][: info_game.num_players]
    players = [
        build_capped_agent(spec, s, WHERE)
        for spec, s in zip(specs, (seed_0, seed_1), strict=False)
    ]
    _, info = env.reset(seed=env_seed)
    recorder = Recorder(info_game.name, env, rules, env_seed, specs)
    total, moves = 0.0, 0

    def frame(lines: list[str]) -> str:
        head = f"playahead watch {info_game.name}  move {moves}"
        text = "\n".join([head, env.render().rstrip("\n"), *lines]) + "\n"
        return text if color else strip_ansi(text)

    try:
        while env.action_masks().any() and (max_moves is None or moves < max_moves):
            player = env.current_player
            action, analysis = choose(players[player], env)
            who = specs[player] + (f" (player {player})" if len(players) == 2 else "")
            lines = [f"{who} plays {action_label(env, action)}"]
            if analysis is not None:
                lines.append(format_values(env, analysis))
            yield frame(lines)
            _, reward, _, _, info = recorder.step(action)
            total += reward
            moves += 1
        yield frame([_result(env, info, specs, moves)])
    finally:
        if save is not None and moves:
            gamefile.save(recorder.game_file, save)


def _result(env, info: dict, specs: list[str], moves: int) -> str:
    over = not env.action_masks().any()
    if len(specs) == 1:
        state = "game over" if over else "stopped"
        return f"{state} after {moves} moves: score {info['score']}, " + (
            f"max tile {info['max_tile']}"
        )
    if not over:
        return f"stopped after {moves} moves"
    if env.winner < 0:
        return f"draw after {moves} moves"
    return f"{specs[env.winner]} (player {env.winner}) wins after {moves} moves"


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``playahead watch``."""
    add_game_arguments(parser)
    parser.add_argument(
        "--agent",
        default="random",
        help="agent spec, e.g. 'expectimax' or 'mcts:n_simulations=400' (player 0 "
        "in two-player games; default: random)",
    )
    parser.add_argument(
        "--speed",
        type=float,
        default=4.0,
        help="moves per second (0: as fast as possible; default 4)",
    )
    parser.add_argument(
        "--max-moves", type=int, default=None, help="stop after this many moves"
    )
    parser.add_argument(
        "--no-color", action="store_true", help="plain text without ANSI colours"
    )
    parser.add_argument(
        "--save",
        metavar="FILE",
        help="write the game file here (for playahead review) when the game ends",
    )
    parser.set_defaults(func=run)


STOP_HINT = "q or Ctrl-C: stop"


@contextlib.contextmanager
def _stop_key(stream):
    """Yield ``wait(seconds) -> bool``: sleeps, and is True once ``q`` was pressed on
    ``stream`` (a terminal, put in cbreak mode meanwhile; anything else just sleeps)."""
    if not stream.isatty():
        yield lambda seconds: time.sleep(seconds) or False
        return
    import select
    import termios
    import tty

    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)

    def wait(seconds: float) -> bool:
        end = time.monotonic() + seconds
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            if ready and os.read(fd, 64).lower().startswith(b"q"):
                return True
            if not ready or time.monotonic() >= end:
                return False

    try:
        yield wait
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def run(args: argparse.Namespace) -> int:
    """Run ``playahead watch``."""
    if args.speed < 0:
        raise ValueError(
            f"--speed must be >= 0 (0: as fast as possible), got {args.speed}"
        )
    gamefile.check_folder(args.save)
    tty = sys.stdout.isatty()
    color = tty and not args.no_color
    game = frames(
        args.game,
        args.agent,
        opponent=args.opponent,
        seed=args.seed,
        max_moves=args.max_moves,
        rules=parse_rules(args.rule),
        color=color,
        save=args.save,
    )
    delay = 1.0 / args.speed if args.speed > 0 else 0.0
    with _stop_key(sys.stdin) as stop_pressed:
        for text in game:
            footer = (STOP_HINT if sys.stdin.isatty() else "Ctrl-C: stop") + "\n"
            footer = footer if tty else ""
            sys.stdout.write((CLEAR if tty else "\n") + text + footer)
            sys.stdout.flush()
            if stop_pressed(delay):
                print("stopped (q)")
                break
    game.close()  # writes the game file of a stopped game too
    if args.save:
        print(f"game file: {args.save} (playahead review {args.save})")
    return 0
