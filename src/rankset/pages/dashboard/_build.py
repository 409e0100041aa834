"""What the dashboard computes, and the object that holds the page: :func:`dashboard`.

The runs are evaluated once (the shown metrics, the three of the diagnosis and
``num_rel``), compared with every system as the baseline in turn (so the page's baseline
picker shows what :func:`rankset.compare` gives for that baseline), swept from k = 1 to
``depth`` (:func:`rankset.curves`) and diagnosed (:func:`rankset.diagnose`); the rankings'
top ``depth`` come from :func:`rankset.evaluation.numbered_runs`, in the evaluation's order.
"""

from __future__ import annotations

import html
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from rankset._typing import IntoLabels, IntoRun
from rankset._validation import check_choice, check_int
from rankset.comparison import check_suite
from rankset.pages.dashboard._charts import chart_specs
from rankset.pages.dashboard._data import assemble
from rankset.pages.dashboard._page import render_page
from rankset.pages.dashboard._texts import IntoTexts, cached_queries, read_texts, snippet_expr
from rankset.errors import GradeScaleError, RanksetWarning
from rankset.evaluation import EvaluateOptions, EvaluationResult, evaluate_with, numbered_runs
from rankset.experiments import read_history
from rankset.io import atomic_path, scan_labels
from rankset.measures import Metric, needs_grade_scale, parse_metric, parse_metrics
from rankset.measures.nuggets import NUGGET_MEASURES
from rankset._progress import IntoProgress, Progress, Steps, resolve_progress

if TYPE_CHECKING:
    from rankset.comparison import SuiteResult
    from rankset.experiments import Store

__all__ = ["DEFAULT_DASHBOARD_METRICS", "Dashboard", "dashboard"]

#: Metrics shown when none are named (``{k}`` is the dashboard's k).
DEFAULT_DASHBOARD_METRICS: Final = ("ndcg@{k}", "ap", "rr", "precision@{k}", "recall@100")

_TEST: Final = "randomization"
_ALPHA: Final = 0.05
_NUM_REL: Final = "num_rel"
_IFRAME_HEIGHT: Final = 900
#: The sections :func:`dashboard` counts: evaluation, comparisons, curves, diagnosis,
#: rankings, texts, the page.
_STEPS: Final = 7


@dataclass(frozen=True)
class Dashboard:
    """A built dashboard: one self-contained HTML page.

    Displays inline in Jupyter (in an ``<iframe>`` whose ``srcdoc`` is the page); write it
    with :meth:`save`.

    Attributes
    ----------
    html
        The document.
    systems, metrics
        What it compares, in order.
    n_queries
        Queries the page holds.
    n_queries_total
        Queries evaluated (more than ``n_queries`` when the page holds a sample).
    notes
        What the page says was left out or chosen for the user.
    """

    html: str = field(repr=False)
    systems: list[str]
    metrics: list[str]
    n_queries: int
    n_queries_total: int
    notes: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Size of the page in bytes (UTF-8)."""
        return len(self.html.encode("utf-8"))

    @property
    def sampled(self) -> bool:
        """Whether the page holds a sample of the queries."""
        return self.n_queries < self.n_queries_total

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` atomically (a temporary file beside it, then a rename).

        Returns
        -------
        pathlib.Path
            The written file.
        """
        target = Path(path)
        with atomic_path(target) as temp:
            temp.write_text(self.html, encoding="utf-8")
        return target

    def _repr_html_(self) -> str:
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
            f'style="width: 100%; height: {_IFRAME_HEIGHT}px; border: 1px solid #d1d9e0;" '
            'sandbox="allow-scripts allow-downloads" title="rankset dashboard"></iframe>'
        )

    def __repr__(self) -> str:
        held = f"{self.n_queries:,} queries"
        if self.sampled:
            held = f"{self.n_queries:,} of {self.n_queries_total:,} queries (a sample)"
        return (
            f"Dashboard({len(self.systems)} systems, {len(self.metrics)} metrics, {held}, "
            f"{self.size / 1e6:.1f} MB)"
        )


