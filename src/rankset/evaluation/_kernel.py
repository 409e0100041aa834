"""The kernel: both phases of an evaluation over one partition of whole queries.

Phase one is the pass over the runs (:mod:`rankset.evaluation._pass`) on the chosen
Polars engine: each labelled document's position, each ranking's length, the one join
to the labels. Phase two runs over the labelled rows and the labels only, on the
in-memory engine and in a canonical row order, so every floating-point sum and every
value is bit-identical whatever the engine, the bucket count or the input order:

1. labels → per-query label statistics (number relevant, ideal DCG...);
2. one group-by over each ranking's rows (contiguous in rank order) computing every
   metric's aggregations, joined to the ranking lengths (a ranking whose documents
   carry no label takes the aggregations' empty values).

The kernel is engine-agnostic: the executors (:mod:`rankset.evaluation._executors`) call
it once for everything, once per bucket, or on cluster workers, and
:func:`merge_partial_results` concatenates what it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import polars as pl

from rankset._version import __version__
from rankset.errors import ClusterError, SchemaError
from rankset.evaluation._kernel_labels import (
    PreparedLabels,
    label_side_frames,
    labels_beside,
    labels_in_bucket,
)
from rankset.evaluation._pass import SMALL_ENGINE, measure_pass
from rankset.evaluation._plan import EvaluationPlan
from rankset.evaluation._query_policy import (
    IDENTICAL_ROWS,
    IN_LABELS,
    apply_query_policy,
    with_identical_counts,
)
from rankset.evaluation._runs import Runs, bucket_of, keep_bucket
from rankset.evaluation._scratch import borrowing
from rankset.measures import Features
from rankset.measures._shared import GROUP, POSITIONS_BELOW, with_positions_below

__all__ = [
    "Collected",
    "PartialResult",
    "describe",
    "finish",
    "measure_queries",
    "merge_partial_results",
    "occupied_buckets",
]


@dataclass(frozen=True)
class Collected:
    """The finished frames of an evaluation, before they are made tidy."""

    scored: pl.DataFrame  # one row per scored (system, query): the aggregations
    stats: pl.DataFrame  # one row per labelled query: the label statistics
    query_counts: pl.DataFrame
    config: dict[str, Any]
    extra: dict[str, pl.DataFrame]
    # The small phase's inputs, in memory: labelled run rows with the plan's row columns
    # (canonical order), and the labels with the plan's label row columns.
    rows: pl.LazyFrame
    label_rows: pl.LazyFrame


@dataclass(frozen=True)
class PartialResult:
    """What the kernel returns for one set of whole queries (small frames).

    ``aggregates`` has one row per (system, query) of the runs: the counts, the plan's
    aggregations and whether the query is labelled; ``stats`` one row per labelled
    query; ``extra`` the pool counts and answer positions when asked for. ``rows`` and
    ``label_rows`` (the labelled run rows and the label rows, with the plan's row
    columns) are kept for metric-vs-k curves only.
    """

    aggregates: pl.DataFrame
    stats: pl.DataFrame
    extra: dict[str, pl.DataFrame]
    rows: pl.LazyFrame | None = None
    label_rows: pl.LazyFrame | None = None
    bucket: tuple[int, int] | None = None  # (bucket, buckets) when measured by bucket


def measure_queries(
    plan: EvaluationPlan,
    bucket: tuple[int, int] | None,
    *,
    keep_rows: bool = False,
    prepared: PreparedLabels | None = None,
) -> PartialResult:
    """Run both phases of the plan over the queries of one bucket (all when ``None``).

    This is the engine-agnostic kernel: one call per bucket of whole queries, on this
    machine or on a cluster worker, from the same inputs to the same small frames.
    Every aggregation groups by query (or by system and query), so the partitions'
    frames, concatenated and sorted (:func:`merge_partial_results`), equal those of one
    pass over everything, bit for bit. ``prepared``: the plan's labels as
    :func:`prepare_labels` gave them (all queries, no bucket), so only the runs are read.
    """
    features, runs = plan.features, plan.runs
    engine = plan.engine
    if engine == "dask":  # on a worker: the pass runs on its streaming engine
        engine = "streaming"
    if prepared is None:
        labels = labels_in_bucket(plan, bucket)
        label_frames = [labels]
        label_side = label_side_frames(plan, labels)
    else:
        labels = prepared.frame.lazy()
        label_frames = []
        label_side = {}
    optional = {
        **label_side,
        "pool": plan.pools.counts if plan.pools is not None else None,
        "answer_positions": plan.answer_positions,
        "answer_counts": (
            plan.answers.group_by("query_id").agg(_n_answers=pl.len())
            if plan.answers is not None
            else None
        ),
        "nugget_values": plan.nugget_values,
        "nugget_stats": plan.nugget_stats,
    }
    wanted = {
        name: frame if name == "grades" else keep_bucket(frame, bucket)
        for name, frame in optional.items()
        if frame is not None
    }
    # ignore_identical_ids: the rows dropped, read in the same pass, to be counted.
    identical = runs.identical_rows(bucket)
    with borrowing():  # the numbering's large arrays: kept between evaluations
        hits_frame, counts_frame, (extra, label_rows, stats) = measure_pass(
            runs,
            labels,
            bucket,
            engine,
            [*label_frames, *wanted.values(), *identical],
            partial(labels_beside, plan, labels, list(wanted), len(identical), prepared),
        )

    # The small phase adds in row order (rankset.measures' sequential sums): the pass
    # gives the labelled rows in rank order.
    highest = hits_frame["pos"].max() if hits_frame.height else 0
    bounded = highest if isinstance(highest, int) and highest < POSITIONS_BELOW else None
    query_stats = stats.lazy()
    rows = _run_rows(features, hits_frame.lazy(), query_stats, highest=bounded)
    aggregated = _aggregate_run(features, rows, counts_frame.lazy(), query_stats)
    aggregates = aggregated.collect(engine=SMALL_ENGINE)
    if not keep_rows:
        return PartialResult(aggregates, stats, extra, bucket=bucket)
    return PartialResult(aggregates, stats, extra, rows=rows, label_rows=label_rows, bucket=bucket)


# Each ranking's run-length id over the labelled rows, in rank order (_aggregate_run).
_RANKING = "_ranking_run"


def merge_partial_results(
    parts: Sequence[PartialResult], buckets: Sequence[int] | None = None
) -> PartialResult:
    """Concatenate the partitions' frames in the order one pass would give them.

    ``buckets`` lists the buckets that hold a query (:func:`occupied_buckets`), when
    only those were measured; by default every bucket must be.

    Raises
    ------
    ClusterError
        A bucket is missing or measured twice, or a query was measured in two
        partitions (they must hold whole queries: all their run rows and labels).
    """
    if not parts:
        raise ClusterError("No partition was measured.")
    if len(parts) == 1 and buckets is None:
        return parts[0]
    _check_whole_queries(parts, buckets)
    if len(parts) == 1:
        return parts[0]
    extra = {
        name: pl.concat([part.extra[name] for part in parts], how="vertical")
        for name in parts[0].extra
    }
    rows = [part.rows for part in parts if part.rows is not None]
    label_rows = [part.label_rows for part in parts if part.label_rows is not None]
    return PartialResult(
        aggregates=pl.concat([part.aggregates for part in parts]).sort(*GROUP, maintain_order=True),
        stats=pl.concat([part.stats for part in parts]).sort("query_id", maintain_order=True),
        extra=extra,
        rows=pl.concat(rows).sort(*GROUP, "pos", maintain_order=True) if rows else None,
        label_rows=pl.concat(label_rows) if label_rows else None,
    )


def _check_whole_queries(
    parts: Sequence[PartialResult], expected: Sequence[int] | None = None
) -> None:
    buckets = [part.bucket for part in parts if part.bucket is not None]
    if buckets:
        count = buckets[0][1]
        measured = sorted(bucket for bucket, _ in buckets)
        wanted = sorted(expected) if expected is not None else list(range(count))
        if len(buckets) != len(parts) or measured != wanted:
            missing = sorted(set(wanted) - set(measured))
            twice = sorted({b for b in measured if measured.count(b) > 1})
            msg = (
                f"The partitions do not cover the {count} buckets once each "
                f"(missing: {missing or 'none'}; measured twice: {twice or 'none'})."
            )
            raise ClusterError(msg)
        return
    label_queries = pl.concat([part.stats.select("query_id") for part in parts])
    run_queries = pl.concat([part.aggregates.select(*GROUP) for part in parts])
    repeated = (
        pl.concat(
            [
                label_queries.filter(pl.col("query_id").is_duplicated()),
                run_queries.filter(pl.struct(GROUP).is_duplicated()).select("query_id"),
            ]
        )["query_id"]
        .unique()
        .sort()
    )
    if repeated.len():
        msg = (
            f"Queries {repeated.head(3).to_list()} were measured in more than one partition: "
            "each partition must hold whole queries (all their run rows and labels), e.g. "
            "partitioned by rankset.evaluation.bucket_of(query_id)."
        )
        raise ClusterError(msg)


def occupied_buckets(plan: EvaluationPlan, buckets: int) -> list[int]:
    """Return the buckets (of ``buckets``) that hold a query of the runs or the labels.

    One pass over the query ids alone, so that asking for more buckets than there are
    queries (``--buckets 4096`` on 40 queries) costs no pass over an empty bucket.
    """
    ids = [part.frame.select("query_id") for part in plan.runs.inputs]
    ids.append(plan.labels.select("query_id"))
    found = (
        pl.concat(ids, how="vertical_relaxed")
        .select(bucket_of(pl.col("query_id"), buckets).unique().sort())
        .collect(engine="streaming")
    )
    return [int(bucket) for bucket in found.to_series().to_list()]


def systems_in_input_order(runs: Runs, measured: list[str]) -> list[str]:
    """Order the systems as the runs were given: each input's name in turn.

    An input that names its systems in a ``system`` column takes its place with those
    systems in alphabetical order (several such inputs share the first one's place),
    or in the order its reader gives (a mapping of runs read as one frame).
    """
    named = [part.name for part in runs.inputs if part.name is not None]
    from_columns = sorted(set(measured) - set(named))
    order: list[str] = []
    for part in runs.inputs:
        if part.name is not None:
            order.append(part.name)
        elif part.systems is not None:
            order += part.systems
        elif from_columns:
            order += from_columns
            from_columns = []
    present = set(measured)
    return [system for system in dict.fromkeys(order) if system in present]


def finish(plan: EvaluationPlan, merged: PartialResult) -> Collected:
    """Apply the query policies and the pools to the merged partitions; describe the run."""
    features, runs = plan.features, plan.runs
    aggregates, stats, extra = merged.aggregates, merged.stats, dict(merged.extra)
    measured = aggregates["system"].unique().to_list()
    if plan.ranked_queries is not None:  # a system judged_only emptied is still measured
        measured = list(dict.fromkeys(measured + plan.ranked_queries["system"].to_list()))
    systems = systems_in_input_order(runs, measured)
    if stats.height == 0:
        msg = f"{plan.label_source}: the labels have no rows; expected at least one label."
        raise SchemaError(msg)
    scored, query_counts = apply_query_policy(
        features,
        aggregates,
        stats,
        systems,
        plan.options.missing,
        runs.sources,
        emptied=plan.ranked_queries,
    )
    if plan.options.ignore_identical_ids:
        query_counts = with_identical_counts(query_counts, extra.pop(IDENTICAL_ROWS, None))
    if plan.pools is not None:
        scored = plan.pools.replace_counts(scored, extra["pool"])
    if "answer_positions" in extra:
        scored = scored.join(extra["answer_positions"], on=["system", "query_id"], how="left")
        stats = stats.join(extra["answer_counts"], on="query_id", how="left")
    if "nugget_values" in extra:
        scored = scored.join(extra["nugget_values"], on=["system", "query_id"], how="left")
        stats = stats.join(extra["nugget_stats"], on="query_id", how="left")
    return Collected(
        scored=scored,
        stats=stats,
        query_counts=query_counts,
        config=describe(plan, systems),
        extra=extra,
        rows=merged.rows if merged.rows is not None else pl.LazyFrame(),
        label_rows=merged.label_rows if merged.label_rows is not None else pl.LazyFrame(),
    )


def describe(plan: EvaluationPlan, systems: list[str]) -> dict[str, Any]:
    """Return an evaluation's ``config``: its options, inputs, systems and versions."""
    config = {
        **plan.config(),
        "scale": plan.features.scale.describe(),
        "pool": None if plan.pools is None else plan.pools.description,
        "systems": systems,
        "runs": plan.runs.sources,
        "labels": plan.label_source,
        "rankset_version": __version__,
        "polars_version": pl.__version__,
    }
    if plan.text_match is not None:
        config["text_match"] = plan.text_match.to_dicts()
    return config


def _run_rows(
    features: Features, hits: pl.LazyFrame, stats: pl.LazyFrame, *, highest: int | None = None
) -> pl.LazyFrame:
    """Add the features' row columns to the labelled run rows, given in rank order.

    ``highest``: no position is larger (below :data:`POSITIONS_BELOW`).
    """
    on_rows = sorted(features.label_stats_on_rows)
    rows = hits
    row_columns = features.row_columns
    if highest is not None:  # read log2(pos + 1) by Polars: no Python call per chunk
        row_columns = with_positions_below(row_columns, highest)
    if on_rows:
        rows = rows.join(
            stats.select("query_id", *on_rows), on="query_id", how="left", maintain_order="left"
        )
    for expr in row_columns.values():
        rows = rows.with_columns(expr)
    return rows


def _aggregate_run(
    features: Features, rows: pl.LazyFrame, run_counts: pl.LazyFrame, stats: pl.LazyFrame
) -> pl.LazyFrame:
    """Per (system, query): the features' aggregations over the labelled rows, and the counts.

    A ranking without labelled documents has no rows to aggregate: it takes each
    aggregation's empty value (0 for sums, null for minima).

    ``rows`` come in rank order (:func:`~rankset.evaluation._pass.measure_pass`: by
    system, query id and position), so each ranking's rows are contiguous: they are
    grouped by a sorted run-length id, each group a slice of the rows, rather than by
    hashing both ids; every aggregation sees the same rows in the same order.
    """
    aggregated = (
        rows.with_columns(pl.struct(GROUP).rle_id().set_sorted().alias(_RANKING))
        .group_by(_RANKING, maintain_order=True)
        .agg(pl.col(*GROUP).first(), *features.aggregations.values())
        .drop(_RANKING)
    )
    fills = [
        pl.col(name).fill_null(value)
        for name, value in features.empty_values.items()
        if value is not None and name in features.aggregations
    ]
    return (
        run_counts.sort(*GROUP, maintain_order=True)
        .join(aggregated, on=list(GROUP), how="left", maintain_order="left")
        .join(
            stats.select("query_id", pl.lit(True).alias(IN_LABELS)),
            on="query_id",
            how="left",
            maintain_order="left",
        )
        .with_columns(pl.col(IN_LABELS).fill_null(False), *fills)
    )
