"""N-tuple networks trained by afterstate TD(lambda) for 2048 and Threes.

* :mod:`playahead.kernels.ntuple`: the compiled value and update (signatures at the
  top of that module; ``value_2048``/``value_threes``/``fast_value`` read the learned
  leaf for expectimax).
* :mod:`playahead.kernels.td`: the compiled greedy games, restarts and backward
  TD(lambda)/TC pass (``python -m benchmarks ntuple`` measures the learning curve and
  the updates per CPU second).
* :mod:`playahead.ntuple.model`: :class:`NTupleModel`, saved as ``weights.npz`` +
  ``model.json`` and loaded without pickle.
* :mod:`playahead.ntuple.train`: ``train_ntuple`` (``playahead train ntuple``).
* :mod:`playahead.ntuple.agent`: ``make_agent("ntuple:path=DIR")``.
"""

from __future__ import annotations

from playahead.ntuple.model import DEFAULT_PATTERNS, NTupleModel, load_model

__all__ = ["DEFAULT_PATTERNS", "NTupleModel", "load_model"]
