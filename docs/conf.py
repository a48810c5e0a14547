"""Sphinx configuration of playahead's documentation site (``make docs``).

Pages are Markdown (MyST), the API reference comes from the docstrings (autodoc,
autosummary, napoleon for the Google style). ``-W -n`` turn every warning and every
broken cross-reference into an error; :func:`_require_docstring` adds one: a public
name in the API reference without a docstring.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from pathlib import Path

from docutils.parsers.rst import Parser as RSTParser
from docutils.parsers.rst import directives
from docutils.utils import new_document
from sphinx.ext import napoleon
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OMP_NUM_THREADS", "1")

import playahead  # noqa: E402

project = "playahead"
author = "the playahead authors"
copyright = "playahead authors, MIT licence"
release = version = playahead.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "conftest.py"]
templates_path = ["_templates"]
suppress_warnings = ["myst.header"]

# MyST: ``:::`` fences for directives, heading anchors for links like page.md#section.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference.
autosummary_generate = True
autodoc_default_options = {
    "members": True,
    "undoc-members": True,  # so that _require_docstring sees every public name
    "show-inheritance": True,
    "member-order": "bysource",
    # Each name is documented where it is defined; a package's re-exports link there.
    "ignore-module-all": True,
}
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented_params"
autodoc_mock_imports: list[str] = []
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True  # "Attributes:" as fields, not a second attribute entry
napoleon_use_rtype = False

# -n: a reference to a playahead name that does not resolve fails the build. Names of
# other libraries are not linked (no network at build time), so they are let through.
nitpicky = True
_EXTERNAL = (
    "numpy",
    "np",
    "gymnasium",
    "gym",
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "pettingzoo",
    "matplotlib",
    "starlette",
    "pydantic",
    "uvicorn",
    "h11",
    "ray",
    "rich",
    "argparse",
    "pathlib",
    "os",
    "collections",
    "typing",
    "types",
    "dataclasses",
    "concurrent",
    "multiprocessing",
    "sqlite3",
    "numba",
    "abc",
    "enum",
    "io",
    "json",
    "re",
    "datetime",
    "asyncio",
    "threading",
    "signal",
    "tqdm",
    "tensorboard",
)
nitpick_ignore_regex = [
    (r"py:.*", rf"({'|'.join(_EXTERNAL)})\..*"),
    (
        r"py:class",
        r"(int|float|str|bool|bytes|dict|list|tuple|set|frozenset|object|None|"
        r"Any|Callable|Iterable|Iterator|Sequence|Mapping|Path|PathLike|"
        r"Generator|ndarray|optional|callable|array_like|Self|TextIO|IO)",
    ),
]

# Pages.
html_theme = "furo"
html_title = f"playahead {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

_WHAT_NEEDS_A_DOCSTRING = {"module", "class", "exception", "function", "method"}
#: Names from other libraries that docstrings (ours, or inherited from Gymnasium's and
#: torch's base classes) mention without a module path.
_FOREIGN_NAMES = {
    "ActType",
    "ObsType",
    "ModuleType",
    "Module",
    "SupportsFloat",
    "RenderFrame",
}


def _require_docstring(app, what, name, obj, options, lines):
    """Fail the build (a warning under ``-W``) for a public name without a docstring."""
    public = not any(part.startswith("_") for part in name.split("."))
    if what in _WHAT_NEEDS_A_DOCSTRING and public and not any(s.strip() for s in lines):
        logging.getLogger("playahead.docs").warning(
            "%s %s has no docstring", what, name, type="playahead", subtype="docstring"
        )


def _own_or_pointer(app, what, name, obj, options, lines):
    """A method that overrides another library's documented one (``step``,
    ``forward``, a wrapper's ``observation``) shows a pointer to it, not a copy."""
    if what != "method" or getattr(obj, "__doc__", None):
        return
    cls_name, _, method = name.rpartition(".")
    module, _, cls = cls_name.rpartition(".")
    owner = getattr(importlib.import_module(module), cls, None)
    for base in inspect.getmro(owner)[1:] if owner else ():
        doc = getattr(getattr(base, method, None), "__doc__", None)
        if doc and not base.__module__.startswith("playahead"):
            lines[:] = [
                f"See :meth:`{base.__module__}.{base.__qualname__}.{method}`.",
                "",
            ]
            return


