"""rankset: retrieval and RAG evaluation on Polars.

Runs and labels load into Polars; every metric is a Polars expression evaluated in one
lazy group-by over (system, query). Classic metrics equal trec_eval's.

The names below follow the data flow: read (io) → measures → evaluation → comparison,
diagnosis, label quality, fusion and the experiment store with its gate → charts and the
report. ``import rankset`` loads only the errors: every other name loads its layer on
first use, so a command line's ``--help`` and a script that reads one file pay only for
what they call.

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
    from rankset.experiments import GateResult, Store, gate
    from rankset.fusion import FusionSearch, fuse, optimize_fusion
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
    from rankset.measures import Metric, available_measures, define, parse_metric, parse_metrics
    from rankset.measures.scales import GradeScale
    from rankset.pages import Analysis, analyse
    from rankset.pages.dashboard import dashboard
    from rankset.pages.report import report

# Packages, imported on first use (Polars, numpy, scipy, Altair).
_LAZY_MODULES = (
    "evaluation",
    "io",
    "measures",
    "schema",
    "charts",
    "compat",
    "comparison",
    "diagnosis",
    "experiments",
    "fusion",
    "label_quality",
    "pages",
    "stats",
)
# Names of those packages that ``rankset.<name>`` gives: name -> package.
_LAZY_NAMES = {
    # evaluation: runs × labels → per-query values, summaries, curves
    "Curves": "evaluation",
    "EvaluateOptions": "evaluation",
    "EvaluationResult": "evaluation",
    "TextMatch": "evaluation",
    "curves": "evaluation",
    "evaluate": "evaluation",
    "evaluate_with": "evaluation",
    "match_text": "evaluation",
    "partition": "evaluation",
    # io: reading and writing runs, labels, answers, nuggets
    "read": "io",
    "read_answers": "io",
    "read_nuggets": "io",
    "read_subtopics": "io",
    "scan_labels": "io",
    "scan_run": "io",
    "write_labels": "io",
    "write_run": "io",
    # measures: names, definitions, grade scales
    "Metric": "measures",
    "available_measures": "measures",
    "define": "measures",
    "parse_metric": "measures",
    "parse_metrics": "measures",
    "GradeScale": "measures.scales",
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
    # pages: one analysis, drawn as the report or the dashboard
    "analyse": "pages",
    "Analysis": "pages",
    "report": "pages.report",
    "dashboard": "pages.dashboard",
    # experiments: results that last, and the gate
    "Store": "experiments",
    "gate": "experiments",
    "GateResult": "experiments",
}

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
    # pages
    "Analysis",
    "analyse",
    "dashboard",
    "report",
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
    package = _LAZY_NAMES.get(name)
    if package is not None:
        value = getattr(importlib.import_module(f"rankset.{package}"), name)
        globals()[name] = value  # later lookups skip this function
        return value
    msg = f"module 'rankset' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted({*__all__, *_LAZY_MODULES, "errors", "evaluation", "io", "measures", "schema"})
