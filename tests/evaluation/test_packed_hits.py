"""The packed pass's rankings and labelled rows, found after the pass from the ids' hashes.

What is checked here (issue 49, the floor's third pass), against plain Polars on the
same rows:

* the rankings are numbered by their names' order (system, then query id, in byte
  order), every row's number is its ranking's, and the counts written from the sorted
  rows are each ranking's rows; whatever the hash table's size (a table of two slots
  sends most hashes to the search) and when distinct ids share a hash (the comparison
  of every row's ids with its ranking's name finds it, and the ids' rank numbers them);
* the labelled rows equal the join of the rows to the labels on both ids, row for row:
  labels repeated, ids missing or in no label, extra label columns, a bitmap of a few
  slots (most rows candidates) and pair hashes shared by distinct ids (the comparison
  of both ids drops the wrong matches).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankset.evaluation import _packed_hits as packed_hits
from rankset.evaluation import _packed_rankings as packed_rankings
from rankset.evaluation._packed_hits import RUN_ROW, labelled_rows, query_hashes
from rankset.evaluation._packed_rankings import count_sorted, rankings_of, with_counts

_ids = st.sampled_from(["q1", "q10", "q9", "Q", "é", "日本"])
_docs = st.sampled_from(["1", "10", "9", "Z", "e", "ß"])


def _colliding(query_ids: pl.Expr, _hash: Any = packed_rankings.query_hash) -> pl.Expr:
    return _hash(query_ids) % 2  # distinct query ids share a hash


@settings(max_examples=100, deadline=None)
@given(
    systems=st.lists(st.sampled_from(["sysA", "sysB", "s"]), min_size=1, max_size=60),
    queries=st.lists(_ids, min_size=60, max_size=60),
    one_system=st.booleans(),
    hashing=st.sampled_from(["table", "shared slots", "collisions"]),
)
def test_rankings_are_numbered_in_the_order_of_their_names(
    systems: list[str], queries: list[str], one_system: bool, hashing: str
) -> None:
    rows = pl.DataFrame({"system": systems, "query_id": queries[: len(systems)]}).with_columns(
        _key=pl.lit(1.0)
    )
    if one_system:
        rows = rows.drop("system")
    columns = ["query_id"] if one_system else ["system", "query_id"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(packed_rankings, "_STEP", 7)  # numbers written in steps of 7 rows
        if hashing == "shared slots":
            patch.setattr(packed_rankings, "_TABLE_BITS", (1, 1))
        if hashing == "collisions":
            patch.setattr(packed_rankings, "query_hash", _colliding)
            patch.setattr(packed_hits, "query_hash", _colliding)
        hashes = query_hashes(rows) if one_system else None
        rankings = rankings_of(rows, "s" if one_system else None, hashes=hashes)
    names = rows.select(columns).unique().sort(columns)
    assert rankings.numbers is not None
    assert rankings.frame.select(columns).equals(names)
    expected = rows.join(names.with_row_index("n"), on=columns, maintain_order="left")["n"]
    assert rankings.numbers.tolist() == expected.to_list()
    count_sorted(rankings, np.sort(rankings.numbers), 0)
    counted = with_counts(rankings)[packed_rankings.NUM_RET].to_list()
    assert (
        counted
        == names.join(rows.group_by(columns).len(), on=columns, maintain_order="left")["len"]
        .cast(pl.Float64)
        .to_list()
    )


@settings(max_examples=150, deadline=None)
@given(
    pairs=st.lists(st.tuples(_ids | st.none(), _docs | st.none()), min_size=1, max_size=60),
    labelled=st.lists(st.tuples(_ids, _docs), max_size=30),
    slots=st.sampled_from(["bitmap", "few slots", "collisions"]),
    cut=st.integers(0, 60),
    chunking=st.sampled_from(["one chunk", "chunks", "hashed in one chunk"]),
)
def test_labelled_rows_are_the_join_on_both_ids(
    pairs: list[tuple[str | None, str | None]],
    labelled: list[tuple[str, str]],
    slots: str,
    cut: int,
    chunking: str,
) -> None:
    rows = pl.DataFrame(
        {"query_id": [q for q, _ in pairs], "doc_id": [d for _, d in pairs]},
        schema={"query_id": pl.String, "doc_id": pl.String},
    ).with_columns(_key=pl.int_range(pl.len()).cast(pl.Float64))
    if chunking != "one chunk":  # rows collected in chunks: their hashes are paired by chunk
        rows = pl.concat([rows.head(cut), rows.slice(cut), rows.head(0)], rechunk=False)
    hashed = rows.rechunk() if chunking == "hashed in one chunk" else rows
    labels = pl.DataFrame(
        {"query_id": [q for q, _ in labelled], "doc_id": [d for _, d in labelled]},
        schema={"query_id": pl.String, "doc_id": pl.String},
    ).with_columns(grade=pl.int_range(pl.len()).cast(pl.Float64), note=pl.lit("x"))
    with pytest.MonkeyPatch.context() as patch:
        if slots == "few slots":  # a bitmap of 64 bits: most rows are candidates
            patch.setattr(packed_hits, "_SLOT_BITS", (6, 6))
        if slots == "collisions":  # pair hashes of distinct query ids collide
            patch.setattr(packed_hits, "query_hash", _colliding)
        found = labelled_rows(rows, labels, query_hashes(hashed), "s", "_key")
        pair_hashes = rows.select(packed_hits.pair_hash(pl.col("query_id"), pl.col("doc_id")))
    expected = (
        rows.select(pl.lit("s").alias("system"), "query_id", "doc_id", "_key")
        .join(labels, on=["query_id", "doc_id"])
        .sort("_key", "grade")
    )
    got = found.hits.sort("_key", "grade")
    assert got.drop(RUN_ROW, strict=False).equals(expected)
    if RUN_ROW in got.columns:  # found from the hashes: each row's number in the run
        assert got[RUN_ROW].to_list() == got["_key"].cast(pl.Int64).to_list()
    if found.pairs is not None:  # each row's pair hash: equal ids, equal hashes
        assert found.pairs.tolist() == pair_hashes.to_series().to_list()


@pytest.mark.parametrize("hashed_in", ["the rows' chunks", "one chunk"])
def test_rows_in_chunks_are_paired_chunk_by_chunk(hashed_in: str) -> None:
    rows = pl.DataFrame(
        {"query_id": [f"q{i % 7}" for i in range(90)], "doc_id": [f"d{i % 11}" for i in range(90)]}
    ).with_columns(_key=pl.int_range(pl.len()).cast(pl.Float64))
    rows = pl.concat([rows.slice(0, 20), rows.slice(20, 1), rows.slice(21)], rechunk=False)
    assert rows["doc_id"].n_chunks() == 3
    labels = pl.DataFrame({"query_id": ["q1", "q3", "q5"], "doc_id": ["d1", "d3", "d9"]})
    labels = labels.with_columns(grade=pl.int_range(pl.len()).cast(pl.Float64))
    hashed = rows.rechunk() if hashed_in == "one chunk" else rows
    found = labelled_rows(rows, labels, query_hashes(hashed), "s", "_key")
    expected = rows.select(pl.lit("s").alias("system"), "query_id", "doc_id", "_key").join(
        labels, on=["query_id", "doc_id"]
    )
    assert found.hits.drop(RUN_ROW).sort("_key").equals(expected.sort("_key"))
    assert found.hits.sort("_key")[RUN_ROW].to_list() == [1, 3, 75, 78, 80]
    assert found.hits.height == 5  # rows 1 and 78, 3 and 80, 75
    pair_hashes = rows.select(packed_hits.pair_hash(pl.col("query_id"), pl.col("doc_id")))
    assert found.pairs is not None
    assert found.pairs.tolist() == pair_hashes.to_series().to_list()


@pytest.mark.parametrize("freed_by", [1, 7, 40])  # rows freed at a time; 40: all at once
def test_the_pair_hashes_are_written_over_the_query_hashes_once_the_rankings_read_them(
    freed_by: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packed_rankings, "_STEP", 7)  # numbered in steps of 7 rows
    rows = pl.DataFrame(
        {"query_id": [f"q{i % 5}" for i in range(40)], "doc_id": [f"d{i}" for i in range(40)]}
    ).with_columns(_key=pl.lit(1.0))
    labels = pl.DataFrame({"query_id": ["q1", "q4"], "doc_id": ["d6", "d9"], "grade": [1.0, 2.0]})
    hashes = query_hashes(rows)
    assert hashes is not None
    before = hashes.copy()
    steps: list[tuple[int, int]] = []
    rankings = rankings_of(rows, "s", hashes=hashes, then=lambda *step: steps.append(step))
    assert steps == [(i, min(i + 7, 40)) for i in range(0, 40, 7)]  # every row once, in order
    assert rankings.numbers is not None
    assert rankings.numbers.tolist() == [i % 5 for i in range(40)]
    assert hashes.tolist() == before.tolist()  # the numbering only reads them
    asked: list[int] = []

    def ready(paired: int) -> int:  # frees the rows ``freed_by`` at a time
        asked.append(paired)
        return min(paired + freed_by, 40)

    found = labelled_rows(rows, labels, hashes, "s", "_key", ready)
    assert asked == list(range(0, 40, freed_by))  # never paired past the rows freed
    assert found.pairs is hashes  # written over them, as the duplicate check sorts them
    pair_hashes = rows.select(packed_hits.pair_hash(pl.col("query_id"), pl.col("doc_id")))
    assert hashes.tolist() == pair_hashes.to_series().to_list()
    expected = labelled_rows(rows, labels, query_hashes(rows), "s", "_key")
    assert found.hits.equals(expected.hits)
    assert found.hits.select("query_id", "doc_id").rows() == [("q1", "d6"), ("q4", "d9")]


def _forty_rows_numbered() -> tuple[list[Any], pl.DataFrame]:
    """Number 40 rows of 5 queries (2 labelled) as a packed pass would: frames, hits."""
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from rankset.evaluation._packed_pass import packed_hits, with_rankings

    rows = pl.DataFrame(
        {"query_id": [f"q{i % 5}" for i in range(40)], "doc_id": [f"d{i}" for i in range(40)]}
    ).with_columns(_key=pl.lit(1.0))
    labels = pl.DataFrame({"query_id": ["q1", "q4"], "doc_id": ["d6", "d9"], "grade": [1.0, 2.0]})
    part = SimpleNamespace(name="s", rows_checked=True, unique_docs=False)
    with ThreadPoolExecutor(max_workers=1) as checker:
        frames = with_rankings(part, [labels, pl.DataFrame(), rows], checker, ids=False)  # type: ignore[arg-type]
        return frames, packed_hits(frames[0])


def _numbered_as_forty_rows_are(frames: list[Any], hits: pl.DataFrame) -> Any:
    """Assert what :func:`_forty_rows_numbered` must give; return its :class:`PackedRows`."""
    from rankset.evaluation._packed_pass import PackedRows

    every_row = frames[3]
    assert isinstance(every_row, PackedRows)
    assert every_row.rankings.numbers is not None
    assert every_row.rankings.numbers.tolist() == [i % 5 for i in range(40)]
    assert hits.select("query_id", "doc_id").sort("query_id").rows() == [("q1", "d6"), ("q4", "d9")]
    return every_row


def _as_a_large_run_in_steps_of(rows: int, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Number any run as a large one (beside the checker), ``rows`` rows a step.

    Returns the packed pass's module, whose classes the tests wrap.
    """
    from rankset.evaluation import _packed_pass as packed_pass

    monkeypatch.setattr(packed_pass, "CHECKED_MEANWHILE", 1)
    monkeypatch.setattr(packed_rankings, "_STEP", rows)
    return packed_pass


