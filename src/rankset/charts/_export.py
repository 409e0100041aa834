"""Writing charts: Vega-Lite JSON and self-contained HTML, and PNG and SVG through vl-convert.

JSON and HTML need nothing beyond Altair: HTML inlines the Vega, Vega-Lite and vega-embed
JavaScript that rankset ships (``rankset/_vendor``, BSD-3-Clause, read only when a page is
written), so a page loads nothing from the network. PNG and SVG need vl-convert (the
``render`` extra), imported only when one is asked for. Every string written into a
``<script>`` element is escaped so that data (a query id, a system name) cannot end it.
"""

from __future__ import annotations

import functools
import hashlib
import html
import importlib.resources
import itertools
import json
import os
import re
import secrets
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import altair as alt

from rankset._dependencies import import_optional
from rankset._format import script_safe
from rankset._typing import ChartFormat, choices_of
from rankset._validation import check_choice
from rankset.errors import ParameterError
from rankset.io._shared import atomic_path

__all__ = [
    "embed_fragment",
    "enable_offline",
    "inline_html",
    "javascript_bundle",
    "save_chart",
]

_EXTENSIONS: Final[dict[str, ChartFormat]] = {
    ".html": "html",
    ".htm": "html",
    ".png": "png",
    ".svg": "svg",
    ".json": "json",
}
#: The vendored builds, in load order (vega-embed reads ``vega`` and ``vegaLite``).
_VENDORED_SCRIPTS: Final = ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js")
_SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$", re.MULTILINE)
#: The script templates of ``rankset/charts/assets`` (JavaScript files; the wheel ships them).
SCRIPT_TEMPLATES: Final = ("vendor_wrapper.js", "embed.js", "shared_output.js")
# A template's placeholder (valid JavaScript, so the template lints as it is), and the
# comments at a template's top, which stay out of the pages.
_PLACEHOLDER = re.compile(r"\bRANKSET_([A-Z][A-Z_]*)\b")
_LEADING_COMMENTS = re.compile(r"\A(?:\s*/\*.*?\*/)+\s*", re.DOTALL)
_ELEMENT_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]*$")
# Characters that could end a <script> element or open an HTML comment inside one, and the
# two line terminators that older JavaScript engines reject inside string literals. JSON
# reads the \u escapes as the same characters.
_SCRIPT_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_EMBED_OPTIONS: Final = {
    "mode": "vega-lite",
    "renderer": "svg",
    # Only local actions: the editor link would send the spec to vega.github.io.
    "actions": {"export": True, "source": True, "compiled": False, "editor": False},
    # Vega's interpreter instead of Function(): pages then work under a Content-Security-
    # Policy without 'unsafe-eval' (the report sets one).
    "ast": True,
}


def save_chart(
    chart: alt.TopLevelMixin,
    path: str | os.PathLike[str],
    *,
    format: ChartFormat | None = None,
    scale: float = 2.0,
) -> Path:
    """Write a chart as self-contained HTML, PNG, SVG or Vega-Lite JSON, atomically.

    Parameters
    ----------
    chart
        Any Altair chart.
    path
        Destination file.
    format
        ``"html"``, ``"png"``, ``"svg"`` or ``"json"``; default: from the extension
        (``.html``/``.htm``, ``.png``, ``.svg``, ``.json``).
    scale
        Pixel density of a PNG (2.0 = twice the chart's size in CSS pixels).

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    ParameterError
        On an unknown format or extension, a folder that does not exist, or ``scale <= 0``.
    MissingDependencyError
        For PNG or SVG without vl-convert (``pip install "rankset[render]"``).

    Examples
    --------
    >>> import tempfile, altair as alt
    >>> chart = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = save_chart(chart, Path(folder) / "chart.json")
    ...     json.loads(out.read_text())["mark"]
    {'type': 'point'}
    """
    target = Path(path)
    fmt = _chart_format(target, format)
    if not target.parent.is_dir():  # else the error would name a hidden temporary file
        msg = f"{os.fspath(path)}: the folder {target.parent} does not exist; create it first."
        raise ParameterError(msg)
    if not (isinstance(scale, int | float) and not isinstance(scale, bool) and scale > 0):
        msg = f"The 'scale' parameter of save_chart must be a number > 0. Got {scale!r} instead."
        raise ParameterError(msg)
    spec = chart.to_dict()
    payload: str | bytes
    if fmt == "json":
        payload = json.dumps(spec, indent=2, allow_nan=False)
    elif fmt == "html":
        payload = _page(spec, javascript_bundle())
    else:
        vlc = _vl_convert(f"Saving a chart as {fmt}")
        if fmt == "svg":
            payload = vlc.vegalite_to_svg(spec, vl_version=_vl_version())
        else:
            payload = vlc.vegalite_to_png(spec, vl_version=_vl_version(), scale=float(scale))
    with atomic_path(path) as temp:
        if isinstance(payload, bytes):
            temp.write_bytes(payload)
        else:
            temp.write_text(payload, encoding="utf-8")
    return target


