"""AlphaZero for Connect Four and tic-tac-toe: self-play with a PUCT search guided by
a policy-value net, and the net trained on what the search found.

* :mod:`~playahead.alphazero.kernels`: the PUCT search over many trees at once (numba).
* :mod:`~playahead.alphazero.search`: searches and self-play games with a net.
* :mod:`~playahead.alphazero.net`: the net and its pickle-free file format.
* :mod:`~playahead.alphazero.train`: training runs (``playahead train alphazero``).
* :mod:`~playahead.alphazero.agent`: the ``alphazero`` agent.

Importing this package is cheap: torch loads with the modules that need it.
"""