def dashboard(
    runs: IntoRun | Mapping[str, IntoRun],
    qrels: IntoLabels,
    *,
    texts: IntoTexts | None = None,
    queries: IntoTexts | None = None,
    baseline: str | None = None,
    metrics: str | Sequence[str] | None = None,
    k: int = 10,
    depth: int = 20,
    title: str = "rankset dashboard",
    snippet: int = 300,
    max_bytes: int = 20_000_000,
    extremes: int = 25,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: IntoProgress = None,
    history: Store | str | os.PathLike[str] | pl.DataFrame | None = None,
    suite: SuiteResult | None = None,
    **evaluate_options: Any,
) -> Dashboard:
    """Build an interactive, offline dashboard of runs: systems, queries and rankings.

    Three views in one HTML page: the *overview* (systems × metrics with confidence
    intervals and significance against a baseline, metric-vs-k curves, the diagnostic
    matrix), the *queries* (every query's values, the difference between two systems, its
    distribution) and the *query* view (two systems' top k side by side with grades, rank
    moves, snippets, the relevant documents neither found, and label-free contrasts). The
    view lives in the URL fragment: ``#query=<id>&a=<system>&b=<system>&metric=<name>&k=<k>``
    opens one query's side-by-side view (see :data:`rankset.pages.dashboard.FRAGMENT_KEYS`).

    Parameters
    ----------
    runs, qrels
        As for :func:`rankset.evaluate` (paths or frames: the runs are read more than once).
    texts
        Document texts (``doc_id, text``: a TSV, JSONL or Parquet file, a mapping or a
        frame); each is cut to ``snippet`` characters. Only the documents shown are kept.
    queries
        Query texts, in the same forms (``query_id, text``) or ``irds:<id>``; searched by
        the query filter. By default, labels given as ``irds:<id>`` lend their dataset's
        queries when ir_datasets has them cached (nothing is downloaded).
    baseline
        The system the others are compared with first (the page can pick another);
        by default the first run given.
    metrics
        The metrics shown (default :data:`DEFAULT_DASHBOARD_METRICS` at ``k``).
    k
        The initial cutoff of the side-by-side view, and the cutoff of the diagnostic
        matrix (``proc@k``, ``pct_proc@k``).
    depth
        How many documents of each ranking the page holds (the k slider's maximum), and
        the last cutoff of the curves.
    title
        The page's title.
    snippet
        Characters kept of each document text.
    max_bytes
        Bytes of embedded data above which the page holds a sample of the queries.
    extremes
        Per system, the biggest wins and as many losses against the baseline (first
        metric) that a sample always keeps.
    n_resamples, seed
        Bootstrap resamples and randomization-test permutations; their seed.
    progress
        A callback called before each section with ``(sections done, sections in all,
        the section's name)``, during the comparisons with the resamples drawn in the
        name, and once at the end with ``(n, n, "done")``. None (the default): a bar
        under the cell in a Jupyter notebook, nothing elsewhere; False: nothing. See
        :data:`rankset.stats.Progress`.
    history
        An experiment store (a :class:`rankset.experiments.Store`, its folder, or what
        its ``history()`` returned): a *History* view charts the logged means of the
        metric picked on the page over time, one line per system, with each system's
        last logged mean, the one before and the change. The store is read, not
        written: log this evaluation with ``Store.log`` or ``rankset log``.
    suite
        The same systems over several collections (:func:`rankset.evaluate_suite`,
        computed beforehand): a *Collections* view draws the picked metric as a heatmap
        of systems × collections (the rank on each collection in its cell) and tabulates
        the aggregate over collections (mean with its intervals, mean rank, Borda count).
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``scale=``, ``relevance_level=``, ...).

    Returns
    -------
    Dashboard

    Raises
    ------
    ParameterError
        On a bad ``k``, ``depth`` (< ``k``), ``snippet``, ``max_bytes`` or an unknown
        baseline, or a ``suite`` that is not a :class:`~rankset.comparison.SuiteResult`.
    InputFormatError
        When ``history`` names a folder that is not a store (before any work).

    Examples
    --------
    >>> board = dashboard(
    ...     {"bm25": "data/sample/bm25.trec", "rerank": "data/sample/rerank.trec"},
    ...     "data/sample/qrels.txt", scale="trec_dl", n_resamples=200,
    ... )
    >>> board  # doctest: +ELLIPSIS
    Dashboard(2 systems, 5 metrics, 40 queries, ... MB)
    """
    k = check_int("k", k, 1)
    depth = check_int("depth", depth, k)
    snippet = check_int("snippet", snippet, 10)
    max_bytes = check_int("max_bytes", max_bytes, 1)
    extremes = check_int("extremes", extremes, 0)
    options = EvaluateOptions.from_kwargs(evaluate_options, "dashboard")
    logged = read_history(history)  # a folder that is no store fails before the work
    if suite is not None:
        check_suite(suite)
    shown = _metric_names(metrics, k)
    notes: list[str] = []
    step = Steps(resolve_progress(progress, "rankset dashboard"), _STEPS)
    step("evaluating")
    result, shown, diagnosed = _evaluate(
        runs, qrels, shown, k, options, n_resamples=n_resamples, seed=seed, notes=notes
    )
    systems = result.systems
    if baseline is None:
        baseline = systems[0]
    check_choice("baseline", baseline, systems)
    comparisons = _compare_each(
        result,
        shown,
        n_resamples=n_resamples,
        seed=seed,
        notes=notes,
        progress=step.part("comparing"),
    )
    curve_of = {name: _curve_measure(name) for name in shown}
    step(f"metric-vs-k curves (k = 1..{depth})")
    curves = _curves(runs, qrels, curve_of, depth, options, n_resamples=n_resamples, seed=seed)
    step("diagnostic matrix")
    diagnosis = None
    if diagnosed:
        from rankset.diagnosis.quadrants import diagnose

        diagnosis = diagnose(result, k=k)
    step(f"rankings (top {depth})")
    top = numbered_runs(
        runs, names=options.names, order=options.order, score_precision=options.score_precision
    ).filter(pl.col("pos") <= depth)
    labels = (
        scan_labels(qrels)
        .collect()
        .select(pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String), "grade")
    )
    step("texts")
    doc_texts = _snippets(
        texts, set(top["doc_id"].unique()) | set(labels["doc_id"]), snippet, "texts"
    )
    if queries is None:  # labels named irds:<id> lend their dataset's cached queries
        queries = cached_queries(qrels)
    query_texts = _snippets(queries, set(result.per_query["query_id"].unique()), 500, "queries")
    step("charts and page")
    payload = assemble(
        result,
        metrics=shown,
        baseline=baseline,
        top=top,
        labels=labels,
        texts=doc_texts,
        query_texts=query_texts,
        comparisons=comparisons,
        curves=curves,
        curve_of=curve_of,
        diagnosis=diagnosis,
        k=k,
        depth=depth,
        max_bytes=max_bytes,
        extremes=extremes,
        seed=seed,
        page={"title": title, "snippet": snippet, "seed": seed, "n_resamples": n_resamples},
        history=logged,
        suite=suite,
    )
    first_curve = next((curve_of[name] for name in shown if curve_of[name]), None)
    specs = chart_specs(
        systems,
        metric=shown[0],
        measure=first_curve if curves is not None else None,
        baseline=baseline,
        k=k,
        diagnosis_k=k if diagnosis is not None else None,
        history=payload.data["history"] is not None,
        collections=None if suite is None else suite.collections,
    )
    from rankset.charts import javascript_bundle

    page = render_page(
        payload.data,
        specs,
        bundle=javascript_bundle(),
        notes=notes,
        significance=_significance_text(len(systems), len(shown), n_resamples, seed),
        diagnosis=_diagnosis_text(diagnosis is not None, k),
    )
    step.finish()
    return Dashboard(
        html=page,
        systems=systems,
        metrics=shown,
        n_queries=len(payload.sample.query_ids),
        n_queries_total=payload.sample.n_total,
        notes=notes,
    )


