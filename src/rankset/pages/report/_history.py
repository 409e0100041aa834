"""The report's history section: how the logged means of the report's metrics moved.

The history comes from an experiment store (:meth:`rankset.experiments.Store.history`):
one row per (entry, system, metric). The section draws one chart per metric of the
report that the store holds (:func:`rankset.charts.history_chart`) and a table of
each system's last logged mean beside the one before it
(:func:`rankset.experiments.latest_changes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

from rankset import charts
from rankset._format import counted
from rankset.experiments import latest_changes
from rankset.experiments._shared import MARK_ALPHA, in_utc, setting_changes
from rankset.pages.report._html import esc, table

__all__ = ["MAX_HISTORY_CHARTS", "history_section"]

#: The most metrics the section draws a chart for (the report's first ones).
MAX_HISTORY_CHARTS: Final = 4


def history_section(
    history: pl.DataFrame, metrics: Sequence[str], systems: Sequence[str] = ()
) -> str:
    """Chart the logged means of ``metrics`` over time and tabulate the latest change.

    Parameters
    ----------
    history
        What :meth:`Store.history` returns: ``entry_id, time, system, metric, mean``
        (and ``tag, ci_low, ci_high``).
    metrics
        The report's metric names, in its order; the section keeps those the history
        holds (when it holds none of them, it says which it holds).
    systems
        The report's systems, in order: a system keeps the colour it has in the other
        charts (the history's own systems follow them).

    Examples
    --------
    >>> from datetime import datetime, UTC
    >>> history = pl.DataFrame({
    ...     "entry_id": ["e1", "e2"], "time": [datetime(2026, 1, 1, tzinfo=UTC),
    ...     datetime(2026, 1, 2, tzinfo=UTC)], "system": ["bm25", "bm25"],
    ...     "metric": ["ndcg@10", "ndcg@10"], "mean": [0.5, 0.6], "tag": ["main", "main"]})
    >>> html = history_section(history, ["ndcg@10", "ap"])
    >>> "2 entries" in html, "+0.1000" in html
    (True, True)
    """
    history = in_utc(history)  # the table's header says UTC
    held = [str(m) for m in history["metric"].unique(maintain_order=True).to_list()]
    shown = [m for m in metrics if m in held]
    entries = history["entry_id"].n_unique()
    if not shown:
        return (
            f'<p class="explain">None of this report\'s metrics was logged in the store '
            f"({counted(entries, 'entry', 'entries')}); it holds "
            f"{esc(', '.join(held) or 'no metric')}.</p>"
        )
    drawn = shown[:MAX_HISTORY_CHARTS]
    left_out = len(shown) - len(drawn)
    marked = (
        " A ring marks a mean that changed significantly from the entry before it in its tag "
        f"(p &lt; {MARK_ALPHA:g}, the paired randomization test over the queries both scored, "
        "one test per change, not corrected)."
        if "p_step" in history.columns
        else ""
    )
    explain = (
        f'<p class="explain">The means logged in the experiment store: '
        f"{counted(entries, 'entry', 'entries')} from {_when(history)}, one line per system "
        "(the band: the bootstrap interval); entries are named by tag, with their short id "
        "when a tag repeats."
        + marked
        + (f" Charts for the first {len(drawn)} metrics; the table has all." if left_out else "")
        + "</p>"
    )
    logged = [str(s) for s in history["system"].unique(maintain_order=True).to_list()]
    colors = charts.system_colors([*systems, *(s for s in logged if s not in systems)])
    chart_html = "".join(
        charts.embed_fragment(
            charts.history_chart(history, metric, colors=colors), f"chart-history-{number}"
        )
        for number, metric in enumerate(drawn)
    )
    latest = _latest_table(history, shown)
    return f'{explain}\n<div class="charts">{chart_html}</div>\n{latest}\n{_changes(history)}'


def _changes(history: pl.DataFrame) -> str:
    """Tabulate the options, meta and commit that changed between consecutive entries."""
    if "options" not in history.columns and "meta" not in history.columns:
        return ""
    changes = setting_changes(history)
    if not changes.height:
        return (
            '<p class="explain">No recorded option, meta or commit changed between the entries.</p>'
        )
    return table(
        changes.with_columns(pl.col("before", "after").fill_null("(not recorded)")),
        [
            ("entry", "entry", "key"),
            ("previous", "against the entry before", "text"),
            ("key", "recorded", "text"),
            ("before", "before", "text"),
            ("after", "after", "text"),
        ],
        caption="What changed between consecutive entries (in logged order): only the "
        "recorded options (option.*), meta (meta.*) and git commits whose value changed.",
    )


def _when(history: pl.DataFrame) -> str:
    days = history["time"].dt.strftime("%Y-%m-%d").unique().sort().to_list()
    return str(days[0]) if len(days) == 1 else f"{days[0]} to {days[-1]}"


def _latest_table(history: pl.DataFrame, metrics: Sequence[str]) -> str:
    """Each (system, metric): the last logged mean, the one before it and the change."""
    latest = latest_changes(history, metrics).with_columns(
        logged=pl.col("last_time").dt.strftime("%Y-%m-%d %H:%M")
    )
    if "entry" in history.columns:  # the entry as the chart names it
        names = dict(history.select("entry_id", "entry").unique().iter_rows())
        latest = latest.with_columns(pl.col("last_entry").replace(names))
    return table(
        latest,
        [
            ("system", "system", "key"),
            ("metric", "metric", "text"),
            ("n_entries", "entries", "int"),
            ("last_entry", "last entry", "text"),
            ("logged", "logged (UTC)", "text"),
            ("last_mean", "last mean", "num"),
            ("previous_mean", "the one before", "num"),
            ("change", "change", "signed"),
            ("p", "p", "p"),
        ],
        caption="Each system's last logged mean and its change from the entry before; p: the "
        "paired randomization test of that change over the queries both entries scored.",
    )
