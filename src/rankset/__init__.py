"""rankset: retrieval and RAG evaluation on Polars.

Runs and labels load into Polars; every metric is a Polars expression evaluated in one
lazy group-by over (system, query). Classic metrics equal trec_eval's.

Examples
--------
>>> import rankset
>>> res = rankset.evaluate({"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d2": 1}}, ["rr"])
>>> res.summary["mean"].to_list()
[0.5]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankset._version import __version__
from rankset.comparison import compare
from rankset.cutoff_curves import Curves, curves
from rankset.diagnosis import Diagnosis, diagnose, regression_counts, regressions
from rankset.errors import (
    ClusterError,
    GradeScaleError,
    InputFormatError,
    MissingDependencyError,
    OutputError,
    ParameterError,
    RanksetError,
    RanksetWarning,
    SchemaError,
    UnknownMetricError,
)
from rankset.evaluation import EvaluateOptions, EvaluationResult, evaluate, partition
from rankset.fusion import FusionSearch, fuse, optimize_fusion
from rankset.io import (
    read,
    read_answers,
    read_labels,
    read_nuggets,
    read_run,
    read_subtopics,
    scan_labels,
    scan_run,
    write_labels,
    write_run,
)
from rankset.measures import Metric, available_measures, define, parse_metric, parse_metrics
from rankset.scales import GradeScale
from rankset.textmatch import TextMatch, match_text

if TYPE_CHECKING:  # loaded on first use (numpy): see __getattr__
    from rankset.all_pairs import compare_all, significance_matrix
    from rankset.explanations import explain
    from rankset.judging import judging_queue
    from rankset.label_quality import agreement
    from rankset.many_systems import anova, average_replicates, rank_intervals
    from rankset.nugget_diagnosis import nugget_misses
    from rankset.paper_tables import comparison_table
    from rankset.ppi import ppi_compare, ppi_means
    from rankset.rank_stability import ranking_stability

# Heavier modules (Altair charts, the HTML report) load on first use: rankset.charts,
# rankset.report.
_LAZY_MODULES = ("charts", "report")
# Functions of modules that import numpy, loaded on first use: name -> module.
_LAZY_FUNCTIONS = {
    "agreement": "label_quality",
    "anova": "many_systems",
    "average_replicates": "many_systems",
    "compare_all": "all_pairs",
    "comparison_table": "paper_tables",
    "rank_intervals": "many_systems",
    "significance_matrix": "all_pairs",
    "explain": "explanations",
    "judging_queue": "judging",
    "nugget_misses": "nugget_diagnosis",
    "ppi_compare": "ppi",
    "ppi_means": "ppi",
    "ranking_stability": "rank_stability",
}

__all__ = [
    "ClusterError",
    "Curves",
    "Diagnosis",
    "EvaluateOptions",
    "EvaluationResult",
    "FusionSearch",
    "GradeScale",
    "GradeScaleError",
    "InputFormatError",
    "Metric",
    "MissingDependencyError",
    "OutputError",
    "ParameterError",
    "RanksetError",
    "RanksetWarning",
    "SchemaError",
    "TextMatch",
    "UnknownMetricError",
    "__version__",
    "agreement",
    "anova",
    "available_measures",
    "average_replicates",
    "compare",
    "compare_all",
    "comparison_table",
    "curves",
    "define",
    "diagnose",
    "evaluate",
    "explain",
    "fuse",
    "judging_queue",
    "match_text",
    "nugget_misses",
    "optimize_fusion",
    "parse_metric",
    "parse_metrics",
    "partition",
    "ppi_compare",
    "ppi_means",
    "rank_intervals",
    "ranking_stability",
    "read",
    "read_answers",
    "read_labels",
    "read_nuggets",
    "read_run",
    "read_subtopics",
    "regression_counts",
    "regressions",
    "scan_labels",
    "scan_run",
    "significance_matrix",
    "write_labels",
    "write_run",
]


def __getattr__(name: str) -> object:
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f"rankset.{name}")
    if name in _LAZY_FUNCTIONS:
        import importlib

        return getattr(importlib.import_module(f"rankset.{_LAZY_FUNCTIONS[name]}"), name)
    msg = f"module 'rankset' has no attribute {name!r}"
    raise AttributeError(msg)
