"""Game files as the CLI writes them open in ``playahead serve`` (``POST /api/open``:
the file's bytes, read exactly, with ``playahead review``'s one-line messages), and
``GET /api/agents`` lists each planner's options from the agent registry."""

import http.client
import json
from pathlib import Path

import pytest

from playahead.agents import agent_options
from playahead.cli import main
from playahead.tools import gamefile
from playahead.tools.serve import api, app, models
from playahead.tools.serve.loadtest import call, wait_ready

STATIC = Path(api.__file__).parent / "static"


def _watch_file(folder: Path) -> Path:
    path = folder / "watched.json"
    argv = ["watch", "threes", "--agent", "random", "--speed", "0", "--seed", "5"]
    assert main([*argv, "--max-moves", "12", "--no-color", "--save", str(path)]) == 0
    return path


def _cli_message(path: Path) -> str:
    """``playahead review``'s line for ``path``, naming the file as the page does."""
    with pytest.raises(ValueError) as err:
        gamefile.load(path)
    return str(err.value).replace(str(path), path.name)


def test_a_watched_file_opens_with_its_63_bit_seed_exact(tmp_path, capsys):
    path = _watch_file(tmp_path)
    capsys.readouterr()
    seed = json.loads(path.read_text())["seed"]
    assert seed > 2**53  # past a browser's exact integers: JSON.parse rounds it
    data = api.api_open(path.read_bytes(), path.name)
    assert data["file"]["seed"] == seed
    assert data["file"] == gamefile.load(path).to_json()
    assert len(data["positions"]) == len(data["moves"]) + 1 == 13
    assert {"next_card", "score"} <= set(data["positions"][0]["info"])


@pytest.mark.parametrize(
    "content",
    [b"", b"\x80\xff\x00binary\xfe", "cut"],
    ids=["empty", "binary", "truncated"],
)
def test_a_bad_file_gets_the_clis_line(tmp_path, capsys, content):
    if content == "cut":
        text = _watch_file(tmp_path).read_bytes()
        capsys.readouterr()
        content = text[: len(text) // 2]
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(api.ApiError) as err:
        api.api_open(content, "bad.json")
    assert str(err.value) == _cli_message(path)
    assert "\n" not in str(err.value)


def test_an_oversized_file_is_named_in_one_line(tmp_path):
    path = tmp_path / "huge.json"
    path.write_bytes(b" " * (gamefile.MAX_BYTES + 1))
    assert api.file_too_big("huge.json", path.stat().st_size) == _cli_message(path)
    with pytest.raises(api.ApiError) as err:
        api.api_open(b" " * (api.MAX_FILE_BYTES + 1), "big.json")
    assert err.value.status == 413
    assert str(err.value).startswith("big.json is over 2 MiB: the page opens")


def test_a_file_name_is_shown_without_folders_or_control_characters():
    assert api.file_name("C:\\games\\g\x1b[31m.json") == "g[31m.json"
    assert api.file_name(None) == "the game file"
    assert len(api.file_name("x" * 500)) == 80


def test_agents_lists_each_planners_settable_options_from_the_registry():
    agents = {a["name"]: a for a in api.api_agents()["agents"]}
    assert list(agents) == [p for p in api.PLANNERS if p in agents]
    for name, agent in agents.items():
        names = [o["name"] for o in agent["options"]]
        settable = set(models.SETTINGS) - set(api.HIDDEN_OPTIONS)
        assert names == [k for k in agent_options(name) if k in settable]
    mcts = {o["name"]: o for o in agents["mcts"]["options"]}
    assert mcts["n_simulations"] == {
        "name": "n_simulations",
        "type": "int",
        "default": agent_options("mcts")["n_simulations"],
        "cap": models.CAPS["n_simulations"],
        "help": "simulations per decision (None: until time_limit).",
    }
    assert {o["name"]: o["cap"] for o in agents["lookahead"]["options"]}["depth"] == 4
    assert mcts["c"]["type"] == "float" and mcts["rollout"]["type"] == "str"


def test_the_page_holds_no_planner_option_names():
    script = (STATIC / "app.js").read_text()
    for name in ("n_simulations", "n_rollouts", "n_sims", "prob_cutoff"):
        assert name not in script
    assert '"/api/agents"' in script


@pytest.fixture(scope="module")
def server():
    srv, url = app.start_in_thread(max_seconds=2.0, workers=1)
    wait_ready(url)
    yield url
    srv.shutdown()


def test_http_open_and_agents(server, tmp_path, capsys):
    path = _watch_file(tmp_path)
    capsys.readouterr()
    raw = path.read_bytes()
    octets = {"Content-Type": "application/octet-stream"}
    status, data, _ = call(server, "api/open?name=w.json", raw, headers=octets)
    assert status == 200 and data["file"]["seed"] == json.loads(raw)["seed"]
    status, data, _ = call(server, "api/open?name=w.json", raw[:40], headers=octets)
    assert status == 400 and data["error"].startswith("w.json is not complete JSON")
    status, data, _ = call(server, "api/open", raw, headers={"Content-Type": "text/x"})
    assert status == 415
    size = api.MAX_FILE_BYTES + 1  # refused on its Content-Length, before the body
    conn = http.client.HTTPConnection(*server.split("/")[2].split(":"), timeout=30)
    conn.putrequest("POST", "/api/open?name=b.json")
    conn.putheader("Content-Type", "application/octet-stream")
    conn.putheader("Content-Length", str(size))
    conn.endheaders()
    response = conn.getresponse()
    assert response.status == 413
    assert json.loads(response.read())["error"] == api.file_too_big("b.json", size)
    conn.close()
    status, agents, _ = call(server, "api/agents")
    assert status == 200 and agents == api.api_agents(2.0)


def test_the_default_hint_is_in_points_as_the_cli_shows_it():
    from playahead.tools.calibration import calibrate
    from playahead.tools.games import default_agent, get_game

    view = api.handle("/api/new", {"game": "threes", "seed": 3})[1]
    body = {"game": "threes", "state": view["state"], "settings": {"seed": 1}}
    status, data = api.handle("/api/hint", body)
    assert status == 200 and data["stats"]["calibrated"] is True
    assert data["unit"] == "expected final score"
    game = get_game("threes")
    env = api._restore(game, models.HintRequest.model_validate(body).state)
    spec = default_agent(game)
    planner = api.build_planner(spec, {"seed": 1}, None, env_id=game.env_id)
    raw = planner.analyze(env)
    shown = calibrate(env, raw, planner)
    assert data["values"] == pytest.approx(list(shown.values))
    assert data["values"] != pytest.approx(list(raw.values))  # the net's own are lower
