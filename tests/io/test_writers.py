"""Tests of rankset.io's writers and of atomic_path."""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from _support.io_cases import EXPECTED_RUN, labels_frame
from rankset.errors import ParameterError
from rankset.io import scan_labels, scan_run, write_labels, write_run
from rankset.io._shared import atomic_path


def test_write_run_trec_text(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "query_id": ["301", "301", "302"],
            "doc_id": ["a", "b", "c"],
            "rank": [1, 2, 1],
            "score": [0.1 + 0.2, 1e-20, 3.0],
            "system": ["bm25", None, "bm25"],
        }
    )
    path = tmp_path / "out.trec"

    write_run(frame, path)

    assert path.read_text() == (
        "301 Q0 a 1 0.30000000000000004 bm25\n301 Q0 b 2 1e-20 rankset\n302 Q0 c 1 3.0 bm25\n"
    )


def test_write_run_fills_missing_rank_score_and_system(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"]})
    path = tmp_path / "out.run"

    write_run(frame, path)

    assert path.read_text() == (
        "1 Q0 a 1 -1.0 rankset\n1 Q0 b 2 -2.0 rankset\n2 Q0 c 1 -1.0 rankset\n"
    )


def test_write_labels_trec_text(tmp_path: Path) -> None:
    frame = labels_frame([("301", "a", 2.0), ("301", "b", 0.5), ("302", "c", -1.0)])
    path = tmp_path / "qrels.txt"

    write_labels(frame, path)

    assert path.read_text() == "301 0 a 2\n301 0 b 0.5\n302 0 c -1\n"


@pytest.mark.parametrize(
    "name", ["run.trec", "run.trec.gz", "run.parquet", "run.csv", "run.csv.gz"]
)
def test_write_run_round_trip(tmp_path: Path, name: str) -> None:
    path = tmp_path / name

    write_run(EXPECTED_RUN, path)

    assert_frame_equal(scan_run(path).collect(), EXPECTED_RUN)


@pytest.mark.parametrize("name", ["qrels.txt", "qrels.parquet", "qrels.csv"])
def test_write_labels_round_trip(tmp_path: Path, name: str) -> None:
    labels = labels_frame([("007", "a", 1.0), ("007", "b", 0.25), ("8", "c", -2.0)])
    path = tmp_path / name

    write_labels(labels.lazy(), path)

    assert_frame_equal(scan_labels(path).collect(), labels)


def test_write_explicit_format_beats_extension(tmp_path: Path) -> None:
    path = tmp_path / "run.data"

    write_run(EXPECTED_RUN, path, format="parquet")

    assert path.read_bytes()[:4] == b"PAR1"


def test_write_refuses_ids_with_whitespace(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query_id": ["1"], "doc_id": ["two words"], "score": [1.0]})

    with pytest.raises(
        ParameterError, match="column 'doc_id' has a value that is empty, null, contains whitespace"
    ):
        write_run(frame, tmp_path / "r.trec")
    assert not (tmp_path / "r.trec").exists()


def test_write_refuses_a_json_extension(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="extension names json input"):
        write_run(EXPECTED_RUN, tmp_path / "r.json")


doc_ids = st.text(alphabet="abcXYZ019-_.#:", min_size=1, max_size=8)
query_ids = doc_ids.filter(lambda q: not q.startswith("#"))


@settings(max_examples=40, deadline=None, database=None)
@given(
    rows=st.lists(
        st.tuples(
            query_ids,
            doc_ids,
            st.integers(1, 10**6),
            st.floats(allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_trec_round_trip_is_exact(rows: list[tuple[str, str, int, float]]) -> None:
    frame = pl.DataFrame(
        [(q, d, r, s, "sys") for q, d, r, s in rows], schema=EXPECTED_RUN.schema, orient="row"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.trec"
        write_run(frame, path)
        assert_frame_equal(scan_run(path).collect(), frame)


def test_write_refuses_query_id_that_reads_back_as_comment(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query_id": ["#1"], "doc_id": ["a"], "score": [1.0]})

    with pytest.raises(ParameterError, match="starts with '#'"):
        write_run(frame, tmp_path / "r.trec")


# --------------------------------------------------------------------------------------
# atomic_path
# --------------------------------------------------------------------------------------


def test_atomic_path_replaces_on_success(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")

    with atomic_path(target) as temp:
        assert temp.parent == tmp_path
        assert temp != target
        temp.write_text("new")
        assert target.read_text() == "old"

    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def fail_while_writing(target: Path) -> None:
    with atomic_path(target) as temp:
        temp.write_text("half")
        raise RuntimeError("boom")


def test_atomic_path_keeps_existing_file_and_removes_temp_on_error(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("precious")

    with pytest.raises(RuntimeError, match="boom"):
        fail_while_writing(target)

    assert target.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_atomic_path_leaves_nothing_when_target_is_new(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        fail_while_writing(tmp_path / "new.txt")

    assert list(tmp_path.iterdir()) == []


def test_refused_write_keeps_the_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "labels.txt"
    target.write_text("keep")
    frame = pl.DataFrame({"query_id": ["1"], "doc_id": ["a"], "grade": ["not a number"]})

    with pytest.raises(ParameterError, match="column 'grade' has dtype String, expected numbers"):
        write_labels(frame, target)

    assert target.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.txt"]
