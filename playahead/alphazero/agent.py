"""``alphazero``: a PUCT search guided by a trained policy-value net.

``make_agent("alphazero")`` plays Connect Four with the net that ships with playahead
(``playahead/data/connect4-alphazero.npz``) and tic-tac-toe with its own;
``alphazero:path=DIR`` plays a run of ``playahead train alphazero`` (or a ``.npz``
net). ``n_simulations=0`` plays the raw policy: one net call a move.

With simulations the move is the most visited, then the best valued, then one of the
equals picked by the agent's seeded generator; the values are the root edges'
mean results in [-1, 1] for the player to move. The search adds no noise, so the same
seed gives the same decisions.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from playahead.agents import Analysis, register_agent
from playahead.planner import Planner, Root, check_positive

#: env id -> (file under playahead/data, its sha256)
SHIPPED = {
    "ConnectFour-v0": (
        "connect4-alphazero.npz",
        "3b10cad63ac5f3d83a47643a462a332ac444815d382978292a77149d735e3fbd",
    ),
    "TicTacToe-v0": (
        "tictactoe-alphazero.npz",
        "e2d42616738d880da286cb7cdf2d2ac946cd2004ea9bd7c2f0aa8f2a4fd71caf",
    ),
}
DATA = Path(__file__).resolve().parent.parent / "data"
_KINDS = {"connect_four": "ConnectFour-v0", "tictactoe": "TicTacToe-v0"}


def shipped_net_path(env_id: str) -> Path:
    """The packaged net for ``env_id``, its sha256 checked.

    Raises:
        ValueError: no net ships for ``env_id``, or the file is missing or damaged.
    """
    if env_id not in SHIPPED:
        raise ValueError(
            f"no AlphaZero net ships for {env_id}; give path=DIR of a "
            "`playahead train alphazero` run"
        )
    name, sha = SHIPPED[env_id]
    path = DATA / name
    if not path.is_file():
        raise ValueError(f"the packaged AlphaZero net {path} is missing")
    if hashlib.sha256(path.read_bytes()).hexdigest() != sha:
        raise ValueError(
            f"the packaged AlphaZero net {path} is damaged (sha256 is not {sha})"
        )
    return path


class AlphaZeroAgent(Planner):
    """``alphazero``: net-guided PUCT (see the module docstring).

    Args:
        path: a run directory or ``.npz`` net; None: the net shipped for the game.
        n_simulations: simulations a move (0: the raw policy), at most
            :data:`~playahead.alphazero.search.MAX_SIMULATIONS`.
        c_puct: PUCT's exploration constant.
        mirror: evaluate every position as given and mirrored left-right in one net
            call, and average the two answers (see
            :class:`~playahead.alphazero.search.Evaluator`).
        seed: seed of the generator that breaks ties.
    """

    name = "alphazero"

    def __init__(
        self,
        path: str | None = None,
        n_simulations: int = 400,
        c_puct: float = 1.5,
        mirror: bool = False,
        seed: int | None = None,
    ) -> None:
        from playahead.alphazero.kernels import MAX_SIMULATIONS

        super().__init__(seed=seed)
        if (
            isinstance(n_simulations, bool)
            or not isinstance(n_simulations, int)
            or not (0 <= n_simulations <= MAX_SIMULATIONS)
        ):
            raise ValueError(
                f"n_simulations must be an integer in [0, {MAX_SIMULATIONS:,}], "
                f"got {n_simulations!r}"
            )
        self.path = path
        self.n_simulations = n_simulations
        self.c_puct = check_positive("c_puct", c_puct, integer=False)
        if not isinstance(mirror, bool):
            raise ValueError(f"mirror must be true or false, got {mirror!r}")
        self.mirror = mirror
        self._nets: dict[str, tuple] = {}
        if path is not None:
            self._load(None)  # a bad file is refused at once

    def _load(self, env_id: str | None):
        from playahead.alphazero.net import load_net
        from playahead.alphazero.search import Batch, Evaluator, mirror_actions

        key = env_id or "given"
        if key not in self._nets:
            if self.path is None:
                path = shipped_net_path(env_id)
            else:
                path = Path(self.path)
                path = path / "net.npz" if path.is_dir() else path
            net, meta = load_net(path, None)
            import torch

            torch.set_num_threads(1)  # one position a call: more threads only wait
            if env_id is not None and meta["env_id"] != env_id:
                raise ValueError(f"{path} is a net for {meta['env_id']}, not {env_id}")
            from playahead.alphazero.net import GAMES

            game = GAMES[meta["env_id"]]
            batch = Batch.new(game, 1, max(self.n_simulations, 1))
            mirror = mirror_actions(game) if self.mirror else None
            self._nets[key] = (game, Evaluator(net, mirror), batch, meta)
            if env_id is not None and self.path is not None:
                self._nets["given"] = self._nets[key]
        return self._nets[key]

    def _analyze(self, root: Root, rng: np.random.Generator, deadline: float):
        from playahead.alphazero.kernels import game_observe
        from playahead.alphazero.search import root_values, search

        env_id = _KINDS.get(root.kind)
        if env_id is None:
            raise ValueError(
                "alphazero plays ConnectFour-v0 and TicTacToe-v0 (3 x 3), not this env"
            )
        game, evaluate, batch, _ = self._load(env_id if self.path is None else env_id)
        position = _bitboards(root)
        if self.n_simulations == 0:
            obs = np.zeros((1, *batch.obs.shape[1:]), np.float32)
            game_observe(game, position[0], position[1], obs[0])
            logits, _ = evaluate(obs)
            values = np.full(root.mask.shape, np.nan)
            z = logits[0][root.mask] - logits[0][root.mask].max()
            values[root.mask] = np.exp(z) / np.exp(z).sum()
            action = _pick(values, np.zeros_like(values), rng)
            return Analysis(action, values, None, "policy", {"net_calls": 1})
        roots = np.array([position], np.int64)
        active = np.ones(1, np.bool_)
        calls = evaluate.calls
        search(batch, roots, active, evaluate, self.n_simulations, self.c_puct)
        visits, q = root_values(batch.trees, 0)
        values = np.where(root.mask, q, np.nan)
        action = _pick(visits.astype(float), np.nan_to_num(q, nan=-2.0), rng, root.mask)
        return Analysis(
            action,
            values,
            visits,
            "win_rate",
            {"simulations": self.n_simulations, "net_calls": evaluate.calls - calls},
        )


def _pick(primary, secondary, rng, mask=None) -> int:
    """The action with the highest ``primary``, then ``secondary``, ties by ``rng``."""
    p = np.where(np.isnan(primary), -np.inf, primary)
    if mask is not None:
        p = np.where(mask, p, -np.inf)
    best = np.flatnonzero(p == p.max())
    if len(best) > 1:
        s = secondary[best]
        best = best[s == s.max()]
    return int(best[0] if len(best) == 1 else rng.choice(best))


def _bitboards(root: Root) -> tuple[int, int]:
    position = root.env.clone_state().position
    if root.kind == "connect_four":
        return int(position[0]), int(position[1])
    if len(position) != 9:
        raise ValueError("alphazero plays tic-tac-toe on the 3 x 3 board only")
    s0 = sum(1 << i for i, v in enumerate(position) if v == 1)
    s1 = sum(1 << i for i, v in enumerate(position) if v == 2)
    return s0, s1


register_agent(
    "alphazero", AlphaZeroAgent, "PUCT search guided by a self-play policy-value net"
)
