"""The dashboard's face: :func:`dashboard` draws an :class:`~rankset.pages.Analysis`.

The orchestration is :func:`rankset.pages.analyse`'s (evaluation, comparisons with every
system as the baseline in turn, so the page's baseline picker shows what
:func:`rankset.compare` gives for that baseline, curves, diagnosis, the rankings' top
``depth``); this module reads the texts and hands the parts to the page's data and charts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from rankset._progress import IntoProgress, Steps, resolve_progress
from rankset._typing import Correction, IntoLabels, IntoRun, Test
from rankset._validation import check_int
from rankset.pages._analysis import ANALYSIS_STEPS, Analysis
from rankset.pages._page import ANALYSIS_DEFAULTS, Dashboard, analysis_of
from rankset.pages._texts import IntoTexts, read_texts, snippet_expr
from rankset.pages.dashboard._charts import chart_specs
from rankset.pages.dashboard._costs import costs_data
from rankset.pages.dashboard._data import assemble
from rankset.pages.dashboard._page import render_page

if TYPE_CHECKING:
    from rankset.comparison import SuiteResult
    from rankset.experiments import Store

__all__ = ["dashboard", "render"]

_TITLE: Final = "rankset dashboard"


def dashboard(
    runs: Analysis | IntoRun | Mapping[str, IntoRun],
    labels: IntoLabels | None = None,
    *,
    texts: IntoTexts | None = None,
    queries: IntoTexts | None = None,
    metrics: str | Sequence[str] | None = None,
    baseline: str | None = None,
    k: int = 10,
    depth: int = 20,
    label_sets: Mapping[str, IntoLabels] | None = None,
    history: Store | str | os.PathLike[str] | pl.DataFrame | None = None,
    suite: SuiteResult | None = None,
    n_resamples: int | None = None,
    test: Test = "randomization",
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    seed: int = 0,
    title: str = _TITLE,
    snippet: int = 300,
    max_bytes: int = 20_000_000,
    extremes: int = 25,
    progress: IntoProgress = None,
    **evaluate_options: Any,
) -> Dashboard:
    """Build an interactive, offline dashboard of an analysis, or of runs and labels.

    Three views in one HTML page: the *overview* (systems × metrics with confidence
    intervals and significance against a baseline, metric-vs-k curves, the diagnostic
    matrix), the *queries* (every query's values, the difference between two systems, its
    distribution) and the *query* view (two systems' top k side by side with grades, rank
    moves, snippets, the relevant documents neither found, and label-free contrasts). The
    view lives in the URL fragment: ``#query=<id>&a=<system>&b=<system>&metric=<name>&k=<k>``
    opens one query's side-by-side view (see :data:`rankset.pages.dashboard.FRAGMENT_KEYS`).

    Parameters
    ----------
    runs
        An :class:`~rankset.pages.Analysis` (:func:`rankset.analyse`), or runs as for
        :func:`rankset.evaluate`, analysed here with the options below.
    labels, metrics, baseline, k, depth, label_sets, history, suite
        As for :func:`rankset.analyse` (not with an Analysis). ``k`` is also the initial
        cutoff of the side-by-side view; ``depth`` the k slider's maximum. Without labels
        the page has no metric: it contrasts the rankings (overlap@k, Jaccard@k, RBO and
        tau_AP of A's and B's top k per query, least similar first).
    n_resamples, test, correction, alpha, seed
        The resampling policy, as for :func:`rankset.analyse` (not with an Analysis).
    texts
        Document texts (``doc_id, text``: a TSV, JSONL or Parquet file, a mapping or a
        frame); each is cut to ``snippet`` characters. Only the documents shown are kept.
    queries
        Query texts, in the same forms (``query_id, text``) or ``irds:<id>``; searched by
        the query filter. By default, labels given as ``irds:<id>`` lend their dataset's
        queries when ir_datasets has them cached (nothing is downloaded).
    title
        The page's title.
    snippet
        Characters kept of each document text.
    max_bytes
        Bytes of embedded data above which the page holds a sample of the queries.
    extremes
        Per system, the biggest wins and as many losses against the baseline (first
        metric) that a sample always keeps.
    progress
        A callback ``(done, total, what)`` called before each step; None: a bar in a
        Jupyter notebook, nothing elsewhere; False: nothing.
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``scale=``, ``relevance_level=``...; not with
        an Analysis).

    Returns
    -------
    Dashboard
        The page: ``.html``, ``.analysis``, ``.save(path)``; it displays in Jupyter.

    Raises
    ------
    ParameterError
        On a bad ``k``, ``depth``, ``snippet``, ``max_bytes`` or an unknown baseline, a
        ``suite`` that is not a :class:`~rankset.comparison.SuiteResult`, or an Analysis
        given with analysis options.
    InputFormatError
        When ``history`` names a folder that is not a store (before any work).

    Examples
    --------
    >>> import rankset
    >>> board = rankset.dashboard(
    ...     {"bm25": "data/sample/bm25.trec", "rerank": "data/sample/rerank.trec"},
    ...     "data/sample/qrels.txt", scale="trec_dl", n_resamples=200, progress=False,
    ... )
    >>> board  # doctest: +ELLIPSIS
    Dashboard(2 systems, 5 metrics, 40 queries, ... MB)
    """
    snippet = check_int("snippet", snippet, 10)
    max_bytes = check_int("max_bytes", max_bytes, 1)
    extremes = check_int("extremes", extremes, 0)
    if not isinstance(runs, Analysis):
        check_int("depth", depth, check_int("k", k, 1))  # the side-by-side view shows k
    step = Steps(resolve_progress(progress, "rankset dashboard"), ANALYSIS_STEPS + 3)
    # the analysis options, as given: analysis_of refuses them beside an Analysis
    options = {name: value for name, value in locals().items() if name in ANALYSIS_DEFAULTS}
    analysis = analysis_of(runs, options, evaluate_options, step)
    step(f"rankings (top {analysis.depth})")
    analysis.rankings  # noqa: B018 (read now, so the step counts its time)
    step("texts")
    doc_texts = None
    if texts is not None:  # the ids kept: a set of every shown document, only when needed
        shown_docs = set(analysis.rankings["doc_id"].unique())
        if analysis.labels is not None:
            shown_docs |= set(analysis.labels["doc_id"])
        doc_texts = _snippets(texts, shown_docs, snippet, "texts")
    if queries is None:  # labels named irds:<id> lend their dataset's cached queries
        queries = analysis.query_source
    query_texts = None
    if queries is not None:
        query_texts = _snippets(queries, set(analysis.query_ids), 500, "queries")
    step("charts and page")
    board = render(
        analysis,
        texts=doc_texts,
        query_texts=query_texts,
        title=title,
        snippet=snippet,
        max_bytes=max_bytes,
        extremes=extremes,
    )
    step.finish()
    return board


def render(
    analysis: Analysis,
    *,
    texts: pl.DataFrame | None = None,
    query_texts: pl.DataFrame | None = None,
    title: str = _TITLE,
    snippet: int = 300,
    max_bytes: int = 20_000_000,
    extremes: int = 25,
) -> Dashboard:
    """Return the dashboard of ``analysis`` (see :func:`dashboard`).

    ``texts`` and ``query_texts`` are ``id, text`` frames already cut to snippets.
    """
    systems = analysis.systems
    policy = analysis.resampling
    shown = list(analysis.metrics)
    baseline = analysis.baseline if analysis.baseline is not None else systems[0]
    comparisons = {}
    if analysis.comparisons is not None:
        for name in systems:
            frame = analysis.comparison(name)
            if frame is not None and frame.height:
                comparisons[name] = frame
    labels = analysis.labels
    if labels is None:
        labels = pl.DataFrame(
            schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64}
        )
    payload = assemble(
        analysis.result,
        systems=systems,
        metrics=shown,
        baseline=baseline,
        top=analysis.rankings,
        all_positions=analysis.positions,
        labels=labels,
        texts=texts,
        query_texts=query_texts,
        comparisons=comparisons,
        curves=analysis.curves,
        curve_of=analysis.curve_of,
        diagnosis=analysis.diagnosis,
        k=analysis.k,
        depth=analysis.depth,
        max_bytes=max_bytes,
        extremes=extremes,
        seed=policy.seed,
        page={
            "title": title,
            "snippet": snippet,
            "seed": policy.seed,
            "n_resamples": policy.n_resamples,
        },
        history=analysis.history,
        suite=analysis.suite,
        judges=analysis.judges_view,
    )
    payload.data["costs"] = costs_data(analysis.cost_quality, analysis.result.costs)
    judges = payload.data["judges"]
    first_curve = next((analysis.curve_of[name] for name in shown if analysis.curve_of[name]), None)
    specs = (
        {}
        if analysis.label_free
        else chart_specs(
            systems,
            metric=shown[0],
            measure=first_curve if analysis.curves is not None else None,
            baseline=baseline,
            k=analysis.k,
            diagnosis_k=analysis.k if analysis.diagnosis is not None else None,
            history=payload.data["history"] is not None,
            collections=None if analysis.suite is None else analysis.suite.collections,
            judges=bool(judges and judges["boards"]),
            calibration=bool(judges and judges["calibration"]),
            costs=None if payload.data["costs"] is None else payload.data["costs"]["columns"],
        )
    )
    from rankset.charts import javascript_bundle

    notes = list(analysis.notes)
    page = render_page(
        payload.data,
        specs,
        bundle=javascript_bundle(),
        notes=notes,
        significance=_significance_text(analysis),
        diagnosis=_diagnosis_text(analysis.diagnosis is not None, analysis.k, analysis.label_free),
    )
    return Dashboard(
        html=page,
        analysis=analysis,
        n_queries=len(payload.sample.query_ids),
        n_queries_total=payload.sample.n_total,
        notes=notes,
    )


def _snippets(
    source: IntoTexts | None, keep: set[str], length: int, what: str
) -> pl.DataFrame | None:
    if source is None:
        return None
    return read_texts(source, keep=keep, what=what).with_columns(snippet_expr("text", length))


def _significance_text(analysis: Analysis) -> str:
    if analysis.label_free:
        return (
            "No labels, so no metric: each system's top k against the baseline's, averaged "
            "over the queries (overlap@k, rank-biased overlap, tau_AP). The Queries tab lists "
            "the queries where A and B differ most first."
        )
    if len(analysis.systems) < 2:
        return "One system: no comparison."
    rows = (len(analysis.systems) - 1) * len(analysis.metrics)
    return (
        "Mean [95% bootstrap CI] over the queries; under it, the difference with the "
        "baseline: \u25b2 significantly better, \u25bc significantly worse over the "
        f"{rows} comparisons with the baseline. {analysis.resampling.describe()} "
        "Click a metric to pick it, a point of the chart to make its system the baseline."
    )


def _diagnosis_text(present: bool, k: int, label_free: bool = False) -> str:
    if label_free:
        return ""
    if not present:
        return "No diagnostic matrix: the labels fit no grade scale."
    return (
        f"Each (system, query) in one quadrant: PROC@{k} is the share of the query's useful "
        f"evidence the candidates hold (low: a retrieval miss), %PROC@{k} the share of that "
        f"the top {k} realises (low: a reranking miss); see rankset.diagnose."
    )