@functools.cache
def javascript_bundle() -> str:
    """Return the Vega, Vega-Lite and vega-embed JavaScript as one script (cached).

    The bundle (about 0.8 MB: Vega 6.2.0, Vega-Lite 6.4.1 and vega-embed 7.0.2, shipped
    with rankset, see ``rankset/_vendor/README.md``) defines ``window.vega``,
    ``window.vegaLite`` and ``window.vegaEmbed``; put it once in a page inside
    ``<script>...</script>``, then one :func:`embed_fragment` per chart. It needs no
    extra package and no network, and is read from disk on the first call only.

    The builds run inside a function whose ``define``, ``module`` and ``exports`` are
    undefined, so that they set the globals even where a page has a module loader
    (RequireJS in the classic Jupyter notebook), which would otherwise take them.

    Examples
    --------
    >>> bundle = javascript_bundle()
    >>> "vegaEmbed" in bundle and "</script" not in bundle.lower()
    True
    """
    root = importlib.resources.files("rankset").joinpath("_vendor")
    parts = [
        _SOURCE_MAP.sub("", root.joinpath(name).read_text(encoding="utf-8")).rstrip()
        for name in _VENDORED_SCRIPTS
    ]
    bundle = _fill(_template("vendor_wrapper.js"), VENDORED=";\n".join(parts))
    return script_safe(bundle)


def embed_fragment(chart: alt.TopLevelMixin | Mapping[str, Any], element_id: str) -> str:
    r"""Return a ``<div>`` and a ``<script>`` that draw ``chart`` into it with vegaEmbed.

    The page must load :func:`javascript_bundle` before the fragment. The spec is written
    as JSON with ``<``, ``>`` and ``&`` escaped (``\u003c``...), so no string in the data
    (a query id, a system name) can close the script element.

    Parameters
    ----------
    chart
        An Altair chart or a Vega-Lite spec (dict).
    element_id
        The div's id: a letter, then letters, digits, ``-`` or ``_``; unique in the page.

    Returns
    -------
    str

    Examples
    --------
    >>> import altair as alt
    >>> data = alt.Data(values=[{"q": "</script>"}])
    >>> chart = alt.Chart(data).mark_point().encode(x="q:N")
    >>> fragment = embed_fragment(chart, "chart-1")
    >>> fragment.splitlines()[0]
    '<div id="chart-1" class="rankset-chart"></div>'
    >>> fragment.count("</script>")
    1
    """
    if not (isinstance(element_id, str) and _ELEMENT_ID.match(element_id)):
        msg = (
            "The 'element_id' parameter of embed_fragment must start with a letter and hold "
            f"only letters, digits, '-' and '_'. Got {element_id!r} instead."
        )
        raise ParameterError(msg)
    spec = chart.to_dict() if isinstance(chart, alt.TopLevelMixin) else dict(chart)
    return (
        f'<div id="{element_id}" class="rankset-chart"></div>\n'
        '<script type="text/javascript">\n'
        + _fill(
            _template("embed.js"),
            ID=_script_json(element_id),
            SPEC=_script_json(spec),
            OPTIONS=_script_json(_EMBED_OPTIONS),
        )
        + "\n</script>"
    )


