"""Inputs as two source systems write them: {hypothesis, reference} records, camelCase samples.

The expected values are the systems' own worked examples: an evaluation API's recall@k
over JSON-serialised chunk lists (5 chunks retrieved, 3 relevant: 1.0 over the full list,
2/3 at k = 3; a batch at k = 3 gives 0.5, 1.0, 0.0), and the sample contract's keys in
camelCase scoring as in snake_case.
"""

from __future__ import annotations

import json
import math
import sys
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


SAMPLES_YAML = """\
samples:
  - id: q-1
    input: { question: "What is our refund window?" }
    expected_output: ["doc-3", "doc-9"]        # binary relevance
    actual_output: ["doc-7", "doc-3", "doc-1", "doc-9", "doc-2"]
    metadata: { k: 5 }
  - id: q-2
    input: { question: "..." }
    expected_output: []
    actualOutput: {"retrieved": [{"id": "doc-7", "text": "..."}, {"id": "doc-3"}]}
    metadata: { k: 5 }
"""


def test_yaml_samples_and_the_worked_comparison(tmp_path: Path) -> None:
    path = tmp_path / "samples.yaml"
    path.write_text(SAMPLES_YAML, encoding="utf-8")
    names = ["retrieval-hit-at-k", "retrieval-recall-at-k", "retrieval-mrr", "retrieval-ndcg-at-k"]
    res = rankset.evaluate(path, None, names, confidence=None)
    q1 = dict(res.per_query.filter(query_id="q-1").select("metric", "value").rows())
    # the seed's worked comparison: hit 1, recall 1, RR 1/2, nDCG ~ 0.65
    ndcg = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert q1 == pytest.approx({"hit@k": 1.0, "recall@k": 1.0, "rr": 0.5, "ndcg@k": ndcg})
    # q-2 has no relevant document: scored 0 everywhere and counted, not dropped
    q2 = dict(res.per_query.filter(query_id="q-2").select("metric", "value").rows())
    assert q2 == {"hit@k": 0.0, "recall@k": 0.0, "rr": 0.0, "ndcg@k": 0.0}
    means = dict(res.summary.select("metric", "mean").rows())
    assert means["hit@k"] == 0.5
    assert means["rr"] == 0.25
    assert means["ndcg@k"] == pytest.approx(ndcg / 2)
    assert res.query_counts["n_scored"].to_list() == [2]


def test_a_gains_map_keys_are_the_relevant_set(tmp_path: Path) -> None:
    # The sample contract: an id -> gain map is the relevant set, its gains used by nDCG.
    # doc-3 (gain 0.5) at rank 2, doc-9 (gain 0.25) at rank 4, doc-1 (gain 0) at rank 3.
    sample = {
        "id": "q",
        "expected_output": {"doc-3": 0.5, "doc-9": 0.25, "doc-1": 0},
        "actual_output": ["doc-7", "doc-3", "doc-1", "doc-9", "doc-2"],
        "metadata": {"k": 3},
    }
    path = _records(tmp_path, [sample])
    names = ["hit@k", "recall@k", "rr", "ndcg@k", "precision@k"]
    res = rankset.evaluate(path, None, names, confidence=None)
    got = dict(res.per_query.select("metric", "value").rows())
    dcg = 0.5 / math.log2(3)  # within the top 3 only doc-3 has a gain
    ideal = 0.5 + 0.25 / math.log2(3)
    expected = {"hit@k": 1.0, "recall@k": 0.5, "rr": 0.5, "ndcg@k": dcg / ideal}
    assert got == pytest.approx({**expected, "precision@k": 1 / 3})
    assert res.config["relevance_level"] == 0.25
    # A level given by the caller wins: at 0.5 doc-9 is not relevant.
    strict = rankset.evaluate(path, None, ["recall@k"], relevance_level=0.5, confidence=None)
    assert strict.per_query["value"].to_list() == [1.0]
    # A map on a 0-3 scale keeps the default level of 1 (gain 0 is not relevant).
    graded = {**sample, "expected_output": {"doc-3": 3, "doc-9": 1, "doc-1": 0}}
    res = rankset.evaluate(_records(tmp_path, [graded]), None, ["recall@k"], confidence=None)
    assert res.per_query["value"].to_list() == [0.5]
    assert res.config["relevance_level"] == 1


def test_yaml_without_pyyaml_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "samples.yml"
    path.write_text(SAMPLES_YAML, encoding="utf-8")
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml now fails
    with pytest.raises(rankset.MissingDependencyError, match=r"rankset\[yaml\]"):
        rankset.evaluate(path, None, ["rr"])


def test_bad_yaml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("samples: [unclosed\n", encoding="utf-8")
    with pytest.raises(rankset.InputFormatError, match=r"broken\.yaml: not valid YAML"):
        rankset.evaluate(path, None, ["rr"])


def test_runs_of_chunks_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankset.cli import main

    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(
        "\n".join(
            json.dumps({"query_id": "q1", "text": text, "rank": rank})
            for rank, text in enumerate(RETRIEVED[:3], start=1)
        ),
        encoding="utf-8",
    )
    gold = tmp_path / "gold.csv"
    gold.write_text(
        "query_id,text\n" + "".join(f'q1,"{text}"\n' for text in REFERENCE), encoding="utf-8"
    )
    args = ["evaluate", str(chunks), "--gold", str(gold), "-m", "recall@3", "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    (row,) = json.loads(captured.out)
    assert row["mean"] == pytest.approx(2 / 3)  # two of the three reference chunks
    assert "chunks: 2 of 3 chunks matched a gold text" in captured.err
    assert main([*args, "--qrels", str(gold)]) == 2
