"""The packed numbering's rankings: each row's ranking numbered from its ids' hashes.

The pass of a run in no order (:mod:`rankset.evaluation._packed`) keeps every row's
query id (and system, when a run holds several) as the strings it read: coding them in
the pass (a dictionary per pass, or a join to a table of them) costs about a third of
the pass again. Afterwards each row's ids are hashed (about 1 ns a row), the distinct
hashes found with their first rows (which name the rankings), and each hash numbered by
its ranking's place in the order of the names through a table indexed by the hash's top
bits (:class:`_HashIndex`). One comparison of every row's ids with its ranking's names
makes the numbering exact: two ids of one hash (a 64-bit collision) are found there,
and the rankings are then numbered by a dense rank of the ids instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset.evaluation._scratch import empty
from rankset.measures._shared import GROUP, NUM_RET

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "RANKING",
    "Rankings",
    "chunk_starts",
    "chunks",
    "count_sorted",
    "id_columns",
    "query_hash",
    "ranking_hash",
    "rankings_of",
    "row_hashes",
    "with_counts",
]

RANKING = "_ranking"  # each row's ranking as its reader numbered them
# Seeds of the ids' hashes: the rankings' (query id, system) and the row hash's.
_RANKING_SEEDS = (4_049, 6_113)
_HASH_SEEDS = (71, 1_013, 20_011)
_RANKINGS_SCHEMA = {GROUP[0]: pl.String, GROUP[1]: pl.String, NUM_RET: pl.Float64}
# The hash table's size: this many bits more than the distinct hashes', within bounds.
_TABLE_BITS_OVER = 7
_TABLE_BITS = (10, 24)
# Rows written at a time by :func:`_written`.
_STEP = 1 << 17


def id_columns(one_system: bool) -> list[str]:
    """Return the ids that name a ranking: the query id, and the system unless ``one_system``."""
    return ["query_id"] if one_system else ["system", "query_id"]


@dataclass(frozen=True)
class Rankings:
    """The rankings of a run read by the packed numbering's pass.

    A ranking's number is its place in the order of the names (system, then query id),
    or its reader's number (:attr:`RunPart.ranking_numbers`); :attr:`places` gives each
    number in use its place by name, in which the labelled rows are returned.
    """

    frame: pl.DataFrame  # system, query_id, NUM_RET: one row per ranking, by name
    numbers: npt.NDArray[np.uint64] | None  # each row's ranking number; None: not numbered
    count: int  # ranking numbers: one more than the largest
    # for the rankings in use, in the order of their numbers: each one's place by name
    # and its first row once sorted; ``slots`` gives a number's index in them (only
    # the numbers in use are written)
    places: npt.NDArray[np.int64] | None = None
    starts: npt.NDArray[np.int64] | None = None
    slots: npt.NDArray[np.int64] | None = None
    index: _HashIndex | None = None  # the ids' hashes to their numbers; None: a reader's
    columns: tuple[str, ...] = ()  # the ids hashed
    # each ranking's row count, written once the rows are sorted (:func:`count_sorted`,
    # with ``starts``); None: counted already (``frame``'s NUM_RET)
    counted: npt.NDArray[np.int64] | None = None

    def of(self, frame: pl.DataFrame) -> npt.NDArray[np.uint64]:
        """Return the ranking number of each row of ``frame`` (rows of the same run).

        Written chunk by chunk into one array: the numbers are never gathered into one
        column first.
        """
        if RANKING in frame.columns:
            return _written(frame[RANKING])
        if self.index is None:  # numbered by the ids' rank: each number is a place by name
            at = self.frame.select(self.columns).with_row_index(RANKING)
            given = frame.select(self.columns).join(
                at, on=list(self.columns), how="left", maintain_order="left"
            )
            return _written(given[RANKING])
        return _written(frame.select(ranking_hash(self.columns)).to_series(), self.index)


def _written(column: pl.Series, index: _HashIndex | None = None) -> npt.NDArray[np.uint64]:
    """Write ``column``'s values (looked up in ``index`` when given) into one array."""
    return _numbered(column, index)[0]


