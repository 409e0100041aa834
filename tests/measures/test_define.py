"""Adding a measure with define(), and the guards that keep names and features identities."""

from __future__ import annotations

import polars as pl
import pytest

import rankset
from rankset.measures import (
    FeatureConflictError,
    Features,
    Metric,
    available_measures,
    define,
    parse_metric,
    temporary_measures,
)
from rankset.measures.ranking import REL, relevant_retrieved

RUN = {"q1": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}, "q2": {"d5": 1.0}}
LABELS = {"q1": {"d2": 1, "d4": 2, "d9": 1}, "q2": {"d6": 1}}


def _misses(features: Features, metric: Metric) -> pl.Expr:
    # Retrieved documents within k that are not relevant.
    within = pl.min_horizontal(features.cutoff_value(metric), features.num_ret())
    return within - relevant_retrieved(features, metric)


def test_a_new_measure_is_evaluated_end_to_end() -> None:
    with temporary_measures():
        spec = define(
            "misses",
            _misses,
            description="Non-relevant documents in the top k.",
            cutoff="required",
            params=(REL,),
            greater_is_better=False,
            aliases=("non_relevant_retrieved",),
            ranx="misses_ranx",
        )
        assert available_measures()["misses"] is spec
        assert parse_metric("non_relevant_retrieved@3").name == "misses@3"
        assert parse_metric("Misses_Ranx(rel=2)@3").name == "misses(rel=2)@3"
        result = rankset.evaluate(RUN, LABELS, ["misses@3", "misses(rel=2)@3", "precision@3"])
        values = {
            (q, m): v for q, m, v in result.per_query.select("query_id", "metric", "value").rows()
        }
    # q1's top 3 are d1, d2, d3: d2 is relevant at level 1, none at level 2; q2 has 1 doc.
    assert values == {
        ("q1", "misses@3"): 2.0,
        ("q1", "misses(rel=2)@3"): 3.0,
        ("q1", "precision@3"): pytest.approx(1 / 3),
        ("q2", "misses@3"): 1.0,
        ("q2", "misses(rel=2)@3"): 1.0,
        ("q2", "precision@3"): 0.0,
    }
    assert "misses" not in available_measures()
    with pytest.raises(rankset.errors.UnknownMetricError, match="Unknown metric"):
        parse_metric("non_relevant_retrieved@3")


def test_define_is_also_a_decorator() -> None:
    with temporary_measures():

        @define("retrieved", description="Documents retrieved.", cutoff="none")
        def retrieved(features: Features, metric: Metric) -> pl.Expr:
            return features.num_ret().cast(pl.Float64)

        assert available_measures()["retrieved"].build is retrieved
        result = rankset.evaluate(RUN, LABELS, ["retrieved"])
        assert result.per_query["value"].to_list() == [4.0, 1.0]


def test_a_measure_is_defined_once() -> None:
    with temporary_measures(), pytest.raises(ValueError, match="'ndcg' is already registered"):
        define("ndcg", _misses, description="Again.", cutoff="optional")


def test_an_alias_cannot_name_two_measures() -> None:
    with temporary_measures():
        with pytest.raises(ValueError, match="'map', a name of my_ap, already names ap"):
            define("my_ap", _misses, description="AP.", cutoff="optional", trec_eval="map")
        assert "my_ap" not in available_measures()


@pytest.mark.parametrize(
    ("name", "cutoff", "trec_eval", "message"),
    [
        ("Bad", "none", (), "must be lower case"),
        ("bad", "sometimes", (), "cutoff of bad must be one of"),
        ("bad", "none", ("bad_{k}",), "trec_eval cutoff family"),
        ("bad", "required", ("bad{k}",), "trec_eval cutoff family"),
    ],
)
def test_define_checks_its_arguments(
    name: str, cutoff: str, trec_eval: tuple[str, ...], message: str
) -> None:
    with temporary_measures(), pytest.raises(ValueError, match=message):
        define(name, _misses, description="Bad.", cutoff=cutoff, trec_eval=trec_eval)  # type: ignore[arg-type]


def test_an_equal_feature_is_shared() -> None:
    features = Features()
    first = features.aggregate("_max_pos", pl.col("pos").max())
    again = features.aggregate("_max_pos", pl.col("pos").max())
    assert first.meta.eq(again)
    assert list(features.aggregations) == ["_max_pos"]


@pytest.mark.parametrize(
    "register",
    [
        lambda f, e: f.row_column("_x", e),
        lambda f, e: f.label_row_column("_x", e),
        lambda f, e: f.aggregate("_x", e),
        lambda f, e: f.label_aggregate("_x", e),
    ],
    ids=["row column", "label row column", "aggregation", "label aggregation"],
)
def test_two_expressions_cannot_claim_one_feature(register: object) -> None:
    features = Features()
    register(features, pl.col("pos").max())  # type: ignore[operator]
    with pytest.raises(FeatureConflictError, match=r"'_x'") as caught:
        register(features, pl.col("pos").min())  # type: ignore[operator]
    message = str(caught.value)
    assert "max()" in message
    assert "min()" in message
    assert isinstance(caught.value, rankset.errors.RanksetError)


def test_a_cumulative_feature_conflict_is_caught() -> None:
    features = Features()
    metric = parse_metric("precision@k")
    features.aggregate_within_cutoff("_c", pl.col("pos"), metric)
    with pytest.raises(FeatureConflictError, match="cumulative contribution '_c'"):
        features.aggregate_within_cutoff("_c", pl.col("pos") * 2, metric)


def test_one_feature_cannot_have_two_empty_values() -> None:
    features = Features()
    features.external("_joined", empty=None)
    with pytest.raises(FeatureConflictError, match="two empty values"):
        features.external("_joined", empty=0.0)


def test_builtin_measures_share_their_features() -> None:
    features = Features()
    for name in ["rr@10", "hit@10", "precision@10", "recall@10", "ap@10", "ndcg@10"]:
        metric = parse_metric(name)
        metric.spec.build(features, metric)
    assert list(features.aggregations) == [
        "_firstrel_1_10",
        "_relret_1_10",
        "_precsum_1_10",
        "_dcg_lin_10",
    ]
