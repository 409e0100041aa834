"""Measures for incomplete labels and trec_eval's gain-based extras.

Formulas and zero rules of trec_eval 10.0 (``m_infap.c``, ``m_unjudged.c``,
``m_rbp.c``, ``m_rbp_resid.c``, ``m_binG.c``, ``m_utility.c``). A label with a negative
grade means "in the pool but not judged"; a document without a label is outside the pool.

* ``infap``: inferred AP (Yilmaz and Aslam, CIKM 2006): at each relevant document at
  0-based rank ``j > 0``, ``1/(j+1) + j/(j+1) · (L/j) · (r + ε)/(r + n + 2ε)`` with ``L``
  the labelled documents above, ``r`` and ``n`` the relevant and judged non-relevant
  ones above and ε = 0.00001 (1 at rank 0), summed and divided by the relevant labels;
* ``unj@k``: the share of the top k that is unjudged (unlabelled or negative grade),
  over k; positions past the end of a shorter ranking count as judged, as in 10.0;
* ``rbp(p=0.9)``: rank-biased precision (Moffat and Zobel), ``(1 - p) Σ gain · p^(rank-1)``
  with gain = grade, divided by the query's highest grade when that exceeds 1 (trec_eval
  maps the gains onto [0, 1]);
* ``rbp_resid(p=0.9)``: RBP's residual, the weight the unjudged documents and the
  positions past the end could add: ``p^n + (1 - p) Σ_unjudged p^(rank-1)`` for a
  ranking of n documents, 0 when every retrieved document is judged;
* ``bing``: trec_eval's binG, each relevant document worth ``1 / log2(2 + non-relevant
  documents above it)``, summed over the relevant labels;
* ``yaap``: Robertson's "yet another AP" (ECIR 2012), ``ln((1 + S) / (1 + R - S))`` with
  ``S`` AP's sum of precisions at the relevant documents and ``R`` the relevant labels
  (trec_eval's ``m_yaap.c``); negative below AP 1/2, and ``ln(1 / (1 + R))`` for a query
  the system did not answer;
* ``utility(a, b, c, d, n_docs)``: ``a·relret + b·nonrel_ret + c·rel_not_ret +
  d·nonrel_not_ret`` (counts over the whole ranking; the last needs the collection size).

Examples
--------
>>> import rankset
>>> run = {"q1": {"a": 4.0, "b": 3.0, "x": 2.0, "d": 1.0}}
>>> labels = {"q1": {"a": 2, "b": 1, "c": 0, "d": -1}}
>>> res = rankset.evaluate(run, labels, ["unj@5", "rbp_resid", "infap"], confidence=None)
>>> res.per_query.select("metric", "value").with_columns(pl.col("value").round(4)).rows()
[('unj@5', 0.4), ('rbp_resid', 0.81), ('infap', 1.0)]
"""

from __future__ import annotations

import functools

import polars as pl

from rankset.measures._features import (
    GROUP,
    NUM_RET,
    Features,
    level_key,
    log2_of_positions,
    ratio_or_zero,
    sequential_sum,
)
from rankset.measures._registry import Metric, ParamSpec, define
from rankset.measures.ranking import (
    REL,
    judged_retrieved,
    judged_row,
    nonrelevant_above_row,
    num_relevant,
    precision_sum,
    relevant_retrieved,
    relevant_row,
    relevant_so_far_row,
)

__all__ = ["INFAP_EPSILON", "power_of_positions"]

#: trec_eval's smoothing constant of inferred AP.
INFAP_EPSILON = 0.00001

PERSISTENCE = ParamSpec(
    "p", float, 0.9, minimum=0.0, description="persistence: chance of reading on (0..1)"
)


@functools.cache
def power_of_positions(position: str, p: float, *, cumulative: bool = False) -> pl.Expr:
    """``p^(position - 1)`` of a column, as a C loop multiplying by ``p`` reaches it.

    With ``cumulative``, the loop's running sum ``Σ_{i < position} p^i`` instead (a
    position of 0 gives 1 and 0). Tabulated once per batch up to the largest position.

    Examples
    --------
    >>> frame = pl.DataFrame({"pos": [1, 2, 3]})
    >>> frame.select(power_of_positions("pos", 0.5))["pos"].to_list()
    [1.0, 0.5, 0.25]
    """
    return pl.col(position).map_batches(
        functools.partial(_powers, p=p, cumulative=cumulative),
        return_dtype=pl.Float64,
        is_elementwise=True,
    )


