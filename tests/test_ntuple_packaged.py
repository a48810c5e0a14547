"""The packaged n-tuple net (``playahead/data``): written the same for the same
weights, read without pickle after a sha256 check, refused with a clear error when
missing, damaged or swapped (and ``evaluator=features`` still plays); the late-game
positions a training run starts from."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile

import gymnasium as gym
import numpy as np
import pytest

import playahead
from playahead.ntuple import packaged
from playahead.ntuple.model import NTupleModel, load_model, read_sparse
from playahead.ntuple.positions import collect_positions, load_positions, save_positions
from playahead.ntuple.positions import main as positions_main


def model_dir(tmp_path, stages=(1536,)):
    model = NTupleModel.new("Threes-v0", ("0123", "4567"), stages=stages)
    rng = np.random.default_rng(0)
    w = model.weights.reshape(-1)
    hit = rng.random(w.size) < 0.2  # a trained net leaves most entries at 0
    w[hit] = rng.normal(0, 50, hit.sum()).astype(np.float32)
    model.meta = {"games": 7, "lr": 0.1, "rng_state": {"x": 1}}
    return model.save(tmp_path / "run")


def test_export_is_byte_for_byte_and_reads_back(tmp_path):
    run = model_dir(tmp_path)
    sha = packaged.export_packaged(run, tmp_path / "a.npz")
    assert packaged.export_packaged(run, tmp_path / "b.npz") == sha
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    model = packaged.read_packaged(tmp_path / "a.npz", sha)
    want = load_model(run)
    np.testing.assert_array_equal(model.weights, want.weights)
    assert model.patterns == want.patterns and model.stages == (1536,)
    assert model.meta == want.meta  # the generator state too


def test_unpack_gives_back_the_checkpoint(tmp_path):
    """export, then unpack: the same weights and metadata, so a run resumes from a
    shipped net as from its own checkpoint."""
    run = model_dir(tmp_path)
    net = tmp_path / "net.npz"
    sha = packaged.export_packaged(run, net)
    assert (
        packaged.main(["unpack", str(net), str(tmp_path / "back"), "--sha256", sha])
        == 0
    )
    back, want = load_model(tmp_path / "back"), load_model(run)
    np.testing.assert_array_equal(back.weights, want.weights)
    assert back.meta == want.meta and back.stages == want.stages
    with pytest.raises(SystemExit, match="damaged .* expected 0{64}"):
        packaged.main(["unpack", str(net), str(tmp_path / "x"), "--sha256", "0" * 64])


def test_a_run_resumes_from_an_unpacked_net_trained_with_tc(tmp_path):
    """The packaged file carries no TC accumulators: unpack writes them as zeros, so
    ``--resume`` (TC on, as the run was) trains on from the shipped weights."""
    train = [sys.executable, "-m", "playahead", "train", "ntuple", "--env"]
    train += ["Threes-v0", "--patterns", "0123,4567", "--tc", "--eval-games", "2"]
    train += ["--no-progress", "--no-tensorboard"]
    run = tmp_path / "run"
    subprocess.run([*train, "--games", "20", "--out", str(run)], check=True)
    net = tmp_path / "net.npz"
    sha = packaged.export_packaged(run, net)
    back = tmp_path / "back"
    assert packaged.main(["unpack", str(net), str(back), "--sha256", sha]) == 0
    shipped = load_model(back)
    assert shipped.meta["tc"] is True and shipped.meta["games"] == 20
    for name in ("tc_e.npz", "tc_a.npz"):
        assert not read_sparse(back / name, shipped.weights.shape).any()
    subprocess.run(
        [*train, "--games", "40", "--out", str(back), "--resume"],
        check=True,
        capture_output=True,
    )
    resumed = load_model(back)
    assert resumed.meta["games"] == 40 and resumed.meta["tc"] is True
    assert (resumed.weights != shipped.weights).any()
    assert read_sparse(back / "tc_a.npz", shipped.weights.shape).any()


@pytest.mark.parametrize("damage", ["flip", "truncate", "swap", "missing"])
def test_a_bad_file_names_itself_and_the_expected_sha(tmp_path, damage):
    run = model_dir(tmp_path)
    path = tmp_path / "net.npz"
    sha = packaged.export_packaged(run, path)
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(bytes(data[:-100]))
    elif damage == "swap":  # another valid net under the same name
        other = NTupleModel.new("Threes-v0", ("0123", "4567"), stages=(1536,))
        packaged.export_packaged(other.save(tmp_path / "other"), path)
    else:
        path.unlink()
    with pytest.raises(packaged.PackagedNetError) as err:
        packaged.read_packaged(path, sha)
    assert str(path) in str(err.value) and sha in str(err.value)


def test_pickled_content_is_refused_even_with_its_sha(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for key in packaged._KEYS:
            part = io.BytesIO()
            np.lib.format.write_array(
                part, np.array([{"x": 1}], dtype=object), allow_pickle=True
            )
            z.writestr(f"{key}.npy", part.getvalue())
    path = tmp_path / "evil.npz"
    path.write_bytes(buf.getvalue())
    sha = packaged.sha256_of(buf.getvalue())
    with pytest.raises(packaged.PackagedNetError, match="not a packaged n-tuple net"):
        packaged.read_packaged(path, sha)


@pytest.mark.parametrize(
    ("gone", "kept"), [("Threes-v0", "2048-v0"), ("2048-v0", "Threes-v0")]
)
def test_without_the_file_the_hand_made_search_still_plays(
    gone, kept, tmp_path, monkeypatch
):
    """A missing or damaged packaged net stops only the agents that need it: the
    default of its game (one line naming the file and the hand-made evaluator), not
    the hand-made search, nor the other game's default."""
    name, sha = packaged.PACKAGED[kept]
    (tmp_path / name).symlink_to(packaged.DATA / name)
    monkeypatch.setattr(packaged, "DATA", tmp_path)
    ships = dict(packaged.PACKAGED, **{gone: ("gone.npz", "0" * 64)})
    monkeypatch.setattr(packaged, "PACKAGED", ships)
    packaged.packaged_model.cache_clear()
    try:
        with pytest.raises(packaged.PackagedNetError, match="gone.npz"):
            packaged.packaged_model(gone)
        env = gym.make(gone)
        env.reset(seed=1)
        spec = "expectimax:depth=1,evaluator=features"
        assert env.unwrapped.action_masks()[playahead.make_agent(spec).act(env)]
        default = playahead.make_agent("expectimax", seed=0)
        with pytest.raises(packaged.PackagedNetError) as err:
            default.act(env)
        message = str(err.value)
        game = gone.split("-")[0]
        assert "\n" not in message and f"default {game} evaluator" in message
        assert "gone.npz" in message and "0" * 64 in message
        assert message.endswith("use evaluator=features, which works without it")
        other = gym.make(kept)  # the other game's default reads its own file only
        other.reset(seed=1)
        assert other.unwrapped.action_masks()[default.act(other)]
    finally:
        packaged.packaged_model.cache_clear()


