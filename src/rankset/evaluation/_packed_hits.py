"""The labelled rows of a packed pass, found after it from the ids' hashes.

The pass of a run in no order (:mod:`rankset.evaluation._packed_pass`) reads the run's
ids, keys and document ids, and the labels; it joins nothing. A join inside the pass
hashes both ids of every row and looks each pair up (about 0.4 s CPU for 20 million
rows), while the numbering hashes the query ids anyway
(:mod:`rankset.evaluation._packed_rankings`) and the duplicate check every pair. So
the labelled rows are found here: each row's pair hash is looked up in a bitmap of the
labels' pair hashes (a bit per slot of the hash's top bits, about 32 slots a label),
which keeps every labelled row and a few others (slots shared by chance), and those
candidates are joined to the labels on the pair hash and kept where both ids are
equal: exactly the rows the join on the ids gives. The pair hashes are written over
the query hashes (as soon as the rankings have read them, for a large run of one
system: on another thread, behind the numbering), and are what the duplicate check
sorts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from rankset.evaluation._packed_rankings import chunk_starts, query_hash
from rankset.evaluation._scratch import empty
from rankset.measures._shared import GROUP

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "RUN_ROW",
    "LabelledRows",
    "gathered",
    "labelled_rows",
    "pair_hash",
    "query_hashes",
]

_DOC_SEED = 9_931
# The bitmap's bits: about 32 a label, at most 2**25 (4 MB: the lookups stay in cache).
_SLOT_BITS_OVER = 5
_SLOT_BITS = (6, 25)
_PAIR = "_pair_hash"
_RUN_ROW = "_run_row"
#: The labelled rows' column of their rows' numbers in the run (the rows they came from).
RUN_ROW = "_row_in_run"
_LABEL_ROW = "_label_row"
_PACKED_BITS = 64  # a row number and a place packed into one integer, when they fit


@dataclass(frozen=True)
class LabelledRows:
    """The labelled rows of a packed pass, and every row's (query id, document id) hash."""

    # the run's columns (ids, key), the labels', and each row's number in the run
    # (:data:`RUN_ROW`) when found from the hashes
    hits: pl.DataFrame
    pairs: npt.NDArray[np.uint64] | None  # None: the rows' ids were not all hashed


def _pair_hash(query_hashes: pl.Expr, doc_ids: pl.Expr) -> pl.Expr:
    return query_hashes ^ doc_ids.hash(_DOC_SEED)


def pair_hash(query_ids: pl.Expr, doc_ids: pl.Expr) -> pl.Expr:
    """Return the 64-bit hash of each ``(query id, document id)``, as the passes join on."""
    return _pair_hash(query_hash(query_ids), doc_ids)


def query_hashes(rows: pl.DataFrame) -> npt.NDArray[np.uint64] | None:
    """Return the hash of each row's query id, as :func:`labelled_rows` pairs them.

    For a run of one system, each row's ranking hash too
    (:func:`~rankset.evaluation._packed_rankings.rankings_of`). One array, hashed
    chunk by chunk of the ids (no Polars column of them is kept): the labelled rows'
    pair hashes are written over it. None when an id is missing (such a run is
    refused).
    """
    query_ids = rows["query_id"]
    if query_ids.null_count():
        return None
    hashes = empty(len(query_ids))  # kept between evaluations when large
    for start, chunk in chunk_starts(query_ids):
        hashed = chunk.to_frame().select(query_hash(pl.col(chunk.name))).to_series()
        hashes[start : start + len(chunk)] = hashed.to_numpy()
    return hashes


