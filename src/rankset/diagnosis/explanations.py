"""Why a query scored what it did: the relevant documents found, where, and those missed.

:func:`explain` lists, per system and query, the relevant documents within the cutoff
with their positions, those the ranking holds further down, and those it never
retrieved, with a one-line ``reason`` ("2 of 3 relevant in the top 3 (positions 1, 3);
missed: d9 at 12"). The report's worst-queries section shows it beside each query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from rankset._validation import check_float, check_int
from rankset.evaluation import numbered_runs
from rankset.io import scan_labels

__all__ = ["explain"]

#: Missed documents named in a reason before "and N more".
_SHOWN = 3


def explain(
    runs: Any,
    labels: Any,
    k: int | None = None,
    *,
    relevance_level: float | None = None,
    names: Sequence[str] | None = None,
    queries: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Explain, per system and query, which relevant documents the top ``k`` holds.

    Parameters
    ----------
    runs, labels
        As for :func:`rankset.evaluate`.
    k
        The cutoff (``None``: the whole ranking).
    relevance_level
        Grade at or above which a document is relevant (None: 1).
    names
        System names, as for :func:`rankset.evaluate`.
    queries
        Only these query ids (default: every query that has labels and a ranking).

    Returns
    -------
    polars.DataFrame
        ``system, query_id, n_relevant, found`` (relevant documents within the cutoff),
        ``found_docs, found_positions`` (lists, best first), ``missed_docs`` and
        ``missed_positions`` (relevant documents outside the cutoff; a null position:
        never retrieved), and ``reason``, one line.

    Examples
    --------
    >>> run = {"q": {"d1": 5.0, "x": 4.0, "d3": 3.0, "y": 2.0, "d9": 1.0}}
    >>> labels = {"q": {"d1": 1, "d3": 2, "d9": 1, "d7": 1}}
    >>> explain(run, labels, k=3)["reason"][0]
    '2 of 4 relevant in the top 3 (positions 1, 3); missed: d9 at 5, d7 not retrieved'
    """
    if k is not None:
        k = check_int("k", k, 1)
    level = check_float("relevance_level", 1 if relevance_level is None else relevance_level)
    ranked = numbered_runs(runs, names=list(names) if names is not None else None).select(
        "system", "query_id", "doc_id", "pos"
    )
    relevant = (
        scan_labels(labels).filter(pl.col("grade") >= level).select("query_id", "doc_id").collect()
    )
    systems = ranked["system"].unique(maintain_order=True).to_list()
    answered = ranked.select("system", "query_id").unique()
    if queries is not None:
        wanted = pl.Series(list(queries), dtype=pl.String).implode()
        answered = answered.filter(pl.col("query_id").is_in(wanted))
    cutoff = pl.lit(k if k is not None else 2**62)
    rows = (
        answered.join(relevant, on="query_id")
        .join(ranked, on=["system", "query_id", "doc_id"], how="left")
        .with_columns(within=pl.col("pos").is_not_null() & (pl.col("pos") <= cutoff))
        .with_columns(
            _missed=pl.when(pl.col("within"))
            .then(None)
            .when(pl.col("pos").is_null())
            .then(pl.format("{} not retrieved", "doc_id"))
            .otherwise(pl.format("{} at {}", "doc_id", "pos"))
        )
        .sort("system", "query_id", pl.col("pos").fill_null(2**62), "doc_id")
    )
    order = {system: i for i, system in enumerate(systems)}
    table = (
        rows.group_by("system", "query_id", maintain_order=True)
        .agg(
            n_relevant=pl.len().cast(pl.UInt32),
            found=pl.col("within").sum().cast(pl.UInt32),
            found_docs=pl.col("doc_id").filter(pl.col("within")),
            found_positions=pl.col("pos").filter(pl.col("within")),
            missed_docs=pl.col("doc_id").filter(~pl.col("within")),
            missed_positions=pl.col("pos").filter(~pl.col("within")),
            _missed=pl.col("_missed").drop_nulls(),
        )
        .with_columns(_order=pl.col("system").replace_strict(order, return_dtype=pl.Int64))
        .sort("_order", "query_id")
        .drop("_order")
    )
    where = f"in the top {k}" if k is not None else "retrieved"
    found = pl.col("found")
    positions = pl.format(
        " (position{} {})",
        pl.when(found > 1).then(pl.lit("s")).otherwise(pl.lit("")),
        pl.col("found_positions").cast(pl.List(pl.String)).list.join(", "),
    )
    more = pl.col("_missed").list.len().cast(pl.Int64) - _SHOWN
    missed = pl.format(
        "; missed: {}{}",
        pl.col("_missed").list.head(_SHOWN).list.join(", "),
        pl.when(more > 0).then(pl.format(" and {} more", more)).otherwise(pl.lit("")),
    )
    reason = pl.concat_str(
        pl.format("{} of {} relevant " + where, found, "n_relevant"),
        pl.when(found > 0).then(positions).otherwise(pl.lit("")),
        pl.when(pl.col("_missed").list.len() > 0).then(missed).otherwise(pl.lit("")),
    )
    return table.with_columns(reason=reason).drop("_missed")
