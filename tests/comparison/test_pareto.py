"""Quality against cost: the Pareto front, checked against hand-worked examples."""

from __future__ import annotations

import polars as pl
import pytest

import rankset
from rankset.comparison import COST_QUALITY_COLUMNS, cost_quality
from rankset.errors import SchemaError

# (system, mean ndcg@10, mean latency_ms), and by hand, who is on the front:
#   a (0.40, 10)   cheapest of all                                      -> front
#   f (0.40, 10)   the same point as a: neither is better nor cheaper   -> front
#   b (0.60, 50)   nothing as good is as cheap                          -> front
#   c (0.55, 80)   b is better and cheaper                              -> dominated
#   d (0.60, 90)   b is as good and cheaper                             -> dominated
#   e (0.70, 200)  the best                                             -> front
#   g (0.30, 40)   a is better and cheaper                              -> dominated
POINTS = [
    ("a", 0.40, 10.0),
    ("b", 0.60, 50.0),
    ("c", 0.55, 80.0),
    ("d", 0.60, 90.0),
    ("e", 0.70, 200.0),
    ("f", 0.40, 10.0),
    ("g", 0.30, 40.0),
]
FRONT = {"a", "b", "e", "f"}


def _frames(metric: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    summary = pl.DataFrame(
        {"system": [p[0] for p in POINTS], "metric": metric, "mean": [p[1] for p in POINTS]}
    )
    costs = pl.DataFrame(
        {
            "system": [p[0] for p in POINTS],
            "cost": "latency_ms",
            "mean": [p[2] for p in POINTS],
            "p50": [p[2] / 2 for p in POINTS],
            "p95": [p[2] * 2 for p in POINTS],
        }
    )
    return summary, costs


def test_the_front_is_the_hand_worked_one() -> None:
    summary, costs = _frames("ndcg@10")
    points = cost_quality(summary, costs)
    assert points.columns == list(COST_QUALITY_COLUMNS)
    assert points["system"].to_list() == [p[0] for p in POINTS]  # the systems' order
    assert {s for s, on in points.select("system", "pareto").iter_rows() if on} == FRONT
    assert points.filter(system="c").row(0, named=True) == {
        "system": "c", "metric": "ndcg@10", "cost": "latency_ms", "quality": 0.55,
        "cost_mean": 80.0, "cost_p50": 40.0, "cost_p95": 160.0, "pareto": False,
    }  # fmt: skip


def test_a_metric_where_lower_is_better_turns_the_front_over() -> None:
    # unj@10 (the share unjudged): lower is better. By hand, with the same numbers: a and f
    # (0.40 at 10) beat b, c, d and e, which cost more and are worse; g (0.30 at 40) is
    # better than a but dearer: on the front.
    summary, costs = _frames("unj@10")
    points = cost_quality(summary, costs)
    assert {s for s, on in points.select("system", "pareto").iter_rows() if on} == {"a", "f", "g"}


def test_each_metric_and_cost_column_has_its_own_front_and_nulls_are_on_none() -> None:
    summary, costs = _frames("ndcg@10")
    tokens = costs.with_columns(cost=pl.lit("tokens_in"), mean=pl.Series([1.0] * len(POINTS)))
    ap = summary.with_columns(metric=pl.lit("ap"), mean=pl.Series([0.1] * 6 + [None]))
    points = cost_quality(pl.concat([summary, ap]), pl.concat([costs, tokens]), ["ap", "ndcg@10"])
    assert points.select("metric", "cost").unique(maintain_order=True).rows() == [
        ("ap", "latency_ms"), ("ap", "tokens_in"),
        ("ndcg@10", "latency_ms"), ("ndcg@10", "tokens_in"),
    ]  # fmt: skip
    front = {
        (metric, cost): {s for s, on in group.select("system", "pareto").iter_rows() if on}
        for (metric, cost), group in points.group_by("metric", "cost")
    }
    # every system costs 1 token: the best on ndcg@10 alone; on ap all but g tie at 0.1
    assert front[("ndcg@10", "tokens_in")] == {"e"}
    assert front[("ap", "tokens_in")] == {"a", "b", "c", "d", "e", "f"}
    assert front[("ap", "latency_ms")] == {"a", "f"}
    with pytest.raises(SchemaError, match=r"costs frame lacks the columns \['p95'\]"):
        cost_quality(summary, costs.drop("p95"))


def test_an_analysis_with_costs_carries_the_points() -> None:
    runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}
    costs = pl.DataFrame({"system": ["a", "b"], "query_id": "q1", "cost": [0.5, 0.1]})
    analysis = rankset.analyse(
        runs, {"q1": {"d2": 1}}, metrics=["rr"], costs=costs, n_resamples=100, progress=False
    )
    assert analysis.cost_quality is not None
    # b ranks the relevant document first (rr 1 against 0.5) and costs less: b alone
    assert analysis.cost_quality.select("system", "quality", "cost_mean", "pareto").rows() == [
        ("a", 0.5, 0.5, False),
        ("b", 1.0, 0.1, True),
    ]
    assert (
        rankset.analyse(runs, {"q1": {"d2": 1}}, n_resamples=100, progress=False).cost_quality
        is None
    )