def _numbered(
    column: pl.Series,
    index: _HashIndex | None,
    ids: Sequence[pl.Series] = (),
    names: Sequence[pl.Series] = (),
    then: Callable[[int, int], object] | None = None,
) -> tuple[npt.NDArray[np.uint64], bool]:
    """Write ``column``'s values (looked up in ``index`` when given) into one array.

    In steps of rows, whatever the chunks: the lookups' arrays stay in cache. With
    ``ids`` (each row's ids, a column each) and ``names`` (each number's, the same
    columns), each step's ids are compared with the names of the numbers just
    written; the returned flag tells whether all were equal (no column of every
    row's name is built). ``then`` is called with each step's first and end rows once
    it is written and compared.
    """
    numbers = empty(len(column))  # kept between evaluations when large
    alike = True
    for start, end, values in chunks(column):
        for step in range(0, end - start, _STEP):
            part = values[step : step + _STEP]
            at = start + step
            found = part if index is None else index(part)
            numbers[at : at + len(part)] = found
            if alike and names:
                named = pl.Series(found)
                alike = all(
                    (name.gather(named) == column_ids.slice(at, len(part))).all()
                    for name, column_ids in zip(names, ids, strict=True)
                )
            if then is not None:
                then(at, at + len(part))
    return numbers, alike


def chunks(column: pl.Series) -> list[tuple[int, int, npt.NDArray[Any]]]:
    """Return each chunk of ``column`` (its physical values) with its first and end rows.

    Each chunk's values are read without a copy where Polars allows it (no nulls).
    """
    pieces = chunk_starts(column.to_physical())
    return [(start, start + len(chunk), chunk.to_numpy()) for start, chunk in pieces]


def chunk_starts(column: pl.Series) -> list[tuple[int, pl.Series]]:
    """Return each chunk of ``column`` with its first row (no copy).

    Examples
    --------
    >>> column = pl.concat([pl.Series([1, 2]), pl.Series([3])], rechunk=False)
    >>> [(start, chunk.to_list()) for start, chunk in chunk_starts(column)]
    [(0, [1, 2]), (2, [3])]
    """
    found, start = [], 0
    for chunk in column.get_chunks():
        found.append((start, chunk))
        start += len(chunk)
    return found


def ranking_hash(columns: tuple[str, ...] | list[str]) -> pl.Expr:
    """Hash a ranking's ids: the query id's hash (:func:`query_hash`), with the system's."""
    hashed = query_hash(pl.col(columns[-1]))
    if len(columns) > 1:
        hashed = hashed ^ pl.col(columns[0]).hash(_RANKING_SEEDS[1])
    return hashed.alias("_ranking_hash")


def query_hash(query_id: pl.Expr) -> pl.Expr:
    """Hash query ids as :func:`ranking_hash` does for a run of one system."""
    return query_id.hash(_RANKING_SEEDS[0])


class _HashIndex:
    """Distinct 64-bit hashes to their numbers: a table indexed by the hashes' top bits.

    A slot that one distinct hash falls in holds its number; the hashes that share a
    slot are looked up by a search among the sorted hashes. Every hash looked up must
    be one of the distinct hashes (the rows they came from), so a slot's one hash needs
    no comparison.

    Examples
    --------
    >>> import numpy as np
    >>> keys = np.array([3 << 60, 5, 9 << 59, 7], dtype=np.uint64)
    >>> index = _HashIndex(keys, np.array([0, 1, 2, 3]))
    >>> index(np.array([7, 3 << 60, 5, 7], dtype=np.uint64)).tolist()
    [3, 0, 1, 3]
    """

    def __init__(self, keys: npt.NDArray[np.uint64], values: npt.NDArray[np.int64]) -> None:
        import numpy as np

        low, high = _TABLE_BITS
        bits = max(low, min(high, len(keys).bit_length() + _TABLE_BITS_OVER))
        self.shift = np.uint64(64 - bits)
        order = np.argsort(keys)
        self.sorted = keys[order]
        self.values = values[order].astype(np.int32)
        top = (self.sorted >> self.shift).astype(np.int64)
        slots, first, counts = np.unique(top, return_index=True, return_counts=True)
        self.table = np.full(1 << bits, -1, dtype=np.int32)  # 4 bytes a slot: more in cache
        alone = counts == 1
        self.table[slots[alone]] = self.values[first[alone]]
        self.shared = not alone.all()

    def __call__(self, hashes: npt.NDArray[np.uint64]) -> npt.NDArray[np.int32]:
        import numpy as np

        slots = np.right_shift(hashes, self.shift).view(np.int64)  # below 2**24: the same
        found = self.table[slots]
        if self.shared and (shared := np.flatnonzero(found < 0)).size:
            found[shared] = self.values[np.searchsorted(self.sorted, hashes[shared])]
        return found


