"""Gain maps of the DCG family: a gain for each grade, as trec_eval's ``ndcg.1=3,2=9``.

``ndcg(gains=1:3;2:9)`` scores a document of grade 1 with gain 3 and one of grade 2 with
gain 9; a grade the map leaves out keeps its own value as gain, and the ideal ranking
orders the labels by their mapped gains (a map may reorder grades), as trec_eval's
``setup_gains`` does. Negative grades (in the pool, unjudged) never gain.
"""

from __future__ import annotations

import polars as pl

from rankset.errors import ParameterError
from rankset.measures._registry import Metric, ParamSpec

__all__ = ["GAINS", "GainMap", "gain_map", "gains_key", "mapped_gain"]

#: A gain map: (grade, gain) pairs, sorted by grade.
GainMap = tuple[tuple[float, float], ...]

GAINS = ParamSpec(
    "gains",
    str,
    "",
    description="gain of each grade, 'grade:gain;...' (trec_eval's ndcg.1=3,2=9); grades "
    "not named gain their own value",
)


def gain_map(metric: Metric) -> GainMap | None:
    """Return the metric's gain map, or None when it has none.

    Examples
    --------
    >>> from rankset.measures import parse_metric
    >>> gain_map(parse_metric("ndcg(gains=2:9;1:3)@10"))
    ((1.0, 3.0), (2.0, 9.0))
    """
    text = str(metric.get("gains") or "") if metric.spec.has_param("gains") else ""
    if not text:
        return None
    pairs: dict[float, float] = {}
    for part in text.split(";"):
        grade, sep, gain = part.partition(":")
        try:
            if not sep:
                raise ValueError
            pairs[float(grade)] = float(gain)
        except ValueError:
            msg = (
                f"{metric.name}: cannot read the gain map {text!r}; expected "
                "'grade:gain;grade:gain' (e.g. gains=1:3;2:9)."
            )
            raise ParameterError(msg) from None
    return tuple(sorted(pairs.items()))


def gains_key(gains: GainMap | None) -> str:
    """Return a column-name suffix for ``gains`` ("" for none)."""
    if gains is None:
        return ""
    return "_g" + "_".join(f"{grade!r}:{gain!r}" for grade, gain in gains)


def mapped_gain(grade: pl.Expr, gains: GainMap | None, *, ideal: bool = False) -> pl.Expr:
    """Return the gain of ``grade`` under ``gains``; 0 for unlabelled and negative grades.

    Without a map the gain is the grade when positive. A map may give a negative gain,
    which trec_eval adds to the ranking's DCG; the ideal (``ideal=True``) keeps only
    positive gains, as trec_eval's ideal stops at the first gain that is not.
    """
    known = grade.fill_null(-1.0)
    if gains is None:
        return pl.when(known > 0).then(known).otherwise(0.0)
    mapping = dict(gains)
    gain = known.replace_strict(
        list(mapping), list(mapping.values()), default=known, return_dtype=pl.Float64
    )
    floor = 0.0 if ideal else None
    kept = gain if floor is None else pl.max_horizontal(gain, pl.lit(floor))
    return pl.when(known < 0).then(0.0).otherwise(kept)
