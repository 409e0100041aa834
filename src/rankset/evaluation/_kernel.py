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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import polars as pl

from rankset._version import __version__
from rankset.errors import ClusterError, SchemaError
from rankset.evaluation._pass import SMALL_ENGINE, measure_pass
from rankset.evaluation._pass_checks import LABELS_SCANNED_FROM, label_problem_row
from rankset.evaluation._plan import EvaluationPlan
from rankset.evaluation._query_policy import (
    IDENTICAL_ROWS,
    IN_LABELS,
    apply_query_policy,
    with_identical_counts,
)
from rankset.evaluation._runs import Runs, bucket_of, keep_bucket
from rankset.measures import Features
from rankset.measures._shared import GROUP, POSITIONS_BELOW, QUERY_K, with_positions_below
from rankset.measures.scales import check_grades_in_scale
from rankset.schema import normalize_labels
from rankset.schema._rules import (
    check_cutoffs,
    duplicate_labels,
    label_problem_counts,
    raise_on_bad_labels,
    raise_on_duplicate_labels,
    repeats_a_pair,
)

__all__ = [
    "Collected",
    "PartialResult",
    "PreparedLabels",
    "describe",
    "finish",
    "measure_queries",
    "merge_partial_results",
    "occupied_buckets",
    "prepare_labels",
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


@dataclass(frozen=True)
class PreparedLabels:
    """The labels of a plan read, checked and summarised once (:func:`prepare_labels`).

    What every evaluation of the same labels would do again: the labels collected and
    checked, put in (query, doc) order, given the plan's label row columns, and their
    per-query statistics. :func:`measure_queries` takes it to measure only the runs.
    """

    frame: pl.DataFrame  # query_id, doc_id, grade: checked, in (query, doc) order
    label_rows: pl.LazyFrame
    stats: pl.DataFrame


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
        label_side = _label_side(plan, labels)
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
    hits_frame, counts_frame, rest = measure_pass(
        runs, labels, bucket, engine, [*label_frames, *wanted.values(), *identical]
    )
    if identical:
        dropped = pl.concat(rest[len(rest) - len(identical) :])
        rest = rest[: len(rest) - len(identical)]
    if prepared is None:
        label_frame, *rest = rest
        extra = dict(zip(wanted, rest, strict=True))
        label_frame, label_rows, query_stats = _summarise_labels(plan, labels, label_frame, extra)
    else:
        extra = dict(zip(wanted, rest, strict=True))
        label_rows, query_stats = prepared.label_rows, prepared.stats.lazy()
    if identical:
        extra[IDENTICAL_ROWS] = dropped

    # The small phase adds in row order (rankset.measures' sequential sums): the pass
    # gives the labelled rows in rank order.
    highest = hits_frame["pos"].max() if hits_frame.height else 0
    bounded = highest if isinstance(highest, int) and highest < POSITIONS_BELOW else None
    rows = _run_rows(features, hits_frame.lazy(), query_stats, highest=bounded)
    aggregates, stats = pl.collect_all(
        [_aggregate_run(features, rows, counts_frame.lazy(), query_stats), query_stats],
        engine=SMALL_ENGINE,
    )
    if not keep_rows:
        return PartialResult(aggregates, stats, extra, bucket=bucket)
    return PartialResult(aggregates, stats, extra, rows=rows, label_rows=label_rows, bucket=bucket)


def prepare_labels(
    plan: EvaluationPlan, *, checked_rows: int | None = None, also: AlsoPlanned | None = None
) -> tuple[PreparedLabels, list[pl.DataFrame] | None]:
    """Read, check and summarise a plan's labels once, for runs measured later.

    The same steps :func:`measure_queries` takes on the labels, in one collect: the
    checks (ids, grades, duplicates, cutoffs, the grade scale) raise the same errors.
    ``checked_rows``: the caller has applied the row checks (ids, grades, no pair
    twice) to the labels, which have this many rows. ``also`` plans more frames on the
    labels in order and their statistics (both lazy), collected with them when the
    labels are prepared in one collect; they are returned beside the labels then, else
    None (the caller plans them on the prepared frames).
    """
    at_once = _prepared_at_once(plan, checked_rows=checked_rows, also=also)
    if at_once is not None:
        return at_once
    label_side = _label_side(plan, plan.labels)
    label_frame, *rest = pl.collect_all([plan.labels, *label_side.values()], engine=SMALL_ENGINE)
    extra = dict(zip(label_side, rest, strict=True))
    label_frame, label_rows, query_stats = _summarise_labels(plan, plan.labels, label_frame, extra)
    stats = query_stats.collect(engine=SMALL_ENGINE)
    return PreparedLabels(label_frame, label_rows, stats), None


#: The labels' canonical order: by query id, then document id, in byte order. One
#: struct key sorts in a fraction of the time two columns take, and needs no stable
#: sort: a (query, doc) pair is labelled once (the checks refuse a repeat).
IN_LABEL_ORDER = pl.struct("query_id", "doc_id")
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def in_label_order(labels: FrameT) -> FrameT:
    """Sort ``labels`` by :data:`IN_LABEL_ORDER`, their query ids flagged sorted.

    The flag lets the statistics' windows and group-bys over ``query_id`` take each
    query's labels as one slice instead of hashing every id (600,773 labels: 63 to 39 ms).

    Examples
    --------
    >>> labels = pl.DataFrame({"query_id": ["b", "a", "b"], "doc_id": ["2", "9", "1"]})
    >>> ordered = in_label_order(labels)
    >>> ordered.rows(), ordered["query_id"].flags["SORTED_ASC"]
    ([('a', '9'), ('b', '1'), ('b', '2')], True)
    """
    return labels.sort(IN_LABEL_ORDER).with_columns(pl.col("query_id").set_sorted())


#: Plans frames on prepared labels (in query, doc order) and their statistics, or None.
AlsoPlanned = Callable[[pl.LazyFrame, pl.LazyFrame], list[pl.LazyFrame] | None]
#: Up to this many label rows checked already, the labels are prepared without Polars'
#: optimizer: it costs more than it saves on so few rows.
_UNOPTIMIZED_LABEL_ROWS = 5_000


def _prepared_at_once(
    plan: EvaluationPlan, *, checked_rows: int | None, also: AlsoPlanned | None
) -> tuple[PreparedLabels, list[pl.DataFrame] | None] | None:
    """Prepare labels without cutoffs or grade tiers in one collect, checks included.

    Optimistic: the labels' problem counts are collected with their statistics and a
    pair labelled twice is looked for in the sorted labels (unless ``checked_rows`` says
    the caller checked them); when either finds something (or Polars raises), None, and
    the step by step preparation raises the error it always did. ``also``: :func:`prepare_labels`'.
    """
    if plan.cutoffs is not None or plan.features.uses_tiers:
        return None
    features, labels = plan.features, plan.labels
    ordered = in_label_order(labels)
    k = plan.options.k or plan.options.default_k
    # An ideal ranking is no longer than the labels: its log2 discount from the table.
    short = checked_rows if checked_rows is not None and checked_rows < POSITIONS_BELOW else None
    stats = _label_statistics(features, _label_rows(features, ordered, None, k, highest=short))
    checks = [] if checked_rows is not None else [label_problem_counts(labels)]
    more = [] if also is None else also(ordered, stats) or []
    few = checked_rows is not None and checked_rows <= _UNOPTIMIZED_LABEL_ROWS
    flags = pl.QueryOptFlags.none() if few else pl.QueryOptFlags()
    try:
        frame, stats_frame, *found = pl.collect_all(
            [ordered, stats, *more, *checks], engine=SMALL_ENGINE, optimizations=flags
        )
    except pl.exceptions.PolarsError:
        return None
    planned, found = found[: len(more)], found[len(more) :]
    # a pair labelled twice sits next to itself in the sorted labels (as the steps see it)
    if found and (any(found[0].row(0)) or repeats_a_pair(frame)):
        return None
    label_rows = _label_rows(features, frame.lazy(), None, k, highest=short)
    return PreparedLabels(frame, label_rows, stats_frame), planned if more else None


def _label_side(plan: EvaluationPlan, labels: pl.LazyFrame) -> dict[str, pl.LazyFrame]:
    """Return the frames the labels' checks read besides them: cutoffs, the grades."""
    side = {"cutoffs": plan.cutoffs}
    if plan.features.uses_tiers:
        side["grades"] = labels.select(pl.col("grade").unique())
    return {name: frame for name, frame in side.items() if frame is not None}


# Each ranking's run-length id over the labelled rows, in rank order (_aggregate_run).
_RANKING = "_ranking_run"


def _summarise_labels(
    plan: EvaluationPlan,
    labels: pl.LazyFrame,
    label_frame: pl.DataFrame,
    extra: dict[str, pl.DataFrame],
) -> tuple[pl.DataFrame, pl.LazyFrame, pl.LazyFrame]:
    """Check the collected labels; return them in order, their rows and statistics.

    Takes ``cutoffs`` and ``grades`` out of ``extra`` (they are the labels' side). A
    ``(query, doc)`` pair labelled twice is found next to itself once the labels are
    in order; only then are the repeated labels looked for in ``labels``, to name them.
    """
    features = plan.features
    # Many labels' ids are counted from their bytes (numpy); a few by the masks.
    large = label_frame.height >= LABELS_SCANNED_FROM
    counts = label_problem_row(label_frame) if large else None
    raise_on_bad_labels(label_frame, plan.label_source, counts)
    label_frame = in_label_order(label_frame)
    if repeats_a_pair(label_frame):
        repeated = duplicate_labels(labels).collect(engine=SMALL_ENGINE)
        raise_on_duplicate_labels(repeated, plan.label_source)
    if "cutoffs" in extra:
        check_cutoffs(extra["cutoffs"])
    if "grades" in extra:
        check_grades_in_scale(extra.pop("grades")["grade"], features.scale, plan.label_source)
    k = plan.options.k or plan.options.default_k
    cutoffs = extra.pop("cutoffs").lazy() if "cutoffs" in extra else None
    label_rows = _label_rows(features, label_frame.lazy(), cutoffs, k)
    return label_frame, label_rows, _label_statistics(features, label_rows)


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


def labels_in_bucket(plan: EvaluationPlan, bucket: tuple[int, int] | None) -> pl.LazyFrame:
    """Return the labels of the queries in ``bucket``: the dataset's folder, else by hash."""
    dataset = plan.dataset_labels
    if bucket is not None and dataset is not None and dataset[1] == bucket[1]:
        frame = dataset[0].filter(pl.col("bucket") == bucket[0])
        return normalize_labels(frame, source=plan.label_source)
    return keep_bucket(plan.labels, bucket)


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


def _label_rows(
    features: Features,
    labels: pl.LazyFrame,
    cutoffs: pl.LazyFrame | None,
    k: int,
    *,
    highest: int | None = None,
) -> pl.LazyFrame:
    """Add the label row columns to the labels, given in (query, doc) order.

    ``highest``: no query has more labels (below :data:`POSITIONS_BELOW`).
    """
    rows = labels
    if features.uses_query_k:
        if cutoffs is not None:
            rows = rows.join(cutoffs.unique(), on="query_id", how="left", maintain_order="left")
            rows = rows.with_columns(pl.col("k").fill_null(k).alias(QUERY_K)).drop("k")
        else:
            rows = rows.with_columns(pl.lit(k, dtype=pl.Int64).alias(QUERY_K))
    label_row_columns = features.label_row_columns
    if highest is not None:  # read log2(_ipos + 1) by Polars: no Python call per chunk
        label_row_columns = with_positions_below(label_row_columns, highest, "_ipos")
    for expr in label_row_columns.values():
        rows = rows.with_columns(expr)
    return rows


def _label_statistics(features: Features, label_rows: pl.LazyFrame) -> pl.LazyFrame:
    aggregations = [pl.len().alias("_n_labels"), *features.label_aggregations.values()]
    if features.uses_query_k:
        aggregations.append(pl.col(QUERY_K).first())
    return label_rows.group_by("query_id").agg(aggregations)


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
