"""Every classic measure on tiny cases computed by hand (the arithmetic is in comments)."""

from __future__ import annotations

import math

import polars as pl
import pytest

import rankset

# Query q1, scores; d3 and d2 tie at 2.0 and trec_eval breaks ties by doc id descending,
# so the ranking is d1, d3, d2, d4, d5.
RUN = {
    "q1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 1.0, "d5": 0.5},
    "q2": {"d1": 1.0},
    "q3": {"d9": 1.0},  # no labels: dropped by the default query policy
}
# q1: relevant at level 1 = d1 (pos 1), d2 (pos 3), d6 (not retrieved) -> R = 3;
# judged non-relevant = d3, d4, d7 -> N = 3; d5 has a negative grade (in pool, unjudged).
LABELS = {
    "q1": {"d1": 1, "d2": 2, "d3": 0, "d4": 0, "d5": -1, "d6": 3, "d7": 0},
    "q2": {"d1": 0},  # no relevant label at all
    "q4": {"d1": 1},  # not in the run
}

LOG2_3 = math.log2(3)
IDCG_Q1 = 3 + 2 / LOG2_3 + 1 / 2  # ideal order of grades 3, 2, 1

EXPECTED_Q1_LEVEL_1 = {
    "precision@1": 1.0,
    "precision@3": 2 / 3,
    "precision@10": 2 / 10,  # divides by k even though only 5 were retrieved
    "recall@1": 1 / 3,
    "recall@3": 2 / 3,
    "recall": 2 / 3,
    "hit@1": 1.0,
    "f1@3": 2 / 3,  # P = R = 2/3
    "f2@5": (5 * 0.4 * (2 / 3)) / (4 * 0.4 + 2 / 3),
    "fbeta(beta=0.5)@5": (1.25 * 0.4 * (2 / 3)) / (0.25 * 0.4 + 2 / 3),
    "recall_all@5": 0.0,  # d6 never retrieved
    "rr": 1.0,
    "rr@1": 1.0,
    "ap": (1 / 1 + 2 / 3) / 3,
    "ap@2": (1 / 1) / 3,
    "rprec": 2 / 3,  # 2 relevant in the top R = 3
    # d1: no judged non-relevant above -> 1; d2: d3 above -> 1 - min(1,3)/min(3,3) = 2/3
    "bpref": (1 + 2 / 3) / 3,
    "ndcg": (1 / 1 + 2 / 2) / IDCG_Q1,  # gains 1 at pos 1, 2 at pos 3 (log2(4) = 2)
    "ndcg@1": 1 / 3,
    "ndcg@3": 2 / IDCG_Q1,
    "ndcg_exp@3": (1 + 3 / 2) / (7 + 3 / LOG2_3 + 1 / 2),
    "dcg@3": 2.0,
    "judged@5": 4 / 5,  # d1 d3 d2 d4 judged, d5 (grade -1) not
    "num_ret": 5.0,
    "num_rel": 3.0,
    "num_rel_ret": 2.0,
}

EXPECTED_Q1_LEVEL_2 = {
    # relevant = d2 (pos 3), d6 -> R = 2; judged non-relevant = d1 d3 d4 d7 -> N = 4
    "precision@3": 1 / 3,
    "rr": 1 / 3,
    "ap": (1 / 3) / 2,
    "rprec": 0.0,  # top R = 2 holds d1, d3
    "bpref": 0.0,  # d2 has 2 non-relevant above: 1 - min(2,2)/min(4,2) = 0
    "num_rel": 2.0,
    "ndcg@3": 2 / IDCG_Q1,  # nDCG ignores the relevance level
}


def _values(result: rankset.EvaluationResult, query_id: str) -> dict[str, float]:
    rows = result.per_query.filter(pl.col("query_id") == query_id)
    return dict(zip(rows["metric"], rows["value"], strict=True))


def test_every_measure_by_hand_at_level_1() -> None:
    result = rankset.evaluate(RUN, LABELS, list(EXPECTED_Q1_LEVEL_1))
    got = _values(result, "q1")
    assert got.keys() == EXPECTED_Q1_LEVEL_1.keys()
    for name, expected in EXPECTED_Q1_LEVEL_1.items():
        assert got[name] == pytest.approx(expected, abs=1e-12), name


