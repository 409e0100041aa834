"""One computed analysis behind both pages: :func:`analyse` and :class:`Analysis`.

:func:`analyse` runs the orchestration once: the evaluation (the shown metrics, the three
of the diagnostic matrix and ``num_rel`` in one pass), the comparisons against every
baseline, the metric-vs-k curves, the diagnostic matrix, the top of each ranking, the
worst queries' explanations, the label sets' agreement, the history and the suite. The
report (:func:`rankset.report`) and the dashboard (:func:`rankset.dashboard`) only draw
an :class:`Analysis`, so for the same inputs they show the same numbers.

Without labels (none given, none carried by the runs, no nuggets) the analysis is
*label-free*: no evaluation, comparison, curve or diagnosis, only the rankings; the
dashboard contrasts them (overlap, RBO, tau_AP), the report refuses it.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, ParamSpec, TypeVar

import polars as pl

from rankset._progress import IntoProgress, Steps, resolve_progress
from rankset._typing import Correction, IntoLabels, IntoRun, Test
from rankset._validation import check_choice, check_int
from rankset.comparison import check_suite
from rankset.errors import RanksetWarning
from rankset.evaluation import (
    DEFAULT_METRICS,
    EvaluateOptions,
    EvaluationResult,
    carried_labels,
    numbered_runs,
)
from rankset.experiments._shared import read_history
from rankset.pages._analysis_steps import (
    compare_all,
    diagnosis_of,
    evaluate_shown,
    explanations_of,
    label_frame,
    metric_curves,
    picked_baseline,
    split_num_rel,
)
from rankset.pages._contrasts import no_evaluation, ranking_contrasts
from rankset.pages._judges import JudgesView, calibrations, judges_view, meta_evaluation
from rankset.pages._label_sets import check_label_sets, label_set_checks
from rankset.pages._measures import canonical_names, curve_measure
from rankset.pages._resampling import DEFAULT_RESAMPLES, Resampling
from rankset.pages._texts import cached_queries

if TYPE_CHECKING:
    from rankset.comparison import SuiteResult
    from rankset.diagnosis.quadrants import Diagnosis
    from rankset.evaluation.cutoff_curves import Curves
    from rankset.experiments import Store
    from rankset.label_quality import MetaEvaluation
    from rankset.label_quality.assessors import Agreement
    from rankset.label_quality.calibration import Calibration
    from rankset.label_quality.rank_stability import RankingStability

__all__ = ["ANALYSIS_STEPS", "Analysis", "analyse", "analyse_in"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: The steps :func:`analyse` counts (a page adds one: drawing it).
ANALYSIS_STEPS: Final = 5
_NUM_REL: Final = "num_rel"


@dataclass(frozen=True, eq=False)
class Analysis:
    """Everything both pages show, computed once by :func:`analyse`.

    Attributes
    ----------
    result
        The evaluation of the shown metrics (``num_rel`` and the diagnosis's metrics are
        measured in the same pass and left out unless asked for).
    metrics
        The shown metrics, canonical names, in order.
    baseline
        The system the others are compared with first (None with one system).
    comparisons
        Every system against every baseline as one frame: :func:`rankset.compare`'s
        columns with ``baseline`` after ``system`` (None with one system). When that
        would draw too many resamples (many systems and queries) only ``baseline``'s rows,
        said in ``notes``.
    curves, curve_of
        Metric-vs-k curves from k = 1 to ``depth`` (None when no metric takes a cutoff),
        and the curve of each shown metric (its measure without the cutoff, or None).
    diagnosis
        The retrieval-versus-reranking matrix at ``k`` (None when the labels fit no scale).
    k, depth
        The cutoff of the diagnosis and the side-by-side view; the last cutoff of the
        curves and the documents kept of each ranking.
    labels
        ``query_id, doc_id, grade`` (None when the runs carry their own labels).
    relevant_queries
        The queries with a relevant label (the worst queries are picked among them).
    agreement, stability, reference_labels
        Other label sets against the labels, the systems' order under each, and the name
        of the reference labels (None without ``label_sets``).
    history, suite
        An experiment store's history and a suite of collections, when given.
    notes
        What was left out or chosen for the user, said on both pages.
    resampling
        The one resampling policy of the intervals and tests.
    options
        The evaluation options.
    query_source
        Query texts the labels lend (an ``irds:`` dataset's cached queries), or None.
    inputs
        The runs and labels as given: :attr:`rankings` and :attr:`explanations` read them
        on first use (only the dashboard needs the one, only the report the other).
    label_sets
        The other label sets as given (:attr:`judges` and :attr:`calibrations` read them).
    label_free
        True when there were no labels: ``result`` holds no metric and no query, the
        systems and queries are the runs' (:attr:`positions`).
    """

    result: EvaluationResult
    metrics: tuple[str, ...]
    baseline: str | None
    comparisons: pl.DataFrame | None
    curves: Curves | None
    curve_of: Mapping[str, str | None]
    diagnosis: Diagnosis | None
    k: int
    depth: int
    labels: pl.DataFrame | None = field(repr=False)
    relevant_queries: tuple[str, ...] = field(repr=False)
    agreement: Agreement | None = field(repr=False)
    stability: RankingStability | None = field(repr=False)
    reference_labels: str
    history: pl.DataFrame | None = field(repr=False)
    suite: SuiteResult | None = field(repr=False)
    notes: tuple[str, ...]
    resampling: Resampling
    options: EvaluateOptions = field(repr=False)
    query_source: pl.DataFrame | None = field(repr=False, default=None)
    inputs: tuple[Any, Any] = field(repr=False, default=(None, None))
    label_sets: Mapping[str, Any] | None = field(repr=False, default=None)
    label_free: bool = False

    @cached_property
    def positions(self) -> pl.DataFrame:
        """``system, query_id, doc_id, pos``: every ranking at its full depth.

        Read from the runs on first use, as :func:`rankset.evaluate` numbers them. The
        pages ship the first ``depth`` of each (:attr:`rankings`) and, for the documents
        they show, the ranks further down (a reranker's promoted documents keep the
        first stage's rank).
        """
        options = self.options
        return numbered_runs(
            self.inputs[0],
            names=options.names,
            order=options.order,
            score_precision=options.score_precision,
        )

    @cached_property
    def rankings(self) -> pl.DataFrame:
        """``system, query_id, doc_id, pos``: each ranking's first ``depth`` documents."""
        deepest = self.positions["pos"].max()
        if deepest is None or deepest <= self.depth:  # type: ignore[operator]
            return self.positions  # no ranking is deeper: not a copy of every row
        return self.positions.filter(pl.col("pos") <= self.depth)

    @cached_property
    def contrasts(self) -> pl.DataFrame | None:
        """Each system's top ``k`` against the baseline's, per query, without labels.

        ``system, baseline, query_id, overlap, jaccard, rbo, tau_ap``: overlap@k and
        Jaccard@k of the two top k, extrapolated rank-biased overlap (p = 0.9, over the
        shorter list, as :func:`rankset.label_quality.rbo`) and tau_AP of the system's
        order of the shared documents against the baseline's
        (:func:`rankset.label_quality.tau_ap`; null under two). The dashboard's label-free
        contrasts are these. None with one system.

        Examples
        --------
        >>> runs = {"a": {"q": {"x": 3.0, "y": 2.0, "z": 1.0}},
        ...         "b": {"q": {"y": 3.0, "x": 2.0, "w": 1.0}}}
        >>> analyse(runs, k=3, progress=False).contrasts.select("overlap", "tau_ap").rows()
        [(2, -1.0)]
        """
        if self.baseline is None:
            return None
        return ranking_contrasts(self.positions, self.systems, self.baseline, self.k)

    @cached_property
    def cost_quality(self) -> pl.DataFrame | None:
        """Each system's mean metric beside its mean cost, the Pareto front marked.

        :func:`rankset.comparison.cost_quality` of the shown metrics and the evaluation's
        costs (``costs=``, ``--costs``, or the cost columns of the runs); None without
        costs. Both pages draw it.
        """
        costs = self.result.costs
        if costs is None or not costs.height or not self.metrics:
            return None
        from rankset.comparison import cost_quality

        return cost_quality(self.summary, costs, self.metrics)

    @cached_property
    def explanations(self) -> pl.DataFrame | None:
        """What the top of the first metric's cutoff found and missed, per system and query.

        :func:`rankset.explain` of the runs, on first use; None without labels.
        """
        with warnings.catch_warnings():  # the evaluation said them already, in the notes
            warnings.simplefilter("ignore", RanksetWarning)
            return explanations_of(*self.inputs, self.result, self.options)

    @cached_property
    def judges(self) -> MetaEvaluation | None:
        """Each label set judged against the labels: :func:`rankset.meta_evaluate` of them.

        On the shown metrics, on first use; None without label sets or under 3 systems.
        """
        return meta_evaluation(
            *self.inputs, self.label_sets, self.result, self.options, self.resampling
        )

    @cached_property
    def calibrations(self) -> Mapping[str, Calibration]:
        """Each label set that shares pairs with the labels, calibrated on them (first use)."""
        return calibrations(self.inputs[1], self.label_sets)

    @cached_property
    def judges_view(self) -> JudgesView | None:
        """:attr:`judges` and :attr:`calibrations` as both pages show them (None: no sets)."""
        if not self.label_sets:
            return None
        return judges_view(
            self.reference_labels,
            self.label_sets,
            self.metrics,
            len(self.systems),
            self.judges,
            self.calibrations,
            n_bootstrap=self.resampling.n_resamples,
        )

    @property
    def systems(self) -> list[str]:
        """The systems, in the order given."""
        if self.label_free:
            return [str(name) for name in self.positions["system"].unique(maintain_order=True)]
        return self.result.systems

    @property
    def query_ids(self) -> list[str]:
        """The queries evaluated (without labels: those the runs answer), sorted."""
        frame = self.positions if self.label_free else self.result.per_query
        return [str(query) for query in frame["query_id"].unique().sort()]

    @property
    def summary(self) -> pl.DataFrame:
        """``system, metric, mean, ci_low, ci_high, ...``: the result's summary."""
        return self.result.summary

    def comparison(self, baseline: str | None = None) -> pl.DataFrame | None:
        """Return the comparisons with one baseline (default :attr:`baseline`), as compare's.

        Empty for a baseline the analysis did not compare with (see :attr:`comparisons`).

        Examples
        --------
        >>> runs = {"a": {"q": {"x": 1.0, "y": 0.5}}, "b": {"q": {"y": 1.0, "x": 0.5}}}
        >>> analysis = analyse(runs, {"q": {"y": 1}}, metrics=["rr"], scale="binary",
        ...                    n_resamples=100, progress=False)
        >>> analysis.comparison()["system"].to_list()
        ['b']
        """
        baseline = self.baseline if baseline is None else baseline
        if self.comparisons is None or baseline is None:
            return None
        check_choice("baseline", baseline, self.systems)
        return self.comparisons.filter(pl.col("baseline") == baseline).drop("baseline")

    def __repr__(self) -> str:
        compared = "no comparison" if self.baseline is None else f"baseline {self.baseline}"
        metrics = "no labels" if self.label_free else f"{len(self.metrics)} metrics"
        return (
            f"Analysis({len(self.systems)} systems, {metrics}, "
            f"{len(self.query_ids):,} queries, {compared}, "
            f"{len(self.notes)} notes)"
        )


def analyse(
    runs: IntoRun | Mapping[str, IntoRun],
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
    progress: IntoProgress = None,
    **evaluate_options: Any,
) -> Analysis:
    """Compute, once, everything the report and the dashboard show.

    Without labels (``labels`` None, runs that carry none, no ``nuggets=``) the analysis
    is label-free (:attr:`Analysis.label_free`): the rankings alone, no metric.

    Parameters
    ----------
    runs, labels
        As for :func:`rankset.evaluate` (paths or frames: the runs are read more than
        once, so not open file objects).
    metrics
        The shown metrics (default :data:`rankset.evaluation.DEFAULT_METRICS`, as for
        ``evaluate``, the store and the gate).
    baseline
        The system the others are compared with first; by default the first run given.
        The comparisons hold every system as the baseline in turn.
    k
        The cutoff of the diagnostic matrix (``ra_nwg@k``, ``proc@k``, ``pct_proc@k``)
        and of the dashboard's side-by-side view.
    depth
        The curves go from k = 1 to ``depth``; the dashboard keeps ``depth`` documents
        of each ranking.
    label_sets
        Other labels of the same pairs, ``{name: labels}`` (an LLM judge's, a shallow
        pool's): their agreement with ``labels`` and the systems' order under each.
    history
        An experiment store (a :class:`rankset.experiments.Store`, its folder, or what
        its ``history()`` returned), read, not written.
    suite
        The same systems over several collections (:func:`rankset.evaluate_suite`).
    n_resamples
        Bootstrap resamples and sign assignments (see :class:`Resampling`). None: 10,000,
        and for the randomization test as many as the comparisons need to be able to
        reach significance after the correction.
    test, correction, alpha
        The paired test (``"randomization"``, ``"t"`` or ``"wilcoxon"``; the last two
        need scipy), its correction over each baseline's rows, and the level.
    seed
        One seed for every resampling.
    progress
        A callback ``(done, total, what)`` called before each step (see
        :data:`rankset.stats.Progress`); None: a bar in a Jupyter notebook, nothing
        elsewhere; False: nothing.
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``scale=``, ``pool=``, ``missing=``...). When
        ``scale`` is not given and the labels fit no preset, the metrics that need a scale
        and the diagnostic matrix are left out, with a note.

    Returns
    -------
    Analysis

    Examples
    --------
    >>> import rankset
    >>> analysis = rankset.analyse(
    ...     ["data/sample/bm25.trec", "data/sample/rerank.trec"], "data/sample/qrels.txt",
    ...     scale="trec_dl", progress=False)
    >>> analysis.metrics
    ('ndcg@10', 'ap', 'rr', 'recall@100', 'precision@10')
    >>> analysis.comparison().filter(metric="ndcg@10")["reject"].to_list()
    [True]
    """
    step = Steps(resolve_progress(progress, "rankset analyse"), ANALYSIS_STEPS)
    analysis = analyse_in(
        step,
        runs,
        labels,
        metrics=metrics,
        baseline=baseline,
        k=k,
        depth=depth,
        label_sets=label_sets,
        history=history,
        suite=suite,
        n_resamples=n_resamples,
        test=test,
        correction=correction,
        alpha=alpha,
        seed=seed,
        **evaluate_options,
    )
    step.finish()
    return analysis


def _reusing_draws(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``function`` with one seed's bootstrap draws made once for all its resamplings."""

    @functools.wraps(function)
    def reusing(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        from rankset.stats import reused_draws

        with reused_draws():
            return function(*args, **kwargs)

    return reusing


@_reusing_draws
def analyse_in(
    step: Steps,
    runs: Any,
    labels: Any,
    *,
    metrics: str | Sequence[str] | None,
    baseline: str | None,
    k: int,
    depth: int,
    label_sets: Mapping[str, Any] | None,
    history: Any,
    suite: SuiteResult | None,
    n_resamples: int | None,
    test: Test,
    correction: Correction | None,
    alpha: float,
    seed: int,
    **evaluate_options: Any,
) -> Analysis:
    """:func:`analyse`, counting its :data:`ANALYSIS_STEPS` steps on a page's ``step``.

    The summary, the curves and the comparisons resample the same queries with one seed:
    their bootstrap draws are made once (:func:`rankset.stats.reused_draws`).
    """
    k = check_int("k", k, 1)
    depth = check_int("depth", depth, 1)
    seed = check_int("seed", seed, 0)
    # the policy's options are checked before the work; its size waits for the systems
    policy_for = functools.partial(
        Resampling.for_comparisons,
        n_resamples=n_resamples,
        seed=seed,
        test=test,
        correction=correction,
        alpha=alpha,
    )
    policy_for(0)
    reference = check_label_sets(labels, label_sets)
    logged = read_history(history)  # a folder that is no store fails before the work
    if suite is not None:
        check_suite(suite)
    shown = canonical_names(DEFAULT_METRICS if metrics is None else metrics)
    shown = list(dict.fromkeys(shown))
    options = EvaluateOptions.from_kwargs(evaluate_options, "analyse")
    if labels is None and options.nuggets is None and not _carry_labels(runs, options):
        return _label_free(step, runs, baseline, k, depth, logged, suite, policy_for(0), options)
    notes: list[str] = []
    step("evaluating")
    full, shown, diagnosable = evaluate_shown(
        runs, labels, shown, k, options, n_resamples or DEFAULT_RESAMPLES, seed, notes
    )
    baseline = picked_baseline(baseline, full.systems)
    rows = (len(full.systems) - 1) * len(shown)  # comparisons per baseline
    policy = policy_for(rows)
    if policy.sized:
        notes.append(
            f"The randomization test drew {policy.n_permutations:,} permutations: enough for "
            f"{rows:,} comparisons per baseline to reach p_adj < {alpha:g} "
            f"({policy.correction})."
        )
    result, relevant = split_num_rel(full, shown)
    diagnosis = diagnosis_of(full, k) if diagnosable else None
    del full  # the diagnosis's metrics and num_rel: freed before the tests and curves
    comparisons = compare_all(
        result, shown, policy, notes, progress=step.part("comparing"), baseline=baseline
    )
    with warnings.catch_warnings():  # the evaluation said them already, in the notes
        warnings.simplefilter("ignore", RanksetWarning)
        step(f"metric-vs-k curves (k = 1..{depth})")
        curve_of = {name: curve_measure(name) for name in shown}
        curves = metric_curves(runs, labels, curve_of, depth, options, policy)
        step("diagnostic matrix")  # drawn above, after the evaluation
        step("label sets")
        agreement, stability = label_set_checks(
            runs, labels, label_sets, result, options, reference, policy
        )
    return Analysis(
        result=result,
        metrics=tuple(shown),
        baseline=baseline,
        comparisons=comparisons,
        curves=curves,
        curve_of=curve_of,
        diagnosis=diagnosis,
        k=k,
        depth=depth,
        labels=label_frame(labels),
        relevant_queries=tuple(relevant),
        agreement=agreement,
        stability=stability,
        reference_labels=reference,
        history=logged,
        suite=suite,
        notes=tuple(notes),
        resampling=policy,
        options=options,
        query_source=cached_queries(labels),
        inputs=(runs, labels),
        label_sets=dict(label_sets) if label_sets else None,
    )


def _carry_labels(runs: Any, options: EvaluateOptions) -> bool:
    """Whether the runs carry their own labels (JSONL samples with expected_output)."""
    return carried_labels(runs, options.names) is not None


def _label_free(
    step: Steps,
    runs: Any,
    baseline: str | None,
    k: int,
    depth: int,
    history: pl.DataFrame | None,
    suite: SuiteResult | None,
    policy: Resampling,
    options: EvaluateOptions,
) -> Analysis:
    """Return the analysis of runs without labels: their rankings, no metric."""
    step("reading the runs (no labels: nothing to evaluate)")
    positions = numbered_runs(
        runs, names=options.names, order=options.order, score_precision=options.score_precision
    )
    systems = [str(name) for name in positions["system"].unique(maintain_order=True)]
    for what in ("comparisons", "curves", "diagnostic matrix", "label sets"):
        step(f"{what}: none without labels")
    analysis = Analysis(
        result=no_evaluation(systems),
        metrics=(),
        baseline=picked_baseline(baseline, systems),
        comparisons=None,
        curves=None,
        curve_of={},
        diagnosis=None,
        k=k,
        depth=depth,
        labels=None,
        relevant_queries=(),
        agreement=None,
        stability=None,
        reference_labels="",
        history=history,
        suite=suite,
        notes=("No labels: the pages compare the rankings alone, without metrics.",),
        resampling=policy,
        options=options,
        inputs=(runs, None),
        label_free=True,
    )
    vars(analysis)["positions"] = positions  # read once: the cached property's value
    return analysis
