"""The run inputs of an evaluation, named but not yet numbered, and their query buckets.

:class:`Runs` holds every run input (:class:`RunPart`) with the evaluation's ordering
and duplicate policies; :mod:`rankset.evaluation._pass` numbers them. The bucket helpers
split the queries into hash buckets, the same way in the runs and in the labels.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankset._typing import DuplicatePolicy, OrderPolicy, ScorePrecision
from rankset.io._shared import TextScan
from rankset.schema import normalize_run
from rankset.schema._rules import cast_run

__all__ = [
    "BUCKET_SEED",
    "RowOrder",
    "RunPart",
    "Runs",
    "TextScanRejected",
    "bucket_of",
    "collect_frames",
    "identical_ids",
    "keep_bucket",
]

#: Seed of the hash that assigns queries to buckets (Polars' hash, stable for a version).
BUCKET_SEED = 20_261_122

#: How a run's rows are arranged, from the most to the least to be had for free:
#: ``"trec_eval"`` (each ranking one block in trec_eval's order), ``"by_key"`` (each
#: ranking one block sorted by its key, ties in any order), ``"any"``.
RowOrder = Literal["trec_eval", "by_key", "any"]


def bucket_of(query_id: pl.Expr, buckets: int) -> pl.Expr:
    """Return the bucket (0..buckets-1) of each query id: Polars' seeded hash of the text.

    Every row of a query lands in the same bucket, in the runs and in the labels alike,
    whatever the id's dtype (ids are hashed as strings).

    Examples
    --------
    >>> ids = pl.Series(["q1", "q2", "q1"])
    >>> buckets = pl.select(bucket_of(pl.lit(ids), 4)).to_series()
    >>> buckets[0] == buckets[2] and 0 <= buckets[1] < 4
    True
    """
    return (query_id.cast(pl.String).hash(seed=BUCKET_SEED) % buckets).cast(pl.Int64)


def keep_bucket(frame: pl.LazyFrame, bucket: tuple[int, int] | None) -> pl.LazyFrame:
    """Keep the rows of the queries in ``bucket`` (a filter pushed down to the scans)."""
    if bucket is None:
        return frame
    return frame.filter(bucket_of(pl.col("query_id"), bucket[1]) == bucket[0])


def identical_ids() -> pl.Expr:
    """Say whether a run row's document id equals its query id (a missing id: no).

    BEIR and MTEB drop such rows before scoring (ArguAna, Quora: the query is itself a
    document of the corpus); ``ignore_identical_ids=True`` does too. Ids compare as the
    strings the pass reads them as.

    Examples
    --------
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", None], "doc_id": ["q1", "d2", "d3"]})
    >>> run.select(identical_ids()).to_series().to_list()
    [True, False, False]
    """
    same = pl.col("query_id").cast(pl.String) == pl.col("doc_id").cast(pl.String)
    return same.fill_null(False)


def collect_frames(
    frames: Sequence[pl.LazyFrame], engine: Literal["streaming", "in-memory", "gpu", "dask"]
) -> list[pl.DataFrame]:
    """Collect ``frames`` together (sharing their scans) on a resolved engine.

    ``"dask"`` collects here on the streaming engine: the steps before the per-bucket
    kernel (naming the systems) run on the client.
    """
    if engine == "gpu":
        gpu = pl.GPUEngine(raise_on_fail=False)
        return [frame.collect(engine=gpu) for frame in frames]
    return pl.collect_all(list(frames), engine="streaming" if engine == "dask" else engine)


class TextScanRejected(Exception):
    """A run broke what its plan assumed: plan again from whole reads and exact profiles.

    A lazily scanned TREC file left the plain layout, or a run assumed to have a score
    on every row (:attr:`RunPart.scores_assumed`) has a row without one.
    """


@dataclass(frozen=True)
class RunPart:
    """One run input, named (it has its ``system`` column) but not yet numbered."""

    frame: pl.LazyFrame
    source: str
    has_scores: bool
    dataset_buckets: int | None  # set for a rankset.partition dataset (bucket column)
    profile: dict[str, Any] | None = None  # tags (up to two), n_scores, n_rows
    name: str | None = None  # the system name of every row; None: from the system column
    # The order its first rows show, the numbering to try; None: not looked at yet
    # (:func:`rankset.evaluation._pass.first_rows_order` looks when a pass needs it).
    row_order: RowOrder | None = "any"
    scan: TextScan | None = None  # a TREC file scanned lazily, on assumptions to verify
    rows_checked: bool = False  # its reader applied the id rules to every row already
    unique_docs: bool = False  # its reader rules out a document twice in a ranking
    # Each row's ranking as a sorted integer, when its reader knows it (a large dict);
    # aligned with ``frame``'s rows, so whatever drops rows sets it to None.
    ranking_numbers: pl.Series | None = None
    # Its distinct query ids, when its reader knows them (a dict's keys); None: unknown.
    query_ids: tuple[str, ...] | None = None
    # The systems of its system column in the order given (a mapping of runs read as
    # one frame); None: in alphabetical order.
    systems: tuple[str, ...] | None = None
    # With ignore_identical_ids: the rows before those were dropped (``frame`` is
    # filtered), read in the same pass to count the rows dropped (:meth:`identical_rows`).
    unfiltered: pl.LazyFrame | None = None
    # The run table's cost columns, named like ``frame``: system, query_id, the costs.
    costs: pl.LazyFrame | None = None
    # Planned as if every row had a score (its profile counted none): the pass's row
    # checks count the rows without one, and any such row makes the plan start again.
    scores_assumed: bool = False

    def in_bucket(self, bucket: int, buckets: int) -> pl.LazyFrame:
        """Keep the queries of ``bucket``: by the dataset's folders, else by hash."""
        return self._bucketed(self.frame, (bucket, buckets))

    def _bucketed(self, frame: pl.LazyFrame, bucket: tuple[int, int] | None) -> pl.LazyFrame:
        if bucket is None:
            return frame
        if self.dataset_buckets == bucket[1]:
            return frame.filter(pl.col("bucket") == bucket[0])
        return keep_bucket(frame, bucket)

    def rows(self, bucket: tuple[int, int] | None) -> pl.LazyFrame:
        """Return the part's rows, only the queries of ``(bucket, buckets)`` when given."""
        return self._bucketed(self.frame, bucket)

    def identical_rows(self, bucket: tuple[int, int] | None) -> pl.LazyFrame | None:
        """Return ``system, query_id`` of the rows ``ignore_identical_ids`` dropped.

        None when it dropped nothing from this part (the option is off).
        """
        if self.unfiltered is None:
            return None
        return (
            self._bucketed(self.unfiltered, bucket)
            .filter(identical_ids())
            .select(pl.col("system").cast(pl.String), pl.col("query_id").cast(pl.String))
        )


