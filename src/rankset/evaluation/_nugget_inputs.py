"""The nugget pass: the runs joined once with the nugget labels, aggregated per (system, query).

:mod:`rankset.measures.nuggets` registers the counts it needs in
:attr:`Features.nugget_columns`; :func:`nugget_values` computes every per-(system, query)
count in one join and one group-by, and :func:`nugget_stats` the per-query statistics of
the labels, the greedy ideal α-DCG included (one vectorised step per rank over every query).
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from rankset.evaluation._runs import Runs
from rankset.measures import GROUP, Features, log2_of_positions, sequential_sum

__all__ = ["labels_from_nuggets", "nugget_stats", "nugget_values"]

_FULL = pl.col("support") >= 1.0


def labels_from_nuggets(nuggets: pl.DataFrame) -> pl.DataFrame:
    """Binary labels implied by nugget labels: 1 for a passage fully supporting a nugget."""
    return nuggets.group_by("query_id", "doc_id", maintain_order=True).agg(
        grade=(pl.col("support") >= 1.0).any().cast(pl.Float64)
    )


def nugget_values(features: Features, runs: Runs, nuggets: pl.DataFrame) -> pl.LazyFrame:
    """Per (system, query): every count :attr:`Features.nugget_columns` asks for."""
    run = runs.frame().select("system", "query_id", "doc_id", "pos")
    supported = nuggets.lazy().filter(pl.col("support") > 0)
    rows = run.join(supported, on=["query_id", "doc_id"], how="inner").sort(
        [*GROUP, "pos", "nugget_id"]
    )
    discount = log2_of_positions("pos")
    aggregations = []
    for name, (kind, k, alpha) in sorted(features.nugget_columns.items()):
        top = pl.col("pos") <= k
        if kind in ("full", "any", "vfull", "vany"):
            condition = top & (_FULL if kind.endswith("full") else pl.lit(True))
            if kind.startswith("v"):
                condition = condition & pl.col("vital")
            aggregations.append(pl.col("nugget_id").filter(condition).n_unique().alias(name))
        elif kind in ("wfull", "wany"):
            condition = top & (_FULL if kind == "wfull" else pl.lit(True))
            weights = pl.struct("nugget_id", "importance").filter(condition).unique()
            aggregations.append(weights.struct.field("importance").sum().alias(name))
        elif kind == "docs":
            aggregations.append(pl.col("doc_id").filter(top & _FULL).n_unique().alias(name))
        elif kind == "adcg":
            # Passages above that support the same nugget: its rank among them, minus one.
            seen = (
                pl.when(_FULL).then(pl.col("pos")).rank("ordinal").over([*GROUP, "nugget_id"]) - 1
            )
            gain = pl.lit(1.0 - float(alpha or 0.0)).pow(seen.cast(pl.Float64)) / discount
            aggregations.append(sequential_sum(gain.filter(top & _FULL)).alias(name))
    if not aggregations:
        return run.select(*GROUP).unique()
    return (
        rows.group_by(list(GROUP), maintain_order=True)
        .agg(aggregations)
        .with_columns(pl.exclude(*GROUP).cast(pl.Float64))
    )


def nugget_stats(features: Features, nuggets: pl.DataFrame) -> pl.DataFrame:
    """Per query: nuggets, vital nuggets, summed importance, and the ideal α-DCGs asked for."""
    per_nugget = nuggets.group_by("query_id", "nugget_id", maintain_order=True).agg(
        pl.col("importance").first(), pl.col("vital").first()
    )
    stats = per_nugget.group_by("query_id", maintain_order=True).agg(
        _n_nuggets=pl.len().cast(pl.Float64),
        _n_vital=pl.col("vital").sum().cast(pl.Float64),
        _nugget_weight=pl.col("importance").sum(),
    )
    ideals: dict[float, dict[int, str]] = {}
    for name, (kind, k, alpha) in features.nugget_columns.items():
        if kind == "aidcg":
            ideals.setdefault(float(alpha or 0.0), {})[k] = name
    for alpha, wanted in sorted(ideals.items()):
        stats = stats.join(
            ideal_alpha_dcg(nuggets, alpha, wanted), on="query_id", how="left"
        ).with_columns(pl.col(list(wanted.values())).fill_null(0.0))
    return stats


def ideal_alpha_dcg(nuggets: pl.DataFrame, alpha: float, wanted: dict[int, str]) -> pl.DataFrame:
    """Return the greedy ideal α-DCG at each cutoff of ``wanted`` (k -> column), per query.

    Each step gives every query its remaining passage of largest gain (ties: the smaller
    passage id), for all queries at once: the (query, passage, nugget) triples are coded as
    integers, a step's gains are one weighted count over them, and each query's choice one
    segment reduction (numpy), so the cost is a few array passes per rank.

    Examples
    --------
    >>> nuggets = pl.DataFrame(
    ...     {"query_id": "q", "doc_id": ["a", "a", "b", "c"],
    ...      "nugget_id": ["n1", "n2", "n1", "n3"], "support": 1.0}
    ... )
    >>> out = ideal_alpha_dcg(nuggets, 0.5, {1: "i1", 2: "i2"})
    >>> round(out["i1"][0], 4), round(out["i2"][0], 4)
    (2.0, 2.6309)
    """
    import numpy as np

    pairs = (
        nuggets.filter(pl.col("support") >= 1.0)
        .select("query_id", "doc_id", "nugget_id")
        .unique()
        .sort("query_id", "doc_id", "nugget_id")
        .with_columns(
            # dense codes in sorted order: a smaller passage id has a smaller code
            doc=pl.struct("query_id", "doc_id").rank("dense").cast(pl.Int64) - 1,
            nugget=pl.struct("query_id", "nugget_id").rank("dense").cast(pl.Int64) - 1,
        )
    )
    columns = list(wanted.values())
    if pairs.height == 0:
        empty = pl.DataFrame({"query_id": []}, schema={"query_id": pl.String})
        return empty.with_columns(pl.lit(None, dtype=pl.Float64).alias(c) for c in columns)
    docs = pairs.select("doc", "query_id").unique(subset="doc", keep="first").sort("doc")
    queries = docs["query_id"].unique(maintain_order=True)
    doc_query = docs["query_id"].rank("dense").cast(pl.Int64).to_numpy() - 1
    starts = np.flatnonzero(np.r_[True, doc_query[1:] != doc_query[:-1]])
    doc_of_pair = pairs["doc"].to_numpy()
    nugget_of_pair = pairs["nugget"].to_numpy()
    n_docs = len(docs)
    seen = np.zeros(int(nugget_of_pair.max()) + 1)
    alive = np.ones(n_docs, dtype=bool)
    totals = np.zeros(len(queries))
    positions = np.arange(n_docs)
    out: dict[str, Any] = {"query_id": queries}
    for step in range(1, max(wanted) + 1):
        gain = np.bincount(
            doc_of_pair, weights=(1.0 - alpha) ** seen[nugget_of_pair], minlength=n_docs
        )
        gain[~alive] = -1.0
        best = np.maximum.reduceat(gain, starts)
        candidate = alive & (gain == best[doc_query])
        first = np.minimum.reduceat(np.where(candidate, positions, n_docs), starts)
        chosen = first < n_docs
        totals[chosen] += best[chosen] / math.log2(step + 1)  # C's log2, as log2_of_positions
        alive[first[chosen]] = False
        picked = np.zeros(n_docs, dtype=bool)
        picked[first[chosen]] = True
        seen += np.bincount(nugget_of_pair[picked[doc_of_pair]], minlength=len(seen))
        if step in wanted:
            out[wanted[step]] = totals.copy()
    return pl.DataFrame(out)
