"""Fusion methods and score normalisations, as Polars expressions over a long frame.

Every input run becomes rows ``run, weight, query_id, doc_id, score, pos`` (``pos``: the
1-based position under the evaluation's ordering rule, score descending, ties by doc id
descending); a normalisation adds ``value`` per (run, query); a method is one
aggregation per (query, doc) over the runs that contain the document. A document missing
from a run contributes nothing unless the method says otherwise (Borda). The formulas
are ranx's (Bassani, 2022), with the positions of rankset's tie rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import polars as pl

from rankset._typing import Norm, choices_of

__all__ = [
    "METHODS",
    "NORMS",
    "FusionMethod",
    "Norm",
    "fused_scores",
    "normalised",
]

#: Score normalisations (applied per run and query before a score-based method).
NORMS: tuple[str, ...] = choices_of(Norm)

# Denominators below this are replaced by it (ranx's guard against division by zero).
_EPS = 1e-9

_score = pl.col("score")
_pos = pl.col("pos").cast(pl.Float64)
_value = pl.col("value")
_weight = pl.col("weight")
_count = pl.len().cast(pl.Float64)  # runs that contain the document
_per_list = ("run", "query_id")


def normalised(norm: Norm) -> pl.Expr:
    """Return the normalised score of a row, per (run, query), as ``value``.

    ``min-max``: (s - min) / (max - min); ``min-max-inverted``: (max - s) / (max - min),
    for scores where lower is better (distances); ``max``: s / max; ``sum``: (s - min) /
    sum(s - min); ``zmuv``: (s - mean) / std (population); ``rank``: 1 - (pos - 1) / n;
    ``none``: the score. A zero (or negative, for ``max``) denominator is replaced by
    1e-9, so a list of equal scores normalises to 0. ``borda`` is computed with all the
    runs (:func:`fusion_expression`).

    Examples
    --------
    >>> frame = pl.DataFrame({"run": 0, "query_id": "q", "score": [3.0, 2.0, 1.0],
    ...                       "pos": [1, 2, 3]})
    >>> frame.select(normalised("min-max"))["value"].to_list()
    [1.0, 0.5, 0.0]
    """
    low, high = _score.min().over(_per_list), _score.max().over(_per_list)
    n = pl.len().over(_per_list).cast(pl.Float64)
    expressions: dict[str, pl.Expr] = {
        "min-max": (_score - low) / pl.max_horizontal(high - low, pl.lit(_EPS)),
        "min-max-inverted": (high - _score) / pl.max_horizontal(high - low, pl.lit(_EPS)),
        "max": _score / pl.max_horizontal(high, pl.lit(_EPS)),
        "sum": (_score - low)
        / pl.max_horizontal((_score - low).sum().over(_per_list), pl.lit(_EPS)),
        "zmuv": (_score - _score.mean().over(_per_list))
        / pl.max_horizontal(_score.std(ddof=0).over(_per_list), pl.lit(_EPS)),
        "rank": 1.0 - (_pos - 1.0) / n,
        "none": _score,
        "borda": _score,  # replaced by the Borda points in fusion_expression
    }
    return expressions[norm].cast(pl.Float64).alias("value")


@dataclass(frozen=True)
class Parts:
    """A method as Polars can run it fast: row terms, simple aggregations, a final formula.

    ``terms`` are computed on every row (elementwise), ``aggregations`` per (query, doc)
    are plain sums, counts, means, minima... (Polars' fast path), and ``final`` combines
    the aggregated columns into the fused score.
    """

    terms: Mapping[str, pl.Expr]
    aggregations: Mapping[str, pl.Expr]
    final: pl.Expr


@dataclass(frozen=True)
class FusionMethod:
    """A fusion method: what it reads, its parameters with defaults, how it is computed."""

    name: str
    description: str
    uses_scores: bool  # normalised scores; otherwise positions only
    params: Mapping[str, float | None]  # parameter -> default (None: required)
    # Parameters come as row expressions: literals in fuse, the configuration's columns in
    # optimize_fusion.
    parts: Callable[[Mapping[str, pl.Expr]], Parts]
    # Trained on labelled queries (rankset.fusion._trained adds each row's value, _t).
    trained: bool = False


_s, _n, _p = pl.col("_s"), pl.col("_n"), pl.col("_p")


def _borda_points() -> pl.Expr:
    # In a run: N - pos + 1 points; missing from a run: (N - n_r + 1) / 2, where N is the
    # number of candidates of the query and n_r the length of that run's list. The
    # missing points are added per query (all runs) and taken back for present runs.
    return pl.col("_n_candidates") - _pos + 1.0 - pl.col("_missing_points")


def _summed(term: pl.Expr, final: pl.Expr = _s, **more: pl.Expr) -> Parts:
    return Parts({"_t": term}, {"_s": pl.col("_t").sum(), **more}, final)


def _isr(final: pl.Expr, **more: pl.Expr) -> Parts:
    return _summed(1.0 / _pos.pow(2), final, _n=pl.len().cast(pl.Float64), **more)


_METHODS = [
    FusionMethod(
        "combsum",
        "Sum of the normalised scores.",
        True,
        {},
        lambda p: Parts({}, {"_s": _value.sum()}, _s),
    ),
    FusionMethod(
        "combmnz",
        "Sum of the normalised scores times the number of runs that contain the document.",
        True,
        {},
        lambda p: Parts({}, {"_s": _value.sum(), "_n": _count}, _s * _n),
    ),
    FusionMethod(
        "combgmnz",
        "CombMNZ with the count raised to gamma.",
        True,
        {"gamma": None},
        lambda p: Parts(
            {"_g": p["gamma"]},
            {"_s": _value.sum(), "_n": _count, "_p": pl.col("_g").first()},
            _s * _n.pow(_p),
        ),
    ),
    FusionMethod(
        "combanz",
        "Mean normalised score over the runs that contain the document.",
        True,
        {},
        lambda p: Parts({}, {"_s": _value.mean()}, _s),
    ),
    FusionMethod(
        "combmax",
        "Largest normalised score.",
        True,
        {},
        lambda p: Parts({}, {"_s": _value.max()}, _s),
    ),
    FusionMethod(
        "combmin",
        "Smallest normalised score.",
        True,
        {},
        lambda p: Parts({}, {"_s": _value.min()}, _s),
    ),
    FusionMethod(
        "combmed",
        "Median normalised score.",
        True,
        {},
        lambda p: Parts({}, {"_s": _value.median()}, _s),
    ),
    FusionMethod(
        "wsum",
        "Weighted sum of the normalised scores.",
        True,
        {},
        lambda p: _summed(_weight * _value),
    ),
    FusionMethod(
        "wmnz",
        "Sum of the normalised scores times the sum of the weights of the runs that "
        "contain the document.",
        True,
        {},
        lambda p: Parts({}, {"_s": _value.sum(), "_w": _weight.sum()}, _s * pl.col("_w")),
    ),
    FusionMethod(
        "mixed",
        "Weighted sum of the normalised scores times the square root of the count.",
        True,
        {},
        lambda p: _summed(_weight * _value, _s * _n.sqrt(), _n=_count),
    ),
    FusionMethod(
        "rrf",
        "Reciprocal rank fusion: sum of weight / (k + position).",
        False,
        {"k": 60.0},
        lambda p: _summed(_weight / (p["k"] + _pos)),
    ),
    FusionMethod(
        "isr",
        "Inverse square rank: sum of 1 / position^2 times the count.",
        False,
        {},
        lambda p: _isr(_s * _n),
    ),
    FusionMethod(
        "log_isr",
        "Sum of 1 / position^2 times ln(count) (0 for a document one run found).",
        False,
        {},
        lambda p: _isr(_s * _n.log()),
    ),
    FusionMethod(
        "logn_isr",
        "Sum of 1 / position^2 times ln(count + sigma).",
        False,
        {"sigma": 0.01},
        lambda p: Parts(
            {"_t": 1.0 / _pos.pow(2), "_g": p["sigma"]},
            {"_s": pl.col("_t").sum(), "_n": _count, "_p": pl.col("_g").first()},
            _s * (_n + _p).log(),
        ),
    ),
    FusionMethod(
        "rbc",
        "Rank-biased centroid: sum of weight * (1 - phi) * phi^(position - 1).",
        False,
        {"phi": None},
        lambda p: _summed(_weight * (1.0 - p["phi"]) * p["phi"].pow(_pos - 1.0)),
    ),
    FusionMethod(
        "borda",
        "Borda count: N - position + 1 points per run, (N - n + 1) / 2 where missing.",
        False,
        {},
        lambda p: _summed(
            _weight * _borda_points(),
            _s + pl.col("_m"),
            _m=pl.col("_all_missing_points").first(),
        ),
    ),
]

_TRAINED_SUM = Parts({}, {"_s": pl.col("_t").sum()}, _s)
_METHODS += [
    FusionMethod(
        "posfuse",
        "Sum of the share of training queries relevant at each position.",
        False,
        {},
        lambda p: _TRAINED_SUM,
        trained=True,
    ),
    FusionMethod(
        "probfuse",
        "Sum of each segment's relevant share over its number (segments).",
        False,
        {"segments": None},
        lambda p: _TRAINED_SUM,
        trained=True,
    ),
    FusionMethod(
        "segfuse",
        "Sum of segment relevance times (normalised score + 1).",
        True,
        {},
        lambda p: _TRAINED_SUM,
        trained=True,
    ),
    FusionMethod(
        "slidefuse",
        "Sum of PosFuse's shares averaged over a window of w positions.",
        False,
        {"w": None},
        lambda p: _TRAINED_SUM,
        trained=True,
    ),
    FusionMethod(
        "mapfuse",
        "Sum of each run's training MAP over the position.",
        False,
        {},
        lambda p: _TRAINED_SUM,
        trained=True,
    ),
    FusionMethod(
        "bayesfuse",
        "Sum over every run of the log-odds of relevance at the position.",
        False,
        {},
        lambda p: Parts(
            {}, {"_s": pl.col("_t").sum(), "_m": pl.col("_m").first()}, _s + pl.col("_m")
        ),
        trained=True,
    ),
]

#: Every method, by name.
METHODS: dict[str, FusionMethod] = {method.name: method for method in _METHODS}
#: ranx's names for the same methods.
ALIASES: dict[str, str] = {
    "sum": "combsum",
    "mnz": "combmnz",
    "gmnz": "combgmnz",
    "anz": "combanz",
    "max": "combmax",
    "min": "combmin",
    "med": "combmed",
    "bordafuse": "borda",
    "w_bordafuse": "borda",
}


def fused_scores(
    rows: pl.LazyFrame, method: FusionMethod, params: Mapping[str, pl.Expr], keys: list[str]
) -> pl.LazyFrame:
    """Return ``*keys, score``: the method over ``rows`` grouped by ``keys``."""
    parts = method.parts(params)
    with_terms = rows.with_columns(**parts.terms) if parts.terms else rows
    return (
        with_terms.group_by(keys)
        .agg(**parts.aggregations)
        .select(*keys, parts.final.cast(pl.Float64).alias("score"))
    )
