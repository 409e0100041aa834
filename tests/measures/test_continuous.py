"""Measures of real-valued gains (``rankset.measures.continuous``) and eRAG's labels.

Expected values come from eRAG's own code (``erag.eval``): its outputs on its README
example are committed in ``tests/data/erag/expected.json``, and, where ``erag`` is
importable, it is run live on that example and on seeded random cases. The rest are
computed by hand or by plain-Python formulas below (no rankset code).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset
from _support import erag_reference
from rankset.errors import UnknownMetricError
from rankset.io import read_erag
from rankset.measures import greater_is_better, parse_metric
from rankset.measures.continuous import erag_metric

DATA = Path(__file__).parents[1] / "data" / "erag"
EXPECTED = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))
EXAMPLE = json.loads((DATA / "readme_example.json").read_text(encoding="utf-8"))
TOLERANCE = 1e-12


def _values(
    run: Any, labels: Any, metrics: list[str], **options: Any
) -> dict[tuple[str, str], float]:
    result = rankset.evaluate(run, labels, metrics, confidence=None, **options)
    rows = result.per_query.select("query_id", "metric", "value").rows()
    return {(query, metric): value for query, metric, value in rows}


def _rankset_like_erag(
    scores: Mapping[str, list[float]], erag_names: list[str], *, continuous: bool
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """rankset's per-query values and means, keyed as eRAG keys its result."""
    run, labels = read_erag(scores)
    names = {
        name: parse_metric(erag_metric(name, continuous=continuous)).name for name in erag_names
    }
    result = rankset.evaluate(run, labels, sorted(set(names.values())), confidence=None)
    rows = result.per_query.select("query_id", "metric", "value").rows()
    value = {(query, metric): v for query, metric, v in rows}
    per_input = {q: {name: value[q, metric] for name, metric in names.items()} for q in scores}
    means = dict(result.summary.select("metric", "mean").rows())
    return per_input, {name: means[metric] for name, metric in names.items()}


def _assert_close(actual: Mapping[str, Any], expected: Mapping[str, Any], where: str) -> None:
    assert set(actual) == set(expected), where
    for key, value in expected.items():
        assert actual[key] == pytest.approx(value, abs=TOLERANCE, rel=0), f"{where}: {key}"


# --- hand-computed values --------------------------------------------------------------

# Labels: d0 0, d1 0.5, d2 1, x -1 (pooled, unjudged), y 0.25 (not retrieved).
# Ranking d1 u x d2 d0 (u unlabelled): gains 0.5, 0, 0, 1, 0 by position.
HAND_LABELS = {
    "q": {"d0": 0.0, "d1": 0.5, "d2": 1.0, "x": -1.0, "y": 0.25},
    "r": {"a": 0.0},
}
HAND_RUN = {"q": {"d1": 5.0, "u": 4.0, "x": 3.0, "d2": 2.0, "d0": 1.0}, "r": {"a": 1.0}}
HAND = {
    ("q", "mean_gain@2"): 0.5 / 2,
    ("q", "mean_gain@10"): 1.5 / 10,  # divides by k past the end, as precision@k
    ("q", "mean_gain"): 1.5 / 5,  # no cutoff: over the documents retrieved
    ("q", "max_gain@1"): 0.5,
    ("q", "max_gain@3"): 0.5,
    ("q", "max_gain@4"): 1.0,
    ("q", "max_gain"): 1.0,
    ("q", "gain_recall@1"): 0.5 / 1.75,  # all positive gains: 0.5 + 1 + 0.25
    ("q", "gain_recall@4"): 1.5 / 1.75,
    ("q", "gain_recall"): 1.5 / 1.75,
    ("r", "mean_gain@2"): 0.0,
    ("r", "mean_gain"): 0.0,
    ("r", "max_gain@1"): 0.0,
    ("r", "max_gain"): 0.0,
    ("r", "gain_recall@4"): 0.0,  # no positive gain in the labels: 0, not NA
}


def test_hand_computed_values() -> None:
    metrics = sorted({metric for _, metric in HAND})
    got = _values(HAND_RUN, HAND_LABELS, metrics)
    for (query, metric), expected in HAND.items():
        assert got[query, metric] == pytest.approx(expected, abs=TOLERANCE), (query, metric)


def test_unanswered_query_scores_zero() -> None:
    labels = {"q": {"a": 0.5}, "r": {"b": 1.0}}
    got = _values({"q": {"a": 1.0}}, labels, ["mean_gain", "max_gain@3"], missing="zero")
    assert got["r", "mean_gain"] == 0.0
    assert got["r", "max_gain@3"] == 0.0
    assert got["q", "max_gain@3"] == 0.5


