"""trec_eval's interpolated-precision measures and precision at multiples of R.

Formulas and zero rules of trec_eval 10.0 (``m_iprec_at_recall.c``, ``m_11pt_avg.c``,
``m_Rprec_mult.c``), with ``R`` the number of relevant labels of the query:

* ``iprec_at_recall(recall=r)``: interpolated precision at recall ``r``, the highest
  precision at any position at or after the ``c``-th relevant document retrieved, with
  ``c = round(r R)`` (half away from zero, 10.0's ``lround``; ``rounding=v9``: 9.0.8's
  and pytrec_eval's ``trunc(r R + 0.9)``); at ``c = 0`` the
  highest precision anywhere; 0 when fewer than ``c`` relevant documents were retrieved;
* ``iprec_avg`` (trec_eval's ``11pt_avg``): the mean of the eleven values at recall 0,
  0.1, ..., 1, added from recall 1 down as trec_eval adds them;
* ``rprec_mult(mult=m)``: precision at ``c = trunc(m R + 0.9)`` documents, i.e. relevant
  documents in the top ``c`` over ``c`` (a ranking shorter than ``c`` counts its end as
  non-relevant); 0 when ``c`` is 0.

Interpolated precision is a running maximum from the bottom of the ranking up; only
positions holding a relevant document can set it, so it is a reverse cumulative maximum
over the labelled rows.

Examples
--------
Relevant documents at positions 2 and 4 of 4 relevant labels: precision 0.5 at both, so
interpolated precision is 0.5 up to the second relevant document (recall 0.5, and 0.6,
which rounds to 2 of 4) and 0 beyond; the 11-point average is 7 x 0.5 / 11.

>>> import rankset
>>> run = {"q1": {"d1": 5.0, "d2": 4.0, "d3": 3.0, "d4": 2.0}}
>>> labels = {"q1": {"d2": 1, "d4": 1, "d9": 1, "d7": 1}}
>>> names = ["iprec_at_recall(recall=0.5)", "iprec_at_recall(recall=0.75)", "11pt_avg"]
>>> res = rankset.evaluate(run, labels, names, confidence=None)
>>> res.per_query.select("metric", "value").rows()  # doctest: +NORMALIZE_WHITESPACE
[('iprec_at_recall(recall=0.5)', 0.5), ('iprec_at_recall(recall=0.75)', 0.0),
 ('iprec_avg', 0.3181818181818182)]
"""

from __future__ import annotations

import polars as pl

from rankset.errors import ParameterError
from rankset.measures._features import GROUP, Features, level_key, ratio_or_zero
from rankset.measures._registry import Metric, ParamSpec, define
from rankset.measures.ranking import (
    REL,
    num_relevant_on_rows,
    relevant_row,
    relevant_so_far_row,
)

__all__ = ["ELEVEN_POINTS", "interpolated_precision_at"]

#: The recall points of trec_eval's 11-point average and default iprec_at_recall table.
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

RECALL = ParamSpec(
    "recall", float, 0.0, minimum=0.0, description="recall level, 0..1 (trec_eval's cutoff)"
)
MULT = ParamSpec("mult", float, 1.0, minimum=0.0, description="multiple of R (relevant labels)")
POINTS = ParamSpec(
    "points",
    str,
    "",
    description="recall levels to average instead of the eleven, 'r;r;...' (trec_eval's "
    "11pt_avg.0.2,0.5)",
)
ROUNDING = ParamSpec(
    "rounding",
    str,
    "lround",
    description="recall x R to a count of relevant documents: lround (trec_eval 10.0) or v9 "
    "(9.0.8 and pytrec_eval: trunc(x R + 0.9))",
    choices=("lround", "v9"),
)


def _interpolated_row(features: Features, level: float) -> str:
    """Row column: the highest precision at this relevant position or below it."""
    rel = relevant_row(features, level)
    cumrel = relevant_so_far_row(features, level)
    precision = pl.col(cumrel).cast(pl.Float64) / pl.col("pos").cast(pl.Float64)
    here = pl.when(pl.col(rel)).then(precision).otherwise(0.0)
    name = f"_iprec_{level_key(level)}"
    return features.row_column(name, here.cum_max(reverse=True).over(GROUP, order_by="pos"))


