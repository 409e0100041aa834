"""Tests of rankset.io on tables: Parquet, CSV, TSV and in-memory frames."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal

from _support.io_cases import EXPECTED_RUN, labels_frame, write_bytes, write_text
from rankset.errors import InputFormatError, ParameterError
from rankset.io import read, scan_labels, scan_run


def test_parquet_with_column_mapping(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pl.DataFrame(
        {"Q": [301, 301], "D": ["a", "b"], "pos": [1, 2], "sim": [2.5, 1.5], "tag": ["x", "x"]}
    ).write_parquet(path)

    parsed = read(path, columns={"Q": "query_id", "D": "doc_id", "pos": "rank"})

    assert parsed.format == "parquet"
    assert parsed.stem == "run"
    assert parsed.run is not None
    expected = pl.DataFrame(
        {
            "query_id": ["301", "301"],
            "doc_id": ["a", "b"],
            "rank": [1, 2],
            "score": [2.5, 1.5],
            "system": ["x", "x"],
        },
        schema=EXPECTED_RUN.schema,
    )
    assert_frame_equal(parsed.run.collect(), expected)


def test_csv_with_column_mapping_keeps_ids_as_text(tmp_path: Path) -> None:
    path = write_text(
        tmp_path / "labels.csv", "topic_no,passage,judgement\n007,0042,3\n007,9,0.5\n"
    )

    labels = scan_labels(
        path, columns={"topic_no": "query_id", "passage": "doc_id", "judgement": "grade"}
    )

    assert_frame_equal(labels.collect(), labels_frame([("007", "0042", 3.0), ("007", "9", 0.5)]))


def test_tsv_gzipped_with_aliases(tmp_path: Path) -> None:
    text = "qid\tdocid\trank\tscore\trun_id\n1\ta\t1\t9.5\tsys\n"
    path = write_bytes(tmp_path / "run.tsv.gz", gzip.compress(text.encode()))

    parsed = read(path)

    assert parsed.format == "tsv"
    assert parsed.stem == "run"
    assert parsed.run is not None
    assert parsed.run.collect().rows() == [("1", "a", 1, 9.5, "sys")]


def test_csv_uncastable_column_names_column_and_source(tmp_path: Path) -> None:
    path = write_text(tmp_path / "bad.csv", "qid,docid,score\n1,a,0.5\n1,b,high\n")

    with pytest.raises(InputFormatError, match=r"bad\.csv, row 2: column 'score' value 'high'"):
        read(path)


def test_csv_missing_column_lists_columns_found(tmp_path: Path) -> None:
    path = write_text(tmp_path / "nogrades.csv", "qid,docid\n1,a\n")

    with pytest.raises(
        InputFormatError,
        match=r"nogrades\.csv: missing column 'grade' for labels; found columns \['qid', 'docid'\]",
    ):
        scan_labels(path)
    with pytest.raises(InputFormatError, match=r"missing column 'rank' or 'score' for a run"):
        read(path)


def test_column_mapping_must_name_canonical_columns() -> None:
    frame = pl.DataFrame({"q": ["1"], "d": ["a"], "s": [1.0]})

    with pytest.raises(ParameterError, match="'columns' parameter maps 's' to 'points'"):
        read(frame, columns={"s": "points"})
    with pytest.raises(InputFormatError, match="column 'nope' named in 'columns' is not in"):
        read(frame, columns={"nope": "score"})


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda d: pl.DataFrame(d), "<polars.DataFrame>"),
        (lambda d: pl.DataFrame(d).lazy(), "<polars.LazyFrame>"),
        (lambda d: pd.DataFrame(d), "<pandas.DataFrame>"),
        (lambda d: pa.table(d), "<pyarrow.Table>"),
    ],
)
def test_in_memory_frames(make: object, name: str) -> None:
    data = {"qid": [301, 302], "docno": ["a", "b"], "rel": [1, 0]}

    parsed = read(make(data))  # type: ignore[operator]

    assert parsed.source == name
    assert parsed.stem is None
    assert parsed.format == "frame"
    assert parsed.labels is not None
    assert_frame_equal(
        parsed.labels.collect(), labels_frame([("301", "a", 1.0), ("302", "b", 0.0)])
    )


def test_frame_with_non_integral_float_rank_is_refused() -> None:
    frame = pd.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "rank": [1.0, 2.5]})

    with pytest.raises(InputFormatError, match=r"<pandas\.DataFrame>, row 2: column 'rank'"):
        scan_run(frame)


def test_frame_with_float_ids_is_refused() -> None:
    frame = pl.DataFrame({"qid": [1.0], "docid": ["a"], "score": [1.0]})

    with pytest.raises(InputFormatError, match=r"column 'qid' .*has dtype Float64"):
        read(frame)