def _metric_names(metrics: str | Sequence[str] | None, k: int) -> list[str]:
    asked = [name.format(k=k) for name in DEFAULT_DASHBOARD_METRICS] if metrics is None else metrics
    return list(dict.fromkeys(metric.name for metric in parse_metrics(asked)))


def _evaluate(
    runs: Any,
    qrels: Any,
    shown: list[str],
    k: int,
    options: EvaluateOptions,
    *,
    n_resamples: int,
    seed: int,
    notes: list[str],
) -> tuple[EvaluationResult, list[str], bool]:
    """Evaluate the shown metrics with the diagnosis's three and ``num_rel``.

    When the labels fit no grade scale and none was given, the metrics that need one and
    the diagnostic matrix are left out, with a note. Returns the result, the shown metrics
    kept, and whether the diagnosis can be drawn. Warnings (the scale the labels chose)
    are said again in the page's notes.
    """
    diagnosis = [f"ra_nwg@{k}", f"proc@{k}", f"pct_proc@{k}"]
    asked = list(dict.fromkeys([*shown, *diagnosis, _NUM_REL]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RanksetWarning)
        try:
            result = evaluate_with(runs, qrels, asked, options, n_resamples=n_resamples, seed=seed)
            diagnosed = True
        except GradeScaleError as error:
            if options.scale != "auto":
                raise
            scaled = [name for name in shown if needs_grade_scale(name)]
            shown = [name for name in shown if name not in scaled]
            if not shown:
                raise
            left_out = ", ".join([*scaled, "the diagnostic matrix"])
            notes.append(f"Left out {left_out}: {error}")
            asked = list(dict.fromkeys([*shown, _NUM_REL]))
            result = evaluate_with(runs, qrels, asked, options, n_resamples=n_resamples, seed=seed)
            diagnosed = False
    for warning in caught:
        if issubclass(warning.category, RanksetWarning):
            notes.append(str(warning.message))
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return result, shown, diagnosed


def _compare_each(
    result: EvaluationResult,
    shown: list[str],
    *,
    n_resamples: int,
    seed: int,
    notes: list[str],
    progress: Progress | None = None,
) -> dict[str, pl.DataFrame]:
    """Compare the systems with each one as the baseline: ``{baseline: compare(...)}``.

    ``progress`` hears each comparison's resamples, with the baseline's place in the text.
    """
    systems = result.systems
    if len(systems) < 2:
        return {}
    from rankset.comparison import compare, unreachable_significance

    rows = (len(systems) - 1) * len(shown)
    unreachable = unreachable_significance(rows, n_resamples, _ALPHA, "holm")
    if unreachable is not None:
        notes.append(f"Comparison: {unreachable}")
    out = {}
    with warnings.catch_warnings():  # said once, in the notes
        warnings.filterwarnings("ignore", "With n_resamples=", RanksetWarning)
        for number, baseline in enumerate(systems, start=1):
            out[baseline] = compare(
                result,
                baseline,
                metrics=shown,
                tests=[_TEST],
                n_resamples=n_resamples,
                seed=seed,
                alpha=_ALPHA,
                progress=_of_baseline(progress, number, len(systems)),
            )
    return out


def _of_baseline(progress: Progress | None, number: int, count: int) -> Progress | None:
    """Pass a comparison's count on, naming its baseline's place: ``baseline 2 of 3``."""
    if progress is None:
        return None
    outer = progress

    def inner(done: int, total: int, what: str) -> None:
        outer(done, total, f"{what}, baseline {number} of {count}")

    return inner


def _curve_measure(name: str) -> str | None:
    """Return a metric's curve: its measure and parameters without the cutoff (None: none)."""
    metric = parse_metric(name)
    if metric.spec.cutoff == "none" or metric.spec.name in NUGGET_MEASURES:
        return None
    return Metric(metric.measure, None, metric.params).name


def _curves(
    runs: Any,
    qrels: Any,
    curve_of: Mapping[str, str | None],
    depth: int,
    options: EvaluateOptions,
    *,
    n_resamples: int,
    seed: int,
) -> Any:
    measures = list(dict.fromkeys(name for name in curve_of.values() if name))
    if not measures:
        return None
    from rankset.evaluation import curves

    with warnings.catch_warnings():  # the evaluation said them already
        warnings.simplefilter("ignore", RanksetWarning)
        return curves(
            runs,
            qrels,
            measures,
            ks=depth,
            n_resamples=n_resamples,
            seed=seed,
            keep_per_query=False,
            **options.as_kwargs(excluded=("k", "cutoffs", "default_k")),
        )


def _snippets(
    source: IntoTexts | None, keep: set[str], length: int, what: str
) -> pl.DataFrame | None:
    if source is None:
        return None
    return read_texts(source, keep=keep, what=what).with_columns(snippet_expr("text", length))


def _significance_text(n_systems: int, n_metrics: int, n_resamples: int, seed: int) -> str:
    if n_systems < 2:
        return "One system: no comparison."
    return (
        f"Mean [95% bootstrap CI] over the queries; under it, the difference with the "
        f"baseline: \u25b2 significantly better, \u25bc significantly worse (paired "
        f"randomization test, {n_resamples:,} permutations, seed {seed}, Holm correction over "
        f"the {(n_systems - 1) * n_metrics} comparisons with the baseline, alpha = {_ALPHA}). "
        "Click a metric to pick it, a point of the chart to make its system the baseline."
    )


def _diagnosis_text(present: bool, k: int) -> str:
    if not present:
        return "No diagnostic matrix: the labels fit no grade scale."
    return (
        f"Each (system, query) in one quadrant: PROC@{k} is the share of the query's useful "
        f"evidence the candidates hold (low: a retrieval miss), %PROC@{k} the share of that "
        f"the top {k} realises (low: a reranking miss); see rankset.diagnose."
    )