def _powers(positions: pl.Series, *, p: float, cumulative: bool) -> pl.Series:
    top = int(positions.max() or 0)  # type: ignore[arg-type]
    powers, sums = [1.0], [0.0]
    for _ in range(max(top, 1)):
        sums.append(sums[-1] + powers[-1])
        powers.append(powers[-1] * p)
    table = pl.Series(sums if cumulative else [1.0, *powers[:-1]], dtype=pl.Float64)
    index = positions.cast(pl.Int64).clip(0, top)
    return table.gather(index) if cumulative else table.gather(index.clip(1, None))


def _persistence(metric: Metric) -> float:
    return float(metric.get("p"))  # type: ignore[arg-type]


@define(
    "infap",
    description="Inferred AP: AP estimated from a random sample of the pool being judged "
    "(negative grades: pooled but not judged).",
    cutoff="none",
    params=(REL,),
    trec_eval="infAP",
    ir_measures="infAP",
)
def _infap(features: Features, metric: Metric) -> pl.Expr:
    level = features.level(metric)
    rel = relevant_row(features, level)
    cumrel = relevant_so_far_row(features, level)
    nonrel = nonrelevant_above_row(features, level)
    labelled = features.row_column(
        "_labelled_to_here", pl.col("pos").rank("ordinal").over(GROUP).cast(pl.Float64)
    )
    j = pl.col("pos").cast(pl.Float64) - 1.0
    rel_above = pl.col(cumrel).cast(pl.Float64) - 1.0
    judged_above = rel_above + pl.col(nonrel).cast(pl.Float64)
    estimate = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((pl.col(labelled) - 1.0) / j) * (
        (rel_above + INFAP_EPSILON) / (judged_above + 2 * INFAP_EPSILON)
    )
    term = pl.when(j == 0.0).then(1.0).otherwise(estimate)
    name = f"_infap_{level_key(level)}"
    total = features.aggregate(name, sequential_sum(term.filter(pl.col(rel))))
    return ratio_or_zero(total, num_relevant(features, metric))


@define(
    "unj",
    description="Share of the top k without a judgement (unlabelled or negative grade); a "
    "ranking shorter than k counts its end as judged.",
    cutoff="required",
    greater_is_better=False,
    trec_eval="unj_{k}",
)
def _unj(features: Features, metric: Metric) -> pl.Expr:
    k = features.cutoff_value(metric)
    shown = pl.min_horizontal(k, features.num_ret().cast(pl.Float64))
    return (shown - judged_retrieved(features, metric).cast(pl.Float64)) / k


def _rbp_gain_row(features: Features) -> str:
    features.label_aggregate("_max_grade", pl.col("grade").max().cast(pl.Float64))
    features.share_with_rows("_max_grade")
    grade = pl.col("grade").fill_null(0.0).clip(0.0, None)
    scale = pl.max_horizontal(pl.col("_max_grade"), pl.lit(1.0))
    return features.row_column("_rbp_gain", grade / scale)


@define(
    "rbp",
    description="Rank-biased precision: (1 - p) × the gains discounted by p^(rank - 1) (gains "
    "scaled to 0..1 by the query's highest grade).",
    cutoff="none",
    params=(PERSISTENCE,),
    trec_eval="rbp",
    ir_measures="RBP",
)
def _rbp(features: Features, metric: Metric) -> pl.Expr:
    p = _persistence(metric)
    gain = _rbp_gain_row(features)
    weight = power_of_positions("pos", p)
    name = f"_rbp_{level_key(p)}"
    return (1.0 - p) * features.aggregate(name, sequential_sum(pl.col(gain) * weight))


@define(
    "rbp_resid",
    description="RBP's residual: the weight unjudged documents and the positions past the end "
    "could add (0 when every retrieved document is judged).",
    cutoff="none",
    params=(PERSISTENCE,),
    greater_is_better=False,
    trec_eval="rbp_resid",
)
def _rbp_resid(features: Features, metric: Metric) -> pl.Expr:
    p = _persistence(metric)
    judged = judged_row(features)
    weight = power_of_positions("pos", p)
    name = f"_rbp_judged_weight_{level_key(p)}"
    judged_weight = features.aggregate(name, sequential_sum(weight.filter(pl.col(judged))))
    retrieved = features.num_ret()
    everything = power_of_positions(NUM_RET, p, cumulative=True)
    beyond = power_of_positions(NUM_RET, p) * p  # the loop's p^n, one product further
    unjudged = retrieved.cast(pl.Float64) - judged_retrieved(features, metric).cast(pl.Float64)
    residual = beyond + (1.0 - p) * (everything - judged_weight)
    return pl.when(unjudged > 0).then(residual).otherwise(0.0)


