"""The metric name grammar: canonical forms, aliases, errors."""

from __future__ import annotations

import pytest

import rankset
from rankset.errors import ParameterError, UnknownMetricError
from rankset.measures import PER_QUERY, Metric, parse_metric, parse_metrics


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        # ir-measures
        ("nDCG@10", "ndcg@10"),
        ("P@5", "precision@5"),
        ("R@100", "recall@100"),
        ("RR", "rr"),
        ("AP", "ap"),
        ("Success@1", "hit@1"),
        ("Judged@10", "judged@10"),
        ("Rprec", "rprec"),
        ("Bpref", "bpref"),
        ("P(rel=2)@10", "precision(rel=2)@10"),
        ("AP(rel=2)@100", "ap(rel=2)@100"),
        # trec_eval
        ("ndcg_cut_10", "ndcg@10"),
        ("ndcg_cut.10", "ndcg@10"),
        ("P_5", "precision@5"),
        ("P.5", "precision@5"),
        ("recall_100", "recall@100"),
        ("recip_rank", "rr"),
        ("map", "ap"),
        ("map_cut_100", "ap@100"),
        ("success_1", "hit@1"),
        ("num_rel_ret", "num_rel_ret"),
        # ranx
        ("mrr@10", "rr@10"),
        ("map@100", "ap@100"),
        ("hit_rate@5", "hit@5"),
        ("r-precision", "rprec"),
        ("precision@10-l2", "precision(rel=2)@10"),
        ("ndcg_burges@10", "ndcg_exp@10"),
        # -at-k names
        ("retrieval-hit-at-k", "hit@k"),
        ("retrieval-recall-at-k", "recall@k"),
        ("retrieval-mrr", "rr"),
        ("retrieval-ndcg-at-k", "ndcg@k"),
        # canonical forms print back unchanged
        ("fbeta(beta=0.5)@10", "fbeta(beta=0.5)@10"),
        ("f1@3", "f1@3"),
        ("f2@3", "f2@3"),
        ("recall_all@20", "recall_all@20"),
        ("dcg@10", "dcg@10"),
        ("ndcg", "ndcg"),
    ],
)
def test_alias_resolves_to_canonical_name(alias: str, canonical: str) -> None:
    assert parse_metric(alias).name == canonical


def test_canonical_names_round_trip_for_every_measure() -> None:
    for name, spec in rankset.available_measures().items():
        forms = [name] if spec.cutoff == "none" else [f"{name}@7", f"{name}@k"]
        for form in forms:
            assert parse_metric(parse_metric(form).name) == parse_metric(form)
            assert parse_metric(form).name == form


def test_required_cutoff_defaults_to_per_query_k() -> None:
    metric = parse_metric("precision")
    assert metric.k == PER_QUERY
    assert metric.name == "precision@k"


def test_optional_cutoff_means_full_ranking() -> None:
    assert parse_metric("ndcg").k is None
    assert parse_metric("recall").name == "recall"


def test_default_parameter_values_are_not_printed() -> None:
    assert parse_metric("fbeta(beta=1)@5").name == "fbeta@5"
    assert parse_metric("fbeta(beta=2.0)@5").name == "fbeta(beta=2)@5"


def test_unknown_metric_suggests_close_names() -> None:
    with pytest.raises(UnknownMetricError, match=r"Unknown metric 'ndgc@10'.*Did you mean 'ndcg'"):
        parse_metric("ndgc@10")


def test_unknown_metric_lists_known_measures() -> None:
    with pytest.raises(UnknownMetricError, match=r"Known measures: .*bpref"):
        parse_metric("zzz")


@pytest.mark.parametrize("text", ["ndcg@0", "P_0", "precision@0"])
def test_cutoff_must_be_positive(text: str) -> None:
    with pytest.raises(ParameterError, match=r"must be an int >= 1\. Got 0 instead"):
        parse_metric(text)


def test_cutoff_on_measure_without_one_is_an_error() -> None:
    with pytest.raises(UnknownMetricError, match="rprec takes no cutoff"):
        parse_metric("rprec@10")


def test_bad_parameter_value_is_an_error() -> None:
    with pytest.raises(ParameterError, match="The 'beta' parameter of fbeta must be a float"):
        parse_metric("fbeta(beta=abc)@5")
    with pytest.raises(ParameterError, match=r"must be >= 0\. Got '-1' instead"):
        parse_metric("fbeta(beta=-1)@5")


def test_unknown_parameter_is_an_error() -> None:
    with pytest.raises(UnknownMetricError, match="ndcg has no parameter 'rel'"):
        parse_metric("ndcg(rel=2)@10")


def test_parse_metrics_drops_repeats_keeps_order() -> None:
    names = [m.name for m in parse_metrics(["P_5", "ndcg_cut_10", "precision@5", "map"])]
    assert names == ["precision@5", "ndcg@10", "ap"]


def test_parse_metrics_needs_one() -> None:
    with pytest.raises(ParameterError, match="No metric was given"):
        parse_metrics([])


def test_metric_is_frozen_and_hashable() -> None:
    metric = Metric("ndcg", 10)
    assert {metric: 1}[parse_metric("nDCG@10")] == 1
    with pytest.raises(AttributeError):
        metric.k = 5  # type: ignore[misc]