@pytest.mark.parametrize("on_the_checker", [False, True])
def test_the_rankings_are_numbered_from_the_query_hashes_before_the_pairs_overwrite_them(
    on_the_checker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rankset.evaluation import _packed_pass as packed_pass

    if on_the_checker:  # as a large run's: found on the checker thread after the rankings
        monkeypatch.setattr(packed_pass, "CHECKED_MEANWHILE", 1)
    frames, hits = _forty_rows_numbered()
    every_row = _numbered_as_forty_rows_are(frames, hits)
    assert every_row.rankings.index is not None  # by the hashes: no collision seen
    assert frames[1]["query_id"].to_list() == ["q0", "q1", "q2", "q3", "q4"]
    assert every_row.rows.columns == ["_key", "doc_id"]  # the query ids are not kept


def test_a_large_runs_pairs_are_written_only_behind_the_numbering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A large run of one system: the checker thread writes its pair hashes over its
    # query hashes behind the numbering of its rankings, as each step is read. The
    # numbering is slowed here: a checker that wrote ahead of it would hand the
    # rankings pair hashes to number (wrong numbers, lost labelled rows).
    import time

    packed_pass = _as_a_large_run_in_steps_of(8, monkeypatch)
    read = packed_pass._Progress.read

    def slowly(self: Any, start: int, end: int) -> None:
        time.sleep(0.05)
        read(self, start, end)

    monkeypatch.setattr(packed_pass._Progress, "read", slowly)
    _numbered_as_forty_rows_are(*_forty_rows_numbered())


def test_a_failure_numbering_the_rankings_does_not_leave_the_checker_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The checker waits for the numbering to read the query hashes; if the numbering
    # fails part way, the wait ends all the same (the checker's task fails too) and the
    # numbering's failure is the one raised.
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    packed_pass = _as_a_large_run_in_steps_of(1, monkeypatch)
    looked_up = packed_rankings._HashIndex.__call__

    def failing(self: Any, hashes: Any) -> Any:
        if failing.calls:  # type: ignore[attr-defined]
            raise RuntimeError("no numbers")
        failing.calls += 1  # type: ignore[attr-defined]
        return looked_up(self, hashes)

    failing.calls = 0  # type: ignore[attr-defined]
    monkeypatch.setattr(packed_rankings._HashIndex, "__call__", failing)
    rows = pl.DataFrame({"query_id": ["q0", "q1"], "doc_id": ["d0", "d1"], "_key": [1.0, 2.0]})
    labels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "grade": [1.0]})
    part = SimpleNamespace(name="s", rows_checked=True, unique_docs=False)
    raised: list[BaseException] = []

    def numbered() -> None:
        try:
            with ThreadPoolExecutor(max_workers=1) as checker:
                packed_pass.with_rankings(part, [labels, pl.DataFrame(), rows], checker, ids=False)  # type: ignore[arg-type]
        except RuntimeError as error:
            raised.append(error)

    thread = threading.Thread(target=numbered, daemon=True)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive()  # not left waiting
    assert [str(error) for error in raised] == ["no numbers"]


@pytest.mark.parametrize("packed_bits", [64, 8])  # 8: no room to pack, an argsort instead
def test_rows_in_any_order_are_gathered_chunk_by_chunk(
    packed_bits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packed_hits, "_PACKED_BITS", packed_bits)
    frame = pl.DataFrame({"doc_id": [f"d{i}" for i in range(50)], "_key": range(50)})
    frame = pl.concat([frame.slice(0, 7), frame.slice(7, 30), frame.slice(37)], rechunk=False)
    assert frame["doc_id"].n_chunks() == 3
    rows = np.random.default_rng(3).integers(0, 50, 40)  # repeated rows, any order
    got = packed_hits.gathered(frame, rows)
    assert got["_key"].to_list() == rows.tolist()
    assert got["doc_id"].to_list() == [f"d{i}" for i in rows]
    assert packed_hits.gathered(frame, rows[:0]).height == 0
