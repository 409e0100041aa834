"""The query-set policy, stated once.

By default a system is scored on the queries that appear both in its run and in the
labels (trec_eval's default); with ``missing="zero"`` every labelled query is scored and
the queries the system did not answer count as empty rankings (trec_eval ``-c``). The
queries dropped either way are counted per system (:attr:`EvaluationResult.query_counts`),
and so are the run rows ``ignore_identical_ids`` dropped (:func:`with_identical_counts`).
"""

from __future__ import annotations

from typing import TypeVar

import polars as pl

from rankset.errors import SchemaError
from rankset.measures import Features

__all__ = [
    "IDENTICAL_ROWS",
    "IN_LABELS",
    "apply_query_policy",
    "count_queries",
    "query_counts_table",
    "with_identical_counts",
]

#: Column of the kernel's aggregates: whether the query has labels.
IN_LABELS = "_in_labels"
#: Name of the kernel's extra frame of the run rows ``ignore_identical_ids`` dropped.
IDENTICAL_ROWS = "identical_ids"


def apply_query_policy(
    features: Features,
    aggregates: pl.DataFrame,
    stats: pl.DataFrame,
    systems: list[str],
    missing: str,
    sources: list[str],
    *,
    emptied: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Return the scored rows and the per-system query counts.

    ``emptied``: the ``(system, query_id)`` pairs ranked before ``judged_only`` cut the
    runs; a labelled one the cut left without documents is scored as an empty ranking.
    """
    # Built lazily and collected once: on small inputs each eager step is a fixed cost.
    in_labels = pl.col(IN_LABELS)
    every = aggregates.lazy()
    label_ids = stats.lazy().select("query_id")
    scored = every.filter(in_labels).drop(IN_LABELS)
    if emptied is not None:
        labelled = emptied.lazy().join(label_ids, on="query_id", how="semi")
        lost = labelled.join(scored, on=["system", "query_id"], how="anti")
        scored = pl.concat([scored, _as_empty(features, lost, scored)], how="diagonal_relaxed")
    per_system = pl.LazyFrame({"system": systems}, schema={"system": pl.String})
    answered = scored.group_by("system").agg(n_answered=pl.len())
    ranked = every.filter(~in_labels).select("system", "query_id")
    if emptied is not None:  # judged_only removed every document of the run-only queries
        ranked = emptied.lazy().join(label_ids, on="query_id", how="anti")
    run_only = ranked.group_by("system").agg(n_run_queries_without_labels=pl.len())
    n_label_queries = stats.height
    counts = count_queries(
        per_system.join(answered, on="system", how="left", maintain_order="left").join(
            run_only, on="system", how="left", maintain_order="left"
        ),
        n_label_queries,
        missing,
    )
    if missing == "zero":
        grid = per_system.join(label_ids, how="cross")
        scored = _as_empty(features, grid, scored)
    scored_frame, counts_frame = pl.collect_all([scored, counts], engine="in-memory")
    silent = counts_frame.filter(pl.col("n_answered") == 0)["system"].to_list()
    if silent:
        run_ids = aggregates.filter(pl.col("system").is_in(silent))["query_id"].unique().sort()
        label_ids_shown = stats["query_id"].unique().sort()
        msg = (
            f"No query in common between the labels and the run of system(s) "
            f"{', '.join(map(repr, silent))} (from {', '.join(sources)}): run queries e.g. "
            f"{run_ids.head(3).to_list()}, label queries e.g. "
            f"{label_ids_shown.head(3).to_list()}. "
            "Check that the run and the labels belong to the same topics."
        )
        raise SchemaError(msg)
    return scored_frame, query_counts_table(counts_frame, missing)


def count_queries(answered: pl.LazyFrame, n_label_queries: int, missing: str) -> pl.LazyFrame:
    """Complete each system's query counts from what its run answered.

    ``answered`` has ``system``, ``n_answered`` (labelled queries the run ranks) and
    ``n_run_queries_without_labels`` (null: none); ``n_label_queries_without_run`` and
    ``n_scored`` (by the ``missing`` policy) are added.
    """
    return (
        answered.with_columns(
            pl.col("n_answered").fill_null(0).cast(pl.Int64),
            pl.col("n_run_queries_without_labels").fill_null(0).cast(pl.Int64),
        )
        .with_columns(
            n_label_queries_without_run=pl.lit(n_label_queries, dtype=pl.Int64)
            - pl.col("n_answered")
        )
        .with_columns(
            n_scored=pl.lit(n_label_queries, dtype=pl.Int64)
            if missing == "zero"
            else pl.col("n_answered")
        )
    )


_Frame = TypeVar("_Frame", pl.DataFrame, pl.LazyFrame)


def query_counts_table(counts: _Frame, missing: str) -> _Frame:
    """Return :attr:`EvaluationResult.query_counts` from :func:`count_queries`' frame.

    Planned when ``counts`` is (a lazy frame), collected when it is collected.
    """
    return counts.select(
        "system",
        "n_scored",
        "n_run_queries_without_labels",
        "n_label_queries_without_run",
        pl.lit(missing).alias("missing_policy"),
    )


def _as_empty(features: Features, queries: pl.LazyFrame, scored: pl.LazyFrame) -> pl.LazyFrame:
    """Give ``queries`` (system, query_id) their scored row, or an empty ranking's values."""
    return queries.join(
        scored, on=["system", "query_id"], how="left", maintain_order="left"
    ).with_columns(
        pl.col(name).fill_null(value)
        for name, value in features.empty_values.items()
        if value is not None
    )


def with_identical_counts(counts: pl.DataFrame, dropped: pl.DataFrame | None) -> pl.DataFrame:
    """Add the counts of what ``ignore_identical_ids`` dropped to the query counts.

    ``dropped`` holds ``system, query_id`` of each run row whose document id was its
    query id (None: no run input had any to read). Two columns come last, per system:
    ``n_identical_dropped``, the rows dropped, and ``n_queries_with_identical``, the
    queries (of the run, labelled or not) they were dropped from.

    Examples
    --------
    >>> counts = pl.DataFrame({"system": ["a", "b"], "n_scored": [2, 2]})
    >>> dropped = pl.DataFrame({"system": ["a", "a"], "query_id": ["q1", "q2"]})
    >>> with_identical_counts(counts, dropped).rows()
    [('a', 2, 2, 2), ('b', 2, 0, 0)]
    """
    if dropped is None:
        dropped = pl.DataFrame(schema={"system": pl.String, "query_id": pl.String})
    per_system = dropped.group_by("system").agg(
        n_identical_dropped=pl.len(), n_queries_with_identical=pl.col("query_id").n_unique()
    )
    return counts.join(per_system, on="system", how="left", maintain_order="left").with_columns(
        pl.col("n_identical_dropped").fill_null(0).cast(pl.Int64),
        pl.col("n_queries_with_identical").fill_null(0).cast(pl.Int64),
    )
