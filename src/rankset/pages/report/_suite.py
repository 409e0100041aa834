"""The report's "Collections" section and the suite-only page (:func:`suite_report`).

A suite (:func:`rankset.comparison.evaluate_suite`) holds the same systems over several
collections. The section draws one :func:`rankset.charts.suite_heatmap` per metric of the
report that the suite has (the first four): a cell per (system, collection), the mean as
colour and the rank on the collection as text; then the aggregate over collections (the
macro mean with its intervals, the mean rank, the Borda count) and a line naming the
collections and the systems a collection lacks. :func:`suite_report` writes a page of its
own: a header, that section, and each collection's means with their ranks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import polars as pl

from rankset._format import counted
from rankset._version import __version__
from rankset.comparison import SuiteResult, check_suite
from rankset.errors import ParameterError
from rankset.io._shared import atomic_path
from rankset.pages.report._html import NA, config_value, esc, esc_code, number_text, page

__all__ = ["MAX_SUITE_CHARTS", "build_suite_report", "suite_report", "suite_section"]

#: The most metrics the section draws a heatmap for (the report's first ones).
MAX_SUITE_CHARTS: Final = 4


def suite_section(suite: SuiteResult, metrics: Sequence[str] | None = None) -> str:
    """Chart each metric over the suite's collections and tabulate the aggregate.

    Parameters
    ----------
    suite
        What :func:`rankset.comparison.evaluate_suite` returned.
    metrics
        The report's metric names, in its order; the section keeps those the suite has
        (all of the suite's when ``None``; when it has none of them, it says which it has).

    Returns
    -------
    str
        The section's HTML (without its heading).

    Examples
    --------
    >>> from rankset.comparison import evaluate_suite
    >>> runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}
    >>> suite = evaluate_suite(
    ...     {"one": (runs, {"q1": {"d1": 1}}), "two": (runs, {"q1": {"d2": 1}})},
    ...     ["rr"], confidence=None,
    ... )
    >>> html = suite_section(suite)
    >>> 'id="chart-suite-0"' in html, "2 collections: one (1 query), two (1 query)" in html
    (True, True)
    """
    held = suite.metrics
    shown = held if metrics is None else [m for m in metrics if m in held]
    line = _collections_line(suite)
    if not shown:
        return (
            f'<p class="explain">{line} None of this report\'s metrics was evaluated over '
            f"the collections; the suite has {esc(', '.join(held) or 'no metric')}.</p>"
        )
    drawn = shown[:MAX_SUITE_CHARTS]
    left_out = len(shown) - len(drawn)
    explain = (
        f'<p class="explain">{line} Each chart: a row per system (best mean rank first), a '
        "column per collection; the colour is the system's mean on the collection, the "
        "number its rank there (1 = best, ties share the average rank)."
        + (f" Charts for the first {len(drawn)} metrics; the table has all." if left_out else "")
        + "</p>"
    )
    from rankset import charts  # Altair loads with the first page, not with rankset.pages.report

    chart_html = "".join(
        charts.embed_fragment(charts.suite_heatmap(suite, metric), f"chart-suite-{number}")
        for number, metric in enumerate(drawn)
    )
    return f'{explain}\n<div class="charts">{chart_html}</div>\n{_aggregate_table(suite, shown)}'


def _collections_line(suite: SuiteResult) -> str:
    """Name the collections (with their query counts) and what each lacks, as HTML."""
    sizes = [
        f"{esc(name)} ({counted(result.per_query['query_id'].n_unique(), 'query', 'queries')})"
        for name, result in suite.results.items()
    ]
    line = f"{counted(len(sizes), 'collection')}: {', '.join(sizes)}."
    if suite.missing.height:
        absent = "; ".join(
            f"{esc(system)} is not in {esc(', '.join(group['collection'].to_list()))}"
            for (system,), group in suite.missing.group_by("system", maintain_order=True)
        )
        line += (
            f" Missing: {absent} (no rank, Borda points or aggregate for it; its means are "
            "in the table of each collection that has it)."
        )
    return line


def _rank_text(value: float | None) -> str:
    if value is None or value != value:
        return NA
    return f"{value:.0f}" if value == round(value) else f"{value:.2f}".rstrip("0")


def _interval(low: float | None, high: float | None, text: Any = number_text) -> str:
    if low is None or high is None:
        return NA
    return f"[{text(low)}, {text(high)}]"


def _aggregate_table(suite: SuiteResult, metrics: Sequence[str]) -> str:
    """Tabulate the aggregate rows of ``metrics``: macro mean, intervals, mean rank, Borda."""
    head = (
        "system",
        "metric",
        "collections",
        "macro mean",
        "CI (collections)",
        "CI (queries)",
        "mean rank",
        "rank CI",
        "Borda",
    )
    numeric = ' class="num"'
    head_html = "".join(
        f'<th scope="col"{"" if n < 2 else numeric}>{esc(label)}</th>'
        for n, label in enumerate(head)
    )
    rows = []
    for metric in metrics:
        for row in suite.aggregate.filter(pl.col("metric") == metric).iter_rows(named=True):
            cells = [
                str(row["n_collections"]),
                number_text(row["macro_mean"]),
                _interval(row["ci_low"], row["ci_high"]),
                _interval(row["ci_low_queries"], row["ci_high_queries"]),
                _rank_text(row["mean_rank"]),
                _interval(row["rank_low"], row["rank_high"], _rank_text),
                _rank_text(row["borda"]),
            ]
            rows.append(
                f'<tr data-metric="{esc(metric)}"><th scope="row">{esc(row["system"])}</th>'
                f"<td>{esc(metric)}</td>"
                + "".join(f'<td class="num">{cell}</td>' for cell in cells)
                + "</tr>"
            )
    confidence = suite.config.get("confidence")
    intervals = (
        f"{confidence:.0%} percentile bootstrap intervals over "
        f"{suite.config.get('n_resamples', 0):,} resamples: of the collections, and of the "
        "queries within each collection"
        if confidence is not None
        else "no intervals (confidence=None)"
    )
    caption = (
        "Over the collections, per metric (best mean rank first): the mean of the collection "
        f"means, the mean rank (1 = best), the Borda count (n − rank points per collection); "
        f"{intervals}."
    )
    return (
        f'<table class="suite-aggregate">\n<caption>{esc(caption)}</caption>\n'
        f"<thead><tr>{head_html}</tr></thead>\n<tbody>{''.join(rows)}</tbody>\n</table>"
    )


def _collection_tables(suite: SuiteResult, metrics: Sequence[str]) -> str:
    """Per collection: each system's mean (interval below) and rank, metric by metric."""
    out = []
    head = "".join(f'<th scope="col" class="num">{esc(m)}</th>' for m in metrics)
    for name in suite.collections:
        frame = suite.per_collection.filter(pl.col("collection") == name)
        cells: dict[tuple[str, str], dict[str, Any]] = {
            (row["system"], row["metric"]): row for row in frame.iter_rows(named=True)
        }
        systems = list(dict.fromkeys(frame["system"].to_list()))
        rows = []
        for system in systems:
            tds = []
            for metric in metrics:
                row = cells.get((system, metric))
                if row is None:
                    tds.append(f'<td class="num">{NA}</td>')
                    continue
                rank = row.get("rank")
                tds.append(
                    f'<td class="num" data-rank="{_rank_text(rank)}">{number_text(row["mean"])}'
                    f' <span class="rank">(rank {_rank_text(rank)})</span>'
                    f'<span class="ci">{_interval(row["ci_low"], row["ci_high"])}</span></td>'
                )
            rows.append(f'<tr><th scope="row">{esc(system)}</th>{"".join(tds)}</tr>')
        queries = suite.results[name].per_query["query_id"].n_unique()
        out.append(
            f'<h3>{esc(name)}</h3>\n<table class="suite-collection" data-collection="{esc(name)}">'
            f"\n<caption>Mean over the {counted(queries, 'query', 'queries')} of {esc(name)} "
            "(interval below) and the rank among the systems every collection has.</caption>\n"
            f'<thead><tr><th scope="col">system</th>{head}</tr></thead>\n'
            f"<tbody>{''.join(rows)}</tbody>\n</table>"
        )
    return "\n".join(out)


