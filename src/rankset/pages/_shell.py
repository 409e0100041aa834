"""The shell both pages share: the head, the Content-Security-Policy, the escapes, the assets.

The report and the dashboard are one offline file each: their style and script are
inlined, nothing is loaded. The style and the script are real files in
``rankset/pages/assets`` (CSS and JavaScript, linted and unit-tested as such), read once
through :mod:`importlib.resources` and cached:

- ``base.css``: what both pages share (colours, fonts, tables); ``report.css`` and
  ``dashboard.css`` each page's own rules, after it.
- ``report_vega_ast.js``: forces vega-embed's expression interpreter on every chart of the
  report, which the policy needs (no ``eval``).
- ``dashboard_core.js`` (pure functions, run by node in the tests), ``dashboard_page.js``
  and ``dashboard_views.js`` (the DOM), run in that order inside the one function of
  ``dashboard.js``.

Every script goes into its element through :func:`inline_script` and every JSON value
through :func:`json_script`, so that no string can end the element early.
"""

from __future__ import annotations

import functools
import html
import importlib.resources
import json
import re
from collections.abc import Sequence
from typing import Any, Final

from rankset._format import script_safe
from rankset._version import __version__

__all__ = [
    "ASSETS",
    "CSP",
    "asset",
    "browser_part",
    "compact_script",
    "compact_style",
    "dashboard_script",
    "fill_template",
    "inline_script",
    "json_script",
    "page_head",
    "script_json",
    "stylesheet",
]

#: The pages' Content-Security-Policy: inline scripts and styles, ``data:`` images, nothing
#: else (no network request of any kind, no ``eval``).
CSP: Final = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
)

# Where a script's block for node's tests starts: a page leaves it out.
_NODE_EXPORTS: Final = 'if (typeof module !== "undefined"'
# Spaces the stylesheet does without: after ":", ";" and ",", around braces.
_STYLE_SPACES: Final = re.compile(r"(?<=[:;,])[ \t]+|[ \t]*([{}])[ \t]*")

#: Every file of ``rankset/pages/assets`` the pages read (the wheel must ship each).
ASSETS: Final = (
    "base.css",
    "report.css",
    "dashboard.css",
    "report_vega_ast.js",
    "dashboard.js",
    "dashboard_core.js",
    "dashboard_page.js",
    "dashboard_views.js",
)
#: The dashboard's scripts, in the order they run inside ``dashboard.js``.
DASHBOARD_SCRIPTS: Final = ("dashboard_core.js", "dashboard_page.js", "dashboard_views.js")

# Characters that could end a <script> element or open a comment inside one, and the two
# line terminators older engines reject in strings; JSON reads the escapes as the same.
_SCRIPT_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
# A template's placeholder: an identifier in capitals after RANKSET_ (valid JavaScript, so
# the template lints as it is).
_PLACEHOLDER = re.compile(r"\bRANKSET_([A-Z][A-Z_]*)\b")


@functools.cache
def asset(name: str) -> str:
    """Return the text of one file of ``rankset/pages/assets`` (read once, then cached).

    Examples
    --------
    >>> "--accent" in asset("base.css")
    True
    """
    if name not in ASSETS:
        msg = f"{name!r} is not one of the pages' assets: {', '.join(ASSETS)}"
        raise ValueError(msg)
    root = importlib.resources.files("rankset.pages").joinpath("assets")
    return root.joinpath(name).read_text(encoding="utf-8")


def fill_template(template: str, **values: str) -> str:
    """Put each ``values[NAME]`` where ``RANKSET_NAME`` stands in ``template``, in one pass.

    What is put in is not read again, so it may hold anything. Each placeholder must stand
    once and have a value, and each value a placeholder: anything else is an error.

    Examples
    --------
    >>> fill_template("f(RANKSET_A, RANKSET_B);", A="1", B="'RANKSET_A'")
    "f(1, 'RANKSET_A');"
    """
    found = _PLACEHOLDER.findall(template)
    if sorted(found) != sorted(values):
        msg = f"the template's placeholders are {sorted(found)}, the values {sorted(values)}"
        raise ValueError(msg)
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def stylesheet(*names: str) -> str:
    """Return the shared style, then the named stylesheets', as one compact text."""
    return compact_style("\n".join(asset(name) for name in ("base.css", *names)))


