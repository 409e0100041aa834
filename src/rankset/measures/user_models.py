"""User-model measures of the C/W/L framework (Moffat et al.), as ``cwl_eval`` computes them.

A C/W/L measure describes a reader by ``C(r)``, the chance of going on from rank ``r`` to
``r + 1``. The chance of reaching rank ``r`` is ``P(r) = prod over j < r of C(j)``, the
share of attention rank ``r`` gets is ``W(r) = P(r) / sum over i <= N of P(i)``, and the
measure is the expected gain per document read, ``sum over r <= N of W(r) g(r)``.

Gains are the grades mapped onto 0..1: a negative grade counts as 0, then the grade is
clipped to ``min_rel..max_rel`` and scaled, ``g = (grade - min_rel) / (max_rel -
min_rel)``; an unlabelled document gains 0. The ranking is read to ``N`` = the cutoff
``k`` (``sdcg``, ``bpm``, ``nerr8``, ``nerr9``) or ``depth`` (1,000, as cwl_eval's
``max_n``), and ``W`` is spread over all ``N`` ranks, past the end of a short ranking
too (those ranks gain 0).

========  =====================================================================
measure   C(r), r = 1, 2, ...; G(r) the gain summed over ranks 1..r
========  =====================================================================
sdcg@k    ``log2(r + 1) / log2(r + 2)`` for r < k, then 0: DCG@k with linear gains
          over the DCG of k fully relevant documents ("scaled" DCG)
bpm@k     1 while ``G(r) < target`` and r < k, then 0: the static Bejeweled Player
          Model (Zhang et al., 2017), the mean gain over the ranks read
nerr8@k   ``1 - g(r)`` for r < k (Azzopardi, Mackenzie and Moffat, 2021, eq. 8)
nerr9@k   ``r / (r + 1) x (1 - g(r))`` for r < k (eq. 9)
nerr10    ``p x (1 - g(r))`` (eq. 10, RBP-like)
nerr11    ``((r + 2T - 1) / (r + 2T))^2 x (1 - g(r))`` (eq. 11, INST-like)
insq      ``((r + 2T - 1) / (r + 2T))^2`` (Moffat, Scholer and Thomas, 2012)
inst      ``((r + T + T_r - 1) / (r + T + T_r))^2`` with ``T_r = T - G(r)``
          (Moffat, Bailey, Scholer and Thomas, 2015)
========  =====================================================================

``T`` is the ``target`` parameter, the total gain the reader wants (1 by default).
The reader's chances depend on the gains seen so far, so each (system, query) group walks
its ``N`` ranks (labelled rows placed by position, every other rank gaining 0) inside the
one group-by of the evaluation.

Examples
--------
Grades 2, 0, 1 at ranks 1-3 on a 0..2 scale: gains 1, 0 and 0.5. NERR8@3 stops at rank 1
for sure (C(1) = 1 - 1 = 0), so it scores the first gain, 1; sdcg@3 is
(1 + 0.5 / log2 4) / (1 + 1 / log2 3 + 1 / log2 4).

>>> import math, rankset
>>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
>>> labels = {"q": {"a": 2, "b": 0, "c": 1}}
>>> res = rankset.evaluate(run, labels, ["nerr8(max_rel=2)@3", "sdcg(max_rel=2)@3"],
...                        confidence=None)
>>> [round(v, 6) for v in res.per_query["value"]]
[1.0, 0.586598]
>>> round((1 + 0.5 / 2) / (1 + 1 / math.log2(3) + 1 / 2), 6)
0.586598
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from rankset.errors import ParameterError
from rankset.measures._features import Features, level_key, sequential_sum
from rankset.measures._registry import Metric, ParamSpec, define

__all__ = ["CWL_DEPTH"]

#: How deep cwl_eval reads a ranking (its ``max_n``): the default ``depth``.
CWL_DEPTH = 1000

_MIN_REL = ParamSpec(
    "min_rel", float, 0.0, minimum=None, description="the grade worth no gain (gain 0)"
)
_MAX_REL = ParamSpec(
    "max_rel", float, 1.0, minimum=None, description="the grade worth the full gain (gain 1)"
)
_TARGET = ParamSpec(
    "target", float, 1.0, minimum=0.0, description="T: the total gain the reader wants"
)
_PERSISTENCE = ParamSpec(
    "p", float, 0.9, minimum=0.0, description="persistence: chance of reading on (0..1)"
)
_DEPTH = ParamSpec(
    "depth", int, CWL_DEPTH, minimum=1, description="ranks read (cwl_eval's max_n: 1,000)"
)
_SCALE = (_MIN_REL, _MAX_REL)

# C(r) from the rank r (Float64), the gain at r and the gain summed over ranks 1..r.
Continuation = Callable[[pl.Expr, pl.Expr, pl.Expr], pl.Expr]


def _gain_row(features: Features, metric: Metric) -> str:
    """Row column: the grade mapped onto 0..1 between ``min_rel`` and ``max_rel``."""
    low, high = float(metric.get("min_rel")), float(metric.get("max_rel"))  # type: ignore[arg-type]
    if not low < high:
        msg = f"{metric.name}: min_rel must be below max_rel (got {low:g} and {high:g})."
        raise ParameterError(msg)
    grade = pl.col("grade").fill_null(0.0).clip(lower_bound=0.0).clip(low, high)
    name = f"_cwl_gain_{level_key(low)}_{level_key(high)}"
    return features.row_column(name, (grade - low) / (high - low))


def _expected_gain(
    features: Features, metric: Metric, key: str, continuation: Continuation
) -> pl.Expr:
    """Register the expected gain per document read of the reader ``continuation``.

    The reader reads N ranks: the cutoff k, or ``depth``. ``continuation`` gives C(r) for
    r < N only (C(N) never weighs: W needs the products over j < r).
    """
    if metric.spec.cutoff == "required":
        depth = metric.explicit_cutoff("its reader's chances have no per-query k")
    else:
        depth = int(metric.get("depth"))  # type: ignore[arg-type]
    gain_column = _gain_row(features, metric)
    # every row of the group (a group has one at least); ranks past depth are never seen
    position, gain = pl.col("pos").cast(pl.Int64), pl.col(gain_column)
    rank = pl.int_range(1, depth + 1, dtype=pl.Int64)
    # labelled rows at or above each rank, and the last of them (rows come in rank order)
    seen = position.search_sorted(rank, side="right").cast(pl.Int64)
    last = (seen - 1).clip(lower_bound=0)
    here = (seen > 0) & (position.gather(last) == rank)
    gain_at = pl.when(here).then(gain.gather(last)).otherwise(0.0)
    gain_so_far = pl.when(seen > 0).then(gain.cum_sum().gather(last)).otherwise(0.0)
    going_on = continuation(rank.cast(pl.Float64), gain_at, gain_so_far)
    reached = going_on.cum_prod().shift(1, fill_value=1.0)  # P(r): product over j < r
    read = position <= depth
    term = pl.when(read).then(reached.gather((position - 1).clip(0, depth - 1)) * gain)
    # W(r) = P(r) x (1 / sum P), as cwl_eval scales; the sum of W g over labelled rows
    weighted = sequential_sum(term.otherwise(0.0)) * (1.0 / sequential_sum(reached))
    name = f"_cwl_{key}_{depth}_{gain_column}"
    return features.aggregate(name, weighted.fill_null(0.0))


def _target(metric: Metric) -> float:
    return float(metric.get("target"))  # type: ignore[arg-type]


def _declining(r: pl.Expr, twice_target: float) -> pl.Expr:
    """``((r + 2T - 1) / (r + 2T))^2``, the INSQ reader's chance of going on."""
    return ((r + twice_target - 1.0) / (r + twice_target)).pow(2)


