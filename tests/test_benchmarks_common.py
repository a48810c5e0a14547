"""The benchmarks' interleaved timing: calls alternate between the sides of a ratio
and each side reports its median."""

from benchmarks.common import interleaved


def test_interleaved_alternates_and_takes_medians():
    calls = []

    def rate(name, values):
        it = iter(values)

        def call():
            calls.append(name)
            return next(it)

        return call

    ours, theirs, missing = interleaved(
        [rate("ours", [5, 1, 3]), rate("theirs", [2, 9, 4]), rate("none", [None] * 3)]
    )
    assert calls == ["ours", "theirs", "none"] * 3
    assert (ours, theirs, missing) == (3, 4, None)


def test_sampled_states_are_every_kth_position_of_seeded_games_never_the_last():
    import gymnasium as gym

    from benchmarks.common import sampled_states
    from playahead.planners.basic import RandomAgent

    got = list(sampled_states("2048-v0", RandomAgent(seed=0), 5, 10, range(2)))
    env, agent, want = gym.make("2048-v0"), RandomAgent(seed=0), []
    for seed in range(2):  # the same games, written out
        env.reset(seed=seed)
        boards, over = [], False
        while not over:
            _, _, over, _, _ = env.step(agent.act(env))
            boards.append(None if over else env.unwrapped.clone_state().board)
        picked = enumerate(boards, 1)
        want += [b for m, b in picked if m >= 10 and m % 5 == 0 and b is not None]
    assert [s.board for s in got] == want and len(want) > 2
