"""Optional dependencies: which extra brings which module, and a clear message when one
is missing (``pip install 'playahead[rl]'``) instead of a bare ImportError."""

from __future__ import annotations

import importlib
from types import ModuleType

#: top-level module -> the extra of playahead that installs it
EXTRA_OF = {
    "torch": "rl",
    "stable_baselines3": "rl",
    "sb3_contrib": "rl",
    "tensorboard": "rl",
    "yaml": "rl",
    "matplotlib": "plots",
    "pettingzoo": "pettingzoo",
    "ray": "distributed",
    "starlette": "serve",
    "uvicorn": "serve",
    "pydantic": "serve",
    "cma": "tune",
}


def missing_message(module: str, what: str = "this") -> str | None:
    """What to tell a user whose ``module`` is missing, or None if no extra has it."""
    extra = EXTRA_OF.get(module.split(".")[0])
    if extra is None:
        return None
    return (
        f"{what} needs {module.split('.')[0]} (the {extra!r} extra): "
        f"pip install 'playahead[{extra}]'"
    )


def require(module: str, what: str) -> ModuleType:
    """Import ``module``; if it is missing, raise ModuleNotFoundError naming the extra.

    Raises:
        ModuleNotFoundError: ``module`` is not installed (the message says which extra
            of playahead installs it).
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is None or err.name.split(".")[0] != module.split(".")[0]:
            raise
        raise ModuleNotFoundError(
            missing_message(module, what), name=err.name
        ) from None