@dataclass(frozen=True)
class Runs:
    """Every run input of an evaluation, with the ordering and duplicate policies."""

    inputs: list[RunPart]
    order: OrderPolicy
    duplicates: DuplicatePolicy
    score_precision: ScorePrecision = "float64"

    @property
    def sources(self) -> list[str]:
        """The display name of each run input."""
        return [part.source for part in self.inputs]

    @property
    def costs(self) -> list[tuple[str, pl.LazyFrame]]:
        """Each run input's cost columns with its display name (those that have any)."""
        return [(part.source, part.costs) for part in self.inputs if part.costs is not None]

    def numbered(self, part: RunPart, bucket: tuple[int, int] | None = None) -> pl.LazyFrame:
        """One run normalised (numbered by rank); only the queries of ``bucket``."""
        return normalize_run(
            part.rows(bucket),
            source=part.source,
            order=self.order,
            duplicates=self.duplicates,
            has_scores=part.has_scores,
            score_precision=self.score_precision,
        )

    def frame(self, bucket: tuple[int, int] | None = None) -> pl.LazyFrame:
        """Every run normalised and stacked: ``system, query_id, doc_id, pos, ...``."""
        parts = [self.numbered(part, bucket) for part in self.inputs]
        return pl.concat(parts, how="diagonal_relaxed")

    def drop_identical_ids(self) -> Runs:
        """Drop every row whose document id equals its query id (``ignore_identical_ids``).

        A lazy filter on each run's rows, before they are numbered: the documents after
        one dropped move up a rank. Each part keeps its rows before the filter, which
        the pass counts the dropped rows from (:meth:`RunPart.identical_rows`).
        """
        parts = [
            dataclasses.replace(
                part,
                frame=part.frame.filter(~identical_ids()),
                ranking_numbers=None,
                unfiltered=part.frame if part.unfiltered is None else part.unfiltered,
            )
            for part in self.inputs
        ]
        return dataclasses.replace(self, inputs=parts)

    def identical_rows(self, bucket: tuple[int, int] | None) -> list[pl.LazyFrame]:
        """Return each part's rows dropped by :meth:`drop_identical_ids` (none if not)."""
        found = [part.identical_rows(bucket) for part in self.inputs]
        return [frame for frame in found if frame is not None]

    def dataset_buckets(self) -> int | None:
        """Return the bucket count of the partitioned datasets among the runs, if any."""
        counts = [part.dataset_buckets for part in self.inputs if part.dataset_buckets]
        return max(counts) if counts else None

    def cast(self, part: RunPart, bucket: tuple[int, int] | None) -> tuple[pl.LazyFrame, pl.Expr]:
        """One run cast to the canonical dtypes, with its ordering key (best is largest)."""
        return cast_run(
            part.rows(bucket),
            source=part.source,
            order=self.order,
            has_scores=part.has_scores,
            score_precision=self.score_precision,
        )
