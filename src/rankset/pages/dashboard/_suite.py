"""The dashboard's Collections view: a suite of collections, the picked metric's heatmap.

A suite (:func:`rankset.comparison.evaluate_suite`) holds the same systems over several
collections. The view draws the metric picked on the page as systems × collections (the
mean as colour, the rank on the collection in each cell, as
:func:`rankset.charts.suite_heatmap` draws it) and the aggregate over collections (the
macro mean with its intervals, the mean rank, the Borda count). The data is computed here,
the chart is :func:`rankset.charts.suite_heatmap` on the page's ``collections`` dataset,
driven by its ``metric`` parameter, and the script
(``renderSuite`` in ``rankset/pages/assets/dashboard_views.js``) fills the table.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from rankset._format import counted
from rankset.comparison import SuiteResult, higher_is_better
from rankset.comparison.suites import AGGREGATE_COLUMNS

__all__ = [
    "suite_data",
    "suite_section_html",
    "suite_tab_html",
    "suite_text",
]

_CELL_COLUMNS: Final = (
    "collection", "system", "metric", "mean", "ci_low", "ci_high", "n_queries", "rank",
)  # fmt: skip


def suite_data(suite: SuiteResult, metrics: Sequence[str]) -> dict[str, Any]:
    """Return the Collections view's data: the cells and aggregate rows of ``metrics``.

    ``cells`` are ``suite.per_collection``'s rows of the metrics the suite has, each with
    ``order`` (the system's place in the metric's aggregate, best mean rank first) and
    ``dark`` (the cell is in the better half of the metric's range: white text);
    ``aggregate`` the aggregate rows; ``collections`` (with ``queries``, their query
    counts), ``held`` (every metric of the suite), ``metrics`` (those of ``metrics`` it
    has), ``greater`` (per shown metric, whether higher is better) and ``missing``
    (``collection, system``) say what it covers.

    Examples
    --------
    >>> from rankset.comparison import evaluate_suite
    >>> runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}
    >>> suite = evaluate_suite(
    ...     {"one": (runs, {"q1": {"d1": 1}}), "two": (runs, {"q1": {"d2": 1}})},
    ...     ["rr"], confidence=None,
    ... )
    >>> data = suite_data(suite, ["ap", "rr"])
    >>> data["metrics"], data["collections"], [c["rank"] for c in data["cells"]]
    (['rr'], ['one', 'two'], [1.0, 2.0, 2.0, 1.0])
    """
    held = suite.metrics
    shown = [m for m in metrics if m in held]
    order = pl.concat(
        [
            suite.aggregate.filter(pl.col("metric") == metric)
            .select("system", "metric")
            .with_row_index("order")
            for metric in shown
        ]
        or [pl.DataFrame(schema={"order": pl.UInt32, "system": pl.String, "metric": pl.String})]
    )
    cells = (
        suite.per_collection.filter(pl.col("metric").is_in(shown))
        .select([c for c in _CELL_COLUMNS if c in suite.per_collection.columns])
        .join(order, on=["system", "metric"], how="left", maintain_order="left")
    )
    greater = {metric: higher_is_better(metric) for metric in shown}
    middle = cells.group_by("metric").agg(
        ((pl.col("mean").max() + pl.col("mean").min()) / 2).alias("_middle")
    )
    cells = cells.join(middle, on="metric", how="left", maintain_order="left").with_columns(
        dark=pl.when(pl.col("metric").replace_strict(greater, return_dtype=pl.Boolean))
        .then(pl.col("mean") > pl.col("_middle"))
        .otherwise(pl.col("mean") < pl.col("_middle"))
        .fill_null(False)
    )
    aggregate = suite.aggregate.filter(pl.col("metric").is_in(shown))
    return {
        "collections": suite.collections,
        "queries": [r.per_query["query_id"].n_unique() for r in suite.results.values()],
        "held": held,
        "metrics": shown,
        "greater": [greater[m] for m in shown],
        "cells": _records(cells, [*_CELL_COLUMNS, "order", "dark"]),
        "aggregate": _records(aggregate, AGGREGATE_COLUMNS),
        "missing": _records(suite.missing, ["collection", "system"]),
        "confidence": suite.config.get("confidence"),
        "n_resamples": suite.config.get("n_resamples"),
    }


def _records(frame: pl.DataFrame, columns: Sequence[str]) -> list[dict[str, Any]]:
    present = [name for name in columns if name in frame.columns]
    floats = [name for name in present if frame.schema[name].is_float()]
    return frame.select(present).with_columns(pl.col(floats).fill_nan(None)).to_dicts()


def suite_text(suite: Mapping[str, Any]) -> str:
    """Say in one sentence (plain text) what the Collections view shows.

    Examples
    --------
    >>> suite_text({"collections": ["a", "b"], "queries": [3, 1], "held": ["ap"],
    ...             "metrics": ["ap"], "missing": [{"collection": "b", "system": "x"}]})
    '2 collections: a (3 queries), b (1 query). Missing: x is not in b (no rank, Borda points or aggregate for it). A row per system (best mean rank first), a column per collection; pick the metric above.'
    """  # noqa: E501
    sizes = ", ".join(
        f"{name} ({counted(n, 'query', 'queries')})"
        for name, n in zip(suite["collections"], suite["queries"], strict=True)
    )
    text = f"{counted(len(suite['collections']), 'collection')}: {sizes}."
    absent: dict[str, list[str]] = {}
    for row in suite["missing"]:
        absent.setdefault(row["system"], []).append(row["collection"])
    if absent:
        named = "; ".join(f"{s} is not in {', '.join(c)}" for s, c in absent.items())
        text += f" Missing: {named} (no rank, Borda points or aggregate for it)."
    if not suite["metrics"]:
        held = ", ".join(suite["held"]) or "no metric"
        return f"{text} None of this dashboard's metrics was evaluated over the collections; the suite has {held}."  # noqa: E501
    return (
        f"{text} A row per system (best mean rank first), a column per collection; pick "
        "the metric above."
    )


def suite_tab_html() -> str:
    """Return the view's tab button."""
    return '<button type="button" role="tab" data-tab="collections">Collections</button>'


def suite_section_html(suite: Mapping[str, Any]) -> str:
    """Return the view's section (hidden until picked); the script fills the table."""
    return f"""<section data-view="collections" aria-label="Collections" hidden>
<h2>Collections</h2>
<p class="explain" id="collections-explain">{html.escape(suite_text(suite))}</p>
<div id="chart-collections"></div>
<p class="note" id="collections-missing" hidden></p>
<table id="collections-table"></table>
</section>"""
