"""Head-to-head evaluation of agents on the same seeded games.

>>> from playahead.evaluate import evaluate
>>> result = evaluate("2048-v0", ["random", "greedy"], 20, seed=0)  # doctest: +SKIP
>>> print(result.to_markdown())  # doctest: +SKIP

``playahead evaluate`` is the command-line face of :func:`evaluate`. Modules:
:mod:`.play` (one game, seeds), :mod:`.store` (SQLite, one row per finished game),
:mod:`.backends` (in process, process pool, Ray), :mod:`.stats` (bootstrap, Elo),
:mod:`.summary` (statistics from stored games), :mod:`.report` (the results object,
tables, exports), :mod:`.plots` (matplotlib figures), :mod:`.runner` (``evaluate``).
"""

from playahead.evaluate.play import AgentError
from playahead.evaluate.report import (
    AgentSummary,
    EvaluationResult,
    PairComparison,
    PairRecord,
    PlayerSummary,
)
from playahead.evaluate.runner import evaluate

__all__ = [
    "AgentError",
    "AgentSummary",
    "EvaluationResult",
    "PairComparison",
    "PairRecord",
    "PlayerSummary",
    "evaluate",
]
