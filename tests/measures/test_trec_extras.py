"""trec_eval 10.0's further measures on cases small enough to compute by hand.

The parity test (tests/parity/test_trec_eval_binary.py) checks them against the binary on
real and generated runs; here each formula is worked out on paper.
"""

from __future__ import annotations

import math

import pytest

import rankset

# Four documents retrieved: a (grade 2), b (1), x (no label), d (-1: pooled, unjudged);
# c (grade 0) is labelled but not retrieved.
RUN = {"q1": {"a": 4.0, "b": 3.0, "x": 2.0, "d": 1.0}}
LABELS = {"q1": {"a": 2, "b": 1, "c": 0, "d": -1}}


def _values(names: list[str], run: dict = RUN, labels: dict = LABELS, **options: object) -> dict:
    result = rankset.evaluate(run, labels, names, confidence=None, **options)
    return dict(result.per_query.select("metric", "value").iter_rows())


def test_unjudged_share_counts_the_end_of_a_short_ranking_as_judged() -> None:
    values = _values(["unj@2", "unj@4", "unj@5", "unj@20"])
    # unjudged: x (rank 3), d (rank 4); 2 of the top 4, 2 of top 5 and 20 over k
    assert values == {"unj@2": 0.0, "unj@4": 0.5, "unj@5": 0.4, "unj@20": 0.1}


def test_rbp_scales_gains_by_the_highest_grade() -> None:
    values = _values(["rbp", "rbp(p=0.5)"])
    # gains 2/2 = 1 at rank 1 and 1/2 at rank 2
    assert values["rbp"] == pytest.approx(0.1 * (1.0 + 0.5 * 0.9))
    assert values["rbp(p=0.5)"] == pytest.approx(0.5 * (1.0 + 0.5 * 0.5))


def test_rbp_residual_adds_the_unjudged_weight_and_the_tail() -> None:
    values = _values(["rbp_resid", "rbp_resid(p=0.5)"])
    # unjudged at ranks 3 and 4: p^4 + (1 - p)(p^2 + p^3)
    assert values["rbp_resid"] == pytest.approx(0.9**4 + 0.1 * (0.81 + 0.729))
    assert values["rbp_resid(p=0.5)"] == pytest.approx(0.5**4 + 0.5 * (0.25 + 0.125))
    judged = _values(["rbp_resid"], labels={"q1": {"a": 1, "b": 0, "x": 0, "d": 0}})
    assert judged["rbp_resid"] == 0.0


def test_inferred_ap_by_hand() -> None:
    run = {"q1": {"r1": 6.0, "u": 5.0, "n": 4.0, "x": 3.0, "r2": 2.0}}
    labels = {"q1": {"r1": 1, "u": -1, "n": 0, "r2": 1, "r3": 1}}
    # r1 at rank 1: 1. r2 at 0-based rank 4, above it 3 labelled (r1, u, n), 1 relevant
    # and 1 judged non-relevant: 1/5 + 4/5 * 3/4 * (1 + e) / (2 + 2e).
    eps = 0.00001
    second = 1 / 5 + (4 / 5) * (3 / 4) * ((1 + eps) / (2 + 2 * eps))
    assert _values(["infap"], run, labels)["infap"] == pytest.approx((1 + second) / 3)


def test_bing_discounts_by_the_non_relevant_documents_above() -> None:
    run = {"q1": {"n1": 5.0, "r1": 4.0, "n2": 3.0, "n3": 2.0, "r2": 1.0}}
    labels = {"q1": {"r1": 1, "r2": 1, "r3": 1}}
    # r1: one non-relevant above, 1/log2(3); r2: three above, 1/log2(5); over 3 relevant
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / 3
    assert _values(["bing"], run, labels)["bing"] == pytest.approx(expected)


def test_utility_weighs_the_four_cells() -> None:
    values = _values(["utility", "utility(a=2,b=-0.5,c=-1,d=0.1,n_docs=10)"])
    # relevant retrieved 2 (a, b), non-relevant retrieved 2, relevant missed 0,
    # non-relevant not retrieved 10 + 2 - 4 - 2 = 6
    assert values["utility"] == 2 - 2
    assert values["utility(a=2,b=-0.5,c=-1,d=0.1,n_docs=10)"] == pytest.approx(4 - 1 + 0.6)


def test_rprec_mult_truncates_m_r_plus_point_nine() -> None:
    run = {"q1": {f"d{i}": float(10 - i) for i in range(1, 6)}}
    labels = {"q1": {"d2": 1, "d4": 1, "d9": 1, "d8": 1}}
    values = _values([f"rprec_mult(mult={m})" for m in (0.2, 0.6, 1.0, 2.0)], run, labels)
    # R = 4: depths trunc(1.7) = 1, trunc(3.3) = 3, 4, 8 (past the end of 5)
    assert values["rprec_mult(mult=0.2)"] == 0.0
    assert values["rprec_mult(mult=0.6)"] == pytest.approx(1 / 3)
    assert values["rprec_mult"] == 0.5
    assert values["rprec_mult(mult=2)"] == 0.25


