"""Labels prepared once, runs measured against them; measured frames made a result.

:class:`~rankset.evaluation.Evaluator` keeps a :class:`PreparedEvaluation` for its
life; :func:`~rankset.evaluation.evaluate_with` (and so :func:`rankset.evaluate`) makes
one for a single run held in memory (a dict or a frame), whose labels it would otherwise
read in the same steps. A run is measured in
one collect when the fused plan takes it (:mod:`rankset.evaluation._fused`), else by
the general kernel on the prepared labels; either way the result is bit-identical to
the whole plan's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset.evaluation._costs import carried_cost_summary
from rankset.evaluation._inputs import is_ranx_run
from rankset.evaluation._kernel import Collected, describe, finish, measure_queries
from rankset.evaluation._kernel_labels import PreparedLabels, prepare_labels
from rankset.evaluation._options import EvaluateOptions
from rankset.evaluation._plan import EvaluationPlan, plan_labels, with_runs
from rankset.evaluation._query_policy import count_queries, query_counts_table
from rankset.evaluation._result import EvaluationResult, planned_tidy
from rankset.evaluation._summary import planned_means, summarise_means
from rankset.measures import Metric
from rankset.measures._shared import geometric_metrics, needs_grade_scale

if TYPE_CHECKING:  # the fused plan loads with the first run held in memory
    from rankset.evaluation._fused import FusedPlan, FusedValues, SystemsValues

__all__ = ["PreparedEvaluation", "evaluate_run_queries", "result_of"]


@dataclass(frozen=True)
class PreparedEvaluation:
    """What runs are measured with: the plan settled on the labels, the labels summarised.

    ``fused`` is the one-collect plan, or None when the options rule it out.
    """

    plan: EvaluationPlan
    labels: PreparedLabels
    fused: FusedPlan | None

    @classmethod
    def of(
        cls,
        labels: Any,
        metrics: list[Metric],
        options: EvaluateOptions,
        *,
        checked_rows: int | None = None,
    ) -> PreparedEvaluation | None:
        """Read, check and summarise the labels; None when only a whole plan will do.

        Raises the labels' errors, as the whole plan does; ``checked_rows``: the caller
        has applied the row checks (:func:`_plain_labels`) to this many label rows.
        """
        plan = plan_labels(labels, metrics, options)
        if plan is None:
            return None
        from rankset.evaluation._fused import FusedPlan  # not for files read whole

        # the fused plan's tables are collected with the labels: one query fewer
        fused_tables = partial(FusedPlan.planned_labels, plan)
        prepared, tables = prepare_labels(plan, checked_rows=checked_rows, also=fused_tables)
        return cls(plan, prepared, FusedPlan.prepare(plan, prepared, tables))

    def with_runs(self, runs: Any, names: Any) -> EvaluationPlan | None:
        """Return the plan with these runs read and named; None when they need a whole plan."""
        return with_runs(self.plan, runs, names)

    def fused_values(self, plan: EvaluationPlan, run: Any = None) -> FusedValues | None:
        """Measure ``plan``'s run in one collect; None when the fused plan does not take it.

        ``run`` is the run as given: a plain dict is measured without its frame.
        """
        if self.fused is None:
            return None
        parts = plan.runs.inputs
        if run is not None and plan.engine == "in-memory" and len(parts) == 1 and parts[0].name:
            found = self.fused.measure_mapping(run, parts[0].name)
            if found is not None:
                return found
        return self.fused.measure(plan)

    def systems_values(self, plan: EvaluationPlan) -> SystemsValues | None:
        """Measure several runs read together in one collect; None when not taken.

        (:meth:`FusedPlan.measure_systems`: a mapping of dict runs.)
        """
        return None if self.fused is None else self.fused.measure_systems(plan)

    def mapping_values(self, run: Any) -> pl.DataFrame | None:
        """Return a plain dict run's values by query id, read without a frame; else None.

        The frame has ``query_id`` then each metric's value (the fused plan's).
        """
        found = None if self.fused is None else self.fused.measure_mapping(run, "run")
        return None if found is None else found.values

    def collected(self, plan: EvaluationPlan) -> Collected:
        """Measure ``plan``'s runs with the general kernel on the prepared labels."""
        return finish(plan, measure_queries(plan, None, prepared=self.labels))

    def evaluate(
        self,
        runs: Any,
        names: Any,
        *,
        confidence: float | None,
        n_resamples: int,
        seed: int,
    ) -> EvaluationResult | None:
        """Evaluate runs against the prepared labels; None when they need a whole plan."""
        plan = self.with_runs(runs, names)
        if plan is None:
            return None
        fused = self.fused_values(plan, runs)
        if fused is not None:
            return fused_result(
                plan, fused, confidence=confidence, n_resamples=n_resamples, seed=seed
            )
        together = self.systems_values(plan)
        if together is not None:
            return fused_result(
                plan, together, confidence=confidence, n_resamples=n_resamples, seed=seed
            )
        collected = self.collected(plan)
        return result_of(plan, collected, confidence=confidence, n_resamples=n_resamples, seed=seed)


