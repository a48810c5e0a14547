"""The games in flight reach the progress display: moves and score so far, then the
end of each game, from this process and from worker processes."""

import pytest

from playahead.evaluate.backends import run_tasks
from playahead.evaluate.play import REPORT_EVERY, Task
from playahead.evaluate.runner import _progress


def tasks(n):
    return [Task("2048-v0", "{}", ("greedy",), i, 0, 0) for i in range(n)]


@pytest.mark.parametrize("workers", [1, 2])
def test_reports_follow_each_game_to_its_end(workers):
    seen = []
    records = list(
        run_tasks(tasks(2), workers=workers, report=lambda *r: seen.append(r))
    )
    for record in records:
        key = ("greedy", "", record.game_index, 0)
        mine = [(moves, score) for k, moves, score in seen if k == key]
        assert mine[-1] == (None, None)  # the game's end is reported last
        counts = [moves for moves, _ in mine[:-1]]
        assert counts == list(range(REPORT_EVERY, record.moves + 1, REPORT_EVERY))
        scores = [score for _, score in mine[:-1]]
        assert scores == sorted(scores) and all(s <= record.score for s in scores)


def test_progress_line_shows_games_in_flight_and_drops_finished_ones():
    bar = _progress(False, "2048-v0", 10, 0)
    bar.report(("a", "", 3, 0), 812, 45210)
    bar.report(("a", "", 4, 0), 20, 96)
    assert bar.line() == "game 3: 812 moves, 45,210  game 4: 20 moves, 96"
    bar.report(("a", "", 3, 0), None, None)
    assert bar.line() == "game 4: 20 moves, 96"
