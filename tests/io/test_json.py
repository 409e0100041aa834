"""Tests of rankset.io on JSON and JSONL: samples, golden sets, dataset JSON, records."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from _support.io_cases import EXPECTED_RUN, labels_frame, write_text
from rankset.errors import InputFormatError
from rankset.io import read, scan_run

SAMPLES = [
    {
        "id": "q-1",
        "input": {"question": "What is our refund window?"},
        "expected_output": ["doc-3", "doc-9"],
        "actual_output": {
            "retrieved": [{"id": "doc-7", "text": "30 days"}, {"id": "doc-3", "text": "x"}]
        },
        "metadata": {"k": 5},
        "expected_answer": "30 days",
    },
    {
        "id": 2,
        "expected_output": json.dumps({"doc-3": 3, "doc-9": 1.5}),
        "actual_output": json.dumps(["doc-9", "doc-1"]),
        "expected_answer": ["a", "b"],
    },
    {"query_id": "q-3", "expected_output": {"doc-4": 2}, "actual_output": ["doc-4"]},
]


def check_samples(parsed_source: object) -> None:
    parsed = read(parsed_source)  # type: ignore[arg-type]
    assert parsed.format == "samples"
    assert parsed.run is not None
    assert parsed.labels is not None
    assert parsed.cutoffs is not None
    assert parsed.answers is not None
    expected_run = pl.DataFrame(
        {
            "query_id": ["q-1", "q-1", "2", "2", "q-3"],
            "doc_id": ["doc-7", "doc-3", "doc-9", "doc-1", "doc-4"],
            "rank": [1, 2, 1, 2, 1],
            "score": [None] * 5,
            "system": [None] * 5,
            "text": ["30 days", "x", None, None, None],
        },
        schema={**EXPECTED_RUN.schema, "text": pl.String},
    )
    assert_frame_equal(parsed.run.collect(), expected_run)
    expected_labels = labels_frame(
        [
            ("q-1", "doc-3", 1.0),
            ("q-1", "doc-9", 1.0),
            ("2", "doc-3", 3.0),
            ("2", "doc-9", 1.5),
            ("q-3", "doc-4", 2.0),
        ]
    )
    assert_frame_equal(parsed.labels.collect(), expected_labels)
    assert parsed.cutoffs.collect().rows() == [("q-1", 5)]
    assert parsed.cutoffs.collect_schema()["k"] == pl.Int64
    assert parsed.answers.collect().rows() == [("q-1", "30 days"), ("2", "a"), ("2", "b")]


def test_samples_jsonl(tmp_path: Path) -> None:
    path = write_text(tmp_path / "samples.jsonl", "\n".join(json.dumps(s) for s in SAMPLES))
    check_samples(path)


def test_samples_json_list_and_wrapped_object(tmp_path: Path) -> None:
    check_samples(write_text(tmp_path / "list.json", json.dumps(SAMPLES, indent=2)))
    check_samples(write_text(tmp_path / "wrapped.json", json.dumps({"samples": SAMPLES})))


def test_samples_from_a_stream() -> None:
    check_samples(io.StringIO("\n".join(json.dumps(s) for s in SAMPLES)))


def test_samples_without_outputs_contribute_nothing(tmp_path: Path) -> None:
    lines = [{"id": "a", "expected_output": ["d1"]}, {"id": "b", "expected_output": None}]
    path = write_text(tmp_path / "only_labels.jsonl", "\n".join(json.dumps(x) for x in lines))

    parsed = read(path)

    assert parsed.run is None
    assert parsed.cutoffs is None
    assert parsed.answers is None
    assert parsed.labels is not None
    assert parsed.labels.collect().rows() == [("a", "d1", 1.0)]
    with pytest.raises(InputFormatError, match=r"only_labels\.jsonl: expected run"):
        scan_run(path)


def test_samples_run_has_no_text_column_without_texts(tmp_path: Path) -> None:
    path = write_text(tmp_path / "s.jsonl", json.dumps({"id": 1, "actual_output": ["x", "y"]}))

    run = scan_run(path).collect()

    assert run.columns == ["query_id", "doc_id", "rank", "score", "system"]
    assert run.rows() == [("1", "x", 1, None, None), ("1", "y", 2, None, None)]


def test_malformed_json_line_names_file_and_line(tmp_path: Path) -> None:
    good = json.dumps(SAMPLES[0])
    path = write_text(tmp_path / "broken.jsonl", f"{good}\n\n{{'id': 1}}\n")

    with pytest.raises(InputFormatError, match=r"broken\.jsonl, line 3: invalid JSON"):
        read(path)


def test_non_numeric_gain_names_the_line(tmp_path: Path) -> None:
    lines = [{"id": "a", "expected_output": ["d1"]}, {"id": "b", "expected_output": {"d": "hi"}}]
    path = write_text(tmp_path / "gains.jsonl", "\n".join(json.dumps(x) for x in lines))

    with pytest.raises(InputFormatError, match=r"gains\.jsonl, line 2: grade 'hi' is not a number"):
        read(path)


def test_rag_golden_set(tmp_path: Path) -> None:
    rows = [
        {"qid": 301, "doc_id": "d1", "grade_1_5": 5, "note": "decisive"},
        {"query_id": "302", "doc_id": "d2", "grade_1_5": 2},
    ]
    path = write_text(tmp_path / "golden.jsonl", "\n".join(json.dumps(r) for r in rows))

    parsed = read(path)

    assert parsed.format == "rag-gs"
    assert parsed.stem == "golden"
    assert parsed.labels is not None
    assert_frame_equal(
        parsed.labels.collect(), labels_frame([("301", "d1", 5.0), ("302", "d2", 2.0)])
    )


def test_dataset_json(tmp_path: Path) -> None:
    dataset = {
        "dataset_name": "golden",
        "queries": [
            {
                "query_id": "q1",
                "query_input": {"query": "wireless earbuds"},
                "relevant_documents": ["doc_a1", "doc_a2"],
                "relevance_scores": {"doc_a1": 5, "doc_a2": 3, "doc_a9": 1},
            },
            {"query_id": "q2", "relevant_documents": ["doc_b1"]},
        ],
    }
    path = write_text(tmp_path / "dataset.json", json.dumps(dataset))

    parsed = read(path)

    assert parsed.format == "dataset-json"
    assert parsed.labels is not None
    expected = labels_frame(
        [("q1", "doc_a1", 5.0), ("q1", "doc_a2", 3.0), ("q1", "doc_a9", 1.0), ("q2", "doc_b1", 1.0)]
    )
    assert_frame_equal(parsed.labels.collect(), expected)


def test_records_jsonl_run_and_labels(tmp_path: Path) -> None:
    run_rows = [{"qid": 1, "docno": "a", "score": 0.5}, {"qid": 1, "docno": "b", "score": 0.25}]
    label_rows = [{"topic": "1", "pid": 7, "rel": 2}]
    run_path = write_text(tmp_path / "run.ndjson", "\n".join(json.dumps(r) for r in run_rows))
    label_path = write_text(tmp_path / "labels.jsonl", "\n".join(json.dumps(r) for r in label_rows))

    run = read(run_path)
    labels = read(label_path)

    assert run.format == labels.format == "records-jsonl"
    assert run.run is not None
    assert run.run.collect().rows() == [("1", "a", None, 0.5, None), ("1", "b", None, 0.25, None)]
    assert labels.labels is not None
    assert labels.labels.collect().rows() == [("1", "7", 2.0)]


def test_records_jsonl_bad_number_names_the_line(tmp_path: Path) -> None:
    rows = [{"qid": 1, "docno": "a", "rank": 1}, {"qid": 1, "docno": "b", "rank": "two"}]
    path = write_text(tmp_path / "run.jsonl", "\n".join(json.dumps(r) for r in rows))

    with pytest.raises(InputFormatError, match=r"run\.jsonl, line 2: column 'rank' value 'two'"):
        read(path)