def evaluate_run_queries(
    run: Any,
    labels: Any,
    metrics: list[Metric],
    options: EvaluateOptions,
    *,
    confidence: float | None,
    n_resamples: int,
    seed: int,
) -> EvaluationResult | None:
    """Evaluate dict runs against the labels of their own queries only; None if unfit.

    ``run`` is one dict run or dict runs by name. A one-shot call with
    ``{query: {doc: grade}}`` labels would read, check and summarise every labelled query
    to score runs of a few: its cost followed the label table. Under the default query
    policy (a query is scored when a run answers it and it has labels) the other
    queries' labels change nothing but the count of labelled queries, which is taken
    from the mapping. Not taken (None: the whole labels are read) when every labelled
    query is scored (``missing="zero"``), when a metric maps grades to a scale chosen
    from all the grades, when the runs or the labels are not plain dicts of text ids, or
    when the fused plan declines the runs (they then have something to refuse or report,
    which the whole evaluation says as it always does). The labels of the other queries
    are then not checked: they take no part in the values.
    """
    queries = _run_queries(run)
    if (
        queries is None
        or options.missing != "skip"
        or (options.scale == "auto" and any(needs_grade_scale(metric) for metric in metrics))
        or type(labels) is not dict
    ):
        return None
    n_label_queries = _labelled_queries(labels)
    if n_label_queries is None:
        return None
    own = {query: labels[query] for query in queries if query in labels}
    if not own or len(own) == len(labels):
        return None  # nothing in common (the whole labels name it) or nothing to save
    checked_rows = sum(map(len, own.values())) if _plain_labels(own) else None
    prepared = PreparedEvaluation.of(own, metrics, options, checked_rows=checked_rows)
    plan = None if prepared is None else prepared.with_runs(run, options.names)
    if prepared is None or plan is None:
        return None
    fused = prepared.fused_values(plan, run)
    if fused is not None:
        fused = dataclasses.replace(fused, n_label_queries=n_label_queries)
        return fused_result(plan, fused, confidence=confidence, n_resamples=n_resamples, seed=seed)
    together = prepared.systems_values(plan)
    if together is None:
        return None
    together = dataclasses.replace(together, n_label_queries=n_label_queries)
    return fused_result(plan, together, confidence=confidence, n_resamples=n_resamples, seed=seed)


def _run_queries(run: Any) -> Iterable[str] | None:
    """Return the query ids of a dict run, or of dict runs by name; None if not plain.

    Plain: ``dict`` all the way down to the rankings, the query ids text.
    """
    if type(run) is not dict:
        return None
    rankings = [run] if is_ranx_run(run) else list(run.values())
    if not all(type(ranking) is dict for ranking in rankings):
        return None
    queries = dict.fromkeys(chain.from_iterable(rankings))
    return queries if all(type(query) is str for query in queries) else None


