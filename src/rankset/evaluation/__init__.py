"""Evaluate runs against labels: one plan, one pass over the runs, a tidy result.

The public face is :func:`evaluate`, :class:`EvaluationResult` and the options object
:class:`EvaluateOptions`. The names after them are the evaluation's building blocks,
for the layers above it (metric-vs-k curves, the cluster kernel): plan and measure with
:func:`plan_and_measure`, then make the result with :func:`result_of`.

Inside, one module per step: ``_options`` (the options and their constraints),
``_inputs`` (runs, names, labels, cutoffs), ``_rag_inputs`` (pools, answers), ``_plan``
(:class:`EvaluationPlan`), ``_runs`` (the run inputs and query buckets), ``_pass`` (the
pass over the runs: the three numberings), ``_kernel`` (both phases
over one set of whole queries), ``_query_policy``, ``_evaluate`` (the executor choice:
all at once, by bucket, or on Dask through ``_dask``), ``_kernel_api`` (the kernel for
other engines) and ``_partition`` (the bucket-partitioned dataset writer).
"""

from rankset.evaluation._evaluate import evaluate, evaluate_with, plan_and_measure, result_of
from rankset.evaluation._inputs import numbered_runs
from rankset.evaluation._kernel import Collected, PartialResult
from rankset.evaluation._options import (
    DEFAULT_K,
    DEFAULT_METRICS,
    ENGINES,
    EvaluateOptions,
    check_resampling,
    resolve_engine,
)
from rankset.evaluation._partition import partition
from rankset.evaluation._plan import EvaluationPlan
from rankset.evaluation._result import EvaluationResult
from rankset.evaluation._runs import BUCKET_SEED, bucket_of

__all__ = [
    "BUCKET_SEED",
    "DEFAULT_K",
    "DEFAULT_METRICS",
    "ENGINES",
    "Collected",
    "EvaluateOptions",
    "EvaluationPlan",
    "EvaluationResult",
    "PartialResult",
    "bucket_of",
    "check_resampling",
    "evaluate",
    "evaluate_with",
    "numbered_runs",
    "partition",
    "plan_and_measure",
    "resolve_engine",
    "result_of",
]
