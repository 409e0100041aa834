"""A prepared evaluator: labels read and metrics planned once, then runs measured.

What pytrec_eval's ``RelevanceEvaluator`` does for a training loop: the labels are read,
checked and summarised (number relevant, ideal DCG...) once, the metric names parsed
and their expressions built once; each run then costs only its own pass and the
per-query aggregations. The steps are :func:`rankset.evaluate`'s own
(:mod:`rankset.evaluation._kernel`), so every value is bit-identical to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, overload

import polars as pl

from rankset._typing import IntoLabels, IntoRun
from rankset._validation import check_resampling
from rankset.errors import ParameterError
from rankset.evaluation._evaluate import evaluate_with
from rankset.evaluation._inputs import is_ranx_run
from rankset.evaluation._options import DEFAULT_METRICS, EvaluateOptions
from rankset.evaluation._plan import EvaluationPlan
from rankset.evaluation._prepared import PreparedEvaluation
from rankset.evaluation._result import EvaluationResult
from rankset.measures import Metric, parse_metrics

__all__ = ["Evaluator"]


class Evaluator:
    """Evaluate many runs against the same labels and metrics, preparing them once.

    Parameters
    ----------
    labels
        Labels (qrels) in any form :func:`rankset.evaluate` reads: a path, a frame, or a
        ``{query_id: {doc_id: grade}}`` dict.
    metrics
        Metric names in any accepted spelling (see :func:`rankset.parse_metric`).
    **options
        :func:`rankset.evaluate`'s options (``k``, ``relevance_level``, ``missing``,
        ``order``, ``scale``...), fixed for every run. With options that read something
        from the runs to plan (``pool``, ``answers``, ``nuggets``, ``max_depth``,
        ``judged_only``, ``buckets``, ``engine="dask"``), each run is planned whole, as
        :func:`rankset.evaluate` would: the same values, without the saving.

    Notes
    -----
    The labels are read, checked (ids, grades, duplicates; the same errors as
    :func:`rankset.evaluate`) and summarised per query when the evaluator is built;
    the metric names are parsed and their expressions built then too. Each
    :meth:`evaluate` or :meth:`values` call reads the run, numbers its rankings and
    aggregates per query with the same Polars expressions :func:`rankset.evaluate`
    runs, so the values are bit-identical to it. Runs that bring labels, cutoffs or
    answers of their own (sample files), or a partitioned dataset, are evaluated by
    :func:`rankset.evaluate` itself.

    Examples
    --------
    >>> from rankset.evaluation import Evaluator
    >>> qrels = {"q1": {"d1": 1, "d3": 2}, "q2": {"d2": 1}}
    >>> evaluator = Evaluator(qrels, ["ndcg@10", "rr"])
    >>> evaluator.values({"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d2": 1.0}})
    {'q1': {'ndcg@10': 0.7601875334318685, 'rr': 1.0}, 'q2': {'ndcg@10': 1.0, 'rr': 1.0}}
    >>> evaluator.evaluate({"q1": {"d3": 2.0}, "q2": {"d1": 1.0}}, confidence=None).summary
    shape: (2, 7)
    ┌────────┬─────────┬──────────┬────────┬─────────┬───────────┬──────┐
    │ system ┆ metric  ┆ mean     ┆ ci_low ┆ ci_high ┆ n_queries ┆ n_na │
    │ ---    ┆ ---     ┆ ---      ┆ ---    ┆ ---     ┆ ---       ┆ ---  │
    │ str    ┆ str     ┆ f64      ┆ f64    ┆ f64     ┆ u32       ┆ u32  │
    ╞════════╪═════════╪══════════╪════════╪═════════╪═══════════╪══════╡
    │ run    ┆ ndcg@10 ┆ 0.380094 ┆ null   ┆ null    ┆ 2         ┆ 0    │
    │ run    ┆ rr      ┆ 0.5      ┆ null   ┆ null    ┆ 2         ┆ 0    │
    └────────┴─────────┴──────────┴────────┴─────────┴───────────┴──────┘
    """

    def __init__(
        self,
        labels: IntoLabels,
        metrics: str | Metric | Iterable[str | Metric] = DEFAULT_METRICS,
        **options: Any,
    ) -> None:
        self._options = EvaluateOptions.from_kwargs(options, "Evaluator")
        self._metrics = parse_metrics(metrics)
        self._labels = labels
        self._prepared = PreparedEvaluation.of(labels, self._metrics, self._options)

    @property
    def metrics(self) -> list[str]:
        """Canonical names of the metrics, in the order asked."""
        return [metric.name for metric in self._metrics]

    def evaluate(
        self,
        runs: IntoRun | Mapping[str, IntoRun],
        *,
        names: Sequence[str] | None = None,
        confidence: float | None = 0.95,
        n_resamples: int = 1000,
        seed: int = 0,
    ) -> EvaluationResult:
        """Evaluate one run or several: :func:`rankset.evaluate`'s result, bit for bit.

        Parameters
        ----------
        runs
            One run or several, in any form :func:`rankset.evaluate` reads.
        names
            System names, one per run, overriding the naming rule.
        confidence, n_resamples, seed
            The summary's bootstrap confidence intervals, as in :func:`rankset.evaluate`
            (``confidence=None`` skips them).
        """
        check_resampling(confidence, n_resamples, seed)
        if self._prepared is not None:
            result = self._prepared.evaluate(
                runs, names, confidence=confidence, n_resamples=n_resamples, seed=seed
            )
            if result is not None:
                return result
        options = self._options if names is None else self._options.replace(names=names)
        return evaluate_with(
            runs,
            self._labels,
            self._metrics,
            options,
            confidence=confidence,
            n_resamples=n_resamples,
            seed=seed,
        )

    @overload
    def values(self, run: IntoRun) -> dict[str, dict[str, float | None]]: ...

    @overload
    def values(
        self, run: Mapping[str, IntoRun]
    ) -> dict[str, dict[str, float | None]] | dict[str, dict[str, dict[str, float | None]]]: ...

    def values(self, run: IntoRun | Mapping[str, IntoRun]) -> dict[str, Any]:
        """Per-query values of one system's run, in pytrec_eval's nested shape.

        Returns ``{query_id: {metric: value}}`` with the canonical metric names, the
        queries in id order; a value not defined for a query (NA) is None. The values
        are those of :meth:`evaluate` (and :func:`rankset.evaluate`).

        Given several runs by name (``{name: run}``, as :meth:`evaluate` takes them),
        returns ``{name: {query_id: {metric: value}}}``, the names in the order given:
        every run is measured in one pass, which is much quicker than a call per run.

        Raises
        ------
        ParameterError
            When one run (not a mapping of runs) holds several systems.

        Examples
        --------
        >>> evaluator = Evaluator({"q1": {"d1": 1}}, ["rr"])
        >>> evaluator.values({"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d2": 1.0, "d1": 0.5}}})
        {'a': {'q1': {'rr': 1.0}}, 'b': {'q1': {'rr': 0.5}}}
        """
        if isinstance(run, Mapping) and not is_ranx_run(run):
            return self._values_by_system(run)
        wide, plan = self._fused_wide(run)
        if wide is None:
            wide = self._wide(run, plan)
            if wide["system"].n_unique() > 1:
                msg = (
                    "Evaluator.values() takes one system's run, or several runs by name "
                    "({name: run}); use evaluate() for a run of several systems."
                )
                raise ParameterError(msg)
        names = self.metrics
        if wide.columns != ["query_id", *names]:  # a select costs more than the rows
            wide = wide.select("query_id", *names)
        return {row[0]: dict(zip(names, row[1:], strict=True)) for row in wide.iter_rows()}

    def _fused_wide(self, run: IntoRun) -> tuple[pl.DataFrame | None, EvaluationPlan | None]:
        """``query_id`` and each metric's value of one system's run, by the fused plan.

        A plain dict is measured without its frame. When the fused plan does not take
        the run: None, and the run's plan for the general kernel (None: a whole plan).
        """
        prepared = self._prepared
        if prepared is None:
            return None, None
        wide = prepared.mapping_values(run)
        if wide is not None:
            return wide, None
        plan = prepared.with_runs(run, None)
        fused = None if plan is None else prepared.fused_values(plan)
        return (None, plan) if fused is None else (fused.values, plan)

    def _values_by_system(
        self, runs: Mapping[str, IntoRun]
    ) -> dict[str, dict[str, dict[str, float | None]]]:
        """``{name: {query_id: {metric: value}}}`` of several runs, measured together."""
        prepared = self._prepared
        plan = None if prepared is None else prepared.with_runs(runs, None)
        together = None if prepared is None or plan is None else prepared.systems_values(plan)
        wide = self._wide(runs, plan) if together is None else together.values
        names = self.metrics
        nested: dict[str, dict[str, dict[str, float | None]]] = {str(name): {} for name in runs}
        if wide.columns != ["system", "query_id", *names]:
            wide = wide.select("system", "query_id", *names)
        # column by column: a third quicker than iter_rows on 1,000 rows
        values = zip(*(wide[name].to_list() for name in names), strict=True)
        rows = zip(wide["system"].to_list(), wide["query_id"].to_list(), values, strict=True)
        for system, query, row in rows:
            nested[system][query] = dict(zip(names, row, strict=True))
        return nested

    def _wide(self, runs: Any, plan: EvaluationPlan | None) -> pl.DataFrame:
        """``system, query_id`` and each metric's value, by system and query id."""
        prepared = self._prepared
        if prepared is None or plan is None:
            return self.evaluate(runs, confidence=None).wide().sort("query_id")
        collected = prepared.collected(plan)
        return _values(plan, collected.scored, collected.stats)

    def __repr__(self) -> str:
        return f"Evaluator(metrics={self.metrics!r}, prepared={self._prepared is not None})"


def _values(plan: EvaluationPlan, scored: pl.DataFrame, stats: pl.DataFrame) -> pl.DataFrame:
    """Return ``system, query_id`` and each metric's value of the scored rows, by query."""
    return (
        scored.lazy()
        .join(stats.lazy(), on="query_id", how="left")
        .select("system", "query_id", *plan.value_columns())
        .sort("query_id", maintain_order=True)
        .collect(engine="in-memory")
    )
