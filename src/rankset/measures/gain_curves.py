"""trec_eval's gain-curve measures: G, nDCG averaged at relevant documents, R-nDCG.

Formulas of trec_eval 10.0 (``m_G.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``), with gain =
grade or the gain map's (``gains=1:3;2:9``, trec_eval's ``G.1=3,2=9``; negative grades
and unlabelled documents gain 0), ``I_t`` the t-th largest
positive gain among the query's labels, ``R+`` the labels with a positive gain, ``S(p)``
the gain retrieved in the top p and ``IDCG(t)`` the ideal DCG of the top t:

* ``g``: each retrieved gain ``g_p`` divided by ``log2(2 + C(p) - S(p))``, where the cost
  ``C(p)`` adds ``max(I_t, 1)`` for the first ``R+`` positions and 1 after; summed, over
  the total ideal gain;
* ``ndcg_rel``: nDCG at each relevant retrieved document (``DCG(p) / IDCG(min(p, R+))``),
  plus the final nDCG once for each relevant label not retrieved, over ``R+``;
* ``rndcg``: nDCG averaged at the ideal positions where the ideal gain drops (the end of
  each gain's block in the ideal ranking), plus the final nDCG when the ranking runs on
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

from rankset.measures._features import GROUP, Features, log2_of_positions, sequential_sum
from rankset.measures._gains import GAINS, GainMap, gain_map, gains_key
from rankset.measures._registry import Metric, define
from rankset.measures.ranking import (
    REL,
    discount_row,
    discounted_gain,
    gain_row,
    ideal_discounted_gain,
    ideal_label_columns,
    num_relevant,
)

__all__: list[str] = []


def _positive(features: Features, gains: GainMap | None) -> pl.Expr:
    """Label rows with a positive (mapped) gain: the ideal ranking's ``R+``."""
    gain, _, _ = ideal_label_columns(features, gains=gains)
    return pl.col(gain) > 0


def _in_ideal_order(features: Features, term: pl.Expr, gains: GainMap | None) -> pl.Expr:
    """``term`` of the positive labels, in ideal order (a label aggregation's input)."""
    _, position, _ = ideal_label_columns(features, gains=gains)
    positive = _positive(features, gains)
    return term.filter(positive).sort_by(pl.col(position).filter(positive))


def _ideal_dcg_term(features: Features, gains: GainMap | None) -> pl.Expr:
    gain, _, discount = ideal_label_columns(features, gains=gains)
    return pl.col(gain) / pl.col(discount)


def _ideal_prefix(features: Features, name: str, term: pl.Expr, gains: GainMap | None) -> pl.Expr:
    """Register a label list: the running sum of ``term`` over the ideal positions 1..R+."""
    features.label_aggregate(name, _in_ideal_order(features, term, gains).cum_sum())
    features.share_with_rows(name)
    return pl.col(name)


def _ideal_total(features: Features, name: str, term: pl.Expr, gains: GainMap | None) -> pl.Expr:
    """Register the sum of ``term`` over the positive labels, added in ideal order."""
    total = sequential_sum(_in_ideal_order(features, term, gains)).fill_null(0.0)
    return features.label_aggregate(name, total)


def _positive_labels(features: Features, gains: GainMap | None) -> pl.Expr:
    name = f"_npositive{gains_key(gains)}"
    features.label_aggregate(name, _positive(features, gains).sum().cast(pl.Float64))
    features.share_with_rows(name)
    return pl.col(name)


def _at_ideal(prefix: pl.Expr, position: pl.Expr, count: pl.Expr) -> pl.Expr:
    """Read the prefix sum at ideal position min(position, R+) (null when R+ is 0)."""
    index = pl.min_horizontal(position.cast(pl.Float64), count).cast(pl.Int64) - 1
    return prefix.list.get(index, null_on_oob=True)


def _so_far_row(features: Features, name: str, term: pl.Expr) -> str:
    """Row column: the running sum of ``term`` down the ranking."""
    return features.row_column(name, term.cum_sum().over(GROUP, order_by="pos"))


@define(
    "g",
    description="trec_eval's G: each retrieved gain discounted by log2(2 + ideal cost so far - "
    "gain so far), over the total ideal gain.",
    cutoff="none",
    params=(GAINS,),
    trec_eval="G",
)
def _g(features: Features, metric: Metric) -> pl.Expr:
    gains = gain_map(metric)
    key = gains_key(gains)
    count = _positive_labels(features, gains)
    ideal_gain, _, _ = ideal_label_columns(features, gains=gains)
    cost = _ideal_prefix(
        features, f"_icost_prefix{key}", pl.max_horizontal(pl.col(ideal_gain), 1.0), gains
    )
    total_gain = _ideal_total(features, f"_igain_total{key}", pl.col(ideal_gain), gains)
    gain = gain_row(features, gains=gains)
    so_far = _so_far_row(features, f"_gain_so_far{key}", pl.col(gain))
    position = pl.col("pos").cast(pl.Float64)
    past_ideal = (position - count).clip(0.0, None)
    cost_here = _at_ideal(cost, position, count).fill_null(0.0) + past_ideal
    # log2(2 + cost - gain) as log2(x + 1) with x = 1 + cost - gain
    shifted = features.row_column(f"_g_shifted{key}", 1.0 + cost_here - pl.col(so_far))
    discount = features.row_column(f"_g_discount{key}", log2_of_positions(shifted))
    term = (pl.col(gain) / pl.col(discount)).filter(pl.col(gain) != 0)
    found = features.aggregate(f"_g_sum{key}", sequential_sum(term))
    return pl.when(total_gain > 0).then(found / total_gain).otherwise(0.0)


