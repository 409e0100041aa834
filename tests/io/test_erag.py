"""``rankset.io.read_erag``: eRAG's per-document downstream scores as a run and labels."""

from __future__ import annotations

import gzip
import io
import json
import math
from pathlib import Path

import polars as pl
import pytest

import rankset
from rankset.errors import InputFormatError
from rankset.io import ERagTables, read_erag

DATA = Path(__file__).parents[1] / "data" / "erag"


def test_mapping_of_score_lists_numbers_documents_by_position() -> None:
    run, labels = read_erag({"q1": [0.25, 1, 0.0], "q2": [True]}, system="gen")
    assert run.schema == pl.Schema(
        {
            "system": pl.String,
            "query_id": pl.String,
            "doc_id": pl.String,
            "rank": pl.Int64,
            "score": pl.Float64,
        }
    )
    # eRAG's own run: the document at position i of n scores n - i
    assert run.rows() == [
        ("gen", "q1", "0", 1, 3.0),
        ("gen", "q1", "1", 2, 2.0),
        ("gen", "q1", "2", 3, 1.0),
        ("gen", "q2", "0", 1, 1.0),
    ]
    assert labels.schema == pl.Schema(
        {"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64}
    )
    assert labels.rows() == [
        ("q1", "0", 0.25),
        ("q1", "1", 1.0),
        ("q1", "2", 0.0),
        ("q2", "0", 1.0),
    ]


def test_document_ids_keep_list_order() -> None:
    tables = read_erag({"q": {"doc_ids": ["z", "a", 7], "scores": [0.1, 0.9, 0.5]}})
    assert isinstance(tables, ERagTables)
    assert tables.run.select("doc_id", "rank").rows() == [("z", 1), ("a", 2), ("7", 3)]
    assert tables.labels["grade"].to_list() == [0.1, 0.9, 0.5]
    # The evaluation ranks them in list order (scores n - i), not by id.
    result = rankset.evaluate(tables.run, tables.labels, ["dcg@1", "dcg@2"], confidence=None)
    values = dict(result.per_query.select("metric", "value").rows())
    assert values["dcg@1"] == 0.1
    assert values["dcg@2"] == pytest.approx(0.1 + 0.9 / math.log2(3), abs=1e-12)


def test_json_file_gzip_and_stream(tmp_path: Path) -> None:
    scores = {"q1": [0.5, 0.0], "q2": [1.0]}
    expected = read_erag(scores)
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(scores), encoding="utf-8")
    zipped = tmp_path / "scores.json.gz"
    zipped.write_bytes(gzip.compress(path.read_bytes()))
    for source in (path, str(zipped), io.BytesIO(path.read_bytes())):
        got = read_erag(source)
        assert got.run.equals(expected.run)
        assert got.labels.equals(expected.labels)


def test_json_lines_records(tmp_path: Path) -> None:
    path = tmp_path / "scores.jsonl"
    lines = [
        {"query_id": "q1", "scores": [0.5, 0.0]},
        {"qid": 2, "doc_ids": ["a", "b"], "scores": [0, 1]},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    run, labels = read_erag(path)
    assert labels.rows() == [("q1", "0", 0.5), ("q1", "1", 0.0), ("2", "a", 0.0), ("2", "b", 1.0)]
    assert run["rank"].to_list() == [1, 2, 1, 2]
    # one record alone is a JSON document, not a mapping of queries
    path.write_text(json.dumps(lines[0]), encoding="utf-8")
    assert read_erag(path).labels.rows() == [("q1", "0", 0.5), ("q1", "1", 0.0)]


def test_committed_example_scores_read() -> None:
    expected = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))
    scores = expected["cases"]["f1"]["scores"]
    run, labels = read_erag(scores)
    assert labels.height == run.height == sum(len(s) for s in scores.values())
    assert labels["grade"].to_list() == [s for q in scores for s in scores[q]]


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ({"q": [0.5, 1.5]}, r"<mapping>, query 'q': score 2 is 1.5; eRAG's downstream"),
        ({"q": [-0.1]}, r"query 'q': score 1 is -0.1; eRAG's"),
        ({"q": [float("nan")]}, r"score 1 is nan"),
        ({"q": ["0.5"]}, r"query 'q': score 1 is '0.5', not a number"),
        ({"q": []}, r"query 'q': no documents"),
        ({"q": 0.5}, r"query 'q': expected a list of scores, found float"),
        ({"q": {"doc_ids": ["a"], "scores": [0.1, 0.2]}}, r"1 doc_ids for 2 scores"),
        ({"q": {"doc_ids": ["a", "a"], "scores": [0.1, 0.2]}}, r"document 'a' is listed twice"),
        ({"q": {"doc_ids": [None], "scores": [0.1]}}, r"a document id must be a string"),
        ({"q": {"doc_ids": "ab", "scores": [0.1, 0.2]}}, r"expected doc_ids to be a list"),
    ],
)
def test_errors_name_the_query(scores: object, message: str) -> None:
    with pytest.raises(InputFormatError, match=message):
        read_erag(scores)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"query_id": "q1", "scores": [0.5]}\n{"scores": [0.5]}\n', r"line 2: expected a JSON"),
        (
            '{"query_id": "q1", "scores": [0.5]}\n{"query_id": "q1", "scores": [1]}\n',
            r"line 2: query 'q1' appears on an earlier line too",
        ),
        (
            '{"query_id": "q1", "scores": [0.5]}\n{"query_id": "q2", "scores": [2]}\n',
            r"line 2, query 'q2': score 1 is 2",
        ),
        ("[0.5, 1.0]", r"expected a JSON object"),
        ("\n\n", r"the file is empty"),
        ('{"query_id": "q1", "scores": [0.5]}\n{"query_id": \n', r"line 2: invalid JSON"),
    ],
)
def test_file_errors_name_the_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "scores.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFormatError, match=message) as error:
        read_erag(path)
    assert str(path) in str(error.value)


def test_other_sources_are_refused() -> None:
    with pytest.raises(InputFormatError, match="read_erag reads a mapping"):
        read_erag(42)  # type: ignore[arg-type]
    with pytest.raises(InputFormatError, match="file not found"):
        read_erag("/nonexistent/scores.json")
