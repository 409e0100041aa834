"""The result of an evaluation: tidy per-query values, a summary, the query counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset._validation import missing_columns_message
from rankset.errors import ParameterError
from rankset.evaluation._summary import summarise_means
from rankset.io import write_parquet
from rankset.measures import PER_QUERY, Metric
from rankset.measures._shared import QUERY_K, geometric_metrics

if TYPE_CHECKING:
    from rankset._format import ReprTable

__all__ = ["EvaluationResult", "planned_tidy"]


@dataclass(frozen=True)
class EvaluationResult:
    """The outcome of :func:`evaluate`.

    Attributes
    ----------
    per_query
        Tidy frame, one row per (system, query, metric): ``system, query_id, metric``
        (canonical name, e.g. ``ndcg@10``), ``measure`` (e.g. ``ndcg``), ``k`` (the
        cutoff, per query for ``@k`` metrics; null without one) and ``value`` (null = NA).
    summary
        One row per (system, metric): ``mean`` (over non-NA values), ``ci_low`` and
        ``ci_high`` (bootstrap confidence interval of the mean), ``n_queries``, ``n_na``.
    query_counts
        Per system: queries scored, run queries dropped for lack of labels, and label
        queries the run did not answer (dropped, or scored as empty with
        ``missing="zero"``).
    config
        The evaluation settings (metrics, policies, versions); stored in exported files.
    text_match
        When the runs were matched to gold texts (:func:`rankset.match_text`): per system,
        how many chunks matched a gold item, repeated one, or matched none.
    costs
        With ``costs=``: one row per (system, cost column) of the scored queries,
        ``system, cost, mean, p50, p95, n_queries`` (percentiles as numpy's default).
    """

    per_query: pl.DataFrame
    summary: pl.DataFrame
    query_counts: pl.DataFrame
    config: dict[str, Any] = field(default_factory=dict)
    text_match: pl.DataFrame | None = None
    costs: pl.DataFrame | None = None

    @property
    def metrics(self) -> list[str]:
        """Canonical metric names, in the order they were asked for."""
        return list(self.config.get("metrics", []))

    @property
    def systems(self) -> list[str]:
        """System names in the order the runs were given (``config["systems"]``)."""
        return list(self._systems)

    @cached_property
    def _systems(self) -> tuple[str, ...]:
        # read once: a page of 100 systems asks for them hundreds of times, and each
        # read is a pass over every per-query row
        given = self.config.get("systems")
        present = self.per_query["system"].unique(maintain_order=True).to_list()
        if isinstance(given, list):
            held = set(present)
            return tuple(system for system in given if system in held)
        return tuple(present)

    def wide(self) -> pl.DataFrame:
        """Per-query values with one column per metric (``system, query_id, <metrics>``).

        Examples
        --------
        >>> import rankset
        >>> res = rankset.evaluate({"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 1}},
        ...                        ["rr", "precision@2"])
        >>> res.wide()
        shape: (1, 4)
        ┌────────┬──────────┬─────┬─────────────┐
        │ system ┆ query_id ┆ rr  ┆ precision@2 │
        │ ---    ┆ ---      ┆ --- ┆ ---         │
        │ str    ┆ str      ┆ f64 ┆ f64         │
        ╞════════╪══════════╪═════╪═════════════╡
        │ run    ┆ q1       ┆ 0.5 ┆ 0.5         │
        └────────┴──────────┴─────┴─────────────┘
        """
        return self.per_query.pivot(
            on="metric",
            index=["system", "query_id"],
            values="value",
            on_columns=self.metrics,
        )

    def by_k(self) -> pl.DataFrame:
        """Return the means as a table by cutoff: ``system, k`` and a column per measure.

        The shape evaluation services report ``metrics_by_k`` in; metrics without a cutoff
        (``rprec``, or ``ap`` over the full ranking) have a null ``k``. Pairs with
        ``evaluate(..., ks=[1, 5, 10, 20])``.

        Examples
        --------
        >>> import rankset
        >>> res = rankset.evaluate({"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 1}},
        ...                        ["precision", "recall"], ks=[1, 2], confidence=None)
        >>> res.by_k().rows()
        [('run', 1, 0.0, 0.0), ('run', 2, 0.5, 1.0)]
        """
        mapping = self.per_query.select("metric", "measure", "k").unique(maintain_order=True)
        measures = mapping["measure"].unique(maintain_order=True).to_list()
        return (
            self.summary.join(mapping, on="metric", maintain_order="left")
            .pivot(on="measure", index=["system", "k"], values="mean", on_columns=measures)
            .sort("k", nulls_last=True, maintain_order=True)
        )

    def summary_by(
        self,
        metadata: pl.DataFrame,
        by: str | Sequence[str],
        *,
        confidence: float | None = 0.95,
        n_resamples: int = 1000,
        seed: int = 0,
    ) -> pl.DataFrame:
        """Summaries within slices of the queries (topic, language, difficulty...).

        Parameters
        ----------
        metadata
            A frame with ``query_id`` and the slicing columns; queries it does not list
            fall in a null slice.
        by
            The slicing column(s).

        Returns
        -------
        polars.DataFrame
            ``system, <by...>, metric, mean, ci_low, ci_high, n_queries, n_na``.

        Examples
        --------
        >>> import rankset
        >>> res = rankset.evaluate({"a": {"d": 1.0}, "b": {"d": 1.0}},
        ...                        {"a": {"d": 1}, "b": {"x": 1}}, ["rr"])
        >>> topics = pl.DataFrame({"query_id": ["a", "b"], "topic": ["sports", "news"]})
        >>> res.summary_by(topics, "topic").select("topic", "mean").rows()
        [('news', 0.0), ('sports', 1.0)]
        """
        keys = [by] if isinstance(by, str) else list(by)
        missing = [c for c in ["query_id", *keys] if c not in metadata.columns]
        if missing:
            msg = missing_columns_message(
                "The metadata", missing, ["query_id", *keys], metadata.columns
            )
            raise ParameterError(msg)
        order = {name: i for i, name in enumerate(self.metrics)}
        ranks = {name: i for i, name in enumerate(self.systems)}
        sliced = (
            self.per_query.join(
                metadata.select(pl.col("query_id").cast(pl.String), *keys).unique("query_id"),
                on="query_id",
                how="left",
            )
            .with_columns(
                _system=pl.col("system").replace_strict(ranks, return_dtype=pl.Int64),
                _order=pl.col("metric").replace_strict(order, return_dtype=pl.Int64),
            )
            .sort(["_system", *keys, "_order", "query_id"], nulls_last=True)
            .drop("_system", "_order")
        )
        return summarise_means(
            sliced,
            ["metric"],
            outer=["system", *keys],
            confidence=confidence,
            n_resamples=n_resamples,
            seed=seed,
            geometric=geometric_metrics(self.metrics),
        )

    def to_parquet(self, path: str | Path) -> Path:
        """Write :attr:`per_query` to Parquet, atomically, with the config as metadata.

        The configuration is stored as JSON under the key ``rankset`` of the file's
        key-value metadata.
        """
        return write_parquet(self.per_query, path, config=self.config)

    def _repr_blocks(self) -> tuple[str, ReprTable, str]:
        """Return the title, a table system x metric of the means, and where the rest is."""
        from rankset._format import ReprTable, counted  # for the repr only: not on a run's path

        systems = self.summary["system"].unique(maintain_order=True).to_list()
        metrics = self.summary["metric"].unique(maintain_order=True).to_list()
        means = {
            (system, metric): mean
            for system, metric, mean in self.summary.select("system", "metric", "mean").rows()
        }
        queries = self.per_query["query_id"].n_unique()
        title = (
            f"EvaluationResult: {counted(len(systems), 'system')} × "
            f"{counted(len(metrics), 'metric')} over {counted(queries, 'query', 'queries')}"
        )
        dropped = _dropped(self.query_counts)
        if dropped:
            title += f" ({dropped} dropped)"
        table = ReprTable(
            ["system", *metrics],
            [[system, *(means.get((system, m)) for m in metrics)] for system in systems],
            n_rows=len(systems),
            row_noun="systems",
            column_noun="metrics",
        )
        return title, table, "(means; .summary has the intervals, .per_query every value)"

    def __repr__(self) -> str:
        from rankset._format import text_repr

        return text_repr(*self._repr_blocks())

    def _repr_html_(self) -> str:
        from rankset._format import html_repr

        return html_repr(*self._repr_blocks())


def _dropped(query_counts: pl.DataFrame) -> str:
    """Count the queries dropped per system for want of labels (or of a run, on "skip")."""
    columns = {"n_run_queries_without_labels", "n_label_queries_without_run", "missing_policy"}
    if not columns <= set(query_counts.columns) or query_counts.height == 0:
        return ""
    counts = query_counts.select(
        pl.col("n_run_queries_without_labels")
        + pl.when(pl.col("missing_policy") == "skip")
        .then(pl.col("n_label_queries_without_run"))
        .otherwise(0)
    ).to_series()
    values = [int(value) for value in counts.to_list() if value is not None] or [0]
    low, high = min(values), max(values)
    return f"{high}" if low == high else f"{low}–{high}"


def planned_tidy(
    frame: pl.DataFrame | pl.LazyFrame,
    metrics: list[Metric],
    values: Mapping[str, pl.Expr],
    systems: Sequence[str],
) -> pl.LazyFrame:
    """Plan one row per (system, query, metric): systems in ``systems`` order, metrics as asked.

    Each metric's value is computed once into a wide frame, which is unpivoted and joined
    to a small table describing the metrics (name, measure, cutoff, place). Lazy, to be
    collected once with what else reads it (the summary, the counts): on a small result
    each eager step would be a fixed cost.
    """
    columns = [f"_value{i}" for i in range(len(metrics))]
    per_query_k = any(metric.k == PER_QUERY for metric in metrics)
    index = ["system", "query_id", *([QUERY_K] if per_query_k else [])]
    wide = frame.lazy().select(
        *index,
        *(
            values[metric.name].cast(pl.Float64).alias(column)
            for metric, column in zip(metrics, columns, strict=True)
        ),
    )
    described = pl.LazyFrame(
        {
            "_column": columns,
            "metric": [metric.name for metric in metrics],
            "measure": [metric.measure for metric in metrics],
            "_fixed_k": [None if metric.k in (None, PER_QUERY) else metric.k for metric in metrics],
            "_per_query_k": [metric.k == PER_QUERY for metric in metrics],
            "_order": list(range(len(metrics))),
        },
        schema={
            "_column": pl.String,
            "metric": pl.String,
            "measure": pl.String,
            "_fixed_k": pl.Int64,
            "_per_query_k": pl.Boolean,
            "_order": pl.Int64,
        },
    )
    k = pl.col("_fixed_k")
    if per_query_k:
        k = pl.when(pl.col("_per_query_k")).then(pl.col(QUERY_K).cast(pl.Int64)).otherwise(k)
    order: list[str | pl.Expr] = ["_order", "query_id"]
    if len(systems) > 1:
        ranks = {system: i for i, system in enumerate(systems)}
        order.insert(0, pl.col("system").replace_strict(ranks, return_dtype=pl.Int64))
    return (
        wide.unpivot(on=columns, index=index, variable_name="_column", value_name="value")
        .join(described, on="_column", how="left")
        .sort(order, maintain_order=True)  # one row per key: the order is the keys'
        .select("system", "query_id", "metric", "measure", k.alias("k"), "value")
    )
