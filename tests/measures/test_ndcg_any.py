"""ndcg_any against a plain-Python transcription of the vendor's stated definition.

"Each retrieved document gets relevance 1 if it matches any gold doc, 0 otherwise; DCG =
rel[0] + sum(rel[i] / log2(i + 1)) for i = 1..k-1; the ideal DCG sorts all relevances in
descending order; NDCG = DCG / IDCG" (0-based i, so position p = i + 1 is divided by
log2(p)); and the vendor names RetrievalRecall, RetrievalRecallAll, RetrievalNDCGAny.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankset


def transcription(retrieved: list[str], gold: set[str], k: int) -> float:
    rel = [1.0 if doc in gold else 0.0 for doc in retrieved[:k]]

    def dcg(values: list[float]) -> float:
        if not values:
            return 0.0
        return values[0] + sum(values[i] / math.log2(i + 1) for i in range(1, len(values)))

    ideal = dcg(sorted(rel, reverse=True))
    return 0.0 if ideal == 0 else dcg(rel) / ideal


DOCS = [f"d{i}" for i in range(8)]


@settings(max_examples=80, deadline=None)
@given(
    ranking=st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True),
    gold=st.sets(st.sampled_from(DOCS), min_size=1, max_size=5),
    k=st.integers(1, 9),
)
def test_equals_the_transcription(ranking: list[str], gold: set[str], k: int) -> None:
    run = {"q": {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}}
    labels = {"q": {doc: 1 for doc in gold}}
    res = rankset.evaluate(run, labels, [f"ndcg_any@{k}"], confidence=None)
    assert res.per_query["value"][0] == pytest.approx(transcription(ranking, gold, k), abs=1e-12)


def test_the_issues_example_and_the_vendor_names() -> None:
    # gold [A], retrieved [x, A]: 1.0 by this definition, 0.6309 by trec_eval's nDCG
    res = rankset.evaluate(
        {"q": {"x": 2.0, "A": 1.0}}, {"q": {"A": 1}},
        ["RetrievalNDCGAny@2", "ndcg@2", "RetrievalRecall@2", "RetrievalRecallAll@1"],
        confidence=None,
    )  # fmt: skip
    got = dict(res.per_query.select("metric", "value").rows())
    assert got == pytest.approx(
        {"ndcg_any@2": 1.0, "ndcg@2": 1 / math.log2(3), "recall@2": 1.0, "recall_all@1": 0.0}
    )
