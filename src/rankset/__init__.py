"""rankset: retrieval and RAG evaluation on Polars.

Runs and labels load into Polars; every metric is a Polars expression evaluated in one
lazy group-by over (system, query). Classic metrics equal trec_eval's.

The names below follow the data flow: read (io) → measures → evaluation → comparison,
diagnosis, label quality, fusion and the experiment store with its gate → charts and the
report. ``import rankset`` loads the reading, measuring and evaluating layers; the
analyses, the charts and the report load on first use.

Examples
--------
>>> import rankset
>>> res = rankset.evaluate({"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d2": 1}}, ["rr"])
>>> res.summary["mean"].to_list()
[0.5]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankset._version import __version__

# --- errors ------------------------------------------------------------------------------
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

# --- evaluation: runs × labels → per-query values, summaries, curves ---------------------
from rankset.evaluation import (
    Curves,
    EvaluateOptions,
    EvaluationResult,
    TextMatch,
    curves,
    evaluate,
    evaluate_with,
    match_text,
    partition,
)

# --- io: reading and writing runs, labels, answers, nuggets ------------------------------
from rankset.io import (
    read,
    read_answers,
    read_nuggets,
    read_subtopics,
    scan_labels,
    scan_run,
    write_labels,
    write_run,
)

# --- measures: names, definitions, grade scales ------------------------------------------
from rankset.measures import Metric, available_measures, define, parse_metric, parse_metrics
from rankset.measures.scales import GradeScale

if TYPE_CHECKING:  # loaded on first use: see __getattr__
    from rankset.comparison import (
        SuiteResult,
        anova,
        average_replicates,
        compare,
        compare_all,
        comparison_table,
        evaluate_suite,
        rank_intervals,
        significance_matrix,
    )
    from rankset.diagnosis import (
        Diagnosis,
        diagnose,
        explain,
        nugget_misses,
        regression_counts,
        regressions,
    )
    from rankset.experiments import GateResult, Store, gate
    from rankset.fusion import FusionSearch, fuse, optimize_fusion
    from rankset.label_quality import (
        Agreement,
        JudgingQueue,
        RankingStability,
        agreement,
        judging_queue,
        ppi_compare,
        ppi_means,
        ranking_stability,
    )

# Packages of the analysis layers and above, imported on first use (numpy, scipy, Altair).
_LAZY_MODULES = (
    "charts",
    "dashboard",
    "compat",
    "comparison",
    "diagnosis",
    "experiments",
    "fusion",
    "label_quality",
    "report",
    "stats",
)
# Names of those packages that ``rankset.<name>`` gives: name -> package.
_LAZY_NAMES = {
    # comparison: systems against each other, on one evaluation
    "compare": "comparison",
    "compare_all": "comparison",
    "significance_matrix": "comparison",
    "anova": "comparison",
    "rank_intervals": "comparison",
    "average_replicates": "comparison",
    "comparison_table": "comparison",
    "evaluate_suite": "comparison",
    "SuiteResult": "comparison",
    # diagnosis: where and why a system loses
    "diagnose": "diagnosis",
    "Diagnosis": "diagnosis",
    "regressions": "diagnosis",
    "regression_counts": "diagnosis",
    "explain": "diagnosis",
    "nugget_misses": "diagnosis",
    # label quality: how far the labels can be trusted
    "agreement": "label_quality",
    "Agreement": "label_quality",
    "ranking_stability": "label_quality",
    "RankingStability": "label_quality",
    "judging_queue": "label_quality",
    "JudgingQueue": "label_quality",
    "ppi_means": "label_quality",
    "ppi_compare": "label_quality",
    # fusion: combining runs
    "fuse": "fusion",
    "optimize_fusion": "fusion",
    "FusionSearch": "fusion",
    # experiments: results that last, and the gate
    "Store": "experiments",
    "gate": "experiments",
    "GateResult": "experiments",
}
# Deprecated twins, importable with a DeprecationWarning for one release, not in __all__.
_DEPRECATED = {"read_run": "io", "read_labels": "io"}

__all__ = [  # noqa: RUF022 (grouped by topic, as polars groups its face)
    "__version__",
    # io
    "read",
    "read_answers",
    "read_nuggets",
    "read_subtopics",
    "scan_labels",
    "scan_run",
    "write_labels",
    "write_run",
    # measures
    "GradeScale",
    "Metric",
    "available_measures",
    "define",
    "parse_metric",
    "parse_metrics",
    # evaluation
    "Curves",
    "EvaluateOptions",
    "EvaluationResult",
    "TextMatch",
    "curves",
    "evaluate",
    "evaluate_with",
    "match_text",
    "partition",
    # comparison
    "SuiteResult",
    "anova",
    "average_replicates",
    "compare",
    "compare_all",
    "comparison_table",
    "evaluate_suite",
    "rank_intervals",
    "significance_matrix",
    # diagnosis
    "Diagnosis",
    "diagnose",
    "explain",
    "nugget_misses",
    "regression_counts",
    "regressions",
    # label quality
    "Agreement",
    "JudgingQueue",
    "RankingStability",
    "agreement",
    "judging_queue",
    "ppi_compare",
    "ppi_means",
    "ranking_stability",
    # fusion
    "FusionSearch",
    "fuse",
    "optimize_fusion",
    # experiments
    "GateResult",
    "Store",
    "gate",
    # errors
    "ClusterError",
    "GradeScaleError",
    "InputFormatError",
    "MissingDependencyError",
    "OutputError",
    "ParameterError",
    "RanksetError",
    "RanksetWarning",
    "SchemaError",
    "UnknownMetricError",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY_MODULES:
        return importlib.import_module(f"rankset.{name}")
    package = _LAZY_NAMES.get(name) or _DEPRECATED.get(name)
    if package is not None:
        return getattr(importlib.import_module(f"rankset.{package}"), name)
    msg = f"module 'rankset' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted({*__all__, *_LAZY_MODULES, "errors", "evaluation", "io", "measures", "schema"})
