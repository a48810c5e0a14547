"""The JSON form of the envs' ``clone_state()`` objects, checked both ways.

:func:`state_to_json` gives what the server hands out and :func:`state_from_json`
reads what a client sends back; both go through :data:`models.State`, so the server
never hands out a state that it would refuse.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np
from pydantic import TypeAdapter, ValidationError

from playahead.tools.serve import models


class ApiError(Exception):
    """A request the API refuses: ``status`` (4xx) and a message for the client."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


_BOARD = (lambda b: f"{b:016x}"[::-1], lambda h: int(h[::-1], 16))
_SAME = (lambda x: x, lambda x: x)
#: State class name -> the JSON forms of its fields: (encode, decode).
_FIELDS = {
    "Twenty48State": {"board": _BOARD, "score": _SAME, "moves": _SAME},
    "ThreesState": {
        "board": _BOARD,
        "cards": _SAME,
        "moves": _SAME,
        "bonus_preview": _SAME,
        "merge_6144": _SAME,
    },
    "BoardGameState": {
        "game": _SAME,
        "rules": (dict, lambda r: tuple(sorted(r.items()))),
        "position": (list, tuple),
        "agent_player": _SAME,
    },
}


def _state_class(name: str) -> type:
    from playahead.envs.board_games import BoardGameState
    from playahead.envs.tiles import ThreesState, Twenty48State

    classes = (Twenty48State, ThreesState, BoardGameState)
    return {cls.__name__: cls for cls in classes}[name]


@functools.cache
def _adapter() -> TypeAdapter:
    """The validator of :data:`models.State` (built once: building one costs ms)."""
    return TypeAdapter(models.State)


def state_to_json(state) -> dict:
    """``{"type": class name, field: value...}`` of a ``clone_state()`` object.

    Packed tile boards become 16 hex digits, one rank per cell row by row from the top
    left (``"3001..."``: a 3 in the corner), so no client loses precision on 64-bit
    integers. The result is checked by the same model as a request's state, so the
    server never hands out a state it would refuse.

    Raises:
        ApiError: the state is past the API's limits (:data:`models.MAX_MOVES` moves,
            a score over :data:`models.MAX_SAFE`).
    """
    name = type(state).__name__
    if name not in _FIELDS:
        raise TypeError(f"no JSON form for {name}")
    fields = _FIELDS[name]
    data = dataclasses.asdict(state)
    out = {"type": name} | {k: fields[k][0](v) for k, v in data.items()}
    out = plain(out)
    try:
        _adapter().validate_python(out)
    except ValidationError as err:
        raise ApiError(
            "this game has reached the server's limits "
            f"({models.explain(err, 'state')}); start a new one"
        ) from None
    return out


def state_from_json(obj) -> Any:
    """The state object of :func:`state_to_json`'s output, every field checked.

    Raises:
        ApiError: (422) not a state of :mod:`models`: an unknown type, missing or
            extra fields, or a field of the wrong type or range. (Whether it is a
            position of the game is checked by the env's ``restore_state``.)
    """
    try:
        model = _adapter().validate_python(obj)
    except ValidationError as err:
        raise ApiError(models.explain(err, "state"), 422) from None
    return decode_state(model)


def decode_state(model) -> Any:
    data = model.model_dump()
    name = data.pop("type")
    fields = _FIELDS[name]
    return _state_class(name)(**{k: fields[k][1](v) for k, v in data.items()})


def plain(value):
    """JSON-safe copy: numpy scalars to Python, NaN to None, tuples to lists."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
