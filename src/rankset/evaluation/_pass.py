"""The pass over the runs: each labelled document's position, each ranking's length.

This is the step that reads every row of every run (and a profile of some runs); what
comes after it works on the labelled rows (a small share of a deep run) and one row per
ranking. Four numberings give the same frames:

* **in order** (:data:`RowOrder` ``"trec_eval"``): most run files list each ranking as
  one block, best first in trec_eval's order (score descending, ties by document id
  descending in byte order). Such a run is numbered from its row index: ``pos = row -
  first row of the ranking + 1``, with no rank, sort or group-by over the rows.
* **in key order** (``"by_key"``): each ranking is one block sorted by score (or rank),
  but tied rows come in another order: ascending document ids as Anserini writes them,
  index order from a dense retriever, whatever a reranker's sort left. A position is a
  count, ``first row of the tie group - first row of the ranking + 1`` plus the number
  of tied rows with a greater document id; the pass keeps each row's tie group (a
  running maximum of tie starts) and the document ids of tied rows only, and the
  counting is done afterwards for the tie groups that hold a labelled row.
* **packed** (``"any"``): any order; each row gets one 64-bit integer (ranking number,
  a code of its key, row number) and one sort of those integers numbers every ranking
  (:mod:`rankset.evaluation._packed`).
* **ranked**: any order; each ranking is numbered by a rank over ``(system, query_id)``
  of (key, doc id), which the streaming engine runs natively. It numbers runs whose
  duplicates are kept (it drops or renames the copies) and runs too large to pack.

The first two check their order on the way (each row against the one before it, in the
same streaming pass) and keep the first row of each block; when a run turns out not to
be in the order assumed, or a ranking is split over several blocks, that run is measured
again by the numbering its rows allow. Which numbering to try is decided from a run's
first rows (:func:`first_rows_order`), so an unordered file is not read twice.

Duplicate documents within a ranking are an error (trec_eval refuses them). Every
numbering collects a 64-bit hash of each row's ``(query_id, doc_id)`` (and ``system``
when a run holds several); when two hashes of one ranking are equal, a second pass
over that run names the duplicates (or finds a hash collision and goes on).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import polars as pl

from rankset.evaluation._packed import number_packed
from rankset.evaluation._packed_pass import (
    CHECKED_MEANWHILE,
    HASH,
    PackedHashes,
    packed_hits,
    packed_pass_frames,
    refuse_bad_packed_ids,
)
from rankset.evaluation._packed_pass import with_rankings as _with_rankings
from rankset.evaluation._packed_rankings import with_counts
from rankset.evaluation._pass_checks import (
    LAYOUT_KEPT,
    N_ROWS,
    ordering_word,
    refuse_bad_rows,
    refuse_shared_rankings,
    row_check_counts,
    row_checks,
    row_hash,
    scan_columns,
)
from rankset.evaluation._runs import (
    RowOrder,
    RunPart,
    Runs,
    TextScanRejected,
    collect_frames,
)
from rankset.io._shared import TextScan
from rankset.measures._shared import GROUP, NUM_RET
from rankset.schema._rules import cast_run, duplicate_docs, raise_on_duplicate_docs

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

Side = TypeVar("Side")  # what measure_pass's beside makes of the frames of the pass

__all__ = [
    "PEEK_ROWS",
    "SMALL_ENGINE",
    "first_rows_order",
    "measure_pass",
    "ordered_pass_frames",
    "ranked_pass_frames",
    "row_checks",
    "same_ranking_as_previous_row",
    "with_first_rows_orders",
]

_ROW = "_row"
_FIRST = "_first_row"
_KEY = "_key"
_IN_ORDER = "_in_order"
_BY_KEY = "_by_key"
_TIE = "_tie"
_TIED = "_tied"
_FIRST_DOC = "_first_doc"
_MATE = "_mate"
_HASH = HASH
_BLOCK = "_block"
#: A numbering: one of the row orders (``"any"``: packed), or the rank over each ranking.
_Numbering = RowOrder | Literal["ranked"]
#: Rows of a run looked at to decide whether it is worth trying the ordered numbering.
PEEK_ROWS = 1_000
# The small steps always run here: the in-memory engine sums each group's rows in row
# order, so with sorted rows every value is bit-identical from run to run; the streaming
# engine merges per-thread partial sums in a varying order (1-ulp differences seen on
# DL19 runs in 11 of 12 repetitions).
SMALL_ENGINE: Literal["in-memory"] = "in-memory"

# --- the numberings ---------------------------------------------------------------------------


def same_ranking_as_previous_row(one_system: bool) -> pl.Expr:
    """Whether a row's ranking (query, and system unless ``one_system``) is the row before's.

    False on the first row and where either id is null: such a row starts a block.
    """
    same = pl.col("query_id") == pl.col("query_id").shift(1)
    if not one_system:
        same = same & (pl.col("system") == pl.col("system").shift(1))
    return same.fill_null(False)


def _keyed(frame: pl.LazyFrame, key: pl.Expr, *others: str) -> pl.LazyFrame:
    """Select what the order check reads: ids and the ordering key (and ``others``)."""
    return frame.select("system", "query_id", "doc_id", key.alias(_KEY), *others)


def _in_order(one_system: bool, *, ties_too: bool = True) -> pl.Expr:
    """Say whether every row follows the previous one of its ranking in trec_eval's order.

    Over rows ``system, query_id, doc_id`` and the ordering key; a missing key is never
    in order (the ranked numbering then decides what it means). With ``ties_too=False``
    tied rows may come in any order: the key only never increases within a ranking.
    """
    same = same_ranking_as_previous_row(one_system)
    previous_key = pl.col(_KEY).shift(1)
    if ties_too:
        follows = (pl.col(_KEY) < previous_key) | (
            (pl.col(_KEY) == previous_key) & (pl.col("doc_id") < pl.col("doc_id").shift(1))
        )
    else:
        follows = pl.col(_KEY) <= previous_key
    # NaN needs no care: Polars compares it as the largest float, as the rank does.
    return (~same | follows).fill_null(False).all() & pl.col(_KEY).is_not_null().all()


def ranked_pass_frames(
    runs: Runs, part: RunPart, labels: pl.LazyFrame, bucket: tuple[int, int] | None = None
) -> list[pl.LazyFrame]:
    """Build one run's pass in any order: labelled rows with positions, counts, checks.

    ``bucket = (b, n)`` keeps the queries of bucket ``b`` of ``n``, filtered at the
    sources before anything else, so each bucket's pass reads and holds only its own
    queries; ``labels`` are those of the same bucket already.
    """
    normalized = runs.numbered(part, bucket)
    numbered = normalized.select("system", "query_id", "doc_id", "pos", *scan_columns(part))
    # keep_best drops copies while numbering: a scanned file's lines are checked before.
    every_row = normalized if runs.duplicates == "error" else part.rows(bucket)
    frames = [
        numbered.select(*GROUP, "doc_id", "pos").join(labels, on=["query_id", "doc_id"]),
        numbered.group_by(list(GROUP)).agg(pl.len().cast(pl.Float64).alias(NUM_RET)),
        every_row.select(row_check_counts(part, ordering_word(part))),
    ]
    if runs.duplicates == "error" and not part.unique_docs:
        frames.append(numbered.select(row_hash(part.name is not None).alias(_HASH)))
    return frames


def ordered_pass_frames(
    runs: Runs,
    part: RunPart,
    labels: pl.LazyFrame,
    bucket: tuple[int, int] | None = None,
    *,
    ties: bool = False,
) -> list[pl.LazyFrame]:
    """Build one run's pass for rows already in order: labelled rows, block starts, checks.

    The row index is taken after the bucket filter, so a ranking must be one block of
    the filtered rows; the checks say whether every row follows the one before it in
    trec_eval's order (or, with ``ties``, in key order), and :func:`_resolve_ordered`
    whether each ranking started once.

    With ``ties`` each row also gets its tie group (the row index of the group's first
    row, a running maximum), and a fifth frame holds the tie group and document id of
    every tied row after a group's first, with the first row's document id beside the
    second row: every document of every tie group of two or more rows, each once.
    """
    cast, key = runs.cast(part, bucket)
    one_system = part.name is not None
    rows = _keyed(cast, key, *scan_columns(part)).with_row_index(_ROW)
    same_ranking = same_ranking_as_previous_row(one_system)
    starts = ~same_ranking
    order_checks = [
        _in_order(one_system).alias(_IN_ORDER),
        _in_order(one_system, ties_too=False).alias(_BY_KEY),
    ]
    hit_columns = [_ROW]
    if ties:
        tied = same_ranking & (pl.col(_KEY) == pl.col(_KEY).shift(1)).fill_null(False)
        rows = rows.with_columns(
            pl.when(tied).then(0).otherwise(pl.col(_ROW)).cum_max().alias(_TIE),
            tied.alias(_TIED),
            pl.col("doc_id").shift(1).alias(_FIRST_DOC),
        )
        hit_columns.append(_TIE)
    frames = [
        rows.select(*hit_columns, *GROUP, "doc_id").join(labels, on=["query_id", "doc_id"]),
        rows.filter(starts).select(*GROUP, _ROW),
        rows.select(*order_checks, *row_check_counts(part, _KEY)),
        rows.select(
            starts.cum_sum().cast(pl.UInt32).alias(_BLOCK), row_hash(one_system).alias(_HASH)
        ),
    ]
    if ties:
        second_of_group = pl.col(_ROW) == pl.col(_TIE) + 1
        frames.append(
            rows.filter(_TIED).select(
                _TIE, "doc_id", pl.when(second_of_group).then(pl.col(_FIRST_DOC)).alias(_FIRST_DOC)
            )
        )
    return frames


@dataclass(frozen=True)
class _Measured:
    hits: pl.DataFrame  # system, query_id, doc_id, pos, grade...
    counts: pl.DataFrame  # system, query_id, NUM_RET
    checks: pl.DataFrame  # one row: N_ROWS, and LAYOUT_KEPT for a scanned file
    hashes: pl.DataFrame | None  # one row hash per run row (duplicates="error")
    in_rank_order: bool = False  # hits sorted by system, query id and position already
    repeats: Future[bool] | bool | None = None  # the duplicate check, when it ran already

    @property
    def maybe_duplicates(self) -> bool:
        """Whether two rows of one ranking have the same hash (:func:`_repeats_a_hash`)."""
        if isinstance(self.repeats, Future):
            return self.repeats.result()
        if self.repeats is not None:
            return self.repeats
        return _repeats_a_hash(self.hashes)


def _repeats_a_hash(hashes: pl.DataFrame | npt.NDArray[np.uint64] | None) -> bool:
    """Whether two rows of one ranking have the same hash (counted in memory).

    The ordered numbering counts its rows' blocks (one per ranking) in the pass, and the
    distinct hashes are counted per block: small sets that stay in cache, cheaper than
    one set of every row. A distinct count or a sort inside the streaming pass costs
    more than either. The other numberings' hashes are sorted by value (numpy's sort of
    20 million integers is a fraction of a hash set of them) and compared with their
    neighbours.
    """
    if hashes is None:
        return False
    if not isinstance(hashes, pl.DataFrame) or _BLOCK not in hashes.columns:
        import numpy as np

        # one copy of a frame's, sorted in place; an array (PackedHashes') as it is
        values = hashes
        if isinstance(values, pl.DataFrame):
            values = values[_HASH].to_numpy(writable=True)
        values.sort()
        return bool(np.any(values[1:] == values[:-1]))
    distinct = (
        hashes.with_columns(pl.col(_BLOCK).set_sorted())
        .group_by(_BLOCK)
        .agg(pl.col(_HASH).n_unique())
    )
    return bool(distinct[_HASH].sum() < hashes.height)


def _resolve_checking(
    order: _Numbering, frames: Sequence[Any], checker: ThreadPoolExecutor
) -> _Measured | _Numbering:
    """Resolve a numbering; a large run's duplicate check runs meanwhile on ``checker``.

    Both are numpy and Polars work that lets go of the GIL: on two cores the check of
    20 million row hashes costs no wall time beside the numbering. The packed numbering
    sorts there the (query, document) hashes its labelled rows were found by (or hashes
    the ids it collected, for a run of several systems).
    """
    source = next(
        (f for f in frames if isinstance(f, (pl.DataFrame, PackedHashes)) and _HASH in f.columns),
        None,
    )
    if source is None:
        return _resolve(order, frames)
    repeats: Future[bool] | bool
    if source.height < CHECKED_MEANWHILE:
        repeats = _repeats_a_hash(_materialised(source))
    else:
        repeats = checker.submit(lambda: _repeats_a_hash(_materialised(source)))
    result = _resolve(order, frames)
    return dataclasses.replace(result, repeats=repeats) if isinstance(result, _Measured) else result


def _materialised(source: pl.DataFrame | PackedHashes) -> pl.DataFrame | npt.NDArray[np.uint64]:
    return source.collect() if isinstance(source, PackedHashes) else source


def _layout_kept(scan: TextScan, frames: Sequence[pl.DataFrame]) -> bool:
    """For a scanned file: every line was read in the plain layout, none a comment.

    ``frames`` are either numbering's: the second holds every ranking's query id (the block
    starts, or the counts), so a line starting with '#' shows there.
    """
    _, rankings, checks, *_ = frames
    return (
        bool(checks[LAYOUT_KEPT].item())
        and rankings.select(scan.rankings_kept(pl.col("query_id"))).item()
    )


def _resolve_ranked(frames: Sequence[pl.DataFrame]) -> _Measured:
    hits, counts, checks, *hashes = frames
    return _Measured(hits, counts, checks, hashes[0] if hashes else None)


def _resolve_ordered(frames: Sequence[pl.DataFrame]) -> _Measured | RowOrder:
    """Give the labelled rows their positions from the block starts.

    Returns the numbering to measure the run again with when its rows are not in the
    order this pass assumed: ``"by_key"`` when only ties are out of order but the pass
    did not keep them, ``"any"`` when a ranking is split or its keys are out of order.
    """
    hits, starts, checks, hashes, *mates = frames
    if starts.select(pl.struct(GROUP).is_duplicated().any()).item():
        return "any"
    if not checks[_IN_ORDER].item():
        if not checks[_BY_KEY].item():
            return "any"
        if not mates:
            return "by_key"
    first = pl.col(_FIRST)
    starts = starts.select(*GROUP, pl.col(_ROW).cast(pl.Int64).alias(_FIRST)).with_columns(
        (first.shift(-1, fill_value=checks[N_ROWS].item()) - first).cast(pl.Float64).alias(NUM_RET)
    )
    hits = hits.join(starts.select(*GROUP, _FIRST), on=list(GROUP), how="left")
    if checks[_IN_ORDER].item():
        position = pl.col(_ROW).cast(pl.Int64) - first + 1
    else:
        hits = _count_greater_tied_documents(hits, mates[0])
        position = pl.col(_TIE).cast(pl.Int64) - first + 1 + pl.col(_MATE)
    numbered = hits.select(
        *GROUP,
        "doc_id",
        position.alias("pos"),
        pl.exclude(*GROUP, "doc_id", _ROW, _FIRST, _TIE, _MATE),
    )
    return _Measured(numbered, starts.select(*GROUP, NUM_RET), checks, hashes)


def _count_greater_tied_documents(hits: pl.DataFrame, mates: pl.DataFrame) -> pl.DataFrame:
    """Add :data:`_MATE` to ``hits``: the rows tied with each one that have a greater doc id.

    ``mates`` holds the tied rows after each group's first (:func:`ordered_pass_frames`);
    only the groups holding a labelled row are looked at, and a labelled row's tie group
    and document id name it (a document appears once per ranking).
    """
    groups = hits.select(_TIE).unique()
    mates = mates.join(groups, on=_TIE, how="semi")
    members = pl.concat(
        [
            mates.select(_TIE, "doc_id"),
            mates.filter(pl.col(_FIRST_DOC).is_not_null()).select(
                _TIE, pl.col(_FIRST_DOC).alias("doc_id")
            ),
        ]
    )
    greater = (
        hits.select(_TIE, "doc_id")
        .join(members.rename({"doc_id": _MATE}), on=_TIE)
        .group_by(_TIE, "doc_id")
        .agg((pl.col(_MATE) > pl.col("doc_id")).sum().cast(pl.Int64).alias(_MATE))
    )
    return hits.join(greater, on=[_TIE, "doc_id"], how="left", maintain_order="left").with_columns(
        pl.col(_MATE).fill_null(0)
    )


def with_first_rows_orders(runs: Runs) -> Runs:
    """Look at every part's first rows now: for a plan measured bucket by bucket.

    Each bucket's pass would otherwise look at the same rows again.
    """
    parts = [
        part
        if part.row_order is not None
        else dataclasses.replace(part, row_order=first_rows_order(runs, part))
        for part in runs.inputs
    ]
    return dataclasses.replace(runs, inputs=parts)


def first_rows_order(runs: Runs, part: RunPart) -> RowOrder:
    """Return how a run's first :data:`PEEK_ROWS` rows are arranged (:data:`RowOrder`).

    Looked at when a pass first needs it (:attr:`RunPart.row_order` is None until
    then): a run measured in one collect (:mod:`rankset.evaluation._fused`) never is.
    """
    first_rows = part.frame
    if part.scan is not None:  # a scanned file's first lines were parsed already
        first_rows = part.scan.head.lazy().with_columns(system=pl.lit(part.name))
    cast_rows, key = cast_run(
        first_rows,
        source=part.source,
        order=runs.order,
        has_scores=part.has_scores,
        score_precision=runs.score_precision,
    )
    one_system = part.name is not None
    head = _keyed(cast_rows.head(PEEK_ROWS), key)
    # Shuffled lines start a new block almost every row, each block trivially in order:
    # a ranking met again after another's rows already rules out the ordered numberings.
    blocks = (~same_ranking_as_previous_row(one_system)).sum()
    rankings = pl.col("query_id").n_unique() if one_system else pl.struct(GROUP).n_unique()
    in_order, by_key, contiguous = (
        head.select(
            _in_order(one_system),
            _in_order(one_system, ties_too=False).alias(_BY_KEY),
            (blocks == rankings).alias("_contiguous"),
        )
        .collect(engine=SMALL_ENGINE)
        .row(0)
    )
    if not contiguous:
        return "any"
    return "trec_eval" if in_order else "by_key" if by_key else "any"


def _resolve_packed(frames: Sequence[Any]) -> _Measured | _Numbering:
    hits, _, checks, every_row, *_ = frames
    labelled = partial(packed_hits, hits)  # asked for once the rows are sorted
    numbered = number_packed(labelled, *every_row.numbered)
    if numbered is None:
        return "ranked"
    return _Measured(numbered, with_counts(every_row.rankings), checks, None, True)


def _pass_frames(
    order: _Numbering,
    runs: Runs,
    part: RunPart,
    labels: pl.LazyFrame,
    bucket: tuple[int, int] | None,
) -> list[pl.LazyFrame]:
    if order == "ranked":
        return ranked_pass_frames(runs, part, labels, bucket)
    if order == "any":
        return packed_pass_frames(runs, part, labels, bucket)
    return ordered_pass_frames(runs, part, labels, bucket, ties=order == "by_key")


def _resolve(order: _Numbering, frames: Sequence[pl.DataFrame]) -> _Measured | _Numbering:
    if order == "ranked":
        return _resolve_ranked(frames)
    if order == "any":
        return _resolve_packed(frames)
    return _resolve_ordered(frames)


def measure_pass(
    runs: Runs,
    labels: pl.LazyFrame,
    bucket: tuple[int, int] | None,
    engine: Literal["streaming", "in-memory", "gpu", "dask"],
    others: Sequence[pl.LazyFrame],
    beside: Callable[[list[pl.DataFrame]], Side],
) -> tuple[pl.DataFrame, pl.DataFrame, Side]:
    """Run the pass over every run, collected together with ``others``.

    Returns the labelled rows with their positions (``system, query_id, doc_id, pos``
    and the label columns) in rank order (by system, query id and position), one row per
    ranking with :data:`NUM_RET`, and ``beside(others collected)``, called on a thread
    of its own while a large run is numbered. Runs that looked in order but were not
    are measured again, ranked.

    Raises
    ------
    SchemaError
        A ranking repeats a document (``duplicates="error"``), or two run inputs hold a
        ranking of the same system and query; ``beside``'s errors come after these.
    """
    # keep_best numbers while it drops copies: only the ranked numbering does that.
    # A reader's ranking numbers make the packed numbering as cheap as any: no peek.
    tried: list[_Numbering] = [
        "ranked"
        if runs.duplicates != "error"
        else part.row_order
        if part.row_order is not None
        else "any"
        if part.ranking_numbers is not None and bucket is None
        else first_rows_order(runs, part)
        for part in runs.inputs
    ]
    planned = [
        _pass_frames(order, runs, part, labels, bucket)
        for part, order in zip(runs.inputs, tried, strict=True)
    ]
    try:
        collected = collect_frames([f for fs in planned for f in fs] + [*others], engine)
    except pl.exceptions.PolarsError as error:
        if any(part.scan is not None for part in runs.inputs):
            # e.g. a word for a score in a scanned file: its general parser names the line
            scanned = ", ".join(part.source for part in runs.inputs if part.scan is not None)
            raise TextScanRejected(f"{scanned}: {error}") from error
        raise
    cut = len(collected) - len(others)
    collected, rest = collected[:cut], collected[cut:]
    large = max((frame.height for frame in collected), default=0) >= CHECKED_MEANWHILE
    with ThreadPoolExecutor(max_workers=1) as checker, ThreadPoolExecutor(max_workers=1) as side:
        aside = side.submit(beside, rest) if large else None
        hits, counts = _measured_pass(
            runs, labels, bucket, engine, planned, tried, _taken(collected), checker
        )
        return hits, counts, beside(rest) if aside is None else aside.result()


def _taken(frames: list[pl.DataFrame]) -> Iterator[pl.DataFrame]:
    """Yield ``frames`` in order, keeping none once yielded (a pass's rows are freed when used).

    Examples
    --------
    >>> frames = [pl.DataFrame({"a": [1]}), pl.DataFrame({"a": [2]})]
    >>> taken = _taken(frames)
    >>> next(taken)["a"].item(), len(frames)  # the first frame is no longer held
    (1, 1)
    >>> [frame["a"].item() for frame in taken]
    [2]
    """
    frames.reverse()
    while frames:
        yield frames.pop()


def _measured_pass(
    runs: Runs,
    labels: pl.LazyFrame,
    bucket: tuple[int, int] | None,
    engine: Literal["streaming", "in-memory", "gpu", "dask"],
    planned: list[list[pl.LazyFrame]],
    tried: list[_Numbering],
    collected: Iterator[pl.DataFrame],
    checker: ThreadPoolExecutor,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Resolve the collected pass of :func:`measure_pass`, measuring again where needed."""
    measured: list[_Measured | _Numbering] = []
    for part, frames, order in zip(runs.inputs, planned, tried, strict=True):
        got = [next(collected) for _ in frames]
        got = _with_rankings(part, got, checker, ids=True) if order == "any" else got
        if part.scan is not None and not _layout_kept(part.scan, got):
            raise TextScanRejected(f"{part.source}: a line left the plain layout")
        refuse_bad_rows(runs, part, bucket, got, ids=order != "any")
        measured.append(_resolve_checking(order, got, checker))
        refuse_bad_packed_ids(runs, part, bucket, got)  # checked during the numbering

    # Measured again, each by the numbering its rows allow (at most twice more: a run
    # that starts in key order but turns out split or unordered is then ranked).
    while again := [i for i, result in enumerate(measured) if not isinstance(result, _Measured)]:
        orders = [cast(_Numbering, measured[i]) for i in again]
        replanned = [
            _pass_frames(order, runs, runs.inputs[i], labels, bucket)
            for i, order in zip(again, orders, strict=True)
        ]
        recollected = _taken(collect_frames([f for frames in replanned for f in frames], engine))
        for i, order, frames in zip(again, orders, replanned, strict=True):
            got = [next(recollected) for _ in frames]
            if order == "any":  # its ids were checked by the first numbering
                got = _with_rankings(runs.inputs[i], got, checker, ids=False)
            measured[i] = _resolve_checking(order, got, checker)

    results = cast(list[_Measured], measured)  # every None was measured again above
    for part, result in zip(runs.inputs, results, strict=True):
        if result.maybe_duplicates:
            rows, _ = runs.cast(part, bucket)
            offenders = duplicate_docs(rows).collect(engine=SMALL_ENGINE)
            raise_on_duplicate_docs(offenders, part.source)
    counts = pl.concat([result.counts for result in results])
    if len(results) > 1:
        refuse_shared_rankings(counts, runs)
    # The small phase adds in row order (rankset.measures' sequential sums): the rows are
    # put in rank order here, eagerly, whatever order the engine's pass gave them in
    # (a lazy sort before a group-by is no promise the query optimizer keeps).
    if len(results) == 1 and results[0].in_rank_order:
        return results[0].hits, counts
    hits = pl.concat([result.hits for result in results])
    return hits.sort(*GROUP, "pos", maintain_order=True), counts