def _labelled_queries(labels: dict[Any, Any]) -> int | None:
    """Count the queries with labels of plain ``{text id: {doc: grade}}`` labels; else None.

    One pass over the mapping: the check that it is plain and the count the query policy
    reports (a query whose mapping is empty has no labels).
    """
    count = 0
    for query, docs in labels.items():
        if type(query) is not str or type(docs) is not dict:
            return None
        count += bool(docs)
    return count


def _plain_labels(labels: dict[str, dict[Any, Any]]) -> bool:
    """Whether labels surely pass the label row checks, read in Python.

    Every query id and document id plain text (:func:`plain_id`), every grade a
    finite double or an integer a double holds exactly; a dict holds no pair twice.
    False leaves the checks to Polars, which name what they find.
    """
    from rankset.evaluation._fused_mapping import plain_id, plain_numbers

    return all(map(plain_id, labels)) and all(
        all(type(doc) is str for doc in docs) and all(map(plain_id, docs)) and plain_numbers(docs)
        for docs in labels.values()
    )


def result_of(
    plan: EvaluationPlan,
    collected: Collected,
    *,
    confidence: float | None,
    n_resamples: int,
    seed: int,
) -> EvaluationResult:
    """Turn the finished frames into the tidy per-query result and its summary."""
    frame = collected.scored.lazy().join(collected.stats.lazy(), on="query_id", how="left")
    per_query = planned_tidy(frame, plan.metrics, plan.values, collected.config["systems"])
    return _summarised(
        plan,
        per_query,
        collected.query_counts.lazy(),
        collected.config,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
    )


def fused_result(
    plan: EvaluationPlan,
    fused: FusedValues | SystemsValues,
    *,
    confidence: float | None,
    n_resamples: int,
    seed: int,
) -> EvaluationResult:
    """Return the result of runs measured by the fused plan (one system's, or several)."""
    wide, answered, systems, n_label_queries = fused.measured()
    names = [metric.name for metric in plan.metrics]
    per_query = planned_tidy(wide, plan.metrics, {name: pl.col(name) for name in names}, systems)
    missing = plan.options.missing
    counts = count_queries(answered, n_label_queries, missing)
    return _summarised(
        plan,
        per_query,
        query_counts_table(counts, missing),
        describe(plan, systems),
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        # A table of values in memory: the optimizer would cost more than it saves,
        # even the summary reading the tidy plan again rather than its cached copy.
        optimizations=pl.QueryOptFlags.none(),
    )


def _summarised(
    plan: EvaluationPlan,
    per_query: pl.LazyFrame,
    query_counts: pl.LazyFrame,
    config: dict[str, Any],
    *,
    confidence: float | None,
    n_resamples: int,
    seed: int,
    optimizations: pl.QueryOptFlags | None = None,
) -> EvaluationResult:
    """Return the result of a planned tidy frame: it with its summary, counts, config.

    Collected at once (with Polars' default optimizations unless ``optimizations``
    says); a summary with intervals is made from the collected frame after.
    """
    geometric = geometric_metrics(plan.metrics)
    planned = [per_query, query_counts]
    if confidence is None:
        planned.append(planned_means(per_query, ["metric"], geometric=geometric))
    flags = pl.QueryOptFlags() if optimizations is None else optimizations
    collected = pl.collect_all(planned, engine="in-memory", optimizations=flags)
    tidy_frame, counts = collected[0], collected[1]
    summary = (
        collected[2]
        if confidence is None
        else summarise_means(
            tidy_frame,
            ["metric"],
            confidence=confidence,
            n_resamples=n_resamples,
            seed=seed,
            geometric=geometric,
        )
    )
    costs = None
    if plan.options.costs is None and plan.runs.costs:  # costs= wins over a run's columns
        costs = carried_cost_summary(plan.runs.costs, tidy_frame, config["systems"])
    return EvaluationResult(
        per_query=tidy_frame,
        summary=summary,
        query_counts=counts,
        config=config,
        text_match=plan.text_match,
        costs=costs,
    )
