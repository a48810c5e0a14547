"""``expectimax``'s options: one frozen settings record, one spelling of the cut-off
schedule (a tier per option), and the committed records' fingerprints kept by the one
function that names an agent in a record (``record_options``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from playahead.agents import (
    agent_options,
    parse_spec,
    resolve_named_options,
    resolved_options,
)
from playahead.evaluate.store import fingerprint
from playahead.planners.expectimax import (
    LEARNED_AUTO,
    ExpectimaxAgent,
    ExpectimaxSettings,
)
from playahead.tools.games import make_env
from tests.helpers.expectimax import END, LATE, analyze_threes

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results"


def _recorded():
    """(path, spec, env id, {"identity", "fingerprint"}) of every agent a committed
    record names by fingerprint."""
    out = []
    for path in sorted(RESULTS.rglob("*.json")):
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            continue
        if "identity" in data:  # a strength record: one agent
            out.append((path, data["agent"], data["env"], data))
        for spec, entry in data.get("identities", {}).items():  # a comparison
            out.append((path, spec, path.stem, entry))
    return out


RECORDED = _recorded()
#: The folders whose records replay and are reused by fingerprint with today's
#: defaults (the others name the defaults and nets of their time in full).
REPLAYED = ("strength", "comparison")


def test_the_records_name_their_agents():
    assert len(RECORDED) >= 30
    assert (
        sum(ident["identity"]["name"] == "expectimax" for *_, ident in RECORDED) >= 28
    )


@pytest.mark.parametrize(
    ("path", "spec", "env_id", "entry"),
    RECORDED,
    ids=[f"{p.parent.name}/{p.stem}:{s}" for p, s, _, _ in RECORDED],
)
def test_every_committed_record_resolves_to_its_fingerprint(path, spec, env_id, entry):
    ident = entry["identity"]
    assert fingerprint(ident) == entry["fingerprint"]
    # the recorded options resolve to themselves: today's agent of the record
    again = resolve_named_options(ident["name"], dict(ident["options"]), env_id)
    assert json.loads(json.dumps(again, default=str)) == ident["options"]
    if path.parent.name not in REPLAYED:
        return  # a study of its time's defaults and nets, named in full above
    # a record that replays: its spec resolves to them
    name, options = parse_spec(spec)
    today = resolve_named_options(name, options, env_id)
    today = dict(ident, options=json.loads(json.dumps(today, default=str)))
    assert fingerprint(today) == entry["fingerprint"]


def test_the_settings_are_frozen_and_declare_every_option():
    settings = ExpectimaxSettings(depth=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.depth = 3  # type: ignore[misc]
    fields = [f.name for f in dataclasses.fields(ExpectimaxSettings)]
    assert list(agent_options("expectimax")) == ["seed", *fields]
    assert agent_options("expectimax")["budget"] == "auto"
    agent = ExpectimaxAgent(depth=2, seed=1)
    assert agent.settings == settings and agent.depth == 2 and agent.budget == "auto"


def test_the_schedule_has_one_spelling():
    with pytest.raises(ValueError, match="no option.*'cutoffs'"):
        ExpectimaxAgent(cutoffs="0:0.01")
    with pytest.raises(ValueError, match="has no option.*'cutoffs'"):
        resolved_options("expectimax:cutoffs=0:0.01", "Threes-v0")


def test_the_tiers_spelled_out_are_the_default_agent():
    spelled = "expectimax:prob_cutoff=0.01,late_cutoff=0.004,end_cutoff=0.003"
    assert resolved_options(spelled, "Threes-v0") == resolved_options(
        "expectimax", "Threes-v0"
    )
    plain = resolved_options("expectimax:prob_cutoff=0.01", "Threes-v0")
    assert "late_cutoff" not in plain and "late_from" not in plain


@pytest.mark.parametrize(("board", "want"), [(LATE, 0.01), (END, 0.008)])
def test_each_tier_searches_the_decisions_of_its_boards(board, want):
    got = analyze_threes(board, prob_cutoff=0.02, late_cutoff=0.01, end_cutoff=0.008)
    assert got.stats["prob_cutoff"] == want
    moved = analyze_threes(board, prob_cutoff=0.02, late_cutoff=0.01, late_from=12288)
    assert moved.stats["prob_cutoff"] == 0.02  # no card of 12288 yet
    assert LEARNED_AUTO["late_cutoff"] != want


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"prob_cutoff": 1.5}, r"prob_cutoff must be a number in \[0, 1\)"),
        ({"late_from": 0}, "late_from must be a card or tile value"),
        ({"budget": 10}, "budget is nodes per decision"),
        ({"tt_bits": 4}, "tt_bits must be an integer in 8..28"),
        ({"downgrade": 100}, "downgrade is the 2048 tile"),
        ({"evaluator": "nope"}, "unknown evaluator 'nope'"),
    ],
)
def test_a_bad_option_is_one_line(options, match):
    with pytest.raises(ValueError, match=match):
        ExpectimaxSettings(**options)


def test_an_agent_built_again_reuses_its_checked_settings_and_leaf_net(monkeypatch):
    """A warm default hint builds its agent anew: the spec's settings are checked
    once, the packaged net's leaf layout is built once, each agent has its own
    scratch space."""
    from playahead.kernels import expectimax as kernels
    from playahead.planners import expectimax

    first = ExpectimaxAgent(seed=0, budget=2_000)
    built, checked = [], []
    real_net, real_check = kernels.leaf_net, ExpectimaxSettings.__post_init__
    monkeypatch.setattr(kernels, "leaf_net", lambda *a: built.append(a) or real_net(*a))
    monkeypatch.setattr(
        ExpectimaxSettings,
        "__post_init__",
        lambda self: checked.append(self) or real_check(self),
    )
    env = make_env("threes")
    env.reset(seed=3)
    a = first.analyze(env)
    nets = len(built)  # 1, or 0 where an agent before this test built it
    again = ExpectimaxAgent(seed=0, budget=2_000)
    b = again.analyze(env)
    assert again.settings is first.settings and checked == []
    assert len(built) == nets <= 1
    assert again._packaged["Threes"].net.flat is first._packaged["Threes"].net.flat
    assert again._packaged["Threes"].net.imgs is not first._packaged["Threes"].net.imgs
    np.testing.assert_array_equal(a.values, b.values)
    assert expectimax.ExpectimaxSettings.of(budget=2_000) is first.settings
