"""Inputs as two source systems write them: {hypothesis, reference} records, camelCase samples.

The expected values are the systems' own worked examples: an evaluation API's recall@k
over JSON-serialised chunk lists (5 chunks retrieved, 3 relevant: 1.0 over the full list,
2/3 at k = 3; a batch at k = 3 gives 0.5, 1.0, 0.0), and the sample contract's keys in
camelCase scoring as in snake_case.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rankset

RETRIEVED = [
    "Paris is the capital of France.",
    "The Eiffel Tower was built in 1889.",
    "France is in Europe.",
    "The Louvre is in Paris.",
    "Napoleon was born in Corsica.",
]
REFERENCE = [
    "Paris is the capital of France.",
    "The Eiffel Tower was built in 1889.",
    "The Louvre is in Paris.",
]


def _records(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    path = tmp_path / "inputs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    return path


def _values(path: Path, metric: str) -> list[float]:
    res = rankset.evaluate(path, None, [metric], confidence=None)
    return res.per_query.sort("query_id")["value"].to_list()


def test_one_record_uses_the_whole_list_unless_k_is_given(tmp_path: Path) -> None:
    record = {"hypothesis": json.dumps(RETRIEVED), "reference": json.dumps(REFERENCE)}
    assert _values(_records(tmp_path, [record]), "recall_at_k") == [1.0]
    with_k = _records(tmp_path, [{**record, "k": 3}])
    assert _values(with_k, "recall_at_k") == pytest.approx([2 / 3])
    assert _values(with_k, "recall@5") == [1.0]  # a fixed cutoff overrides the record's


def test_the_batch_example(tmp_path: Path) -> None:
    batch = [
        (["Paris is the capital of France.", "France is in Europe.",
          "Napoleon was born in Corsica."],
         ["Paris is the capital of France.", "The Eiffel Tower was built in 1889."]),
        (["The sky is blue.", "Water is wet."], ["The sky is blue.", "Water is wet."]),
        (["Unrelated 1.", "Unrelated 2.", "Unrelated 3.", "The Louvre is in Paris."],
         ["The Louvre is in Paris."]),
    ]  # fmt: skip
    records = [{"hypothesis": json.dumps(h), "reference": json.dumps(r)} for h, r in batch]
    assert _values(_records(tmp_path, records), "recall@3") == [0.5, 1.0, 0.0]
    # lists given as lists, not strings, read the same
    plain = [{"hypothesis": h, "reference": r, "k": 3} for h, r in batch]
    assert _values(_records(tmp_path, plain), "recall_at_k") == [0.5, 1.0, 0.0]


def test_camel_case_sample_keys_read_as_snake_case(tmp_path: Path) -> None:
    snake = {"id": "s1", "actual_output": ["d2", "d1", "d3"], "expected_output": ["d1"]}
    camel = {"id": "s1", "actualOutput": ["d2", "d1", "d3"], "expectedOutput": ["d1"]}
    names = ["rr", "recall@2", "ndcg@3"]
    got = [
        rankset.evaluate(_records(tmp_path, [sample]), None, names, confidence=None)
        .per_query["value"]
        .to_list()
        for sample in (snake, camel)
    ]
    assert got[0] == got[1]
    assert got[0][0] == 0.5
