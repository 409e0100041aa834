"""A small human budget: which pairs to judge, and what the mix of labels then says.

With an LLM judge's grade on every pooled pair and money for people to judge a share of
them, three questions follow. Which pairs (:func:`plan_judging`)? What are the systems'
means once the human grades are in (:func:`estimate_means`)? And which plan would have
done best, replayed against complete human labels (:func:`simulate_budget`)?

Plans (:data:`PLANS`):

- ``random``: in each query a random share of its pairs (rounded, at least one). The
  other pairs keep the judge's raw grade: the plain mix the field reports.
- ``stratified``: the same number of pairs from each of the judge's grades (capped at a
  grade's size), so rare grades are calibrated as well as common ones.
- ``uncertainty``: a pilot (a quarter of the budget, drawn as ``random``) calibrates the
  judge; the rest goes to pairs in proportion to the spread of the human grade at the
  judge's grade.
- ``lara``: as ``uncertainty`` but in proportion to ``sqrt(p(1 - p))``, ``p`` the
  calibrated chance that the pair is relevant: the probability-driven choice of LARA
  (Takehi et al., 2025).
- ``influence``: after the pilot, in proportion to how much a pair can move the runs'
  measures (the rank discounts of the positions it holds in every run's top ``k``, as in
  :func:`rankset.label_quality.judging_queue`) times the spread of its human grade, with a
  floor so that every pair can be drawn.

Every plan gives each pair a known inclusion probability ``pi`` (for two-phase plans,
given the pilot: its own pairs are then known exactly, ``pi = 1``). Besides the judged
pairs' human grades, the other pairs take the judge's grade mapped to the expected human
gain by an isotonic fit on the judged pairs, each weighted by the inverse of its chance
of being drawn (:func:`rankset.label_quality.calibrate`); ``random`` keeps the raw grade.
The systems' means on that mix order the leaderboard.

Intervals are prediction-powered at the document level: each judged pair's residual
(human minus calibrated gain), weighted by ``1/pi``, corrects the predicted DCG without
bias whatever the plan; the variance of that Horvitz-Thompson correction (Poisson
sampling, ``(1 - pi)/pi^2`` per judged pair) gives its sampling error. nDCG also divides
by the pool's ideal DCG, which the unjudged pairs leave uncertain, and which no sample of
a few pairs per query estimates well. It is bounded instead: the ideal DCG of the judged
human grades alone can only be too small, so the upper end of the interval is the mean
over that floor plus its sampling error; the lower end is the mean over the ideal DCG
with the judge's grades, mapped onto the humans' scale by their shares, on the unjudged
pairs, minus its sampling error. The lower end thus assumes that the judge does not
understate the pool's best grades (on DL19 and DL20 the mapped ideal is 4-8% above the
humans' on average). The same construction without a judge (a predicted gain of 0, and
every unjudged pair at the top grade for the lower end) gives the intervals of "the
same human labels alone".

The measures the budget tools score are ``ndcg@k`` (trec_eval's ``ndcg_cut``) and
``dcg@k``, computed from a matrix of rank discounts; the leaderboard's means equal
:func:`rankset.evaluate`'s on the same labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from rankset._validation import did_you_mean
from rankset.errors import ParameterError, SchemaError
from rankset.label_quality._plans import (
    PLANS,
    Draw,
    budget_pairs,
    draw_plan,
)
from rankset.label_quality._pool import (
    PAIR,
    Pool,
    build_pool,
    ideal_dcg,
    judge_frame,
    per_query,
    system_means,
)
from rankset.label_quality.calibration import isotonic_fit

__all__ = ["PLANS", "estimate_differences", "estimate_means", "plan_judging", "simulate_budget"]


def _on_human_scale(judge: np.ndarray, draw: Draw, human: np.ndarray) -> np.ndarray:
    """Return the judge's grades mapped onto the human grades by their shares (quantiles).

    The judged pairs, weighted, estimate the pool's share of each human grade; the
    judge's levels, in increasing order, take the human grade whose share covers the
    middle of their own. A judge on another scale (EXAM's 0-5) lands on the humans'.
    """
    selected = draw.selected
    grades, at = np.unique(human[selected], return_inverse=True)
    if len(grades) == 0:
        return judge
    share = np.bincount(at, weights=draw.weight[selected]) / draw.weight[selected].sum()
    bounds = np.cumsum(share)
    _, inverse, counts = np.unique(judge, return_inverse=True, return_counts=True)
    middle = (np.cumsum(counts) - counts / 2) / len(judge)
    mapped = grades[np.minimum(np.searchsorted(bounds, middle), len(grades) - 1)]
    result: np.ndarray = mapped[inverse].astype(np.float64)
    return result


def _predicted(pool: Pool, draw: Draw, human: np.ndarray) -> np.ndarray:
    """Return the human gain the calibrated judge predicts for every pair."""
    selected = draw.selected
    levels, inverse = np.unique(pool.judge[selected], return_inverse=True)
    weight = draw.weight[selected]
    mass = np.bincount(inverse, weights=weight)
    means = np.bincount(inverse, weights=weight * np.maximum(human[selected], 0.0)) / mass
    fitted = isotonic_fit(levels, means, mass)
    gains: np.ndarray = np.interp(pool.judge, levels, fitted)
    return gains


@dataclass(frozen=True)
class _Side:
    """One estimator's per-query DCG and what its interval needs.

    ``dcg`` is systems x queries (corrected by the judged pairs' weighted residuals);
    ``residuals`` the judged pairs' residuals (0 elsewhere); ``factor`` the Poisson
    variance factor ``(1 - pi) / pi^2`` of each judged pair.
    """

    dcg: np.ndarray
    residuals: np.ndarray
    factor: np.ndarray

    def mean(self, pool: Pool, ideal: np.ndarray | None) -> np.ndarray:
        """Return each system's mean of DCG (over ``ideal`` when given) over its queries."""
        values = self.dcg if ideal is None else _over(self.dcg, ideal)
        means: np.ndarray = np.where(pool.answered, values, 0.0).sum(1) / _counted(pool)
        return means

    def terms(self, pool: Pool, ideal: np.ndarray | None) -> np.ndarray:
        """Return systems x pairs: each judged pair's share in each system's mean."""
        scale = 1.0 if ideal is None else np.where(ideal > 0, ideal, 1.0)[pool.query]
        spread = pool.discounts * self.residuals / scale
        spread = np.where(pool.answered[:, pool.query], spread, 0.0)
        terms: np.ndarray = spread / _counted(pool)[:, None]
        return terms

    def half_width(self, pool: Pool, ideal: np.ndarray | None, z: float) -> np.ndarray:
        """Return z times each system mean's standard error."""
        half: np.ndarray = z * np.sqrt((self.terms(pool, ideal) ** 2 * self.factor).sum(1))
        return half


def _over(dcg: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    ratio: np.ndarray = np.divide(
        dcg, ideal, out=np.zeros_like(dcg), where=np.broadcast_to(ideal > 0, dcg.shape)
    )
    return ratio


def _counted(pool: Pool) -> np.ndarray:
    counted: np.ndarray = np.maximum(pool.answered.sum(1), 1).astype(np.float64)
    return counted


@dataclass(frozen=True)
class _Estimate:
    """The leaderboard, the intervals and the human-only intervals of one draw.

    For nDCG the pool's ideal DCG (the normaliser) is known only within bounds:
    ``floor`` (the judged human grades alone, the rest 0) can only understate it, and
    ``mapped`` (the judge's grades mapped onto the humans' scale on the unjudged pairs)
    estimates it; without a judge, ``ceiling`` (the unjudged pairs at the top grade) can
    only overstate it. An interval spans the mean under the larger normaliser minus its
    sampling error to the mean under the smaller plus its own.
    """

    plug_in: np.ndarray  # per system: the leaderboard's means
    corrected: np.ndarray  # per system: the prediction-powered means (mapped normaliser)
    low: np.ndarray
    high: np.ndarray
    human_low: np.ndarray
    human_high: np.ndarray
    judged: _Side
    floor: np.ndarray | None  # per query, or None for dcg
    mapped: np.ndarray | None

    def difference(self, pool: Pool, system: int, baseline: int, z: float) -> tuple[float, ...]:
        """Return a system's corrected difference from a baseline and its interval.

        Per query the difference of DCGs is divided by either normaliser bound,
        whichever gives the lower (the higher) value; the sampling error is the
        difference of the two systems' terms, so what they share cancels.
        """
        gap = self.judged.dcg[system] - self.judged.dcg[baseline]
        both = pool.answered[system] & pool.answered[baseline]
        count = max(int(both.sum()), 1)
        ideals = [self.mapped, self.floor] if self.mapped is not None else [None]
        values = [np.where(both, gap if i is None else _over(gap, i), 0.0) for i in ideals]
        low_q = np.minimum.reduce(values)
        high_q = np.maximum.reduce(values)
        errors = []
        for ideal in ideals:
            terms = self.judged.terms(pool, ideal)
            errors.append(
                np.sqrt(((terms[system] - terms[baseline]) ** 2 * self.judged.factor).sum())
            )
        error = z * max(errors)
        centre = float(values[0].sum() / count)
        return centre, float(low_q.sum() / count - error), float(high_q.sum() / count + error)


def _estimate(
    pool: Pool,
    plan: str,
    draw: Draw,
    human: np.ndarray,
    z: float,
) -> _Estimate:
    selected, pi = draw.selected, draw.probability
    human = np.where(selected, np.maximum(human, 0.0), 0.0)
    predicted = _predicted(pool, draw, human)
    shown = pool.judge if plan == "random" else predicted
    mixed = np.where(selected, human, shown)
    plug_in = system_means(pool, np.maximum(mixed, 0.0), ideal_dcg(pool, mixed))
    factor = np.where(selected, (1.0 - pi) / np.where(selected, pi, 1.0) ** 2, 0.0)
    inverse = np.where(selected, 1.0 / np.where(selected, pi, 1.0), 0.0)
    sides = []
    for guess in (predicted, np.zeros_like(predicted)):
        residuals = np.where(selected, human - guess, 0.0)
        dcg = per_query(pool, pool.discounts * (guess + residuals * inverse))
        sides.append(_Side(dcg, residuals, factor))
    judged, alone = sides
    if not pool.cumulative:
        centre = judged.mean(pool, None)
        half = judged.half_width(pool, None, z)
        human_centre = alone.mean(pool, None)
        human_half = alone.half_width(pool, None, z)
        return _Estimate(
            plug_in, centre, centre - half, centre + half,
            human_centre - human_half, human_centre + human_half, judged, None, None,
        )  # fmt: skip
    floor = ideal_dcg(pool, human)
    mapped = np.maximum(
        ideal_dcg(pool, np.where(selected, human, _on_human_scale(pool.judge, draw, human))),
        floor,
    )
    top = float(human[selected].max(initial=0.0))
    ceiling = ideal_dcg(pool, np.where(selected, human, top))
    return _Estimate(
        plug_in=plug_in,
        corrected=judged.mean(pool, mapped),
        low=judged.mean(pool, mapped) - judged.half_width(pool, mapped, z),
        high=judged.mean(pool, floor) + judged.half_width(pool, floor, z),
        human_low=alone.mean(pool, ceiling) - alone.half_width(pool, ceiling, z),
        human_high=alone.mean(pool, floor) + alone.half_width(pool, floor, z),
        judged=judged,
        floor=floor,
        mapped=mapped,
    )


def _z(confidence: float) -> float:
    from statistics import NormalDist

    if not 0 < confidence < 1:
        raise ParameterError(f"confidence={confidence!r}: expected a number in (0, 1)")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def plan_judging(
    judge_labels: Any,
    budget: float | int,
    *,
    plan: str = "random",
    runs: Any = None,
    metric: str = "ndcg@10",
    pilot: Any = None,
    relevance_level: float = 2.0,
    seed: int = 0,
) -> pl.DataFrame:
    """Choose the pairs people should judge: every pair with its inclusion probability.

    Parameters
    ----------
    judge_labels
        The judge's grade of every pooled pair (the pool is these pairs).
    budget
        A share of the pool's pairs in (0, 1], or a number of pairs.
    plan
        One of :data:`PLANS`.
    runs
        The runs; needed by ``influence`` (and used for nothing else).
    metric
        ``ndcg@k`` or ``dcg@k``: the depth ``k`` ``influence`` looks at.
    pilot
        For two-phase plans (``uncertainty``, ``lara``, ``influence``): the human labels
        of a pilot, drawn as ``random`` first (e.g. by ``plan_judging(judge, budget / 4,
        plan="random")``); its pairs count against the budget.
    relevance_level
        The human grade from which a pair is relevant (for ``lara``).
    seed
        The random draw's seed.

    Returns
    -------
    polars.DataFrame
        ``query_id, doc_id, judge, probability, weight, selected``: the selected pairs
        (a given pilot's among them, with probability 1) are the ones people judge;
        ``probability`` is each pair's chance given the pilot, ``weight`` the inverse
        of a selected pair's chance before it. Keep the frame for
        :func:`estimate_means`.

    Examples
    --------
    >>> judge = {"q1": {"a": 0, "b": 1, "c": 2, "d": 3}, "q2": {"e": 1, "f": 0}}
    >>> chosen = plan_judging(judge, 0.5, plan="random", seed=1)
    >>> chosen.group_by("query_id").agg(pl.col("selected").sum()).sort("query_id").rows()
    [('q1', 2), ('q2', 1)]
    """
    judge = judge_frame(judge_labels, "judge labels")
    pilot_frame = None if pilot is None else judge_frame(pilot, "pilot labels")
    if plan == "influence" and runs is None:
        raise ParameterError("plan 'influence' needs the runs (runs=...)")
    pool = build_pool(runs, judge, pilot_frame, metric)
    n_budget = budget_pairs(budget, len(pool.query))
    rng = np.random.default_rng(seed)
    grades = mask = None
    if pilot_frame is not None:
        grades = pool.pairs["human"].fill_null(np.nan).to_numpy().astype(np.float64)
        mask = ~np.isnan(grades)
    draw = draw_plan(pool, plan, n_budget, rng, grades, relevance_level, mask)
    return pool.pairs.select(*PAIR, "judge").with_columns(
        probability=pl.Series(draw.probability),
        weight=pl.Series(draw.weight),
        selected=pl.Series(draw.selected),
    )


def estimate_means(
    runs: Any,
    judge_labels: Any,
    human_labels: Any,
    chosen: pl.DataFrame,
    *,
    plan: str = "calibrated",
    metric: str = "ndcg@10",
    confidence: float = 0.95,
) -> pl.DataFrame:
    """Estimate the systems' means from the judged pairs' human grades and the judge's.

    Parameters
    ----------
    runs
        The runs, as :func:`rankset.evaluate` takes them.
    judge_labels
        The judge's grades of the pool.
    human_labels
        The human grades of the selected pairs (others are ignored).
    chosen
        :func:`plan_judging`'s frame (``query_id, doc_id, probability, selected``).
    plan
        ``"random"`` keeps the judge's raw grades on the unjudged pairs; anything else
        maps them to the expected human gain (an isotonic fit weighted by ``1/pi``).
    metric
        ``ndcg@k`` or ``dcg@k``.
    confidence
        The level of the intervals.

    Returns
    -------
    polars.DataFrame
        One row per system: ``system, mean`` (on the mixed labels: the leaderboard),
        ``ppi_mean, ci_low, ci_high`` (prediction-powered; for nDCG the interval brackets
        the normaliser, see the module's text) and ``human_ci_low, human_ci_high`` (the
        human grades alone).

    Examples
    --------
    >>> runs = {"s": {"q": {"a": 2.0, "b": 1.0}}}
    >>> judge = {"q": {"a": 3, "b": 0}}
    >>> human = {"q": {"a": 3, "b": 0}}
    >>> chosen = plan_judging(judge, 1.0)
    >>> estimate_means(runs, judge, human, chosen).select("system", "mean", "ci_low").row(0)
    ('s', 1.0, 1.0)
    """
    result, pool = _estimated(runs, judge_labels, human_labels, chosen, plan, metric, confidence)
    return pl.DataFrame(
        {
            "system": pool.systems,
            "mean": result.plug_in,
            "ppi_mean": result.corrected,
            "ci_low": result.low,
            "ci_high": result.high,
            "human_ci_low": result.human_low,
            "human_ci_high": result.human_high,
        }
    )


def _estimated(
    runs: Any,
    judge_labels: Any,
    human_labels: Any,
    chosen: pl.DataFrame,
    plan: str,
    metric: str,
    confidence: float,
) -> tuple[_Estimate, Pool]:
    judge = judge_frame(judge_labels, "judge labels")
    human = judge_frame(human_labels, "human labels")
    pool = build_pool(runs, judge, human, metric)
    if "weight" not in chosen.columns:
        chosen = chosen.with_columns(weight=1.0 / pl.col("probability"))
    aligned = pool.pairs.select(*PAIR).join(
        chosen.select(*PAIR, "probability", "weight", "selected"),
        on=PAIR,
        how="left",
        maintain_order="left",
    )
    selected = aligned["selected"].fill_null(False).to_numpy()
    draw = Draw(
        selected,
        aligned["probability"].fill_null(0.0).to_numpy(),
        np.where(selected, aligned["weight"].fill_null(0.0).to_numpy(), 0.0),
    )
    grades = pool.pairs["human"].to_numpy().astype(np.float64)
    missing = selected & np.isnan(grades)
    if missing.any():
        msg = (
            f"{int(missing.sum())} selected pairs have no human label; expected a human grade "
            "for every selected pair"
        )
        raise SchemaError(msg)
    return _estimate(pool, plan, draw, np.nan_to_num(grades), _z(confidence)), pool


def estimate_differences(
    runs: Any,
    judge_labels: Any,
    human_labels: Any,
    chosen: pl.DataFrame,
    *,
    baseline: str | None = None,
    plan: str = "calibrated",
    metric: str = "ndcg@10",
    confidence: float = 0.95,
) -> pl.DataFrame:
    """Estimate each system's difference from a baseline, paired, with its interval.

    The same estimates as :func:`estimate_means`; a difference's interval comes from the
    difference of the two systems' terms on each judged pair, so what the systems share
    (a pair both rank at the same place) cancels.

    Parameters
    ----------
    runs, judge_labels, human_labels, chosen, plan, metric, confidence
        As for :func:`estimate_means`.
    baseline
        The system the others are compared with; by default the first.

    Returns
    -------
    polars.DataFrame
        One row per other system: ``system, baseline, delta`` (on the mixed labels),
        ``ppi_delta, ci_low, ci_high``.

    Examples
    --------
    >>> runs = {"a": {"q": {"x": 2.0, "y": 1.0}}, "b": {"q": {"y": 2.0, "x": 1.0}}}
    >>> labels = {"q": {"x": 1, "y": 0}}
    >>> chosen = plan_judging(labels, 1.0)
    >>> row = estimate_differences(runs, labels, labels, chosen).row(0)
    >>> row[0], round(row[2], 6)  # 1/log2(3) - 1: x at rank 2 instead of 1
    ('b', -0.36907)
    """
    result, pool = _estimated(runs, judge_labels, human_labels, chosen, plan, metric, confidence)
    base = pool.systems[0] if baseline is None else baseline
    if base not in pool.systems:
        msg = f"baseline={base!r}: no such system; the systems are {pool.systems}"
        raise ParameterError(msg)
    b = pool.systems.index(base)
    z = _z(confidence)
    rows = []
    for s, system in enumerate(pool.systems):
        if s == b:
            continue
        delta, low, high = result.difference(pool, s, b, z)
        rows.append(
            {
                "system": system,
                "baseline": base,
                "delta": float(result.plug_in[s] - result.plug_in[b]),
                "ppi_delta": delta,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pl.DataFrame(rows)


def simulate_budget(
    runs: Any,
    truth: Any,
    judge_labels: Any,
    *,
    metric: str = "ndcg@10",
    budget: float | int = 0.1,
    seeds: int = 20,
    plans: Sequence[str] = PLANS,
    confidence: float = 0.95,
    relevance_level: float = 2.0,
) -> pl.DataFrame:
    """Replay budget plans against complete human labels, over many seeds.

    The pool is the pairs both the humans and the judge labelled. For each plan and
    seed the plan draws its pairs, the humans' grades are revealed on them, and the
    systems' leaderboard and intervals are computed as :func:`estimate_means` does.

    Parameters
    ----------
    runs
        The runs, as :func:`rankset.evaluate` takes them.
    truth
        The complete human labels.
    judge_labels
        The judge's labels of the same pool.
    metric
        ``ndcg@k`` or ``dcg@k``.
    budget
        A share of the pool's pairs in (0, 1], or a number of pairs.
    seeds
        How many replays per plan (seeds ``0 .. seeds - 1``).
    plans
        The plans to replay, from :data:`PLANS`.
    confidence
        The level of the intervals whose coverage is counted.
    relevance_level
        The human grade from which a pair is relevant (for ``lara``).

    Returns
    -------
    polars.DataFrame
        One row per plan: ``plan, budget`` (the pairs judged, as drawn on average),
        ``tau_mean, tau_min`` (Kendall's tau-b of the leaderboard against the full-human
        one over the seeds), ``coverage`` (the share of (system, seed) whose interval
        holds the full-human mean) and ``width_ratio`` (the intervals' mean width over
        the width of intervals from the same human grades alone).

    Examples
    --------
    >>> runs = {"s1": {"q": {"a": 2.0, "b": 1.0}}, "s2": {"q": {"b": 2.0, "a": 1.0}},
    ...         "s3": {"q": {"a": 2.0, "c": 1.0}}}
    >>> human = {"q": {"a": 3, "b": 1, "c": 0}}
    >>> simulate_budget(runs, human, human, budget=1.0, seeds=2, plans=["random"]).row(0)
    ('random', 3.0, 1.0, 1.0, 1.0, nan)
    """
    from rankset.label_quality.rank_stability import kendall_tau_b

    judge = judge_frame(judge_labels, "judge labels")
    human = judge_frame(truth, "human labels")
    shared = judge.join(human.select(PAIR).unique(), on=PAIR, how="semi")
    if shared.height == 0:
        raise SchemaError("simulate_budget: the judge and the humans share no pair")
    pool = build_pool(runs, shared, human, metric)
    grades = np.maximum(pool.pairs["human"].to_numpy().astype(np.float64), 0.0)
    full = system_means(pool, grades, ideal_dcg(pool, grades))  # grades are clipped at 0
    n_budget = budget_pairs(budget, len(pool.query))
    z = _z(confidence)
    rows = []
    for plan in plans:
        if plan not in PLANS:
            raise ParameterError(f"plan={plan!r}: " + did_you_mean(plan, PLANS))
        taus, covered, ratios, drawn = [], [], [], []
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            draw = draw_plan(pool, plan, n_budget, rng, grades, relevance_level)
            result = _estimate(pool, plan, draw, grades, z)
            taus.append(kendall_tau_b(full.tolist(), result.plug_in.tolist()))
            low, high = result.low, result.high
            covered.extend(((low <= full + 1e-12) & (full - 1e-12 <= high)).tolist())
            with np.errstate(invalid="ignore", divide="ignore"):
                ratios.append(
                    np.mean((result.high - result.low) / (result.human_high - result.human_low))
                )
            drawn.append(int(draw.selected.sum()))
        rows.append(
            {
                "plan": plan,
                "budget": float(np.mean(drawn)),
                "tau_mean": float(np.mean(taus)),
                "tau_min": float(np.min(taus)),
                "coverage": float(np.mean(covered)),
                "width_ratio": float(np.mean(ratios)),
            }
        )
    return pl.DataFrame(rows)
