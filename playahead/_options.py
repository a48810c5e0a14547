"""Command-line options generated from a dataclass, as CleanRL's scripts get theirs
from one dataclass of arguments (with tyro), here on argparse.

Each field becomes ``--field-name`` (or ``metadata["flag"]``), its help the first
paragraph of the field's docstring (the string literal after the field, as Sphinx
reads it), its default the field's, said in the help unless the help already speaks of
its default. A ``bool`` field that defaults to False is a switch (``--resume``), one
that defaults to True a ``--no-`` switch (``--no-preview``), and ``bool | None`` a
``--tc`` / ``--no-tc`` pair whose absence is None, and a ``dict`` a repeatable
``KEY=VALUE`` option (a list of strings, :func:`playahead.train.config.parse_overrides`
reads it). A field without a default is required. ``metadata`` may also give
``metavar``, ``choices``, ``type`` (a parser of the text, e.g. a positive integer)
``default``, the default in words where it depends on other options, and
``cli_default``, the command line's own default where it differs from the
field's (e.g. ``None`` for a run directory the command names itself).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import re
import textwrap
import types
import typing


def field_docs(cls: type) -> dict[str, str]:
    """The docstrings of ``cls``'s fields: ``{name: text}`` (dedented)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    docs = {}
    for node, after in zip(tree.body, tree.body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _plain(hint) -> tuple[type, bool]:
    """``(type, may be None)`` of a field's annotation (``int | None`` -> int)."""
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        kinds = [a for a in args if a is not type(None)]
        return kinds[0], len(kinds) < len(args)
    return hint, False


def option_help(doc: str, default) -> str:
    """The first paragraph of ``doc`` on one line, with ``default`` appended when it
    is a value and the text does not speak of a default already."""
    text = " ".join(doc.split("\n\n")[0].split()).removesuffix(".")
    text = _ROLE.sub(r"\1", text).replace("``", "")
    if all(default is not v for v in (None, False, True, dataclasses.MISSING)) and (
        "default" not in text
    ):
        text += f" (default {default})"
    return text


_ROLE = re.compile(r":\w+:`~?([^`]+)`")


def add_options(
    parser: argparse.ArgumentParser, cls: type, skip: tuple[str, ...] = ()
) -> list[str]:
    """Add an option to ``parser`` for each field of the dataclass ``cls`` but
    ``skip``; returns the fields added (each parsed into ``args.<field>``).

    Raises:
        TypeError: a field without a docstring, or of a type with no option form.
    """
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    added = []
    for field in dataclasses.fields(cls):
        if field.name in skip:
            continue
        if field.name not in docs:
            raise TypeError(f"{cls.__name__}.{field.name} has no docstring")
        kind, optional = _plain(hints[field.name])
        meta = field.metadata
        default = meta.get("cli_default", field.default)
        if field.default_factory is not dataclasses.MISSING:
            default = meta.get("cli_default")  # a dict: empty unless given
        flag = meta.get("flag", "--" + field.name.replace("_", "-"))
        shown = meta.get("default", default)  # a default in words, where it depends
        options = {"dest": field.name, "help": option_help(docs[field.name], shown)}
        options |= {k: meta[k] for k in ("metavar", "choices") if k in meta}
        if default is dataclasses.MISSING:
            options["required"] = True
        if kind is bool and optional:
            options.update(action=argparse.BooleanOptionalAction, default=None)
        elif kind is bool and default is True:
            flag = meta.get("flag", "--no-" + field.name.replace("_", "-"))
            options.update(action="store_false")
            if flag not in options["help"]:  # the doc says what the field turns on
                options["help"] = "turn off: " + options["help"]
        elif kind is bool:
            options.update(action="store_true")
        elif kind is dict or typing.get_origin(kind) is dict:
            options.update(action="append", default=[])
            options.setdefault("metavar", "KEY=VALUE")
        elif kind in (int, float, str) or "type" in meta:
            options["type"] = meta.get("type", kind)
            if default is not dataclasses.MISSING:
                options["default"] = default
        else:
            raise TypeError(f"{cls.__name__}.{field.name}: no option for {kind}")
        parser.add_argument(flag, **options)
        added.append(field.name)
    return added
