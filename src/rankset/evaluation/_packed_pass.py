"""The packed numbering's share of the pass over the runs: its frames and its checks.

A run in no order is read once (:func:`packed_pass_frames`): its labelled rows, the
counts of its rows' problems, and every row's ids, key and document id. Once they are
collected, :func:`with_rankings` names and counts the rankings and starts, on the
checker thread of :mod:`rankset.evaluation._pass`, the work that need not wait: for a
large run, the keys' finite range, the document ids' checks
(:func:`~rankset.evaluation._pass_checks.doc_id_problem_counts`, a byte scan of the
collected ids rather than a contains-any inside the pass), its labelled rows
(:func:`~rankset.evaluation._packed_hits.labelled_rows`: a run of one system's found
behind the numbering of its rankings, step by step) and, after them, the duplicate
check over the row hashes. The numbering
(:func:`~rankset.evaluation._packed.number_packed`) runs meanwhile on the calling
thread; :func:`refuse_bad_packed_ids` then waits for the ids' counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from threading import Condition
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset.evaluation._packed import (
    PACKED_KEY,
    KeyRange,
    Rankings,
    coded_doc_ids,
    finite_range,
    packed_frames,
    packed_rows,
    rankings_of,
    row_hashes,
)
from rankset.evaluation._packed_hits import LabelledRows, labelled_rows, query_hashes
from rankset.evaluation._pass_checks import (
    doc_id_problem_counts,
    refuse_counted_problems,
    row_check_counts,
    scan_columns,
)
from rankset.evaluation._runs import RunPart, Runs

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "CHECKED_MEANWHILE",
    "HASH",
    "PackedHashes",
    "PackedRows",
    "packed_hits",
    "packed_pass_frames",
    "refuse_bad_packed_ids",
    "with_rankings",
]

HASH = "_hash"
#: Rows from which a check runs on the checker thread, beside the numbering.
CHECKED_MEANWHILE = 1_000_000


def packed_pass_frames(
    runs: Runs, part: RunPart, labels: pl.LazyFrame, bucket: tuple[int, int] | None = None
) -> list[pl.LazyFrame]:
    """Build one run's pass in any order: labelled rows, checks, every row's ids.

    The labelled rows, the counts of the rows' problems but the document ids' (counted
    from the collected ids by :func:`with_rankings`), and every row's ids, key and
    document id (:mod:`rankset.evaluation._packed`). A run whose reader numbered its
    rankings (:attr:`RunPart.ranking_numbers`) carries those numbers instead of the
    query ids, and a fourth frame names each ranking.
    """
    cast, key = runs.cast(part, bucket)
    one_system = part.name is not None
    # a reader's ranking numbers are aligned with the run's rows: not with a bucket's
    numbers = part.ranking_numbers if bucket is None else None
    rows = packed_rows(cast, key, *scan_columns(part), ranking_numbers=numbers)
    hits, every_row, *named = packed_frames(rows, labels, one_system)
    return [hits, rows.select(row_check_counts(part, PACKED_KEY, ids=False)), every_row, *named]


@dataclass(frozen=True)
class PackedRows:
    """A packed pass's every row, its rankings, and the count of its ids' problems."""

    rows: pl.DataFrame  # ids (or reader's numbers), key and document id of every row
    rankings: Rankings
    doc_codes: pl.Series | None  # the document ids coded afresh (:func:`coded_doc_ids`)
    # each document id problem's count (:func:`doc_id_problem_counts`); None: not checked
    id_counts: Future[dict[str, int]] | dict[str, int] | None
    # the keys' finite range (:func:`finite_range`), found on the checker thread
    key_range: Future[tuple[float | None, float | None]] | None = None

    @property
    def numbered(
        self,
    ) -> tuple[pl.DataFrame, Rankings, pl.Series | None, KeyRange | None]:
        """What :func:`~rankset.evaluation._packed.number_packed` takes after the labelled rows."""
        key_range = None if self.key_range is None else self.key_range.result
        return self.rows, self.rankings, self.doc_codes, key_range


@dataclass(frozen=True)
class PackedHashes:
    """The row hashes of a packed pass, computed when asked (:func:`row_hashes`).

    ``pairs``: each row's (query id, document id) hash, when the labelled rows were
    found from them (:func:`labelled_rows`): a run of one system's row hashes already,
    given to the duplicate check to sort in place.
    """

    rows: pl.DataFrame
    pairs: Future[LabelledRows] | LabelledRows | None = None
    columns = (HASH,)

    @property
    def height(self) -> int:
        return self.rows.height

    def collect(self) -> pl.DataFrame | npt.NDArray[np.uint64]:
        found = self.pairs.result() if isinstance(self.pairs, Future) else self.pairs
        return row_hashes(self.rows) if found is None or found.pairs is None else found.pairs


def packed_hits(frame: pl.DataFrame | Future[LabelledRows] | LabelledRows) -> pl.DataFrame:
    """Return the labelled rows of :func:`with_rankings`' first frame (waiting for them)."""
    if isinstance(frame, Future):
        frame = frame.result()
    return frame.hits if isinstance(frame, LabelledRows) else frame


