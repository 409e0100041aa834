"""The budget plans' draws: which pairs each plan sends to people, and their chances.

Each plan of :data:`PLANS` is described in :mod:`rankset.label_quality.budget`; here are
its draw (:func:`draw_plan`) and the probabilities the estimates weigh pairs by.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from rankset._validation import did_you_mean
from rankset.errors import ParameterError
from rankset.label_quality._pool import Pool, ideal_dcg

#: The plans :func:`plan_judging` and :func:`simulate_budget` know, in the order reported.
PLANS: Final = ("random", "stratified", "uncertainty", "lara", "influence")

#: The share of a two-phase plan's budget spent on its pilot (drawn as ``random``).
PILOT_SHARE: Final = 0.25
#: The floor of ``influence``, as a share of the mean weight, so that any pair can be drawn.
INFLUENCE_FLOOR: Final = 0.02


def budget_pairs(budget: float | int, n_pairs: int) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int | float):
        raise ParameterError(f"budget={budget!r}: expected a share in (0, 1] or a count")
    if isinstance(budget, float) and 0 < budget <= 1:
        return max(1, round(budget * n_pairs))
    if isinstance(budget, int) and budget >= 1:
        return min(budget, n_pairs)
    raise ParameterError(f"budget={budget!r}: expected a share in (0, 1] or a count ≥ 1")


def per_query_share(
    pool: Pool, share: float, rng: np.random.Generator, among: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``round(share * n_q)`` (at least 1) pairs in each query: (selected, pi)."""
    n = len(pool.query)
    eligible = np.ones(n, dtype=bool) if among is None else among
    selected = np.zeros(n, dtype=bool)
    probability = np.zeros(n)
    keys = rng.random(n)
    keys[~eligible] = np.inf
    order = np.lexsort((keys, pool.query))
    sizes = np.bincount(pool.query[eligible], minlength=pool.n_queries)
    takes = np.where(sizes > 0, np.maximum(1, np.rint(share * sizes)), 0).astype(np.int64)
    starts = np.searchsorted(pool.query[order], np.arange(pool.n_queries))
    position = np.arange(n) - starts[pool.query[order]]
    chosen = order[position < takes[pool.query[order]]]
    selected[chosen] = True
    selected &= eligible
    probability[eligible] = (takes / np.maximum(sizes, 1))[pool.query[eligible]]
    return selected, probability


def scaled(weight: np.ndarray, total: float) -> np.ndarray:
    """Probabilities proportional to ``weight``, capped at 1, summing to ``total``."""
    weight = np.maximum(weight, 0.0)
    if total <= 0 or not weight.any():
        return np.zeros_like(weight)
    low, high = 0.0, total / weight[weight > 0].min() + 1.0
    for _ in range(100):
        middle = (low + high) / 2
        if np.minimum(1.0, middle * weight).sum() < total:
            low = middle
        else:
            high = middle
    scaled: np.ndarray = np.minimum(1.0, high * weight)
    return scaled


def level_spread(
    judge: np.ndarray, human: np.ndarray, weight: np.ndarray, relevant: float
) -> tuple[dict[float, float], dict[float, float]]:
    """Per judge level: the weighted spread of the human grade and P(human ≥ relevant)."""
    spread: dict[float, float] = {}
    chance: dict[float, float] = {}
    overall = np.average(human, weights=weight) if weight.sum() > 0 else 0.0
    for level in np.unique(judge):
        at = judge == level
        w = weight[at] + 1e-12
        mean = np.average(human[at], weights=w) if at.any() else overall
        # one pseudo-pair at the overall mean keeps a level seen once from a zero spread
        variance = (np.sum(w * (human[at] - mean) ** 2) + (overall - mean) ** 2 + 0.25) / (
            w.sum() + 1.0
        )
        spread[float(level)] = float(np.sqrt(variance))
        chance[float(level)] = float((np.sum(w * (human[at] >= relevant)) + 0.5) / (w.sum() + 1.0))
    return spread, chance


