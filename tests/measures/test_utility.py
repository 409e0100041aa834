"""signed_gain, udcg and ragas_context_precision against plain-Python transcriptions.

The reference is written from the published definitions alone: the mean signed utility
of the top K; UDCG as its authors' code computes it (sigmoid of the mean of w * u over the
retrieved set, w = 1 for a relevant passage and -1/3 otherwise); ragas' context precision
(precision at each relevant position, over the relevant passages retrieved). Random runs
and utility labels (Hypothesis), every measure alone and all together.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankset

Ranking = dict[str, float]


def ordered(ranking: Ranking) -> list[str]:
    """Score descending, ties by doc id descending (trec_eval's rule)."""
    return [d for d, _ in sorted(ranking.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def signed_gain(ranking: Ranking, utility: dict[str, float], k: int) -> float:
    return sum(utility.get(d, 0.0) for d in ordered(ranking)[:k]) / k


def udcg(ranking: Ranking, utility: dict[str, float], k: int) -> float | None:
    top = ordered(ranking)[:k]
    if not top:
        return None
    terms = []
    for doc in top:
        u = utility.get(doc, 0.0)
        relevant = u > 0
        terms.append(u if relevant else (-1.0 / 3.0) * abs(u))
    return 1.0 / (1.0 + math.exp(-sum(terms) / len(terms)))


def ragas_context_precision(
    ranking: Ranking, grades: dict[str, float], k: int, rel: float
) -> float:
    top = ordered(ranking)[:k]
    hits, total = 0, 0.0
    for position, doc in enumerate(top, start=1):
        if grades.get(doc, -math.inf) >= rel:
            hits += 1
            total += hits / position
    return total / hits if hits else 0.0


DOCS = [f"d{i}" for i in range(8)]
utilities = st.dictionaries(
    st.sampled_from(DOCS),
    st.sampled_from([-1.0, -0.5, -0.25, 0.0, 0.3, 0.5, 1.0]),
    min_size=1,
    max_size=8,
)
rankings = st.dictionaries(
    st.sampled_from(DOCS), st.sampled_from([0.1, 0.5, 0.9, 1.3]), min_size=1, max_size=8
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    queries=st.lists(st.tuples(rankings, utilities), min_size=1, max_size=4),
    k=st.integers(1, 9),
)
def test_every_value_equals_the_transcription(
    queries: list[tuple[Ranking, dict[str, float]]], k: int
) -> None:
    run = {f"q{i}": ranking for i, (ranking, _) in enumerate(queries)}
    labels = {f"q{i}": utility for i, (_, utility) in enumerate(queries)}
    names = [f"signed_gain@{k}", f"udcg@{k}", f"ragas_context_precision@{k}"]
    together = rankset.evaluate(run, labels, names, confidence=None).per_query
    for name in names:
        alone = rankset.evaluate(run, labels, [name], confidence=None).per_query
        for i, (ranking, utility) in enumerate(queries):
            if name.startswith("signed_gain"):
                expected: float | None = signed_gain(ranking, utility, k)
            elif name.startswith("udcg"):
                expected = udcg(ranking, utility, k)
            else:
                expected = ragas_context_precision(ranking, utility, k, 1.0)
            for frame in (alone, together):
                got = frame.filter(query_id=f"q{i}", metric=name)["value"][0]
                assert got == pytest.approx(expected, abs=1e-12), (name, i)


def test_by_hand_and_against_harm_and_ap() -> None:
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    utility = {"q": {"a": 0.0, "b": -1.0, "c": 0.0, "d": -1.0}}
    res = rankset.evaluate(run, utility, ["signed_gain@4", "udcg@4"], confidence=None)
    values = dict(res.per_query.select("metric", "value").rows())
    assert values["signed_gain@4"] == pytest.approx(-0.5)
    assert values["udcg@4"] == pytest.approx(1 / (1 + math.exp((2 / 3) / 4)))
    # harm@k counts distractors over k: signed_gain with 0 / -1 utilities is its opposite
    tiers = {"q": {"a": 5, "b": 1, "c": 5, "d": 2}}
    harm = rankset.evaluate(run, tiers, ["harm@4"], confidence=None).per_query["value"][0]
    assert values["signed_gain@4"] == -harm
    # ragas divides by relevant retrieved within k, AP by every relevant label
    graded = {"q": {"b": 1, "d": 1, "z": 1}}
    out = rankset.evaluate(run, graded, ["ragas_context_precision@4", "ap@4"], confidence=None)
    got = dict(out.per_query.select("metric", "value").rows())
    precision_sum = 1 / 2 + 2 / 4
    assert got["ragas_context_precision@4"] == pytest.approx(precision_sum / 2)
    assert got["ap@4"] == pytest.approx(precision_sum / 3)


def test_udcg_is_na_when_nothing_is_retrieved() -> None:
    res = rankset.evaluate(
        {"q1": {"a": 1.0}}, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, ["udcg@3"],
        missing="zero", confidence=None,
    )  # fmt: skip
    values = dict(res.per_query.select("query_id", "value").rows())
    assert values["q1"] == pytest.approx(1 / (1 + math.exp(-1.0)))
    assert values["q2"] is None
