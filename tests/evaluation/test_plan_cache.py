"""Metric expressions built once per set of metrics and parameters, each call its own copy."""

from __future__ import annotations

import rankset
from rankset.evaluation._plan import _built
from rankset.measures import Features, parse_metrics
from rankset.measures.scales import resolve_scale

METRICS = parse_metrics(["ndcg@10", "ap", "P(rel=2)@5"])


def test_a_second_build_is_a_copy_of_the_first() -> None:
    first, first_values = _built(Features(relevance_level=1.0), METRICS)
    second, second_values = _built(Features(relevance_level=1.0), METRICS)
    assert first is not second
    assert first.aggregations is not second.aggregations
    assert first.aggregations.keys() == second.aggregations.keys()
    assert first_values.keys() == second_values.keys()
    # what one call adds to its features is not seen by the next
    first.aggregations["_mine"] = first_values["ap"]
    first.label_stats_on_rows.add("_mine")
    third, _ = _built(Features(relevance_level=1.0), METRICS)
    assert "_mine" not in third.aggregations
    assert "_mine" not in third.label_stats_on_rows


def test_other_parameters_build_other_expressions() -> None:
    level_one, _ = _built(Features(relevance_level=1.0), METRICS)
    level_two, _ = _built(Features(relevance_level=2.0), METRICS)
    assert level_one.relevance_level == 1.0
    assert level_two.relevance_level == 2.0
    assert level_one.aggregations.keys() != level_two.aggregations.keys()
    dl, _ = _built(Features(scale=resolve_scale("trec_dl")), METRICS)
    assert dl.scale.name == "trec_dl"


def test_repeated_evaluations_with_other_levels_give_their_own_values() -> None:
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    labels = {"q1": {"d1": 1, "d2": 2}}
    # by hand: with rel >= 1, d1 and d2 are relevant (AP 1); with rel >= 2, only d2 at
    # rank 2 (AP 0.5)
    for _ in range(2):
        for level, expected in ((1, 1.0), (2, 0.5), (1, 1.0)):
            got = rankset.evaluate(run, labels, ["ap"], relevance_level=level, confidence=None)
            assert got.summary["mean"].to_list() == [expected]


def test_equal_grade_scales_hash_alike() -> None:
    # the key of the kept expressions holds the scale: a dict of tiers must not stop it
    assert hash(resolve_scale("trec_dl")) == hash(resolve_scale("trec_dl"))
    assert resolve_scale("trec_dl") == resolve_scale("trec_dl")
    assert resolve_scale("trec_dl") != resolve_scale("rag5")
