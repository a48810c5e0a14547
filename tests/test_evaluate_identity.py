"""The store keys games by the agent's fully resolved options and playahead's version:
an agent whose default changed is another agent, its old games are not reused, and
the result names the difference; stores from before fingerprints still open."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import playahead
from playahead.agents import register_agent, resolved_options
from playahead.evaluate import evaluate
from playahead.evaluate.store import (
    _OLD_COLUMNS,
    GameRecord,
    Store,
    agent_identity,
    fingerprint,
)
from playahead.ntuple.packaged import PACKAGED
from playahead.planners.expectimax import DEFAULT_BUDGET, LEARNED_AUTO

FAST = dict(progress=False, n_resamples=100)


class Picker:
    """Plays the lowest (or highest) legal action: a default that can change."""

    def __init__(self, *, pick: str = "lowest", seed: int | None = None):
        self.pick = pick

    def act(self, env) -> int:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        return int(legal[0] if self.pick == "lowest" else legal[-1])


register_agent("idtest_picker", Picker, "lowest or highest legal action")


def test_resolved_options_fill_in_the_games_defaults():
    threes = resolved_options("expectimax", "Threes-v0")
    assert threes["budget"] == LEARNED_AUTO["budget"] and "seed" not in threes
    sha = PACKAGED["Threes-v0"][1]  # the shipped net, named by its file's sha256
    assert (threes["evaluator"], threes["prob_cutoff"]) == (
        f"ntuple:sha256={sha}",
        0.01,
    )
    assert (threes["min_depth"], threes["max_depth"]) == (5, 5)
    features = resolved_options("expectimax:evaluator=features", "Threes-v0")
    assert features["budget"] == DEFAULT_BUDGET and features["prob_cutoff"] == 1e-3
    assert (features["min_depth"], features["max_depth"]) == (6, 6)
    other = resolved_options("expectimax", "2048-v0")  # the shipped 2048 net
    sha = PACKAGED["2048-v0"][1]
    assert (other["evaluator"], other["prob_cutoff"]) == (f"ntuple:sha256={sha}", 0.01)
    assert (other["min_depth"], other["max_depth"], other["downgrade"]) == (2, 3, 32768)
    hand = resolved_options("expectimax:evaluator=monotonic", "2048-v0")
    assert (hand["prob_cutoff"], hand["min_depth"]) == (1e-4, 3)
    assert "downgrade" not in hand
    # a fixed depth: the budget cannot act, so it is not part of the agent
    fixed = resolved_options("expectimax:depth=3", "Threes-v0")
    assert "budget" not in fixed and fixed["prob_cutoff"] == 1e-4
    same = f"expectimax:evaluator=features,prob_cutoff=0.001,budget={DEFAULT_BUDGET}"
    assert fingerprint(agent_identity(same, "Threes-v0")) == fingerprint(
        agent_identity("expectimax:evaluator=features", "Threes-v0")
    )
    spelled = "expectimax:evaluator=ntuple,prob_cutoff=0.01,late_cutoff=0.004"
    spelled += ",end_cutoff=0.003"
    spelled += ",max_depth=5,budget=4000000"
    assert fingerprint(agent_identity(spelled, "Threes-v0")) == fingerprint(
        agent_identity("expectimax", "Threes-v0")
    )


def test_a_changed_expectimax_default_is_another_agent(monkeypatch):
    before = agent_identity("expectimax", "Threes-v0")
    monkeypatch.setitem(LEARNED_AUTO, "budget", 2_000_000)
    after = agent_identity("expectimax", "Threes-v0")
    assert fingerprint(before) != fingerprint(after)
    assert after["options"]["budget"] == 2_000_000
    # a fixed depth does not use the budget: the same agent
    assert agent_identity("expectimax:depth=2", "Threes-v0") == agent_identity(
        "expectimax:depth=2", "Threes-v0"
    )


def test_a_changed_default_plays_again_and_says_why(tmp_path, monkeypatch):
    path = tmp_path / "r.sqlite"
    first = evaluate("2048-v0", ["idtest_picker"], 3, seed=5, store=path, **FAST)
    assert first.notes == []
    again = evaluate("2048-v0", ["idtest_picker"], 3, seed=5, store=path, **FAST)
    assert again.notes == [] and again.agents[0].scores == first.agents[0].scores
    monkeypatch.setattr(Picker.__init__, "__kwdefaults__", {"pick": "highest"})
    changed = evaluate("2048-v0", ["idtest_picker"], 3, seed=5, store=path, **FAST)
    assert changed.notes == [
        'idtest_picker: 3 stored games were played with pick="lowest", now '
        'pick="highest": not reused'
    ]
    fresh = evaluate("2048-v0", ["idtest_picker"], 3, seed=5, **FAST)
    assert changed.agents[0].scores == fresh.agents[0].scores
    assert changed.agents[0].scores != first.agents[0].scores
    assert "note: idtest_picker: 3 stored games" in changed.to_markdown()
    assert changed.to_dict()["notes"] == changed.notes
    with Store(path, "2048-v0", {}, 5, "single") as store:
        assert store.count() == 6  # the old games stay in the file
    # back to the old default: its games are found again, the new ones are noted
    monkeypatch.setattr(Picker.__init__, "__kwdefaults__", {"pick": "lowest"})
    back = evaluate("2048-v0", ["idtest_picker"], 3, seed=5, store=path, **FAST)
    assert back.agents[0].scores == first.agents[0].scores
    assert back.notes == [
        'idtest_picker: 3 stored games were played with pick="highest", now '
        'pick="lowest": not reused'
    ]


def test_another_playahead_version_is_another_agent(tmp_path, monkeypatch):
    path = tmp_path / "r.sqlite"
    evaluate("2048-v0", ["random"], 2, seed=1, store=path, **FAST)
    old = playahead.__version__
    monkeypatch.setattr(playahead, "__version__", "99.0")
    later = evaluate("2048-v0", ["random"], 2, seed=1, store=path, **FAST)
    assert later.notes == [
        f"random: 2 stored games were played with playahead {old}, now playahead "
        "99.0: not reused"
    ]


def _old_store(path) -> None:
    """A store as playahead wrote it before fingerprints, with one game of
    ``random``."""
    db = sqlite3.connect(path)
    cols = _OLD_COLUMNS.split(", ")
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE agent_files (agent TEXT PRIMARY KEY, sha256 TEXT NOT NULL);"
        f"CREATE TABLE games ({', '.join(cols)}, "
        "UNIQUE (agent, opponent, game_index, side));"
    )
    meta = {"env_id": "2048-v0", "env_options": "{}", "seed": "0", "kind": "single"}
    db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
    row = ("random", "", 0, 0, "2048-v0", "{}", 1, 7.0, 8, 1, None, 0.0, None, b"")
    db.execute(
        f"INSERT INTO games ({_OLD_COLUMNS}) VALUES ({', '.join('?' * 17)})",
        (*row, None, "0.1.0", "t"),
    )
    db.commit()
    db.close()


def test_a_store_from_before_fingerprints_is_migrated_and_not_reused(tmp_path):
    path = tmp_path / "old.sqlite"
    _old_store(path)
    with Store(path, "2048-v0", {}, 0, "single") as store:
        assert store.count() == 1
        assert [r.score for r in store.records("random")] == [7.0]  # still readable
        store.use_agents({"random": agent_identity("random", "2048-v0")})
        assert store.done() == set() and store.records("random") == []
        (note,) = store.notes()
        assert note.startswith("random: 1 stored game was played with options")
        assert note.endswith("(written before fingerprints): not reused")
    result = evaluate("2048-v0", ["random"], 1, seed=0, store=path, **FAST)
    assert result.agents[0].scores != [7.0] and len(result.notes) == 1
    with Store(path, "2048-v0", {}, 0, "single") as store:
        assert store.count() == 2


def test_a_registered_store_writes_the_fingerprint(tmp_path):
    path = tmp_path / "r.sqlite"
    ident = agent_identity("random", "2048-v0")
    with Store(path, "2048-v0", {}, 0, "single") as store:
        store.use_agents({"random": ident})
        record = GameRecord("random", "", 0, 0, 1, 4.0, 4, 1, None, 0.0, np.zeros(1))
        assert store.add(record) and not store.add(record)
    db = sqlite3.connect(path)
    assert db.execute("SELECT fingerprint FROM games").fetchall() == [
        (fingerprint(ident),)
    ]
    db.close()


@pytest.mark.parametrize("spec", ["nope", "random:colour=red"])
def test_bad_specs_have_no_identity(spec):
    with pytest.raises(ValueError):
        agent_identity(spec, "2048-v0")
