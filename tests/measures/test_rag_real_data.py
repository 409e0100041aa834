"""RAG set metrics on real TREC DL19 runs: BM25 and RankVicuna's reranking of its top-100.

The reranking holds exactly BM25's candidates, so the pool ceiling (PROC) is the same for
both and only the selection (%PROC) may change. Every per-query value is also compared
with the plain-Python reference of ``tests/_support/rag_reference.py`` on the same files.
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from pathlib import Path

import pytest

from _support.rag_reference import Value, assert_same_values, rankset_values, reference_evaluate

QRELS = "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz"
RUNS = {
    "bm25": "rank_llm_dl_runs/first_stage/bm25.dl19.trec.gz",
    "rankvicuna": "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-bm25.dl19.trec.gz",
}
CUTOFFS = (5, 10, 20)
MEASURES = (
    "ra_nwg",
    "proc",
    "pct_proc",
    "n_recall_4plus",
    "n_recall_5",
    "precision_4plus",
    "harm",
    "harm(unjudged=1)",
)
METRICS = [f"{measure}@{k}" for k in CUTOFFS for measure in MEASURES]

Key = tuple[str, str, str]


def read_qrels(path: Path) -> dict[str, dict[str, float]]:
    """``qid 0|Q0 docid grade`` lines -> {qid: {docid: grade}}."""
    labels: dict[str, dict[str, float]] = defaultdict(dict)
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                query, _, doc, grade = line.split()
                labels[query][doc] = float(grade)
    return dict(labels)


def read_trec_run(path: Path) -> dict[str, dict[str, float]]:
    """``qid Q0 docid rank score tag`` lines -> {qid: {docid: score}}."""
    run: dict[str, dict[str, float]] = defaultdict(dict)
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                query, _, doc, _, score, _ = line.split()
                assert doc not in run[query]
                run[query][doc] = float(score)
    return dict(run)


@pytest.fixture(scope="module")
def dl19(shared_data: Path) -> tuple[dict[Key, Value], dict[Key, Value]]:
    """(rankset's values, the reference's values) for both runs, trec_dl scale."""
    paths = {name: shared_data / relative for name, relative in RUNS.items()}
    got = rankset_values(paths, shared_data / QRELS, METRICS, scale="trec_dl")
    runs = {name: read_trec_run(path) for name, path in paths.items()}
    want = reference_evaluate(runs, read_qrels(shared_data / QRELS), METRICS, scale="trec_dl")
    return got, want


def test_every_value_equals_the_reference(dl19: tuple[dict[Key, Value], dict[Key, Value]]) -> None:
    got, want = dl19
    assert {query for _, query, _ in want} == {query for _, query, _ in got}
    assert len({query for _, query, _ in want}) == 43
    assert_same_values(got, want)


@pytest.mark.parametrize("k", CUTOFFS)
def test_rerank_keeps_proc(dl19: tuple[dict[Key, Value], dict[Key, Value]], k: int) -> None:
    got, _ = dl19
    queries = sorted({query for _, query, _ in got})
    bm25 = [got["bm25", query, f"proc@{k}"] for query in queries]
    rerank = [got["rankvicuna", query, f"proc@{k}"] for query in queries]
    assert bm25 == rerank
    assert all(value is not None for value in bm25)


@pytest.mark.parametrize("k", CUTOFFS)
def test_rerank_changes_pct_proc(dl19: tuple[dict[Key, Value], dict[Key, Value]], k: int) -> None:
    got, _ = dl19
    queries = sorted({query for _, query, _ in got})
    changed = [
        query
        for query in queries
        if got["bm25", query, f"pct_proc@{k}"] != got["rankvicuna", query, f"pct_proc@{k}"]
    ]
    assert len(changed) > 0