def rankings_of(
    rows: pl.DataFrame,
    system: str | None,
    named: pl.DataFrame | None = None,
    *,
    hashes: npt.NDArray[np.uint64] | None = None,
    then: Callable[[int, int], object] | None = None,
) -> Rankings:
    """Count each ranking's rows and name it; number each row's ranking.

    ``system``: the name of every row's system (a run of one system), else None. A row
    without a query id (or system) is not numbered: its ranking is named null, for the
    pass's checks to refuse. Rows numbered by their reader are named from ``named``
    (each ranking number's ids: :func:`rankset.evaluation._packed.packed_frames`).
    ``hashes``: each row's :func:`ranking_hash`, when computed already. ``then``: called
    with the first and end rows of each step once their numbers are written and their
    ids compared with their rankings' names (in row order, every row once, before the
    comparison's outcome is acted on): those rows' ``hashes`` are read no more, and
    may be written over.

    Examples
    --------
    >>> rows = pl.DataFrame({"query_id": ["r", "q", "r"], "_key": [1.0, 2.0, 3.0]})
    >>> rankings = rankings_of(rows, "s")
    >>> rankings.frame.select(GROUP).rows(), rankings.numbers.tolist(), rankings.places.tolist()
    ([('s', 'q'), ('s', 'r')], [1, 0, 1], [0, 1])
    >>> import numpy as np
    >>> count_sorted(rankings, np.sort(rankings.numbers), 0)  # counted once sorted
    >>> with_counts(rankings).rows(), rankings.starts.tolist()
    ([('s', 'q', 1.0), ('s', 'r', 2.0)], [0, 1])
    """
    import numpy as np

    if named is not None:
        return _given_rankings(rows, named)
    columns = id_columns(system is not None)
    if any(rows[column].null_count() for column in columns):
        # a ranking of no query id, for the checks to refuse; no system: ranked instead
        missing = {GROUP[0]: [system], GROUP[1]: [None], NUM_RET: [0.0]}
        return Rankings(pl.DataFrame(missing, schema=_RANKINGS_SCHEMA), None, 0)
    hashed = rows.select(ranking_hash(columns)).to_series() if hashes is None else pl.Series(hashes)
    first = hashed.arg_unique()
    names = rows.select(columns).gather(first)
    by_name = names.select(pl.arg_sort_by(columns)).to_series().to_numpy()
    places = np.empty(len(by_name), dtype=np.int64)
    places[by_name] = np.arange(len(by_name))
    names = names[by_name]
    index = _HashIndex(hashed.gather(first).to_numpy(), places)
    ids = [rows[column] for column in columns]
    numbers, alike = _numbered(hashed, index, ids, [names[column] for column in columns], then)
    del hashed  # a view of ``hashes`` (the caller's): no Series over them kept
    if not alike:  # two ids of one hash: numbered exactly
        return _ranked_rankings(rows, system, columns)
    rankings = Rankings(pl.DataFrame(schema=_RANKINGS_SCHEMA), None, len(names))
    rankings = dataclasses.replace(rankings, index=index, columns=tuple(columns))
    counts = np.zeros(len(names), dtype=np.int64)  # counted from the sorted rows
    rankings = _counted(rankings, numbers, _named(names, system, counts), counts)
    return dataclasses.replace(rankings, counted=counts)  # starts: written with the counts


def count_sorted(rankings: Rankings, packed: npt.NDArray[np.uint64], shift: int) -> None:
    """Write each ranking's row count and first row from the sorted packed integers.

    ``packed`` holds each row's ranking number shifted left by ``shift`` bits (and
    whatever below): each ranking's rows are one block, found by a search of its
    number. Quicker than counting the numbers before the sort (a pass over every row).
    """
    import numpy as np

    if rankings.counted is None:
        return
    numbers = np.arange(rankings.count + 1, dtype=np.uint64) << np.uint64(shift)
    edges = np.searchsorted(packed, numbers)
    rankings.counted[:] = np.diff(edges)
    assert rankings.starts is not None  # zeros until now
    rankings.starts[:] = edges[:-1]