def _headings_as_rubrics(app, what, name, obj, options, lines):
    """``## Action Space`` in an env docstring (Gymnasium's shape) becomes a rubric."""
    out: list[str] = []
    for line in lines:
        match = re.fullmatch(r"##\s+(.+)", line.strip())
        if match:
            out += ["", f".. rubric:: {match.group(1)}", ""]
        else:
            out.append(line)
    lines[:] = out


def _napoleon_except_attributes(app, what, name, obj, options, lines):
    """napoleon for everything but attributes, data and properties, whose one-line
    docstrings ("Face values by rank: ...") it would read as "type: description"."""
    if what not in ("attribute", "data", "property"):
        napoleon._process_docstring(app, what, name, obj, options, lines)


_KINDS = {
    "func": {"function"},
    "class": {"class", "exception"},
    "exc": {"exception", "class"},
    "meth": {"method", "classmethod", "staticmethod", "property"},
    "attr": {"attribute", "property"},
    "data": {"data"},
    "mod": {"module"},
}


def _foreign_member(app, what, name, obj, skip, options):
    """Leave out classes and functions a module imports from the standard library or
    another library (``Callable``, ``Iterator``): they are not ours to document."""
    if inspect.isclass(obj) or inspect.isfunction(obj):
        top = (getattr(obj, "__module__", None) or "").split(".")[0]
        if top in sys.stdlib_module_names or top in _EXTERNAL or top == "builtins":
            return True
    return None


_MISSING = object()


def _find(dotted: str):
    """The object ``dotted`` names (a module or an attribute reachable from one), or
    ``_MISSING``."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError:
            return _MISSING
        return obj
    return _MISSING


def _resolve(app, env, node, contnode):
    """Resolve a short reference whose target is one documented object (``make_agent``
    from anywhere), else accept a real object that has no entry of its own (module
    data, private names): shown as code, not linked. Anything else stays broken."""
    if node.get("refdomain") != "py":
        return None
    target = re.sub(r"\s+", "", node["reftarget"]).lstrip(".~")
    if target in _FOREIGN_NAMES:
        return contnode
    domain = env.get_domain("py")
    kinds = _KINDS.get(node["reftype"])
    matches = [
        n
        for n, entry in domain.objects.items()
        if (n == target or n.endswith("." + target))
        and (kinds is None or entry.objtype in kinds)
    ]
    module, cls = node.get("py:module") or "", node.get("py:class") or ""
    if len(matches) > 1:  # prefer the ones nearest the reference
        near = [n for n in matches if n.startswith(module + ".")]
        matches = near or matches
    if len(matches) > 1:  # a method name many classes share: it exists, not linked
        return contnode
    if len(matches) == 1:
        return make_refnode(
            app.builder,
            node["refdoc"],
            domain.objects[matches[0]].docname,
            domain.objects[matches[0]].node_id,
            contnode,
            matches[0],
        )
    scopes = [f"{module}.{cls}", module, ""] if cls else [module, ""]
    for scope in scopes:
        if target.startswith("playahead") or scope.startswith("playahead"):
            found = _find(f"{scope}.{target}".lstrip("."))
            if found is not _MISSING:
                # a re-export (playahead.make_agent) links to where it is defined
                module_of = getattr(found, "__module__", "")
                home = f"{module_of}.{getattr(found, '__qualname__', '')}"
                entry = domain.objects.get(home)
                if entry is not None:
                    return make_refnode(
                        app.builder,
                        node["refdoc"],
                        entry.docname,
                        entry.node_id,
                        contnode,
                        home,
                    )
                return contnode
    return None


def _rst(directive: SphinxDirective, text: str) -> list:
    """``text`` parsed as reStructuredText (docstrings are reST, and a directive's own
    ``nested_parse`` would read them as Markdown on a MyST page)."""
    document = new_document(
        directive.get_source_info()[0], directive.state.document.settings
    )
    document.reporter = directive.state.document.reporter
    RSTParser().parse(text, document)
    return document.children


class EnvDoc(SphinxDirective):
    """``envdoc`` directive: one ``## Section`` of an env class's docstring, e.g.
    ``Action Space`` of ``playahead.envs.tiles.ThreesEnv``, so that a game's page and
    the env's own docstring cannot disagree. Fails when the section is missing."""

    required_arguments = 1
    option_spec = {"section": directives.unchanged_required}

    def run(self):
        module, _, name = self.arguments[0].rpartition(".")
        doc = inspect.getdoc(getattr(importlib.import_module(module), name)) or ""
        want = self.options["section"].strip()
        parts = re.split(r"^##\s+(.+)$", doc, flags=re.M)
        sections = {
            t.strip(): body for t, body in zip(parts[1::2], parts[2::2], strict=True)
        }
        if want not in sections:
            raise self.error(f"{self.arguments[0]} has no '## {want}' section")
        return _rst(self, sections[want].strip("\n"))


