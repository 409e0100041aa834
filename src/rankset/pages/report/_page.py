"""The page of a report: which sections have their input, in which order (:func:`build_report`).

:func:`build_report` hands the sections to :mod:`rankset.pages.report._sections`, loaded on the
first page built: it draws with Altair (:mod:`rankset.charts`), so ``import rankset.pages.report``
stays free of Altair until then.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

import polars as pl

from rankset._typing import Correction, choices_of
from rankset._validation import check_choice, check_int
from rankset.evaluation import EvaluationResult

if TYPE_CHECKING:
    from rankset.comparison import SuiteResult
    from rankset.diagnosis.quadrants import Diagnosis
    from rankset.evaluation.cutoff_curves import Curves
    from rankset.label_quality.assessors import Agreement
    from rankset.label_quality.rank_stability import RankingStability
    from rankset.pages._judges import JudgesView
    from rankset.pages.report._sections import QuerySample


__all__ = ["build_report"]


def build_report(
    result: EvaluationResult,
    *,
    baseline: str | None = None,
    comparison: pl.DataFrame | None = None,
    curves: Curves | None = None,
    diagnosis: Diagnosis | None = None,
    title: str = "rankset report",
    worst: int = 10,
    query_text: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
    fused: str | None = None,
    n_resamples: int | None = None,
    n_permutations: int | None = None,
    test: str = "randomization",
    alpha: float = 0.05,
    worst_among: Collection[str] | None = None,
    correction: Correction | None = "holm",
    agreement: Agreement | None = None,
    stability: RankingStability | None = None,
    reference_labels: str = "reference",
    explanations: pl.DataFrame | None = None,
    history: pl.DataFrame | None = None,
    suite: SuiteResult | None = None,
    judges: JudgesView | None = None,
    cost_quality: pl.DataFrame | None = None,
) -> str:
    """Render results as one self-contained HTML document.

    Sections without their input are left out (with a line saying so): the comparison needs
    ``comparison``, the curves ``curves``, the diagnostic matrix ``diagnosis``. Nothing is
    computed here but formatting and the choice of the worst queries.

    Parameters
    ----------
    result
        The evaluation: header, summary table and worst queries.
    baseline
        The baseline of ``comparison``: named in its caption and used for the per-query
        difference chart of the first metric (left out when ``None``).
    comparison
        A frame from :func:`rankset.compare`; the rows of the randomization test are shown
        (those of the first test in the frame when it has no randomization row).
    curves
        Metric-vs-k curves from :func:`rankset.curves`.
    diagnosis
        The retrieval-versus-reranking matrix from :func:`rankset.diagnose`.
    title
        The page title (escaped).
    worst
        How many of each system's worst queries to list (0 leaves the section out).
    query_text
        ``{query_id: text}`` shown next to the worst queries.
    notes
        Lines shown under the header (escaped), e.g. what :func:`report` left out.
    fused
        The system name of a fused run (:func:`rankset.fuse`): with ``diagnosis``, a
        section counts the queries that moved between quadrants from each input run to
        it (:func:`rankset.fusion.fusion_changes`).
    n_resamples
        The bootstrap resamples of the intervals, stated in their captions.
    n_permutations
        The resamples of the comparison's test and intervals (default ``n_resamples``).
    test, alpha
        The comparison's test (its rows are shown) and the level of its marks.
    worst_among
        The query ids the worst queries are picked from (:func:`report` passes those
        with a relevant label: a query without one scores 0 and says nothing about a
        system); every query when ``None``.
    correction
        The correction :func:`rankset.compare` applied to ``comparison``'s p-values,
        named in its caption (``None``: not adjusted).
    agreement
        Other label sets against the reference labels (:func:`rankset.agreement`): a
        "Label sets" section with its table and confusion matrices.
    stability
        The systems' order under each label set (:func:`rankset.ranking_stability`),
        shown in the same section (needs ``agreement``).
    reference_labels
        The name of the reference labels in that section.
    explanations
        ``system, query_id, reason`` (:func:`rankset.explain`): the worst queries show which
        relevant documents each system found, where, and which it missed.
    history
        An experiment store's history (:meth:`rankset.experiments.Store.history`): a
        "History" section charts the logged means of the report's metrics over time.
    suite
        The same systems over several collections (:func:`rankset.evaluate_suite`): a
        "Collections" section draws a heatmap of systems × collections per report metric
        the suite has (the first four; the rank in each cell) and the aggregate table.
    judges
        The other label sets judged against the reference
        (:attr:`rankset.pages.Analysis.judges_view`): a "Judges" section with both
        leaderboards, their correlations, the topics of most disagreement, calibration.
    cost_quality
        Quality beside cost (:func:`rankset.comparison.cost_quality`): with the result's
        ``costs``, a "Cost" section charts the first metric against each cost column, the
        Pareto front marked, and tabulates the costs.

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    ParameterError
        If ``worst`` is not an int >= 0.

    Examples
    --------
    >>> import rankset
    >>> res = rankset.evaluate({"<q>": {"d1": 1.0}}, {"<q>": {"d1": 1}}, ["rr"])
    >>> page = build_report(res, title="A & B")
    >>> "<title>A &amp; B</title>" in page, "<td>&lt;q&gt;</td>" in page
    (True, True)
    """
    worst = check_int("worst", worst, 0)
    if correction is not None:
        check_choice("correction", correction, choices_of(Correction))
    # Loads Altair (rankset.charts), so only once a page is built.
    from rankset.pages.report import _sections

    sample = _sections.query_sample(result)
    if sample.query_ids is not None:
        notes = [
            *notes,
            f"{sample.n_queries:,} queries: the per-query charts draw a sample of "
            f"{sample.query_ids.len():,} (tables, means, intervals and tests use them all).",
        ]
    sections = [
        ("summary", "Summary", _sections.summary_section(result, sample, n_resamples)),
        *_analysis_sections(
            result,
            sample,
            baseline=baseline,
            comparison=comparison,
            curves=curves,
            diagnosis=diagnosis,
            fused=fused,
            n_resamples=n_resamples if n_permutations is None else n_permutations,
            correction=correction,
            test=test,
            alpha=alpha,
        ),
    ]
    if result.costs is not None and result.costs.height:
        from rankset.pages.report._costs import costs_section

        costs_html = costs_section(result.costs, cost_quality, result.systems)
        sections.append(("costs", "Cost", costs_html))
    if history is not None and history.height:
        from rankset.pages.report._history import history_section

        sections.append(
            ("history", "History", history_section(history, result.metrics, result.systems)),
        )
    if suite is not None:
        from rankset.pages.report._suite import suite_section

        sections.append(("collections", "Collections", suite_section(suite, result.metrics)))
    if agreement is not None:
        labels_html = _sections.labels_section(result, agreement, stability, reference_labels)
        sections.append(("labels", "Label sets", labels_html))
    if judges is not None:
        from rankset.pages.report._judges import judges_section

        judges_html = judges_section(judges, result.systems, query_text)
        sections.append(("judges", "Judges", judges_html))
    if worst and result.metrics:
        worst_html = _sections.worst_section(result, worst, query_text, worst_among, explanations)
        sections.append(("worst", "Worst queries", worst_html))
    missing = [
        name
        for name, given in (
            ("comparison (one system, or no baseline)", comparison is not None),
            ("metric-vs-k curves", curves is not None),
            ("diagnostic matrix", diagnosis is not None),
        )
        if not given
    ]
    return _sections.document(result, sections, title=title, notes=notes, missing=missing)


def _analysis_sections(
    result: EvaluationResult,
    sample: QuerySample,
    *,
    baseline: str | None,
    comparison: pl.DataFrame | None,
    curves: Curves | None,
    diagnosis: Diagnosis | None,
    fused: str | None,
    n_resamples: int | None,
    correction: Correction | None,
    test: str,
    alpha: float,
) -> list[tuple[str, str, str]]:
    """Return the sections whose input was given and is not empty: ``(id, title, html)``.

    The comparison, the curves, the diagnostic matrix and what fusion changed, in that
    order.
    """
    from rankset.pages.report import _sections

    sections = []
    if comparison is not None and comparison.height:
        html = _sections.comparison_section(
            result,
            comparison,
            baseline,
            test=test,
            alpha=alpha,
            sample=sample,
            n_resamples=n_resamples,
            correction=correction,
        )
        sections.append(("comparison", "Comparison", html))
    if curves is not None and curves.summary.height:
        sections.append(("curves", "Metric vs k", _sections.curves_section(curves)))
    if diagnosis is not None and diagnosis.per_query.height:
        html = _sections.diagnosis_section(diagnosis, sample)
        sections.append(("diagnosis", "Diagnostic matrix", html))
        if fused is not None:
            html = _sections.fusion_section(diagnosis, fused)
            sections.append(("fusion", "What fusion changed", html))
    return sections
