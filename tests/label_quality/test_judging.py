"""rankset.judging_queue: the unjudged documents of the systems' top k, heaviest first.

By hand on a small case (positions, weights, the queue's order, the per-system holes and
the unlabelled query that is counted, not listed); on the bundled sample, the judged
share equals the ``judged@10`` measure of ``rankset.evaluate`` (a separate code path)
and every queued document is unjudged and within some system's top 10.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

import rankset

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"


def test_by_hand() -> None:
    runs = {
        "a": {"q1": {"u": 3.0, "j": 2.0, "v": 1.0}, "q2": {"w": 1.0}, "q9": {"z": 1.0}},
        "b": {"q1": {"j": 3.0, "v": 2.0, "u": 1.0}, "q2": {"k": 1.0}},
    }
    labels = {"q1": {"j": 1}, "q2": {"k": 0}}  # q9 has no label at all
    result = rankset.judging_queue(runs, labels, k=2)
    holes = result.holes.rows(named=True)
    # a: q1 top 2 = u (unjudged), j (judged) -> 1/2; q2 = w (unjudged) -> 0/2
    assert holes[0] == {
        "system": "a",
        "k": 2,
        "n_queries": 2,
        "judged_at_k": pytest.approx((1 / 2 + 0) / 2),
        "n_unjudged": 2,
        "n_unlabelled_queries": 1,
    }
    # b: q1 top 2 = j, v -> 1/2; q2 = k -> 1/2
    assert holes[1]["judged_at_k"] == pytest.approx(0.5)
    assert holes[1]["n_unjudged"] == 1
    queue = {(q, d): (n, best, w) for q, d, n, best, w, _ in result.queue.rows()}
    # u: a at 1 (weight 1/log2(2) / 2 queries); v: b at 2 (1/log2(3) / 2); w: a at 1
    assert queue == {
        ("q1", "u"): (1, 1, pytest.approx(0.5)),
        ("q2", "w"): (1, 1, pytest.approx(0.5)),
        ("q1", "v"): (1, 2, pytest.approx(1 / math.log2(3) / 2)),
    }
    assert result.queue["doc_id"].to_list() == ["u", "w", "v"]  # heaviest, then by query


def test_the_judged_share_is_evaluates_judged_at_k() -> None:
    runs = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
    qrels = SAMPLE / "qrels.txt"
    result = rankset.judging_queue(runs, qrels, k=10)
    summary = rankset.evaluate(runs, qrels, ["judged@10"], confidence=None).summary
    expected = dict(summary.select("system", "mean").iter_rows())
    for system, share in result.holes.select("system", "judged_at_k").iter_rows():
        assert share == pytest.approx(expected[system], abs=1e-12)
    judged = pl.read_csv(
        qrels,
        separator=" ",
        has_header=False,
        new_columns=["query_id", "iter", "doc_id", "grade"],
        schema_overrides={"query_id": pl.String, "doc_id": pl.String},
    )
    queued = result.queue.select("query_id", "doc_id")
    assert queued.join(judged, on=["query_id", "doc_id"], how="semi").height == 0
    assert result.queue["best_pos"].max() <= 10
    assert result.queue["weight"].is_sorted(descending=True)


def test_the_queue_is_written_to_parquet_with_its_cutoff(tmp_path: Path) -> None:
    runs = {"a": {"q": {"y": 2.0, "x": 1.0}}}
    result = rankset.judging_queue(runs, {"q": {"x": 1}}, k=5)
    path = result.to_parquet(tmp_path / "queue.parquet")
    assert pl.read_parquet(path).equals(result.queue)
    assert '"k": 5' in pl.read_parquet_metadata(path)["rankset"]
