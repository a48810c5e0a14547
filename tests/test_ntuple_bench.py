"""``python -m benchmarks ntuple``: the learning curve, the ablation rows and the
reading of ziap/2048-tdl's output (a stand-in script prints it here)."""

from __future__ import annotations

import json
import stat

import numpy as np

from benchmarks.speed import bench_ntuple
from playahead.ntuple.model import load_model

ZIAP_AGENT_OUTPUT = """progress: 1000/1000    thread: #0
avg:    61000    max:   200000
m/s:   126534    elapsed: 30s
avg:    66476    max:   333936
   8192   14.30%
   4096   67.40%
   2048   91.10%
   1024   97.90%
"""


def test_ziap_figures_are_read_from_its_output(tmp_path):
    fake = tmp_path / "2048"
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{tmp_path}/calls"\n'
        'if [ "$1" = agent ]; then cat <<EOF\n' + ZIAP_AGENT_OUTPUT + "EOF\nfi\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    got = bench_ntuple.run_ziap(tmp_path, 6000)
    assert got["eval_score_mean"] == 66476.0  # the last average, after all games
    assert got["reached"] == {"2048": 0.911, "4096": 0.674, "8192": 0.143}
    assert got["train_cpu_seconds"] >= 0 and got["train_games"] == 6000
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["train -e 6 -a 1.0 -l 0.5 -c -r -o", "agent -e 1000"]


TDL_TRAIN_OUTPUT = """optimize: 2x1000

001/002 301ms 1663963.46ops
local:  avg=7404 max=23364 tile=2048 win=0.30%

002/002 462ms 1476153.68ops
local:  avg=10856 max=33356 tile=2048 win=2.60%
"""
TDL_EVAL_OUTPUT = """evaluate: 1x1000 info

001/001 860ms 1090551.16ops
total:  avg=16051 max=43300 tile=2048 win=16.30%

summary 860ms 1090551.16ops
total:  avg=16051 max=43300 tile=2048 win=16.30%
tile     count   score    move     rate      win
1024       602   15955     947   60.20%   76.50%
2048       163   27945    1453   16.30%   16.30%
"""


def test_tdl_figures_are_read_from_its_output(tmp_path):
    """TDL2048+ is built once (a stand-in source with a makefile here), trained
    without a weight file on the clock, saved once for its greedy games, and its
    moves and scores read from its output."""
    source = tmp_path / "source"
    source.mkdir()
    script = (
        "#!/bin/sh\n"
        f'printf "%s\\n" "$*" >> "{tmp_path}/calls"\n'
        'case "$*" in *"-e 1x1000"*) cat <<EOF\n' + TDL_EVAL_OUTPUT + "EOF\n;;\n"
        "*) cat <<EOF\n" + TDL_TRAIN_OUTPUT + "EOF\n;;\nesac\n"
    )
    (source / "stand-in").write_text(script)
    (source / "makefile").write_text("all:\n\tcp stand-in 2048 && chmod +x 2048\n")
    build = tmp_path / "build"
    binary = bench_ntuple.build_tdl(source, build)
    assert binary == build / "2048" and binary.is_file()
    assert bench_ntuple.build_tdl(tmp_path / "gone", build) == binary  # built once
    assert bench_ntuple.build_tdl(tmp_path / "gone", tmp_path / "none") is None
    got = bench_ntuple.run_tdl(binary, 2000)
    assert got["td0"]["moves"] == round(
        301 * 1663963.46 / 1000 + 462 * 1476153.68 / 1000
    )
    assert got["eval"]["score_mean"] == 16051.0
    assert got["eval"]["tile_rates"] == {"1024": 0.602, "2048": 0.163}
    assert got["recipe"]["cpu_seconds"] >= 0 and got["recipe"]["games"] == 2000
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == [
        "-n 4x6patt -t 2x1000 -s 1",
        "-n 4x6patt -t 2x1000 -a 1.0 -l 0.5 -tt restart -s 1",
        "-n 4x6patt -t 2x1000 -a 1.0 -l 0.5 -tt restart -s 1 -o r.w",
        "-n 4x6patt -e 1x1000 -i r.w -s 7",
    ]


