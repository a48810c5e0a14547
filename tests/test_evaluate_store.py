"""The SQLite results store: one row per game, never twice, never mixed."""

from __future__ import annotations

import sqlite3

import pytest

from playahead.evaluate.store import Store, canonical_options
from tests.helpers.records import game_record


def test_store_round_trips_records_in_game_order(tmp_path):
    path = tmp_path / "sub" / "r.sqlite"
    with Store(path, "2048-v0", {}, 0, "single") as store:
        for i in (2, 0, 1):
            assert store.add(game_record(index=i, score=float(i)))
        rows = store.records("a")
    assert [r.game_index for r in rows] == [0, 1, 2]
    assert [r.score for r in rows] == [0.0, 1.0, 2.0]
    assert rows[0].move_seconds.tolist() == [0.5, 0.25]
    assert rows[0].seed == 123 and rows[0].max_tile == 64
    with Store(path, "2048-v0", {}, 0, "single") as store:
        assert store.done() == {("a", "", i, 0) for i in range(3)}
        assert [r.game_index for r in store.records("a", n_games=2)] == [0, 1]


def test_a_game_is_stored_once(tmp_path):
    with Store(tmp_path / "r.sqlite", "2048-v0", {}, 0, "single") as store:
        assert store.add(game_record(score=1.0))
        assert not store.add(game_record(score=99.0))
        assert store.count() == 1
        assert store.records("a")[0].score == 1.0
        # the same index on the other side, or against another opponent, is new
        assert store.add(game_record(side=1))
        assert store.add(game_record(opponent="b"))
        assert store.count() == 3


def test_unique_constraint_is_in_the_schema(tmp_path):
    path = tmp_path / "r.sqlite"
    Store(path, "2048-v0", {}, 0, "single").close()
    db = sqlite3.connect(path)
    row = (
        "a",
        "",
        0,
        0,
        "2048-v0",
        "{}",
        1,
        1.0,
        2,
        3,
        None,
        0.1,
        None,
        b"",
        None,
        "v",
        "t",
        "fp",
        "",
    )
    db.execute("INSERT INTO games VALUES (" + ",".join("?" * len(row)) + ")", row)
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        db.execute("INSERT INTO games VALUES (" + ",".join("?" * len(row)) + ")", row)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_each_game_is_committed_at_once(tmp_path):
    path = tmp_path / "r.sqlite"
    store = Store(path, "Threes-v0", {"bonus_preview": "plus"}, 0, "single")
    store.add(game_record(index=0))
    store.add(game_record(index=1))
    # Another connection sees both games while the store is still open.
    other = sqlite3.connect(path)
    assert other.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2
    env_options = other.execute("SELECT DISTINCT env_options FROM games").fetchall()
    assert env_options == [('{"bonus_preview":"plus"}',)]
    other.close()
    store.close()


@pytest.mark.parametrize(
    "env_id, options, seed, kind, what",
    [
        ("Threes-v0", {}, 0, "single", "env_id: store has '2048-v0'"),
        ("2048-v0", {"illegal_action": "raise"}, 0, "single", "env_options"),
        ("2048-v0", {}, 1, "single", "seed: store has '0'"),
        ("2048-v0", {}, 0, "two_player", "kind"),
    ],
)
def test_a_store_of_another_evaluation_is_refused(
    tmp_path, env_id, options, seed, kind, what
):
    path = tmp_path / "r.sqlite"
    with Store(path, "2048-v0", {}, 0, "single") as store:
        store.add(game_record())
    with pytest.raises(ValueError, match=f"holds games of another evaluation.*{what}"):
        Store(path, env_id, options, seed, kind)
    with Store(path, "2048-v0", {}, 0, "single") as store:  # untouched
        assert store.count() == 1


def test_a_store_without_games_takes_new_settings(tmp_path):
    path = tmp_path / "r.sqlite"
    Store(path, "2048-v0", {}, 0, "single").close()  # e.g. a run that failed early
    with Store(path, "Threes-v0", {}, 1, "single") as store:
        store.add(game_record())
    with pytest.raises(ValueError, match="env_id: store has 'Threes-v0'"):
        Store(path, "2048-v0", {}, 0, "single")


def test_a_file_that_is_not_a_store_is_refused(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 20)
    with pytest.raises(ValueError, match="not a playahead results store"):
        Store(path, "2048-v0", {}, 0, "single")
    assert path.read_text().startswith("these are my notes")


def test_options_are_compared_canonically():
    assert canonical_options({"b": 1, "a": "x"}) == canonical_options(
        {"a": "x", "b": 1}
    )
    assert canonical_options(None) == "{}"
    with pytest.raises(ValueError, match="JSON"):
        canonical_options({"f": object()})
