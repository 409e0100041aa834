"""Diagnosing where a system loses: retrieval against reranking, regressions, misses.

- :mod:`.quadrants`: :func:`diagnose` (PROC@K × %PROC@K per query: retrieval miss,
  reranking miss, healthy, both), :func:`regressions` and :func:`regression_counts`
  (the two-run view: ordering against coverage regressions);
- :mod:`.explanations`: :func:`explain`, the documents behind a query's change;
- :mod:`.nuggets`: :func:`nugget_misses`, which nuggets a system's top k missed and why.
"""

from __future__ import annotations

from rankset.diagnosis.explanations import explain
from rankset.diagnosis.nuggets import nugget_misses
from rankset.diagnosis.quadrants import (
    CHANGES,
    QUADRANTS,
    Diagnosis,
    diagnose,
    quadrant_counts,
    regression_counts,
    regressions,
)

__all__ = [
    "CHANGES",
    "QUADRANTS",
    "Diagnosis",
    "diagnose",
    "explain",
    "nugget_misses",
    "quadrant_counts",
    "regression_counts",
    "regressions",
]
