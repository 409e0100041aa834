"""A retriever evaluation service's conventions (seed 004), through the public API and CLI.

Its dataset JSON (``queries`` with ``relevant_documents`` and optional
``relevance_scores``) and its rules; metrics at each of ``k_values`` with bare names
(precision, recall, f1, f2, ndcg, map, mrr) and a by-k table; response keys such as
``precision_at_5``; a relative delta beside each difference. Expected values are computed
here from the formulas the service states (P = rel in top K / K, R = rel in top K / total
relevant, F_beta = (1 + b^2) P R / (b^2 P + R), reciprocal rank, graded nDCG).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

import rankset
from rankset.cli import main
from rankset.errors import InputFormatError

DATASET = {
    "dataset_name": "product-search-golden",
    "queries": [
        {
            "query_id": "q1",
            "query_input": {"query": "wireless earbuds"},
            "relevant_documents": ["doc_a1", "doc_a2", "doc_a3"],
            "relevance_scores": {"doc_a1": 5, "doc_a2": 3, "doc_a3": 2},
        },
        {
            "query_id": "q2",
            "query_input": {"query": "noise canceling headphones"},
            "relevant_documents": ["doc_b1", "doc_b4", "doc_b7"],
        },
    ],
}
RUN = {
    "q1": {"doc_a2": 0.9, "doc_x": 0.8, "doc_a1": 0.7, "doc_y": 0.6, "doc_z": 0.5},
    "q2": {"doc_b4": 0.9, "doc_b1": 0.8, "doc_w": 0.7},
}


def _dataset(tmp_path: Path, dataset: dict[str, object] = DATASET) -> Path:
    path = tmp_path / "golden.json"
    path.write_text(json.dumps(dataset), encoding="utf-8")
    return path


def _f(beta: float, p: float, r: float) -> float:
    return 0.0 if p + r == 0 else (1 + beta**2) * p * r / (beta**2 * p + r)


def test_k_values_with_bare_names_give_the_by_k_table(tmp_path: Path) -> None:
    names = ["precision", "recall", "f1", "f2", "ndcg", "map", "mrr"]
    res = rankset.evaluate(RUN, _dataset(tmp_path), names, ks=[1, 5, 10, 20], confidence=None)
    table = {row["k"]: row for row in res.by_k().iter_rows(named=True)}
    assert sorted(table) == [1, 5, 10, 20]
    # q1: relevant at 1 (a2) and 3 (a1) of 3; q2: at 1 and 2 of 3
    hits = {"q1": [1, 3], "q2": [1, 2]}
    for k, row in table.items():
        p = {q: sum(pos <= k for pos in h) / k for q, h in hits.items()}
        r = {q: sum(pos <= k for pos in h) / 3 for q, h in hits.items()}
        assert row["precision"] == pytest.approx(sum(p.values()) / 2)
        assert row["recall"] == pytest.approx(sum(r.values()) / 2)
        assert row["f1"] == pytest.approx(sum(_f(1, p[q], r[q]) for q in hits) / 2)
        assert row["f2"] == pytest.approx(sum(_f(2, p[q], r[q]) for q in hits) / 2)
        assert row["rr"] == pytest.approx(1.0)
    # graded nDCG@5 on q1 (gains 5, 3, 2): DCG = 3 + 5/log2(4); ideal 5 + 3/log2(3) + 2/2
    q1 = (3 + 5 / 2) / (5 + 3 / math.log2(3) + 2 / 2)
    q2 = (1 + 1 / math.log2(3)) / (1 + 1 / math.log2(3) + 1 / 2)
    assert table[5]["ndcg"] == pytest.approx((q1 + q2) / 2)


def test_response_keys_are_names() -> None:
    for key, name in (("precision_at_5", "precision@5"), ("ndcg_at_10", "ndcg@10"),
                      ("f2_at_20", "f2@20"), ("recall_at_k", "recall@k")):  # fmt: skip
        assert rankset.parse_metric(key).name == name


def test_the_datasets_own_rules_are_enforced(tmp_path: Path) -> None:
    empty = {"queries": [{"query_id": "q3", "relevant_documents": []}]}
    with pytest.raises(InputFormatError, match=r"query 'q3' \(#1\): no relevant document"):
        rankset.evaluate(RUN, _dataset(tmp_path, empty), ["rr"])
    partial = {
        "queries": [
            {"query_id": "q1", "relevant_documents": ["a", "b"], "relevance_scores": {"a": 2}}
        ]
    }
    with pytest.raises(InputFormatError, match="does not grade 'b'; when given it must cover"):
        rankset.evaluate(RUN, _dataset(tmp_path, partial), ["rr"])


def test_the_datasets_rules_can_be_downgraded_to_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = {
        "queries": [
            {"query_id": "q1", "relevant_documents": ["doc_a1", "doc_x"],
             "relevance_scores": {"doc_a1": 2}},
            {"query_id": "q2", "relevant_documents": []},
        ]
    }  # fmt: skip
    path = _dataset(tmp_path, broken)
    with pytest.warns(rankset.RanksetWarning, match=r"2 of 2 queries break the dataset's rules"):
        res = rankset.evaluate(
            RUN, path, ["recall@5", "rr"], dataset_checks="warn", confidence=None
        )
    got = {(q, m): v for q, m, v in res.per_query.select("query_id", "metric", "value").rows()}
    # q1: doc_x (ungraded, so grade 1) at rank 2 and doc_a1 at rank 3 of 2 relevant.
    assert got[("q1", "recall@5")] == 1.0
    assert got[("q1", "rr")] == 0.5
    # q2: no relevant document, scored 0 and counted rather than dropped.
    assert got[("q2", "recall@5")] == 0.0
    assert got[("q2", "rr")] == 0.0
    assert res.query_counts["n_scored"].to_list() == [2]
    run = tmp_path / "run.json"
    run.write_text(json.dumps(RUN), encoding="utf-8")
    args = ["evaluate", str(run), "--qrels", str(path), "-m", "rr"]
    assert main(args) != 0
    assert "query 'q1' (#1): relevance_scores does not grade 'doc_x'" in capsys.readouterr().err
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # the suite makes warnings errors; a user's does not
        assert main([*args, "--dataset-checks", "warn"]) == 0
    out, err = capsys.readouterr()
    assert "2 of 2 queries break the dataset's rules" in err
    assert "First, query 'q1' (#1): relevance_scores does not grade 'doc_x'" in err
    assert "0.2500" in out  # (0.5 + 0) / 2


def test_a_relative_delta_sits_beside_each_difference(tmp_path: Path) -> None:
    runs = {"baseline": RUN, "reranked": {"q1": {"doc_a1": 1.0, "doc_a2": 0.9}, "q2": RUN["q2"]}}
    res = rankset.evaluate(runs, _dataset(tmp_path), ["ndcg@10"], confidence=None)
    row = rankset.compare(res, "baseline", tests=["t"]).row(0, named=True)
    means = dict(res.summary.select("system", "mean").rows())
    expected = (means["reranked"] - means["baseline"]) / means["baseline"]
    assert row["relative_delta"] == pytest.approx(expected)


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run.trec"
    run.write_text(
        "".join(
            f"{q} Q0 {d} {i} {s} sys\n"
            for q, docs in RUN.items()
            for i, (d, s) in enumerate(docs.items(), start=1)
        ),
        encoding="utf-8",
    )
    args = ["evaluate", str(run), "--qrels", str(_dataset(tmp_path)), "-m", "precision"]
    assert main([*args, "-m", "recall", "--ks", "1,5", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["system", "k", "precision", "recall"]
    assert lines[2].split() == ["run", "1", "1.0000", "0.3333"]
    assert lines[3].split() == ["run", "5", "0.4000", "0.6667"]
    with pytest.raises(SystemExit) as raised:
        main([*args, "--ks", "0,5"])
    assert raised.value.code == 2
    assert "expected cutoffs >= 1" in capsys.readouterr().err
