"""PettingZoo AEC views of the two-player games (needs the ``pettingzoo`` extra).

``aec_env("ConnectFour-v0")`` (also ``"connect4"``, the command line's name, or
``"connect_four"``; with rule options: ``aec_env("nim", k=4, misere=True)``) wraps a
turn-by-turn playahead env as a :class:`pettingzoo.AECEnv` with agents ``"player_0"``
(moves first) and ``"player_1"``. Each observation is ``{"observation": the env's
observation from that agent's side, "action_mask": int8[n_actions]}`` (all zeros when it
is not that agent's turn), as in PettingZoo's classic games. At the end the winner gets
+1 and the loser -1.
Illegal moves raise ``ValueError``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from playahead._extras import require
from playahead.envs import GAME_NAMES, env_id_of
from playahead.envs.board_games import TwoPlayerEnv
from playahead.envs.connect_four import ConnectFourEnv
from playahead.envs.nim import ChipsEnv, NimEnv
from playahead.envs.tictactoe import TicTacToeEnv

AECEnv = require("pettingzoo", "the PettingZoo view of playahead's envs").AECEnv

#: The two-player games by env id (:func:`aec_env` takes any name of
#: :func:`playahead.envs.env_id_of`).
GAMES: dict[str, type[TwoPlayerEnv]] = {
    "TicTacToe-v0": TicTacToeEnv,
    "ConnectFour-v0": ConnectFourEnv,
    "Nim-v0": NimEnv,
    "Chips-v0": ChipsEnv,
}


def _game_class(game_id_or_name: str) -> type[TwoPlayerEnv]:
    names = ", ".join(f"{short} ({e})" for short, e in GAME_NAMES.items() if e in GAMES)
    try:
        env_id = env_id_of(game_id_or_name)
    except ValueError:
        raise ValueError(
            f"unknown game {game_id_or_name!r}; the two-player games: {names}"
        ) from None
    if env_id not in GAMES:
        raise ValueError(f"{env_id} is not a two-player game; they are: {names}")
    return GAMES[env_id]


class BoardGameAEC(AECEnv):
    """A turn-by-turn playahead game as a PettingZoo AEC env (see the module docstring).

    Args:
        game_cls: a :class:`TwoPlayerEnv` subclass, e.g. ``TicTacToeEnv``.
        render_mode: ``"ansi"``, ``"rgb_array"`` or None.
        **rules: the game's rule options (e.g. ``size=4``; ``n=21, k=3``).
    """

    def __init__(
        self, game_cls: type[TwoPlayerEnv], render_mode: str | None = None, **rules
    ):
        super().__init__()
        self.game = game_cls(
            **rules, opponent=None, illegal_action="raise", render_mode=render_mode
        )
        self.metadata = {
            "render_modes": list(game_cls.metadata["render_modes"]),
            "render_fps": game_cls.metadata["render_fps"],
            "name": f"playahead_{game_cls.game_name.lower()}_v0",
            "is_parallelizable": False,
        }
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        n = self.game.action_space.n
        space = spaces.Dict(
            {
                "observation": self.game.observation_space,
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self.game.action_space)
        self.reset()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self.possible_agents.index(agent)
        mask = np.zeros(self.game.action_space.n, dtype=np.int8)
        if agent == self.agent_selection:
            mask[self.game.action_masks()] = 1
        return {"observation": self.game.observe(player), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self.game.current_player]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        _, _, terminated, _, _ = self.game.step(action)
        if terminated:
            winner = self.game.winner
            if winner >= 0:
                self.rewards[self.possible_agents[winner]] = 1
                self.rewards[self.possible_agents[1 - winner]] = -1
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()

    def render(self):
        return self.game.render()

    def close(self) -> None:
        self.game.close()


def aec_env(game_id_or_name: str, render_mode: str | None = None, **rules) -> AECEnv:
    """A PettingZoo AEC env of ``game_id_or_name`` (e.g. ``"TicTacToe-v0"``,
    ``"connect4"``: any name :func:`playahead.envs.env_id_of` takes).

    Raises:
        ValueError: unknown game, or rule options the game rejects.
    """
    return BoardGameAEC(_game_class(game_id_or_name), render_mode=render_mode, **rules)