def build_suite_report(suite: SuiteResult, *, title: str = "rankset suite report") -> str:
    """Render a suite as one self-contained HTML document (computes nothing).

    The header names the collections, systems and metrics; a "Collections" section holds
    the heatmaps and the aggregate (:func:`suite_section`); a "Per collection" section each
    collection's means, intervals and ranks.

    Examples
    --------
    >>> from rankset.comparison import evaluate_suite
    >>> runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}
    >>> suite = evaluate_suite({"one": (runs, {"q1": {"d1": 1}})}, ["rr"], confidence=None)
    >>> html = build_suite_report(suite, title="A & B")
    >>> "<title>A &amp; B</title>" in html, '<section id="collections">' in html
    (True, True)
    """
    sections = [
        ("collections", "Collections", suite_section(suite)),
        ("per-collection", "Per collection", _collection_tables(suite, suite.metrics)),
    ]
    nav = "".join(f'<a href="#{key}">{esc(name)}</a>' for key, name, _ in sections)
    body = "\n".join(
        f'<section id="{key}">\n<h2>{esc(name)}</h2>\n{content}\n</section>'
        for key, name, content in sections
    )
    from rankset import charts

    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    systems = ", ".join(esc_code(s) for s in suite.config.get("systems", []))
    metrics = ", ".join(esc_code(m) for m in suite.metrics)
    config_rows = "".join(
        f"<dt>{esc(key)}</dt><dd>{esc_code(config_value(value))}</dd>"
        for key, value in suite.config.items()
    )
    header = f"""<header>
<h1>{esc(title)}</h1>
<p class="meta">Generated {generated} by rankset {esc(__version__)} ·
{counted(len(suite.collections), "collection")} · systems: {systems} · metrics: {metrics}</p>
<nav>{nav}</nav>
<details><summary>Configuration</summary>
<dl class="config">{config_rows}</dl>
</details>
</header>"""
    return page(title=title, header=header, body=body, bundle=charts.javascript_bundle())