@define(
    "ndcg_rel",
    description="nDCG averaged over the relevant labels: at each relevant document retrieved, "
    "and the final nDCG for each one missed.",
    cutoff="none",
    params=(GAINS,),
    trec_eval="ndcg_rel",
)
def _ndcg_rel(features: Features, metric: Metric) -> pl.Expr:
    gains = gain_map(metric)
    key = gains_key(gains)
    count = _positive_labels(features, gains)
    ideal = _ideal_prefix(features, f"_idcg_prefix{key}", _ideal_dcg_term(features, gains), gains)
    gain = gain_row(features, gains=gains)
    dcg_term = pl.col(gain) / pl.col(discount_row(features))
    dcg = _so_far_row(features, f"_dcg_so_far{key}", dcg_term)
    relevant = pl.col(gain) > 0
    here = pl.col(dcg) / _at_ideal(ideal, pl.col("pos"), count)
    found = features.aggregate(f"_ndcg_rel_sum{key}", sequential_sum(here.filter(relevant)))
    retrieved = features.aggregate(f"_npositive_ret{key}", relevant.sum().cast(pl.Float64))
    final_dcg = discounted_gain(features, metric)
    ideal_total = _ideal_total(
        features, f"_idcg_positive_total{key}", _ideal_dcg_term(features, gains), gains
    )
    total = found + ((count - retrieved) * final_dcg) / ideal_total
    return pl.when((count > 0) & (total > 0)).then(total / count).otherwise(0.0)


@define(
    "rndcg",
    description="nDCG averaged at the ends of the ideal ranking's gain blocks (and at the end "
    "of a longer ranking): trec_eval's Rndcg.",
    cutoff="none",
    params=(REL, GAINS),
    trec_eval="Rndcg",
)
def _rndcg(features: Features, metric: Metric) -> pl.Expr:
    gains = gain_map(metric)
    key = gains_key(gains)
    count = _positive_labels(features, gains)
    ideal_gain, position, _ = ideal_label_columns(features, gains=gains)
    # A gain's block of the ideal ranking ends at t = labels with that gain or more;
    # trec_eval adds DCG(t) / IDCG(t) there. Regrouped by row: a row at position p adds
    # its DCG term times W(p), the sum of 1 / IDCG(t) over the ends t >= p.
    ideal_here = features.label_row_column(
        f"_idcg_here{key}",
        _ideal_dcg_term(features, gains).cum_sum().over("query_id", order_by=position),
    )
    block_end = features.label_row_column(
        f"_block_end{key}", pl.col(position).max().over(["query_id", ideal_gain])
    )
    ends_here = _positive(features, gains) & (pl.col(position) == pl.col(block_end))
    weight = pl.when(ends_here).then(1.0 / pl.col(ideal_here)).otherwise(0.0)
    weights_name = f"_rndcg_weights{key}"
    weights = features.label_aggregate(
        weights_name, _in_ideal_order(features, weight, gains).reverse().cum_sum().reverse()
    )
    ends = features.label_aggregate(f"_rndcg_ends{key}", ends_here.sum().cast(pl.Float64))
    features.share_with_rows(weights_name)
    row_weight = weights.list.get(pl.col("pos").cast(pl.Int64) - 1, null_on_oob=True)
    gain = gain_row(features, gains=gains)
    term = pl.col(gain) / pl.col(discount_row(features)) * row_weight.fill_null(0.0)
    weighted = features.aggregate(f"_rndcg_sum{key}", sequential_sum(term))
    ideal_total = _ideal_total(
        features, f"_idcg_positive_total{key}", _ideal_dcg_term(features, gains), gains
    )
    runs_on = features.num_ret().cast(pl.Float64) > count + 1.0
    extra = pl.when(runs_on).then(discounted_gain(features, metric) / ideal_total).otherwise(0.0)
    value = (weighted + extra) / (ends + runs_on.cast(pl.Float64))
    return pl.when(num_relevant(features, metric) > 0).then(value).otherwise(0.0)


@define(
    "ideal_dcg",
    description="DCG of the ideal ranking of the query's labels (nDCG's denominator), gain = "
    "grade or the gain map's.",
    cutoff="optional",
    params=(GAINS,),
    empty_value="labels",
    trec_eval="ideal_dcg",
)
def _ideal_dcg(features: Features, metric: Metric) -> pl.Expr:
    return ideal_discounted_gain(features, metric)