def with_counts(rankings: Rankings) -> pl.DataFrame:
    """Return ``rankings.frame`` with the row counts :func:`count_sorted` wrote."""
    if rankings.counted is None:
        return rankings.frame
    return rankings.frame.with_columns(pl.Series(NUM_RET, rankings.counted.astype("float64")))


def _ranked_rankings(rows: pl.DataFrame, system: str | None, columns: list[str]) -> Rankings:
    """Give each ranking the dense rank of its ids: exact, and slower than the hashes."""
    import numpy as np

    ranks = rows.select(pl.struct(columns).rank("dense").cast(pl.Int64) - 1).to_series()
    numbers = ranks.to_numpy().astype(np.uint64)
    first = ranks.arg_unique()
    names = rows.select(columns).gather(first).sort(columns)
    counts = np.bincount(numbers.view(np.int64), minlength=names.height)
    rankings = Rankings(pl.DataFrame(schema=_RANKINGS_SCHEMA), None, names.height)
    rankings = dataclasses.replace(rankings, columns=tuple(columns))
    return _counted(rankings, numbers, _named(names, system, counts), counts)


def _named(names: pl.DataFrame, system: str | None, counts: npt.NDArray[np.int64]) -> pl.DataFrame:
    """One row per ranking: ``system, query_id`` from ``names``, and its row count."""
    return pl.DataFrame(
        {
            GROUP[0]: names["system"]
            if system is None
            else pl.repeat(system, names.height, dtype=pl.String, eager=True),
            GROUP[1]: names["query_id"],
            NUM_RET: counts.astype("float64"),
        }
    )


def _counted(
    rankings: Rankings,
    numbers: npt.NDArray[np.uint64],
    named: pl.DataFrame,
    counts: npt.NDArray[np.int64],
    present: npt.NDArray[np.int64] | None = None,
) -> Rankings:
    """Finish a numbering: the rankings in use (``present``, ascending; all by default)."""
    import numpy as np

    if present is None:
        present = np.arange(len(counts), dtype=np.int64)
    by_name = named.select(pl.arg_sort_by(GROUP)).to_series().to_numpy()
    places = np.empty(len(present), dtype=np.int64)
    places[by_name] = np.arange(len(present))
    slots = np.empty(rankings.count, dtype=np.int64)  # read only where written
    slots[present] = np.arange(len(present))
    return dataclasses.replace(
        rankings,
        frame=named[by_name],
        numbers=numbers,
        places=places,
        starts=np.cumsum(counts) - counts,
        slots=slots,
    )


def _given_rankings(rows: pl.DataFrame, named: pl.DataFrame) -> Rankings:
    """Rankings numbered by the run's reader: each one's ids are its first row's."""
    import numpy as np

    present = named[RANKING].to_numpy().astype(np.int64)  # ascending: the rows are sorted
    count = int(present[-1]) + 1 if len(present) else 0
    rankings = Rankings(pl.DataFrame(schema=_RANKINGS_SCHEMA), None, count)
    numbers = rankings.of(rows)
    counts = np.bincount(numbers.view(np.int64), minlength=count)[present]
    frame = named.select(*GROUP, pl.Series(NUM_RET, counts.astype(np.float64)))
    return _counted(rankings, numbers, frame, counts, present)


def row_hashes(rows: pl.DataFrame) -> pl.DataFrame:
    """Return ``_hash``: a 64-bit hash of each row's ranking and document id.

    What the duplicate check sorts: two rows of one ranking with one document have the
    same hash (equal hashes otherwise are a collision, which the check's second look
    tells apart).
    """
    hashed = pl.col("doc_id").hash(_HASH_SEEDS[0])
    if RANKING in rows.columns:  # a reader's numbers
        hashed = hashed ^ pl.col(RANKING).hash(_HASH_SEEDS[1])
    else:
        hashed = hashed ^ pl.col("query_id").hash(_HASH_SEEDS[1])
        if "system" in rows.columns:
            hashed = hashed ^ pl.col("system").hash(_HASH_SEEDS[2])
    return rows.select(hashed.alias("_hash"))
