"""How close a ranking's order is to an ideal one: compatibility and pair accuracy.

``pair_accuracy`` (ir_measures' ``Accuracy``) is the share of the (relevant, non-relevant)
pairs within the top k that the ranking orders relevant first; unlabelled documents are
non-relevant, and it is NA when the top k holds no such pair.

Compatibility (Clarke, Vtyurina and Smucker, 2021):

``compat(p=0.95)`` is the rank-biased overlap (RBO) between the ranking and an ideal
ranking of the query's labels with grade > 0 (highest grade first; within a grade, in the
ranking's own order, unretrieved labels last), to the depth of the longer of the two:

    RBO = sum over d = 1..depth of p^(d-1) |R_d ∩ I_d| / d, divided by sum of p^(d-1),

and, with ``normalize=1`` (the default, as ir_measures' ``Compat``), divided by the RBO of
the ideal ranking with itself, so a ranking in ideal order scores 1.

A retrieved relevant document at ranking position r and ideal position i is in both
prefixes from depth m = max(r, i) on, so it adds ``sum over d = m..depth of p^(d-1) / d``:
the sum runs over the relevant retrieved documents, never over depths. Ideal positions
are the labels above the document's grade plus its place among the retrieved documents of
its grade. The tail sums come from one table of ``sum over d < x of p^(d-1) / d`` up to
the largest position of the batch.

Examples
--------
Relevant a (grade 2) and b (grade 1), ranked b, a: depth 2, the ideal is a, b; the
prefixes share nothing at depth 1 and both documents at depth 2.

>>> import rankset
>>> run = {"q": {"b": 2.0, "a": 1.0}}
>>> labels = {"q": {"a": 2, "b": 1}}
>>> res = rankset.evaluate(run, labels, ["compat(p=0.5)", "compat(p=0.5,normalize=0)"],
...                        confidence=None)
>>> raw = (0 + 0.5 * 2 / 2) / (1 + 0.5)
>>> [round(v, 6) for v in res.per_query["value"]], round(raw / 1.0, 6)
([0.333333, 0.333333], 0.333333)
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import polars as pl

from rankset.measures._features import GROUP, Features, level_key, sequential_sum
from rankset.measures._registry import Metric, ParamSpec, define
from rankset.measures.ranking import REL, relevant_retrieved, relevant_row, relevant_so_far_row

__all__: list[str] = []

PERSISTENCE = ParamSpec(
    "p", float, 0.95, minimum=0.0, description="persistence of the overlap's reader (0..1)"
)
NORMALIZE = ParamSpec(
    "normalize",
    int,
    1,
    description="1: divide by the ideal ranking's own overlap (a perfect ranking scores 1)",
    choices=(0, 1),
)
_POSITIVE_GRADES = "_compat_grades"
_RELEVANT_LABELS = "_compat_nrel"


def _tail_table(p: float, largest: int) -> list[float]:
    """``table[x] = sum over d = 1..x-1 of p^(d-1) / d`` for x = 0..largest."""
    table = [0.0, 0.0]
    weight = 1.0
    for depth in range(1, largest):
        table.append(table[-1] + weight / depth)
        weight *= p
    return table[: largest + 1]


def _tail_sums(values: pl.Series, p: float) -> pl.Series:
    """Map each integer x of ``values`` to ``sum over d < x of p^(d-1) / d``."""
    largest = values.max()
    table = pl.Series(_tail_table(p, max(int(largest or 0), 1)), dtype=pl.Float64)  # type: ignore[arg-type]
    return table.gather(values.cast(pl.Int64).fill_null(0))


@functools.cache
def _tail_sums_at(p: float) -> Callable[[pl.Series], pl.Series]:
    # one function object per p, so two metrics' equal expressions compare equal
    return functools.partial(_tail_sums, p=p)


def _harmonic(expr: pl.Expr, p: float) -> pl.Expr:
    return expr.map_batches(_tail_sums_at(p), return_dtype=pl.Float64, is_elementwise=True)


def _compat_positions(features: Features) -> str:
    """Row column: max(ranking position, ideal position) of a relevant row (grade > 0)."""
    positive = pl.col("grade").filter(pl.col("grade") > 0).sort(descending=True)
    features.label_aggregate(_POSITIVE_GRADES, positive)
    features.share_with_rows(_POSITIVE_GRADES)
    grade = pl.col("grade").fill_null(0.0)
    # labels graded above this row's grade: its rank among (its grade, the query's grades)
    with_own = pl.concat_list([grade, pl.col(_POSITIVE_GRADES)])
    above = with_own.list.eval(pl.element().rank("min", descending=True)).list.first() - 1
    within = pl.int_range(1, pl.len() + 1).over([*GROUP, "grade"], order_by="pos")
    ideal = above.cast(pl.Int64) + within
    both = pl.max_horizontal(pl.col("pos").cast(pl.Int64), ideal)
    return features.row_column("_compat_m", pl.when(grade > 0).then(both))


@define(
    "compat",
    description="Compatibility: rank-biased overlap (persistence p) of the ranking with the "
    "ideal ranking of the labels graded > 0, normalised by the ideal's own (ir_measures' Compat).",
    cutoff="none",
    params=(PERSISTENCE, NORMALIZE),
    ir_measures="Compat",
)
def _compat(features: Features, metric: Metric) -> pl.Expr:
    p = float(metric.get("p"))  # type: ignore[arg-type]
    normalize = int(metric.get("normalize"))  # type: ignore[arg-type]
    m = pl.col(_compat_positions(features))
    key = level_key(p)
    found = features.aggregate(f"_compat_n_{key}", m.is_not_null().sum().cast(pl.Float64))
    # a Python function never compares equal to another: one aggregation per metric
    tails = sequential_sum(_harmonic(m.drop_nulls(), p))
    partial = features.aggregate(f"_compat_h_{key}_{normalize}", tails)
    relevant = features.label_aggregate(
        _RELEVANT_LABELS, (pl.col("grade") > 0).sum().cast(pl.Int64)
    )
    depth = pl.max_horizontal(features.num_ret().cast(pl.Int64), relevant)
    to_depth = _harmonic(depth + 1, p)
    overlap = found * to_depth - partial  # sum over the documents of their tail sums
    if normalize:
        # the ideal with itself: every depth up to L shares d documents, then L
        ones = (
            relevant.cast(pl.Float64)
            if p == 1.0
            else (1.0 - pl.lit(p).pow(relevant.cast(pl.Float64))) / (1.0 - p)
        )
        best = ones + relevant.cast(pl.Float64) * (to_depth - _harmonic(relevant + 1, p))
    else:
        best = (
            depth.cast(pl.Float64)
            if p == 1.0
            else (1.0 - pl.lit(p).pow(depth.cast(pl.Float64))) / (1.0 - p)
        )
    return pl.when(best > 0).then(overlap / best).otherwise(0.0)


@define(
    "pair_accuracy",
    description="Share of the (relevant, non-relevant) pairs of the top k ranked relevant "
    "first; unlabelled documents count as non-relevant (ir_measures' Accuracy).",
    cutoff="optional",
    params=(REL,),
    empty_value=None,
    na_rule="no relevant or no non-relevant document is within the cutoff",
    ir_measures="Accuracy",
)
def _pair_accuracy(features: Features, metric: Metric) -> pl.Expr:
    level = features.level(metric)
    rel, so_far = relevant_row(features, level), relevant_so_far_row(features, level)
    # non-relevant documents above each relevant one: its position less the relevant so far
    above = (
        pl.when(pl.col(rel)).then(pl.col("pos").cast(pl.Float64) - pl.col(so_far)).otherwise(0.0)
    )
    name = f"_nonrel_above_{level_key(level)}_{features.cutoff_key(metric)}"
    misordered = features.aggregate_within_cutoff(name, above, metric)
    relevant = relevant_retrieved(features, metric)
    shown = features.num_ret().cast(pl.Float64)
    if features.cutoff(metric) is not None:
        shown = pl.min_horizontal(features.cutoff_value(metric), shown)
    pairs = relevant * (shown - relevant)
    return pl.when(pairs > 0).then(1.0 - misordered / pairs).otherwise(None)