@define(
    "sdcg",
    description="Scaled DCG (C/W/L): DCG@k of gains scaled to 0..1 over the DCG of k fully "
    "relevant documents.",
    cutoff="required",
    params=_SCALE,
    ir_measures="SDCG",
)
def _sdcg(features: Features, metric: Metric) -> pl.Expr:

    def going_on(r: pl.Expr, gain: pl.Expr, so_far: pl.Expr) -> pl.Expr:
        return (r + 1.0).log(2) / (r + 2.0).log(2)

    return _expected_gain(features, metric, "sdcg", going_on)


@define(
    "bpm",
    description="Bejeweled Player Model, static (C/W/L): the mean gain over the ranks read "
    "until the gain reaches target or k ranks are read.",
    cutoff="required",
    params=(_TARGET, *_SCALE),
    ir_measures="BPM",
)
def _bpm(features: Features, metric: Metric) -> pl.Expr:
    target = _target(metric)

    def going_on(r: pl.Expr, gain: pl.Expr, so_far: pl.Expr) -> pl.Expr:
        return (so_far < target).cast(pl.Float64)

    return _expected_gain(features, metric, f"bpm_{level_key(target)}", going_on)


@define(
    "nerr8",
    description="Not-quite ERR, eq. 8 (C/W/L): the reader goes on with chance 1 - gain, "
    "to rank k at most.",
    cutoff="required",
    params=_SCALE,
    ir_measures="NERR8",
)
def _nerr8(features: Features, metric: Metric) -> pl.Expr:

    def going_on(r: pl.Expr, gain: pl.Expr, so_far: pl.Expr) -> pl.Expr:
        return 1.0 - gain

    return _expected_gain(features, metric, "nerr8", going_on)


