"""Stores that are damaged, belong to another program, or are claimed by two runs at
once: a clear error, and one file only ever holds one run's games."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest

from playahead.evaluate.store import Store
from tests.helpers.records import game_record


def test_sqlite_file_of_another_program_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE games (x INTEGER)")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.commit()
    db.close()
    with pytest.raises(ValueError, match="not a playahead results store.*games"):
        Store(path, "2048-v0", {}, 0, "single")


def test_damaged_store_is_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    with Store(path, "2048-v0", {}, 0, "single") as store:
        for i in range(200):
            store.add(game_record(agent="x" * 500, index=i))
    data = bytearray(path.read_bytes())
    data[4096:8192] = b"\xff" * 4096  # scribble over a page past the header
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="not a playahead results store"):
        Store(path, "2048-v0", {}, 0, "single")


def _claim(path, seed, barrier, results):
    barrier.wait()
    try:
        with Store(path, "2048-v0", {}, seed, "single") as store:
            barrier.wait()  # both have opened the new, empty file
            store.add(game_record(agent=f"seed{seed}"))
            results.put((seed, "stored"))
    except ValueError as err:
        results.put((seed, str(err)))


def test_two_runs_claiming_one_new_file_never_mix(tmp_path):
    path = tmp_path / "race.sqlite"
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    runs = [
        ctx.Process(target=_claim, args=(path, s, barrier, results)) for s in (0, 1)
    ]
    for run in runs:
        run.start()
    for run in runs:
        run.join(60)
    outcome = dict(results.get(timeout=5) for _ in runs)
    db = sqlite3.connect(path)
    seed = dict(db.execute("SELECT key, value FROM meta"))["seed"]
    agents = {row[0] for row in db.execute("SELECT agent FROM games")}
    assert agents == {f"seed{seed}"}  # only the games of the run the meta names
    loser = 1 - int(seed)
    assert outcome[int(seed)] == "stored"
    assert "another evaluation" in outcome[loser] or "taken over" in outcome[loser]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--json", "/proc/no/such.json", "cannot write --json"),
        ("--csv", ".", "is a folder"),
        ("--out", "/proc/no/such.sqlite", "cannot write --out"),
        ("--markdown", "/proc/no/such.md", "cannot write --markdown"),
    ],
)
def test_unwritable_outputs_fail_before_any_game(
    option, value, message, capsys, tmp_path, monkeypatch
):
    from playahead.evaluate.cli import main

    monkeypatch.chdir(tmp_path)  # the default store goes to ./results/
    argv = ["--env", "2048-v0", "--agents", "random", "--games", "1", option, value]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
    assert "random" not in captured.out  # no table: nothing was played


def test_replacing_the_model_behind_a_spec_is_not_passed_off_as_stored(tmp_path):
    from playahead.agents import register_agent
    from playahead.evaluate import evaluate

    class FirstLegal:
        """Plays the first legal move; reads (and ignores) a file."""

        def __init__(self, path, seed=None):
            self.path = path

        def act(self, env):
            return int(env.unwrapped.action_masks().argmax())

    register_agent("first_legal_file", FirstLegal)
    model = tmp_path / "model.bin"
    model.write_bytes(b"weights, version 1")
    spec = f"first_legal_file:path={model}"
    store = tmp_path / "games.sqlite"
    evaluate("2048-v0", [spec], 2, 0, store=store)
    evaluate("2048-v0", [spec], 3, 0, store=store)  # same file: resumes
    model.write_bytes(b"weights, version 2")
    with pytest.raises(ValueError, match="changed since 3 of its games"):
        evaluate("2048-v0", [spec], 3, 0, store=store)
    evaluate("2048-v0", [spec], 3, 0, store=tmp_path / "new.sqlite")  # a new file


def test_a_full_disk_during_evaluate_says_so_in_one_line_and_the_store_resumes(
    tmp_path, monkeypatch, capsys
):
    from playahead.cli import main

    path = tmp_path / "r.sqlite"
    argv = ["evaluate", "--env", "2048-v0", "--agents", "random", "--games", "40"]
    argv += ["--seed", "0", "--out", str(path), "--quiet"]
    opened = Store._open

    def small_disk(self):  # the file may not grow past its size on opening + 2 pages
        opened(self)
        (pages,) = self._db.execute("PRAGMA page_count").fetchone()
        self._db.execute(f"PRAGMA max_page_count = {pages + 2}")

    monkeypatch.setattr(Store, "_open", small_disk)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert f"cannot write to {path}: the disk is full; the " in err
    assert "run the same command again to play the rest" in err
    with Store(path, "2048-v0", {}, 0, "single") as store:
        kept = store.count()
    assert 0 < kept < 40  # the games before the full disk, each whole
    monkeypatch.setattr(Store, "_open", opened)  # space freed
    assert main(argv) == 0
    capsys.readouterr()
    with Store(path, "2048-v0", {}, 0, "single") as store:
        rows = store.records("random")
    assert sorted(r.game_index for r in rows) == list(range(40))