def interpolated_precision_at(
    features: Features, level: float, recall: float, rounding: str = "lround"
) -> pl.Expr:
    """Interpolated precision at ``recall``, its cutoff rounded as trec_eval 10.0 or 9.0.8."""
    rel = relevant_row(features, level)
    cumrel = relevant_so_far_row(features, level)
    iprec = _interpolated_row(features, level)
    relevant = num_relevant_on_rows(features, level)
    if rounding == "v9":
        wanted = (pl.lit(recall) * relevant + 0.9).floor()  # 9.0.8: (long) (r * R + 0.9)
    else:
        wanted = (pl.lit(recall) * relevant).round(0, mode="half_away_from_zero")
    # c = 0 reads the first relevant position: the highest precision of the ranking.
    target = pl.max_horizontal(wanted, pl.lit(1.0))
    at_target = pl.col(rel) & (pl.col(cumrel).cast(pl.Float64) == target)
    name = f"_iprec_{level_key(level)}_at_{level_key(recall)}_{rounding}"
    return features.aggregate(name, pl.col(iprec).filter(at_target).max()).fill_null(0.0)


@define(
    "iprec_at_recall",
    description="Interpolated precision at a recall level: the best precision at or after the "
    "point where that share of the relevant labels is retrieved.",
    cutoff="none",
    params=(RECALL, REL, ROUNDING),
    trec_eval="iprec_at_recall",
    ir_measures="IPrec",
)
def _iprec_at_recall(features: Features, metric: Metric) -> pl.Expr:
    recall = float(metric.get("recall"))  # type: ignore[arg-type]
    rounding = str(metric.get("rounding"))
    return interpolated_precision_at(features, features.level(metric), recall, rounding)


@define(
    "iprec_avg",
    description="Interpolated precision averaged over the 11 recall levels 0, 0.1, ..., 1 "
    "(trec_eval's 11pt_avg).",
    cutoff="none",
    params=(REL, ROUNDING, POINTS),
    aliases=("11pt_avg", "11-pt_avg"),
)
def _iprec_avg(features: Features, metric: Metric) -> pl.Expr:
    level = features.level(metric)
    rounding = str(metric.get("rounding"))
    points = _recall_points(metric)
    total = pl.lit(0.0)
    for recall in reversed(points):  # trec_eval adds from the top recall down
        total = total + interpolated_precision_at(features, level, recall, rounding)
    return total / float(len(points))


def _recall_points(metric: Metric) -> tuple[float, ...]:
    """Return the recall levels averaged: ``points=0.2;0.5`` (sorted), else the eleven."""
    text = str(metric.get("points") or "")
    if not text:
        return ELEVEN_POINTS
    try:
        points = sorted(float(part) for part in text.split(";"))
    except ValueError:
        points = []
    if not points or not all(0.0 <= point <= 1.0 for point in points):
        msg = (
            f"{metric.name}: cannot read the recall points {text!r}; expected levels "
            "between 0 and 1 separated by ';' (e.g. points=0.2;0.5)."
        )
        raise ParameterError(msg)
    return tuple(points)


@define(
    "rprec_mult",
    description="Precision at a multiple of R: relevant documents in the top trunc(mult R + "
    "0.9) over that many.",
    cutoff="none",
    params=(MULT, REL),
    trec_eval="Rprec_mult",
)
def _rprec_mult(features: Features, metric: Metric) -> pl.Expr:
    mult = float(metric.get("mult"))  # type: ignore[arg-type]
    level = features.level(metric)
    rel = relevant_row(features, level)
    depth = (pl.lit(mult) * num_relevant_on_rows(features, level) + 0.9).floor()
    key = f"{level_key(level)}_{level_key(mult)}"
    found = features.aggregate(
        f"_relret_rmult_{key}", (pl.col(rel) & (pl.col("pos") <= depth)).sum()
    )
    cutoff = features.aggregate(f"_rmult_depth_{key}", depth.first())
    return ratio_or_zero(found.cast(pl.Float64), cutoff)
