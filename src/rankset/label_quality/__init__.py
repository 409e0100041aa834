"""How far the labels can be trusted: agreement, ranking stability, judges, budgets, PPI.

- :mod:`.assessors`: :func:`agreement` between two label sets (kappa, alpha, the
  systems' ranking under each);
- :mod:`.rank_stability`: :func:`ranking_stability`, the systems' ranking under
  resampled queries and labels (Kendall's tau, tau_AP, RBO);
- :mod:`.judging`: :func:`judging_queue`, the unjudged documents worth judging first;
- :mod:`.meta_evaluation`: :func:`meta_evaluate`, a judge's leaderboard against the
  humans' (the correlations TREC AutoJudge reports, with intervals over topics);
- :mod:`.calibration`: :func:`calibrate`, a monotone map from a judge's grades to the
  expected human gain;
- :mod:`.budget`: :func:`plan_judging`, :func:`estimate_means`,
  :func:`estimate_differences` and :func:`simulate_budget`, where to spend a small
  human budget and what it buys;
- :mod:`.ppi`: :func:`ppi_means` and :func:`ppi_compare`, prediction-powered inference
  with a few human labels and many judge labels.
"""

from __future__ import annotations

from rankset.label_quality.assessors import Agreement, agreement
from rankset.label_quality.budget import (
    PLANS,
    estimate_differences,
    estimate_means,
    plan_judging,
    simulate_budget,
)
from rankset.label_quality.calibration import (
    Calibration,
    calibrate,
    calibration_effects,
    isotonic_fit,
)
from rankset.label_quality.judging import JudgingQueue, judging_queue
from rankset.label_quality.meta_evaluation import (
    CORRELATIONS,
    MetaEvaluation,
    correlation,
    meta_evaluate,
)
from rankset.label_quality.ppi import ppi_compare, ppi_means
from rankset.label_quality.rank_stability import (
    RankingStability,
    kendall_tau_b,
    ranking_stability,
    rbo,
    tau_ap,
)

__all__ = [
    "CORRELATIONS",
    "PLANS",
    "Agreement",
    "Calibration",
    "JudgingQueue",
    "MetaEvaluation",
    "RankingStability",
    "agreement",
    "calibrate",
    "calibration_effects",
    "correlation",
    "estimate_differences",
    "estimate_means",
    "isotonic_fit",
    "judging_queue",
    "kendall_tau_b",
    "meta_evaluate",
    "plan_judging",
    "ppi_compare",
    "ppi_means",
    "ranking_stability",
    "rbo",
    "simulate_budget",
    "tau_ap",
]