def test_a_game_without_a_net_says_so(monkeypatch):
    monkeypatch.setattr(
        packaged, "PACKAGED", {"Threes-v0": packaged.PACKAGED["Threes-v0"]}
    )
    with pytest.raises(packaged.PackagedNetError, match="ships no n-tuple net"):
        packaged.packaged_path("2048-v0")


@pytest.mark.parametrize("env_id", sorted(packaged.PACKAGED))
def test_the_shipped_net_loads_and_fits(env_id):
    path, sha = packaged.packaged_path(env_id)
    assert path.stat().st_size <= packaged.MAX_BYTES
    model = packaged.packaged_model(env_id)
    assert model.env_id == env_id and packaged.sha256_of(path.read_bytes()) == sha


# ------------------------------------------------------------------ positions


def _replayed(spec, seed, i, n_moves, start=None):
    """``{move: (board, cards)}`` of game ``i`` of ``playahead evaluate --seed
    seed`` played by ``spec`` (from ``start``, a board and cards word, if given),
    replayed here independently of :func:`collect_positions`."""
    import dataclasses

    from playahead.evaluate.play import build_agent, game_seeds

    env = gym.make("Threes-v0")
    env_seed, agent_seed, _ = game_seeds(seed, i)
    env.reset(seed=env_seed)
    if start is not None:
        state = env.unwrapped.clone_state()
        board, cards = start
        state = dataclasses.replace(state, board=board, cards=cards, moves=0)
        env.unwrapped.restore_state(state)
    agent = build_agent(spec, agent_seed)
    seen = {}
    for move in range(n_moves):
        state = env.unwrapped.clone_state()
        seen[move] = (state.board, state.cards)
        env.step(agent.act(env))
    return seen