def compact_style(css: str) -> str:
    r"""Return ``css`` compact: no comment, no indentation, fewer spaces.

    :func:`compact_script`'s lines, then no space after ``:``, ``;`` or ``,`` and none
    around braces, outside quoted strings (a selector keeps its spaces before a colon).

    Examples
    --------
    >>> print(compact_style('/* c */\nbody { font: 1em "A B", serif; }\na:hover { x: 1; }'))
    body{font:1em "A B",serif;}
    a:hover{x:1;}
    """
    pieces = re.split(r"(\"[^\"]*\"|'[^']*')", compact_script(css))
    for index in range(0, len(pieces), 2):  # the even pieces are outside quotes
        pieces[index] = _STYLE_SPACES.sub(r"\1", pieces[index])
    return "".join(pieces)


@functools.cache
def dashboard_script() -> str:
    """Return the dashboard's script: its three files inside the one function (cached).

    The files are shipped as written (comments and indentation for the people who read
    them) and embedded compact (:func:`compact_script`), without the block that lends the
    pure functions to node's tests (:func:`browser_part`): a page holds no comment.
    """
    scripts = "\n".join(browser_part(name).strip() for name in DASHBOARD_SCRIPTS)
    return compact_script(fill_template(asset("dashboard.js"), SCRIPTS=scripts))


def browser_part(name: str) -> str:
    """Return a script asset up to its node-only block (``if (typeof module ...``), if any.

    Examples
    --------
    >>> "module.exports" in asset("dashboard_core.js"), "module.exports" in browser_part(
    ...     "dashboard_core.js")
    (True, False)
    """
    head, marker, _ = asset(name).partition(_NODE_EXPORTS)
    return head if marker else asset(name)


def compact_script(code: str) -> str:
    r"""Return ``code`` (a script or a stylesheet) without comment lines and indentation.

    Whole lines go: a line that is a ``//`` comment, the lines of a block comment that
    opens a line (``/*`` to ``*/``), and blank lines; every other line loses its leading
    whitespace, and a trailing ``//`` comment after code that holds no quote and no slash
    (so the ``//`` cannot be inside a string or a regular expression). That keeps every
    statement and string as written, for a text that breaks no string or template literal
    over lines (the pages' do not, and their tests run the compact script in a browser).

    Examples
    --------
    >>> print(compact_script("/** Doc. */\nfunction f(a) {\n  // why\n  return a; // gone\n}"))
    function f(a) {
    return a;
    }
    >>> print(compact_script('const u = "http://x"; // kept: a quote comes before'))
    const u = "http://x"; // kept: a quote comes before
    """
    kept: list[str] = []
    in_block = False
    for line in code.splitlines():
        stripped = line.strip()
        if in_block:
            in_block = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            in_block = "*/" not in stripped
            continue
        if stripped and not stripped.startswith("//"):
            code_part, marker, _ = stripped.partition(" //")
            if marker and not any(char in code_part for char in "\"'`/"):
                stripped = code_part.rstrip()
            kept.append(stripped)
    return "\n".join(kept)


def script_json(value: Any) -> str:
    r"""Return ``value`` as compact JSON that cannot end a ``<script>`` element.

    Examples
    --------
    >>> script_json({"q": "</script><b>"})
    '{"q":"\\u003c/script\\u003e\\u003cb\\u003e"}'
    """
    text = json.dumps(value, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in _SCRIPT_ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def inline_script(code: str) -> str:
    r"""Return ``code`` in a ``<script>`` element, escaped so that nothing in it ends it.

    Examples
    --------
    >>> print(inline_script('var a = "</script>";'))
    <script>var a = "<\/script>";</script>
    """
    return f"<script>{script_safe(code)}</script>"


def json_script(element_id: str, value: Any) -> str:
    r"""Return ``value`` as JSON in a ``<script type="application/json">`` with that id.

    Examples
    --------
    >>> print(json_script("rankset-data", {"a": "<b>"}))
    <script type="application/json" id="rankset-data">{"a":"\u003cb\u003e"}</script>
    """
    return (
        f'<script type="application/json" id="{html.escape(element_id)}">'
        f"{script_json(value)}</script>"
    )


def page_head(*, title: str, style: str, scripts: Sequence[str] = ()) -> str:
    r"""Return the document's start, to its ``</head>``: metadata, the policy, style, scripts.

    ``title`` is plain text (escaped here), ``style`` CSS, ``scripts`` JavaScript, each in
    its own element (:func:`inline_script`).

    Examples
    --------
    >>> head = page_head(title="<b>", style="p { margin: 0; }")
    >>> print(head.splitlines()[7])
    <title>&lt;b&gt;</title>
    >>> CSP in head and head.endswith("</head>\n")
    True
    """
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="rankset {html.escape(__version__)}">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{style}</style>",
        *(inline_script(code) for code in scripts),
        "</head>",
    ]
    return "\n".join(lines) + "\n"
