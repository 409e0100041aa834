"""Retrieval-versus-reranking diagnosis and the two-run regression view.

Hand cases first (every expected value worked out in the comments), then the rule
expressions against plain-Python restatements (Hypothesis), then real TREC DL19 runs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankset
from rankset.diagnosis.quadrants import (
    CHANGES,
    QUADRANTS,
    Diagnosis,
    diagnose,
    regression_counts,
    regressions,
)
from rankset.errors import ParameterError, SchemaError

# --- diagnose: hand cases -------------------------------------------------------------
#
# rag5 scale, k = 2. Weights: tier 5 -> 1; tiers 1 and 2 -> 0; with one tier-5 and one
# tier-4 passage (N = 2), w4 = min(0.5 * (1/2) / (1/2), 1) = 0.5, so oracle@2 = 1.5.
LABELS = {
    "qh": {"a": 5, "b": 5, "c": 1},  # oracle@2 = 2
    "qe": {"a": 5, "b": 5, "c": 1},  # oracle@2 = 2
    "qr": {"a": 5, "b": 5, "c": 1, "d": 1},  # oracle@2 = 2
    "qt": {"a": 5, "b": 4},  # oracle@2 = 1.5
    "qb": {"a": 5, "b": 4},  # oracle@2 = 1.5
    "qz": {"a": 5, "b": 1},  # oracle@2 = 1
    "qn": {"a": 1, "b": 2},  # oracle@2 = 0: every RAG value is NA
}
S1 = {
    # top 2 = {a, b}: ra 2/2 = 1, proc 1, pct 1 -> healthy
    "qh": {"a": 3.0, "b": 2.0, "c": 1.0},
    # top 2 = {c, a}: ra 1/2, proc 1, pct 0.5 (exactly the default threshold) -> healthy
    "qe": {"c": 3.0, "a": 2.0, "b": 1.0},
    # top 2 = {c, d} weigh 0: ra 0, proc 1, pct 0 -> reranking miss
    "qr": {"c": 4.0, "d": 3.0, "a": 2.0, "b": 1.0},
    # pool = {b, x}: ra = proc = 0.5/1.5 = 1/3, pct 1 -> retrieval miss
    "qt": {"b": 2.0, "x": 1.0},
    # top 2 = {x, y}, b at rank 3: ra 0, proc 1/3, pct 0 -> both
    "qb": {"x": 3.0, "y": 2.0, "b": 1.0},
    # pool = {x, b} weighs 0: proc 0, pct NA -> retrieval miss
    "qz": {"x": 2.0, "b": 1.0},
    # no useful labelled evidence: proc NA -> no quadrant
    "qn": {"a": 1.0},
}
S2 = {"qh": S1["qh"], "qe": {"a": 3.0, "b": 2.0, "c": 1.0}}  # healthy twice, nothing else
RUNS = {"s1": S1, "s2": S2}

EXPECTED_S1 = {
    "qh": (1.0, 1.0, 1.0, "healthy"),
    "qe": (0.5, 1.0, 0.5, "healthy"),
    "qr": (0.0, 1.0, 0.0, "reranking miss"),
    "qt": (1 / 3, 1 / 3, 1.0, "retrieval miss"),
    "qb": (0.0, 1 / 3, 0.0, "both"),
    "qz": (0.0, 0.0, None, "retrieval miss"),
    "qn": (None, None, None, None),
}


def _quadrants(diag: Diagnosis, system: str = "s1") -> dict[str, str | None]:
    rows = diag.per_query.filter(pl.col("system") == system).select("query_id", "quadrant")
    return dict(rows.iter_rows())


def _counts(diag: Diagnosis) -> dict[tuple[str, str | None], tuple[int, float | None]]:
    return {
        (row["system"], row["quadrant"]): (row["n_queries"], row["share"])
        for row in diag.counts.iter_rows(named=True)
    }


def test_hand_values_and_quadrants() -> None:
    diag = diagnose(RUNS, LABELS, k=2)
    rows = diag.per_query.filter(pl.col("system") == "s1")
    assert rows.columns == ["system", "query_id", "k", "ra_nwg", "proc", "pct_proc", "quadrant"]
    assert rows["k"].to_list() == [2] * 7
    got = {r[1]: r[3:] for r in rows.iter_rows()}
    assert set(got) == set(EXPECTED_S1)
    for query, (ra, proc, pct, quadrant) in EXPECTED_S1.items():
        got_ra, got_proc, got_pct, got_quadrant = got[query]
        for value, want in ((got_ra, ra), (got_proc, proc), (got_pct, pct)):
            assert (value is None) == (want is None), query
            if want is not None:
                assert value == pytest.approx(want), query
        assert got_quadrant == quadrant, query
    assert diag.thresholds == {"proc": 0.5, "pct_proc": 0.5}


def test_rows_sorted_by_system_quadrant_query() -> None:
    diag = diagnose(RUNS, LABELS, k=2)
    assert diag.per_query.select("system", "query_id").rows() == [
        ("s1", "qe"),  # healthy
        ("s1", "qh"),
        ("s1", "qt"),  # retrieval miss
        ("s1", "qz"),
        ("s1", "qr"),  # reranking miss
        ("s1", "qb"),  # both
        ("s1", "qn"),  # unclassifiable last
        ("s2", "qe"),
        ("s2", "qh"),
    ]


def test_counts_include_zero_rows_and_the_unclassifiable_row() -> None:
    diag = diagnose(RUNS, LABELS, k=2)
    assert diag.counts.columns == ["system", "quadrant", "n_queries", "share"]
    assert diag.counts.select("system", "quadrant").rows() == [
        (system, quadrant) for system in ("s1", "s2") for quadrant in (*QUADRANTS, None)
    ]
    counts = _counts(diag)
    # s1: six classifiable queries (qn is not)
    assert counts["s1", "healthy"] == (2, pytest.approx(2 / 6))
    assert counts["s1", "retrieval miss"] == (2, pytest.approx(2 / 6))
    assert counts["s1", "reranking miss"] == (1, pytest.approx(1 / 6))
    assert counts["s1", "both"] == (1, pytest.approx(1 / 6))
    assert counts["s1", None] == (1, None)
    assert counts["s2", "healthy"] == (2, 1.0)
    for quadrant in ("retrieval miss", "reranking miss", "both"):
        assert counts["s2", quadrant] == (0, 0.0)
    assert counts["s2", None] == (0, None)
    assert diag.wide().rows() == [("s1", 2, 2, 1, 1, 1), ("s2", 2, 0, 0, 0, 0)]


def test_thresholds_move_queries_between_quadrants() -> None:
    # qe's pct_proc is exactly 0.5: healthy at >= 0.5, a reranking miss above it
    assert _quadrants(diagnose(RUNS, LABELS, k=2, pct_proc_threshold=0.6))["qe"] == (
        "reranking miss"
    )
    # proc 1/3 clears a 0.3 threshold: qt becomes healthy, qb a reranking miss
    lowered = _quadrants(diagnose(RUNS, LABELS, k=2, proc_threshold=0.3))
    assert lowered["qt"] == "healthy"
    assert lowered["qb"] == "reranking miss"
    # an empty pool stays a retrieval miss even when every proc clears the threshold
    zero = diagnose(RUNS, LABELS, k=2, proc_threshold=0.0, pct_proc_threshold=0.0)
    assert _quadrants(zero)["qz"] == "retrieval miss"
    assert _quadrants(zero)["qn"] is None
    assert zero.thresholds == {"proc": 0.0, "pct_proc": 0.0}
    # the strictest thresholds: only perfect queries stay healthy
    strict = _quadrants(diagnose(RUNS, LABELS, k=2, proc_threshold=1, pct_proc_threshold=1))
    assert strict["qh"] == "healthy"
    assert strict["qe"] == "reranking miss"


def test_result_input_gives_the_same_diagnosis() -> None:
    result = rankset.evaluate(RUNS, LABELS, ["pct_proc@2", "proc@2", "ra_nwg@2", "ndcg@2"])
    from_result = diagnose(result, k=2)
    from_runs = diagnose(RUNS, LABELS, k=2)
    assert from_result.per_query.equals(from_runs.per_query)
    assert from_result.counts.equals(from_runs.counts)


def test_evaluate_options_are_passed_on() -> None:
    # A reranker that returned only its top 2; the first stage held a and b too.
    top_only = {"qr": {"c": 2.0, "d": 1.0}}
    first_stage = {"qr": S1["qr"]}
    assert _quadrants(diagnose(top_only, LABELS, k=2, names=["r"]), "r") == {
        "qr": "retrieval miss"  # own list as pool: proc 0
    }
    pooled = diagnose(top_only, LABELS, k=2, names=["r"], pool=first_stage)
    assert _quadrants(pooled, "r") == {"qr": "reranking miss"}  # proc 1, pct 0


def test_trec_dl_scale() -> None:
    # trec_dl: 3 -> tier 5, 2 -> tier 4, 0 -> tier 1; w4 = 0.5 as above, oracle@1 = 1
    labels = {"q1": {"a": 3, "b": 2, "z": 0}, "q2": {"a": 3, "b": 2, "z": 0}}
    run = {"q1": {"b": 2.0, "a": 1.0}, "q2": {"b": 2.0, "z": 1.0}}
    diag = diagnose(run, labels, k=1, scale="trec_dl")
    rows = {r[1]: r[3:] for r in diag.per_query.iter_rows()}
    assert rows["q1"] == (0.5, 1.0, 0.5, "healthy")  # ra 0.5, proc 1
    assert rows["q2"] == (0.5, 0.5, 1.0, "healthy")  # pool lacks a: proc 0.5
    strict = diagnose(run, labels, k=1, scale="trec_dl", proc_threshold=0.6, pct_proc_threshold=0.6)
    assert _quadrants(strict, "run") == {"q1": "reranking miss", "q2": "retrieval miss"}


def _result(rows: list[tuple[str, str, str, float | None]]) -> rankset.EvaluationResult:
    """A hand-made result: (system, query_id, metric, value) rows."""
    per_query = pl.DataFrame(
        [
            (system, query, metric, metric.split("@")[0], int(metric.split("@")[1]), value)
            for system, query, metric, value in rows
        ],
        schema={
            "system": pl.String,
            "query_id": pl.String,
            "metric": pl.String,
            "measure": pl.String,
            "k": pl.Int64,
            "value": pl.Float64,
        },
        orient="row",
    )
    metrics = list(dict.fromkeys(per_query["metric"]))
    return rankset.EvaluationResult(
        per_query=per_query,
        summary=pl.DataFrame(),
        query_counts=pl.DataFrame(),
        config={"metrics": metrics},
    )


def test_pct_proc_na_with_a_positive_proc_is_unclassifiable() -> None:
    result = _result(
        [("s", "q", "ra_nwg@3", 0.2), ("s", "q", "proc@3", 0.8), ("s", "q", "pct_proc@3", None)]
    )
    diag = diagnose(result, k=3)
    assert diag.per_query["quadrant"].to_list() == [None]
    assert _counts(diag)["s", None] == (1, None)
    assert _counts(diag)["s", "healthy"] == (0, None)  # no classifiable query: share NA


def test_result_missing_a_metric_is_an_error() -> None:
    result = rankset.evaluate(RUNS, LABELS, ["ra_nwg@2", "proc@2", "ndcg@2"])
    with pytest.raises(
        ParameterError, match=r"lacks pct_proc@2; it holds: ra_nwg@2, proc@2, ndcg@2\.$"
    ):
        diagnose(result, k=2)
    with pytest.raises(ParameterError, match="lacks ra_nwg@5, proc@5, pct_proc@5"):
        diagnose(result, k=5)


def test_result_with_labels_or_options_is_an_error() -> None:
    result = rankset.evaluate(RUNS, LABELS, ["ra_nwg@2", "proc@2", "pct_proc@2"])
    with pytest.raises(ParameterError, match="labels and evaluation options"):
        diagnose(result, LABELS, k=2)
    with pytest.raises(ParameterError, match="labels and evaluation options"):
        diagnose(result, k=2, scale="trec_dl")


@pytest.mark.parametrize("name", ["proc_threshold", "pct_proc_threshold"])
@pytest.mark.parametrize(
    ("value", "shown"),
    [(2, "2"), (-0.1, "-0.1"), (1.5, "1.5"), (math.nan, "nan"), (True, "True"), ("0.5", "'0.5'")],
)
def test_bad_thresholds(name: str, value: Any, shown: str) -> None:
    expected = f"The '{name}' parameter must be a float in [0, 1]. Got {shown} instead."
    with pytest.raises(ParameterError) as info:
        diagnose(RUNS, LABELS, k=2, **{name: value})
    assert str(info.value) == expected


@pytest.mark.parametrize("k", [0, -1, 2.0, True])
def test_bad_k(k: Any) -> None:
    with pytest.raises(ParameterError, match=r"The 'k' parameter must be an int >= 1\."):
        diagnose(RUNS, LABELS, k=k)


def test_repr_is_small() -> None:
    diag = diagnose(RUNS, LABELS, k=2)
    text = repr(diag)
    assert text.splitlines()[0] == (
        "Diagnosis at k=2: 9 (system, query) pairs, thresholds PROC 0.5, %PROC 0.5"
    )
    assert "unclassified" in text
    assert len(text.splitlines()) < 15
    assert "<table" in diag._repr_html_()


# --- regressions: hand cases ----------------------------------------------------------

# query -> (recall baseline, recall candidate, ndcg baseline, ndcg candidate, class)
CASES: dict[str, tuple[float, float, float, float, str]] = {
    "q_cov_down": (1.0, 0.5, 0.9, 0.6, "coverage regression"),
    "q_cov_up": (1.0, 0.5, 0.5, 0.7, "coverage regression"),  # nDCG rose, recall fell
    "q_cov_held": (1.0, 0.5, 0.5, 0.5, "coverage regression"),
    "q_order": (1.0, 1.0, 0.9, 0.7, "ordering regression"),
    "q_mixed": (0.5, 1.0, 0.9, 0.8, "mixed"),
    "q_recall_up": (0.5, 1.0, 0.8, 0.8, "improved"),  # nDCG held
    "q_both_up": (0.5, 1.0, 0.5, 0.9, "improved"),
    "q_ndcg_up": (1.0, 1.0, 0.5, 0.9, "improved"),
    "q_same": (1.0, 1.0, 0.5, 0.5, "unchanged"),
    "q_noise": (1.0, 1.0, 0.3, 0.1 + 0.2, "unchanged"),  # 0.30000000000000004
}


def _pair_result(
    cases: dict[str, tuple[float, float, float, float, str]], k: int = 10
) -> rankset.EvaluationResult:
    rows: list[tuple[str, str, str, float | None]] = []
    for query, (rb, rc, nb, nc, _) in cases.items():
        rows += [
            ("base", query, f"recall@{k}", rb),
            ("base", query, f"ndcg@{k}", nb),
            ("cand", query, f"recall@{k}", rc),
            ("cand", query, f"ndcg@{k}", nc),
        ]
    return _result(rows)


def test_every_class_by_hand() -> None:
    frame = regressions(_pair_result(CASES), "base", "cand")
    assert frame.columns == [
        "query_id",
        "recall_baseline",
        "recall_candidate",
        "recall_delta",
        "ndcg_baseline",
        "ndcg_candidate",
        "ndcg_delta",
        "change",
    ]
    assert dict(frame.select("query_id", "change").iter_rows()) == {
        query: case[4] for query, case in CASES.items()
    }
    row = frame.filter(pl.col("query_id") == "q_cov_down").row(0, named=True)
    assert row["recall_delta"] == pytest.approx(-0.5)
    assert row["ndcg_delta"] == pytest.approx(-0.3)
    assert row["ndcg_baseline"] == 0.9
    assert row["ndcg_candidate"] == 0.6
    # worst class first, then the largest nDCG fall first
    assert frame["query_id"].to_list()[:4] == ["q_cov_down", "q_cov_held", "q_cov_up", "q_order"]
    assert frame["change"].to_list()[-1] == "improved"


def test_regression_counts_list_every_class() -> None:
    counts = regression_counts(regressions(_pair_result(CASES), "base", "cand"))
    assert counts.columns == ["change", "n_queries", "share", "query_ids"]
    assert counts.select("change", "n_queries", "query_ids").rows() == [
        ("coverage regression", 3, ["q_cov_down", "q_cov_held", "q_cov_up"]),
        ("ordering regression", 1, ["q_order"]),
        ("mixed", 1, ["q_mixed"]),
        ("unchanged", 2, ["q_noise", "q_same"]),
        ("improved", 3, ["q_both_up", "q_ndcg_up", "q_recall_up"]),
    ]
    assert counts["share"].to_list() == pytest.approx([0.3, 0.1, 0.1, 0.2, 0.3])
    # no query in common: nothing compared, every class at zero, share NA
    disjoint = _result(
        [
            ("base", "q1", "recall@10", 1.0),
            ("base", "q1", "ndcg@10", 1.0),
            ("cand", "q2", "recall@10", 1.0),
            ("cand", "q2", "ndcg@10", 1.0),
        ]
    )
    empty = regression_counts(regressions(disjoint, "base", "cand"))
    assert empty.rows() == [(change, 0, None, []) for change in CHANGES]


def test_regression_counts_needs_the_regressions_frame() -> None:
    with pytest.raises(SchemaError, match="lacks the column\\(s\\) 'change'"):
        regression_counts(pl.DataFrame({"query_id": ["q"]}))


def test_tolerance() -> None:
    # recall 1 -> 0.99, nDCG 0.5 -> 0.45
    cases = {"q": (1.0, 0.99, 0.5, 0.45, "")}
    result = _pair_result(cases)
    changes = [
        regressions(result, "base", "cand", tolerance=tol)["change"].item()
        for tol in (1e-9, 0.02, 0.1)
    ]
    assert changes == ["coverage regression", "ordering regression", "unchanged"]
    # a delta equal to the tolerance counts as held
    exact = _pair_result({"q": (0.5, 0.5, 0.5, 0.75, "")})
    assert regressions(exact, "base", "cand", tolerance=0.25)["change"].item() == "unchanged"
    with pytest.raises(ParameterError, match="The 'tolerance' parameter must be a float >= 0"):
        regressions(result, "base", "cand", tolerance=-0.1)


def test_na_and_missing_queries_are_left_out() -> None:
    rows: list[tuple[str, str, str, float | None]] = [
        ("base", "q1", "recall@10", 1.0),
        ("base", "q1", "ndcg@10", 0.5),
        ("cand", "q1", "recall@10", 1.0),
        ("cand", "q1", "ndcg@10", 0.4),
        # NA nDCG on the baseline
        ("base", "q2", "recall@10", 1.0),
        ("base", "q2", "ndcg@10", None),
        ("cand", "q2", "recall@10", 1.0),
        ("cand", "q2", "ndcg@10", 0.4),
        # only the baseline answered q3, only the candidate q4
        ("base", "q3", "recall@10", 1.0),
        ("base", "q3", "ndcg@10", 0.5),
        ("cand", "q4", "recall@10", 1.0),
        ("cand", "q4", "ndcg@10", 0.5),
        # another system is ignored
        ("other", "q1", "recall@10", 0.0),
        ("other", "q1", "ndcg@10", 0.0),
    ]
    frame = regressions(_result(rows), "base", "cand")
    assert frame.select("query_id", "change").rows() == [("q1", "ordering regression")]


def test_evaluated_runs_by_hand() -> None:
    labels = {"q1": {"a": 1, "b": 1}}
    runs = {
        "base": {"q1": {"a": 3.0, "b": 2.0, "x": 1.0}},
        "new": {"q1": {"x": 3.0, "a": 2.0, "b": 1.0}},
    }
    result = rankset.evaluate(runs, labels, ["recall@3", "ndcg@3", "recall@2", "ndcg@2"])
    # @3: both retrieve a and b (recall 1); the candidate ranks them 2 and 3
    at3 = regressions(result, "base", "new", k=3).row(0, named=True)
    ideal = 1 + 1 / math.log2(3)
    assert at3["ndcg_candidate"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / ideal)
    assert at3["recall_delta"] == 0.0
    assert at3["change"] == "ordering regression"
    # @2: the candidate's top 2 holds only a: recall 1 -> 0.5
    at2 = regressions(result, "base", "new", recall_metric="R@2", ndcg_metric="ndcg_cut_2")
    assert at2.row(0, named=True)["recall_delta"] == -0.5
    assert at2["change"].item() == "coverage regression"


def test_metric_and_system_errors() -> None:
    result = _pair_result(CASES, k=10)
    with pytest.raises(
        ParameterError, match=r"no 'ndcg@5' \(the ndcg_metric.*it holds: recall@10, ndcg@10\."
    ):
        regressions(result, "base", "cand", recall_metric="recall@10", ndcg_metric="nDCG@5")
    with pytest.raises(ParameterError, match=r"no 'recall@5' \(the recall_metric"):
        regressions(result, "base", "cand", k=5)
    with pytest.raises(ParameterError, match=r"baseline system 'bm25' is not in the result"):
        regressions(result, "bm25", "cand")
    with pytest.raises(ParameterError, match=r"it holds: base, cand\.$"):
        regressions(result, "base", "splade")
    with pytest.raises(ParameterError, match="different systems"):
        regressions(result, "base", "base")
    with pytest.raises(ParameterError, match="must differ"):
        regressions(result, "base", "cand", recall_metric="ndcg@10", ndcg_metric="ndcg@10")
    with pytest.raises(ParameterError, match=r"The 'k' parameter must be an int >= 1"):
        regressions(result, "base", "cand", k=0)


def test_cutoff_inferred_only_when_unambiguous() -> None:
    one = _pair_result(CASES, k=20)
    assert regressions(one, "base", "cand").height == len(CASES)
    rows: list[tuple[str, str, str, float | None]] = [
        (system, "q", f"{measure}@{k}", 1.0)
        for system in ("base", "cand")
        for measure in ("recall", "ndcg")
        for k in (5, 10)
    ]
    two = _result(rows)
    with pytest.raises(ParameterError, match=r"needs k=.*both at k = \[5, 10\]"):
        regressions(two, "base", "cand")
    assert regressions(two, "base", "cand", k=5)["change"].to_list() == ["unchanged"]
    none = _result([("base", "q", "precision@5", 1.0), ("cand", "q", "precision@5", 1.0)])
    with pytest.raises(ParameterError, match="no such pair"):
        regressions(none, "base", "cand")


# --- the rules against plain-Python restatements --------------------------------------

_VALUES = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])


def _reference_change(recall: float, ndcg: float, tol: float) -> str:
    def direction(delta: float) -> int:
        return -1 if delta < -tol else (1 if delta > tol else 0)

    cells = {
        (-1, -1): "coverage regression",
        (-1, 0): "coverage regression",
        (-1, 1): "coverage regression",
        (0, -1): "ordering regression",
        (0, 0): "unchanged",
        (0, 1): "improved",
        (1, -1): "mixed",
        (1, 0): "improved",
        (1, 1): "improved",
    }
    return cells[direction(recall), direction(ndcg)]


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.tuples(_VALUES, _VALUES, _VALUES, _VALUES), min_size=1, max_size=12),
    tol=st.sampled_from([0.0, 1e-9, 0.1, 0.3]),
)
def test_every_query_in_exactly_one_class(
    values: list[tuple[float, float, float, float]], tol: float
) -> None:
    cases = {f"q{i}": (*v, "") for i, v in enumerate(values)}
    frame = regressions(_pair_result(cases), "base", "cand", tolerance=tol)
    assert frame.height == len(values)
    for row in frame.iter_rows(named=True):
        rb, rc, nb, nc, _ = cases[row["query_id"]]
        assert row["change"] == _reference_change(rc - rb, nc - nb, tol)
    assert regression_counts(frame)["n_queries"].sum() == len(values)


def _reference_quadrant(proc: float | None, pct: float | None, tp: float, tq: float) -> str | None:
    if proc is None:
        return None
    if proc == 0:
        return "retrieval miss"
    if pct is None:
        return None
    high_proc, high_pct = proc >= tp, pct >= tq
    if high_proc:
        return "healthy" if high_pct else "reranking miss"
    return "retrieval miss" if high_pct else "both"


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.tuples(st.one_of(st.none(), _VALUES), st.one_of(st.none(), _VALUES)),
        min_size=1,
        max_size=12,
    ),
    tp=_VALUES,
    tq=_VALUES,
)
def test_quadrant_rules_match_a_plain_restatement(
    values: list[tuple[float | None, float | None]], tp: float, tq: float
) -> None:
    rows: list[tuple[str, str, str, float | None]] = []
    for i, (proc, pct) in enumerate(values):
        rows += [
            ("s", f"q{i}", "ra_nwg@4", None),
            ("s", f"q{i}", "proc@4", proc),
            ("s", f"q{i}", "pct_proc@4", pct),
        ]
    diag = diagnose(_result(rows), k=4, proc_threshold=tp, pct_proc_threshold=tq)
    got = dict(diag.per_query.select("query_id", "quadrant").iter_rows())
    want = {f"q{i}": _reference_quadrant(p, q, tp, tq) for i, (p, q) in enumerate(values)}
    assert got == want
    assert diag.counts["n_queries"].sum() == len(values)


# --- real data: TREC DL19 -------------------------------------------------------------

QRELS = "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz"
DL19_RUNS = {
    "bm25": "rank_llm_dl_runs/first_stage/bm25.dl19.trec.gz",
    "rankvicuna-over-bm25": "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-bm25.dl19.trec.gz",
    "splade": "rank_llm_dl_runs/first_stage/splade-pp-ed.dl19.trec.gz",
    "rankvicuna-over-splade": (
        "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-splade-pp-ed.dl19.trec.gz"
    ),
}
PAIRS = (("bm25", "rankvicuna-over-bm25"), ("splade", "rankvicuna-over-splade"))


@pytest.fixture(scope="module")
def dl19(shared_data: Path) -> rankset.EvaluationResult:
    runs = {name: shared_data / path for name, path in DL19_RUNS.items()}
    metrics = ["ra_nwg@10", "proc@10", "pct_proc@10", "recall@10", "ndcg@10"]
    return rankset.evaluate(runs, shared_data / QRELS, metrics, scale="trec_dl")


def test_dl19_quadrants(dl19: rankset.EvaluationResult) -> None:
    diag = diagnose(dl19, k=10)
    totals = diag.counts.group_by("system").agg(pl.col("n_queries").sum())
    assert dict(totals.iter_rows()) == dict.fromkeys(DL19_RUNS, 43)
    # every DL19 query has judged relevant passages: all 43 are classifiable
    assert diag.counts.filter(pl.col("quadrant").is_null())["n_queries"].to_list() == [0] * 4
    # recorded from this implementation (default thresholds 0.5 / 0.5); the rerankings
    # move queries from reranking miss to healthy, never across the proc threshold
    assert diag.wide().rows() == [  # the systems in the order the runs were given
        ("bm25", 15, 4, 18, 6, 0),
        ("rankvicuna-over-bm25", 26, 5, 7, 5, 0),
        ("splade", 30, 0, 9, 4, 0),
        ("rankvicuna-over-splade", 29, 3, 10, 1, 0),
    ]
    assert list(DL19_RUNS) == diag.wide()["system"].to_list()


@pytest.mark.parametrize(("first", "rerank"), PAIRS)
def test_dl19_rerank_moves_only_along_pct_proc(
    dl19: rankset.EvaluationResult, first: str, rerank: str
) -> None:
    per_query = diagnose(dl19, k=10).per_query
    joined = (
        per_query.filter(pl.col("system") == first)
        .join(per_query.filter(pl.col("system") == rerank), on="query_id", suffix="_rerank")
        .select("query_id", "proc", "proc_rerank", "quadrant", "quadrant_rerank")
    )
    assert joined.height == 43
    high_proc = {"healthy", "reranking miss"}
    for _, proc, proc_rerank, before, after in joined.iter_rows():
        assert proc == pytest.approx(proc_rerank, abs=1e-12)  # same candidates, same ceiling
        assert (before in high_proc) == (after in high_proc)


@pytest.mark.parametrize(
    ("first", "rerank", "ndcg_split", "classes"),
    [
        # README: per-query nDCG@10 improved/hurt/same over bm25 dl19 = 33/5/5
        ("bm25", "rankvicuna-over-bm25", (33, 5, 5), (1, 4, 0, 5, 33)),
        # README: over splade-pp-ed dl19 = 19/20/4
        ("splade", "rankvicuna-over-splade", (19, 20, 4), (9, 9, 3, 4, 18)),
    ],
)
def test_dl19_regressions(
    dl19: rankset.EvaluationResult,
    first: str,
    rerank: str,
    ndcg_split: tuple[int, int, int],
    classes: tuple[int, ...],
) -> None:
    frame = regressions(dl19, first, rerank, k=10)
    assert frame.height == 43
    # Equal nDCGs can differ in the last bit (summation order), hence the tolerance.
    delta, tol = pl.col("ndcg_delta"), 1e-9
    split = frame.select(
        up=(delta > tol).sum(), down=(delta < -tol).sum(), same=(delta.abs() <= tol).sum()
    ).row(0)
    assert split == ndcg_split
    # the classes agree with the nDCG split: a hurt query is a coverage or ordering
    # regression or mixed; an unchanged one held nDCG; every improved one rose somewhere
    for row in frame.iter_rows(named=True):
        if row["change"] == "unchanged":
            assert abs(row["ndcg_delta"]) <= tol
        if row["change"] in {"ordering regression", "mixed"}:
            assert row["ndcg_delta"] < -tol
        if row["ndcg_delta"] < -tol:
            assert row["change"] != "improved"
    counts = regression_counts(frame)
    assert tuple(counts["n_queries"]) == classes
