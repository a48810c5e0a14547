"""Every code block of the documentation runs under pytest (Sybil).

* ```` ```python ```` blocks run in order, one namespace per page, in a fresh
  temporary directory (so a block may write files).
* ```` ```bash ```` blocks are parsed: each ``playahead ...`` command (continuation
  lines joined, comments dropped) must be accepted by ``playahead``'s own argument
  parser, as ``tests/test_readme.py`` does for the README. Long jobs (hours of
  training) are written as bash blocks, so their commands are checked but not run.
* Any other fenced block fails: a block either runs or is a checked command.

The recipes of third-party libraries that are not installed here (Tianshou, RLlib,
rl-zoo3: ``make test-thirdparty`` runs them in a venv of their own) are skipped when
their library cannot be imported, and only then.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import os
import re
import shlex
import sys
import types

import pytest
from sybil import Sybil
from sybil.parsers.myst import CodeBlockParser, PythonCodeBlockParser, SkipParser

#: Libraries of ``make test-thirdparty``; a block importing one runs where it exists.
THIRD_PARTY = ("tianshou", "ray.rllib", "rl_zoo3")


def _commands(source: str) -> list[str]:
    """The ``playahead ...`` commands of a bash block."""
    commands = []
    for line in source.replace("\\\n", " ").splitlines():
        line = line.split(" #", 1)[0].strip()
        if line.startswith("playahead "):
            commands.append(line)
    return commands


def parse_bash(example) -> None:
    """Parse every ``playahead`` command of a bash block with the CLI's parser."""
    from playahead.cli import build_parser

    for command in _commands(example.parsed):
        try:
            args = build_parser().parse_args(shlex.split(command)[1:])
        except SystemExit as exit_:
            raise AssertionError(f"playahead rejects: {command}") from exit_
        assert getattr(args, "func", None), f"not a runnable command: {command}"


def promised_output(source: str) -> list[str]:
    """The comments on a block's ``print(...)`` lines: what the page says they print."""
    return [
        " ".join(line.split("# ", 1)[1].split())
        for line in source.splitlines()
        if line.startswith("print(") and "# " in line
    ]


def run_python(evaluate, example):
    """Run a python block (skipping it where a third-party library is missing); where
    its ``print`` lines carry a comment, the printed lines must be those comments."""
    for module in re.findall(r"^\s*(?:import|from)\s+([\w.]+)", example.parsed, re.M):
        if module.startswith(THIRD_PARTY):
            try:
                importlib.import_module(module)
            except ImportError:
                pytest.skip(f"needs {module} (make test-thirdparty)")
    promised = promised_output(example.parsed)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        evaluate(example)
    if promised:
        printed = [" ".join(line.split()) for line in out.getvalue().splitlines()]
        assert printed == promised, f"printed {printed}, the page says {promised}"


class AnyOtherBlock(CodeBlockParser):
    """Fails on a fenced block that is neither python nor bash (MyST directives such
    as ```` ```{toctree} ```` are not code)."""

    language = "other"

    def __call__(self, document):
        for region in self.lexers(document):
            language = region.lexemes["arguments"] or ""
            if language not in ("python", "bash") and not language.startswith("{"):
                region.parsed = language
                region.evaluator = self.evaluate
                yield region

    def evaluate(self, example):
        raise AssertionError(
            f"a ```{example.parsed} block can neither run nor be parsed; write it as "
            "python or bash"
        )


class _PageModule(types.ModuleType):
    """A page's namespace as a module, so that classes defined in its blocks pickle
    (``pickle`` finds a class through ``sys.modules[cls.__module__]``), as they would
    in the user's own module."""

    def __init__(self, name: str, namespace: dict):
        super().__init__(name)
        self._namespace = namespace

    def __getattr__(self, attr: str):
        try:
            return self._namespace[attr]
        except KeyError:
            raise AttributeError(attr) from None


def _page_module(namespace: dict) -> None:
    name = f"docs_page_{id(namespace)}"
    sys.modules[name] = _PageModule(name, namespace)
    namespace["__name__"] = name


def _drop_page_module(namespace: dict) -> None:
    sys.modules.pop(namespace["__name__"], None)


@pytest.fixture(scope="module")
def page_dir(tmp_path_factory):
    """A fresh working directory for the blocks of one page."""
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("page"))
    yield
    os.chdir(cwd)


class _Python(PythonCodeBlockParser):
    """Sybil's python blocks, with :func:`run_python` around its evaluator."""

    def __call__(self, document):
        for region in super().__call__(document):
            region.evaluator = functools.partial(run_python, region.evaluator)
            yield region


pytest_collect_file = Sybil(
    parsers=[
        _Python(),
        CodeBlockParser(language="bash", evaluator=parse_bash),
        AnyOtherBlock(),
        SkipParser(),
    ],
    patterns=["*.md", "games/*.md"],
    excludes=["_build/*", "generated/*"],
    fixtures=["page_dir"],
    setup=_page_module,
    teardown=_drop_page_module,
).pytest()