def inline_html(
    chart: alt.TopLevelMixin | Mapping[str, Any], *, element_id: str | None = None
) -> str:
    """Return a self-contained HTML fragment: the JavaScript bundle and one embedded chart.

    For one chart in a page. For several, include :func:`javascript_bundle` once and one
    :func:`embed_fragment` per chart, each with its own id.

    Parameters
    ----------
    chart
        Any Altair chart.
    element_id
        The div's id; default ``rankset-chart-`` and a hash of the spec.

    Returns
    -------
    str

    """
    spec = chart.to_dict() if isinstance(chart, alt.TopLevelMixin) else dict(chart)
    if element_id is None:
        digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]
        element_id = f"rankset-chart-{digest}"
    return f'<script type="text/javascript">\n{javascript_bundle()}\n</script>\n' + embed_fragment(
        spec, element_id
    )


#: The Altair renderer :func:`enable_offline` registers.
OFFLINE_RENDERER: Final = "rankset_offline"
#: The attribute that marks the output carrying the library (one per notebook).
LIBRARY_MARKER: Final = "data-rankset-vega-library"
_OUTPUT_NUMBERS = itertools.count(1)
# How long a chart output waits for the library output above it to have run (ms).
_WAIT_MS: Final = 10_000


def enable_offline(*, once: bool = True) -> None:
    """Draw Altair charts in notebooks without network access, loading Vega once.

    Altair's default renderer loads Vega from a CDN, so offline, in an HTML export opened
    later, or behind a firewall every chart shows "Error loading script". After this call
    charts draw from the Vega, Vega-Lite and vega-embed that rankset ships (about 0.8 MB,
    no extra package). ``alt.renderers.enable("default")`` goes back.

    With ``once=True`` (the default), the call displays one output that carries the
    library and defines the page's ``vegaEmbed``; each chart's output then holds only its
    spec and a few lines of script that draw it with that ``vegaEmbed``, so a notebook
    grows by 0.8 MB once rather than per chart (saved with 5 charts, under 1 MB). Call it
    once, near the top, and keep that cell's output: a chart whose page lacks the library
    says so in place of the chart.

    Where it works: wherever a notebook's outputs share one page. The tests check an
    nbconvert HTML export in headless Chromium (the documentation site's notebooks are
    made the same way). The classic notebook, Jupyter Notebook 7 and JupyterLab render
    outputs into the notebook's page and run their scripts when the notebook is trusted
    (it is once you have run it; an untrusted notebook runs no output's script, whatever
    the renderer); VS Code renders a notebook's outputs in one webview. Front ends that
    isolate each output in its own frame (Google Colab) cannot share the library: use
    ``once=False``, which puts the library in every chart's output as before.

    Parameters
    ----------
    once
        ``True``: the library in one output, displayed by this call (only in IPython;
        elsewhere the call just enables the renderer). ``False``: in every chart's output.

    Examples
    --------
    >>> import altair as alt
    >>> enable_offline()
    >>> alt.renderers.active
    'rankset_offline'
    >>> _ = alt.renderers.enable("default")
    """
    bundle = javascript_bundle()  # read once here rather than at the first chart
    if once:
        alt.renderers.register(OFFLINE_RENDERER, _shared_output)
        _display_library(bundle)
    else:
        alt.renderers.register(OFFLINE_RENDERER, _offline_output)
    alt.renderers.enable(OFFLINE_RENDERER)


def _library_html() -> str:
    """Return the ``<script>`` that loads the library in a notebook (what ``once`` shows)."""
    return f'<script type="text/javascript" {LIBRARY_MARKER}>\n{javascript_bundle()}\n</script>'