def test_relevance_level_2() -> None:
    result = rankset.evaluate(RUN, LABELS, list(EXPECTED_Q1_LEVEL_2), relevance_level=2)
    got = _values(result, "q1")
    for name, expected in EXPECTED_Q1_LEVEL_2.items():
        assert got[name] == pytest.approx(expected, abs=1e-12), name


def test_rel_parameter_overrides_the_evaluation_level() -> None:
    result = rankset.evaluate(RUN, LABELS, ["ap(rel=2)", "ap"], relevance_level=1)
    got = _values(result, "q1")
    assert got["ap(rel=2)"] == pytest.approx((1 / 3) / 2)
    assert got["ap"] == pytest.approx((1 + 2 / 3) / 3)


def test_query_without_relevant_labels_scores_zero_not_na() -> None:
    result = rankset.evaluate(RUN, LABELS, ["ap", "ndcg@10", "recall@5", "rr", "bpref", "rprec"])
    got = _values(result, "q2")
    assert got == {
        "ap": 0.0,
        "ndcg@10": 0.0,
        "recall@5": 0.0,
        "rr": 0.0,
        "bpref": 0.0,
        "rprec": 0.0,
    }


def test_default_policy_scores_the_intersection_and_counts_drops() -> None:
    result = rankset.evaluate(RUN, LABELS, ["ap"])
    assert sorted(result.per_query["query_id"]) == ["q1", "q2"]
    counts = result.query_counts.row(0, named=True)
    assert counts["n_scored"] == 2
    assert counts["n_run_queries_without_labels"] == 1  # q3
    assert counts["n_label_queries_without_run"] == 1  # q4


def test_missing_zero_scores_unanswered_label_queries_as_empty() -> None:
    result = rankset.evaluate(RUN, LABELS, ["ap", "num_ret", "num_rel", "rr"], missing="zero")
    got = _values(result, "q4")
    assert got == {"ap": 0.0, "num_ret": 0.0, "num_rel": 1.0, "rr": 0.0}
    assert sorted(result.per_query["query_id"].unique()) == ["q1", "q2", "q4"]
    assert result.query_counts["n_scored"].to_list() == [3]


def test_per_query_cutoffs_resolve_before_k_and_default() -> None:
    cutoffs = {"q1": 3}
    result = rankset.evaluate(RUN, LABELS, ["precision@k", "ndcg@k"], cutoffs=cutoffs, k=1)
    rows = result.per_query.filter(pl.col("metric") == "precision@k").sort("query_id")
    assert rows["k"].to_list() == [3, 1]  # q1 from the table, q2 from k=
    assert rows["value"].to_list() == pytest.approx([2 / 3, 0.0])
    ndcg_q1 = result.per_query.filter((pl.col("metric") == "ndcg@k") & (pl.col("query_id") == "q1"))
    assert ndcg_q1["value"].item() == pytest.approx(2 / IDCG_Q1)


def test_default_k_is_5() -> None:
    result = rankset.evaluate(RUN, LABELS, ["precision"])
    q1 = result.per_query.filter(pl.col("query_id") == "q1")
    assert q1["k"].item() == 5
    assert q1["value"].item() == pytest.approx(2 / 5)


def test_float_grades_are_gains_and_levels() -> None:
    run = {"q": {"a": 3.0, "b": 2.0}}
    labels = {"q": {"a": 0.5, "b": 1.5}}
    result = rankset.evaluate(run, labels, ["ndcg", "precision@2", "precision(rel=1.5)@2"])
    got = _values(result, "q")
    ideal = 1.5 + 0.5 / LOG2_3
    assert got["ndcg"] == pytest.approx((0.5 + 1.5 / LOG2_3) / ideal)
    assert got["precision@2"] == pytest.approx(0.5)  # only b >= 1
    assert got["precision(rel=1.5)@2"] == pytest.approx(0.5)


