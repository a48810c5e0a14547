"""The page's game files, Review and Assist in headless Chromium (Playwright), at
desktop and phone (390 x 844) width: the files of ``watch --save``, ``play --save``
and ``export`` open (their 63-bit seeds included), a bad file gets the CLI's line,
the review's graph and move view work by mouse and keys, and Assist's board moves
only by its entries. Needs Playwright and Debian's ``chromium`` (as
``test_serve_browser.py``)."""

import json
from pathlib import Path

import pytest

from playahead.cli import main
from playahead.tools import gamefile
from playahead.tools.media import CHROMIUM, browser_page
from playahead.tools.serve import api
from tests.helpers.gamefiles import C4_LATE, connect4

pytest.importorskip(
    "playwright.sync_api", reason="needs Playwright: pip install playwright"
)
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"needs Chromium at {CHROMIUM}: apt-get install -y chromium",
)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1100, "height": 800}
ERROR_SHOWN = "() => document.querySelector('#error').innerText !== ''"
SUMMARY = "() => document.querySelector('#review-summary').innerText !== ''"
FAST = "[data-option='depth']"  # expectimax depth 1: a quick review


@pytest.fixture(scope="module")
def page():
    with browser_page(CHROMIUM, (DESKTOP["width"], DESKTOP["height"])) as tab:
        tab, url, _ = tab
        tab.base_url = url
        yield tab


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    """A game file from each writer: ``watch --save``, ``play --save``, ``export``."""
    from playahead.tools.play.session import Session

    folder = tmp_path_factory.mktemp("files")
    files = {w: folder / f"{w}.json" for w in ("watch", "play", "export")}
    argv = ["watch", "threes", "--agent", "random", "--speed", "0", "--seed", "5"]
    assert (
        main([*argv, "--max-moves", "12", "--no-color", "--save", str(files["watch"])])
        == 0
    )
    session = Session("threes", agent="random", seed=2, save=files["play"], color=False)
    for key in ("left", "up", "right", "down") * 2:
        session.press(key)
    store = folder / "eval.sqlite"
    argv = ["evaluate", "--env", "2048-v0", "--agents", "greedy", "--games", "1"]
    assert main([*argv, "--out", str(store), "--quiet"]) == 0
    argv = ["export", "--store", str(store), "--index", "0"]
    assert main([*argv, "--out", str(files["export"])]) == 0
    return files


def _open(page, path):
    page.evaluate("() => { document.querySelector('#error').textContent = ''; }")
    page.set_input_files("#open-game", str(path))


@pytest.mark.parametrize(
    ("writer", "game", "who"),
    [
        ("watch", "threes", "random's game"),
        ("play", "threes", "your game"),
        ("export", "2048", "greedy's game"),
    ],
)
def test_every_writers_game_file_opens(page, cli_files, writer, game, who):
    data = json.loads(cli_files[writer].read_text())
    assert data["seed"] > 2**53  # JSON.parse would round it: the sha256 then fails
    page.goto(page.base_url + f"?game={game}")
    page.wait_for_selector("#board .tile")
    page.select_option("#planner", "greedy")
    _open(page, cli_files[writer])
    page.wait_for_selector("#review-moves tbody tr", timeout=120_000)
    assert page.inner_text("#error") == ""
    assert page.inner_text("#review-title") == "Review of " + who
    assert page.evaluate("S.review.data.moves.length") == len(data["moves"])


def _cli_line(path):
    with pytest.raises(ValueError) as err:
        gamefile.load(path)
    return str(err.value).replace(str(path), path.name)


