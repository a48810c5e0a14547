"""Training, the model format, the ``ntuple`` agent, ``train ntuple --resume``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import playahead  # noqa: F401  (registers the envs)
from playahead.agents import make_agent
from playahead.ntuple.model import NTupleModel, load_model
from playahead.ntuple.train import evaluate, train_ntuple

SMALL = ("0123", "4567", "0145", "4589")


TD0 = {"tc": False, "lam": 0.0, "restarts": False}


def _train(tmp_path, name, games, seed=0, eval_every=None, env_id="2048-v0", **kw):
    """A small run; a new one trains by plain TD(0) unless ``kw`` says otherwise
    (``recipe=True``: the env's default recipe)."""
    if not kw.pop("recipe", False) and not kw.get("resume"):
        kw = {**TD0, **kw}
    kw.setdefault("patterns", SMALL)
    return train_ntuple(
        env_id,
        games,
        tmp_path / name,
        seed=seed,
        eval_every=eval_every or games,
        eval_games=5,
        progress=False,
        tensorboard=False,
        **kw,
    )


def test_training_improves_greedy_mean_on_fixed_seeds(tmp_path):
    untrained = NTupleModel.new("2048-v0", SMALL)
    path = _train(tmp_path, "a", 3000)
    trained = load_model(path)
    before = evaluate(untrained, 40, first_seed=5)[:, 0].mean()
    after = evaluate(trained, 40, first_seed=5)[:, 0].mean()
    assert after > 1.5 * before


def test_threes_training_improves_greedy_mean_on_fixed_seeds(tmp_path):
    """A few thousand Threes games (the value sees the preview code) lift the greedy
    mean well above the untrained net's (about 480 on these seeds, near random)."""
    untrained = NTupleModel.new("Threes-v0", SMALL)
    path = _train(tmp_path, "t", 3000, env_id="Threes-v0")
    before = evaluate(untrained, 40, first_seed=5)[:, 0].mean()
    after = evaluate(load_model(path), 40, first_seed=5)[:, 0].mean()
    assert after > 2 * before


def test_same_seed_same_weights_and_round_trip(tmp_path):
    a = load_model(_train(tmp_path, "a", 200, seed=7))
    b = load_model(_train(tmp_path, "b", 200, seed=7))
    c = load_model(_train(tmp_path, "c", 200, seed=8))
    np.testing.assert_array_equal(a.weights, b.weights)
    assert not np.array_equal(a.weights, c.weights)
    a.save(tmp_path / "copy")
    again = load_model(tmp_path / "copy")
    np.testing.assert_array_equal(a.weights, again.weights)
    assert again.patterns == SMALL and again.meta["games"] == 200


def test_threes_sees_the_preview(tmp_path):
    path = _train(tmp_path, "t", 100, env_id="Threes-v0")
    model = load_model(path, "Threes-v0")
    assert model.weights.shape == (4, 4, 16**4)
    touched = (model.weights != 0).any(axis=(0, 2))
    assert touched[:3].all()  # the three basic previews each learned something
    env = gym.make("Threes-v0")
    env.reset(seed=3)
    agent = make_agent(f"ntuple:path={path}", seed=0)
    assert env.unwrapped.action_masks()[agent.act(env)]


def _bad(tmp_path, good, name):
    bad = tmp_path / name
    bad.mkdir()
    for f in ("model.json", "weights.npz"):
        (bad / f).write_bytes((good / f).read_bytes())
    return bad


def test_bad_files_give_clear_errors(tmp_path):
    good = _train(tmp_path, "good", 20)
    with pytest.raises(ValueError, match="not 'Threes-v0'|not Threes-v0"):
        load_model(good, "Threes-v0")
    bad = _bad(tmp_path, good, "random")
    (bad / "weights.npz").write_bytes(np.random.default_rng(0).bytes(500))
    with pytest.raises(ValueError, match="cannot be read"):
        load_model(bad)
    bad = _bad(tmp_path, good, "pickle")
    np.savez(bad / "weights.npz", index=np.array([object()]), value=1, fill=0, shape=1)
    with pytest.raises(ValueError, match="pickled"):
        load_model(bad)
    bad = _bad(tmp_path, good, "missing")
    np.savez(bad / "weights.npz", index=np.arange(3))
    with pytest.raises(ValueError, match="lacks"):
        load_model(bad)
    bad = _bad(tmp_path, good, "foreign")
    (bad / "model.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(ValueError, match="format"):
        load_model(bad)
    bad = _bad(tmp_path, good, "notjson")
    (bad / "model.json").write_bytes(b"\x80\x81 not json")
    with pytest.raises(ValueError, match="not JSON"):
        load_model(bad)
    bad = _bad(tmp_path, good, "wrongenv")
    meta = json.loads((bad / "model.json").read_text())
    meta["env_id"] = "Threes-v0"  # 2048 weights under a Threes label
    (bad / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="shape"):
        load_model(bad)
    with pytest.raises(ValueError, match="missing"):
        load_model(tmp_path / "nowhere")


def _torn_save(monkeypatch, model, out, renamed=()):
    """``model.save(out)`` stopped by a crash after its list of staged files is in
    place and after renaming only ``renamed`` of them."""
    from playahead.ntuple import model as model_module

    def crash(out):
        for name in renamed:
            (out / model_module._staged(name)).replace(out / name)
        raise SystemExit("crash")

    with monkeypatch.context() as m:
        m.setattr(model_module, "finish_checkpoint", crash)
        with pytest.raises(SystemExit):
            model.save(out)


@pytest.mark.parametrize("renamed", [(), ("weights.npz",), ("model.json",)])
def test_a_checkpoint_cut_by_a_crash_is_finished_never_torn(
    tmp_path, monkeypatch, renamed
):
    """New weights never sit beside old counters, whichever rename a crash
    interrupts: the next load finishes the written checkpoint."""
    out = _train(tmp_path, "run", 100)
    newer = load_model(_train(tmp_path, "newer", 200))
    _torn_save(monkeypatch, newer, out, renamed)
    again = load_model(out)
    assert again.meta["games"] == 200
    np.testing.assert_array_equal(again.weights, newer.weights)
    assert sorted(p.name for p in out.iterdir()) == [
        "model.json",
        "progress.csv",
        "weights.npz",
    ]


def test_a_crash_before_the_checkpoint_is_listed_keeps_the_previous_one(tmp_path):
    from playahead.ntuple.model import _staged

    out = _train(tmp_path, "run", 100)
    before = load_model(out)
    newer = load_model(_train(tmp_path, "newer", 200))
    newer.save(tmp_path / "staged")  # a save that crashed while staging leaves
    for name in ("weights.npz", "model.json"):  # its files under staged names only
        (tmp_path / "staged" / name).replace(out / _staged(name))
    again = load_model(out)
    assert again.meta["games"] == 100
    np.testing.assert_array_equal(again.weights, before.weights)
    newer.save(out)  # and the next checkpoint overwrites the leftovers
    assert load_model(out).meta["games"] == 200


@pytest.mark.parametrize(
    ("listing", "message"),
    [
        (b'["../../elsewhere", "model.json"]', "lists other files"),
        (b'{"weights.npz": 1}', "lists other files"),
        (b"\x80 not json", "not a list of checkpoint files"),
    ],
)
def test_a_foreign_checkpoint_listing_is_refused_and_renames_nothing(
    tmp_path, listing, message
):
    out = _train(tmp_path, "run", 100)
    (out / "checkpoint.pending").write_bytes(listing)
    files = sorted(p.name for p in out.iterdir())
    with pytest.raises(ValueError, match=message):
        load_model(out)
    assert sorted(p.name for p in out.iterdir()) == files


def test_agent_plays_greedy_on_values(tmp_path):
    path = _train(tmp_path, "a", 300)
    agent = make_agent(f"ntuple:path={path}", seed=0)
    env = gym.make("2048-v0")
    env.reset(seed=1)
    analysis = agent.analyze(env)
    legal = env.unwrapped.action_masks()
    assert np.isnan(analysis.values[~legal]).all()
    assert analysis.values[analysis.action] == np.nanmax(analysis.values)
    with pytest.raises(ValueError, match="plays 2048-v0"):
        agent.act(_threes())


def test_players_share_a_loaded_net_until_it_is_saved_again(tmp_path):
    """An evaluator builds an agent per game: the net is read once per process, and
    a net saved again over the same directory is read again."""
    from playahead.ntuple.model import shared_model

    path = _train(tmp_path, "a", 200)
    first = make_agent(f"ntuple:path={path}", seed=0)
    second = make_agent(f"ntuple:path={path}", seed=1)
    assert second.model is first.model is shared_model(path / "model.json")
    with pytest.raises(ValueError, match="for 2048-v0, not Threes-v0"):
        shared_model(path, "Threes-v0")
    changed = load_model(path)
    changed.weights += 1.0
    changed.save(path)
    again = shared_model(path)
    assert again is not first.model
    np.testing.assert_array_equal(again.weights, first.model.weights + 1.0)
    with pytest.raises(ValueError, match="model.json is missing"):
        shared_model(tmp_path)


def _threes():
    env = gym.make("Threes-v0")
    env.reset(seed=0)
    return env


def test_cli_resume_continues(tmp_path):
    out = tmp_path / "run"
    base = [sys.executable, "-m", "playahead", "train", "ntuple", "--env", "2048-v0"]
    opts = ["--out", str(out), "--patterns", "0123,4567", "--eval-every", "50"]
    opts += ["--eval-games", "2", "--no-progress"]
    subprocess.run([*base, "--games", "50", *opts], check=True, capture_output=True)
    first = json.loads((out / "model.json").read_text())
    subprocess.run(
        [*base, "--games", "100", *opts, "--resume"], check=True, capture_output=True
    )
    second = json.loads((out / "model.json").read_text())
    assert (first["games"], second["games"]) == (50, 100)
    assert second["moves"] > first["moves"]
    rows = (out / "progress.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["50", "100"]
    bad = subprocess.run(
        [*base, "--games", "5", "--out", str(tmp_path / "x"), "--patterns", "01z"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "hex cells" in bad.stderr


#: the CLI command of a long 2048 run with a checkpoint every 200 games
_LONG = [sys.executable, "-m", "playahead", "train", "ntuple", "--env", "2048-v0"]
_LONG += ["--games", "50000000", "--patterns", ",".join(SMALL), "--eval-every", "200"]
_LONG += ["--eval-games", "2", "--no-progress", "--no-tensorboard"]


def _live_run(out):
    """A long run training into ``out`` (a subprocess), once its first checkpoint is
    written."""
    import time

    proc = subprocess.Popen(
        [*_LONG, "--out", str(out)], stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while not (out / "model.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc


def test_a_second_run_into_a_live_runs_directory_is_refused(tmp_path):
    """While a run trains into a directory, another run into it (or into a copy put
    in its place) gets a one-line error and touches nothing; once the live run has
    stopped and saved, the directory resumes."""
    import signal

    out = tmp_path / "run"
    proc = _live_run(out)
    try:
        with pytest.raises(ValueError, match="another run is training into") as err:
            _train(tmp_path, "run", 2000, resume=True)
        assert "\n" not in str(err.value)
        # a copy put in the live run's place is its directory still
        shutil.copytree(out, tmp_path / "copy")
        shutil.rmtree(out)
        shutil.copytree(tmp_path / "copy", out)
        cli = subprocess.run(
            [*_LONG[:5], "--env", "2048-v0", "--games", "2000", "--out", str(out)]
            + ["--resume", "--no-progress", "--no-tensorboard"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert cli.returncode != 0
        assert cli.stderr.strip().splitlines() == [
            f"playahead train ntuple: another run is training into {out} (it holds "
            f"{tmp_path / '.run.lock'}); let it finish or stop it, and wait for its "
            "checkpoint, before starting this one"
        ]
        # another directory trains meanwhile
        assert load_model(_train(tmp_path, "other", 300)).meta["games"] == 300
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    stopped = load_model(out).meta["games"]
    resumed = load_model(_train(tmp_path, "run", stopped + 300, resume=True))
    assert resumed.meta["games"] == stopped + 300


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT", "SIGKILL"])
def test_a_stopped_run_resumes_to_the_same_network(tmp_path, signame):
    """The default recipe (TD(lambda), TC accumulators, restarts), stopped by
    ``kill`` or Ctrl-C (a checkpoint after the current chunk of games) or by
    ``kill -9`` (the last checkpoint stays): resuming trains the network one
    uninterrupted run trains, with no evaluation row written twice."""
    import signal
    import time

    sig = getattr(signal, signame)
    out = tmp_path / "run"
    proc = _live_run(out)
    try:
        time.sleep(0.3)  # past the first checkpoint, into the next chunks
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130 and "--resume" in err, err
    stopped = load_model(out).meta["games"]
    assert 200 <= stopped < 50_000_000
    total = stopped + 300
    resumed = load_model(_train(tmp_path, "run", total, resume=True))
    one = load_model(_train(tmp_path, "one", total, recipe=True))
    assert resumed.meta["games"] == one.meta["games"] == total
    assert (one.meta["tc"], one.meta["lambda"], one.meta["restarts"]) == (
        True,
        0.5,
        True,
    )
    np.testing.assert_array_equal(resumed.weights, one.weights)
    games = [r.split(",")[0] for r in (out / "progress.csv").read_text().split()[1:]]
    assert len(games) == len(set(games)) and games[-1] == str(total)


def _ctrl_c_at_the_first_evaluation(monkeypatch):
    """Ctrl-C (SIGINT) arrives during the run's first evaluation, and only then."""
    import signal

    import playahead.ntuple.train as train_mod

    real = train_mod.evaluate

    def stop_here(*args, **kw):
        signal.raise_signal(signal.SIGINT)
        monkeypatch.setattr(train_mod, "evaluate", real)
        return real(*args, **kw)

    monkeypatch.setattr(train_mod, "evaluate", stop_here)


def test_a_stopped_run_with_start_positions_says_how_to_resume_it(
    tmp_path, monkeypatch, capsys
):
    """The printed resume line names the positions, which a resume must pass
    again; following it resumes."""
    _ctrl_c_at_the_first_evaluation(monkeypatch)
    starts = _positions(tmp_path, "Threes-v0", n=3)
    kw = {"eval_every": 10, "env_id": "Threes-v0", "starts": starts}
    with pytest.raises(KeyboardInterrupt):
        _train(tmp_path, "s", 40, start_share=0.75, **kw)
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"--resume --starts {starts} --start-share 0.75" in line, line
    assert load_model(tmp_path / "s").meta["games"] == 10
    _train(tmp_path, "s", 40, resume=True, start_share=0.75, **kw)
    assert load_model(tmp_path / "s").meta["games"] == 40


def test_a_stopped_run_says_to_resume_with_its_workers_and_evaluations(
    tmp_path, monkeypatch, capsys
):
    """A resume takes one worker and the default evaluations unless told, so the
    printed resume line names the run's where they are not the defaults, and a
    resume that follows it writes its rows at the run's cadence."""
    _ctrl_c_at_the_first_evaluation(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        _train(tmp_path, "w", 40, eval_every=10, workers=2)
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.endswith("--resume --eval-every 10 --eval-games 5 --workers 2"), line
    _train(tmp_path, "w", 40, eval_every=10, workers=2, resume=True)
    rows = (tmp_path / "w" / "progress.csv").read_text().split()[1:]
    assert [r.split(",")[0] for r in rows] == ["10", "20", "30", "40"]


def test_a_second_signal_during_the_checkpoint_still_says_how_to_resume(
    tmp_path, monkeypatch, capsys
):
    """Ctrl-C twice, the second while the checkpoint is written: the run stops once
    the checkpoint is whole and prints the line that resumes from it."""
    import signal

    _ctrl_c_at_the_first_evaluation(monkeypatch)
    real = NTupleModel.save

    def save_under_a_second_signal(self, *args, **kw):
        signal.raise_signal(signal.SIGINT)
        return real(self, *args, **kw)

    monkeypatch.setattr(NTupleModel, "save", save_under_a_second_signal)
    with pytest.raises(KeyboardInterrupt):
        _train(tmp_path, "twice", 40, eval_every=10)
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"interrupted: saved {tmp_path / 'twice'} at 10 games")
    assert load_model(tmp_path / "twice").meta["games"] == 10


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_second_signal_stops_at_once_but_never_inside_a_checkpoint(signame):
    import signal

    from playahead.ntuple.train import _StopRequest

    sig = getattr(signal, signame)
    before = signal.getsignal(sig)
    stop = _StopRequest()
    stop.install()
    written = []
    try:
        signal.raise_signal(sig)
        assert stop.signum == sig  # the first one only asks
        with pytest.raises(KeyboardInterrupt):
            with stop.deferred():
                signal.raise_signal(sig)
                written.append("the whole checkpoint")
        assert written == ["the whole checkpoint"]
        with pytest.raises(KeyboardInterrupt):  # outside a checkpoint: at once
            signal.raise_signal(sig)
    finally:
        stop.restore()
    assert signal.getsignal(sig) is before


def test_train_ntuple_needs_no_torch(tmp_path):
    code = (
        "import sys\n"
        "for m in ('torch', 'stable_baselines3', 'sb3_contrib'):\n"
        "    sys.modules[m] = None\n"
        "from playahead.cli import main\n"
        "sys.argv = ['playahead', 'train', 'ntuple', '--env', '2048-v0', '--games',"
        " '5', '--patterns', '01', '--no-progress', '--tc',"
        f" '--out', {str(tmp_path / 'r')!r}]\n"
        "main()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    model = load_model(tmp_path / "r")
    assert model.meta["games"] == 5 and model.meta["tc"] is True
    assert (tmp_path / "r" / "tc_a.npz").is_file()


@pytest.mark.parametrize("tc", [False, True])
def test_resumed_run_equals_one_run(tmp_path, tc):
    """A run stopped at a checkpoint and resumed ends with the network of the same
    run done in one go (RNG state and, with TC, the accumulators are restored)."""
    one = load_model(_train(tmp_path, "one", 60, eval_every=30, tc=tc))
    _train(tmp_path, "two", 30, eval_every=30, tc=tc)
    two = load_model(_train(tmp_path, "two", 60, eval_every=30, resume=True))
    np.testing.assert_array_equal(one.weights, two.weights)
    assert two.meta["tc"] is tc and two.meta["games"] == 60
    plain = load_model(_train(tmp_path, "plain", 60, eval_every=30))
    assert tc == (not np.array_equal(one.weights, plain.weights))


def test_resume_with_a_new_rate_is_recorded_and_reproducible(tmp_path):
    runs = []
    for name in ("a", "b"):
        _train(tmp_path, name, 30)
        runs.append(load_model(_train(tmp_path, name, 60, resume=True, lr=0.01)))
    np.testing.assert_array_equal(runs[0].weights, runs[1].weights)
    assert runs[0].meta["lr"] == 0.01
    plain = {"tc": False, "lambda": 0.0, "restarts": False}
    assert runs[0].meta["schedule"] == [
        {"from_game": 0, "lr": 0.1, **plain},
        {"from_game": 30, "lr": 0.01, **plain},
    ]
    _train(tmp_path, "same", 30)
    same = load_model(_train(tmp_path, "same", 60, resume=True))
    assert "schedule" not in same.meta
    assert not np.array_equal(same.weights, runs[0].weights)


def test_tc_switched_on_at_resume_starts_fresh_and_survives_a_checkpoint(tmp_path):
    """Switched on at game 30: one resume to 90 equals a resume to 60 and another to
    90 (the accumulators started at zero and were saved at the checkpoint)."""
    _train(tmp_path, "one", 30, eval_every=30)
    one = load_model(_train(tmp_path, "one", 90, eval_every=30, resume=True, tc=True))
    _train(tmp_path, "two", 30, eval_every=30)
    _train(tmp_path, "two", 60, eval_every=30, resume=True, tc=True)
    two = load_model(_train(tmp_path, "two", 90, eval_every=30, resume=True))
    np.testing.assert_array_equal(one.weights, two.weights)
    assert two.meta["tc"] is True and two.meta["schedule"][-1] == {
        "from_game": 30,
        "lr": 0.1,
        "tc": True,
        "lambda": 0.0,
        "restarts": False,
    }
    assert (tmp_path / "two" / "tc_e.npz").is_file()


def test_online_td_is_recorded_resumed_and_switched_on_at_a_resume(tmp_path):
    """``online=True`` learns during the game: recorded in the model, a resumed run
    equals one run, it learns another net than the backward pass, and switching it
    on at a resume is a schedule entry. On 2048 it takes lambda 0 by itself, and a
    run of lambda 0.5 cannot resume online without --lambda 0."""
    one = load_model(_train(tmp_path, "one", 60, eval_every=30, online=True))
    _train(tmp_path, "two", 30, eval_every=30, online=True)
    two = load_model(_train(tmp_path, "two", 60, eval_every=30, resume=True))
    np.testing.assert_array_equal(one.weights, two.weights)
    assert two.meta["online"] is True and "schedule" not in two.meta
    backward = load_model(_train(tmp_path, "backward", 60, eval_every=30))
    assert not np.array_equal(one.weights, backward.weights)
    assert "online" not in backward.meta
    _train(tmp_path, "switch", 30, eval_every=30)
    switched = load_model(_train(tmp_path, "switch", 60, resume=True, online=True))
    plain = {"tc": False, "lambda": 0.0, "restarts": False}
    assert switched.meta["schedule"] == [
        {"from_game": 0, "lr": 0.1, **plain},
        {"from_game": 30, "lr": 0.1, **plain, "online": True},
    ]
    recipe = load_model(_train(tmp_path, "recipe", 20, recipe=True, online=True))
    assert (recipe.meta["lambda"], recipe.meta["tc"], recipe.meta["online"]) == (
        0.0,
        True,
        True,
    )
    _train(tmp_path, "lam", 20, recipe=True)
    with pytest.raises(ValueError, match="resume it with --lambda 0"):
        _train(tmp_path, "lam", 40, resume=True, online=True)


def test_cli_changes_rate_and_tc_on_resume(tmp_path):
    out = tmp_path / "run"
    base = [sys.executable, "-m", "playahead", "train", "ntuple", "--env", "2048-v0"]
    opts = ["--out", str(out), "--patterns", "0123", "--eval-games", "2"]
    opts += ["--no-progress", "--no-tensorboard"]
    subprocess.run([*base, "--games", "20", "--tc", *opts], check=True)
    subprocess.run(
        [*base, "--games", "40", *opts, "--resume", "--lr", "0.05", "--no-tc"]
        + ["--lambda", "0.25", "--no-restarts"],
        check=True,
    )
    meta = json.loads((out / "model.json").read_text())
    assert (meta["lr"], meta["tc"], meta["games"]) == (0.05, False, 40)
    assert meta["schedule"] == [
        {"from_game": 0, "lr": 1.0, "tc": True, "lambda": 0.5, "restarts": True},
        {"from_game": 20, "lr": 0.05, "tc": False, "lambda": 0.25, "restarts": False},
    ]


@pytest.mark.kernel
def test_multi_stage_net_trains_saves_and_plays(tmp_path):
    from tests import naive_ntuple as naive

    path = _train(tmp_path, "ms", 60, env_id="Threes-v0", stages="24,96")
    model = load_model(path, "Threes-v0")
    assert model.stages == (24, 96) and model.stage_ranks.tolist() == [6, 8]
    assert model.weights.shape == (4, 4 * 3, 16**4)
    assert json.loads((path / "model.json").read_text())["stages"] == [24, 96]
    assert (model.weights[:, 4:8] != 0).any()  # the second stage learned too
    env = _threes()
    for _ in range(60):  # into the second stage: a 24 on the board
        if _top(env) >= 24:
            break
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert _top(env) >= 24
    agent = make_agent(f"ntuple:path={path}", seed=0)
    got = agent.analyze(env).values
    state = env.unwrapped.clone_state()
    from playahead.games import threes
    from playahead.kernels.ntuple import preview_code

    moves, rewards, _ = threes.tables(True)
    code = preview_code(np.int64(state.cards))
    so_far = threes.score_faces(threes.to_faces(state.board))  # values: final scores
    cells = [tuple(int(c, 16) for c in p) for p in model.patterns]
    for a in range(4):
        after, moved, r = threes.move(np.uint64(state.board), a, moves, rewards)
        if not moved:
            assert np.isnan(got[a])
            continue
        c = naive.staged(np.uint64(after), int(code), 4, (6, 8))
        want = so_far + r + naive.value(np.uint64(after), c, model.weights, cells)
        assert got[a] == pytest.approx(want, rel=1e-12)
    again = load_model(model.save(tmp_path / "copy"))
    assert again.stages == (24, 96)
    np.testing.assert_array_equal(again.weights, model.weights)


def _top(env):
    from playahead.games import threes

    board = threes.to_faces(env.unwrapped.clone_state().board)
    return int(np.max(board))


@pytest.mark.parametrize(
    ("env_id", "stages", "match"),
    [
        ("Threes-v0", "384,100", "not a tile"),
        ("Threes-v0", "768,384", "ascending"),
        ("2048-v0", "4096,2048", "ascending"),
        ("2048-v0", "3", "not a tile"),
        ("2048-v0", "64,128,256,512", "at most"),
    ],
)
def test_bad_stages_are_refused(tmp_path, env_id, stages, match):
    with pytest.raises(ValueError, match=match):
        _train(tmp_path, "bad", 5, env_id=env_id, stages=stages)
    assert not (tmp_path / "bad").exists()
    good = _train(tmp_path, "good", 5, env_id=env_id)
    meta = json.loads((good / "model.json").read_text())
    meta["stages"] = stages.split(",")
    (good / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=match):
        load_model(good)


def test_cli_trains_a_multi_stage_net(tmp_path):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "playahead", "train", "ntuple", "--env", "2048-v0"]
    cmd += ["--games", "10", "--patterns", "0123", "--stages", "64", "--out", str(out)]
    subprocess.run([*cmd, "--no-progress", "--no-tensorboard"], check=True)
    assert load_model(out).weights.shape == (1, 2, 16**4)


def test_resume_with_stages_splits_a_one_stage_net(tmp_path):
    from playahead.ntuple import train as nt

    path = _train(tmp_path, "one", 40, eval_every=20)
    model = load_model(path)
    before = model.weights.copy()
    nt._split(model, (16, 64), 40, path)  # every stage starts as the trained net
    assert model.weights.shape == (4, 3, 16**4)
    for s in range(3):
        np.testing.assert_array_equal(model.weights[:, s : s + 1], before)
    split = load_model(
        _train(tmp_path, "one", 80, eval_every=20, resume=True, stages="16,64", lr=0.05)
    )
    assert split.stages == (16, 64) and split.meta["lr"] == 0.05
    assert split.meta["schedule"][-1] == {
        "from_game": 40,
        "lr": 0.05,
        "tc": False,
        "lambda": 0.0,
        "restarts": False,
        "stages": [16, 64],
    }
    assert not np.array_equal(split.weights[:, 0], split.weights[:, 2])  # specialised
    again = _train(tmp_path, "one", 100, eval_every=20, resume=True, stages="16,64")
    assert load_model(again).meta["games"] == 100  # its own stages: no new split
    with pytest.raises(ValueError, match="already a multi-stage"):
        _train(tmp_path, "one", 120, eval_every=20, resume=True, stages="32")
    _train(tmp_path, "tc", 20, tc=True)
    with pytest.raises(ValueError, match="trained with tc"):
        _train(tmp_path, "tc", 40, resume=True, stages="16")


def test_the_default_2048_recipe_is_td_lambda_with_tc_and_restarts(tmp_path):
    a = load_model(_train(tmp_path, "a", 60, seed=3, recipe=True))
    b = load_model(_train(tmp_path, "b", 60, seed=3, recipe=True))
    assert (a.meta["lr"], a.meta["tc"], a.meta["lambda"], a.meta["restarts"]) == (
        1.0,
        True,
        0.5,
        True,
    )
    np.testing.assert_array_equal(a.weights, b.weights)  # same seed, same net
    assert a.meta["updates"] > a.meta["moves"]  # the restarts' episodes learn too
    assert (tmp_path / "a" / "tc_a.npz").is_file()


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"patterns": "4x7"}, "unknown pattern set '4x7'"),
        ({"patterns": "0123,3210"}, "cover the same cells"),
        ({"patterns": "0123,012g"}, "hex cells 0-f"),
        ({"patterns": "0123,0124z"}, "hex cells 0-f"),
        ({"lam": 1.5}, r"lambda must be in \[0, 1\]"),
        ({"lam": -0.1}, r"lambda must be in \[0, 1\]"),
        ({"stages": "4096,2048"}, "ascending"),
        ({"workers": 0}, "workers must be"),
        ({"start_share": 2.0}, "start_share"),
        ({"online": True, "lam": 0.5}, "online TD learns TD.0."),
    ],
)
def test_bad_options_fail_in_one_line_before_any_game(tmp_path, options, match):
    with pytest.raises(ValueError, match=match) as err:
        _train(tmp_path, "bad", 5, **options)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "bad").exists()


def test_a_net_larger_than_the_memory_is_refused_before_allocating(
    tmp_path, monkeypatch
):
    from playahead.ntuple import model as model_module

    monkeypatch.setattr(model_module, "available_memory", lambda: 2**30)
    with pytest.raises(ValueError, match="needs 3,072 MB but only 1,024 MB") as err:
        _train(tmp_path, "big", 5, patterns="8x6", tc=True)  # 2 x 3 x 512 MB
    assert "\n" not in str(err.value) and not (tmp_path / "big").exists()


def test_named_pattern_sets_are_the_published_ones():
    from playahead.ntuple.model import DEFAULT_PATTERNS, PATTERN_SETS, parse_patterns

    assert parse_patterns("4x6") == DEFAULT_PATTERNS == parse_patterns("4X6")
    assert set(DEFAULT_PATTERNS) < set(parse_patterns("5x6"))
    assert "89abcd" in parse_patterns("5x6")  # ziap's nw5x6: the third row's pair
    for name, patterns in PATTERN_SETS.items():
        n, k = map(int, name.split("x"))
        assert len(patterns) == n and {len(p) for p in patterns} == {k}
        assert parse_patterns(",".join(patterns)) == patterns  # valid, no repeats


def test_threes_stages_reach_6144_and_train(tmp_path):
    path = _train(tmp_path, "t", 20, env_id="Threes-v0", stages="1536,3072,6144")
    model = load_model(path)
    assert model.stages == (1536, 3072, 6144)
    assert model.stage_ranks.tolist() == [12, 13, 14]
    assert model.weights.shape == (4, 4 * 4, 16**4)


def _positions(tmp_path, env_id, n=5):
    """``n`` positions 30 moves into games of first legal moves, as an npz."""
    env = gym.make(env_id)
    boards, cards = [], []
    for seed in range(n):
        env.reset(seed=seed)
        for _ in range(30):
            env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        state = env.unwrapped.clone_state()
        boards.append(int(state.board))
        cards.append(int(getattr(state, "cards", 0)))
    path = tmp_path / f"starts-{env_id}.npz"
    np.savez(path, board=np.array(boards, np.uint64), cards=np.array(cards, np.int64))
    return path


def test_games_start_from_saved_positions_and_resume_needs_the_same_file(tmp_path):
    starts = _positions(tmp_path, "Threes-v0")
    kw = {"env_id": "Threes-v0", "starts": starts, "start_share": 1.0}
    run = _train(tmp_path, "s", 30, eval_every=15, **kw)
    meta = load_model(run).meta
    assert meta["starts"]["positions"] == 5 and meta["starts"]["share"] == 1.0
    assert meta["starts"]["file"] == starts.name
    plain = load_model(_train(tmp_path, "p", 30, env_id="Threes-v0"))
    assert plain.meta["moves"] != meta["moves"]
    one = load_model(_train(tmp_path, "one", 60, eval_every=15, **kw))
    resumed = _train(tmp_path, "s", 60, eval_every=15, resume=True, **kw)
    np.testing.assert_array_equal(load_model(resumed).weights, one.weights)
    with pytest.raises(ValueError, match="pass the file again"):
        _train(tmp_path, "s", 90, env_id="Threes-v0", resume=True)
    other = _positions(tmp_path, "2048-v0")
    with pytest.raises(ValueError, match="not the start positions"):
        _train(tmp_path, "s", 90, resume=True, **{**kw, "starts": other})
    over = tmp_path / "over.npz"
    full = np.uint64(int("123456789abcdef1" * 1, 16))  # no two equal neighbours
    np.savez(over, board=np.array([full], np.uint64))
    with pytest.raises(ValueError, match="position 0 has no legal move"):
        _train(tmp_path, "x", 5, starts=over)


def test_a_resumed_run_switches_start_positions_on_request(tmp_path):
    first = _positions(tmp_path, "Threes-v0", n=3)
    kw = {"env_id": "Threes-v0", "start_share": 1.0}
    run = _train(tmp_path, "s", 20, eval_every=10, starts=first, **kw)
    second = tmp_path / "second.npz"
    np.savez(second, **{k: v[1:] for k, v in np.load(first).items()})
    with pytest.raises(ValueError, match="not the start positions"):
        _train(tmp_path, "s", 40, resume=True, starts=second, **kw)
    with pytest.raises(ValueError, match="needs --starts"):
        _train(tmp_path, "s", 40, resume=True, switch_starts=True, **kw)
    _train(
        tmp_path,
        "s",
        40,
        eval_every=10,
        resume=True,
        starts=second,
        switch_starts=True,
        **{**kw, "start_share": 0.5},
    )
    meta = load_model(run).meta
    assert meta["games"] == 40
    assert meta["starts"]["file"] == "second.npz" and meta["starts"]["positions"] == 2
    assert meta["starts"]["share"] == 0.5 and meta["starts"]["from_game"] == 20
    switched = meta["schedule"][-1]
    assert switched["from_game"] == 20
    assert switched["starts"]["file"] == "second.npz"
    assert switched["starts"]["share"] == 0.5
    # from then on the run resumes with the new file, and refuses the old one
    _train(
        tmp_path,
        "s",
        50,
        eval_every=10,
        resume=True,
        starts=second,
        **{**kw, "start_share": 0.5},
    )
    with pytest.raises(ValueError, match="not the start positions"):
        _train(tmp_path, "s", 60, resume=True, starts=first, **kw)
    # the same switch at the same game gives the same net as before
    again = _train(tmp_path, "t", 20, eval_every=10, starts=first, **kw)
    _train(
        tmp_path,
        "t",
        50,
        eval_every=10,
        resume=True,
        starts=second,
        switch_starts=True,
        **{**kw, "start_share": 0.5},
    )
    np.testing.assert_array_equal(load_model(again).weights, load_model(run).weights)


def test_workers_train_one_net_together(tmp_path):
    """Two threads over the same weights: every game counted once, the net learns;
    one worker is the deterministic trainer."""
    two = load_model(_train(tmp_path, "two", 2000, workers=2))
    assert two.meta["games"] == 2000 and two.meta["workers"] == 2
    before = evaluate(NTupleModel.new("2048-v0", SMALL), 40, first_seed=5)
    after = evaluate(two, 40, first_seed=5)
    assert after[:, 0].mean() > 1.5 * before[:, 0].mean()
    a = load_model(_train(tmp_path, "a", 100, workers=1))
    b = load_model(_train(tmp_path, "b", 100))
    np.testing.assert_array_equal(a.weights, b.weights)


@pytest.mark.kernel
def test_optimistic_init_values_every_afterstate_of_every_stage(tmp_path):
    """``init`` is spread over the 8 * P lookups of each stage, so any afterstate
    starts at ``init``, and training with TC moves the values from there."""
    from playahead.kernels.ntuple import staged, value

    model = NTupleModel.new("2048-v0", SMALL, init=320_000.0, stages=(64,))
    rng = np.random.default_rng(0)
    for _ in range(5):
        board = np.uint64(rng.integers(0, 2**63))
        code = staged(board, 0, 1, model.stage_ranks)
        assert value(board, code, model.weights, model.cells) == pytest.approx(320_000)
    run = load_model(_train(tmp_path, "o", 20, init=320_000.0, recipe=True))
    assert run.meta["init"] == 320_000.0
    assert (run.weights < np.float32(320_000 / 32)).any()  # errors pulled some down


def test_loading_a_net_larger_than_the_memory_says_so(tmp_path, monkeypatch):
    from playahead.ntuple import model as model_module

    path = _train(tmp_path, "a", 5)
    monkeypatch.setattr(model_module, "available_memory", lambda: 2**20)
    assert load_model(path).weights.nbytes == 2**20  # 4 x 16**4 float32 fit in 1 MB
    monkeypatch.setattr(model_module, "available_memory", lambda: 2**19)
    with pytest.raises(ValueError, match=r"the net in .* needs 1 MB but only 0 MB"):
        load_model(path)


def test_search_driven_games_are_recorded_resumed_and_threes_only(tmp_path):
    """``search_share`` plays that share of the games by expectimax over the net
    (another net than greedy games give, the same one when resumed from a
    checkpoint), is recorded in the schedule from the game it was switched on, and
    is refused for 2048 and out of range."""
    kw = {"env_id": "Threes-v0", "stages": "48"}
    greedy = load_model(_train(tmp_path, "g", 20, **kw))
    assert "search_share" not in greedy.meta  # a greedy run's files are as before
    kw_s = {**kw, "search_share": 0.5, "search_depth": 1}
    one = load_model(_train(tmp_path, "one", 20, **kw_s))
    assert one.meta["search_share"] == 0.5 and one.meta["search_depth"] == 1
    assert not np.array_equal(one.weights, greedy.weights)
    assert one.meta["moves"] > greedy.meta["moves"]  # the search lives longer
    _train(tmp_path, "two", 10, eval_every=10, **kw_s)
    resume = {"env_id": "Threes-v0", "resume": True}
    two = load_model(_train(tmp_path, "two", 20, eval_every=10, **resume))
    np.testing.assert_array_equal(two.weights, one.weights)
    # switched on at a resume: recorded at that game, and changes what follows
    _train(tmp_path, "g", 30, eval_every=10, search_share=1.0, **resume)
    meta = load_model(tmp_path / "g").meta
    assert meta["schedule"][-1] == {
        "from_game": 20,
        **{k: meta["schedule"][0][k] for k in ("lr", "tc", "lambda", "restarts")},
        "search_share": 1.0,
        "search_depth": 2,
    }
    for bad, match in (
        ({"search_share": 0.5}, "Threes-v0 only"),
        ({"env_id": "Threes-v0", "search_share": 1.5}, "search_share must be in"),
        ({"env_id": "Threes-v0", "search_depth": 4}, "search_depth must be an integer"),
    ):
        with pytest.raises(ValueError, match=match):
            _train(tmp_path, "bad", 5, **bad)
    assert not (tmp_path / "bad").exists()


def test_stage_stopped_games_train_one_stage_and_are_recorded(tmp_path):
    """``stop_at`` ends every game at the next stage's first afterstate: the stages
    from there on keep their weights while the stage below learns, the run records
    the setting in its schedule (and keeps it on resume), and a tile where no stage
    starts is refused before any game."""
    kw = {"stages": "32,128"}
    base = load_model(_train(tmp_path, "base", 30, **kw))
    shutil.copytree(tmp_path / "base", tmp_path / "stop")
    resume = {"resume": True, "eval_every": 30}
    stopped = load_model(_train(tmp_path, "stop", 60, stop_at=128, **resume))
    moved = stopped.weights != base.weights
    assert moved[:, 0].any() and moved[:, 1].any()  # games run through 2 .. 64
    assert not moved[:, 2].any()  # the stage from 128 on is the frozen target
    assert stopped.meta["stop_at"] == 128
    assert stopped.meta["schedule"][-1]["from_game"] == 30
    assert stopped.meta["schedule"][-1]["stop_at"] == 128
    again = load_model(_train(tmp_path, "stop", 70, **resume))  # keeps it
    assert not (again.weights[:, 2] != base.weights[:, 2]).any()
    for bad, match in (
        ({"stop_at": 64}, "not where a stage of the net starts"),
        ({"stop_at": "128"}, "stop_at must be a tile value"),
    ):
        with pytest.raises(ValueError, match=match):
            _train(tmp_path, "bad", 5, **kw, **bad)
    assert not (tmp_path / "bad").exists()


def test_a_threes_net_without_the_preview_index(tmp_path):
    """``preview=False``: one weight set per stage, recorded in ``model.json``, kept
    on resume, played greedily and packaged like any net; only for a new Threes run."""
    from playahead.ntuple.packaged import export_packaged, read_packaged

    kw = {"env_id": "Threes-v0", "stages": "48"}
    path = _train(tmp_path, "np", 20, eval_every=10, preview=False, **kw)
    model = load_model(path)
    assert model.weights.shape[1] == 2 and model.n_base == 1  # 2 stages x 1
    assert model.meta["preview"] is False
    with_preview = load_model(_train(tmp_path, "p", 20, **kw))
    assert with_preview.weights.shape[1] == 8 and "preview" not in with_preview.meta
    resumed = load_model(_train(tmp_path, "np", 30, env_id="Threes-v0", resume=True))
    assert resumed.meta["preview"] is False and resumed.meta["games"] == 30
    env = gym.make("Threes-v0")
    env.reset(seed=1)
    agent = make_agent(f"ntuple:path={path}", seed=0)
    assert env.unwrapped.action_masks()[agent.act(env)]
    sha = export_packaged(path, tmp_path / "np.npz")
    packed = read_packaged(tmp_path / "np.npz", sha)
    np.testing.assert_array_equal(packed.weights, resumed.weights)
    assert packed.n_base == 1
    for bad in ({"env_id": "2048-v0"}, {"env_id": "Threes-v0", "resume": True}):
        with pytest.raises(ValueError, match="without the preview index"):
            _train(tmp_path, "np", 40, preview=False, **bad)


def test_a_new_run_into_a_trained_runs_directory_is_refused(tmp_path):
    out = _train(tmp_path, "run", 20)
    before = (out / "weights.npz").read_bytes()
    with pytest.raises(ValueError, match="already holds a run; pass resume=True"):
        _train(tmp_path, "run", 20, seed=1)
    assert (out / "weights.npz").read_bytes() == before
    cli = [sys.executable, "-m", "playahead", "train", "ntuple", "--env", "2048-v0"]
    cli += ["--games", "20", "--out", str(out), "--no-progress"]
    done = subprocess.run(cli, capture_output=True, text=True)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "already holds a run; pass resume=True (--resume)" in done.stderr
    assert (out / "weights.npz").read_bytes() == before
