"""The kernel's labels: read, checked, put in order and summarised per query.

What phase two of the kernel (:mod:`rankset.evaluation._kernel`) reads besides the
labelled run rows: the labels in their canonical (query, doc) order with the plan's
label row columns, and each query's statistics. They are made from the labels the
pass collected (beside the numbering of a large run: :func:`labels_beside`), or once
for many evaluations of the same labels (:func:`prepare_labels`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import polars as pl

from rankset.evaluation._pass import SMALL_ENGINE
from rankset.evaluation._pass_checks import LABELS_SCANNED_FROM, label_problem_row
from rankset.evaluation._plan import EvaluationPlan
from rankset.evaluation._query_policy import IDENTICAL_ROWS
from rankset.evaluation._runs import keep_bucket
from rankset.measures import Features
from rankset.measures._shared import POSITIONS_BELOW, QUERY_K, with_positions_below
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
    "IN_LABEL_ORDER",
    "PreparedLabels",
    "in_label_order",
    "label_side_frames",
    "labels_beside",
    "labels_in_bucket",
    "prepare_labels",
]


@dataclass(frozen=True)
class PreparedLabels:
    """The labels of a plan read, checked and summarised once (:func:`prepare_labels`).

    What every evaluation of the same labels would do again: the labels collected and
    checked, put in (query, doc) order, given the plan's label row columns, and their
    per-query statistics. :func:`~rankset.evaluation._kernel.measure_queries` takes it
    to measure only the runs.
    """

    frame: pl.DataFrame  # query_id, doc_id, grade: checked, in (query, doc) order
    label_rows: pl.LazyFrame
    stats: pl.DataFrame


def labels_beside(
    plan: EvaluationPlan,
    labels: pl.LazyFrame,
    wanted: list[str],
    identical: int,
    prepared: PreparedLabels | None,
    collected: list[pl.DataFrame],
) -> tuple[dict[str, pl.DataFrame], pl.LazyFrame, pl.DataFrame]:
    """Take the labels' side of a pass's frames: checked, summarised, statistics collected.

    ``collected``: the labels (unless ``prepared``), the ``wanted`` frames and the
    ``identical`` rows' frames, as :func:`~rankset.evaluation._kernel.measure_queries`
    asked the pass for them.
    Returns the wanted frames (cutoffs and grades taken out, the identical rows in),
    the label rows and their per-query statistics. Run beside the numbering of a large
    run (:func:`~rankset.evaluation._pass.measure_pass`).
    """
    rest = collected[: len(collected) - identical]
    if prepared is None:
        label_frame, *rest = rest
        extra = dict(zip(wanted, rest, strict=True))
        _, label_rows, query_stats = _summarise_labels(plan, labels, label_frame, extra)
        stats = query_stats.collect(engine=SMALL_ENGINE)
    else:
        extra = dict(zip(wanted, rest, strict=True))
        label_rows, stats = prepared.label_rows, prepared.stats
    if identical:
        extra[IDENTICAL_ROWS] = pl.concat(collected[len(collected) - identical :])
    return extra, label_rows, stats


def prepare_labels(
    plan: EvaluationPlan, *, checked_rows: int | None = None, also: AlsoPlanned | None = None
) -> tuple[PreparedLabels, list[pl.DataFrame] | None]:
    """Read, check and summarise a plan's labels once, for runs measured later.

    The same steps :func:`~rankset.evaluation._kernel.measure_queries` takes on the
    labels, in one collect: the checks (ids, grades, duplicates, cutoffs, the grade
    scale) raise the same errors. ``checked_rows``: the caller has applied the row
    checks (ids, grades, no pair twice) to the labels, which have this many rows.
    ``also`` plans more frames on the labels in order and their statistics (both
    lazy), collected with them when the labels are prepared in one collect; they are
    returned beside the labels then, else None (the caller plans them on the prepared
    frames).
    """
    at_once = _prepared_at_once(plan, checked_rows=checked_rows, also=also)
    if at_once is not None:
        return at_once
    label_side = label_side_frames(plan, plan.labels)
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
    rows = _with_label_columns(features, ordered, None, k, highest=short)
    stats = _label_statistics(features, rows)
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
    label_rows = _with_label_columns(features, frame.lazy(), None, k, highest=short)
    return PreparedLabels(frame, label_rows, stats_frame), planned if more else None


def label_side_frames(plan: EvaluationPlan, labels: pl.LazyFrame) -> dict[str, pl.LazyFrame]:
    """Return the frames the labels' checks read besides them: cutoffs, the grades."""
    side = {"cutoffs": plan.cutoffs}
    if plan.features.uses_tiers:
        side["grades"] = labels.select(pl.col("grade").unique())
    return {name: frame for name, frame in side.items() if frame is not None}


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
    label_rows = _with_label_columns(features, label_frame.lazy(), cutoffs, k)
    return label_frame, label_rows, _label_statistics(features, label_rows)


def labels_in_bucket(plan: EvaluationPlan, bucket: tuple[int, int] | None) -> pl.LazyFrame:
    """Return the labels of the queries in ``bucket``: the dataset's folder, else by hash."""
    dataset = plan.dataset_labels
    if bucket is not None and dataset is not None and dataset[1] == bucket[1]:
        frame = dataset[0].filter(pl.col("bucket") == bucket[0])
        return normalize_labels(frame, source=plan.label_source)
    return keep_bucket(plan.labels, bucket)


def _with_label_columns(
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
