"""What the report computes and in which order: :func:`report`.

:func:`report` evaluates, compares, draws curves and diagnoses, then hands what it has to
:func:`~rankset.pages.report._page.build_report`, which lays out the page.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from rankset._typing import IntoLabels, IntoRun
from rankset._validation import check_int
from rankset.comparison import check_suite, unreachable_significance
from rankset.errors import GradeScaleError, ParameterError, RanksetWarning
from rankset.evaluation import EvaluateOptions, EvaluationResult, evaluate_with
from rankset.experiments import read_history
from rankset.io import atomic_path, display_stem
from rankset.pages.report._measures import canonical_names, curve_measures, needs_grade_scale
from rankset.pages.report._page import COMPARISON_ALPHA, COMPARISON_TEST, build_report
from rankset._progress import IntoProgress, Progress, Steps, resolve_progress

if TYPE_CHECKING:
    from rankset.comparison import SuiteResult
    from rankset.diagnosis.quadrants import Diagnosis
    from rankset.evaluation.cutoff_curves import Curves
    from rankset.experiments import Store
    from rankset.label_quality.assessors import Agreement
    from rankset.label_quality.rank_stability import RankingStability

__all__ = ["DEFAULT_REPORT_METRICS", "report"]

#: Metrics :func:`report` computes when none are named.
DEFAULT_REPORT_METRICS = ("ndcg@10", "ap", "recall@100", "ra_nwg@10", "proc@10", "pct_proc@10")

#: The warning that names the grade scale the labels implied (said once per report).
_SCALE_CHOSEN: Final = r".*do not fit the default scale"
_NUM_REL: Final = "num_rel"
#: The steps :func:`report` counts: evaluation, comparison, curves, diagnosis, label sets,
#: worst queries, the page.
_STEPS: Final = 7


def report(
    runs: IntoRun | Mapping[str, IntoRun],
    labels: IntoLabels | None = None,
    *,
    metrics: str | Sequence[str] = DEFAULT_REPORT_METRICS,
    baseline: str | None = None,
    k: int = 10,
    k_max: int = 20,
    out: str | os.PathLike[str] = "report.html",
    title: str = "rankset report",
    worst: int = 10,
    query_text: Mapping[str, str] | None = None,
    fused: str | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    label_sets: Mapping[str, IntoLabels] | None = None,
    progress: IntoProgress = None,
    history: Store | str | os.PathLike[str] | pl.DataFrame | None = None,
    suite: SuiteResult | None = None,
    **evaluate_options: Any,
) -> Path:
    """Evaluate, compare, draw curves and diagnose runs, and write the HTML report.

    The runs are read more than once (evaluation, curves), so pass paths or in-memory
    frames, not open file objects.

    Parameters
    ----------
    runs, labels
        As for :func:`rankset.evaluate`.
    metrics
        Metrics of the summary, the comparison and the worst queries (the first one).
    baseline
        System the others are compared with; by default, with two systems or more, the
        first run given. With one system there is no comparison.
    k
        Cutoff of the diagnostic matrix (``ra_nwg@k``, ``proc@k``, ``pct_proc@k``).
    k_max
        The curves go from k = 1 to ``k_max``, for every measure of ``metrics`` that takes
        a cutoff.
    out
        The file to write (atomically: a temporary file beside it, then a rename).
    title, worst, query_text, fused
        As for :func:`build_report` (``fused``: the name of a fused run among ``runs``).
    n_resamples, seed
        Bootstrap resamples of the confidence intervals and random sign assignments of the
        randomization test; one seed for all.
    label_sets
        Other labels of the same pairs, ``{name: labels}`` (an LLM judge's, a shallow
        pool's): a "Label sets" section gives their agreement with ``labels`` (the
        reference; grades outside its scale are counted and left out) and, with two
        systems or more, the systems' order by the first metric under each.
    progress
        A callback called before each step with ``(steps done, steps in all, the step's
        name)``, during the comparison with the resamples drawn in the step's name
        (``"comparing: 1,200/4,000 resamples"``), and once at the end with ``(n, n,
        "done")``: the command line's progress display (steps that have nothing to do are
        counted as done). None (the default): a bar under the cell in a Jupyter
        notebook, nothing elsewhere; False: nothing. See :data:`rankset.stats.Progress`.
    history
        An experiment store (a :class:`rankset.experiments.Store`, its folder, or what
        its ``history()`` returned): a "History" section charts the logged means of
        ``metrics`` over time, with each system's last change. The store is read, not
        written: log this evaluation with ``Store.log`` or ``rankset log``.
    suite
        The same systems over several collections (:func:`rankset.evaluate_suite`,
        computed beforehand): a "Collections" section draws, per metric of ``metrics``
        the suite has (the first four), a heatmap of systems × collections with the rank
        in each cell, and the aggregate over collections (mean with its intervals, mean
        rank, Borda count). For a page of the suite alone, see :func:`suite_report`.
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``scale=``, ``pool=``, ``missing=``...). When
        ``scale`` is not given, the labels choose it (``rag5``, else ``binary`` or
        ``trec_dl``); when they fit no preset, the metrics that need a scale and the
        diagnostic matrix are left out, with a note.

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    ParameterError
        If ``worst`` is not an int >= 0, ``out``'s folder does not exist, or ``label_sets``
        is given without ``labels`` or names the reference (checked before anything is
        computed).

    Examples
    --------
    >>> import tempfile
    >>> runs = {"a": {"q1": {"d1": 1.0, "d2": 0.5}}, "b": {"q1": {"d2": 1.0, "d1": 0.5}}}
    >>> labels = {"q1": {"d1": 5, "d2": 3}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = report(runs, labels, out=Path(folder) / "r.html", n_resamples=100)
    ...     print(path.name, "Worst queries" in path.read_text(encoding="utf-8"))
    r.html True
    """
    check_int("worst", worst, 0)  # before seconds of work, not after
    if not Path(out).parent.is_dir():  # else the error would name a hidden temporary file
        msg = f"{os.fspath(out)}: the folder {Path(out).parent} does not exist; create it first."
        raise ParameterError(msg)
    reference_labels = _check_label_sets(labels, label_sets)
    logged = read_history(history)  # a folder that is no store fails before the work
    if suite is not None:
        check_suite(suite)
    names = canonical_names(metrics)
    options = EvaluateOptions.from_kwargs(evaluate_options, "report")
    step = Steps(resolve_progress(progress, "rankset report"), _STEPS)
    step("evaluating")
    result, names, notes = _evaluate(
        runs,
        labels,
        names,
        options,
        n_resamples=n_resamples,
        seed=seed,
        scale_given="scale" in evaluate_options,
    )
    rag_ok = not notes  # the only note yet: metrics left out for want of a grade scale
    result, relevant = _split_num_rel(result, names)
    baseline, comparison = _compare(
        result,
        baseline,
        notes,
        n_resamples=n_resamples,
        seed=seed,
        progress=step.part("comparing"),
    )
    with warnings.catch_warnings():
        # The evaluation above said which scale the labels implied; the curves, the
        # diagnosis and the rest read the same labels and would say it again.
        warnings.filterwarnings("ignore", _SCALE_CHOSEN, RanksetWarning)
        step(f"metric-vs-k curves (k = 1..{k_max})")
        curves = _curves(
            runs, labels, names, options, k_max=k_max, n_resamples=n_resamples, seed=seed
        )
        step("diagnostic matrix")
        diagnosis = _diagnose(runs, labels, result, names, options, k=k) if rag_ok else None
        step("label sets")
        agreement, stability = _label_sets(
            runs,
            labels,
            label_sets,
            result,
            options,
            reference_labels=reference_labels,
            n_resamples=n_resamples,
            seed=seed,
        )
        step("worst queries")
        explanations = None
        if worst and result.metrics:
            explanations = _worst_explanations(runs, labels, result, options)
    step("charts and page")
    page = build_report(
        result,
        baseline=baseline,
        comparison=comparison,
        curves=curves,
        diagnosis=diagnosis,
        title=title,
        worst=worst,
        query_text=query_text,
        notes=notes,
        fused=fused,
        n_resamples=n_resamples,
        worst_among=relevant,
        agreement=agreement,
        stability=stability,
        reference_labels=reference_labels,
        explanations=explanations,
        history=logged,
        suite=suite,
    )
    target = Path(out)
    with atomic_path(out) as temp:
        temp.write_text(page, encoding="utf-8")
    step.finish()
    return target


def _evaluate(
    runs: Any,
    labels: Any,
    names: list[str],
    options: EvaluateOptions,
    *,
    n_resamples: int,
    seed: int,
    scale_given: bool,
) -> tuple[EvaluationResult, list[str], list[str]]:
    """Evaluate the metrics ``names`` (and ``num_rel``); return the result, names and notes.

    ``num_rel`` picks the worst queries among those with a relevant label; it is measured
    in the same pass and left out of the page unless asked for. When the labels fit no
    grade scale and none was given (``scale_given``), the metrics that need one are left
    out, with a note (the only note: no note means the diagnostic matrix can be drawn).
    """
    notes: list[str] = []
    try:
        result = evaluate_with(
            runs, labels, _with_num_rel(names), options, n_resamples=n_resamples, seed=seed
        )
    except GradeScaleError as error:
        scaled = [name for name in names if needs_grade_scale(name)]
        if scale_given or not scaled:
            raise
        names = [name for name in names if name not in scaled]
        notes.append(f"Left out {', '.join(scaled)} and the diagnostic matrix: {error}")
        if not names:
            raise
        result = evaluate_with(
            runs, labels, _with_num_rel(names), options, n_resamples=n_resamples, seed=seed
        )
    return result, names, notes


def _compare(
    result: EvaluationResult,
    baseline: str | None,
    notes: list[str],
    *,
    n_resamples: int,
    seed: int,
    progress: Progress | None,
) -> tuple[str | None, pl.DataFrame | None]:
    """Compare the systems with the baseline (the first system by default); return both.

    No comparison with one system and no baseline named. A note says when no comparison
    can reach significance with ``n_resamples`` (appended to ``notes``).
    """
    systems = result.systems
    if baseline is None and len(systems) < 2:
        return baseline, None
    from rankset.comparison.pairwise import compare

    baseline = systems[0] if baseline is None else baseline
    rows = (len(systems) - 1) * len(result.metrics)
    unreachable = unreachable_significance(rows, n_resamples, COMPARISON_ALPHA, "holm")
    if unreachable is not None:
        notes.append(f"Comparison: {unreachable}")
    with warnings.catch_warnings():  # said once, in the page's notes
        warnings.filterwarnings("ignore", "With n_resamples=", RanksetWarning)
        comparison = compare(
            result,
            baseline,
            tests=[COMPARISON_TEST],
            n_resamples=n_resamples,
            seed=seed,
            alpha=COMPARISON_ALPHA,
            progress=progress,
        )
    return baseline, comparison


def _curves(
    runs: Any,
    labels: Any,
    names: Sequence[str],
    options: EvaluateOptions,
    *,
    k_max: int,
    n_resamples: int,
    seed: int,
) -> Curves | None:
    """Return the curves from k = 1 to ``k_max`` of the metrics that take a cutoff, if any."""
    from rankset.evaluation.cutoff_curves import curves as compute_curves

    measures = curve_measures(names)
    if not measures:
        return None
    return compute_curves(
        runs,
        labels,
        measures,
        ks=k_max,
        n_resamples=n_resamples,
        seed=seed,
        keep_per_query=False,  # the chart draws the means: memory for one system
        **options.as_kwargs(excluded=("k", "cutoffs", "default_k")),
    )


def _diagnose(
    runs: Any,
    labels: Any,
    result: EvaluationResult,
    names: Sequence[str],
    options: EvaluateOptions,
    *,
    k: int,
) -> Diagnosis:
    """Return the diagnostic matrix at ``k``: from ``result`` when it measured all it needs."""
    from rankset.diagnosis.quadrants import diagnose

    needed = {f"ra_nwg@{k}", f"proc@{k}", f"pct_proc@{k}"}
    if needed <= set(names):
        return diagnose(result, k=k)
    return diagnose(runs, labels, k=k, **options.as_kwargs(excluded=("k",)))


def _label_sets(
    runs: Any,
    labels: Any,
    label_sets: Mapping[str, Any] | None,
    result: EvaluationResult,
    options: EvaluateOptions,
    *,
    reference_labels: str,
    n_resamples: int,
    seed: int,
) -> tuple[Agreement | None, RankingStability | None]:
    """Return the label sets' agreement with the labels, and the systems' order under each.

    The order needs two systems or more; neither without ``label_sets``.
    """
    if not label_sets:
        return None, None
    from rankset.label_quality.assessors import agreement as label_agreement

    agreement = label_agreement(labels, dict(label_sets), out_of_scale="drop", confidence=None)
    if len(result.systems) < 2 or not result.metrics:
        return agreement, None
    from rankset.label_quality.rank_stability import ranking_stability

    stability = ranking_stability(
        runs,
        {reference_labels: labels, **label_sets},
        result.metrics[0],
        n_resamples=n_resamples,
        seed=seed,
        **options.as_kwargs(),
    )
    return agreement, stability


def _worst_explanations(
    runs: Any, labels: Any, result: EvaluationResult, options: EvaluateOptions
) -> pl.DataFrame | None:
    """Explain every query at the first metric's cutoff (the worst are picked from them)."""
    from rankset.diagnosis.explanations import explain
    from rankset.measures import parse_metric

    if labels is None:  # labels carried by the runs (samples): the report names no reason
        return None
    cutoff = parse_metric(result.metrics[0]).k
    return explain(
        runs,
        labels,
        cutoff if isinstance(cutoff, int) else None,
        # the level the evaluation used (the labels may have implied it)
        relevance_level=result.config.get("relevance_level", options.relevance_level),
        names=options.names,
    )


def _check_label_sets(labels: object, label_sets: Mapping[str, object] | None) -> str:
    """Return the reference labels' name (its file's stem, else "reference")."""
    if isinstance(labels, str | os.PathLike) and not isinstance(labels, bytes):
        reference = display_stem(Path(labels))
    else:
        reference = "reference"
    if not label_sets:
        return reference
    if not isinstance(label_sets, Mapping):
        msg = (
            "The 'label_sets' parameter must be a mapping {name: labels}. "
            f"Got {type(label_sets).__name__} instead."
        )
        raise ParameterError(msg)
    if labels is None:
        msg = "The 'label_sets' parameter needs 'labels': the reference they are compared with."
        raise ParameterError(msg)
    if reference in label_sets:
        msg = (
            f"The 'label_sets' parameter names {reference!r}, the name of the reference "
            "labels; give that label set another name."
        )
        raise ParameterError(msg)
    return reference


def _with_num_rel(names: Sequence[str]) -> list[str]:
    return list(names) if _NUM_REL in names else [*names, _NUM_REL]


def _split_num_rel(
    result: EvaluationResult, asked: Sequence[str]
) -> tuple[EvaluationResult, list[str]]:
    """Return the result without ``num_rel`` (unless asked for) and the queries it counts."""
    counts = result.per_query.filter(pl.col("metric") == _NUM_REL)
    relevant = counts.filter(pl.col("value") > 0)["query_id"].unique().sort().to_list()
    if _NUM_REL in asked:
        return result, relevant
    kept = pl.col("metric") != _NUM_REL
    config = {**result.config, "metrics": [m for m in result.metrics if m != _NUM_REL]}
    trimmed = dataclasses.replace(
        result,
        per_query=result.per_query.filter(kept),
        summary=result.summary.filter(kept),
        config=config,
    )
    return trimmed, relevant
