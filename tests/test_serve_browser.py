"""The ``playahead serve`` page end to end in a real headless Chromium (Playwright).

Needs ``pip install playwright`` and Debian's ``chromium`` (``apt-get install -y
chromium``); ``playwright install`` is not used. The screenshot is kept as a test
artifact in ``tests/artifacts/serve_browser.png``.
"""

import re
import shutil
from pathlib import Path

import pytest

from playahead.tools.games import VALUE_UNITS
from playahead.tools.media import CHROMIUM, CHROMIUM_ARGS
from playahead.tools.serve.app import start_in_thread
from playahead.tools.serve.loadtest import wait_ready

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="needs Playwright: pip install playwright"
)
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"needs Chromium at {CHROMIUM}: apt-get install -y chromium",
)

ARTIFACTS = Path(__file__).parent / "artifacts"
CHANGED = "before => document.querySelector('#board').dataset.board !== before"
STATUS_HAS = "text => document.querySelector('#status').innerText.includes(text)"


@pytest.fixture(scope="module")
def page():
    server, url = start_in_thread()
    wait_ready(url)  # a cold numba cache compiles in the workers first (else a 503)
    errors = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            tab = browser.new_page(viewport={"width": 1100, "height": 700})
            tab.on("pageerror", lambda err: errors.append(str(err)))
            tab.on(
                "console",
                lambda msg: errors.append(msg.text) if msg.type == "error" else None,
            )
            tab.base_url = url
            tab.errors = errors
            yield tab
        finally:
            browser.close()
            server.shutdown()
            server.server_close()


def _press_until_changed(page, keys):
    """Press keys until one changes the board (a slide can be illegal)."""
    for key in keys:
        before = page.get_attribute("#board", "data-board")
        page.keyboard.press(key)
        page.wait_for_timeout(50)
        try:
            page.wait_for_function(CHANGED, arg=before, timeout=5_000)
            return key
        except sync_api.TimeoutError:
            continue
    raise AssertionError(f"none of {keys} changed the board")


def test_threes_arrow_keys_hint_and_autoplay(page, tmp_path):
    page.goto(page.base_url + "?game=threes&seed=4")
    page.wait_for_selector("#board .tile")
    assert page.locator("#board .tile").count() == 16
    assert "moves 0" in page.inner_text("#status")
    _press_until_changed(page, ["ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"])
    page.wait_for_function(STATUS_HAS, arg="moves 1")
    _press_until_changed(page, ["s", "a", "w", "d"])
    assert "moves 2" in page.inner_text("#status")

    page.select_option("#planner", "mcts")
    page.fill("[data-option='n_simulations']", "100")
    page.click("#hint-button")
    page.wait_for_selector("#hint tr.best")
    rows = page.locator("#hint tbody tr")
    labels = [rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())]
    assert set(labels) <= {"up", "right", "down", "left"} and labels
    # MCTS values Threes moves in game points: the unit is named, values have commas
    assert page.inner_text("#hint th.value") == "expected final score"
    assert page.inner_text("#hint-note").startswith("mcts in ")
    texts = [rows.nth(i).locator("td.value").inner_text() for i in range(rows.count())]
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", text) for text in texts), texts

    before = page.get_attribute("#board", "data-board")
    page.keyboard.press("p")  # autoplay on
    page.wait_for_function(STATUS_HAS, arg="moves 5", timeout=60_000)
    page.keyboard.press("p")  # off
    page.wait_for_selector("#autoplay[aria-pressed='false']")
    assert page.get_attribute("#board", "data-board") != before

    ARTIFACTS.mkdir(exist_ok=True)
    shot = tmp_path / "serve_browser.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    shutil.copy(shot, ARTIFACTS / "serve_browser.png")
    assert page.errors == []


def test_connect4_click_a_column_against_the_opponent(page):
    page.goto(page.base_url + "?game=connect4")
    page.wait_for_selector("#board .disc")
    page.select_option("#opponent", "greedy")
    page.click("#new-game")
    page.wait_for_selector("#board .disc:enabled")
    page.click("#board .disc[data-move='3'] >> nth=0")
    page.wait_for_function(STATUS_HAS, arg="yellow:")
    status = page.inner_text("#status")
    assert "Your move (red)" in status and "red: col 3" in status
    bottom = page.locator("#board .disc").nth(5 * 7 + 3)
    assert "p1" in bottom.get_attribute("class")
    page.keyboard.press("h")
    page.wait_for_selector("#hint tr.best")
    assert page.locator("#hint tbody tr").count() == 7
    # two discs: beyond the page's solver budget, so minimax's values, an estimate
    units = {VALUE_UNITS["heuristic"], VALUE_UNITS["solved"]}  # minimax's two kinds
    assert page.inner_text("#hint th.value") in units
    assert page.get_attribute("#hint", "data-exact") == "false"
    note = page.inner_text("#hint-note")
    assert note.startswith("solver in ") and "estimate: not solved within" in note
    assert page.locator("#hint td.value.estimate").count() == 7
    assert page.errors == []


