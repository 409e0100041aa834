"""trec_eval's gain-curve measures: G, nDCG averaged at relevant documents, R-nDCG.

Formulas of trec_eval 10.0 (``m_G.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``), with gain =
grade (negative grades and unlabelled documents gain 0), ``I_t`` the t-th largest
positive gain among the query's labels, ``R+`` the labels with a positive gain, ``S(p)``
the gain retrieved in the top p and ``IDCG(t)`` the ideal DCG of the top t:

* ``g``: each retrieved gain ``g_p`` divided by ``log2(2 + C(p) - S(p))``, where the cost
  ``C(p)`` adds ``max(I_t, 1)`` for the first ``R+`` positions and 1 after; summed, over
  the total ideal gain;
* ``ndcg_rel``: nDCG at each relevant retrieved document (``DCG(p) / IDCG(min(p, R+))``),
  plus the final nDCG once for each relevant label not retrieved, over ``R+``;
* ``rndcg``: nDCG averaged at the ideal positions where the ideal gain drops (the end of
  each grade's block in the ideal ranking), plus the final nDCG when the ranking runs on
  past ``R+ + 1``; 0 when the query has no relevant label at the relevance level.

The ideal prefix sums are label statistics (lists per query, read at each row's
position), so each stays one pass over the labelled rows. ``g`` and ``ndcg_rel`` add
their terms in trec_eval's order; ``rndcg`` regroups its sum by row, which can move the
last bit of the value.

Examples
--------
trec_eval 10.0 prints G 0.6309, ndcg_rel 0.6301 and Rndcg 0.4400 for this query:

>>> import rankset
>>> run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}
>>> labels = {"q1": {"a": 1, "c": 2}}
>>> res = rankset.evaluate(run, labels, ["g", "ndcg_rel", "rndcg"], confidence=None)
>>> res.per_query.select("metric", "value").with_columns(pl.col("value").round(4)).rows()
[('g', 0.6309), ('ndcg_rel', 0.6301), ('rndcg', 0.44)]
"""

from __future__ import annotations

import polars as pl

from rankset.measures._features import (
    GROUP,
    Features,
    log2_of_positions,
    sequential_sum,
)
from rankset.measures._registry import Metric, define
from rankset.measures.ranking import REL, num_relevant

__all__: list[str] = []

_POSITIVE = pl.col("grade") > 0


def _ideal_label_columns(features: Features) -> None:
    """Register the ideal ranking's gain, position and discount, as ideal nDCG registers them."""
    grade = pl.col("grade")
    positive = pl.when(grade > 0).then(grade).otherwise(0.0)
    features.label_row_column("_igain_lin", positive)
    features.label_row_column("_ipos", positive.rank("ordinal", descending=True).over("query_id"))
    features.label_row_column("_idiscount", log2_of_positions("_ipos"))


def _ideal_prefix(features: Features, name: str, term: pl.Expr) -> pl.Expr:
    """Register a label list: the running sum of ``term`` over the ideal positions 1..R+."""
    _ideal_label_columns(features)
    in_order = term.filter(_POSITIVE).sort_by(pl.col("_ipos").filter(_POSITIVE))
    features.label_aggregate(name, in_order.cum_sum())
    features.share_with_rows(name)
    return pl.col(name)


def _ideal_total(features: Features) -> pl.Expr:
    """IDCG over all R+ positive labels, added in ideal order (the prefix list's last)."""
    _ideal_label_columns(features)
    term = pl.col("_igain_lin") / pl.col("_idiscount")
    in_order = term.filter(_POSITIVE).sort_by(pl.col("_ipos").filter(_POSITIVE))
    total = sequential_sum(in_order).fill_null(0.0)
    return features.label_aggregate("_idcg_positive_total", total)


def _positive_labels(features: Features) -> pl.Expr:
    features.label_aggregate("_npositive", _POSITIVE.sum().cast(pl.Float64))
    features.share_with_rows("_npositive")
    return pl.col("_npositive")


def _at_ideal(prefix: pl.Expr, position: pl.Expr, count: pl.Expr) -> pl.Expr:
    """Read the prefix sum at ideal position min(position, R+) (null when R+ is 0)."""
    index = pl.min_horizontal(position.cast(pl.Float64), count).cast(pl.Int64) - 1
    return prefix.list.get(index, null_on_oob=True)


def _gain_so_far_row(features: Features) -> str:
    grade = pl.col("grade").fill_null(0.0)
    gain = features.row_column("_gain_lin", pl.when(grade > 0).then(grade).otherwise(0.0))
    return features.row_column("_gain_so_far", pl.col(gain).cum_sum().over(GROUP, order_by="pos"))


def _dcg_so_far_row(features: Features) -> str:
    _gain_so_far_row(features)
    discount = features.row_column("_discount", log2_of_positions("pos"))
    return features.row_column(
        "_dcg_so_far",
        (pl.col("_gain_lin") / pl.col(discount)).cum_sum().over(GROUP, order_by="pos"),
    )


