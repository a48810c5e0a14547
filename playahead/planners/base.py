"""What every planner shares, as :mod:`playahead.planner` defines it (the n-tuple agent
uses it too): :class:`~playahead.planner.Planner`, :class:`~playahead.planner.Root`,
:class:`~playahead.planner.GenericGame` and the option checks."""

from playahead.planner import (
    KINDS,
    GenericGame,
    Planner,
    Root,
    backend_kind,
    check_choice,
    check_positive,
    make_root,
    masked,
    pick_max,
    state_key,
)

__all__ = [
    "KINDS",
    "GenericGame",
    "Planner",
    "Root",
    "backend_kind",
    "check_choice",
    "check_positive",
    "make_root",
    "masked",
    "pick_max",
    "state_key",
]
