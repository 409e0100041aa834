"""The packed numbering: a run in no order, ranked on one 64-bit integer per row.

The pass (:mod:`rankset.evaluation._pass`) reads such a run once and keeps, besides the
labelled rows, three columns per row: the query id as a dictionary code (and the system,
when a run holds several), the ordering key, and the document id. The codes number the
rankings densely without a sort or a group-by, and their dictionary names them
(:func:`rankings_of`). Each row then gets one unsigned 64-bit integer::

    ranking number | code of the key, best first | row number

where the code (:func:`descending_codes`) spreads the finite keys over the bits the
ranking and row numbers leave. One sort of those integers, values only, puts every
ranking in a block, best first; rows whose keys share a code (ties, and keys closer
than the code tells apart) stay together, in row order. A labelled row's position is
then the first place of its code group in its ranking's block, plus its place within
the group, which :func:`rankset.schema._rules.sorted_best_first` gives (trec_eval's
rule: key descending, ties by document id descending in byte order) from the group's
own rows. Only the groups that hold a labelled row and more than one row are looked
at: the document ids of the other rows are never compared.

Sorting one array of integers by value takes a fraction of the rank over ``(system,
query_id)`` of ``(key, doc_id)`` that the ranked numbering runs, or of a sort by the
columns (which gathers every column in the sorted order). When the ranking and row
numbers leave no bit for the code, :func:`number_packed` returns None and the run is
ranked instead.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from rankset.measures._shared import GROUP, NUM_RET
from rankset.schema._rules import sorted_best_first

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "PACKED_KEY",
    "Rankings",
    "descending_codes",
    "number_packed",
    "packed_frames",
    "packed_rows",
    "rankings_of",
    "row_hashes",
]

#: The ordering key's column in the packed numbering's frames.
PACKED_KEY = "_key"
_QUERY_CODE = "_query_code"
_SYSTEM_CODE = "_system_code"
_FIRST = "_group_first"  # a code group's first place in the sorted rows
_START = "_ranking_start"  # its ranking's first place
_WITHIN = "_within"
_RANKING = "_ranking"
# A code of at most 52 bits: its largest value is a double exactly, so clipping to it
# in floating point cannot step into the next ranking's codes.
_MOST_CODE_BITS = 52
# Seeds of the row hash (document id, query code, system code).
_HASH_SEEDS = (71, 1_013, 20_011)
_RANKINGS_SCHEMA = {GROUP[0]: pl.String, GROUP[1]: pl.String, NUM_RET: pl.Float64}


def packed_rows(cast: pl.LazyFrame, key: pl.Expr, one_system: bool, *others: str) -> pl.LazyFrame:
    """Select what the packed numbering reads: ids, the ordering key and the dictionary codes.

    A fresh dictionary per pass codes the query ids (and the systems) from 0 as they
    come; it lives in the collected columns' dtype, which names the codes afterwards.
    """
    codes = [_dictionary_code("query_id", _QUERY_CODE)]
    if not one_system:
        codes.append(_dictionary_code("system", _SYSTEM_CODE))
    return cast.select("system", "query_id", "doc_id", key.alias(PACKED_KEY), *codes, *others)


def _dictionary_code(column: str, name: str) -> pl.Expr:
    return pl.col(column).cast(pl.Categorical(pl.Categories.random())).alias(name)


def packed_frames(rows: pl.LazyFrame, labels: pl.LazyFrame) -> list[pl.LazyFrame]:
    """Return the labelled rows and each row's codes, key and document id.

    ``rows`` come from :func:`packed_rows`; :func:`rankings_of` and
    :func:`number_packed` take the two frames collected.
    """
    codes = [name for name in (_QUERY_CODE, _SYSTEM_CODE) if name in rows.collect_schema()]
    return [
        rows.select(*GROUP, "doc_id", PACKED_KEY, *codes).join(labels, on=["query_id", "doc_id"]),
        rows.select(*codes, PACKED_KEY, "doc_id"),
    ]


@dataclass(frozen=True)
class Rankings:
    """The rankings of a run read by the packed numbering's pass.

    Rankings are numbered in the order of their names (system, then query id), so the
    packed integers sort the rows as ``(system, query_id)`` would.
    """

    frame: pl.DataFrame  # system, query_id, NUM_RET: one row per ranking, in that order
    numbers: npt.NDArray[np.uint64] | None  # each row's ranking number; None: not numbered
    count: int  # ranking numbers in use: queries coded x systems coded
    # the number of the query (and system) of each dictionary code: (system, query)
    places: tuple[npt.NDArray[np.uint64] | None, npt.NDArray[np.uint64]] | None = None

    def of(self, frame: pl.DataFrame) -> npt.NDArray[np.uint64]:
        """Return the ranking number of each row of ``frame`` (it has the code columns)."""
        import numpy as np

        assert self.places is not None  # numbered rankings only
        systems, queries = self.places
        numbers: npt.NDArray[np.uint64] = queries[frame[_QUERY_CODE].to_physical().to_numpy()]
        if systems is not None:
            number_of_system = systems[frame[_SYSTEM_CODE].to_physical().to_numpy()]
            numbers += number_of_system * np.uint64(len(queries))
        return numbers


def rankings_of(rows: pl.DataFrame, system: str | None) -> Rankings:
    """Count each ranking's rows and name it from the dictionaries; number each row's.

    ``system``: the name of every row's system (a run of one system), else None. A row
    without a query id (or system) has no code: its ranking is named null, for the
    pass's checks to refuse, and the rows are not numbered.

    Examples
    --------
    >>> run = pl.LazyFrame({"system": "s", "query_id": ["r", "q", "r"], "doc_id": ["a", "a", "b"],
    ...                     "score": [1.0, 2.0, 3.0]})
    >>> rows = packed_rows(run, pl.col("score"), one_system=True).collect()
    >>> rankings = rankings_of(rows, "s")
    >>> rankings.frame.rows(), rankings.numbers.tolist()
    ([('s', 'q', 1.0), ('s', 'r', 2.0)], [1, 0, 1])
    """
    import numpy as np

    columns = [_QUERY_CODE] if system is not None else [_SYSTEM_CODE, _QUERY_CODE]
    names = [rows[column].dtype.categories.to_series() for column in columns]  # type: ignore[attr-defined]
    if any(
        rows[column].null_count() or names_.null_count()
        for column, names_ in zip(columns, names, strict=True)
    ):
        # a ranking of no query id, for the checks to refuse; no system: ranked instead
        missing = {GROUP[0]: [system], GROUP[1]: [None], NUM_RET: [0.0]}
        return Rankings(pl.DataFrame(missing, schema=_RANKINGS_SCHEMA), None, 0)
    # each code's place among the names, in byte order
    places = [(names_.rank("ordinal") - 1).cast(pl.UInt64).to_numpy() for names_ in names]
    ordered = [names_.sort() for names_ in names]
    rankings = Rankings(
        pl.DataFrame(schema=_RANKINGS_SCHEMA),
        None,
        len(names[-1]) * (len(names[0]) if system is None else 1),
        (places[0] if system is None else None, places[-1]),
    )
    numbers = rankings.of(rows)
    counts = np.bincount(numbers.view(np.int64), minlength=rankings.count)
    present = np.flatnonzero(counts)
    queries = len(names[-1])
    frame = pl.DataFrame(
        {
            GROUP[0]: ordered[0].gather(pl.Series(present // queries))
            if system is None
            else pl.repeat(system, len(present), dtype=pl.String, eager=True),
            GROUP[1]: ordered[-1].gather(pl.Series(present % queries)),
            NUM_RET: counts[present].astype(np.float64),
        }
    )
    return dataclasses.replace(rankings, frame=frame, numbers=numbers)


def row_hashes(rows: pl.DataFrame) -> pl.DataFrame:
    """Return ``_hash``: a 64-bit hash of each row's ranking codes and document id.

    What the duplicate check sorts: two rows of one ranking with one document have the
    same hash (equal hashes otherwise are a collision, which the check's second look
    tells apart).
    """
    hashed = pl.col("doc_id").hash(_HASH_SEEDS[0]) ^ pl.col(_QUERY_CODE).to_physical().hash(
        _HASH_SEEDS[1]
    )
    if _SYSTEM_CODE in rows.columns:
        hashed = hashed ^ pl.col(_SYSTEM_CODE).to_physical().hash(_HASH_SEEDS[2])
    return rows.select(hashed.alias("_hash"))


def descending_codes(
    keys: npt.NDArray[np.generic], low: float | None, high: float | None, bits: int
) -> npt.NDArray[np.uint64]:
    """Return a ``bits``-bit code of each key: smaller for a better key, or equal.

    The finite keys from ``low`` to ``high`` (the smallest and largest finite keys; None
    when there are none) are spread linearly over ``2**bits`` codes, the best first:
    ``floor(top + low * c - key * c)`` with ``c = top / (high - low)``, clipped to
    ``[0, top]``; ``+inf`` takes the best code and ``-inf`` the worst. Multiplying by
    a positive constant, subtracting from a constant and the floor are each monotone in
    IEEE arithmetic, so a larger key never gets a larger code and equal keys (``-0.0``
    and ``0.0`` too) get the same one: keys sharing a code are put in order afterwards.
    ``keys`` (float64) are overwritten when writable. NaN is refused before a run is
    ranked.

    Examples
    --------
    >>> import numpy as np
    >>> keys = np.array([2.0, -0.0, 0.0, 1.0, np.inf, -np.inf])
    >>> descending_codes(keys, -0.0, 2.0, 2).tolist()
    [0, 3, 3, 1, 0, 3]
    """
    import numpy as np

    top = (1 << bits) - 1
    # halved, the span of any two doubles is finite
    span = None if low is None or high is None else high * 0.5 - low * 0.5
    scale = 0.5 * top / span if span is not None and span > 0.0 else math.inf
    offset = top + (low or 0.0) * scale
    values = np.asarray(keys, dtype=np.float64)
    if not values.flags.writeable:
        values = values.copy()
    if low is None or not (math.isfinite(scale) and math.isfinite(offset)):
        # no spread to use: one code for the finite keys, the exact order decides
        finite = np.isfinite(values)
        values[~finite] = np.where(values[~finite] > 0, 0, top)
        values[finite] = 0.5 * top
    else:
        np.multiply(values, -scale, out=values)
        values += offset
        np.floor(values, out=values)
        np.clip(values, 0.0, float(top), out=values)
    return values.astype(np.uint64)


def number_packed(
    hits: pl.DataFrame, rows: pl.DataFrame, rankings: Rankings
) -> pl.DataFrame | None:
    """Give the labelled rows their positions from the sorted packed integers.

    Returns the labelled rows as ``system, query_id, doc_id, pos`` and the label
    columns, in rank order (by system, query id and position); None when the ranking
    and row numbers leave no bit for the key's code, or a row has no system (the ranked
    numbering then numbers the run).
    ``rankings.numbers`` is used up (the packed integers are built in its place).

    Examples
    --------
    >>> run = pl.LazyFrame({"system": "s", "query_id": ["q", "q", "q", "r"],
    ...                     "doc_id": ["a", "b", "c", "a"], "score": [1.0, 2.0, 1.0, 0.0]})
    >>> rows = packed_rows(run, pl.col("score"), one_system=True)
    >>> labels = pl.LazyFrame({"query_id": ["q", "r"], "doc_id": ["a", "a"], "grade": [1.0, 2.0]})
    >>> hits, every_row = pl.collect_all(packed_frames(rows, labels))
    >>> numbered = number_packed(hits, every_row, rankings_of(every_row, "s"))
    >>> numbered.sort("query_id").select("query_id", "pos", "grade").rows()
    [('q', 3, 1.0), ('r', 1, 2.0)]
    """
    import numpy as np

    packed = rankings.numbers
    if packed is None:
        return None
    if rows.height == 0:
        return _positioned(hits, pl.lit(0, pl.Int64))
    row_bits = (rows.height - 1).bit_length()
    # 63 bits in all: the group after the last one still fits (the searches below)
    code_bits = min(63 - (rankings.count - 1).bit_length() - row_bits, _MOST_CODE_BITS)
    if code_bits < 1:
        return None
    keys = rows[PACKED_KEY].to_numpy(writable=True)
    low, high = _finite_range(keys)
    packed <<= np.uint64(code_bits)
    codes = descending_codes(keys, low, high, code_bits)
    del keys
    packed |= codes
    del codes
    packed <<= np.uint64(row_bits)
    packed |= np.arange(rows.height, dtype=np.uint64)
    packed.sort()

    ranking_of_hit = rankings.of(hits)
    hit_numbers = ranking_of_hit << np.uint64(code_bits)
    hit_numbers |= descending_codes(hits[PACKED_KEY].to_numpy(), low, high, code_bits)
    # Each labelled row's group once, in order: the searches walk the sorted rows forward.
    wanted, group_of_hit = np.unique(hit_numbers, return_inverse=True)
    shift = np.uint64(row_bits)
    first = np.searchsorted(packed, wanted << shift)[group_of_hit]
    after = np.searchsorted(packed, (wanted + np.uint64(1)) << shift)[group_of_hit]
    ranking_shift = np.uint64(code_bits + row_bits)
    in_rankings, ranking_of_group = np.unique(wanted >> np.uint64(code_bits), return_inverse=True)
    start = np.searchsorted(packed, in_rankings << ranking_shift)[ranking_of_group][group_of_hit]
    hits = hits.with_columns(
        pl.Series(_FIRST, first, dtype=pl.Int64),
        pl.Series(_START, start, dtype=pl.Int64),
        pl.Series(_RANKING, ranking_of_hit),
    )
    tied = after - first > 1
    shared, index = np.unique(first[tied], return_index=True)
    within = _places_within_groups(shared, after[tied][index], packed, row_bits, rows)
    hits = hits.join(within, on=[_FIRST, "doc_id"], how="left")
    position = pl.col(_FIRST) - pl.col(_START) + pl.col(_WITHIN).fill_null(1)
    # in rank order: by ranking (as by system and query id), then position
    return _positioned(hits.with_columns(position.alias("pos")).sort(_RANKING, "pos"), "pos")


def _finite_range(keys: npt.NDArray[np.generic]) -> tuple[float | None, float | None]:
    """Return the smallest and largest finite keys (None, None when none is finite)."""
    import numpy as np

    if len(keys) == 0:
        return None, None
    low, high = float(keys.min()), float(keys.max())
    if math.isfinite(low) and math.isfinite(high):
        return low, high
    finite = keys[np.isfinite(keys)]
    return (float(finite.min()), float(finite.max())) if len(finite) else (None, None)


def _places_within_groups(
    firsts: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64],
    packed: npt.NDArray[np.uint64],
    row_bits: int,
    rows: pl.DataFrame,
) -> pl.DataFrame:
    """Return ``_FIRST, doc_id, _WITHIN``: the place of each row of some code groups.

    The groups are the sorted places ``firsts[i]`` to ``ends[i] - 1`` (those of more
    than one row that hold a labelled row, each once); their rows are gathered by their
    row numbers and put in trec_eval's order.
    """
    import numpy as np

    sizes = ends - firsts
    offsets = np.cumsum(sizes) - sizes
    places = np.repeat(firsts - offsets, sizes) + np.arange(sizes.sum())
    members = pl.Series((packed[places] & np.uint64((1 << row_bits) - 1)).astype(np.int64))
    frame = pl.DataFrame(
        {
            _FIRST: np.repeat(firsts, sizes),
            PACKED_KEY: rows[PACKED_KEY].gather(members),
            "doc_id": rows["doc_id"].gather(members),
        }
    )
    ordered = sorted_best_first(frame.lazy(), pl.col(PACKED_KEY), _FIRST).collect()
    place = pl.int_range(1, pl.len() + 1).over(_FIRST)
    return ordered.select(_FIRST, "doc_id", place.alias(_WITHIN))


def _positioned(hits: pl.DataFrame, position: pl.Expr | str) -> pl.DataFrame:
    extra = (PACKED_KEY, _QUERY_CODE, _SYSTEM_CODE, _FIRST, _START, _WITHIN, _RANKING)
    return hits.select(
        *GROUP,
        "doc_id",
        pl.col(position) if isinstance(position, str) else position.cast(pl.Int64).alias("pos"),
        pl.exclude(*GROUP, "doc_id", "pos", *extra),
    )
