"""The dashboard's HTML: one self-contained document around the data, specs and script.

The page loads nothing: Vega, Vega-Lite and vega-embed are inlined
(:func:`rankset.charts.javascript_bundle`), the data and the chart specs are JSON in
``<script type="application/json">`` elements, and a Content-Security-Policy
(:data:`rankset.pages.report.CSP`) forbids every request. The few strings written into the
markup here (title, notes, what the file holds) are HTML-escaped; the script writes every
other user string as text.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from rankset._format import counted, script_safe
from rankset._version import __version__
from rankset.pages.dashboard._script import CORE_SCRIPT
from rankset.pages.dashboard._script_views import VIEWS_SCRIPT
from rankset.pages.dashboard._suite import (
    SUITE_SCRIPT,
    suite_section_html,
    suite_tab_html,
)
from rankset.pages.report import CSP

__all__ = ["history_text", "holdings", "render_page", "script_json"]

# Characters that could end a <script> element or open a comment inside one, and the two
# line terminators older engines reject in strings; JSON reads the escapes as the same.
_SCRIPT_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}

_CSS: Final = """
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --zebra: #f6f8fa; --accent: #0969da; --a: #8250df; --b: #bf8700; --up: #1a7f37;
  --down: #cf222e; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto,
  "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: #fff; }
header.top { padding: 10px 24px 0; }
div.bar { position: sticky; top: 0; z-index: 5; background: #fff; padding: 0 24px;
  border-bottom: 1px solid var(--line); }
h1 { font-size: 1.45em; margin: 0 0 2px; }
h2 { font-size: 1.2em; margin: 18px 0 6px; }
h3 { font-size: 1.02em; margin: 14px 0 6px; }
main { padding: 8px 24px 48px; max-width: 1500px; }
.meta, .explain { color: var(--muted); margin: 0 0 6px; font-size: 0.93em; }
.note { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px;
  padding: 6px 10px; margin: 6px 0; max-width: 110ch; }
nav.tabs { display: flex; gap: 2px; margin-top: 6px; }
nav.tabs button { font: inherit; border: 1px solid var(--line); border-bottom: none;
  background: var(--zebra); padding: 5px 16px; border-radius: 6px 6px 0 0; cursor: pointer; }
nav.tabs button[aria-selected="true"] { background: #fff; font-weight: 600;
  box-shadow: inset 0 2px 0 var(--accent); }
.controls { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center;
  padding: 8px 0; border-top: 1px solid var(--line); }