def test_per_query_cutoff() -> None:
    cutoffs = pl.DataFrame({"query_id": ["q"], "k": [4]})
    got = _values(HAND_RUN, HAND_LABELS, ["mean_gain@k", "max_gain@k"], cutoffs=cutoffs)
    assert got["q", "mean_gain@k"] == pytest.approx(1.5 / 4, abs=TOLERANCE)
    assert got["q", "max_gain@k"] == 1.0


def test_names_and_aliases() -> None:
    assert parse_metric("generalized_precision@5").name == "mean_gain@5"
    assert parse_metric("generalized_recall").name == "gain_recall"
    assert greater_is_better("max_gain@3")


@pytest.mark.parametrize(
    ("name", "continuous", "expected"),
    [
        ("P_10", True, "mean_gain@10"),
        ("P", True, "mean_gain"),
        ("success_1", True, "max_gain@1"),
        ("success", True, "max_gain"),
        ("P_10", False, "P_10"),
        ("ndcg_cut_10", False, "ndcg_cut_10"),
    ],
)
def test_erag_metric_names(name: str, continuous: bool, expected: str) -> None:
    assert erag_metric(name, continuous=continuous) == expected


@pytest.mark.parametrize("name", ["map", "ndcg_cut_10", "recall_5", "P_x"])
def test_erag_metric_refuses_what_erag_refuses(name: str) -> None:
    with pytest.raises(UnknownMetricError, match="only P and success on continuous labels"):
        erag_metric(name)


# --- eRAG's outputs on its README example (committed) -----------------------------------


@pytest.mark.parametrize("case", sorted(EXPECTED["cases"]))
def test_erag_readme_example(case: str) -> None:
    expected = EXPECTED["cases"][case]
    continuous = case == "f1"
    assert continuous == any(
        score not in (0, 1) for scores in expected["scores"].values() for score in scores
    )
    per_input, means = _rankset_like_erag(
        expected["scores"], expected["retrieval_metrics"], continuous=continuous
    )
    for query, values in expected["per_input"].items():
        _assert_close(per_input[query], values, f"{case}, {query}")
    _assert_close(means, expected["aggregated"], f"{case}, aggregated")


def test_erag_scores_are_the_example_queries() -> None:
    for case in EXPECTED["cases"].values():
        lengths = {q: len(scores) for q, scores in case["scores"].items()}
        assert lengths == {q: len(docs) for q, docs in EXAMPLE["retrieval_results"].items()}


# --- eRAG's own code, live ---------------------------------------------------------------


@pytest.fixture(scope="module")
def erag_eval() -> Any:
    erag = pytest.importorskip("erag", reason="eRAG is not installed (pip install erag)")
    return erag.eval


@pytest.mark.parametrize("case", sorted(EXPECTED["cases"]))
def test_committed_outputs_are_erags(erag_eval: Any, case: str) -> None:
    expected = EXPECTED["cases"][case]
    scores, result = erag_reference.run_erag(
        erag_eval,
        EXAMPLE["retrieval_results"],
        EXAMPLE["expected_outputs"],
        getattr(erag_reference, expected["downstream_metric"]),
        expected["retrieval_metrics"],
    )
    assert scores == expected["scores"]
    assert result["per_input"] == expected["per_input"]
    assert result["aggregated"] == expected["aggregated"]


CONTINUOUS_NAMES = ["P_1", "P_2", "P_3", "P", "success_1", "success_2", "success_3", "success"]
BINARY_NAMES = [
    *("P_1", "P_3", "success_1", "success_3", "map", "recip_rank", "ndcg"),
    *("ndcg_cut_3", "recall_3", "Rprec"),
]


def _random_case(rng: random.Random, *, continuous: bool) -> dict[str, list[float]]:
    def score() -> float:
        if not continuous:
            return float(rng.random() < 0.4)
        return rng.choice([0.0, 1.0, rng.random(), round(rng.random(), 2), rng.random()])

    queries = {
        f"q{i}": [score() for _ in range(rng.randint(3, 8))] for i in range(rng.randint(1, 5))
    }
    if continuous and all(s in (0.0, 1.0) for scores in queries.values() for s in scores):
        queries["q0"][0] = 0.37  # eRAG takes its continuous path only then
    return queries