def labelled_rows(
    rows: pl.DataFrame,
    labels: pl.DataFrame,
    hashes: npt.NDArray[np.uint64] | None,
    system: str | None,
    key: str,
    ready: Callable[[int], int] | None = None,
) -> LabelledRows:
    """Join ``rows`` (ids, ``key``, document id) to ``labels`` on ``query_id, doc_id``.

    As ``rows.join(labels, on=["query_id", "doc_id"])`` with the system (``system``,
    or the rows' own) first, looked up by hash first: only the rows whose pair hash
    falls in a labelled slot are joined. ``hashes``: :func:`query_hashes`' of ``rows``,
    used up: each row's pair hash is written over its query hash (the returned
    ``pairs``). ``ready``: called with the count of rows paired so far, it waits until
    the query hashes of more rows may be written over and returns their end (the
    rankings read them meanwhile: :func:`~rankset.evaluation._packed_rankings.rankings_of`);
    None: all may be.

    Examples
    --------
    >>> rows = pl.DataFrame({"query_id": ["q", "q", "r"], "_key": [1.0, 2.0, 3.0],
    ...                      "doc_id": ["a", "b", "a"]})
    >>> labels = pl.DataFrame({"query_id": ["q", "r"], "doc_id": ["b", "a"], "grade": [1.0, 2.0]})
    >>> found = labelled_rows(rows, labels, query_hashes(rows), "s", "_key")
    >>> found.hits.sort("query_id").rows()  # the last column: the rows' numbers in the run
    [('s', 'q', 'b', 2.0, 1.0, 1), ('s', 'r', 'a', 3.0, 2.0, 2)]
    """
    run_side = [
        pl.lit(system, pl.String).alias(GROUP[0]) if system is not None else pl.col(GROUP[0]),
        "query_id",
        "doc_id",
        key,
    ]
    if rows.height == 0 or hashes is None:
        return LabelledRows(rows.select(run_side).join(labels, on=["query_id", "doc_id"]), None)
    ids = labels.select(pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String))
    labelled = ids.select(pair_hash(pl.col("query_id"), pl.col("doc_id")))
    label_pairs = labelled.to_series()
    candidates = _paired(hashes, rows["doc_id"], _Bitmap(label_pairs.to_numpy()), ready)
    # joined on the pair hash (now in ``hashes``), then kept where both ids are equal:
    # as the join on the ids
    matched = (
        pl.DataFrame({_PAIR: hashes[candidates]})
        .with_row_index(_RUN_ROW)
        .join(label_pairs.alias(_PAIR).to_frame().with_row_index(_LABEL_ROW), on=_PAIR)
        .sort(_RUN_ROW)
    )
    own = [GROUP[0]] if system is None else []  # a run of one system: its name, added after
    at = candidates[matched[_RUN_ROW].to_numpy()]
    found = _gathered(rows.select(*own, "query_id", "doc_id", key), at)
    found = found.select(run_side)
    # one chunk each before the gathers: a gather over a collected frame's chunks looks
    # each row's chunk up (300,000 label rows over 6 chunks: 35 ms; in one, 3 ms), and the
    # numbering gathers the labelled rows again (by group, then in rank order)
    label_side = labels.rechunk()[matched[_LABEL_ROW]]
    same = (found["query_id"] == label_side["query_id"]) & (found["doc_id"] == label_side["doc_id"])
    found = found.hstack(label_side.drop("query_id", "doc_id")).with_columns(pl.Series(RUN_ROW, at))
    return LabelledRows((found if same.all() else found.filter(same)).rechunk(), hashes)


def _paired(
    hashes: npt.NDArray[np.uint64],
    doc_ids: pl.Series,
    bitmap: _Bitmap,
    ready: Callable[[int], int] | None = None,
) -> npt.NDArray[np.int64]:
    """Write each row's pair hash over its query hash; return the rows ``bitmap`` holds.

    Chunk by chunk of the document ids (within the rows ``ready`` frees, as
    :func:`labelled_rows` says): each piece's ids are hashed, paired and looked up
    while in cache, and no column of every row's document hash is kept (160 MB for
    20 million rows).
    """
    import numpy as np

    found = [np.empty(0, dtype=np.int64)]
    pieces = chunk_starts(doc_ids)
    done, total, at = 0, len(hashes), 0
    while done < total:
        free = total if ready is None else ready(done)
        while at < len(pieces) and done < free:
            first, chunk = pieces[at]
            end = min(first + len(chunk), free)
            part = hashes[done:end]
            docs = chunk.slice(done - first, end - done).hash(_DOC_SEED).to_numpy()
            np.bitwise_xor(part, docs, out=part)
            found.append(bitmap.holding(part) + done)
            done = end
            if done == first + len(chunk):
                at += 1
    return np.concatenate(found)