def test_td0_is_timed_in_rounds_and_the_least_cpu_counts(tmp_path, monkeypatch):
    """TD(0) runs in rounds, TDL2048+, ours online and ours backward in turn; each
    side keeps every run's CPU and counts the least, and the same seed learns the
    same net every round."""
    later = [3.0, 2.0, 5.0, 2.5][: bench_ntuple.TD0_ROUNDS - 1]
    cpu = iter(later)
    monkeypatch.setattr(bench_ntuple, "tdl_td0", lambda binary, games: ("", next(cpu)))
    tdl = {"td0": {"cpu_seconds": 4.0, "cpu_seconds_runs": [4.0]}}
    got = bench_ntuple.against_tdl(tmp_path, 3, 0, tdl, binary="stand-in")
    assert tdl["td0"]["cpu_seconds_runs"] == [4.0, *later]
    assert tdl["td0"]["cpu_seconds"] == min([4.0, *later])
    for key in ("td0_online", "td0"):
        final = got["ours"][key]["final"]
        assert len(final["cpu_seconds_runs"]) == bench_ntuple.TD0_ROUNDS
        assert final["cpu_seconds"] == min(final["cpu_seconds_runs"])
    assert got["ours"]["td0_online"]["recipe"]["online"] is True
    assert "online" not in got["ours"]["td0"]["recipe"]
    nets = [load_model(tmp_path / f"tdl-td0-{r}").weights for r in range(3)]
    assert all(np.array_equal(nets[0], net) for net in nets[1:])


def test_curve_and_ablation_records(tmp_path):
    argv = ["--curve-games", "40", "--curve-every", "20", "--curve-eval", "4"]
    argv += ["--ablation", "40", "--games", "2", "--repeats", "1", "--warmup", "4"]
    argv += ["--tdl-games", "0"]
    argv += ["--record", str(tmp_path), "--runs", str(tmp_path / "runs")]
    report = bench_ntuple.main(argv)
    curve = json.loads((tmp_path / "curve-40.json").read_text())
    assert curve["command"].startswith(
        "python -m benchmarks.speed.bench_ntuple --curve"
    )
    assert str(tmp_path) not in curve["command"]  # no path of this machine
    rows = curve["ours"]["rows"]
    assert [r["games"] for r in rows] == [20, 40]
    assert rows[1]["cpu_seconds"] > rows[0]["cpu_seconds"] > 0
    assert rows[1]["updates"] > rows[1]["moves"]  # the restarts' episodes
    assert curve["ours"]["recipe"] == {
        "lr": 1.0,
        "tc": True,
        "lambda": 0.5,
        "restarts": True,
    }
    final = curve["ours"]["final"]
    assert len(final["scores"]) == 4 and final["ci95"][0] <= final["score_mean"]
    ablation = json.loads((tmp_path / "ablation-40.json").read_text())["runs"]
    assert list(ablation) == list(bench_ntuple.ABLATION)
    assert ablation["+restarts (default)"] == curve["ours"]  # the same run, once
    assert ablation["TD(0)"]["recipe"] == {
        "lr": 0.1,
        "tc": False,
        "lambda": 0.0,
        "restarts": False,
    }
    measures = [row.what for row in report.rows]
    assert sum("greedy at 40 games" in m for m in measures) == 4


def test_the_two_worker_speed_up_is_read_from_both_runs():
    """``--workers-games``: one worker and two train the same games from the same
    net, and the speed-up is the ratio of their updates per wall second."""
    got = bench_ntuple.measure_workers(2, 4)
    one, two = got["runs"][1], got["runs"][2]
    assert one["games"] == two["games"] == 4 and got["warm_games"] == 2
    assert one["updates"] > 0 and two["updates"] > 0
    ratio = two["updates_per_wall_s"] / one["updates_per_wall_s"]
    assert got["speedup"] == round(ratio, 3)


def test_the_td0_timing_runs_each_round_in_a_new_process(capsys):
    """``count_td_instructions --time``: one CPU time per round, from the training
    the instruction count runs (its script also prints the moves it counts by)."""
    from benchmarks.speed import count_td_instructions as count

    runs = count.timed(3, 2)
    assert len(runs) == 2
    assert all(r > 0 for r in runs)
    count.main(["--games", "3", "--time", "1"])
    assert capsys.readouterr().out.startswith("ours: 3 games in ")


def test_an_instruction_count_is_the_difference_of_two_runs(monkeypatch):
    """``count_td_instructions`` and ``bench_expectimax --count``: a first run
    compiles, then the run without work is taken from the run with it, over the
    moves (or positions) the second prints."""
    from benchmarks.speed import bench_expectimax
    from benchmarks.speed import count_td_instructions as count

    calls = []

    def fake(command, cwd):
        calls.append(command[-1])
        if command[-1] == "0":
            return 1_000, ""
        return 8_000, "7 0.5\n2048 default: 5 positions, 1.0 CPU ms\n"

    monkeypatch.setattr(count, "_count", fake)
    assert count.ours(7) == 1_000.0
    assert calls == ["0", "0", "7"]
    assert bench_expectimax.counted_decisions() == 1_400.0
    assert calls[3:] == ["0", "0", "1"]