.controls label { display: inline-flex; gap: 6px; align-items: center; }
select, input, button { font: inherit; }
button.small { padding: 1px 8px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 0.94em; }
th, td { padding: 3px 9px; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { background: #eef1f4; text-align: left; white-space: nowrap; }
tbody tr:nth-child(even) { background: var(--zebra); }
tbody th { text-align: left; font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.pick, th.sortable { cursor: pointer; }
.current { background: #ddf4ff !important; }
.ci { display: block; color: var(--muted); font-size: 0.85em; }
.delta { display: block; font-size: 0.85em; color: var(--muted); }
.delta.up, .diff.wins { color: var(--up); font-weight: 600; }
.delta.down, .diff.losses { color: var(--down); font-weight: 600; }
.tag { font-size: 0.75em; background: #eef1f4; border-radius: 8px; padding: 0 6px;
  margin-left: 6px; font-weight: 400; }
.sys-a { box-shadow: inset 3px 0 0 var(--a); }
.sys-b { box-shadow: inset 3px 0 0 var(--b); }
h3.sys-a, h3.sys-b { padding-left: 8px; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.filters { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: center; margin: 6px 0; }
#query-count { font-weight: 600; }
td.qtext { max-width: 46ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
a.qlink { color: var(--accent); text-decoration: none; }
.side { display: flex; flex-wrap: wrap; gap: 8px 40px; align-items: flex-start; }
.side .narrow { max-width: 40ch; }
ul.plain { list-style: none; padding: 0; margin: 4px 0; }
dl.contrast { display: grid; grid-template-columns: max-content max-content; gap: 2px 14px;
  margin: 4px 0; }
dl.contrast dt { color: var(--muted); }
dl.contrast dd { margin: 0; font-variant-numeric: tabular-nums; text-align: right; }
.serps { display: grid; grid-template-columns: 1fr 1fr; gap: 20px; }
table.serp { width: 100%; }
td.doc code { font-weight: 600; }
.snippet { color: var(--muted); font-size: 0.9em; max-width: 70ch; }
td.grade { font-weight: 600; }
.grade.rel { color: var(--up); }
.grade.partial { color: #9a6700; }
.grade.nonrel { color: var(--muted); }
.grade.unjudged { color: var(--muted); font-style: italic; font-weight: 400; }
td.move { white-space: nowrap; }
.move.up { color: var(--up); }
.move.down { color: var(--down); }
.move.out { color: var(--muted); font-style: italic; }
.move.beyond { opacity: 0.75; }
ul.missed { padding-left: 18px; }
ul.missed li { margin: 4px 0; }
ul.missed .grade { margin-left: 8px; font-size: 0.9em; }
.qtext-full { font-size: 1.1em; margin: 2px 0 8px; }
table caption { caption-side: top; text-align: left; color: var(--muted); padding: 4px 0; }
footer { color: var(--muted); font-size: 0.85em; padding: 12px 24px 24px;
  border-top: 1px solid var(--line); }
"""

_BODY: Final = """
<header class="top">
<h1>{title}</h1>
<p class="meta" id="holds">{holds}</p>
{notes}
</header>
<div class="bar">
<nav class="tabs" role="tablist">
<button type="button" role="tab" data-tab="overview">Overview</button>
<button type="button" role="tab" data-tab="queries">Queries</button>
<button type="button" role="tab" data-tab="query">Query</button>
{history_tab}
{suite_tab}
</nav>
<div class="controls">
<label>Metric <select id="metric"></select></label>
<label data-for="overview">Baseline <select id="baseline"></select></label>
<label data-for="queries query">A <select id="sys-a"></select></label>
<button type="button" class="small" id="swap" data-for="queries query"
 title="swap A and B">&#8646;</button>
<label data-for="queries query">B <select id="sys-b"></select></label>
<label data-for="overview query">k <input type="range" id="k" min="1" step="1">
<output id="k-value"></output></label>
</div>
</div>
<main>
<noscript><p class="note">The dashboard needs JavaScript.</p></noscript>
<section data-view="overview" aria-label="Overview">
<h2>Systems</h2>
<p class="explain">{significance}</p>
<table id="systems-table"></table>
<div class="charts">
<div><div id="chart-summary"></div></div>
<div><div id="chart-curves"></div><p class="explain" id="curves-note"></p></div>
</div>
<div id="chart-diagnosis"></div>
<p class="explain">{diagnosis}</p>
</section>
<section data-view="queries" aria-label="Queries" hidden>
<h2>Queries</h2>
<div class="filters">
<label>Find <input type="search" id="filter-text" placeholder="query id or text"></label>
<label>Quadrant <select id="filter-quadrant"></select></label>
<label>of <select id="filter-system"></select></label>
<label>Outcome <select id="filter-outcome"></select></label>
<button type="button" class="small" id="clear-diff" hidden>clear bar</button>
<button type="button" class="small" id="clear-filters">clear filters</button>
</div>
<p><span id="query-count"></span> <span class="explain" id="active-filters"></span></p>
<div id="chart-differences"></div>
<p class="explain" id="differences-note"></p>
<table id="query-table"></table>
<button type="button" id="more" hidden>Show more</button>
</section>
<section data-view="query" aria-label="Query" hidden>
<h2 id="query-title"></h2>
<div id="query-body"></div>
</section>
{history_section}
{suite_section}
</main>
<footer>
Made by rankset {version}. This file makes no network request. The view is kept in the
address after <code>#</code>: <code>query</code>, <code>a</code>, <code>b</code>,
<code>metric</code>, <code>k</code> (and <code>view</code>, <code>baseline</code>,
<code>text</code>, <code>quadrant</code>, <code>system</code>, <code>outcome</code>,
<code>diff</code>, <code>sort</code>), so a link reopens it.
</footer>
"""


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


def holdings(data: Mapping[str, Any]) -> str:
    """Say in one paragraph (plain text) what the file holds."""
    systems = data["systems"]
    n_shown, n_total = len(data["queries"]), data["n_queries_total"]
    queries = (
        f"{n_shown:,} queries" if n_shown == n_total else f"{n_shown:,} of {n_total:,} queries"
    )
    parts = [
        f"{len(systems)} systems ({', '.join(systems)})",
        queries,
        f"metrics {', '.join(data['metrics'])} per query",
        f"the top {data['depth']} documents of every system for every query, with their "
        "grades and the relevant documents none retrieved",
    ]
    if data.get("texts") is not None:
        parts.append(
            f"{len(data['texts']):,} document snippets of up to {data['snippet']} characters"
        )
    if data.get("query_text") is not None:
        parts.append("query texts")
    if data.get("history"):
        logged = counted(data["history"]["entries"], "entry", "entries")
        parts.append(f"the logged means of {logged} of an experiment store")
    if data.get("suite"):
        parts.append(
            f"the means of {counted(len(data['suite']['collections']), 'collection')} "
            "of a suite, with their ranks"
        )
    text = "This file holds " + "; ".join(parts) + "."
    if data["sample"]["sampled"]:
        text += (
            f" The queries are a sample: the file would pass {data['sample']['max_bytes']:,} "
            f"bytes of data with all {n_total:,}, so it keeps the biggest wins and losses of "
            f"every system against {data['baseline']} on {data['metrics'][0]} "
            f"({data['sample']['n_extremes']:,} queries) and a random sample of the rest "
            f"(seed {data['seed']}). Means, intervals, tests, curves and quadrant counts use "
            f"all {n_total:,} queries."
        )
    return text


_HISTORY_TAB: Final = '<button type="button" role="tab" data-tab="history">History</button>'
_HISTORY_SECTION: Final = """<section data-view="history" aria-label="History" hidden>
<h2>History</h2>
<p class="explain" id="history-explain">{explain}</p>
<div id="chart-history"></div>
<p class="note" id="history-missing" hidden></p>
<table id="history-table"></table>
</section>"""


def history_text(history: Mapping[str, Any]) -> str:
    """Say in one sentence (plain text) what the History view shows, as the report does.

    Examples
    --------
    >>> history_text({"entries": 1, "when": "2026-01-01", "held": ["ap"], "metrics": []})
    "None of this dashboard's metrics was logged in the store (1 entry); it holds ap."
    """
    entries = counted(history["entries"], "entry", "entries")
    if not history["metrics"]:
        held = ", ".join(history["held"]) or "no metric"
        return (
            f"None of this dashboard's metrics was logged in the store ({entries}); "
            f"it holds {held}."
        )
    return (
        f"The means logged in the experiment store: {entries} from {history['when']}, one "
        "line per system (the band: the bootstrap interval). Pick the metric above."
    )


def render_page(
    data: Mapping[str, Any],
    specs: Mapping[str, Any],
    *,
    bundle: str,
    notes: Sequence[str],
    significance: str,
    diagnosis: str,
) -> str:
    """Return the HTML document (``notes``, ``significance`` and ``diagnosis`` are plain text)."""
    note_html = "\n".join(f'<p class="note">{html.escape(note)}</p>' for note in notes)
    body = _BODY.format(
        title=html.escape(str(data["title"])),
        holds=html.escape(holdings(data)),
        notes=note_html,
        significance=html.escape(significance),
        diagnosis=html.escape(diagnosis),
        version=html.escape(__version__),
        history_tab=_HISTORY_TAB if data.get("history") else "",
        history_section=_HISTORY_SECTION.format(explain=html.escape(history_text(data["history"])))
        if data.get("history")
        else "",
        suite_tab=suite_tab_html() if data.get("suite") else "",
        suite_section=suite_section_html(data["suite"]) if data.get("suite") else "",
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="rankset {html.escape(__version__)}">
<title>{html.escape(str(data["title"]))}</title>
<style>{_CSS}</style>
<script>{script_safe(bundle)}</script>
</head>
<body>
{body}
<script type="application/json" id="rankset-specs">{script_json(specs)}</script>
<script type="application/json" id="rankset-data">{script_json(data)}</script>
<script>
(function () {{
{script_safe(CORE_SCRIPT)}
{script_safe(SUITE_SCRIPT)}
{script_safe(VIEWS_SCRIPT)}
}})();
</script>
</body>
</html>
"""
