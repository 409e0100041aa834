"""The dashboard's HTML: one self-contained document around the data, specs and script.

The page loads nothing: Vega, Vega-Lite and vega-embed are inlined
(:func:`rankset.charts.javascript_bundle`), the data and the chart specs are JSON in
``<script type="application/json">`` elements, the style and the script are the files of
``rankset/pages/assets`` (:mod:`rankset.pages._shell`, which also writes the head), and a
Content-Security-Policy (:data:`rankset.pages._shell.CSP`) forbids every request. The few
strings written into the markup here (title, notes, what the file holds) are HTML-escaped;
the script writes every other user string as text. (:func:`script_json` is
:func:`rankset.pages._shell.script_json`, kept here under its old address.)
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, Final

from rankset._format import counted
from rankset._version import __version__
from rankset.pages._shell import (
    dashboard_script,
    inline_script,
    json_script,
    page_head,
    script_json,
    stylesheet,
)
from rankset.pages.dashboard._costs import COST_SECTION
from rankset.pages.dashboard._judges import judges_section_html, judges_tab_html
from rankset.pages.dashboard._suite import suite_section_html, suite_tab_html

__all__ = ["history_text", "holdings", "render_page", "script_json"]

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
{judges_tab}
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
<p class="note" id="untested-note" hidden></p>
<table id="systems-table"></table>
<div class="charts">
<div><div id="chart-summary"></div></div>
<div><div id="chart-curves"></div><p class="explain" id="curves-note"></p></div>
</div>
<div id="chart-diagnosis"></div>
<p class="explain">{diagnosis}</p>
{costs_section}
</section>
<section data-view="queries" aria-label="Queries" hidden>
<h2>Queries</h2>
<div class="filters">
<label>Find <input type="search" id="filter-text" placeholder="query id or text"></label>
<label>Quadrant <select id="filter-quadrant"></select></label>
<label>of <select id="filter-system"></select></label>
<label>Outcome <select id="filter-outcome"></select></label>
<label>B <select id="filter-delta-dir"></select></label>
<label>by at least <input type="number" id="filter-delta" min="0" step="0.01" value="0.05"></label>
<label>Sort <select id="sort-order"></select></label>
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
{judges_section}
</main>
<footer>
Made by rankset {version}. This file makes no network request. The view is kept in the
address after <code>#</code>: <code>query</code>, <code>a</code>, <code>b</code>,
<code>metric</code>, <code>k</code> (and <code>view</code>, <code>baseline</code>,
<code>text</code>, <code>quadrant</code>, <code>system</code>, <code>outcome</code>,
<code>diff</code>, <code>delta</code>, <code>sort</code>), so a link reopens it.
</footer>
"""


def holdings(data: Mapping[str, Any]) -> str:
    """Say in one paragraph (plain text) what the file holds."""
    systems = data["systems"]
    n_shown, n_total = len(data["queries"]), data["n_queries_total"]
    queries = (
        f"{n_shown:,} queries" if n_shown == n_total else f"{n_shown:,} of {n_total:,} queries"
    )
    if data["metrics"]:
        parts = [
            f"{len(systems)} systems ({', '.join(systems)})",
            queries,
            f"metrics {', '.join(data['metrics'])} per query",
            f"the top {data['depth']} documents of every system for every query, with their "
            "grades and the relevant documents none retrieved",
        ]
    else:
        parts = [
            f"{len(systems)} systems ({', '.join(systems)})",
            queries,
            "no labels, so no metric: the rankings are compared with each other",
            f"the top {data['depth']} documents of every system for every query",
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
    if data.get("judges"):
        judges = data["judges"]
        parts.append(
            f"the systems' leaderboards under {counted(len(judges['judges']), 'judge')} "
            f"({', '.join(judges['judges'])}) beside those under the human labels"
        )
    if data.get("costs"):
        parts.append(
            f"each system's costs per query ({', '.join(data['costs']['columns'])}) beside "
            "its quality"
        )
    text = "This file holds " + "; ".join(parts) + "."
    if data["sample"]["sampled"] and not data["metrics"]:
        text += (
            f" The queries are a sample: the file would pass {data['sample']['max_bytes']:,} "
            f"bytes of data with all {n_total:,}, so it keeps a random sample of them "
            f"(seed {data['seed']})."
        )
    elif data["sample"]["sampled"]:
        rest = (
            "as many as fit"  # the extremes of many systems can fill the budget
            if data["sample"]["n_extremes"] >= n_shown
            else f"and a random sample of the rest (seed {data['seed']})"
        )
        text += (
            f" The queries are a sample: the file would pass {data['sample']['max_bytes']:,} "
            f"bytes of data with all {n_total:,}, so it keeps the biggest wins and losses of "
            f"every system against {data['baseline']} on {data['metrics'][0]} "
            f"({data['sample']['n_extremes']:,} queries), {rest}. Means, intervals, tests, "
            f"curves and quadrant counts use all {n_total:,} queries."
        )
    return text


_HISTORY_TAB: Final = '<button type="button" role="tab" data-tab="history">History</button>'
_HISTORY_SECTION: Final = """<section data-view="history" aria-label="History" hidden>
<h2>History</h2>
<p class="explain" id="history-explain">{explain}</p>
<div id="chart-history"></div>
<p class="note" id="history-missing" hidden></p>
<table id="history-table"></table>
<div id="history-changes-box" hidden>
<h3>What changed between entries</h3>
<div class="filters">
<label>From <select id="history-from"></select></label>
<label>to <select id="history-to"></select></label>
</div>
<table id="history-changes"></table>
</div>
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
        "line per system (the band: the bootstrap interval), entries named by tag (with "
        "their short id when a tag repeats). A ring marks a mean that changed significantly "
        "from the entry before it in its tag (p < 0.05, the paired randomization test over "
        "the queries both scored, not corrected). Pick the metric above."
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
        judges_tab=judges_tab_html() if data.get("judges") else "",
        judges_section=judges_section_html(data["judges"]) if data.get("judges") else "",
        costs_section=COST_SECTION if data.get("costs") else "",
    )
    head = page_head(title=str(data["title"]), style=stylesheet("dashboard.css"), scripts=[bundle])
    return f"""{head}<body>
{body}
{json_script("rankset-specs", specs)}
{json_script("rankset-data", data)}
{inline_script(dashboard_script())}
</body>
</html>
"""
