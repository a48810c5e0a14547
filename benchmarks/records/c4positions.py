"""Connect Four positions from seeded games of agents of many strengths: the inputs of
the solver's peer check (:mod:`benchmarks.records.c4solver`) and of the learners' test
set (:mod:`benchmarks.records.c4_perfect`).

Each game draws one agent spec per side from a list (random play, ``mcts`` and
``minimax`` at several budgets, the exact ``solver``) and, with probability ``noise``,
replaces a move by a uniformly random one, so the games wander off the well-trodden
lines. A game gives at most ``per_game`` of its positions (nobody has four yet), at disc
counts whose quota is not yet full; games are played until every quota is full or
``max_games`` games were played. Everything is drawn from one ``np.random.Generator``
seeded with ``seed``, and each agent gets a seed from it, so a seed gives the same
positions.
"""

from __future__ import annotations

import numpy as np

#: Agent specs the games draw from (one per side and game).
PLAYERS = (
    "random",
    "mcts:n_simulations=30",
    "mcts:n_simulations=150",
    "minimax:depth=2",
    "minimax:depth=4",
    "solver:budget=100000,fallback_budget=5000,table_bits=16",
)


def play_positions(
    quotas: dict[int, int],
    seed: int,
    players: tuple[str, ...] = PLAYERS,
    noise: float = 0.1,
    per_game: int = 4,
    max_games: int = 20_000,
) -> list[dict]:
    """Positions ``{"moves", "discs", "players"}`` filling ``quotas`` (disc count ->
    number of positions), each a distinct move string, in the order found."""
    import playahead  # noqa: F401  (registers the envs and agents)
    from playahead.agents import make_agent
    from playahead.envs.connect_four import ConnectFourEnv
    from playahead.games import connect_four as c4

    rng = np.random.default_rng(seed)
    need = dict(quotas)
    seen: set[str] = set()
    out: list[dict] = []
    for _ in range(max_games):
        if not any(need.values()):
            break
        specs = [players[int(rng.integers(len(players)))] for _ in range(2)]
        agents = [make_agent(s, seed=int(rng.integers(2**31))) for s in specs]
        env = ConnectFourEnv(opponent=None)
        env.reset(seed=int(rng.integers(2**31)))
        moves, candidates = "", []
        while True:
            state = env.unwrapped.clone_state().position
            if c4.is_terminal(state):
                break
            if need.get(len(moves), 0) > 0 and moves not in seen:
                candidates.append(moves)
            mask = np.asarray(env.unwrapped.action_masks(), dtype=bool)
            if rng.random() < noise:
                col = int(rng.choice(np.flatnonzero(mask)))
            else:
                col = int(agents[len(moves) % 2].act(env))
            env.step(col)
            moves += str(col + 1)
        picks = rng.permutation(len(candidates))[:per_game]
        for i in sorted(picks):
            m = candidates[i]
            if need.get(len(m), 0) > 0 and m not in seen:
                need[len(m)] -= 1
                seen.add(m)
                out.append({"moves": m, "discs": len(m), "players": "/".join(specs)})
                if len(out) % 100 == 0:
                    print(f"{len(out)} positions", flush=True)
    return out
