"""Run and label inputs: numpy scalars are numbers wherever a Python number is."""

from __future__ import annotations

import numpy as np
import pytest

import rankset

SCALARS = [np.float32(0.5), np.float64(0.5), np.float16(0.5), np.int64(2), np.int32(2)]


@pytest.mark.parametrize("score", SCALARS, ids=lambda s: type(s).__name__)
def test_a_ranx_dict_with_numpy_scores_is_one_run(score: object) -> None:
    # {"q1": {"d1": np.float32(0.5)}} used to be taken for {system: run} and refused with
    # a message calling the document a query.
    run = {"q1": {"d1": score, "d2": np.float32(0.25)}, "q2": {"d3": score}}
    labels = {"q1": {"d2": np.int64(1)}, "q2": {"d3": np.int8(2)}}
    result = rankset.evaluate(run, labels, ["rr", "ndcg@2"], confidence=None)
    assert result.systems == ["run"]
    values = dict(
        ((query, metric), value)
        for query, metric, value in result.per_query.select(
            "query_id", "metric", "value"
        ).iter_rows()
    )
    assert values["q1", "rr"] == 0.5
    assert values["q2", "rr"] == 1.0


def test_numpy_scalars_as_options_and_pools() -> None:
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    labels = {"q1": {"c": 1}}
    result = rankset.evaluate(
        run,
        labels,
        ["precision@k", "proc@k"],
        k=np.int64(3),
        relevance_level=np.float64(1),
        pool={"q1": {"c": np.float32(1.0)}},
        scale="binary",
        confidence=None,
    )
    assert result.per_query["value"].to_list() == [1 / 3, 1.0]