def test_positions_are_the_games_own_positions(tmp_path):
    """Each kept position is the env's state at that move of the seeded game (as
    ``playahead evaluate --seed`` plays it), from the first 24 on, every 5 moves."""
    spec = "expectimax:depth=0,evaluator=features"
    arrays, rows = collect_positions(spec, 2, seed=3, from_card=24, every=5, per_game=4)
    assert rows[0]["positions"] == int((arrays["game"] == 0).sum())
    assert 0 < arrays["board"].size <= 8
    for i in range(2):
        seen = _replayed(spec, 3, i, rows[i]["moves"])
        mine = np.flatnonzero(arrays["game"] == i)
        moves = arrays["move"][mine]
        assert np.all(np.diff(moves) == 5)
        for j in mine:
            assert seen[int(arrays["move"][j])] == (
                int(arrays["board"][j]),
                int(arrays["cards"][j]),
            )
            assert CARD_AT_LEAST_24 <= int(arrays["top"][j])
    path = tmp_path / "pos.npz"
    save_positions(path, arrays, {"seed": 3})
    back = load_positions(path)
    for key, a in arrays.items():
        np.testing.assert_array_equal(back[key], a)
        assert back[key].dtype == a.dtype


CARD_AT_LEAST_24 = 6  # rank of a 24


def test_positions_file_checks(tmp_path):
    path = tmp_path / "bad.npz"
    np.savez(path, board=np.array([0], np.uint64))
    with pytest.raises(ValueError, match="lacks"):
        load_positions(path)
    path.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot be read"):
        load_positions(path)


def test_positions_command(tmp_path, capsys):
    out = tmp_path / "p.npz"
    argv = ["--agent", "expectimax:depth=0,evaluator=features", "--games", "1"]
    argv += ["--from-card", "12", "--every", "20", "--out", str(out)]
    assert positions_main(argv) == 0
    import json

    record = json.loads(out.with_suffix(".json").read_text())
    assert record["command"].startswith("python -m playahead.ntuple.positions --agent")
    assert record["positions"] == load_positions(out)["board"].size
    # the options the spec meant when it played, defaults filled in
    assert record["options"]["depth"] == 0
    assert record["options"]["evaluator"] == "features"


def test_positions_subset_keeps_the_late_ones_of_a_file(tmp_path, capsys):
    """``--subset-of`` plays nothing and keeps, in order, exactly the positions whose
    largest card reaches ``--from-card``; its record names the source's sha256."""
    import json

    from playahead.ntuple.packaged import sha256_of

    arrays, _ = collect_positions(
        "expectimax:depth=0,evaluator=features", 2, seed=3, from_card=12, every=3
    )
    source = tmp_path / "all.npz"
    save_positions(source, arrays, {"command": "the source's command"})
    ranks = sorted(set(arrays["top"].tolist()))
    assert len(ranks) > 1  # the test needs positions on both sides of the cut
    cut_rank = ranks[1]
    cut_card = 3 * 2 ** (cut_rank - 3)
    out = tmp_path / "late.npz"
    argv = ["--subset-of", str(source), "--from-card", str(cut_card), "--out", str(out)]
    assert positions_main(argv) == 0
    late = load_positions(out)
    keep = arrays["top"] >= cut_rank
    assert 0 < late["board"].size < arrays["board"].size
    for key in arrays:
        np.testing.assert_array_equal(late[key], arrays[key][keep])
    record = json.loads(out.with_suffix(".json").read_text())
    assert record["subset_of_sha256"] == sha256_of(source.read_bytes())
    assert record["subset_of_command"] == "the source's command"
    assert record["positions"] == late["board"].size
    with pytest.raises(SystemExit):
        positions_main(
            ["--subset-of", str(source), "--from-card", "5", "--out", str(out)]
        )
    assert "not a Threes card" in capsys.readouterr().err