def _display_library(bundle: str) -> None:
    """Display the library as one output, when running under IPython."""
    ipython = sys.modules.get("IPython")
    if ipython is None or ipython.get_ipython() is None:
        return
    display: Any = importlib.import_module("IPython.display").display
    text = f"rankset: Vega, Vega-Lite and vega-embed loaded ({len(bundle) / 1e6:.1f} MB)"
    display({"text/html": _library_html(), "text/plain": text}, raw=True)


def _offline_output(spec: dict[str, Any], **metadata: Any) -> dict[str, str]:
    # Numbered ids: the same chart shown twice in a notebook needs two targets.
    element_id = f"rankset-chart-{next(_OUTPUT_NUMBERS)}-{secrets.token_hex(4)}"
    return {"text/html": inline_html(spec, element_id=element_id)}


def _shared_output(spec: dict[str, Any], **metadata: Any) -> dict[str, str]:
    """Return a chart output that draws with the ``vegaEmbed`` an earlier output defined."""
    element_id = f"rankset-chart-{next(_OUTPUT_NUMBERS)}-{secrets.token_hex(4)}"
    missing = (
        "Vega is not loaded: run rankset.charts.enable_offline() above this chart "
        "and keep its output (it carries the library)."
    )
    script = _fill(
        _template("shared_output.js"),
        ID=_script_json(element_id),
        SPEC=_script_json(spec),
        OPTIONS=_script_json(_EMBED_OPTIONS),
        WAIT_MS=str(_WAIT_MS),
        MISSING=_script_json(missing),
    )
    html_text = (
        f'<div id="{element_id}" class="rankset-chart"></div>\n'
        f'<script type="text/javascript">\n{script}\n</script>'
    )
    return {"text/html": html_text}


@functools.cache
def _template(name: str) -> str:
    """Return a script template of ``rankset/charts/assets``, its leading comments left out.

    The templates are JavaScript files (linted as such) in which ``RANKSET_NAME`` stands
    for a value that :func:`_fill` puts in.
    """
    if name not in SCRIPT_TEMPLATES:
        msg = f"{name!r} is not one of the charts' script templates: {SCRIPT_TEMPLATES}"
        raise ValueError(msg)
    text = importlib.resources.files("rankset.charts").joinpath("assets", name).read_text("utf-8")
    return _LEADING_COMMENTS.sub("", text).strip()


def _fill(template: str, **values: str) -> str:
    """Put each ``values[NAME]`` where ``RANKSET_NAME`` stands (once), in one pass."""
    found = _PLACEHOLDER.findall(template)
    if sorted(found) != sorted(values):
        msg = f"the template's placeholders are {sorted(found)}, the values {sorted(values)}"
        raise ValueError(msg)
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def _chart_format(path: Path, format: ChartFormat | None) -> ChartFormat:
    if format is not None:
        check_choice("format", format, choices_of(ChartFormat))
        return format
    suffix = path.suffix.lower()
    if suffix not in _EXTENSIONS:
        msg = (
            f"Cannot tell the chart format from {path.name!r}: use one of the extensions "
            f"{', '.join(_EXTENSIONS)} or pass format=."
        )
        raise ParameterError(msg)
    return _EXTENSIONS[suffix]


def _vl_convert(purpose: str) -> ModuleType:
    return import_optional("vl_convert", extra="render", purpose=purpose)


@functools.cache
def _vl_version() -> str | None:
    """Altair's Vega-Lite version as vl-convert names it (e.g. ``"6.4"``), if it has it."""
    major_minor = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    known: list[str] = _vl_convert("Rendering a chart").get_vegalite_versions()
    return major_minor if major_minor in known else None


def _script_json(value: Any) -> str:
    text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    for char, escaped in _SCRIPT_ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def _page(spec: Mapping[str, Any], bundle: str) -> str:
    title = spec.get("title")
    if isinstance(title, Mapping):
        title = title.get("text")
    heading = html.escape(title if isinstance(title, str) else "rankset chart")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{heading}</title>\n"
        f'<script type="text/javascript">\n{bundle}\n</script>\n'
        "</head>\n<body>\n"
        f"{embed_fragment(spec, 'rankset-chart')}\n"
        "</body>\n</html>\n"
    )
