"""The README's tour runs as written and prints what its comments say."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def _tour() -> str:
    text = README.read_text()
    section = text.split("## A 30-second tour", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_tour_prints_what_the_readme_shows():
    code = _tour()
    promised = [
        line.split("# ", 1)[1].strip()
        for line in code.splitlines()
        if line.startswith("print(") and "# " in line
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    printed = [" ".join(line.split()) for line in out.getvalue().splitlines()]
    assert printed == [" ".join(p.split()) for p in promised]