def test_seed_000_worked_example() -> None:
    run = {"q-1": {"doc-7": 5, "doc-3": 4, "doc-1": 3, "doc-9": 2, "doc-2": 1}}
    labels = {"q-1": {"doc-3": 1, "doc-9": 1}}
    result = rankset.evaluate(
        run,
        labels,
        ["retrieval-hit-at-k", "retrieval-recall-at-k", "retrieval-mrr", "retrieval-ndcg-at-k"],
        k=5,
    )
    got = _values(result, "q-1")
    assert got["hit@k"] == 1.0
    assert got["recall@k"] == 1.0
    assert got["rr"] == 0.5
    # (1/log2(3) + 1/log2(5)) / (1 + 1/log2(3))
    assert got["ndcg@k"] == pytest.approx((1 / LOG2_3 + 1 / math.log2(5)) / (1 + 1 / LOG2_3))
    assert round(got["ndcg@k"], 2) == 0.65


def test_summary_means_and_counts() -> None:
    result = rankset.evaluate(RUN, LABELS, ["ap", "rr"])
    summary = result.summary.filter(pl.col("metric") == "rr").row(0, named=True)
    assert summary["mean"] == pytest.approx((1.0 + 0.0) / 2)
    assert summary["n_queries"] == 2
    assert summary["n_na"] == 0


def test_summary_bootstrap_interval() -> None:
    # 40 queries: rr is 1 on 10 of them and 0 elsewhere (mean 0.25).
    run = {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(40)}
    labels = {f"q{i}": {"a" if i < 10 else "z": 1} for i in range(40)}
    result = rankset.evaluate(run, labels, ["rr"], n_resamples=2000, seed=3)
    row = result.summary.row(0, named=True)
    assert row["mean"] == 0.25
    # normal approximation: 0.25 +- 1.96 * sqrt(0.25 * 0.75 / 40) = 0.25 +- 0.134
    assert row["ci_low"] == pytest.approx(0.25 - 0.134, abs=0.04)
    assert row["ci_high"] == pytest.approx(0.25 + 0.134, abs=0.04)
    again = rankset.evaluate(run, labels, ["rr"], n_resamples=2000, seed=3)
    assert again.summary.equals(result.summary)
    no_ci = rankset.evaluate(run, labels, ["rr"], confidence=None).summary.row(0, named=True)
    assert no_ci["ci_low"] is None
    assert no_ci["mean"] == 0.25


def test_summary_interval_skips_na() -> None:
    labels = {"q1": {"a": 5}, "q2": {"b": 4}, "q3": {"c": 3}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}, "q3": {"c": 1.0}}
    summary = rankset.evaluate(run, labels, ["n_recall_5@1"]).summary.row(0, named=True)
    # q2 and q3 have no tier-5 label: NA; the only value is q1's 1.0
    assert (summary["mean"], summary["n_na"], summary["n_queries"]) == (1.0, 2, 3)
    assert (summary["ci_low"], summary["ci_high"]) == (1.0, 1.0)


def test_resampling_parameters_are_checked() -> None:
    with pytest.raises(rankset.ParameterError, match=r"The 'confidence' parameter must be a float"):
        rankset.evaluate(RUN, LABELS, ["ap"], confidence=1.5)
    with pytest.raises(rankset.ParameterError, match=r"The 'n_resamples' parameter must be an int"):
        rankset.evaluate(RUN, LABELS, ["ap"], n_resamples=0)


def test_summary_by_metadata_slices() -> None:
    result = rankset.evaluate(RUN, LABELS, ["rr", "num_rel"])
    metadata = pl.DataFrame({"query_id": ["q1", "q2"], "topic": ["a", "b"]})
    sliced = result.summary_by(metadata, "topic")
    rows = {
        (r["topic"], r["metric"]): (r["mean"], r["n_queries"]) for r in sliced.iter_rows(named=True)
    }
    # q1: rr 1, num_rel 3; q2: rr 0, num_rel 0 (see LABELS)
    assert rows == {
        ("a", "rr"): (1.0, 1),
        ("a", "num_rel"): (3.0, 1),
        ("b", "rr"): (0.0, 1),
        ("b", "num_rel"): (0.0, 1),
    }
    unlisted = result.summary_by(metadata.head(1), "topic")
    assert unlisted.filter(pl.col("topic").is_null())["n_queries"].to_list() == [1, 1]
    with pytest.raises(rankset.ParameterError, match="no column 'lang'"):
        result.summary_by(metadata, "lang")
