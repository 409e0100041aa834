"""Comparing systems on one evaluation: pairs, all pairs, many systems, paper tables.

The flow is evaluation → comparison: every function here takes an
:class:`~rankset.EvaluationResult` (or its per-query frame) and never recomputes a metric.

- :mod:`.pairwise`: :func:`compare`, each system against a baseline (paired tests,
  bootstrap CIs of the difference, corrections, win/tie/loss);
- :mod:`.all_pairs`: :func:`compare_all` and :func:`significance_matrix`, every pair;
- :mod:`.many_systems`: :func:`anova`, :func:`rank_intervals`, :func:`average_replicates`;
- :mod:`.paper_tables`: :func:`comparison_table`, LaTeX/Markdown tables with
  significance marks;
- :mod:`.suites`: :func:`evaluate_suite`, the same systems over several collections
  (macro mean, mean rank, Borda count, bootstrap intervals);
- :mod:`.family_tests`: the family-wise tests (Tukey's HSD) the others share;
- :func:`cost_quality`: quality beside cost, the Pareto front of each metric and cost;
- ``_inputs``: the checks and frames every comparison starts from.

Examples
--------
>>> import rankset
>>> res = rankset.evaluate(
...     {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}},
...     {"q1": {"d2": 1}},
...     ["rr"],
... )
>>> from rankset.comparison import higher_is_better
>>> higher_is_better("rr")
True
"""

from __future__ import annotations

from rankset.comparison._inputs import (
    COMPARE_COLUMNS,
    RELATIVE_DELTA,
    higher_is_better,
    unreachable_significance,
)
from rankset.comparison._pareto import COST_QUALITY_COLUMNS, cost_quality
from rankset.comparison.all_pairs import compare_all, significance_matrix
from rankset.comparison.many_systems import anova, average_replicates, rank_intervals
from rankset.comparison.pairwise import ALL_TESTS, TESTS, compare, compare_each, paired_outcome
from rankset.comparison.paper_tables import comparison_table
from rankset.comparison.suite_files import evaluate_suite_toml, suite_from_toml
from rankset.comparison.suites import SuiteResult, check_suite, evaluate_suite

__all__ = [
    "ALL_TESTS",
    "COMPARE_COLUMNS",
    "COST_QUALITY_COLUMNS",
    "RELATIVE_DELTA",
    "TESTS",
    "SuiteResult",
    "anova",
    "average_replicates",
    "check_suite",
    "compare",
    "compare_all",
    "compare_each",
    "comparison_table",
    "cost_quality",
    "evaluate_suite",
    "evaluate_suite_toml",
    "higher_is_better",
    "paired_outcome",
    "rank_intervals",
    "significance_matrix",
    "suite_from_toml",
    "unreachable_significance",
]