def suite_report(
    suite: SuiteResult,
    *,
    out: str | os.PathLike[str] = "suite.html",
    title: str = "rankset suite report",
) -> Path:
    """Write a suite's page: heatmaps, the aggregate over collections, each collection.

    Parameters
    ----------
    suite
        What :func:`rankset.comparison.evaluate_suite` (or ``evaluate_suite_toml``)
        returned.
    out
        The file to write (atomically: a temporary file beside it, then a rename).
    title
        The page title (escaped).

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    ParameterError
        If ``suite`` is not a :class:`~rankset.comparison.SuiteResult` or ``out``'s folder
        does not exist.

    Examples
    --------
    >>> import tempfile
    >>> from rankset.comparison import evaluate_suite
    >>> runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}
    >>> suite = evaluate_suite(
    ...     {"one": (runs, {"q1": {"d1": 1}}), "two": (runs, {"q1": {"d2": 1}})},
    ...     ["rr"], confidence=None,
    ... )
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = suite_report(suite, out=Path(folder) / "s.html")
    ...     print(path.name, "chart-suite-0" in path.read_text(encoding="utf-8"))
    s.html True
    """
    check_suite(suite)
    if not Path(out).parent.is_dir():
        msg = f"{os.fspath(out)}: the folder {Path(out).parent} does not exist; create it first."
        raise ParameterError(msg)
    html = build_suite_report(suite, title=title)
    target = Path(out)
    with atomic_path(out) as temp:
        temp.write_text(html, encoding="utf-8")
    return target