def _gathered(frame: pl.DataFrame, rows: npt.NDArray[np.int64]) -> pl.DataFrame:
    """Return ``frame[rows]`` (``rows`` ascending), gathered chunk by chunk of ``frame``.

    A gather over every chunk of a collected frame looks each index's chunk up.
    """
    import numpy as np

    pieces, start = [], 0
    for part in _chunk_slices(frame):
        end = start + part.height
        low, high = np.searchsorted(rows, [start, end])
        if high > low:
            pieces.append(part[pl.Series(rows[low:high] - start)])
        start = end
    return pl.concat(pieces) if pieces else frame.clear()


def gathered(frame: pl.DataFrame, rows: npt.NDArray[np.int64]) -> pl.DataFrame:
    """Return ``frame[rows]`` (``rows`` in any order), gathered chunk by chunk of ``frame``.

    The rows are sorted with their places (one sort of packed integers), gathered in
    that order (:func:`_gathered`: a gather over a collected frame's chunks looks each
    row's chunk up, 3 times the cost) and put back in theirs. ``frame`` has ``doc_id``.

    Examples
    --------
    >>> frame = pl.concat([pl.DataFrame({"doc_id": ["a", "b"]}), pl.DataFrame({"doc_id": ["c"]})])
    >>> import numpy as np
    >>> gathered(frame, np.array([2, 0, 2, 1]))["doc_id"].to_list()
    ['c', 'a', 'c', 'b']
    """
    import numpy as np

    if len(rows) == 0:
        return frame.clear()
    place_bits = (len(rows) - 1).bit_length()
    if (frame.height - 1).bit_length() + place_bits > _PACKED_BITS:
        order = np.argsort(rows, kind="stable")
    else:
        keys = rows.astype(np.uint64) << np.uint64(place_bits)
        keys |= np.arange(len(rows), dtype=np.uint64)
        keys.sort()
        order = (keys & np.uint64((1 << place_bits) - 1)).astype(np.int64)
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.arange(len(rows))
    return _gathered(frame, rows[order]).rechunk()[inverse]


def _chunk_slices(frame: pl.DataFrame) -> list[pl.DataFrame]:
    """Return ``frame`` cut where its document ids' chunks end (no copy)."""
    return [frame.slice(start, len(chunk)) for start, chunk in chunk_starts(frame["doc_id"])]


class _Bitmap:
    """A bit per slot of 64-bit hashes' top bits: whether a hash of a set falls in it.

    About 32 slots a hash, at most 2**25 (4 MB: the lookups stay in cache).

    Examples
    --------
    >>> import numpy as np
    >>> bitmap = _Bitmap(np.array([1 << 63], dtype=np.uint64))
    >>> bitmap.holding(np.array([1 << 63, 5, 1 << 62, 1 << 63], dtype=np.uint64)).tolist()
    [0, 3]
    """

    def __init__(self, hashes: npt.NDArray[np.uint64]) -> None:
        import numpy as np

        low, high = _SLOT_BITS
        bits = max(low, min(high, len(hashes).bit_length() + _SLOT_BITS_OVER))
        self.to_byte, self.to_bit = np.uint64(67 - bits), np.uint64(64 - bits)
        # a flag per slot, packed eight to a byte (slot 8 * i + j: bit j of byte i);
        # quicker than or-ing each hash's bit into its byte (``np.bitwise_or.at``)
        flags = np.zeros(1 << bits, dtype=bool)
        flags[(hashes >> self.to_bit).view(np.int64)] = True
        self.bytes = np.packbits(flags, bitorder="little")

    def holding(self, hashes: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
        """Return the indices of ``hashes`` whose slot a hash of the set falls in too."""
        import numpy as np

        found = []
        step = 1 << 16  # each step's arrays stay in cache
        places = np.empty(min(step, len(hashes)), dtype=np.uint64)
        bytes_ = np.empty(len(places), dtype=np.uint8)
        for start in range(0, len(hashes), step):
            part = hashes[start : start + step]
            size = len(part)
            np.right_shift(part, self.to_byte, out=places[:size])
            np.take(self.bytes, places[:size].view(np.int64), out=bytes_[:size])
            np.right_shift(part, self.to_bit, out=places[:size])
            places[:size] &= np.uint64(7)
            bytes_[:size] >>= places[:size].astype(np.uint8)
            found.append(np.flatnonzero(bytes_[:size] & 1) + start)
        return np.concatenate(found) if found else np.empty(0, dtype=np.int64)