def _args_section(doc: str) -> dict[str, str]:
    """``name -> description`` from the ``Args:`` section of a Google docstring."""
    lines = doc.splitlines()
    out: dict[str, str] = {}
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Args:")
    except StopIteration:
        return out
    indent = len(lines[start]) - len(lines[start].lstrip()) + 4
    name = None
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        match = re.match(rf"^ {{{indent}}}(\**\w+)(?: \(.*?\))?:\s*(.*)$", line)
        if match:
            name = match.group(1)
            out[name] = match.group(2)
        elif name and line.strip():
            out[name] += " " + line.strip()
    return out


def _spec_value(value) -> str:
    """A default as it is written in a spec string."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


class AgentOptions(SphinxDirective):
    """``agent-options`` directive: the options of a registered agent as a table
    (option, default, meaning), from :func:`playahead.agents.agent_options` and the
    ``Args:`` section of its factory's docstring, or the field docstrings of its
    settings record (``Settings``). An option without a description fails the
    build."""

    required_arguments = 1

    def run(self):
        from playahead._options import field_docs
        from playahead.agents import _REGISTRY, ANY_OPTION, REQUIRED, agent_options

        name = self.arguments[0]
        options = agent_options(name)  # loads the built-in agents
        if name not in _REGISTRY:
            raise self.error(f"no agent named {name!r}")
        factory = _REGISTRY[name].factory
        described = _args_section(inspect.getdoc(factory) or "")
        settings = getattr(factory, "Settings", None)
        if settings is not None:
            described |= {
                k: " ".join(v.split("\n\n")[0].split())
                for k, v in field_docs(settings).items()
            }
        rows = []
        for option, default in options.items():
            if option == ANY_OPTION:
                continue
            if option not in described:
                logging.getLogger("playahead.docs").warning(
                    "agent %s: option %s has no description in the Args: section of %s",
                    name,
                    option,
                    factory.__qualname__,
                    location=self.get_location(),
                )
                continue
            default = "" if default is REQUIRED else _spec_value(default)
            rows += [
                f"   * - ``{option}``",
                f"     - ``{default}``" if default else "     -",
                f"     - {described[option]}",
            ]
        table = [
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 18 12 70",
            "",
            "   * - option",
            "     - default",
            "     - meaning",
            *rows,
        ]
        return _rst(self, "\n".join(table))


def setup(app):
    app.connect("autodoc-process-docstring", _own_or_pointer, priority=100)
    app.connect("autodoc-process-docstring", _headings_as_rubrics, priority=200)
    for listener in list(app.events.listeners["autodoc-process-docstring"]):
        if listener.handler is napoleon._process_docstring:
            app.disconnect(listener.id)
    app.connect("autodoc-process-docstring", _napoleon_except_attributes, priority=500)
    app.connect("autodoc-process-docstring", _require_docstring, priority=900)
    app.connect("autodoc-skip-member", _foreign_member)
    app.connect("missing-reference", _resolve)
    app.add_directive("envdoc", EnvDoc)
    app.add_directive("agent-options", AgentOptions)
