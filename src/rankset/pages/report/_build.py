"""The report's face: :func:`report` draws an :class:`~rankset.pages.Analysis` as one page.

The orchestration is :func:`rankset.pages.analyse`'s; this module only hands its parts to
:func:`~rankset.pages.report._page.build_report`, which lays out the sections.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from rankset._progress import IntoProgress, Steps, resolve_progress
from rankset._typing import Correction, IntoLabels, IntoRun, Test
from rankset._validation import check_int
from rankset.errors import ParameterError
from rankset.pages._analysis import ANALYSIS_STEPS, Analysis
from rankset.pages._page import ANALYSIS_DEFAULTS, Report, analysis_of
from rankset.pages.report._page import build_report

if TYPE_CHECKING:
    import polars as pl

    from rankset.comparison import SuiteResult
    from rankset.experiments import Store

__all__ = ["render", "report"]

_TITLE: Final = "rankset report"


def report(
    runs: Analysis | IntoRun | Mapping[str, IntoRun],
    labels: IntoLabels | None = None,
    *,
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
    worst: int = 10,
    query_text: Mapping[str, str] | None = None,
    fused: str | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: IntoProgress = None,
    **evaluate_options: Any,
) -> Report:
    """Draw the static HTML report of an analysis, or of runs and labels.

    The page needs nothing but itself: one inlined JavaScript bundle draws the charts, a
    Content-Security-Policy forbids it to load anything, and every user string is escaped.

    Parameters
    ----------
    runs
        An :class:`~rankset.pages.Analysis` (:func:`rankset.analyse`), or runs as for
        :func:`rankset.evaluate`, analysed here with the options below.
    labels, metrics, baseline, k, depth, label_sets, history, suite
        As for :func:`rankset.analyse` (not with an Analysis).
    n_resamples, test, correction, alpha, seed
        The resampling policy, as for :func:`rankset.analyse` (not with an Analysis).
    title
        The page's title (escaped).
    worst
        How many of each system's worst queries to list, by the first metric, among the
        queries with a relevant label (0 leaves the section out).
    query_text
        ``{query_id: text}`` shown next to the worst queries.
    fused
        The name of a fused run among the systems: a section counts the queries that
        moved between quadrants from each input run to it.
    out
        A file to write the page to (atomically: a temporary file beside it, then a
        rename); :attr:`Report.path` names it.
    progress
        A callback ``(done, total, what)`` called before each step; None: a bar in a
        Jupyter notebook, nothing elsewhere; False: nothing.
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``scale=``, ``pool=``...; not with an Analysis).

    Returns
    -------
    Report
        The page: ``.html``, ``.analysis``, ``.save(path)``; it displays in Jupyter.

    Raises
    ------
    ParameterError
        If ``worst`` is not an int >= 0 or ``out``'s folder does not exist (checked
        before anything is computed), or an Analysis comes with analysis options.

    Examples
    --------
    >>> import tempfile
    >>> import rankset
    >>> runs = {"a": {"q1": {"d1": 1.0, "d2": 0.5}}, "b": {"q1": {"d2": 1.0, "d1": 0.5}}}
    >>> labels = {"q1": {"d1": 5, "d2": 3}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     page = rankset.report(runs, labels, out=Path(folder) / "r.html", n_resamples=100)
    ...     print(page.path.name, "Worst queries" in page.path.read_text(encoding="utf-8"))
    r.html True
    """
    check_int("worst", worst, 0)  # before seconds of work, not after
    if out is not None and not Path(out).parent.is_dir():  # else a hidden temporary file
        msg = f"{os.fspath(out)}: the folder {Path(out).parent} does not exist; create it first."
        raise ParameterError(msg)
    step = Steps(resolve_progress(progress, "rankset report"), ANALYSIS_STEPS + 2)
    # the analysis options, as given: analysis_of refuses them beside an Analysis
    options = {name: value for name, value in locals().items() if name in ANALYSIS_DEFAULTS}
    analysis = analysis_of(runs, options, evaluate_options, step)
    if analysis.label_free:
        msg = (
            "No labels: the report shows metrics, so it needs labels (labels=, CLI --qrels). "
            "The dashboard works without them: rankset.dashboard(runs) contrasts the rankings."
        )
        raise ParameterError(msg)
    step("worst queries")
    if worst:
        analysis.explanations  # noqa: B018 (read now, so the step counts its time)
    step("charts and page")
    page = Report(
        html=render(analysis, title=title, worst=worst, query_text=query_text, fused=fused),
        analysis=analysis,
    )
    if out is not None:
        page = Report(html=page.html, analysis=analysis, path=page.save(out))
    step.finish()
    return page


def render(
    analysis: Analysis,
    *,
    title: str = _TITLE,
    worst: int = 10,
    query_text: Mapping[str, str] | None = None,
    fused: str | None = None,
) -> str:
    """Return the report's HTML of ``analysis`` (see :func:`report`)."""
    if fused is not None and fused not in analysis.systems:
        msg = f"fused={fused!r} names no system: the systems are {analysis.systems}."
        raise ParameterError(msg)
    policy = analysis.resampling
    return build_report(
        analysis.result,
        baseline=analysis.baseline,
        comparison=analysis.comparison(),
        curves=analysis.curves,
        diagnosis=analysis.diagnosis,
        title=title,
        worst=worst,
        query_text=query_text,
        notes=analysis.notes,
        fused=fused,
        n_resamples=policy.n_resamples,
        n_permutations=policy.n_permutations,
        test=policy.test,
        alpha=policy.alpha,
        worst_among=analysis.relevant_queries if analysis.labels is not None else None,
        correction=policy.correction,
        agreement=analysis.agreement,
        stability=analysis.stability,
        reference_labels=analysis.reference_labels,
        explanations=analysis.explanations if worst else None,
        history=analysis.history,
        suite=analysis.suite,
        judges=analysis.judges_view,
        cost_quality=analysis.cost_quality,
    )
