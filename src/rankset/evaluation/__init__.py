"""Evaluate runs against labels: one plan, one pass over the runs, a tidy result.

The public face is :func:`evaluate` (or :func:`evaluate_with` and an
:class:`EvaluateOptions`), its :class:`EvaluationResult`, the prepared
:class:`Evaluator` (labels and metrics planned once, for many runs), metric-vs-k :func:`curves`,
the answer matcher :func:`match_text`, and the bucket-partitioned writer
:func:`partition`. :func:`numbered_runs` gives the runs as the evaluation orders them
(what the diagnosis and label-quality analyses read), :func:`bucket_of` the bucket of a
query in a partitioned dataset, :func:`release_kept_memory` what an evaluation of a large
run keeps for the next. :mod:`rankset.evaluation.cluster` runs the same kernel on Dask,
Ray or Spark.

Inside, one module per step: ``_options`` (the options and their constraints),
``_inputs`` (runs, names, labels, cutoffs), ``_rag_inputs`` (pools, answers), ``_plan``
(:class:`EvaluationPlan`), ``_runs`` (the run inputs and query buckets), ``_pass`` (the
pass over the runs: the numberings; ``_packed*`` the one for runs in no order,
``_scratch`` its large arrays, kept between evaluations), ``_kernel`` (both phases over
one set of whole queries; ``_kernel_labels`` the labels' side), ``_query_policy``,
``_evaluate`` (the executor choice: all at once, by bucket, or on Dask through
``_dask``), ``_kernel_api`` (the kernel for other engines), ``_partition`` (the
bucket-partitioned dataset writer) and ``_summary`` (means with bootstrap CIs). The
public modules beside them: ``cutoff_curves``, ``textmatch`` and ``cluster``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported on first use: see __getattr__
    from rankset.evaluation._evaluate import evaluate, evaluate_with
    from rankset.evaluation._evaluator import Evaluator
    from rankset.evaluation._inputs import carried_labels, numbered_runs
    from rankset.evaluation._options import DEFAULT_K, DEFAULT_METRICS, ENGINES, EvaluateOptions
    from rankset.evaluation._partition import partition
    from rankset.evaluation._result import EvaluationResult
    from rankset.evaluation._runs import bucket_of
    from rankset.evaluation._scratch import release_kept_memory
    from rankset.evaluation.cutoff_curves import Curves, curves
    from rankset.evaluation.textmatch import TextMatch, match_text

# Each name's module, imported when the name is first asked for: the options alone (what
# the command line's parser reads) load without Polars.
_MODULE_OF = {
    "evaluate": "_evaluate",
    "evaluate_with": "_evaluate",
    "Evaluator": "_evaluator",
    "numbered_runs": "_inputs",
    "carried_labels": "_inputs",
    "DEFAULT_K": "_options",
    "DEFAULT_METRICS": "_options",
    "ENGINES": "_options",
    "EvaluateOptions": "_options",
    "partition": "_partition",
    "EvaluationResult": "_result",
    "bucket_of": "_runs",
    "release_kept_memory": "_scratch",
    "Curves": "cutoff_curves",
    "curves": "cutoff_curves",
    "TextMatch": "textmatch",
    "match_text": "textmatch",
}
_SUBMODULES = ("cluster", "cutoff_curves", "textmatch")

__all__ = [
    "DEFAULT_K",
    "DEFAULT_METRICS",
    "ENGINES",
    "Curves",
    "EvaluateOptions",
    "EvaluationResult",
    "Evaluator",
    "TextMatch",
    "bucket_of",
    "carried_labels",
    "curves",
    "evaluate",
    "evaluate_with",
    "match_text",
    "numbered_runs",
    "partition",
    "release_kept_memory",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # later lookups skip this function
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
