"""The nugget pass: the runs joined once with the nugget labels, aggregated per (system, query).

:mod:`rankset.measures.nuggets` registers the counts it needs in
:attr:`Features.nugget_columns`; :func:`nugget_values` computes every per-(system, query)
count in one join and one group-by, and :func:`nugget_stats` the per-query statistics of
the labels, the greedy ideals included (one vectorised step per rank over every query).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import polars as pl

from rankset.evaluation._runs import Runs
from rankset.measures import Features, log2_of_positions, sequential_sum
from rankset.measures._shared import GROUP

__all__ = ["greedy_ideals", "labels_from_nuggets", "nugget_stats", "nugget_values"]

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
    kinds = {kind for kind, *_ in features.nugget_columns.values()}
    if "amap" in kinds:  # each subtopic's relevant passages, the AP denominator
        supported = supported.join(_relevant_per_nugget(nuggets).lazy(), on=NUGGET, how="left")
    rows = run.join(supported, on=["query_id", "doc_id"], how="inner").sort(
        [*GROUP, "pos", "nugget_id"]
    )
    # Passages above that fully support the same nugget: its rank among them, minus one.
    seen = (
        pl.when(_FULL).then(pl.col("pos")).rank("ordinal").over([*GROUP, "nugget_id"]) - 1
    ).cast(pl.Float64)
    aggregations = []
    for name, (kind, k, alpha, beta) in sorted(features.nugget_columns.items()):
        top = pl.col("pos") <= k if k else pl.lit(True)
        novelty = pl.lit(1.0 - float(alpha or 0.0)).pow(seen)
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
        elif kind in _DISCOUNTS:
            gain = _DISCOUNTS[kind](novelty, float(beta or 0.0))
            aggregations.append(sequential_sum(gain.filter(top & _FULL)).alias(name))
        elif kind == "amap":
            precision = (seen + 1.0) / pl.col("pos").cast(pl.Float64)
            terms = (precision / pl.col(_RELEVANT)).filter(_FULL)
            aggregations.append(sequential_sum(terms).alias(name))
        elif kind == "apairs":
            aggregations.append((top & _FULL).sum().alias(name))
    if not aggregations:
        return run.select(*GROUP).unique()
    return (
        rows.group_by(list(GROUP), maintain_order=True)
        .agg(aggregations)
        .with_columns(pl.exclude(*GROUP).cast(pl.Float64))
    )


# The novelty-weighted gains discounted, by kind: α-DCG's by log2(pos + 1), ERR-IA's by
# pos, NRBP's times beta^(pos - 1).
_DISCOUNTS: dict[str, Callable[[pl.Expr, float], pl.Expr]] = {
    "adcg": lambda gain, _: gain / log2_of_positions("pos"),
    "aerr": lambda gain, _: gain / pl.col("pos").cast(pl.Float64),
    "anrbp": lambda gain, beta: gain * pl.lit(beta).pow(pl.col("pos").cast(pl.Float64) - 1.0),
}
_IDEALS = {"aidcg", "aierr", "ainrbp"}
NUGGET = ["query_id", "nugget_id"]
_RELEVANT = "_nug_relevant"


def _relevant_per_nugget(nuggets: pl.DataFrame) -> pl.DataFrame:
    """Per (query, nugget): the passages that fully support it."""
    return (
        nuggets.filter(_FULL)
        .group_by(NUGGET)
        .agg(pl.col("doc_id").n_unique().cast(pl.Float64).alias(_RELEVANT))
    )


def nugget_stats(features: Features, nuggets: pl.DataFrame) -> pl.DataFrame:
    """Per query: nuggets (all, vital, fully supported), summed importance, and the ideals.

    The ideals are those asked for: α-DCG and ERR-IA at k, NRBP over the whole ideal
    ranking, each of the greedy ideal ranking (:func:`greedy_ideals`).
    """
    per_nugget = nuggets.group_by(*NUGGET, maintain_order=True).agg(
        pl.col("importance").first(), pl.col("vital").first(), _FULL.any().alias("_supported")
    )
    stats = per_nugget.group_by("query_id", maintain_order=True).agg(
        _n_nuggets=pl.len().cast(pl.Float64),
        _n_vital=pl.col("vital").sum().cast(pl.Float64),
        _nugget_weight=pl.col("importance").sum(),
        _n_supported=pl.col("_supported").sum().cast(pl.Float64),
    )
    ideals: dict[float, dict[str, tuple[str, int, float]]] = {}
    for name, (kind, k, alpha, beta) in features.nugget_columns.items():
        if kind in _IDEALS:
            ideals.setdefault(float(alpha or 0.0), {})[name] = (kind, k, float(beta or 0.0))
    for alpha, wanted in sorted(ideals.items()):
        stats = stats.join(
            greedy_ideals(nuggets, alpha, wanted), on="query_id", how="left"
        ).with_columns(pl.col(list(wanted)).fill_null(0.0))
    return stats


def greedy_ideals(
    nuggets: pl.DataFrame, alpha: float, wanted: dict[str, tuple[str, int, float]]
) -> pl.DataFrame:
    """Return the ideal values ``wanted`` asks for (column -> kind, k, beta), per query.

    The ideal ranking is built greedily, as NIST's ndeval builds it: each step gives every
    query its remaining passage of largest novelty-weighted gain (ties: the larger passage
    id), for all queries at once: the (query, passage, nugget) triples are coded as
    integers, a step's gains are one weighted count over them, and each query's choice
    one segment reduction (numpy), so the cost is a few array passes per rank. Kinds:
    ``aidcg`` (α-DCG at k), ``aierr`` (ERR-IA at k), ``ainrbp`` (NRBP with ``beta``, the
    whole ideal ranking; k is 0).

    Examples
    --------
    >>> nuggets = pl.DataFrame(
    ...     {"query_id": "q", "doc_id": ["a", "a", "b", "c"],
    ...      "nugget_id": ["n1", "n2", "n1", "n3"], "support": 1.0}
    ... )
    >>> out = greedy_ideals(nuggets, 0.5, {"i1": ("aidcg", 1, 0.0), "i2": ("aidcg", 2, 0.0)})
    >>> round(out["i1"][0], 4), round(out["i2"][0], 4)
    (2.0, 2.6309)
    """
    import numpy as np

    pairs = (
        nuggets.filter(_FULL)
        .select("query_id", "doc_id", "nugget_id")
        .unique()
        .sort("query_id", "doc_id", "nugget_id")
        .with_columns(
            # dense codes in sorted order: a larger passage id has a larger code
            doc=pl.struct("query_id", "doc_id").rank("dense").cast(pl.Int64) - 1,
            nugget=pl.struct(*NUGGET).rank("dense").cast(pl.Int64) - 1,
        )
    )
    if pairs.height == 0:
        empty = pl.DataFrame({"query_id": []}, schema={"query_id": pl.String})
        return empty.with_columns(pl.lit(None, dtype=pl.Float64).alias(c) for c in wanted)
    docs = pairs.select("doc", "query_id").unique(subset="doc", keep="first").sort("doc")
    queries = docs["query_id"].unique(maintain_order=True)
    doc_query = docs["query_id"].rank("dense").cast(pl.Int64).to_numpy() - 1
    starts = np.flatnonzero(np.r_[True, doc_query[1:] != doc_query[:-1]])
    doc_of_pair = pairs["doc"].to_numpy()
    nugget_of_pair = pairs["nugget"].to_numpy()
    n_docs = len(docs)
    seen = np.zeros(int(nugget_of_pair.max()) + 1)
    alive = np.ones(n_docs, dtype=bool)
    totals = {column: np.zeros(len(queries)) for column in wanted}
    positions = np.arange(n_docs)
    whole = any(kind == "ainrbp" for kind, _, _ in wanted.values())
    steps = n_docs if whole else max(k for _, k, _ in wanted.values())
    for step in range(1, steps + 1):
        gain = np.bincount(
            doc_of_pair, weights=(1.0 - alpha) ** seen[nugget_of_pair], minlength=n_docs
        )
        gain[~alive] = -1.0
        best = np.maximum.reduceat(gain, starts)
        candidate = alive & (gain == best[doc_query])
        last = np.maximum.reduceat(np.where(candidate, positions, -1), starts)
        chosen = last >= 0
        if not chosen.any():
            break
        for column, (kind, k, beta) in wanted.items():
            if kind == "ainrbp" or step <= k:
                totals[column][chosen] += _ideal_gain(best[chosen], kind, step, beta)
        alive[last[chosen]] = False
        picked = np.zeros(n_docs, dtype=bool)
        picked[last[chosen]] = True
        seen += np.bincount(nugget_of_pair[picked[doc_of_pair]], minlength=len(seen))
    return pl.DataFrame({"query_id": queries, **totals})


def _ideal_gain(gain: Any, kind: str, step: int, beta: float) -> Any:
    """Discount one step's ideal gains as :data:`_DISCOUNTS` discounts the run's."""
    if kind == "aidcg":
        return gain / math.log2(step + 1)  # C's log2, as log2_of_positions
    if kind == "aierr":
        return gain / float(step)
    return gain * beta ** float(step - 1)
