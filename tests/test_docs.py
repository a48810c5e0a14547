"""The documentation build's own checks (docs/conf.py) fail where they should.

``make docs`` runs Sphinx with ``-W -n``; docs/conf.py adds two checks of its own: a
public name without a docstring, and an agent option without a description in the
``Args:`` section of its factory. Each test builds a one-page site with the real
docs/conf.py around a small module, once clean and once with the fault.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _build(tmp_path: Path, module: str, page: str) -> subprocess.CompletedProcess:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    shutil.copy(DOCS / "conf.py", src / "conf.py")
    (src / "_templates").mkdir()
    (src / "index.md").write_text(page)
    (tmp_path / "docsfixture.py").write_text(textwrap.dedent(module))
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html", src, out],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


API_PAGE = "# Fixture\n\n```{eval-rst}\n.. automodule:: docsfixture\n```\n"


@pytest.mark.parametrize("documented", [True, False])
def test_a_public_function_without_a_docstring_fails_the_build(tmp_path, documented):
    doc = '"""Add one."""' if documented else "pass"
    module = f'''
        """A fixture module."""


        def add_one(x):
            {doc}
            return x + 1
        '''
    result = _build(tmp_path, module, API_PAGE)
    if documented:
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode != 0
        assert "function docsfixture.add_one has no docstring" in result.stderr


@pytest.mark.parametrize("described", [True, False])
def test_an_agent_option_without_a_description_fails_the_build(tmp_path, described):
    line = " " * 16 + "depth: plies to search." if described else ""
    module = f'''
        """Registers a fixture agent."""

        from playahead import register_agent


        class Still:
            """Always plays action 0.

            Args:
                seed: unused.
{line}
            """

            def __init__(self, seed=None, depth=1):
                self.depth = depth

            def act(self, env):
                """Action 0."""
                return 0


        register_agent("still-fixture", Still)
        '''
    page = "# Fixture\n\n```{eval-rst}\n.. automodule:: docsfixture\n```\n\n"
    page += "```{agent-options} still-fixture\n```\n"
    result = _build(tmp_path, module, page)
    if described:
        assert result.returncode == 0, result.stderr
        html = (tmp_path / "out" / "index.html").read_text()
        assert "plies to search." in html
    else:
        assert result.returncode != 0
        assert "option depth has no description" in result.stderr
