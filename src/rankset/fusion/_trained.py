"""Fusion methods trained on labelled queries, the probabilistic family.

PosFuse, ProbFuse, SegFuse, SlideFuse, MAPFuse and BayesFuse, with the formulas as ranx
computes them.

Training reads, for every run, which positions hold a relevant document
(``grade >= relevance_level``) on the training queries (the labelled queries, or
``train_queries``); ``Q`` is their number. Each method turns that into a value per
position, which is added over the runs that contain a document (BayesFuse also counts
the runs that miss it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import polars as pl

from rankset._typing import IntoLabels
from rankset.errors import ParameterError
from rankset.io import scan_labels

__all__ = ["TRAINED", "trained_terms"]

#: The trained methods and their parameters (None: required).
TRAINED: dict[str, dict[str, float | None]] = {
    "posfuse": {},
    "probfuse": {"segments": None},
    "segfuse": {},
    "slidefuse": {"w": None},
    "mapfuse": {},
    "bayesfuse": {},
}
# SegFuse's segment boundaries (0-based positions): sizes 5, 10, 20, ..., 2560.
_SEGFUSE = (0, 5, 15, 35, 75, 155, 315, 635, 1275, 2555, 5115)
# BayesFuse's cut-offs; a position at or past the last one counts as missing.
_BAYESFUSE = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
_FLOOR = 0.001
#: BayesFuse's log-odds of a document a run does not rank.
MISSING_LOG_ODDS = math.log(_FLOOR / (1.0 - _FLOOR))


def trained_terms(
    rows: pl.LazyFrame,
    method: str,
    params: dict[str, float],
    labels: IntoLabels | None,
    *,
    train_queries: Iterable[str] | None,
    relevance_level: float,
    n_runs: int,
) -> pl.LazyFrame:
    """Add ``_t``, each row's trained value (and ``_m``, BayesFuse's missing total)."""
    if labels is None:
        msg = f"{method} is trained on labelled queries: pass labels= (CLI --qrels)."
        raise ParameterError(msg)
    relevant = (
        scan_labels(labels)
        .filter(pl.col("grade") >= relevance_level)
        .select("query_id", "doc_id", pl.lit(1.0).alias("_hit"))
    )
    queries = scan_labels(labels).select("query_id").unique()
    if train_queries is not None:
        chosen = sorted({str(q) for q in train_queries})
        queries = queries.filter(pl.col("query_id").is_in(chosen))
    n_queries = queries.select(pl.len()).collect().item()
    if n_queries == 0:
        msg = f"{method} has no training query: no labelled query is among train_queries."
        raise ParameterError(msg)
    training = (
        rows.join(queries, on="query_id")
        .join(relevant, on=["query_id", "doc_id"], how="left")
        .with_columns(pl.col("_hit").fill_null(0.0))
    )
    with_length = training.with_columns(_len=pl.len().over("run", "query_id").cast(pl.Float64))
    q = float(n_queries)
    listed = rows.with_columns(_n=pl.len().over("run", "query_id").cast(pl.Float64))
    i = pl.col("pos").cast(pl.Float64) - 1.0  # 0-based position
    if method in ("posfuse", "slidefuse"):
        probs = _position_probabilities(with_length)
        if method == "posfuse":
            return listed.join(probs, on=["run", "pos"], how="left").with_columns(
                _t=pl.col("_p").fill_null(0.0)
            )
        return _sliding(listed, probs, params["w"])
    if method == "probfuse":
        k = params["segments"]
        size = (pl.col("_len") / k).ceil()
        segment = (i / size).floor()
        seg_length = pl.min_horizontal(size, pl.col("_len") - segment * size)
        per_query = with_length.group_by("run", "query_id", segment.alias("_k")).agg(
            (pl.col("_hit").sum() / seg_length.first()).alias("_share")
        )
        table = per_query.group_by("run", "_k").agg((pl.col("_share").sum() / q).alias("_p"))
        applied = listed.with_columns(_k=(i / (pl.col("_n") / k).ceil()).floor())
        return applied.join(table, on=["run", "_k"], how="left").with_columns(
            _t=pl.col("_p").fill_null(0.0) / (pl.col("_k") + 1.0)
        )
    if method == "segfuse":
        table = _segment_table(training, _SEGFUSE, q, floor=False)
        applied = listed.with_columns(_k=_segment_of(i, _SEGFUSE))
        return applied.join(table, on=["run", "_k"], how="left").with_columns(
            _t=pl.col("_p").fill_null(0.0) * (pl.col("value") + 1.0)
        )
    if method == "mapfuse":
        return _mapfuse(listed, training, relevant, queries, q)
    # bayesfuse
    table = _segment_table(training, _BAYESFUSE, q, floor=True)
    applied = listed.with_columns(_k=_segment_of(i, _BAYESFUSE))
    return applied.join(table, on=["run", "_k"], how="left").with_columns(
        _t=pl.col("_p").fill_null(MISSING_LOG_ODDS) - MISSING_LOG_ODDS,
        _m=pl.lit(n_runs * MISSING_LOG_ODDS),
    )


def _position_probabilities(training: pl.LazyFrame) -> pl.LazyFrame:
    """``run, pos, _p``: share of training queries with a relevant doc at ``pos``."""
    hits = training.group_by("run", "pos").agg(_hits=pl.col("_hit").sum())
    lengths = training.group_by("run", "query_id").agg(_len=pl.col("pos").max())
    positions = hits.select("run", "pos")
    # queries whose list reaches pos: count lengths >= pos
    reach = (
        positions.join(lengths, on="run")
        .filter(pl.col("_len") >= pl.col("pos"))
        .group_by("run", "pos")
        .agg(_reach=pl.len().cast(pl.Float64))
    )
    return hits.join(reach, on=["run", "pos"]).select(
        "run", "pos", (pl.col("_hits") / pl.col("_reach")).alias("_p")
    )


def _sliding(listed: pl.LazyFrame, probs: pl.LazyFrame, w: float) -> pl.LazyFrame:
    window = int(w)
    if window != w or window < 0:
        msg = f"The 'w' parameter must be an int >= 0. Got {w!r} instead."
        raise ParameterError(msg)
    cumulative = probs.sort("run", "pos").with_columns(
        _c=pl.col("_p").cum_sum().over("run", order_by="pos")
    )
    tops = cumulative.group_by("run").agg(_top=pl.col("pos").max())
    start = pl.max_horizontal(pl.col("pos") - window, pl.lit(1))
    end = pl.min_horizontal(pl.col("pos") + window, pl.col("_n").cast(pl.Int64))
    bounds = listed.join(tops, on="run", how="left").with_columns(
        _a=start,
        _b=end,
        _hi=pl.min_horizontal(end, pl.col("_top")),
        _lo=pl.min_horizontal(start - 1, pl.col("_top")),
    )
    c = cumulative.select("run", "pos", "_c")
    high = c.rename({"pos": "_hi", "_c": "_c_hi"})
    low = c.rename({"pos": "_lo", "_c": "_c_lo"})
    joined = bounds.join(high, on=["run", "_hi"], how="left").join(
        low, on=["run", "_lo"], how="left"
    )
    window_sum = pl.col("_c_hi").fill_null(0.0) - pl.col("_c_lo").fill_null(0.0)
    return joined.with_columns(
        _t=pl.when(pl.col("_hi") >= pl.col("_a")).then(window_sum).otherwise(0.0)
        / (pl.col("_b") - pl.col("_a") + 1).cast(pl.Float64)
    )


def _segment_of(i: pl.Expr, bounds: Sequence[int]) -> pl.Expr:
    """0-based segment of 0-based position ``i``; null past the last bound."""
    expr = pl.lit(None, dtype=pl.Float64)
    for k in reversed(range(len(bounds) - 1)):
        expr = pl.when((i >= bounds[k]) & (i < bounds[k + 1])).then(float(k)).otherwise(expr)
    return expr


def _segment_table(
    training: pl.LazyFrame, bounds: Sequence[int], q: float, *, floor: bool
) -> pl.LazyFrame:
    sizes = pl.DataFrame(
        {
            "_k": [float(k) for k in range(len(bounds) - 1)],
            "_size": [float(bounds[k + 1] - bounds[k]) for k in range(len(bounds) - 1)],
        }
    ).lazy()
    i = pl.col("pos").cast(pl.Float64) - 1.0
    hits = (
        training.with_columns(_k=_segment_of(i, bounds))
        .filter(pl.col("_k").is_not_null())
        .group_by("run", "_k")
        .agg(_hits=pl.col("_hit").sum())
    )
    runs = training.select("run").unique()
    grid = runs.join(sizes, how="cross").join(hits, on=["run", "_k"], how="left")
    p = pl.col("_hits").fill_null(0.0) / pl.col("_size") / q
    if not floor:
        return grid.select("run", "_k", p.alias("_p"))
    p_floor = pl.when(p == 0).then(_FLOOR).otherwise(p)
    q_floor = pl.when(1.0 - p_floor == 0).then(_FLOOR).otherwise(1.0 - p_floor)
    return grid.select("run", "_k", (p_floor / q_floor).log().alias("_p"))


def _mapfuse(
    listed: pl.LazyFrame,
    training: pl.LazyFrame,
    relevant: pl.LazyFrame,
    queries: pl.LazyFrame,
    q: float,
) -> pl.LazyFrame:
    # AP per (run, query): sum of precision at each relevant position / relevant labels;
    # MAP over the Q training queries (a query a run does not answer counts 0).
    n_relevant = (
        relevant.join(queries, on="query_id").group_by("query_id").agg(_r=pl.len().cast(pl.Float64))
    )
    precision = (
        training.sort("run", "query_id", "pos")
        .with_columns(_so_far=pl.col("_hit").cum_sum().over("run", "query_id"))
        .with_columns(_prec=pl.col("_hit") * pl.col("_so_far") / pl.col("pos").cast(pl.Float64))
    )
    ap = (
        precision.group_by("run", "query_id")
        .agg(_sum=pl.col("_prec").sum())
        .join(n_relevant, on="query_id", how="left")
        .with_columns(
            _ap=pl.when(pl.col("_r") > 0).then(pl.col("_sum") / pl.col("_r")).otherwise(0.0)
        )
    )
    maps = ap.group_by("run").agg(_map=pl.col("_ap").sum() / q)
    return listed.join(maps, on="run", how="left").with_columns(
        _t=pl.col("_map").fill_null(0.0) / pl.col("pos").cast(pl.Float64)
    )
