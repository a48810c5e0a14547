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


def test_encoder_benchmark_measures_every_encoder_against_the_default():
    import pytest

    pytest.importorskip("torch")
    from benchmarks.speed import bench_encoders

    rates = bench_encoders.measure(batch=8, steps=1, rounds=1)
    assert list(rates) == ["default", *bench_encoders.ENCODERS]
    assert all(r > 0 for r in rates.values())
    report = bench_encoders.main(["--batch", "8", "--steps", "1", "--rounds", "1"])
    assert [row.what for row in report.rows] == list(bench_encoders.ENCODERS)
    baselines = {row.baseline_value for row in report.rows}
    assert len(baselines) == 1 and baselines.pop() > 0


def test_ratios_below_one_keep_two_decimals(capsys):
    from benchmarks.common import Report

    report = Report("t")
    report.add("2048", "a", 13.0, "base", 100.0)
    report.add("2048", "b", 250.0, "base", 100.0)
    report.print()
    out = capsys.readouterr().out
    assert "0.13x" in out and "2.5x" in out


def test_no_benchmark_module_imports_the_tests():
    """The benchmarks stand below the tests: a fresh checkout without ``tests/``
    still runs them."""
    import ast
    from pathlib import Path

    import benchmarks

    root = Path(benchmarks.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            found += [
                f"{path.relative_to(root)}: {n}"
                for n in names
                if n == "tests" or n.startswith("tests.")
            ]
    assert found == []


def test_the_memory_benchmark_reads_a_fresh_process():
    """``python -m benchmarks memory``: a fresh process per agent reports its
    resident set and peak, next to the random agent's."""
    from benchmarks.speed import bench_memory

    report = bench_memory.main(["--env", "2048-v0", "--spec", "greedy", "--moves", "3"])
    whats = [row.what for row in report.rows]
    assert whats == ["greedy: resident MB", "greedy: peak MB"]
    for row in report.rows:
        assert row.baseline == "random agent" and 20 < row.baseline_value < 4096
        assert 20 < row.value < 4096
    assert report.rows[1].value >= report.rows[0].value  # the peak is no lower
