"""The compiled kernels: numba code over packed game states, below every planner and
learner that calls them. Each module only computes; its callers check the inputs.

* :mod:`playahead.kernels.rows`: a packed board's value from a row table.
* :mod:`playahead.kernels.expectimax`: the exact expectimax search of 2048 and Threes
  and its records (:class:`~playahead.kernels.expectimax.SearchContext`,
  :class:`~playahead.kernels.expectimax.SearchConfig`,
  :class:`~playahead.kernels.expectimax.LeafNet`).
* :mod:`playahead.kernels.tiles`: Monte Carlo, lookahead and MCTS for 2048 and Threes.
* :mod:`playahead.kernels.duels`: playouts, Monte Carlo, MCTS and alpha-beta for the
  two-player games.
* :mod:`playahead.kernels.ntuple`: n-tuple network values and their weight lookups.
* :mod:`playahead.kernels.td`: afterstate TD(lambda) training games of an n-tuple net.
* :mod:`playahead.kernels.prefetch`: a cache hint for the weight lookups.

The modules import the game rules (:mod:`playahead.games`) and each other, nothing
above. Run with ``NUMBA_DISABLE_JIT=1`` to step through them as plain Python.
"""