@define(
    "nerr9",
    description="Not-quite ERR, eq. 9 (C/W/L): the reader goes on with chance "
    "r / (r + 1) x (1 - gain), to rank k at most.",
    cutoff="required",
    params=_SCALE,
    ir_measures="NERR9",
)
def _nerr9(features: Features, metric: Metric) -> pl.Expr:

    def going_on(r: pl.Expr, gain: pl.Expr, so_far: pl.Expr) -> pl.Expr:
        return r / (r + 1.0) * (1.0 - gain)

    return _expected_gain(features, metric, "nerr9", going_on)


@define(
    "nerr10",
    description="Not-quite ERR, eq. 10 (C/W/L): the reader goes on with chance p x (1 - gain).",
    cutoff="none",
    params=(_PERSISTENCE, *_SCALE, _DEPTH),
    ir_measures="NERR10",
)
def _nerr10(features: Features, metric: Metric) -> pl.Expr:
    p = float(metric.get("p"))  # type: ignore[arg-type]

    def going_on(r: pl.Expr, gain: pl.Expr, so_far: pl.Expr) -> pl.Expr:
        return p * (1.0 - gain)

    return _expected_gain(features, metric, f"nerr10_{level_key(p)}", going_on)


@define(
    "nerr11",
    description="Not-quite ERR, eq. 11 (C/W/L): INSQ's chance of going on times 1 - gain.",
    cutoff="none",
    params=(_TARGET, *_SCALE, _DEPTH),
    ir_measures="NERR11",
)
def _nerr11(features: Features, metric: Metric) -> pl.Expr:
    target = _target(metric)

    def going_on(r: pl.Expr, gain: pl.Expr, so_far: pl.Expr) -> pl.Expr:
        return _declining(r, 2.0 * target) * (1.0 - gain)

    return _expected_gain(features, metric, f"nerr11_{level_key(target)}", going_on)


@define(
    "insq",
    description="INSQ (C/W/L): the reader goes on with chance ((r + 2T - 1) / (r + 2T))^2, "
    "T = target.",
    cutoff="none",
    params=(_TARGET, *_SCALE, _DEPTH),
    ir_measures="INSQ",
)
def _insq(features: Features, metric: Metric) -> pl.Expr:
    target = _target(metric)

    def going_on(r: pl.Expr, gain: pl.Expr, so_far: pl.Expr) -> pl.Expr:
        return _declining(r, 2.0 * target)

    return _expected_gain(features, metric, f"insq_{level_key(target)}", going_on)


@define(
    "inst",
    description="INST (C/W/L): INSQ whose target shrinks by the gain seen, "
    "C = ((r + T + T_r - 1) / (r + T + T_r))^2 with T_r = T - gain so far.",
    cutoff="none",
    params=(_TARGET, *_SCALE, _DEPTH),
    ir_measures="INST",
)
def _inst(features: Features, metric: Metric) -> pl.Expr:
    target = _target(metric)

    def going_on(r: pl.Expr, gain: pl.Expr, so_far: pl.Expr) -> pl.Expr:
        left = target - so_far
        return ((r + target + left - 1.0) / (r + target + left)).pow(2)

    return _expected_gain(features, metric, f"inst_{level_key(target)}", going_on)
