"""``read_sampled_qrels``: NIST's sampled qrels, ``topic iter doc stratum rel``."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import polars as pl
import pytest

from rankset.errors import InputFormatError
from rankset.io import SAMPLED_QRELS_SCHEMA, read, read_sampled_qrels
from rankset.schema import normalize_labels


def test_reads_strata_and_unsampled_labels(tmp_path: Path) -> None:
    path = tmp_path / "qrels.gz"
    path.write_bytes(gzip.compress(b"# sampled\n401 0 d1 1 2\n\n401\t0  d2 10 -1\n402 0 d1 2 0\n"))
    labels = read_sampled_qrels(path)
    assert labels.schema == SAMPLED_QRELS_SCHEMA
    assert labels.rows() == [
        ("401", "d1", 2.0, "1"),
        ("401", "d2", -1.0, "10"),
        ("402", "d1", 0.0, "2"),
    ]


def test_relabel_maps_grade_text_before_reading_it() -> None:
    text = "1 0 a s 1\n1 0 b s 2\n1 0 c s -1\n"
    labels = read_sampled_qrels(io.StringIO(text), relabel={"2": "10", "1": "0.5"})
    assert labels["grade"].to_list() == [0.5, 10.0, -1.0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 0 a s 1\n1 0 b 1\n", r"<stream>, line 2: expected 5 fields .* found 4"),
        ("1 0 a s 1 extra\n", r"line 1: expected 5 fields .* found 6"),
        ("1 0 a s x\n", r"line 1: the grade 'x' is not a finite number"),
        ("1 0 a s nan\n", r"line 1: the grade 'nan' is not a finite number"),
    ],
)
def test_a_bad_line_is_named(text: str, message: str) -> None:
    with pytest.raises(InputFormatError, match=message):
        read_sampled_qrels(io.StringIO(text))


def test_a_table_keeps_its_stratum_column_through_normalisation() -> None:
    table = pl.DataFrame(
        {"qid": ["q", "q"], "docno": ["a", "b"], "rel": [1, -1], "stratum": [1, 2]}
    )
    labels = read(table, kind="labels").labels
    assert labels is not None
    normalized = normalize_labels(labels).collect()
    assert normalized.columns == ["query_id", "doc_id", "grade", "stratum"]
    assert normalized["stratum"].to_list() == ["1", "2"]
    assert normalize_labels(labels.drop("stratum")).collect().width == 3
