"""The rules of each game as pure functions on a small state, compiled with numba.

:mod:`~playahead.games.threes` and :mod:`~playahead.games.twenty48` (a 4x4 board of
4-bit ranks packed in one uint64), :mod:`~playahead.games.tictactoe`,
:mod:`~playahead.games.connect_four` and :mod:`~playahead.games.nim` (Nim and Chips).
Envs, planners, the n-tuple trainer and the hint tool all use these rules.
"""

from playahead._numba_cache import drop_stale as _drop_stale

_drop_stale()  # before any kernel is defined: no cached kernel outlives its callees
