"""The packed numbering: a run in no order, ranked on one 64-bit integer per row.

The pass (:mod:`rankset.evaluation._pass`) reads such a run once and keeps, besides the
labelled rows, three columns per row: the query id (and the system, when a run holds
several), the ordering key, and the document id. The ids' hashes number the rankings
densely, in the order of their names, without a sort or a group-by
(:mod:`rankset.evaluation._packed_rankings`). Each row then gets one unsigned 64-bit
integer::

    ranking number | code of the key, best first | row number

where the code (:func:`descending_codes`) spreads the finite keys over the bits the
ranking and row numbers leave. One sort of those integers, values only, puts every
ranking in a block, best first; rows whose keys share a code (ties, and keys closer
than the code tells apart) stay together, in row order. A labelled row's position is
then the first place of its code group in its ranking's block, plus its place within
the group: one more than the count of the group's rows before it in trec_eval's order
(:func:`rankset.schema._rules.sorted_best_first`'s rule: key descending, ties by
document id descending in byte order), each compared with the labelled row. Only the
groups that hold a labelled row and more than one row are looked at. A run of few
distinct document ids whose code gives each distinct key its own puts the ids' ranks
(:func:`_doc_ranks`) between the code and the row number: the sort then orders the ties
too, and each labelled row is found by its own packed prefix.

Sorting one array of integers by value takes a fraction of the rank over ``(system,
query_id)`` of ``(key, doc_id)`` that the ranked numbering runs, or of a sort by the
columns (which gathers every column in the sorted order). When the ranking and row
numbers leave no bit for the code, :func:`number_packed` returns None and the run is
ranked instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset.evaluation._packed_hits import RUN_ROW, gathered
from rankset.evaluation._packed_rankings import (
    RANKING,
    Rankings,
    chunks,
    count_sorted,
    id_columns,
    rankings_of,
    row_hashes,
)
from rankset.measures._shared import GROUP

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "PACKED_KEY",
    "KeyRange",
    "Rankings",
    "coded_doc_ids",
    "descending_codes",
    "finite_range",
    "number_packed",
    "packed_frames",
    "packed_rows",
    "rankings_of",
    "row_hashes",
]

#: The ordering key's column in the packed numbering's frames.
PACKED_KEY = "_key"
#: A call that gives the keys' finite range (:func:`finite_range`), found meanwhile.
KeyRange = Callable[[], tuple[float | None, float | None]]
# A code of at most 52 bits: its largest value is a double exactly, so clipping to it
# in floating point cannot step into the next ranking's codes.
_MOST_CODE_BITS = 52


def packed_rows(
    cast: pl.LazyFrame,
    key: pl.Expr,
    *others: str,
    ranking_numbers: pl.Series | None = None,
) -> pl.LazyFrame:
    """Select what the packed numbering reads: ids, the ordering key, a reader's numbers.

    The ids are kept as read: they are numbered after the pass
    (:func:`~rankset.evaluation._packed_rankings.rankings_of`). With
    ``ranking_numbers`` (each row's ranking as its reader numbered them, sorted,
    aligned with ``cast``'s rows) the rows carry those too.
    """
    numbers = [] if ranking_numbers is None else [pl.lit(ranking_numbers).cast(pl.UInt32)]
    return cast.select(
        "system",
        "query_id",
        "doc_id",
        key.alias(PACKED_KEY),
        *(number.alias(RANKING) for number in numbers),
        *others,
    )


def packed_frames(
    rows: pl.LazyFrame, labels: pl.LazyFrame, one_system: bool = True
) -> list[pl.LazyFrame]:
    """Return the labels (or the labelled rows) and each row's ids, key and document id.

    ``rows`` come from :func:`packed_rows`; :func:`rankings_of`,
    :func:`~rankset.evaluation._packed_hits.labelled_rows` and :func:`number_packed`
    take the frames collected. ``one_system``: every row has one system (the run's
    name): the rankings are named by the query ids alone. The pass joins nothing: the
    labelled rows are found afterwards from the ids' hashes. Rows numbered by their
    reader carry no ids: they are joined to the labels in the pass, and give each
    ranking's ids from its first row (a third frame).
    """
    if RANKING not in rows.collect_schema():
        return [labels, rows.select(*id_columns(one_system), PACKED_KEY, "doc_id")]
    ranking = pl.col(RANKING)
    starts = (ranking != ranking.shift(1)).fill_null(True)
    return [
        rows.select(*GROUP, "doc_id", PACKED_KEY, RANKING).join(labels, on=["query_id", "doc_id"]),
        rows.select(RANKING, PACKED_KEY, "doc_id"),
        rows.filter(starts).select(RANKING, *GROUP),
    ]


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
    NaN is refused before a run is ranked.

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
    if low is None or not (math.isfinite(scale) and math.isfinite(offset)):
        # no spread to use: one code for the finite keys, the exact order decides
        values = values.copy()
        finite = np.isfinite(values)
        values[~finite] = np.where(values[~finite] > 0, 0, top)
        values[finite] = 0.5 * top
    else:
        values = np.multiply(values, -scale)  # a new array: ``keys`` stay as they are
        values += offset
        np.floor(values, out=values)
        np.clip(values, 0.0, float(top), out=values)
    return values.astype(np.uint64)


def number_packed(
    labelled: pl.DataFrame | Callable[[], pl.DataFrame],
    rows: pl.DataFrame,
    rankings: Rankings,
    doc_codes: pl.Series | None = None,
    key_range: KeyRange | None = None,
) -> pl.DataFrame | None:
    """Give the labelled rows their positions from the sorted packed integers.

    Returns the labelled rows as ``system, query_id, doc_id, pos`` and the label
    columns, in rank order (by system, query id and position); None when the ranking
    and row numbers leave no bit for the key's code, or a row has no system (the ranked
    numbering then numbers the run). ``labelled``: the labelled rows, or a call that
    gives them (asked for once the packed integers are sorted, so that they may be
    found meanwhile). ``doc_codes``: :func:`coded_doc_ids`' of the rows. ``key_range``:
    a call that gives the rows' :func:`finite_range` (found meanwhile), else it is
    found here.
    ``rankings.numbers`` is used up (the packed integers are built in its place).

    Examples
    --------
    >>> run = pl.LazyFrame({"system": "s", "query_id": ["q", "q", "q", "r"],
    ...                     "doc_id": ["a", "b", "c", "a"], "score": [1.0, 2.0, 1.0, 0.0]})
    >>> rows = packed_rows(run, pl.col("score"))
    >>> labels = pl.LazyFrame({"query_id": ["q", "r"], "doc_id": ["a", "a"], "grade": [1.0, 2.0]})
    >>> from rankset.evaluation._packed_hits import labelled_rows, query_hashes
    >>> labels, every_row = pl.collect_all(packed_frames(rows, labels))
    >>> rankings = rankings_of(every_row, "s")
    >>> hashes = query_hashes(every_row)
    >>> hits = labelled_rows(every_row, labels, hashes, "s", PACKED_KEY).hits
    >>> numbered = number_packed(hits, every_row, rankings)
    >>> numbered.sort("query_id").select("query_id", "pos", "grade").rows()
    [('q', 3, 1.0), ('r', 1, 2.0)]
    """
    import numpy as np

    packed = rankings.numbers
    if packed is None:
        return None
    if rows.height == 0:
        return _positioned(_given(labelled), pl.lit(0, pl.Int64))
    assert rankings.places is not None  # numbered rankings have places and slots
    assert rankings.slots is not None
    row_bits = (rows.height - 1).bit_length()
    ranking_bits = (rankings.count - 1).bit_length()
    hits, doc_ranks = None, None
    if doc_codes is not None:  # a small run's: its labelled rows are there already
        hits = _given(labelled)
        doc_ranks = _doc_ranks(doc_codes, hits["doc_id"], ranking_bits)
    low, high = finite_range(rows[PACKED_KEY]) if key_range is None else key_range()
    # 63 bits in all: the group after the last one still fits (the searches below)
    code_bits = min(63 - ranking_bits - row_bits, _MOST_CODE_BITS)
    if doc_ranks is not None:  # the document's rank in place of the row number
        doc_code_bits = min(63 - ranking_bits - doc_ranks[2], _MOST_CODE_BITS)
        if doc_code_bits >= 1 and _codes_exact(rows[PACKED_KEY], low, high, doc_code_bits):
            code_bits = doc_code_bits
        else:
            doc_ranks = None
    if code_bits < 1:
        return None
    row_docs = None if doc_ranks is None else doc_ranks[0]
    low_bits = row_bits if doc_ranks is None else doc_ranks[2]
    _pack(packed, chunks(rows[PACKED_KEY]), row_docs, low, high, code_bits, low_bits)
    packed.sort()
    count_sorted(rankings, packed, code_bits + low_bits)
    starts = rankings.starts
    assert starts is not None  # counted before the sort, or now

    hits = _given(labelled) if hits is None else hits
    ranking_of_hit = rankings.of(hits)
    hit_numbers = ranking_of_hit << np.uint64(code_bits)
    hit_numbers |= descending_codes(hits[PACKED_KEY].to_numpy(), low, high, code_bits)
    if doc_ranks is not None:
        # each distinct key has its own code: the sort put each ranking in trec_eval's
        # order (ties by document rank), and a labelled row is found by its own prefix
        hit_rows = (hit_numbers << np.uint64(low_bits)) | doc_ranks[1]
        found = np.searchsorted(packed, hit_rows).astype(np.int64)
        slot_of_hit = rankings.slots[ranking_of_hit.view(np.int64)]
        return _in_rank_order(hits, rankings, slot_of_hit, found - starts[slot_of_hit] + 1)
    # Each labelled row's group once, in order: the searches walk the sorted rows forward.
    wanted, group_of_hit = np.unique(hit_numbers, return_inverse=True)
    shift = np.uint64(row_bits)  # no document ranks here
    first = np.searchsorted(packed, wanted << shift)
    after = _group_ends(packed, first, wanted, shift)
    tied = np.flatnonzero(after - first > 1)  # groups of more than one row
    # a labelled row's place in its group: 1 when alone in it
    place = np.ones(len(hits), dtype=np.int64)
    if len(tied):
        group_index = np.full(len(wanted), -1, dtype=np.int64)  # each tied group's index
        group_index[tied] = np.arange(len(tied))
        tied_hits = np.flatnonzero(group_index[group_of_hit] >= 0)
        asked = [PACKED_KEY, "doc_id", *([RUN_ROW] if RUN_ROW in hits.columns else [])]
        place[tied_hits] = _places_within_groups(
            hits.select(asked)[tied_hits],
            group_index[group_of_hit[tied_hits]],
            first[tied],
            after[tied],
            packed,
            row_bits,
            rows,
        )
    slot_of_hit = rankings.slots[ranking_of_hit.view(np.int64)]
    positions = first[group_of_hit] - starts[slot_of_hit] + place
    return _in_rank_order(hits, rankings, slot_of_hit, positions)


#: Rows a code group's end is looked for past its first, one at a time, before a search.
_GROUP_STEPS = 8


def _group_ends(
    packed: npt.NDArray[np.uint64],
    firsts: npt.NDArray[np.int64],
    groups: npt.NDArray[np.uint64],
    shift: np.uint64,
) -> npt.NDArray[np.int64]:
    """Return the end of each code group (``groups``, each holding a row) in ``packed``.

    Most groups hold a row or a few: the rows after each group's first (in cache since
    its search) are compared with it, one step at a time; the groups still going after
    :data:`_GROUP_STEPS` steps are searched for.

    Examples
    --------
    >>> import numpy as np
    >>> packed = np.array([4, 5, 8, 9, 10, 12], dtype=np.uint64)  # groups (>> 2): 1, 1, 2, 2, 2, 3
    >>> groups = np.array([1, 2, 3], dtype=np.uint64)
    >>> _group_ends(packed, np.array([0, 2, 5]), groups, np.uint64(2)).tolist()
    [2, 5, 6]
    """
    import numpy as np

    ends = firsts + 1
    going = np.arange(len(firsts))
    for _ in range(_GROUP_STEPS):
        at = ends[going]
        inside = at < len(packed)
        inside[inside] = (packed[at[inside]] >> shift) == groups[going[inside]]
        going = going[inside]
        if not len(going):
            return ends
        ends[going] += 1
    ends[going] = np.searchsorted(packed, (groups[going] + np.uint64(1)) << shift)
    return ends


def _given(labelled: pl.DataFrame | Callable[[], pl.DataFrame]) -> pl.DataFrame:
    return labelled if isinstance(labelled, pl.DataFrame) else labelled()


def _in_rank_order(
    hits: pl.DataFrame,
    rankings: Rankings,
    slot_of_hit: npt.NDArray[np.int64],
    positions: npt.NDArray[np.int64],
) -> pl.DataFrame:
    """Return the labelled rows with their positions, by ranking name, then position."""
    import numpy as np

    assert rankings.places is not None
    places = rankings.places[slot_of_hit]
    shift = int(positions.max()).bit_length() if len(positions) else 0
    if len(places) and int(places.max()).bit_length() + shift > 62:
        order = np.lexsort((positions, places))
    else:
        order = np.argsort((places << shift) | positions)
    hits = hits.select(pl.exclude(PACKED_KEY, RANKING, RUN_ROW))
    # eager: a lazy gather of each column costs several times more on small frames
    return _positioned(hits[order].with_columns(pl.Series("pos", positions[order])), "pos")


def finite_range(keys: pl.Series) -> tuple[float | None, float | None]:
    """Return the smallest and largest finite keys (None, None when none is finite)."""
    if len(keys) == 0:
        return None, None
    low, high = keys.min(), keys.max()
    numbers = isinstance(low, (int, float)) and isinstance(high, (int, float))
    if numbers and math.isfinite(low) and math.isfinite(high):  # type: ignore[arg-type]
        return float(low), float(high)  # type: ignore[arg-type]
    finite = keys.filter(keys.is_finite())
    if finite.len() == 0:
        return None, None
    return float(finite.min()), float(finite.max())  # type: ignore[arg-type]


#: Rows from which the packed integers are built on two threads, half the chunks each.
_PACKED_ON_TWO_THREADS = 1_000_000


def _pack(
    packed: npt.NDArray[np.uint64],
    keys: list[tuple[int, int, npt.NDArray[Any]]],
    doc_ranks: npt.NDArray[np.uint64] | None,
    low: float | None,
    high: float | None,
    code_bits: int,
    low_bits: int,
) -> None:
    """Turn each row's ranking number in ``packed`` into its packed integer, in place.

    ``ranking number | code of the key | row number`` in ``low_bits``, or the row's
    document rank there with ``doc_ranks`` (:func:`_doc_ranks`), chunk by chunk of the
    keys (each chunk's steps stay in cache); a large run's chunks are split over two
    threads (numpy lets go of the GIL).
    """
    import numpy as np

    def pack(chunks: list[tuple[int, int, npt.NDArray[Any]]]) -> None:
        for start, end, chunk in chunks:
            part = packed[start:end]
            part <<= np.uint64(code_bits)
            part |= descending_codes(chunk, low, high, code_bits)
            part <<= np.uint64(low_bits)
            if doc_ranks is None:
                part |= np.arange(start, end, dtype=np.uint64)
            else:
                part |= doc_ranks[start:end]

    if len(packed) < _PACKED_ON_TWO_THREADS or len(keys) < 2:
        pack(keys)
        return
    from concurrent.futures import ThreadPoolExecutor

    half = len(keys) // 2
    with ThreadPoolExecutor(max_workers=1) as other:
        done = other.submit(pack, keys[half:])
        pack(keys[:half])
        done.result()


#: Up to this many rows, the distinct document ids are ranked into the packed integers.
_DOC_RANKED_ROWS = 1_000_000
#: Past this many rows, the ids are ranked only if this many first rows repeat them.
_DOC_SAMPLE = 4_096
#: The fewest bits the key's code keeps when the document ranks take theirs.
_LEAST_CODE_BITS = 20


def coded_doc_ids(doc_ids: pl.Series) -> pl.Series | None:
    """Code a run's document ids afresh (Categorical) when their ranks may number it.

    None for a large run, a missing id (refused later), or first rows that hold many
    distinct ids: coding costs about 0.1 µs a row but 0.1-0.4 µs more per distinct id,
    more than the tie groups' step it saves (:func:`number_packed`).
    """
    if len(doc_ids) > _DOC_RANKED_ROWS or doc_ids.null_count():
        return None
    if len(doc_ids) > _DOC_SAMPLE and doc_ids.head(_DOC_SAMPLE).n_unique() > _DOC_SAMPLE // 16:
        return None
    return doc_ids.cast(pl.Categorical(pl.Categories.random()))


def _doc_ranks(
    coded: pl.Series, hit_ids: pl.Series, ranking_bits: int
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64], int] | None:
    """Rank the distinct document ids, the greatest (in byte order) 0: trec_eval's ties.

    ``coded``: :func:`coded_doc_ids`'. Returns each row's rank, each labelled row's
    (``hit_ids``) and the ranks' bits; None when the ranks would leave the key's code
    fewer than :data:`_LEAST_CODE_BITS` bits.
    """
    import numpy as np

    names = coded.dtype.categories.to_series()  # type: ignore[attr-defined]
    doc_bits = (len(names) - 1).bit_length()
    if 63 - ranking_bits - doc_bits < _LEAST_CODE_BITS:
        return None
    ranks = np.empty(len(names), dtype=np.uint64)
    ranks[names.arg_sort(descending=True).to_numpy()] = np.arange(len(names), dtype=np.uint64)
    rows = ranks[coded.to_physical().to_numpy()]
    hits = ranks[hit_ids.cast(coded.dtype).to_physical().to_numpy()]
    return rows, hits, doc_bits


def _codes_exact(keys: pl.Series, low: float | None, high: float | None, code_bits: int) -> bool:
    """Tell whether each distinct key has its own code (``-0.0`` and ``0.0`` are one key).

    Else keys closer than the code tells apart need their groups put in order.
    """
    import numpy as np

    distinct = np.unique(keys.to_numpy())  # ascending: the codes must then descend
    codes = descending_codes(distinct, low, high, code_bits)
    return bool(np.all(codes[1:] < codes[:-1]))


def _places_within_groups(
    asked: pl.DataFrame,
    groups: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    ends: npt.NDArray[np.int64],
    packed: npt.NDArray[np.uint64],
    row_bits: int,
    rows: pl.DataFrame,
) -> npt.NDArray[np.int64]:
    """Return the place of each ``asked`` row (``PACKED_KEY, doc_id``) within its code group.

    ``groups`` gives each asked row's group: the sorted places ``firsts[g]`` to
    ``ends[g] - 1``, whose row numbers are the packed integers' low bits. A row's place
    is one more than the count of its group's rows before it in trec_eval's order
    (:func:`~rankset.schema._rules.sorted_best_first`'s rule: key descending, ties by
    document id descending in byte order), each row compared with each of its group's
    others: when ``asked`` has each row's number in the run (:data:`RUN_ROW`), a row is
    not compared with itself, and only the others' keys and ids are gathered from
    ``rows`` (chunk by chunk: :func:`~rankset.evaluation._packed_hits.gathered`).
    """
    import numpy as np

    sizes = ends - firsts
    offsets = np.cumsum(sizes) - sizes  # each group's first member
    places = np.repeat(firsts - offsets, sizes) + np.arange(int(sizes.sum()))
    members = (packed[places] & np.uint64((1 << row_bits) - 1)).astype(np.int64)
    # every (asked row, member of its group) pair, by the member's row in the run
    counts = sizes[groups]
    asker = np.repeat(np.arange(len(groups)), counts)
    member = np.repeat(offsets[groups] - (np.cumsum(counts) - counts), counts) + np.arange(
        int(counts.sum())
    )
    paired = members[member]
    if RUN_ROW in asked.columns:
        apart = paired != asked[RUN_ROW].to_numpy()[asker]
        asker, paired = asker[apart], paired[apart]
    others = gathered(rows.select(PACKED_KEY, "doc_id"), paired)
    keys = others[PACKED_KEY].to_numpy()
    own_keys = asked[PACKED_KEY].to_numpy()[asker]
    docs = others["doc_id"]
    greater_doc = (docs > asked["doc_id"].gather(pl.Series(asker))).fill_null(False).to_numpy()
    before = (keys > own_keys) | ((keys == own_keys) & greater_doc)
    return 1 + np.bincount(asker, weights=before, minlength=len(groups)).astype(np.int64)


def _positioned(hits: pl.DataFrame, position: pl.Expr | str) -> pl.DataFrame:
    extra = (PACKED_KEY, RANKING, RUN_ROW)
    return hits.select(
        *GROUP,
        "doc_id",
        pl.col(position) if isinstance(position, str) else position.cast(pl.Int64).alias("pos"),
        pl.exclude(*GROUP, "doc_id", "pos", *extra),
    )
