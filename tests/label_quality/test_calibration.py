"""calibrate: the isotonic map from a judge's score to the expected human gain."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.optimize import isotonic_regression

import rankset
from rankset.errors import ParameterError, SchemaError
from rankset.label_quality import calibrate, calibration_effects, isotonic_fit


@pytest.mark.parametrize("seed", range(5))
def test_the_fit_is_scipys_isotonic_regression(seed: int) -> None:
    rng = np.random.default_rng(seed)
    means = rng.random(12) * 3
    weights = rng.integers(1, 20, 12).astype(float)
    expected = isotonic_regression(means, weights=weights).x
    np.testing.assert_allclose(isotonic_fit(np.arange(12), means, weights), expected, atol=1e-12)


def _pairs(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "grade"], orient="row")


def test_the_table_by_hand() -> None:
    # judge 1 -> humans 0, 2 (mean 1); judge 2 -> humans 0 (mean 0): a violation, pooled
    # to (1 + 1 + 0) / 3; judge 3 -> 3.
    judge = _pairs([("q", "a", 1), ("q", "b", 1), ("q", "c", 2), ("q", "d", 3), ("q", "e", 3)])
    human = _pairs([("q", "a", 0), ("q", "b", 2), ("q", "c", 0), ("q", "d", 3)])
    fit = calibrate(judge, human)
    assert fit.table.select("score", "n", "human_mean").rows() == [
        (1.0, 2, 1.0),
        (2.0, 1, 0.0),
        (3.0, 1, 3.0),
    ]
    assert fit.table["fitted"].to_list() == pytest.approx([2 / 3, 2 / 3, 3.0])
    assert (fit.n_pairs, fit.n_judge_only) == (4, 1)
    # e has no human label: it takes the fit at 3
    applied = dict(fit.apply(judge).select("doc_id", "grade").iter_rows())
    assert applied["e"] == 3.0
    assert applied["c"] == pytest.approx(2 / 3)


def test_weights_and_several_judges() -> None:
    # two judges on a: scores 0 and 2 average to 1
    judge = _pairs([("q", "a", 0), ("q", "a", 2), ("q", "b", 3)])
    human = _pairs([("q", "a", 1), ("q", "b", 3)])
    fit = calibrate(judge, human)
    assert fit.table["score"].to_list() == [1.0, 3.0]
    weights = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "weight": [3.0, 1.0]})
    weighted = calibrate(_pairs([("q", "a", 1), ("q", "b", 1)]), human, weights=weights)
    assert weighted.table["human_mean"].item() == pytest.approx((3 * 1 + 1 * 3) / 4)


def test_expected_grade_is_the_default_score() -> None:
    judge = _pairs([("q", "a", 1), ("q", "b", 1)]).with_columns(
        expected_grade=pl.Series([0.2, 0.9])
    )
    fit = calibrate(judge, _pairs([("q", "a", 0), ("q", "b", 1)]))
    assert fit.score == "expected_grade"
    assert fit.table["score"].to_list() == [0.2, 0.9]
    with pytest.raises(ParameterError, match="prob_9"):
        calibrate(judge, judge, score="prob_9")


def test_no_shared_pair_is_an_error() -> None:
    with pytest.raises(SchemaError, match="no pair carries both"):
        calibrate(_pairs([("q", "a", 1)]), _pairs([("q", "b", 1)]))


def test_the_effects_are_evaluates_means() -> None:
    runs = {"bm25": "data/sample/bm25.trec", "rerank": "data/sample/rerank.trec"}
    human = rankset.io.scan_labels("data/sample/qrels.txt").collect()
    # a lenient judge, one grade above the humans on a 1-4 scale
    judge = human.with_columns(pl.col("grade") + 1)
    fit = calibrate(judge, human)
    effects = calibration_effects(runs, judge, human, fit, "ndcg@10")
    for name, labels in (("human", human), ("judge", judge), ("calibrated", fit.apply(judge))):
        means = rankset.evaluate(runs, labels, metrics=["ndcg@10"]).summary
        assert effects[name].to_list() == pytest.approx(means["mean"].to_list(), abs=1e-12)
    # the lenient judge moves the means; the fit, here a perfect map, removes the bias
    assert effects["judge_bias"].abs().min() > 0.01
    assert effects["calibrated_bias"].abs().max() < 1e-12
