"""The computations behind an :class:`~rankset.pages.Analysis`, one function each.

:func:`evaluate_shown` measures the shown metrics with what the diagnosis needs in one
pass, :func:`split_num_rel` keeps the shown ones, :func:`compare_all` compares the systems
with each one as the baseline, :func:`metric_curves` draws the metric-vs-k curves and
:func:`explanations_of` explains what each top k found and missed.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

import polars as pl

from rankset.errors import GradeScaleError, RanksetWarning
from rankset.evaluation import Curves, EvaluateOptions, EvaluationResult, evaluate_with
from rankset.pages._measures import needs_grade_scale
from rankset.pages._resampling import Resampling

__all__ = ["compare_all", "evaluate_shown", "explanations_of", "metric_curves", "split_num_rel"]

#: The label statistic evaluated beside the shown metrics: which queries have a relevant label.
NUM_REL: Final = "num_rel"


def evaluate_shown(
    runs: Any,
    labels: Any,
    shown: list[str],
    k: int,
    options: EvaluateOptions,
    n_resamples: int,
    seed: int,
    notes: list[str],
) -> tuple[EvaluationResult, list[str], bool]:
    """Evaluate the shown metrics with the diagnosis's three and ``num_rel``, in one pass.

    When the labels fit no grade scale and none was given, the metrics that need one and
    the diagnostic matrix are left out, with a note. Returns the result, the shown metrics
    kept, and whether the diagnosis can be drawn. Warnings (the scale the labels chose)
    are said again in the notes.
    """
    diagnosis = [f"ra_nwg@{k}", f"proc@{k}", f"pct_proc@{k}"]
    asked = list(dict.fromkeys([*shown, *diagnosis, NUM_REL]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RanksetWarning)
        try:
            result = evaluate_with(runs, labels, asked, options, n_resamples=n_resamples, seed=seed)
            diagnosable = True
        except GradeScaleError as error:
            scaled = [name for name in shown if needs_grade_scale(name)]
            if options.scale != "auto":
                raise
            shown = [name for name in shown if name not in scaled]
            if not shown:
                raise
            notes.append(f"Left out {', '.join([*scaled, 'the diagnostic matrix'])}: {error}")
            asked = list(dict.fromkeys([*shown, NUM_REL]))
            result = evaluate_with(runs, labels, asked, options, n_resamples=n_resamples, seed=seed)
            diagnosable = False
    for warning in caught:
        if issubclass(warning.category, RanksetWarning):
            notes.append(str(warning.message))
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return result, shown, diagnosable


def split_num_rel(
    result: EvaluationResult, shown: Sequence[str]
) -> tuple[EvaluationResult, list[str]]:
    """Return the result of the shown metrics alone, and the queries with a relevant label."""
    counts = result.per_query.filter(pl.col("metric") == NUM_REL)
    relevant = counts.filter(pl.col("value") > 0)["query_id"].unique().sort().to_list()
    if list(result.metrics) == list(shown):
        return result, relevant
    kept = pl.col("metric").is_in(list(shown))
    trimmed = replace(
        result,
        per_query=result.per_query.filter(kept),
        summary=result.summary.filter(kept),
        config={**result.config, "metrics": list(shown)},
    )
    return trimmed, relevant


def compare_all(
    result: EvaluationResult,
    shown: list[str],
    policy: Resampling,
    notes: list[str],
    *,
    progress: Any,
) -> pl.DataFrame | None:
    """Compare the systems with each one as the baseline, as one frame with ``baseline``."""
    if len(result.systems) < 2:
        return None
    from rankset.comparison import compare_each, unreachable_significance

    rows = (len(result.systems) - 1) * len(shown)
    unreachable = unreachable_significance(
        rows, policy.n_permutations, policy.alpha, policy.correction
    )
    if unreachable is not None and policy.test == "randomization":
        notes.append(f"Comparison: {unreachable}")
    with warnings.catch_warnings():  # said once, in the notes
        warnings.filterwarnings("ignore", "With n_resamples=", RanksetWarning)
        return compare_each(
            result,
            metrics=shown,
            tests=[policy.test],
            correction=policy.correction,
            n_resamples=policy.n_permutations,
            n_bootstrap=policy.n_resamples,
            seed=policy.seed,
            alpha=policy.alpha,
            progress=progress,
        )


def metric_curves(
    runs: Any,
    labels: Any,
    curve_of: Mapping[str, str | None],
    depth: int,
    options: EvaluateOptions,
    policy: Resampling,
) -> Curves | None:
    measures = list(dict.fromkeys(name for name in curve_of.values() if name))
    if not measures:
        return None
    from rankset.evaluation.cutoff_curves import curves

    return curves(
        runs,
        labels,
        measures,
        ks=depth,
        n_resamples=policy.n_resamples,
        seed=policy.seed,
        keep_per_query=False,  # the charts draw the means: memory for one system
        **options.as_kwargs(excluded=("k", "cutoffs", "default_k")),
    )


def explanations_of(
    runs: Any, labels: Any, result: EvaluationResult, options: EvaluateOptions
) -> pl.DataFrame | None:
    """Explain every query at the first metric's cutoff (the worst are picked from them)."""
    if labels is None or not result.metrics:  # labels carried by the runs: no reason named
        return None
    from rankset.diagnosis.explanations import explain
    from rankset.measures import parse_metric

    cutoff = parse_metric(result.metrics[0]).k
    return explain(
        runs,
        labels,
        cutoff if isinstance(cutoff, int) else None,
        # the level the evaluation used (the labels may have implied it)
        relevance_level=result.config.get("relevance_level", options.relevance_level),
        names=options.names,
    )
