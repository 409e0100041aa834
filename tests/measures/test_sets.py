"""trec_eval's set measures on a case computed by hand (trec_eval 10.0's formulas).

Their agreement with trec_eval itself is in tests/parity (its test outputs, 18 DL19 runs
through trec_eval 10.0 built from source, and pytrec_eval on random data).
"""

from __future__ import annotations

import pytest

import rankset

# 5 retrieved: d1 (grade 2), d2 (0), d3 (unlabelled), d4 (-1: in the pool, unjudged),
# d5 (1). Labels hold 4 relevant documents at level 1 (d1, d5, d8, d9).
RUN = {"q": {"d1": 5.0, "d2": 4.0, "d3": 3.0, "d4": 2.0, "d5": 1.0}}
LABELS = {"q": {"d1": 2, "d2": 0, "d4": -1, "d5": 1, "d8": 1, "d9": 3}}


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("set_P", 2 / 5),  # 2 relevant of 5 retrieved
        ("set_recall", 2 / 4),  # 2 of the 4 relevant
        ("set_relative_P", 2 / 4),  # 2 / min(5 retrieved, 4 relevant)
        ("set_map", 2 * 2 / (5 * 4)),
        ("set_F", 2 * 0.4 * 0.5 / (0.4 + 0.5)),  # x = 1
        ("set_f(x=0.5)", 1.5 * 0.4 * 0.5 / (0.5 * 0.4 + 0.5)),  # x is not squared
        ("num_nonrel_judged_ret", 1.0),  # d2 only: d3 unlabelled, d4 unjudged
        ("set_p(rel=2)", 1 / 5),  # level 2: d1 only
    ],
)
def test_set_measures_by_hand(metric: str, expected: float) -> None:
    value = rankset.evaluate(RUN, LABELS, [metric], confidence=None).per_query["value"]
    assert value.to_list() == [pytest.approx(expected, abs=1e-15)]


def test_an_empty_ranking_scores_zero_as_in_trec_eval_minus_c() -> None:
    # q2 is labelled but not retrieved; with missing="zero" it counts as an empty ranking.
    labels = {**LABELS, "q2": {"d1": 1}}
    metrics = ["set_P", "set_recall", "set_relative_P", "set_map", "set_F"]
    result = rankset.evaluate(RUN, labels, metrics, missing="zero", confidence=None)
    empty = result.per_query.filter(result.per_query["query_id"] == "q2")
    assert empty["value"].to_list() == [0.0] * len(metrics)


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("relative_P@2", 1 / 2),  # d1 relevant, d2 not; min(2, 4 relevant) = 2
        ("relative_P@5", 2 / 4),  # 2 relevant in the top 5; min(5, 4) = 4
        ("relative_P@10", 2 / 4),  # beyond the 5 retrieved: still 2 of min(10, 4)
        ("relative_p(rel=3)@5", 0 / 1),  # level 3: d9 only, not retrieved
    ],
)
def test_relative_precision_by_hand(metric: str, expected: float) -> None:
    value = rankset.evaluate(RUN, LABELS, [metric], confidence=None).per_query["value"]
    assert value.to_list() == [pytest.approx(expected, abs=1e-15)]


def test_relative_precision_without_a_relevant_label_is_zero() -> None:
    labels = {"q": {"d1": 0}}
    value = rankset.evaluate(RUN, labels, ["relative_P@5"], confidence=None).per_query["value"]
    assert value.to_list() == [0.0]