def with_rankings(
    part: RunPart, frames: Sequence[pl.DataFrame], checker: ThreadPoolExecutor, *, ids: bool
) -> list[Any]:
    """Put a packed pass's frames in the other numberings' layout: rankings second.

    Returns the labelled rows (:func:`packed_hits` gives them), the rankings, the
    checks, a :class:`PackedRows` and, unless the reader rules duplicates out, the
    :class:`PackedHashes`. A large run's work beside the numbering of its rankings is
    done on ``checker``, in this order: the keys' finite range; a run of several
    systems' labelled rows (their pair hashes written over the query hashes, which
    the rankings do not read); with ``ids`` (and ids the reader did not check), the
    document ids' problems; a run of one system's labelled rows, its pair hashes
    written over its query hashes behind the numbering (step by step, once the
    rankings have read them: :class:`_Progress`). A small run's labelled rows are
    found here once the rankings are numbered.
    """
    hits, checks, every_row, *named = frames  # named: the rankings a reader numbered
    large = every_row.height >= CHECKED_MEANWHILE
    # the numbering asks for it once the rankings are named
    key_range = checker.submit(finite_range, every_row[PACKED_KEY]) if large else None
    one_system = part.name is not None
    # the first frame holds the labels when the pass joined nothing (no reader's numbers)
    hashes = None if named else query_hashes(every_row)
    progress = _Progress() if large and one_system and hashes is not None else None
    ready = None if progress is None else progress.beyond
    find = partial(labelled_rows, every_row, hits, hashes, part.name, PACKED_KEY, ready)
    found: Future[LabelledRows] | LabelledRows | None = None
    if not named and large and progress is None:  # beside the numbering, from the start
        found = checker.submit(find)
    counts: Future[dict[str, int]] | dict[str, int] | None = None
    coded = coded_doc_ids(every_row["doc_id"])
    if ids and not part.rows_checked:
        doc_ids = every_row["doc_id"]
        if coded is not None:  # each distinct id once: the counts only tell whether any
            counts = doc_id_problem_counts(coded.dtype.categories.to_series())  # type: ignore[attr-defined]
        elif not large:
            counts = doc_id_problem_counts(doc_ids)
        else:
            counts = checker.submit(doc_id_problem_counts, doc_ids)
    try:
        if progress is not None:  # behind the numbering, once the ids' problems are counted
            found = checker.submit(find)
        rankings = rankings_of(
            every_row,
            part.name,
            *named,
            hashes=hashes if one_system else None,
            then=None if progress is None else progress.read,
        )
    finally:
        if progress is not None:
            progress.end()  # the labelled rows never wait on a failure
    if not named and not large:  # the rankings are done with the query hashes: the pairs
        found = find()  # overwrite them
    if one_system and hashes is not None:
        # the ids are named and paired (the pair hashes are the row hashes): what the
        # numbering reads is kept, and the query ids are freed once the labelled rows
        # are found
        every_row = every_row.select(PACKED_KEY, "doc_id")
    hashed = [] if part.unique_docs else [PackedHashes(every_row, found if one_system else None)]
    first = hits if found is None else found
    numbered = PackedRows(every_row, rankings, coded, counts, key_range)
    return [first, rankings.frame, checks, numbered, *hashed]


class _Progress:
    """How far the numbering of a run's rankings has read its query hashes.

    The numbering calls :meth:`read` after each step of rows; :meth:`beyond` waits
    for rows past those already paired and returns their end; :meth:`end` is called
    however the numbering ends (rows it never read are never handed out).

    Examples
    --------
    >>> progress = _Progress()
    >>> progress.read(0, 5)
    >>> progress.beyond(0)
    5
    >>> progress.end()
    >>> progress.beyond(5)
    Traceback (most recent call last):
    RuntimeError: the rankings' numbering stopped before reading every query hash
    """

    def __init__(self) -> None:
        self._changed = Condition()
        self._read = 0
        self._ended = False

    def read(self, start: int, end: int) -> None:
        """Record that the numbering read the query hashes of rows up to ``end``.

        ``start``: the step's first row (the numbering's ``then`` gives both).
        """
        with self._changed:
            self._read = end
            self._changed.notify_all()

    def end(self) -> None:
        """Record that the numbering ended: it reads no more."""
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def beyond(self, paired: int) -> int:
        """Wait until rows past ``paired`` are read; return the end of those read."""
        with self._changed:
            self._changed.wait_for(lambda: self._read > paired or self._ended)
            if self._read <= paired:
                msg = "the rankings' numbering stopped before reading every query hash"
                raise RuntimeError(msg)
            return self._read


def refuse_bad_packed_ids(
    runs: Runs, part: RunPart, bucket: tuple[int, int] | None, frames: Sequence[Any]
) -> None:
    """Refuse a packed pass's run if its document ids have a problem (naming the first).

    ``frames`` are :func:`with_rankings`'; any other numbering's checked its ids in the
    pass.
    """
    if len(frames) < 4 or not isinstance(frames[3], PackedRows):
        return
    counts = frames[3].id_counts
    if isinstance(counts, Future):
        counts = counts.result()
    if counts is not None:
        refuse_counted_problems(runs, part, bucket, frames[1], counts)