@pytest.mark.parametrize("continuous", [True, False], ids=["continuous", "binary"])
def test_random_cases_against_erag(erag_eval: Any, continuous: bool) -> None:
    """120 seeded cases per kind: eRAG's per-query values, every one, to 1e-12."""
    rng = random.Random(20240714 + continuous)
    names = CONTINUOUS_NAMES if continuous else BINARY_NAMES
    merged: dict[str, list[float]] = {}
    expected: dict[str, dict[str, float]] = {}
    for case in range(120):
        queries = _random_case(rng, continuous=continuous)
        documents = {q: [f"{case}/{q}/{i}" for i in range(len(s))] for q, s in queries.items()}
        table = {doc: s for q, s in queries.items() for doc, s in zip(documents[q], s, strict=True)}
        answers = {q: ["-"] for q in queries}
        _, result = erag_reference.run_erag(
            erag_eval, documents, answers, erag_reference.lookup_metric(table), names
        )
        for query, scores in queries.items():
            merged[f"{case}/{query}"] = scores
            expected[f"{case}/{query}"] = result["per_input"][query]
    per_input, _ = _rankset_like_erag(merged, names, continuous=continuous)
    for query, values in expected.items():
        _assert_close(per_input[query], values, query)


# --- float grades: the measures that take the grade as a gain ---------------------------


def _random_float_labels(seed: int) -> tuple[dict[str, dict[str, float]], dict[str, list[str]]]:
    """Labels in -1..1 (negative: pooled, unjudged), rankings with unlabelled documents."""
    rng = random.Random(seed)
    labels: dict[str, dict[str, float]] = {}
    rankings: dict[str, list[str]] = {}
    for q in range(40):
        docs = [f"d{i}" for i in range(rng.randint(2, 12))]
        labels[f"q{q}"] = {
            d: rng.choice([0.0, 1.0, -1.0, rng.random(), rng.random()])
            for d in docs
            if rng.random() < 0.8
        } or {docs[0]: 0.5}
        rankings[f"q{q}"] = rng.sample(docs, rng.randint(1, len(docs)))
    return labels, rankings


def _as_run(rankings: Mapping[str, list[str]]) -> dict[str, dict[str, float]]:
    return {
        q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in rankings.items()
    }


def _reference(labels: Mapping[str, float], ranking: list[str], k: int) -> dict[str, float]:
    """Plain-Python formulas of the gain measures at cutoff k (gain = max(grade, 0))."""
    gains = [max(labels.get(d, 0.0), 0.0) for d in ranking]
    top = gains[:k]
    ideal = sorted((max(g, 0.0) for g in labels.values()), reverse=True)[:k]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(top))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    total = sum(max(g, 0.0) for g in labels.values())
    return {
        f"ndcg@{k}": dcg / idcg if idcg > 0 else 0.0,
        f"dcg@{k}": dcg,
        f"mean_gain@{k}": sum(top) / k,
        f"max_gain@{k}": max(top, default=0.0),
        f"gain_recall@{k}": sum(top) / total if total > 0 else 0.0,
        "rbp(p=0.8)": 0.2 * sum(g * 0.8**i for i, g in enumerate(gains)),
        "mean_gain": sum(gains) / len(gains),
    }


@pytest.mark.parametrize("k", [1, 3, 10])
def test_gain_measures_on_float_grades(k: int) -> None:
    labels, rankings = _random_float_labels(k)
    metrics = [f"ndcg@{k}", f"dcg@{k}", f"mean_gain@{k}", f"max_gain@{k}", f"gain_recall@{k}"]
    metrics += ["rbp(p=0.8)", "mean_gain"]
    got = _values(_as_run(rankings), labels, metrics)
    for query, ranking in rankings.items():
        for metric, expected in _reference(labels[query], ranking, k).items():
            assert got[query, metric] == pytest.approx(expected, abs=TOLERANCE), (query, metric)


def test_zero_one_grades_reduce_to_the_binary_measures() -> None:
    """On 0/1 grades the gain measures are precision, hit and recall, bit for bit."""
    rng = random.Random(7)
    labels = {
        f"q{q}": {f"d{i}": float(rng.random() < 0.3) for i in range(rng.randint(1, 9))}
        for q in range(60)
    }
    rankings = {
        q: rng.sample([*docs, "u1", "u2"], rng.randint(1, len(docs) + 2))
        for q, docs in labels.items()
    }
    pairs = {"mean_gain": "precision", "max_gain": "hit", "gain_recall": "recall"}
    metrics = [f"{name}@{k}" for name in [*pairs, *pairs.values()] for k in (1, 3, 5)]
    metrics += ["signed_gain@3"]
    got = _values(_as_run(rankings), labels, metrics)
    for query in rankings:
        for gain_measure, binary in pairs.items():
            for k in (1, 3, 5):
                assert got[query, f"{gain_measure}@{k}"] == got[query, f"{binary}@{k}"]
        # signed_gain reads the same sum when no grade is negative
        assert got[query, "signed_gain@3"] == got[query, "mean_gain@3"]