@dataclass(frozen=True)
class Draw:
    """A plan's draw: the selected pairs, their design probabilities, their fit weights.

    ``probability`` is the chance of each pair given the pilot (1 for the pilot's pairs,
    which are known exactly once judged): the Horvitz-Thompson weights of the
    correction. ``weight`` is the inverse of each selected pair's chance before the
    pilot, so that the calibration sees the pool in its proportions.
    """

    selected: np.ndarray
    probability: np.ndarray
    weight: np.ndarray


def single_phase(selected: np.ndarray, probability: np.ndarray) -> Draw:
    weight = np.where(selected, 1.0 / np.where(probability > 0, probability, 1.0), 0.0)
    return Draw(selected, probability, weight)


def draw_plan(
    pool: Pool,
    plan: str,
    n_budget: int,
    rng: np.random.Generator,
    grades: np.ndarray | None,
    relevant: float,
    pilot: np.ndarray | None = None,
) -> Draw:
    """Draw one plan. ``grades`` are the humans' (read on the pilot's pairs only).

    Two-phase plans draw their pilot as ``random`` unless ``pilot`` (a mask of pairs
    already judged) is given.
    """
    n = len(pool.query)
    share = n_budget / n
    if plan == "random":
        return single_phase(*per_query_share(pool, share, rng))
    if plan == "stratified":
        levels, inverse, sizes = np.unique(pool.judge, return_inverse=True, return_counts=True)
        allocation = np.zeros(len(levels))
        remaining, open_levels = float(n_budget), np.ones(len(levels), dtype=bool)
        while remaining > 0.5 and open_levels.any():
            each = remaining / open_levels.sum()
            room = sizes - allocation
            give = np.where(open_levels, np.minimum(each, room), 0.0)
            allocation += give
            remaining -= give.sum()
            open_levels &= allocation < sizes
        probability = (allocation / sizes)[inverse]
        return single_phase(rng.random(n) < probability, probability)
    if plan not in PLANS:
        raise ParameterError(f"plan={plan!r}: " + did_you_mean(plan, PLANS))
    if grades is None:
        msg = f"plan {plan!r} needs the human grades of a pilot (pilot=...)"
        raise ParameterError(msg)
    if pilot is None:
        pilot, _ = per_query_share(pool, share * PILOT_SHARE, rng)
    sizes = np.bincount(pool.query, minlength=pool.n_queries)
    pilot_share = (np.bincount(pool.query[pilot], minlength=pool.n_queries) / sizes)[pool.query]
    pilot_weight = np.where(pilot, 1.0 / np.maximum(pilot_share, 1e-12), 0.0)
    spread, chance = level_spread(pool.judge[pilot], grades[pilot], pilot_weight[pilot], relevant)
    unseen = max(spread.values()) if spread else 1.0
    sd = np.array([spread.get(float(level), unseen) for level in pool.judge])
    if plan == "uncertainty":
        weights = sd
    elif plan == "lara":
        p = np.array([chance.get(float(level), 0.5) for level in pool.judge])
        weights = np.sqrt(p * (1.0 - p))
    else:  # influence
        ideal = ideal_dcg(pool, pool.judge)[pool.query]
        reach = np.sqrt((pool.discounts**2).sum(0)) / np.where(ideal > 0, ideal, 1.0)
        weights = reach * sd
        weights = weights + INFLUENCE_FLOOR * weights.mean()
    rest = ~pilot
    second = scaled(np.where(rest, weights, 0.0), max(n_budget - int(pilot.sum()), 0))
    drawn = rest & (rng.random(n) < second)
    probability = np.where(pilot, 1.0, second)
    before = pilot_share + (1.0 - pilot_share) * second  # a pair's chance before the pilot
    weight = np.where(pilot, pilot_weight, np.where(drawn, 1.0 / np.maximum(before, 1e-12), 0.0))
    return Draw(pilot | drawn, probability, weight)