def test_positions_played_on_from_saved_positions(tmp_path):
    """``starts``: game ``i`` restores position ``i`` in the env seeded as game ``i``
    and keeps the env's own positions every ``every`` moves after it (not the start),
    while the largest card is at least ``from_card``; the command records the file."""
    import json

    from playahead.ntuple.packaged import sha256_of

    spec = "expectimax:depth=0,evaluator=features"
    source, _ = collect_positions(spec, 2, seed=5, from_card=12, every=7, per_game=3)
    path = tmp_path / "src.npz"
    save_positions(path, source, {"seed": 5})
    starts = load_positions(path)
    n = 3
    arrays, rows = collect_positions(
        spec, n, seed=9, from_card=12, every=4, per_game=5, starts=starts
    )
    for i in range(n):
        start = (int(starts["board"][i]), int(starts["cards"][i]))
        seen = _replayed(spec, 9, i, rows[i]["moves"], start)
        mine = np.flatnonzero(arrays["game"] == i)
        assert list(arrays["move"][mine]) == [4 * (k + 1) for k in range(mine.size)]
        assert mine.size == min(5, (rows[i]["moves"] - 1) // 4)
        for j in mine:
            assert seen[int(arrays["move"][j])] == (
                int(arrays["board"][j]),
                int(arrays["cards"][j]),
            )
    with pytest.raises(ValueError, match="more than the"):
        collect_positions(spec, starts["board"].size + 1, starts=starts)
    out = tmp_path / "on.npz"
    argv = ["--agent", spec, "--games", "1", "--from-card", "12", "--every", "3"]
    assert (
        positions_main([*argv, "--from-positions", str(path), "--out", str(out)]) == 0
    )
    record = json.loads(out.with_suffix(".json").read_text())
    assert record["from_positions_sha256"] == sha256_of(path.read_bytes())


def test_positions_of_a_records_games_stop_where_asked(tmp_path, capsys):
    """``--games-of RECORD --reaching CARD --stop`` plays again the record's games
    whose largest card reached CARD, with the record's agent and seed, and ends each
    one at its kept position: that position is the game's own state at that move."""
    import json

    spec = "expectimax:depth=0,evaluator=features"
    record = tmp_path / "strength.json"
    games = [
        {"index": 0, "max_tile": 12},
        {"index": 1, "max_tile": 96},
        {"index": 2, "max_tile": 48},
    ]
    record.write_text(
        json.dumps({"env": "Threes-v0", "seed": 3, "agent": spec, "games": games})
    )
    out = tmp_path / "first.npz"
    argv = ["--games-of", str(record), "--reaching", "48", "--seed", "3"]
    argv += ["--from-card", "24", "--per-game", "1", "--stop", "--out", str(out)]
    assert positions_main(argv) == 0
    arrays = load_positions(out)
    rows = json.loads(out.with_suffix(".json").read_text())["games"]
    assert [r["index"] for r in rows] == [1, 2]
    assert list(arrays["game"]) == [1, 2]
    for j, row in enumerate(rows):
        assert row["moves"] == int(arrays["move"][j])  # stopped at the kept position
        seen = _replayed(spec, 3, row["index"], row["moves"] + 1)
        assert seen[row["moves"]] == (int(arrays["board"][j]), int(arrays["cards"][j]))
        assert int(arrays["top"][j]) == CARD_AT_LEAST_24  # the first 24
    with pytest.raises(ValueError, match="games must be an integer >= 1, got 0"):
        collect_positions(spec, [], seed=3)
    below = tmp_path / "below.npz"
    assert positions_main([*argv[:-1], str(below), "--games", "2"]) == 0
    record_below = json.loads(below.with_suffix(".json").read_text())
    assert [r["index"] for r in record_below["games"]] == [1]  # games 0 and 1 only
    assert record_below["games_below"] == 2
    assert load_positions(below)["board"][0] == arrays["board"][0]
    for bad, message in (
        (["--seed", "4"], "played at seed 3"),
        (["--agent", "greedy"], "replay with that agent"),
        (["--reaching", "768"], "no game of"),
        (["--games", "1"], "below 1 reached 48"),
    ):
        with pytest.raises(SystemExit):
            positions_main([*argv, *bad])
        assert message in capsys.readouterr().err


def test_games_stop_before_their_first_move_with_the_stop_card(tmp_path, capsys):
    """``stop_at``: a game played on from a position ends before its first move with
    that card on the board (its row says the card and the moves to it), a game that
    never gets there plays to its end as without ``stop_at``; a card that is no
    Threes card is refused by name."""
    import json

    from playahead.games import threes

    spec = "expectimax:depth=0,evaluator=features"
    source, _ = collect_positions(spec, 6, seed=5, from_card=12, every=5, per_game=1)
    path = tmp_path / "src.npz"
    save_positions(path, source, {"seed": 5})
    starts = load_positions(path)
    n = starts["board"].size
    _, full = collect_positions(spec, n, seed=9, starts=starts)
    _, cut = collect_positions(spec, n, seed=9, starts=starts, stop_at=384)
    assert any(r["max_tile"] >= 384 for r in full)
    assert any(r["max_tile"] < 384 for r in full)
    for i, (whole, stopped) in enumerate(zip(full, cut, strict=True)):
        if whole["max_tile"] < 384:
            assert stopped == whole
            continue
        assert stopped["max_tile"] == 384
        assert stopped["moves"] < whole["moves"]
        start = (int(starts["board"][i]), int(starts["cards"][i]))
        seen = _replayed(spec, 9, i, stopped["moves"] + 1, start)
        tops = [int(threes.max_rank(np.uint64(seen[m][0]))) for m in sorted(seen)]
        assert tops[-1] == CARD_AT_LEAST_24 + 4  # a 384 before the stopping move
        assert max(tops[:-1]) < CARD_AT_LEAST_24 + 4  # and not before it
    with pytest.raises(ValueError, match="stop_at 100 is not a Threes card"):
        collect_positions(spec, 1, stop_at=100)
    out = tmp_path / "on.npz"
    argv = ["--agent", spec, "--games", "2", "--seed", "9", "--stop-at", "384"]
    argv += ["--from-positions", str(path), "--out", str(out)]
    assert positions_main(argv) == 0
    record = json.loads(out.with_suffix(".json").read_text())
    assert record["stop_at"] == 384
    assert record["games"] == cut[:2]


# ------------------------------------------------------------------ quantized nets


def net_2048(tmp_path, spread=3000.0, stages=(16384,)):
    """A random 2048 net shaped as a trained one: most entries 0, the rest spread."""
    model = NTupleModel.new("2048-v0", ("0123", "4567", "0145"), stages=stages)
    rng = np.random.default_rng(1)
    w = model.weights.reshape(-1)
    hit = rng.random(w.size) < 0.3
    w[hit] = rng.normal(0, spread, hit.sum()).astype(np.float32)
    model.meta = {"games": 3, "lr": 1.0, "rng_state": {"x": 2}}
    return model.save(tmp_path / "run2048")


@pytest.mark.kernel
@pytest.mark.parametrize(
    ("quantize", "step"), [("int16", None), ("int8", None), (None, 50.0)]
)
def test_quantized_lookups_stay_within_the_stated_error(tmp_path, quantize, step):
    """Every value of a quantized net is within ``meta["max_value_error"]`` (8 x
    the weights' errors) of the float32 net's, checked with the plain-Python
    reference on random boards; each weight is within half its pattern's step, plus
    float32 rounding (``meta["weight_errors"]``)."""
    from tests import naive_ntuple as naive

    run = net_2048(tmp_path)
    path = tmp_path / "q.npz"
    sha = packaged.export_packaged(run, path, quantize=quantize, step=step)
    got, full = packaged.read_packaged(path, sha), load_model(run)
    steps = np.abs(full.weights - got.weights).reshape(3, -1).max(axis=1)
    with np.load(path, allow_pickle=False) as z:
        scale = z["scale"]
        if step is None:
            assert z["values"].dtype == packaged.QUANTIZE[quantize][0]
        else:  # one step for all; the multiples as two byte planes, 0s dropped
            assert "values" not in z.files and np.all(scale == step)
            assert z["lo"].dtype == z["hi"].dtype == np.uint8
            kept = int(np.unpackbits(z["mask"]).sum())
            assert z["lo"].size == kept
            assert kept == int(np.count_nonzero(np.abs(full.weights) >= step / 2))
    with zipfile.ZipFile(path) as z:
        import json

        meta = json.loads(np.load(z.open("meta.npy")).tobytes())
    errors = np.array(meta["weight_errors"])
    assert np.all(steps <= errors) and np.all(errors < scale)
    assert meta["max_value_error"] == pytest.approx(8 * errors.sum())
    again = packaged.read_packaged(path, sha)  # read twice: the same weights
    np.testing.assert_array_equal(again.weights, got.weights)
    cells = [[int(c, 16) for c in p] for p in full.patterns]
    rng = np.random.default_rng(5)
    for _ in range(200):
        board = 0
        for cell in range(16):
            board |= int(rng.integers(0, 15)) << (4 * cell)
        for stage in (0, 1):
            a = naive.value(board, stage, full.weights, cells)
            b = naive.value(board, stage, got.weights, cells)
            assert abs(a - b) <= meta["max_value_error"]


def test_a_quantized_net_is_smaller_and_refused_when_damaged(tmp_path):
    run = net_2048(tmp_path)
    plain = packaged.export_packaged(run, tmp_path / "f.npz")
    sha = packaged.export_packaged(run, tmp_path / "q.npz", quantize="int8")
    assert (tmp_path / "q.npz").stat().st_size < (tmp_path / "f.npz").stat().st_size
    assert sha != plain
    data = bytearray((tmp_path / "q.npz").read_bytes())
    data[len(data) // 3] ^= 0x55
    (tmp_path / "q.npz").write_bytes(bytes(data))
    with pytest.raises(packaged.PackagedNetError) as err:
        packaged.read_packaged(tmp_path / "q.npz", sha)
    assert "\n" not in str(err.value) and "q.npz" in str(err.value)
    assert "evaluator=features" in str(err.value)


def test_quantize_is_checked(tmp_path):
    run = net_2048(tmp_path)
    with pytest.raises(ValueError, match="quantize must be one of int16, int8"):
        packaged.export_packaged(run, tmp_path / "x.npz", quantize="int4")
    assert not (tmp_path / "x.npz").exists()


def test_a_stepped_net_is_checked_and_refused_when_damaged(tmp_path, capsys):
    """A fixed step: a one-line error for a step out of range, one too small for
    the net's largest entry (naming the smallest that fits) or given with
    ``quantize``, and no file; the CLI writes the net, which reads back within half
    a step, and a damaged copy is refused in one line."""
    run = net_2048(tmp_path, spread=3000.0)
    big = float(np.abs(load_model(run).weights).max())
    for kwargs, match in [
        ({"step": 0.0}, "step must be in"),
        ({"step": 1e9}, "step must be in"),
        ({"step": 0.05}, f"at least {big / 32767:.4g}"),
        ({"step": 8.0, "quantize": "int16"}, "quantize or step, not both"),
    ]:
        with pytest.raises(ValueError, match=match):
            packaged.export_packaged(run, tmp_path / "x.npz", **kwargs)
        assert not (tmp_path / "x.npz").exists()
    path = tmp_path / "s.npz"
    assert packaged.main(["export", str(run), str(path), "--step", "64"]) == 0
    sha = capsys.readouterr().out.strip()
    net = packaged.read_packaged(path, sha)
    assert np.abs(net.weights - load_model(run).weights).max() <= 32.01
    plain = packaged.export_packaged(run, tmp_path / "f.npz")
    assert path.stat().st_size < (tmp_path / "f.npz").stat().st_size / 2
    assert sha != plain
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x55
    path.write_bytes(bytes(data))
    with pytest.raises(packaged.PackagedNetError) as err:
        packaged.read_packaged(path, sha)
    assert "\n" not in str(err.value) and "s.npz" in str(err.value)


def test_info_says_what_a_packaged_net_holds(tmp_path, capsys):
    """``info`` gives a net's size, digest, form and stored entries; a file that is
    no packaged net is one line."""
    run = net_2048(tmp_path)
    path = tmp_path / "s.npz"
    sha = packaged.export_packaged(run, path, step=64.0)
    out = tmp_path / "info.json"
    assert packaged.main(["info", str(path), "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got == json.loads(capsys.readouterr().out)
    weights = load_model(run).weights
    assert got["bytes"] == path.stat().st_size and got["sha256"] == sha
    assert (got["env_id"], got["values"], got["step"]) == ("2048-v0", "step", 64.0)
    assert got["entries"] == weights.size
    assert got["stored"] == int(np.count_nonzero(np.rint(weights / 64.0)))
    assert got["games"] == 3 and got["max_value_error"] > 8 * 3 * 32
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(SystemExit) as err:
        packaged.main(["info", str(tmp_path / "junk.npz")])
    assert "junk.npz" in str(err.value) and "\n" not in str(err.value)


def test_greedy_evaluation_reads_a_packaged_net(tmp_path):
    """``python -m playahead.ntuple.train FILE.npz`` plays a packaged net greedily
    as it plays the run it came from (float32: the same games), and names the file
    by its sha256."""
    from playahead.ntuple.train import write_evaluation

    run = net_2048(tmp_path)
    sha = packaged.export_packaged(run, tmp_path / "f.npz")
    a = write_evaluation(run, 3, tmp_path / "a.json")
    b = write_evaluation(tmp_path / "f.npz", 3, tmp_path / "b.json")
    assert b.pop("packaged_sha256") == sha and a == b
    games = [
        json.loads((tmp_path / f).read_text())["games"] for f in ("a.json", "b.json")
    ]
    assert games[0] == games[1] and len(games[0]) == 3
    c = write_evaluation(run, 2, tmp_path / "c.json", first_seed=7)
    other = json.loads((tmp_path / "c.json").read_text())["games"]
    assert c["first_seed"] == 7 and [g["seed"] for g in other] == [7, 8]


def test_a_stepped_net_is_kept_decoded_between_processes(tmp_path, monkeypatch):
    """The first read decodes the file and keeps the int16 multiples under the cache
    directory; the next reads them without decoding, the same weights; a damaged copy
    is decoded anew, never used; ``PLAYAHEAD_CACHE=off`` keeps none. (A small net
    stepped as the shipped 2048 net is: the same code path, a fraction of its size.)"""
    path = tmp_path / "stepped.npz"
    sha = packaged.export_packaged(net_2048(tmp_path, stages=()), path, step=16.0)
    monkeypatch.setenv("PLAYAHEAD_CACHE", str(tmp_path))
    first = packaged.read_packaged(path, sha, "monotonic", keep_steps=True)
    kept = tmp_path / "nets" / f"{sha}.npy"
    assert kept.is_file() and first.weights.dtype == np.int16
    decoded = packaged._decode

    def no_decoding(*args, **kwargs):
        raise AssertionError("decoded although a checked copy is kept")

    monkeypatch.setattr(packaged, "_decode", no_decoding)
    again = packaged.read_packaged(path, sha, "monotonic", keep_steps=True)
    np.testing.assert_array_equal(again.weights, first.weights)
    assert again.step == first.step
    # a damaged copy (one entry changed) fails the weights' sha256: decoded anew
    monkeypatch.setattr(packaged, "_decode", decoded)
    damaged = np.load(kept)
    damaged.reshape(-1)[12345] += 1
    np.save(kept, damaged)
    fixed = packaged.read_packaged(path, sha, "monotonic", keep_steps=True)
    np.testing.assert_array_equal(fixed.weights, first.weights)
    np.testing.assert_array_equal(np.load(kept), first.weights)  # written anew
    # off: nothing kept; an unwritable directory: read all the same
    monkeypatch.setenv("PLAYAHEAD_CACHE", "off")
    assert packaged.cache_dir() is None
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("PLAYAHEAD_CACHE", str(blocked))
    got = packaged.read_packaged(path, sha, "monotonic", keep_steps=True)
    np.testing.assert_array_equal(got.weights, first.weights)


def test_a_kept_copy_is_never_read_without_the_files_sha256(tmp_path, monkeypatch):
    """Without a sha256 to match (a file just written, ``info``) nothing is kept or
    read: the copy is named by the checked file's sha256."""
    path, sha = packaged.packaged_path("Threes-v0")
    monkeypatch.setenv("PLAYAHEAD_CACHE", str(tmp_path))
    packaged.read_packaged(path, None, keep_steps=True)
    assert not (tmp_path / "nets").exists()


def test_a_checkpoint_array_is_a_deflated_npz_read_back_exactly(tmp_path):
    """:func:`write_sparse` writes an ``.npz`` numpy reads without pickle (its four
    members deflated), and :func:`read_sparse` gives the array back bit for bit."""
    import zipfile

    from playahead.ntuple.model import write_sparse

    rng = np.random.default_rng(3)
    array = np.zeros((2, 3, 4096), np.float32)
    array.reshape(-1)[rng.choice(array.size, 500, replace=False)] = rng.normal(
        size=500
    ).astype(np.float32)
    write_sparse(tmp_path / "a.npz", array)
    with zipfile.ZipFile(tmp_path / "a.npz") as z:
        members = z.infolist()
    assert sorted(m.filename for m in members) == [
        "fill.npy",
        "index.npy",
        "shape.npy",
        "value.npy",
    ]
    assert all(m.compress_type == zipfile.ZIP_DEFLATED for m in members)
    with np.load(tmp_path / "a.npz", allow_pickle=False) as z:
        assert z["index"].size == 500 and float(z["fill"]) == 0.0
    back = read_sparse(tmp_path / "a.npz", array.shape)
    assert back.dtype == np.float32 and np.array_equal(back, array)


def test_info_into_a_reader_that_stopped_ends_without_a_traceback():
    """``python -m playahead.ntuple.packaged info FILE | head``: a reader that left
    before the output gets no traceback on the terminal, only the exit status of a
    command SIGPIPE ended."""
    import subprocess
    import sys

    from playahead.ntuple.packaged import DATA

    proc = subprocess.Popen(
        [sys.executable, "-m", "playahead.ntuple.packaged", "info"]
        + [str(DATA / "threes-ntuple.npz")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdout.close()  # the reader leaves before the first line
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert proc.returncode == 141 and err == ""


def test_byte_planes_join_block_by_block_as_one_whole(monkeypatch):
    """A stepped net's byte planes give the same int16 multiples joined a block at a
    time (what keeps a first read's memory down) as joined whole, across block
    edges, for every low and high byte."""
    rng = np.random.default_rng(5)
    lo = rng.integers(0, 256, 1000, dtype=np.uint8)
    hi = rng.integers(0, 256, 1000, dtype=np.uint8)
    lo[:256], hi[:256] = np.arange(256), np.arange(256)[::-1]
    zz = lo.astype(np.int64) | (hi.astype(np.int64) << 8)
    want = np.where(zz & 1, -(zz >> 1) - 1, zz >> 1)  # zigzag undone
    monkeypatch.setattr(packaged, "_BLOCK", 64)
    got = packaged._unzigzag(lo, hi)
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, want)