@define(
    "g",
    description="trec_eval's G: each retrieved gain discounted by log2(2 + ideal cost so far - "
    "gain so far), over the total ideal gain.",
    cutoff="none",
    trec_eval="G",
)
def _g(features: Features, metric: Metric) -> pl.Expr:
    count = _positive_labels(features)
    cost = _ideal_prefix(features, "_icost_prefix", pl.max_horizontal(pl.col("_igain_lin"), 1.0))
    total_gain = features.label_aggregate("_igain_total", sequential_sum(pl.col("_igain_lin")))
    so_far = _gain_so_far_row(features)
    position = pl.col("pos").cast(pl.Float64)
    past_ideal = (position - count).clip(0.0, None)
    cost_here = _at_ideal(cost, position, count).fill_null(0.0) + past_ideal
    # log2(2 + cost - gain) as log2(x + 1) with x = 1 + cost - gain
    shifted = features.row_column("_g_shifted", 1.0 + cost_here - pl.col(so_far))
    discount = features.row_column("_g_discount", log2_of_positions(shifted))
    term = (pl.col("_gain_lin") / pl.col(discount)).filter(pl.col("_gain_lin") != 0)
    found = features.aggregate("_g_sum", sequential_sum(term))
    return pl.when(total_gain > 0).then(found / total_gain).otherwise(0.0)


@define(
    "ndcg_rel",
    description="nDCG averaged over the relevant labels: at each relevant document retrieved, "
    "and the final nDCG for each one missed.",
    cutoff="none",
    trec_eval="ndcg_rel",
)
def _ndcg_rel(features: Features, metric: Metric) -> pl.Expr:
    count = _positive_labels(features)
    ideal = _ideal_prefix(features, "_idcg_prefix", pl.col("_igain_lin") / pl.col("_idiscount"))
    dcg = _dcg_so_far_row(features)
    relevant = pl.col("_gain_lin") > 0
    here = pl.col(dcg) / _at_ideal(ideal, pl.col("pos"), count)
    found = features.aggregate("_ndcg_rel_sum", sequential_sum(here.filter(relevant)))
    retrieved = features.aggregate("_npositive_ret", relevant.sum().cast(pl.Float64))
    final_dcg = features.aggregate("_dcg_all", pl.col(dcg).max().fill_null(0.0))
    ideal_total = _ideal_total(features)
    total = found + ((count - retrieved) * final_dcg) / ideal_total
    return pl.when((count > 0) & (total > 0)).then(total / count).otherwise(0.0)


@define(
    "rndcg",
    description="nDCG averaged at the ends of the ideal ranking's grade blocks (and at the end "
    "of a longer ranking): trec_eval's Rndcg.",
    cutoff="none",
    params=(REL,),
    trec_eval="Rndcg",
)
def _rndcg(features: Features, metric: Metric) -> pl.Expr:
    count = _positive_labels(features)
    _ideal_label_columns(features)
    # A grade's block of the ideal ranking ends at t = labels with that grade or more;
    # trec_eval adds DCG(t) / IDCG(t) there. Regrouped by row: a row at position p adds
    # its DCG term times W(p), the sum of 1 / IDCG(t) over the ends t >= p.
    ideal_here = features.label_row_column(
        "_idcg_here",
        (pl.col("_igain_lin") / pl.col("_idiscount")).cum_sum().over("query_id", order_by="_ipos"),
    )
    block_end = features.label_row_column(
        "_block_end", pl.col("_ipos").max().over(["query_id", "grade"])
    )
    ends_here = _POSITIVE & (pl.col("_ipos") == pl.col(block_end))
    weight = pl.when(ends_here).then(1.0 / pl.col(ideal_here)).otherwise(0.0)
    in_order = weight.filter(_POSITIVE).sort_by(pl.col("_ipos").filter(_POSITIVE))
    features.label_aggregate("_rndcg_weights", in_order.reverse().cum_sum().reverse())
    ends = features.label_aggregate("_rndcg_ends", ends_here.sum().cast(pl.Float64))
    features.share_with_rows("_rndcg_weights")
    row_weight = pl.col("_rndcg_weights").list.get(
        pl.col("pos").cast(pl.Int64) - 1, null_on_oob=True
    )
    dcg = _dcg_so_far_row(features)
    term = pl.col("_gain_lin") / pl.col("_discount") * row_weight.fill_null(0.0)
    weighted = features.aggregate("_rndcg_sum", sequential_sum(term))
    final_dcg = features.aggregate("_dcg_all", pl.col(dcg).max().fill_null(0.0))
    ideal_total = _ideal_total(features)
    runs_on = features.num_ret().cast(pl.Float64) > count + 1.0
    extra = pl.when(runs_on).then(final_dcg / ideal_total).otherwise(0.0)
    value = (weighted + extra) / (ends + runs_on.cast(pl.Float64))
    return pl.when(num_relevant(features, metric) > 0).then(value).otherwise(0.0)