def test_geometric_means_exponentiate_the_mean_log() -> None:
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 2.0, "d": 1.0}, "q3": {"e": 1.0}}
    labels = {"q1": {"a": 1}, "q2": {"d": 1}, "q3": {"f": 1}}
    result = rankset.evaluate(run, labels, ["gm_map", "ap"], confidence=None)
    means = dict(result.summary.select("metric", "mean").iter_rows())
    # AP 1, 0.5 and 0 (floored at 0.00001): (1 * 0.5 * 0.00001) ** (1/3)
    assert means["gm_map"] == pytest.approx((0.5 * 0.00001) ** (1 / 3))
    assert means["ap"] == pytest.approx(0.5)
    per_query = result.per_query.filter(result.per_query["metric"] == "gm_map")
    assert per_query["value"].to_list() == pytest.approx([0.0, math.log(0.5), math.log(1e-5)])


def test_iprec_rounding_of_trec_eval_9() -> None:
    # 4 relevant labels, relevant documents at positions 1 and 5. At recall 0.3, 10.0
    # reads lround(0.3 x 4) = 1 relevant document (the best precision from position 1 on,
    # 1/1); 9.0.8 and pytrec_eval read trunc(0.3 x 4 + 0.9) = 2 (from position 5 on, 2/5).
    # Both binaries print these (1.0000 and 0.4000); 9.0.8's 11pt_avg is 0.3818.
    run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
    labels = {"q": {"a": 1, "e": 1, "x": 1, "y": 1}}
    names = [
        "iprec_at_recall(recall=0.3)",
        "iprec_at_recall(recall=0.3, rounding=v9)",
        "11pt_avg(rounding=v9)",
    ]
    res = rankset.evaluate(run, labels, names, confidence=None)
    # v9's eleven cutoffs: 0, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4 relevant documents (0 reads as 1)
    eleven = (3 * 1.0 + 3 * 0.4 + 5 * 0.0) / 11
    assert res.per_query["value"].to_list() == pytest.approx([1.0, 0.4, eleven])


def test_gain_maps_of_the_dcg_family() -> None:
    # grades: a 1, b 0, c 2, d -1, e 2 (never retrieved); ranking a, b, c, d.
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}
    labels = {"q": {"a": 1, "b": 0, "c": 2, "d": -1, "e": 2}}
    names = ["ndcg(gains=1:3;2:9)", "dcg(gains=0:1)", "ideal_dcg", "ideal_dcg(gains=2:0)@2"]
    res = rankset.evaluate(run, labels, names, confidence=None)
    # 1 -> 3, 2 -> 9: DCG 3/1 + 9/log2(4); ideal 9, 9, 3 (c, e, a)
    ndcg = (3 + 9 / 2) / (9 + 9 / math.log2(3) + 3 / 2)
    # 0 -> 1: a, b and c gain 1, 1, 2
    dcg = 1 + 1 / math.log2(3) + 2 / 2
    # plain gains 2, 2, 1 sorted; with 2 -> 0 only a (1) is left in the top 2
    expected = [ndcg, dcg, 2 + 2 / math.log2(3) + 1 / 2, 1.0]
    assert res.per_query["value"].to_list() == pytest.approx(expected)
    with pytest.raises(rankset.ParameterError, match="cannot read the gain map"):
        rankset.evaluate(run, labels, ["ndcg(gains=1=3)"])


def test_compat_by_hand() -> None:
    # ranking x (unlabelled), a (1); ideal b (2), a, c (1, unretrieved): depth 3, p 0.5.
    # Overlap: none at depth 1, {a} at 2 and 3: 0.5 x 1/2 + 0.25 x 1/3 over 1 + 0.5 + 0.25;
    # the ideal with itself overlaps fully (1.75 / 1.75), so normalising changes nothing.
    run = {"q": {"x": 2.0, "a": 1.0}}
    labels = {"q": {"a": 1, "b": 2, "c": 1}}
    names = ["compat(p=0.5)", "compat(p=0.5,normalize=0)", "compat(p=1)"]
    res = rankset.evaluate(run, labels, names, confidence=None)
    raw = (0.5 / 2 + 0.25 / 3) / 1.75
    # p = 1: every depth weighs 1; best: 1 + 1 + 1 (the ideal with itself) over 3
    flat = (1 / 2 + 1 / 3) / (1 + 1 + 1)
    assert res.per_query["value"].to_list() == pytest.approx([raw, raw, flat])


def test_rbp_binary_by_hand() -> None:
    # grades 0, 2, 1, 3 at ranks 1-4: relevant at rel 1 are ranks 2-4, at rel 2 ranks 2, 4
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    labels = {"q": {"a": 0, "b": 2, "c": 1, "d": 3}}
    names = ["rbp_binary", "rbp_binary(p=0.5,rel=2)"]
    res = rankset.evaluate(run, labels, names, confidence=None)
    expected = [0.2 * (0.8 + 0.8**2 + 0.8**3), 0.5 * (0.5 + 0.5**3)]
    assert res.per_query["value"].to_list() == pytest.approx(expected)


def test_11pt_avg_over_chosen_recall_points() -> None:
    # 4 relevant labels, relevant at positions 1 and 5 (as above). Points 0.1 and 0.3:
    # 10.0 reads 0 and 1 relevant documents (1.0 and 1.0); 9.0.8 reads 1 and 2 (1.0, 0.4).
    run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
    labels = {"q": {"a": 1, "e": 1, "x": 1, "y": 1}}
    names = ["11pt_avg(points=0.3;0.1)", "11pt_avg(points=0.1;0.3,rounding=v9)"]
    res = rankset.evaluate(run, labels, names, confidence=None)
    assert res.per_query["value"].to_list() == pytest.approx([1.0, 0.7])
    with pytest.raises(rankset.ParameterError, match="cannot read the recall points"):
        rankset.evaluate(run, labels, ["11pt_avg(points=1.5)"])
