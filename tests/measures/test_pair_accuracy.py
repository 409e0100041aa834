"""pair_accuracy (ir_measures' Accuracy) on rankings worked out by hand."""

from __future__ import annotations

import pytest

import rankset

# ir_measures' tests/test_accuracy.py case: rankings by score, relevant at grade >= 1
RUN = {
    "0": {"C0_1": 0.4, "A0_1": 0.3, "C0_2": 0.2, "C0_3": 0.1},
    "1": {"C1_1": 0.8, "A1_1": 0.7, "C1_2": 0.6, "B1_1": 0.5, "C1_3": 0.4},
    "2": {"B1_1": 0.2, "C1_1": 0.1},
    "3": {"x": 1.0, "y": 0.5},  # labelled, nothing relevant retrieved: NA
    "4": {"r": 1.0},  # only a relevant document: no pair, NA
}
LABELS = {
    "0": {"C0_1": 0, "B0_1": 1, "A0_1": 2},
    "1": {"A1_1": 2, "A1_2": 2, "B1_1": 1, "C1_2": 0},
    "2": {"B1_1": 1},
    "3": {"z": 1},
    "4": {"r": 2},
}


def _values(metric: str) -> dict[str, float | None]:
    result = rankset.evaluate(RUN, LABELS, [metric])
    return dict(result.per_query.select("query_id", "value").rows())


def test_share_of_pairs_ranked_relevant_first() -> None:
    # q0: A0_1 (2nd) has 1 non-relevant above it of 3 -> 1 - 1/3
    # q1: A1_1 (2nd) and B1_1 (4th) have 1 and 2 above of 3 -> 1 - 3/6
    # q2: B1_1 first of 1 non-relevant -> 1
    assert _values("pair_accuracy") == pytest.approx(
        {"0": 2 / 3, "1": 0.5, "2": 1.0, "3": None, "4": None}
    )


def test_the_level_and_the_cutoff() -> None:
    # rel=2: q1's A1_1 alone is relevant, 1 of its 4 non-relevant above it -> 0.75
    assert _values("pair_accuracy(rel=2)") == pytest.approx(
        {"0": 2 / 3, "1": 0.75, "2": None, "3": None, "4": None}
    )
    # top 2: q0 and q1 rank their non-relevant document first -> 0
    assert _values("pair_accuracy@2") == pytest.approx(
        {"0": 0.0, "1": 0.0, "2": 1.0, "3": None, "4": None}
    )


def test_ir_measures_name_is_an_alias() -> None:
    assert _values("Accuracy") == _values("pair_accuracy")
