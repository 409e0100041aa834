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
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from rankset._validation import check_choice
from rankset.errors import GradeScaleError, RanksetWarning
from rankset.evaluation import Curves, EvaluateOptions, EvaluationResult, evaluate_with
from rankset.io import scan_labels
from rankset.pages._measures import needs_grade_scale
from rankset.pages._resampling import Resampling

if TYPE_CHECKING:
    from rankset.diagnosis.quadrants import Diagnosis

__all__ = [
    "EVERY_BASELINE_BUDGET",
    "compare_all",
    "compared_baselines",
    "diagnosis_of",
    "evaluate_shown",
    "explanations_of",
    "label_frame",
    "metric_curves",
    "picked_baseline",
    "split_num_rel",
]

#: The label statistic evaluated beside the shown metrics: which queries have a relevant label.
NUM_REL: Final = "num_rel"
#: Resampled sums (distinct system pairs x metrics x queries x draws) up to which the
#: systems are compared with every one of them as the baseline; beyond it, with the
#: baseline alone (about 5 s of matrix products on two cores, where 100 systems x 10,000
#: queries x 10 metrics would draw 5e13 with every baseline).
EVERY_BASELINE_BUDGET: Final = 100_000_000_000


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


def diagnosis_of(result: EvaluationResult, k: int) -> Diagnosis:
    """Return the diagnostic matrix at ``k`` of a result that holds its three metrics.

    Drawn right after the evaluation, so that the evaluation of the diagnosis's metrics
    can be freed before the tests and the curves (with 100 systems x 10,000 queries, a
    gigabyte). Its warnings were said by the evaluation already, in the notes.
    """
    from rankset.diagnosis.quadrants import diagnose

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanksetWarning)
        return diagnose(result, k=k)


def compared_baselines(
    systems: Sequence[str], baseline: str, n_metrics: int, n_queries: int, policy: Resampling
) -> list[str]:
    """Return the baselines to compare the systems with: every system, or ``baseline``.

    Every system while the tests and intervals of all distinct pairs draw at most
    :data:`EVERY_BASELINE_BUDGET` resampled sums, else the baseline alone.

    Examples
    --------
    >>> policy = Resampling.for_comparisons(20)
    >>> compared_baselines(["a", "b", "c"], "a", 10, 1_000, policy)
    ['a', 'b', 'c']
    >>> len(compared_baselines([f"s{i}" for i in range(100)], "s0", 10, 10_000, policy))
    1
    """
    pairs = len(systems) * (len(systems) - 1) // 2
    draws = policy.n_resamples + (policy.n_permutations if policy.test == "randomization" else 0)
    if pairs * n_metrics * n_queries * draws <= EVERY_BASELINE_BUDGET:
        return list(systems)
    return [baseline]


def compare_all(
    result: EvaluationResult,
    shown: list[str],
    policy: Resampling,
    notes: list[str],
    *,
    progress: Any,
    baseline: str | None = None,
) -> pl.DataFrame | None:
    """Compare the systems with each one as the baseline, as one frame with ``baseline``.

    When that is too much work (:func:`compared_baselines`), with ``baseline`` (default:
    the first system) alone, said in ``notes``.
    """
    if len(result.systems) < 2:
        return None
    from rankset.comparison import compare_each, unreachable_significance

    systems = list(result.systems)
    n_queries = result.per_query["query_id"].n_unique()
    baselines = compared_baselines(systems, baseline or systems[0], len(shown), n_queries, policy)
    if len(baselines) == 1:
        notes.append(
            f"The tests compare every system with {baselines[0]} only: with each of the "
            f"{len(systems)} systems as the baseline in turn they would take too long "
            f"({len(systems) * (len(systems) - 1) // 2:,} pairs x {len(shown)} metrics x "
            f"{n_queries:,} queries). Another baseline picked on the dashboard shows the "
            "differences of the means, without tests."
        )
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
            baselines,
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


def picked_baseline(baseline: str | None, systems: list[str]) -> str | None:
    """Return the baseline asked (checked), else the first of several systems."""
    if baseline is None:
        return systems[0] if len(systems) > 1 else None
    check_choice("baseline", baseline, systems)
    return baseline


def label_frame(labels: Any) -> pl.DataFrame | None:
    """Return the labels as ``query_id, doc_id, grade`` (text ids), or None without."""
    if labels is None:
        return None
    return (
        scan_labels(labels)
        .collect()
        .select(pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String), "grade")
    )