def test_bad_input_shows_the_servers_error(page):
    page.goto(page.base_url + "?game=nim")
    page.wait_for_selector("#board .takes button")
    page.fill("[data-rule='n']", "5000")
    page.click("#new-game")
    page.wait_for_function("document.querySelector('#error').innerText !== ''")
    assert "n must be in 1..200" in page.inner_text("#error")


SLOW_FETCH = """() => {
  const fetchNow = window.fetch;
  window.fetch = (...args) =>
    new Promise((resolve) => setTimeout(resolve, 400)).then(() => fetchNow(...args));
}"""


def test_keys_pressed_while_the_server_is_busy_are_queued(page):
    page.errors.clear()  # the test before this one asked for a 400 on purpose
    page.goto(page.base_url + "?game=nim&seed=1")
    page.wait_for_selector("#board .takes button")
    page.wait_for_function("S.view && S.view.ply === 0")
    page.evaluate(SLOW_FETCH)  # every answer now takes 0.4 s
    for _ in range(3):
        page.keyboard.press("1")  # all three within the first answer's delay
    page.wait_for_function("S.view.ply === 3 && S.queue.length === 0", timeout=20_000)
    assert page.errors == []


def test_rule_options_have_human_names(page):
    page.goto(page.base_url + "?game=threes")
    page.wait_for_selector("#board .tile")
    rules = page.inner_text("#rules")
    assert "bonus card preview" in rules and "6144s merge" in rules
    assert "bonus_preview" not in rules and "merge_6144" not in rules
    assert page.input_value("[data-rule='bonus_preview']") == "window"


def test_review_view_and_assist_mode(page):
    """A tic-tac-toe game in hot seat, reviewed: the edge reply to the centre is a
    blunder; clicking it shows its board and every move's value. Then Assist follows a
    Threes board typed in, refuses a contradicting entry, and undoes."""
    page.errors.clear()
    page.goto(page.base_url + "?game=tictactoe")
    page.select_option("#side", "hotseat")
    page.click("#new-game")
    page.wait_for_selector("#board .cell")
    for cell in (4, 1):
        page.click(f"#board [data-move='{cell}']")
        page.wait_for_selector(f"#board [data-move='{cell}']:disabled")
    page.keyboard.press("r")
    page.wait_for_selector("#review-moves tbody tr:nth-child(2)", timeout=60_000)
    page.wait_for_function(
        "() => document.querySelector('#review-summary').innerText.includes('accuracy')"
    )
    second = page.locator("#review-moves tbody tr").nth(1)
    assert second.get_attribute("class") == "blunder"
    assert "accuracy 50.0%" in page.inner_text("#review-summary")
    assert "1 blunder" in page.inner_text("#review-summary")
    assert page.is_visible("#review-graph")
    assert page.locator("#review-graph polyline").count() == 1
    assert page.locator("#review-graph circle.blunder").count() == 1
    second.click()
    page.wait_for_selector("#review-position:not([hidden])")
    assert page.get_attribute("#review-board", "data-move") == "2"
    assert page.locator("#review-values tbody tr").count() == 8  # 8 empty cells

    page.select_option("#game", "threes")
    page.wait_for_selector("#board .tile")
    page.fill("#assist-board", "1 2 0 3 / 0 6 0 0 / 0 0 3 0 / 2 0 0 1")
    page.fill("#assist-next", "2")
    page.click("#assist-start")
    page.wait_for_selector("#assist-entry:not([disabled])")
    page.wait_for_selector("#hint tr.best")
    before = page.get_attribute("#board", "data-board")
    page.fill("#assist-entry", "k22")
    page.press("#assist-entry", "Enter")
    page.wait_for_function(
        "() => document.querySelector('#error').innerText.includes('did not move')"
    )
    assert page.get_attribute("#board", "data-board") == before
    page.fill("#assist-entry", "h12")
    page.press("#assist-entry", "Enter")
    page.wait_for_function(CHANGED, arg=before)
    assert "moves 1" in page.inner_text("#status")
    page.fill("#assist-entry", "u")
    page.press("#assist-entry", "Enter")
    page.wait_for_function(STATUS_HAS, arg="moves 0")
    assert page.get_attribute("#board", "data-board") == before
    assert len(page.errors) == 1 and "status of 400" in page.errors[0]  # refused