def test_a_bad_file_gets_the_clis_line(page, cli_files, tmp_path):
    whole = cli_files["watch"].read_bytes()
    cases = {
        "cut.json": whole[: len(whole) // 2],
        "binary.json": b"\x80\xff\x00\xfe binary",
        "empty.json": b"",
        "huge.json": b" " * (gamefile.MAX_BYTES + 1),
        "big.json": b" " * (api.MAX_FILE_BYTES + 1),
    }
    page.goto(page.base_url + "?game=threes")
    page.wait_for_selector("#board .tile")
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        big = name == "big.json"  # the CLI reads it; the page opens up to 2 MiB
        expected = api.file_too_big(name, len(content)) if big else _cli_line(path)
        _open(page, path)
        page.wait_for_function(ERROR_SHOWN)
        assert page.inner_text("#error") == expected
        assert "JSON input" not in expected


def _review_threes(page, keys=("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp") * 2):
    page.goto(page.base_url + "?game=threes&seed=3")
    page.wait_for_selector("#board .tile")
    page.select_option("#planner", "expectimax")
    page.fill(FAST, "1")
    page.locator("#status").click()  # keys go to the board, not the box
    for key in keys:
        page.keyboard.press(key)
        page.wait_for_function("() => !S.busy && !S.queue.length")
    page.keyboard.press("r")
    page.wait_for_function(SUMMARY, timeout=120_000)
    return page.evaluate("S.review.rows.length")


def test_the_review_graph_move_view_and_keys(page):
    n = _review_threes(page)
    assert n >= 4
    assert page.inner_text("#review-title") == "Review of your game"
    graph = page.locator("#review-graph")
    assert graph.locator("text.title").text_content().startswith("your game: ")
    assert graph.locator("line.axis").count() == 2
    assert graph.locator("text.ytick").count() == 3
    assert graph.locator("text.xtick").first.text_content() == "1"
    assert graph.locator("text.xtick").last.text_content() == str(n)
    box = graph.bounding_box()  # click-to-jump: the graph's right end is the last move
    graph.click(position={"x": box["width"] - 13, "y": box["height"] / 2})
    assert page.evaluate("S.review.selected") == n - 1
    assert graph.locator("line.marker").count() == 1
    board = page.get_attribute("#board", "data-board")
    page.keyboard.press("ArrowLeft")  # steps the review, never the game
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("a")  # nor does a slide key pressed in the review
    page.wait_for_timeout(200)
    assert page.evaluate("S.review.selected") == n - 3
    assert page.get_attribute("#review-board", "data-move") == str(n - 2)
    assert page.get_attribute("#board", "data-board") == board
    page.keyboard.press("ArrowRight")
    assert page.evaluate("S.review.selected") == n - 2
    # Threes' next card, and the move played against the best one
    assert "next" in page.inner_text("#review-where")
    row = page.evaluate("S.review.rows[S.review.selected]")
    caption = page.inner_text("#review-caption")
    assert caption.startswith(f"Move {n - 1}: played {row['played']}")
    label = "s => document.querySelector(s).firstChild.textContent"  # less its tag
    best = page.evaluate(label, "#review-values tr.best td")
    played = page.evaluate(label, "#review-values tr.played td")
    assert (best, played) == (row["best"], row["played"])
    tags = page.locator("#review-values .tag").all_inner_texts()
    assert tags == (["best, played"] if row["loss"] == 0 else ["best", "played"])
    if row["loss"] > 0:
        assert f"best {row['best']}" in caption and "loss" in caption


def test_planner_options_come_from_the_agents_route(page):
    page.goto(page.base_url + "?game=2048")
    page.wait_for_selector("#board .tile")
    agents = {a["name"]: a for a in api.api_agents()["agents"]}
    for planner in ("mcts", "expectimax", "lookahead"):
        page.select_option("#planner", planner)
        shown = page.eval_on_selector_all(
            "#planner-options [data-option]",
            "nodes => nodes.map(n => n.dataset.option)",
        )
        assert shown == [o["name"] for o in agents[planner]["options"]]
    page.select_option("#planner", "mcts")
    box = "[data-option='n_simulations']"
    assert page.get_attribute(box, "max") == "100000"
    assert page.get_attribute(box, "placeholder") == "400"
    page.fill(box, "50")
    page.keyboard.press("Escape")
    page.click("#hint-button")
    page.wait_for_selector("#hint tr.best", timeout=60_000)
    assert page.evaluate("agentRequest().settings") == {"n_simulations": 50}


def _fits(page, selectors, width):
    for selector in selectors:
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, selector


def _entry_for(page):
    """An entry that says what a move of the page's 2048 game would bring (a legal
    slide, the cell the tile came in on, 4 if it was a 4)."""
    from playahead.tools.games import get_game
    from playahead.tools.serve import models

    view = page.evaluate("S.view")
    state = models.MoveRequest.model_validate(
        {"game": "2048", "state": view["state"], "move": view["legal"][0]}
    ).state
    env = api._restore(get_game("2048"), state)
    before = env.unwrapped.clone_state()
    env.step(view["legal"][0])
    move = gamefile.chance_of(
        env.unwrapped, before, view["legal"][0], env.unwrapped.clone_state()
    )
    swipe = "kljh"[move["action"]]  # up, right, down, left
    return swipe + "1234qwerasdfzxcv"[move["cell"]] + ("4" if move["tile"] == 4 else "")


def test_on_a_phone_review_and_assist_fit_and_the_board_moves_by_entries(page):
    page.set_viewport_size(PHONE)
    try:
        _review_threes(page, ("ArrowLeft", "ArrowDown", "ArrowRight"))
        page.click("#review-moves tr[data-index='1']")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        _fits(
            page,
            [
                "#review-panel",
                "#review-graph",
                "#review-moves",
                "#review-board",
                "#review-values",
            ],
            PHONE["width"],
        )

        page.select_option("#game", "2048")
        page.wait_for_selector("#board .tile")
        page.fill("#assist-board", "2 0 0 0 / 0 0 0 0 / 0 0 4 0 / 0 0 0 2")
        page.click("#assist-start")
        page.wait_for_function("() => S.assist && S.view.hint", timeout=60_000)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        _fits(
            page, ["#assist-panel", "#table", "#board", "#assist-entry"], PHONE["width"]
        )
        # the entry box sits by the board and the suggestion: all on one screen
        boxes = [
            page.locator(s).bounding_box()
            for s in ("#board", "#assist-entry", "#assist-suggestion")
        ]
        top = min(b["y"] for b in boxes)
        assert max(b["y"] + b["height"] for b in boxes) - top <= PHONE["height"]
        assert page.inner_text("#assist-suggestion").startswith("suggested: ")

        board = page.get_attribute("#board", "data-board")
        page.locator("#status").click()  # out of the entry box
        for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown", "p"):
            page.keyboard.press(key)
        page.wait_for_timeout(300)
        assert page.get_attribute("#board", "data-board") == board
        assert "type what happened in the entry box" in page.inner_text("#error")

        page.keyboard.press("n")  # a new game: the entry box follows it
        page.wait_for_function(
            "b => S.view.board && JSON.stringify(S.view.board) !== b && S.view.hint",
            arg=board,
            timeout=60_000,
        )
        entry = _entry_for(page)
        page.fill("#assist-entry", entry)
        page.press("#assist-entry", "Enter")
        page.wait_for_function("() => S.assist.stack.length === 2", timeout=60_000)
        assert "moves 1" in page.inner_text("#status")
    finally:
        page.set_viewport_size(DESKTOP)


def test_a_review_in_two_units_draws_one_band_a_unit(page, tmp_path):
    """A Connect Four game the solver solves only near its end: the opening's minimax
    estimates and the end's exact scores are drawn in bands of their own."""
    path = gamefile.save(connect4(C4_LATE), tmp_path / "c4.json")
    page.goto(page.base_url + "?game=connect4")
    page.wait_for_selector("#board")
    page.select_option("#planner", "solver")
    page.fill("[data-option='budget']", "20000")
    _open(page, path)
    page.wait_for_function(SUMMARY, timeout=120_000)
    graph = page.locator("#review-graph")
    rows = page.evaluate("S.review.rows.map((r) => r.value_kind)")
    units = list(dict.fromkeys(rows))
    assert {"heuristic", "pons_score"} <= set(units)
    title = graph.locator("text.title").text_content()
    assert f"{len(units)} units (one band each)" in title
    drawn = graph.locator("polyline.best").evaluate_all(
        "lines => lines.map((l) => l.dataset.kind)"
    )
    assert set(drawn) <= set(units) and {"heuristic", "pons_score"} <= set(drawn)
    ys = graph.locator("text.ytick").evaluate_all(
        "ts => ts.map((t) => Number(t.getAttribute('y')))"
    )
    assert len(ys) == 2 * len(units)  # each band: its lowest and highest value
    bands = [ys[k : k + 2] for k in range(0, len(ys), 2)]
    for upper, lower in zip(bands[:-1], bands[1:], strict=True):
        assert max(upper) < min(lower)  # each band lies below the one before
    labels = graph.locator("text.band").all_text_contents()
    assert labels[:2] == ["heuristic value", "exact score"]  # as they first appear
    assert len(labels) == len(units)
    assert graph.bounding_box()["height"] > 190  # taller than a graph of one unit
