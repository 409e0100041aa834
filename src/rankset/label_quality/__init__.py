"""How far the labels can be trusted: agreement, ranking stability, judging, PPI.

- :mod:`.assessors`: :func:`agreement` between two label sets (kappa, alpha, the
  systems' ranking under each);
- :mod:`.rank_stability`: :func:`ranking_stability`, the systems' ranking under
  resampled queries and labels (Kendall's tau, tau_AP, RBO);
- :mod:`.judging`: :func:`judging_queue`, the unjudged documents worth judging first;
- :mod:`.ppi`: :func:`ppi_means` and :func:`ppi_compare`, prediction-powered inference
  with a few human labels and many judge labels.
"""

from __future__ import annotations

from rankset.label_quality.assessors import Agreement, agreement
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
    "Agreement",
    "JudgingQueue",
    "MetaEvaluation",
    "RankingStability",
    "agreement",
    "correlation",
    "judging_queue",
    "kendall_tau_b",
    "meta_evaluate",
    "ppi_compare",
    "ppi_means",
    "ranking_stability",
    "rbo",
    "tau_ap",
]