BINARY_PERSISTENCE = ParamSpec(
    "p", float, 0.8, minimum=0.0, description="persistence: chance of reading on (0..1)"
)


@define(
    "rbp_binary",
    description="Rank-biased precision with binary relevance (grade >= rel): (1 - p) × the "
    "relevant documents discounted by p^(rank - 1) (Moffat and Zobel; ir_measures' RBP).",
    cutoff="none",
    params=(BINARY_PERSISTENCE, REL),
)
def _rbp_binary(features: Features, metric: Metric) -> pl.Expr:
    p = _persistence(metric)
    level = features.level(metric)
    rel = relevant_row(features, level)
    weight = power_of_positions("pos", p)
    name = f"_rbp_binary_{level_key(p)}_{level_key(level)}"
    return (1.0 - p) * features.aggregate(name, sequential_sum(weight.filter(pl.col(rel))))


@define(
    "bing",
    description="trec_eval's binG: each relevant document worth 1 / log2(2 + non-relevant "
    "documents above it), over the relevant labels.",
    cutoff="none",
    params=(REL,),
    trec_eval="binG",
)
def _bing(features: Features, metric: Metric) -> pl.Expr:
    level = features.level(metric)
    rel = relevant_row(features, level)
    cumrel = relevant_so_far_row(features, level)
    skipped = features.row_column(
        f"_skipped_plus1_{level_key(level)}", pl.col("pos") - pl.col(cumrel).cast(pl.Int64) + 1
    )
    discount = features.row_column(f"_bing_discount_{level_key(level)}", log2_of_positions(skipped))
    name = f"_bing_{level_key(level)}"
    total = features.aggregate(name, sequential_sum((1.0 / pl.col(discount)).filter(pl.col(rel))))
    return ratio_or_zero(total, num_relevant(features, metric))


_COEFFICIENTS = (
    ParamSpec("a", float, 1.0, minimum=None, description="worth of a relevant retrieved"),
    ParamSpec("b", float, -1.0, minimum=None, description="worth of a non-relevant retrieved"),
    ParamSpec("c", float, 0.0, minimum=None, description="worth of a relevant not retrieved"),
    ParamSpec("d", float, 0.0, minimum=None, description="worth of a non-relevant not retrieved"),
    ParamSpec("n_docs", int, 0, minimum=0, description="documents in the collection (for d)"),
)


@define(
    "utility",
    description="Linear utility of the retrieved set: a·relevant retrieved + b·non-relevant "
    "retrieved + c·relevant missed + d·non-relevant not retrieved.",
    cutoff="none",
    params=(*_COEFFICIENTS, REL),
    trec_eval="utility",
)
def _utility(features: Features, metric: Metric) -> pl.Expr:
    a, b, c, d = (float(metric.get(name)) for name in "abcd")  # type: ignore[arg-type]
    n_docs = float(metric.get("n_docs"))  # type: ignore[arg-type]
    found = relevant_retrieved(features, metric).cast(pl.Float64)
    retrieved = features.num_ret().cast(pl.Float64)
    relevant = num_relevant(features, metric)
    return (
        pl.lit(a) * found
        + pl.lit(b) * (retrieved - found)
        + pl.lit(c) * (relevant - found)
        + pl.lit(d) * (n_docs + found - retrieved - relevant)
    )


@define(
    "yaap",
    description="Yet another AP (Robertson): ln((1 + S) / (1 + R - S)), S the sum of precisions "
    "at the relevant documents (AP x R), R the relevant labels.",
    cutoff="none",
    params=(REL,),
    empty_value="nothing retrieved",
    trec_eval="yaap",
)
def _yaap(features: Features, metric: Metric) -> pl.Expr:
    found = precision_sum(features, metric)
    return ((1.0 + found) / (1.0 + num_relevant(features, metric) - found)).log()
