"""Tests of MS MARCO's three-field runs and the TREC 2025 RAG qrels' confidence field."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.errors import InputFormatError
from rankset.io import read, scan_labels, scan_run

# MS MARCO's run layout: qid, docid, rank; tab-separated; no score, no Q0, no tag.
MSMARCO_TEXT = "1048585\t7187158\t1\n1048585\t7187157\t2\n1048585\t7187160\t3\n2\t0042\t1\n"
TREC_EQUIVALENT = (
    "1048585 Q0 7187158 1 3.0 x\n1048585 Q0 7187157 2 2.0 x\n"
    "1048585 Q0 7187160 3 1.0 x\n2 Q0 0042 1 1.0 x\n"
)
QRELS = "1048585 0 7187157 1\n1048585 0 7187160 2\n2 0 0042 1\n"
# TREC 2025 RAG: qid iter docid grade confidence.
RAG_QRELS = "1048585 0 7187157 1 0.9\n1048585 0 7187160 2 0.25\n2 0 0042 1 1\n"


def test_msmarco_run_reads_as_a_run_ordered_by_rank(tmp_path: Path) -> None:
    path = tmp_path / "run.dev.small.tsv.txt"
    path.write_text(MSMARCO_TEXT)

    parsed = read(path)

    assert parsed.format == "trec"
    assert parsed.labels is None
    assert parsed.run is not None
    run = parsed.run.collect()
    assert run.columns == ["query_id", "doc_id", "rank", "score", "system"]
    assert run.rows()[:2] == [
        ("1048585", "7187158", 1, None, None),
        ("1048585", "7187157", 2, None, None),
    ]
    assert run["doc_id"][-1] == "0042"  # ids stay text


def test_msmarco_run_from_a_stream_gzip_and_with_spaces(tmp_path: Path) -> None:
    path = tmp_path / "run.msmarco.gz"
    path.write_bytes(gzip.compress(MSMARCO_TEXT.encode()))
    expected = scan_run(path).collect()
    spaced = scan_run(io.StringIO(MSMARCO_TEXT.replace("\t", " "))).collect()
    assert_frame_equal(spaced, expected)
    assert expected.height == 4


def test_msmarco_run_evaluates_as_the_same_ranking_in_trec_layout(tmp_path: Path) -> None:
    msmarco = tmp_path / "bm25"
    msmarco.write_text(MSMARCO_TEXT)
    trec = tmp_path / "bm25.trec"
    trec.write_text(TREC_EQUIVALENT)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    metrics = ["ndcg@10", "rr", "ap"]

    got = rankset.evaluate(msmarco, qrels, metrics, confidence=None).summary
    want = rankset.evaluate(trec, qrels, metrics, confidence=None).summary

    assert got["system"].to_list() == ["bm25"] * 3  # no tag: named after the file
    assert_frame_equal(got.drop("system"), want.drop("system"))


def test_a_three_field_line_with_a_rank_that_is_not_an_integer_is_not_msmarco() -> None:
    with pytest.raises(InputFormatError, match=r"line 1: expected 6 .*found 3: 'q1 d1 x'"):
        read(io.StringIO("q1 d1 x\n"))


def test_a_three_field_file_read_as_labels_is_an_error() -> None:
    with pytest.raises(InputFormatError, match=r"expected 4 whitespace-separated fields"):
        scan_labels(io.StringIO(MSMARCO_TEXT))


def test_an_msmarco_file_with_a_bad_later_line_names_it() -> None:
    with pytest.raises(InputFormatError, match=r"line 3: rank 'three' is not an integer"):
        read(io.StringIO("q1\td1\t1\nq1\td2\t2\nq1\td3\tthree\n"))
    with pytest.raises(InputFormatError, match=r"line 2: expected 3 whitespace-separated"):
        read(io.StringIO("q1\td1\t1\nq1 Q0 d2 2 1.0 x\n"))


def test_six_and_four_field_files_are_unchanged() -> None:
    assert read(io.StringIO(TREC_EQUIVALENT)).run is not None
    assert read(io.StringIO(QRELS)).labels is not None
    assert "confidence" not in scan_labels(io.StringIO(QRELS)).collect_schema().names()


def test_rag_qrels_keep_the_confidence_column(tmp_path: Path) -> None:
    path = tmp_path / "qrels.rag25.txt"
    path.write_text(RAG_QRELS)

    labels = scan_labels(path).collect()

    expected = pl.DataFrame(
        {
            "query_id": ["1048585", "1048585", "2"],
            "doc_id": ["7187157", "7187160", "0042"],
            "grade": [1.0, 2.0, 1.0],
            "confidence": [0.9, 0.25, 1.0],
        }
    )
    assert_frame_equal(labels, expected)
    assert read(path).labels is not None  # found without kind="labels" too


def test_rag_qrels_evaluate_as_the_four_field_qrels_and_can_be_filtered(tmp_path: Path) -> None:
    run = tmp_path / "bm25.trec"
    run.write_text(TREC_EQUIVALENT)
    rag = scan_labels(io.StringIO(RAG_QRELS))
    metrics = ["ndcg@10", "p@2"]

    with_confidence = rankset.evaluate(run, rag, metrics, confidence=None).summary
    plain = rankset.evaluate(run, io.StringIO(QRELS), metrics, confidence=None).summary
    confident = rag.filter(pl.col("confidence") >= 0.5)
    filtered = rankset.evaluate(run, confident, metrics, confidence=None).summary

    assert_frame_equal(with_confidence, plain)
    assert filtered["mean"].to_list() != plain["mean"].to_list()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 0 d1 1 nan\n", r"line 1: a confidence that is not a finite number"),
        ("q1 0 d1 1 high\n", r"line 1: confidence 'high' is not a number"),
        ("q1 0 d1 x 0.5\n", r"line 1: grade 'x' is not a number"),
        ("q1 0 d1 1 0.5\nq1 0 d2 1\n", r"line 2: expected 5 whitespace-separated fields"),
        ("q1 Q0 d1 1 2.5\n", r"found 5: 'q1 Q0 d1 1 2\.5'; a run line needs a sixth field"),
    ],
)
def test_bad_rag_qrels_lines_are_named(text: str, message: str) -> None:
    with pytest.raises(InputFormatError, match=message):
        read(io.StringIO(text))


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_confidence_column_of_a_table_is_kept_with_the_labels(
    tmp_path: Path, suffix: str
) -> None:
    written = scan_labels(io.StringIO(RAG_QRELS)).collect()
    path = tmp_path / f"qrels{suffix}"
    if suffix == ".csv":
        written.write_csv(path)
    else:
        written.write_parquet(path)

    assert_frame_equal(scan_labels(path).collect(), written)


def test_a_run_table_drops_a_confidence_column(tmp_path: Path) -> None:
    frame = pl.DataFrame({"qid": ["q1"], "docid": ["d1"], "score": [1.0], "confidence": [0.5]})
    assert "confidence" not in scan_run(frame).collect_schema().names()


def test_a_confidence_column_can_be_mapped_and_must_be_finite(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {"qid": ["q1", "q1"], "docid": ["d1", "d2"], "rel": [1, 0], "p": ["0.5", "x"]}
    )
    with pytest.raises(
        InputFormatError, match=r"column 'p' \(confidence\) value 'x' is not a number"
    ):
        scan_labels(frame, columns={"p": "confidence"})
    path = tmp_path / "qrels.csv"
    path.write_text("qid,docid,rel,confidence\nq1,d1,1,nan\n")
    with pytest.raises(InputFormatError, match=r"row 1: a confidence that is not a finite number"):
        scan_labels(path)
