"""rankset.testing: the comparison fails when it should; the strategies draw what they say."""

from __future__ import annotations

import dataclasses

import polars as pl
import pytest
from hypothesis import given, settings

import rankset
from rankset.testing import assert_results_equal
from rankset.testing.strategies import DOC_IDS, Collection, collections

RUN = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "d": 1.0}}
LABELS = {"q1": {"b": 1}, "q2": {"d": 2}}


def test_equal_results_pass_and_one_changed_bit_fails() -> None:
    result = rankset.evaluate(RUN, LABELS, ["ndcg@10", "rr"])
    assert_results_equal(result, rankset.evaluate(RUN, LABELS, ["ndcg@10", "rr"]))
    values = result.per_query["value"].to_list()
    values[0] = values[0] + values[0] * 2**-52  # the next float up
    nudged = dataclasses.replace(
        result, per_query=result.per_query.with_columns(value=pl.Series(values))
    )
    with pytest.raises(AssertionError, match="per_query"):
        assert_results_equal(result, nudged)
    assert_results_equal(result, nudged, check_exact=False, rtol=1e-12)


def test_row_order_does_not_matter_but_counts_do() -> None:
    result = rankset.evaluate(RUN, LABELS, ["rr"])
    shuffled = dataclasses.replace(result, per_query=result.per_query.reverse())
    assert_results_equal(result, shuffled)
    zero = rankset.evaluate(RUN, {**LABELS, "q3": {"x": 1}}, ["rr"], missing="zero")
    skip = rankset.evaluate(RUN, {**LABELS, "q3": {"x": 1}}, ["rr"])
    with pytest.raises(AssertionError):
        assert_results_equal(zero, skip)


@settings(max_examples=40, database=None, deadline=None)
@given(drawn=collections(systems=(1, 3)))
def test_collections_hold_what_the_strategy_promises(drawn: Collection) -> None:
    first_labelled = next(iter(drawn.labels))
    for run in drawn.runs.values():
        assert first_labelled in run  # every system answers the first (labelled) query
        for ranking in run.values():
            assert ranking
            assert set(ranking) <= set(DOC_IDS)
    frame = drawn.runs_frame()
    assert frame.height == sum(len(r) for run in drawn.runs.values() for r in run.values())
    assert drawn.labels_frame().height == sum(len(docs) for docs in drawn.labels.values())
    # rankset accepts every drawn collection and scores each system
    result = rankset.evaluate(drawn.runs if len(drawn.runs) > 1 else frame, drawn.labels, ["rr"])
    assert set(result.systems) == set(drawn.runs)
