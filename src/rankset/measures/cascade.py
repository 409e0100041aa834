"""Cascade measures: a reader scans down and stops at the first document that satisfies.

* ``err@k``, expected reciprocal rank (Chapelle et al., 2009) as ``gdeval.pl`` (TREC Web
  track) computes it: a document of grade g satisfies with probability
  ``R(g) = (2^g - 1) / 2^max_grade`` (g clipped to 0..max_grade, ``max_grade`` 4 by
  default as in gdeval), and ``ERR@k = sum over r <= k of R_r / r x prod over i < r of
  (1 - R_i)``. Unlabelled documents never satisfy.

Only labelled rows can have R > 0, so the running product over the rows above is taken
over the labelled rows in rank order; the sum then adds the terms in rank order.

Examples
--------
Grades 0, 1 and 2 at ranks 1-3: R = 0, 1/16 and 3/16, so ERR@3 is
1/16 / 2 + 3/16 x 15/16 / 3.

>>> import rankset
>>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
>>> labels = {"q": {"a": 0, "b": 1, "c": 2}}
>>> res = rankset.evaluate(run, labels, ["err@3"], confidence=None)
>>> round(res.per_query["value"].item(), 6), round(1 / 32 + (3 / 16) * (15 / 16) / 3, 6)
(0.089844, 0.089844)
"""

from __future__ import annotations

import polars as pl

from rankset.measures._features import GROUP, Features, level_key
from rankset.measures._registry import Metric, ParamSpec, define

__all__: list[str] = []

MAX_GRADE = ParamSpec(
    "max_grade",
    float,
    4.0,
    minimum=0.0,
    description="the grade that satisfies for sure (R = (2^g - 1) / 2^max_grade; gdeval: 4)",
)


def _satisfaction_row(features: Features, max_grade: float) -> str:
    """Row column: R(g) = (2^g - 1) / 2^max_grade, g clipped to 0..max_grade."""
    grade = pl.col("grade").fill_null(0.0).clip(0.0, max_grade)
    chance = (pl.lit(2.0).pow(grade) - 1.0) / 2.0**max_grade
    return features.row_column(f"_err_r_{level_key(max_grade)}", chance)


@define(
    "err",
    description="Expected reciprocal rank (gdeval): the reader stops at rank r with chance "
    "R_r = (2^grade - 1) / 2^max_grade; the mean of 1/r over where they stop.",
    cutoff="required",
    params=(MAX_GRADE,),
    ir_measures="ERR",
)
def _err(features: Features, metric: Metric) -> pl.Expr:
    max_grade = float(metric.get("max_grade"))  # type: ignore[arg-type]
    chance = pl.col(_satisfaction_row(features, max_grade))
    # the chance the reader is still reading at this row: the product over the rows above
    going_on = (1.0 - chance).cum_prod().shift(1, fill_value=1.0).over(GROUP, order_by="pos")
    reading = features.row_column(f"_err_reading_{level_key(max_grade)}", going_on)
    term = chance * pl.col(reading) / pl.col("pos").cast(pl.Float64)
    name = f"_err_{level_key(max_grade)}_{features.cutoff_key(metric)}"
    return features.aggregate_within_cutoff(name, term, metric)
