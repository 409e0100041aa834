"""RAG set metrics (SPEC §3, seed 001) against an independent plain-Python reference.

The reference (``tests/_support/rag_reference.py``) is written from the formulas alone
(loops and ``sorted``; no Polars, nothing from rankset's internals). It is checked against
numbers computed by hand, then rankset is checked against both the hand numbers and, on
random multi-system inputs, the reference itself (every per-query value, NA exactly where
the reference has NA).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankset
from _support.rag_reference import (
    MEASURES,
    Ranking,
    ReferenceScaleError,
    Scale,
    Value,
    assert_same_values,
    label_tiers,
    parse_name,
    rankset_values,
    reference_evaluate,
    reference_metric,
    scale_map,
)

# --- hand-computed cases -------------------------------------------------------------------


@dataclass(frozen=True)
class HandCase:
    """One query (``q``) of one system (``run``), values worked out in the comments."""

    run: Ranking
    labels: Mapping[str, float]
    expected: Mapping[str, Value]
    scale: Scale = "rag5"
    pool: Mapping[str, float] | None = None


# Seed 001. Tiers a:5 b:4 c:4 d:3 e:3 f:3 g:2 h:1, N = 8.
# p5 = 1/8, p4 = 2/8, p3 = 3/8 -> r5 = 8, r4 = 0.5/(2/8) = 2, r3 = 0.1/(3/8) = 4/15.
# w4 = min(2/8, 1) = 1/4; w3 = min((4/15)/8, 0.25) = 1/30.
# Oracle@4 = 1 + 1/4 + 1/4 + 1/30 = 46/30; oracle@6 = 46/30 + 2/30 = 48/30 = 1.6.
SEED_LABELS = {"a": 5, "b": 4, "c": 4, "d": 3, "e": 3, "f": 3, "g": 2, "h": 1}
# Ranked b d e f a g: top-4 tiers [4, 3, 3, 3] as in the seed.
SEED_RUN = {"b": 6.0, "d": 5.0, "e": 4.0, "f": 3.0, "a": 2.0, "g": 1.0}

HAND_CASES: dict[str, HandCase] = {
    "seed_001": HandCase(
        SEED_RUN,
        SEED_LABELS,
        {
            # G_obs = 1/4 + 3/30 = 0.35 -> 0.35 / (46/30) = 21/92 = 0.228260...
            "ra_nwg@4": 21 / 92,
            # own list (a b d e f g): best 4 = 1 + 1/4 + 1/30 + 1/30 = 79/60 -> (79/60)/(46/30)
            "proc@4": 79 / 92,
            "pct_proc@4": 21 / 79,
            "n_recall_4plus@4": 1 / 3,  # b; min(4, 3 labelled of tier >= 4)
            "n_recall_5@4": 0.0,  # a is 5th; min(4, 1)
            "precision_4plus@4": 1 / 4,
            "harm@4": 0.0,
            # all six: 1 + 1/4 + 3/30 + 0 = 1.35 -> 1.35 / 1.6
            "ra_nwg@6": 1.35 / 1.6,
            "harm@6": 1 / 6,  # g (tier 2)
            "n_recall_5@6": 1.0,
            # alpha = 0: r_g = b_g -> w4 = 0.5, w3 = 0.1; obs 0.5 + 0.3 = 0.8,
            # oracle@4 = 1 + 0.5 + 0.5 + 0.1 = 2.1
            "ra_nwg(alpha=0)@4": 0.8 / 2.1,
            # alpha = 0.5: r5 = 1/sqrt(1/8) = sqrt(8), r4 = 0.5/sqrt(1/4) = 1,
            # r3 = 0.1/sqrt(3/8); w4 = min(1/sqrt(8), 0.8), w3 = min(0.1/sqrt(3), 0.3)
            "ra_nwg(alpha=0.5,cap3=0.3,cap4=0.8)@4": (8**-0.5 + 0.3 / 3**0.5)
            / (1 + 2 * 8**-0.5 + 0.1 / 3**0.5),
            # fallback values are unused while a tier 5 exists
            "ra_nwg(fallback3=0.1,fallback4=0.9)@4": 21 / 92,
        },
    ),
    # No tier 5: tiers a:4 b:4 c:3 d:2 e:1 -> fallback w4 = 1, w3 = 0.2.
    # Ranked c a e: obs@3 = 0.2 + 1 + 0 = 1.2; oracle@3 = 1 + 1 + 0.2 = 2.2.
    "no_tier_5": HandCase(
        {"c": 3.0, "a": 2.0, "e": 1.0},
        {"a": 4, "b": 4, "c": 3, "d": 2, "e": 1},
        {
            "ra_nwg@3": 1.2 / 2.2,
            "proc@3": 1.2 / 2.2,  # own list holds exactly the top-3
            "pct_proc@3": 1.0,
            # custom fallback: obs 0.1 + 0.9, oracle 0.9 + 0.9 + 0.1
            "ra_nwg(fallback3=0.1,fallback4=0.9)@3": 1.0 / 1.9,
            "n_recall_5@3": None,  # no tier 5 labelled
            "n_recall_4plus@3": 1 / 2,  # a; min(3, 2)
            "precision_4plus@3": 1 / 3,
            "harm@3": 1 / 3,  # e
            "ra_nwg@1": 0.2 / 1.0,  # top-1 = c
        },
    ),
    # No tier 3 or 4: tiers a:5 b:5 c:2 d:1 e:1; w5 = 1, others 0. Ranked a d c.
    "no_tier_3_or_4": HandCase(
        {"a": 3.0, "d": 2.0, "c": 1.0},
        {"a": 5, "b": 5, "c": 2, "d": 1, "e": 1},
        {
            "ra_nwg@2": 1 / 2,  # obs 1 (a), oracle 1 + 1
            "ra_nwg@3": 1 / 2,
            "proc@3": 1 / 2,  # own list holds one tier 5
            "pct_proc@3": 1.0,
            "n_recall_4plus@2": 1 / 2,
            "n_recall_5@3": 1 / 2,
            "precision_4plus@3": 1 / 3,
            "harm@3": 2 / 3,  # d, c
        },
    ),
    # Only tiers 1-2: every weight is 0, so the oracle sum is 0 -> NA (precision, harm stay).
    "zero_oracle": HandCase(
        {"a": 2.0, "b": 1.0, "x": 0.5},
        {"a": 2, "b": 1},
        {
            "ra_nwg@2": None,
            "proc@2": None,
            "pct_proc@2": None,
            "n_recall_4plus@2": None,
            "n_recall_5@2": None,
            "precision_4plus@2": 0.0,
            "harm@2": 1.0,
            "harm(unjudged=1)@3": 1.0,  # a, b labelled tier <= 2; x unlabelled
        },
    ),
    # K (10) larger than the labels (3) and the run (3). Tiers a:5 b:4 c:3, p = 1/3 each:
    # r5 = 3, r4 = 1.5, r3 = 0.3 -> w4 = 0.5, w3 = 0.1; oracle@10 = 1.6 (all three).
    # Ranked x b a (x unlabelled): obs 0 + 0.5 + 1 = 1.5.
    "k_beyond_labels_and_run": HandCase(
        {"x": 3.0, "b": 2.0, "a": 1.0},
        {"a": 5, "b": 4, "c": 3},
        {
            "ra_nwg@10": 1.5 / 1.6,
            "proc@10": 1.5 / 1.6,
            "pct_proc@10": 1.0,
            "n_recall_4plus@10": 1.0,  # 2 / min(10, 2)
            "n_recall_5@10": 1.0,
            "precision_4plus@10": 2 / 10,  # divides by K although 3 were retrieved
            "harm@10": 0.0,
            "harm(unjudged=1)@10": 1 / 10,  # x
        },
    ),
    # K (4) larger than the run (2) but not the labels (6). Tiers a b c:5, d e:4, f:3.
    # p5 = 1/2, p4 = 1/3, p3 = 1/6: r5 = 2, r4 = 1.5, r3 = 0.6
    # -> w4 = min(0.75, 1) = 0.75, w3 = min(0.3, 0.25) = 0.25 (cap3 binds).
    # Oracle@4 = 1 + 1 + 1 + 0.75 = 3.75; ranked a f: obs 1 + 0.25 = 1.25.
    "k_beyond_run": HandCase(
        {"a": 2.0, "f": 1.0},
        {"a": 5, "b": 5, "c": 5, "d": 4, "e": 4, "f": 3},
        {
            "ra_nwg@4": 1.25 / 3.75,
            "proc@4": 1.25 / 3.75,
            "pct_proc@4": 1.0,
            "precision_4plus@4": 1 / 4,
            "n_recall_4plus@4": 1 / 4,  # min(4, 5)
            "n_recall_5@4": 1 / 3,  # min(4, 3)
            "harm@4": 0.0,
            # cap3 = 0.3 lets w3 reach its ratio 0.3; cap4 = 0.6 binds w4 (ratio 0.75)
            "ra_nwg(cap3=0.3,cap4=0.6)@4": 1.3 / 3.6,
        },
    ),
    # cap4 binding by default: tiers a b c:5, d:4, e:3, N = 5. r5 = 1/(3/5) = 5/3,
    # r4 = 0.5/(1/5) = 2.5 -> ratio 1.5 -> w4 = 1; r3 = 0.1/(1/5) = 0.5 -> ratio 0.3 -> w3 = 0.25.
    # Ranked d e a: obs@2 = 1 + 0.25; oracle@2 = 2.
    "caps_bind": HandCase(
        {"d": 3.0, "e": 2.0, "a": 1.0},
        {"a": 5, "b": 5, "c": 5, "d": 4, "e": 3},
        {
            "ra_nwg@2": 1.25 / 2,
            "ra_nwg@3": 2.25 / 3,
            "ra_nwg(cap3=0.3,cap4=0.8)@2": 1.1 / 2,
        },
    ),
    # Separate pool larger than the run, seed labels: ranked b d; pool a b c d z (z unlabelled).
    # obs@4 = 1/4 + 1/30 = 8.5/30; pool's best 4 = 1 + 1/4 + 1/4 + 1/30 = the oracle.
    "pool_beyond_run": HandCase(
        {"b": 2.0, "d": 1.0},
        SEED_LABELS,
        {
            "ra_nwg@4": 8.5 / 46,
            "proc@4": 1.0,
            "pct_proc@4": 8.5 / 46,
            # pool's best 2 = 1 + 1/4 = the oracle@2
            "proc@2": 1.0,
            "ra_nwg@2": (1 / 4 + 1 / 30) / (5 / 4),
        },
        pool={"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0, "z": 1.0},
    ),
    # Nothing in the top-K is labelled (seed labels).
    "empty_intersection": HandCase(
        {"x": 3.0, "y": 2.0, "z": 1.0},
        SEED_LABELS,
        {
            "ra_nwg@3": 0.0,
            "proc@3": 0.0,
            "pct_proc@3": None,  # PROC is 0
            "n_recall_4plus@3": 0.0,
            "n_recall_5@3": 0.0,
            "precision_4plus@3": 0.0,
            "harm@3": 0.0,
            "harm(unjudged=1)@3": 1.0,
        },
    ),
    # Harm: ranked a b c d x e (scores in that order); d has grade -1 (in pool, unjudged).
    # Judged tiers a:5 b:2 c:1 e:3, N = 4: p5 = p3 = 1/4 -> r5 = 4, r3 = 0.4 -> w3 = 0.1.
    "harm_and_unjudged": HandCase(
        {"a": 6.0, "b": 5.0, "c": 4.0, "d": 3.0, "x": 2.0, "e": 1.0},
        {"a": 5, "b": 2, "c": 1, "d": -1, "e": 3},
        {
            "harm@5": 2 / 5,  # b, c
            "harm(unjudged=1)@5": 4 / 5,  # b, c, d (negative grade), x (unlabelled)
            "harm@6": 2 / 6,
            "harm(unjudged=1)@6": 4 / 6,
            "ra_nwg@5": 1 / 1.1,  # obs 1; oracle@5 = 1 + 0.1 + 0 + 0 (4 labelled docs)
            "ra_nwg@6": 1.0,
            "precision_4plus@5": 1 / 5,
            "n_recall_5@5": 1.0,
        },
    ),
    # Negative grades count nowhere: judged tiers a:5 b:4 (N = 2; p5 = p4 = 1/2 -> w4 = 0.5);
    # c, d are grade -1. Ranked c d b a.
    "negative_grades": HandCase(
        {"c": 4.0, "d": 3.0, "b": 2.0, "a": 1.0},
        {"a": 5, "b": 4, "c": -1, "d": -2},
        {
            "ra_nwg@2": 0.0,
            "ra_nwg@3": 0.5 / 1.5,
            "proc@2": 1.0,
            "n_recall_4plus@3": 1 / 2,  # b; min(3, 2): c and d are not tier >= 4
            "n_recall_5@4": 1.0,
            "harm@2": 0.0,
            "harm(unjudged=1)@2": 1.0,
        },
    ),
    # Only negative grades: no labelled doc -> NA.
    "only_negative_grades": HandCase(
        {"a": 2.0, "b": 1.0},
        {"a": -1, "c": -1},
        {
            "ra_nwg@2": None,
            "proc@2": None,
            "pct_proc@2": None,
            "n_recall_4plus@2": None,
            "n_recall_5@2": None,
            "precision_4plus@2": 0.0,
            "harm@2": 0.0,
            "harm(unjudged=1)@2": 1.0,
        },
    ),
    # trec_dl: grades a:3 b:2 c:1 d:0 -> tiers 5 4 3 1; p = 1/4 each: r5 = 4, r4 = 2, r3 = 0.4
    # -> w4 = 0.5, w3 = 0.1. Ranked d c b a.
    "trec_dl_scale": HandCase(
        {"d": 4.0, "c": 3.0, "b": 2.0, "a": 1.0},
        {"a": 3, "b": 2, "c": 1, "d": 0},
        {
            "ra_nwg@2": 0.1 / 1.5,  # d (w 0) + c (0.1); oracle a + b
            "ra_nwg@3": 0.6 / 1.6,
            "n_recall_4plus@2": 0.0,
            "harm@2": 1 / 2,  # d is tier 1
            "precision_4plus@3": 1 / 3,
        },
        scale="trec_dl",
    ),
    # binary: grades a:1 d:1 -> tier 5; b:0 c:0 -> tier 1. Ranked b a x.
    "binary_scale": HandCase(
        {"b": 3.0, "a": 2.0, "x": 1.0},
        {"a": 1, "b": 0, "c": 0, "d": 1},
        {
            "ra_nwg@2": 1 / 2,
            "n_recall_5@2": 1 / 2,
            "precision_4plus@2": 1 / 2,
            "harm@2": 1 / 2,
            "harm(unjudged=1)@3": 2 / 3,
        },
        scale="binary",
    ),
    # Custom scale {0: 1, 1: 4, 2: 5}: tiers a:5 b c d:4 e:1, N = 5.
    # r5 = 1/(1/5) = 5, r4 = 0.5/(3/5) = 5/6 -> w4 = 1/6. Ranked b c a.
    "custom_scale": HandCase(
        {"b": 3.0, "c": 2.0, "a": 1.0},
        {"a": 2, "b": 1, "c": 1, "d": 1, "e": 0},
        {
            "ra_nwg@2": (2 / 6) / (7 / 6),  # oracle@2 = 1 + 1/6
            "ra_nwg@3": (1 + 2 / 6) / (1 + 2 / 6),
            "n_recall_4plus@2": 1.0,  # 2 / min(2, 4)
            "n_recall_5@2": 0.0,
        },
        scale={0: 1, 1: 4, 2: 5},
    ),
    # Ties: a and b tie at 1.0 and ties go by doc_id descending -> ranked c b a.
    "tie_break": HandCase(
        {"a": 1.0, "b": 1.0, "c": 2.0},
        {"a": 5, "b": 1},
        {
            "ra_nwg@2": 0.0,  # c, b
            "ra_nwg@3": 1.0,
            "harm@2": 1 / 2,
        },
    ),
}


def _hand_case_params() -> list[Any]:
    return [
        pytest.param(case, name, expected, id=f"{case_id}-{name}")
        for case_id, case in HAND_CASES.items()
        for name, expected in case.expected.items()
    ]


def _assert_value(got: Value, expected: Value) -> None:
    if expected is None:
        assert got is None
    else:
        assert got is not None
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(("case", "name", "expected"), _hand_case_params())
def test_reference_matches_hand_computation(case: HandCase, name: str, expected: Value) -> None:
    pool = None if case.pool is None else list(case.pool)
    got = reference_metric(name, case.run, case.labels, scale=case.scale, pool=pool)
    _assert_value(got, expected)


@pytest.mark.parametrize("case_id", list(HAND_CASES))
def test_rankset_matches_hand_computation(case_id: str) -> None:
    case = HAND_CASES[case_id]
    names = list(case.expected)
    options: dict[str, Any] = {"scale": case.scale}
    if case.pool is not None:
        options["pool"] = {"q": case.pool}
    got = rankset_values({"q": case.run}, {"q": case.labels}, names, **options)
    assert sorted(got) == sorted(("run", "q", name) for name in names)
    for name, expected in case.expected.items():
        _assert_value(got["run", "q", name], expected)


def test_seed_001_example_to_four_decimals() -> None:
    got = rankset_values({"q": SEED_RUN}, {"q": SEED_LABELS}, ["ra_nwg@4"])
    value = got["run", "q", "ra_nwg@4"]
    assert value is not None
    assert round(value, 4) == 0.2283


def test_measure_and_k_columns() -> None:
    names = ["ra_nwg@4", "proc@4", "pct_proc@4", "harm(unjudged=1)@4", "n_recall_5@2"]
    per_query = rankset.evaluate({"q": SEED_RUN}, {"q": SEED_LABELS}, names).per_query
    rows = {row["metric"]: (row["measure"], row["k"]) for row in per_query.iter_rows(named=True)}
    assert sorted(rows.values()) == sorted(
        [("ra_nwg", 4), ("proc", 4), ("pct_proc", 4), ("harm", 4), ("n_recall_5", 2)]
    )


def test_percent_proc_alias() -> None:
    result = rankset.evaluate({"q": SEED_RUN}, {"q": SEED_LABELS}, ["%proc@4"])
    assert result.metrics == ["pct_proc@4"]
    assert result.per_query["value"].to_list() == pytest.approx([21 / 79])


def test_pool_per_system_and_queries_missing_from_the_pool() -> None:
    # Seed labels for q1 and q2; both systems retrieve b d for both queries.
    # "sep" gets a pool holding a b c d for q1 only; "own" is not in the pool dict.
    run = {"q1": {"b": 2.0, "d": 1.0}, "q2": {"b": 2.0, "d": 1.0}}
    labels = {"q1": SEED_LABELS, "q2": SEED_LABELS}
    pool = {"sep": {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}}}
    names = ["proc@4", "pct_proc@4", "ra_nwg@4"]
    got = rankset_values({"sep": run, "own": run}, labels, names, pool=pool)
    own_proc = (1 / 4 + 1 / 30) / (46 / 30)  # own list b d = the run's top-4
    expected: dict[tuple[str, str, str], Value] = {
        ("sep", "q1", "proc@4"): 1.0,
        ("sep", "q1", "pct_proc@4"): own_proc,
        ("sep", "q2", "proc@4"): 0.0,  # q2 has no pool rows: an empty pool
        ("sep", "q2", "pct_proc@4"): None,
        ("own", "q1", "proc@4"): own_proc,
        ("own", "q1", "pct_proc@4"): 1.0,
        ("own", "q2", "proc@4"): own_proc,
        ("own", "q2", "pct_proc@4"): 1.0,
    }
    for system in ("sep", "own"):
        for query in ("q1", "q2"):
            expected[system, query, "ra_nwg@4"] = own_proc
    assert_same_values(got, expected)
    want = reference_evaluate(
        {"sep": run, "own": run}, labels, names, pools={"sep": {"q1": ["a", "b", "c", "d"]}}
    )
    assert_same_values(want, expected)


def test_one_pool_for_every_system() -> None:
    # Seed labels; pool a b c d for everyone -> PROC@4 = 1 whatever each system retrieved.
    runs = {"s1": {"q": {"b": 2.0, "d": 1.0}}, "s2": {"q": {"h": 2.0, "g": 1.0}}}
    pool = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}}
    got = rankset_values(runs, {"q": SEED_LABELS}, ["proc@4", "pct_proc@4"], pool=pool)
    assert_same_values(
        got,
        {
            ("s1", "q", "proc@4"): 1.0,
            ("s1", "q", "pct_proc@4"): 8.5 / 46,
            ("s2", "q", "proc@4"): 1.0,
            ("s2", "q", "pct_proc@4"): 0.0,  # g, h weigh 0
        },
    )


def test_rerank_keeps_proc_and_changes_ra_nwg() -> None:
    # Same candidates (a b d g h, seed labels), two orders; K = 2.
    first = {"h": 5.0, "g": 4.0, "d": 3.0, "b": 2.0, "a": 1.0}
    rerank = {"a": 5.0, "b": 4.0, "d": 3.0, "g": 2.0, "h": 1.0}
    names = ["proc@2", "ra_nwg@2", "pct_proc@2"]
    got = rankset_values(
        {"first": {"q": first}, "rerank": {"q": rerank}}, {"q": SEED_LABELS}, names
    )
    # oracle@2 = 1 + 1/4; pool best 2 = a + b = the oracle -> PROC 1 for both.
    assert got["first", "q", "proc@2"] == got["rerank", "q", "proc@2"] == pytest.approx(1.0)
    assert got["first", "q", "ra_nwg@2"] == pytest.approx(0.0)  # h, g
    assert got["rerank", "q", "ra_nwg@2"] == pytest.approx(1.0)  # a, b
    assert got["rerank", "q", "pct_proc@2"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("scale", "labels", "pattern"),
    [
        ("rag5", {"a": 5, "b": 7}, r"rag5"),
        ("rag5", {"a": 5, "b": 0}, r"rag5"),  # rag5 has no grade 0
        ("trec_dl", {"a": 3, "b": 6}, r"trec_dl"),
        ("binary", {"a": 1, "b": 2}, r"binary"),
    ],
)
def test_grade_outside_a_preset_scale_is_an_error(
    scale: str, labels: dict[str, int], pattern: str
) -> None:
    bad = str(labels["b"])
    with pytest.raises(ReferenceScaleError):
        label_tiers(labels, scale)
    with pytest.raises(rankset.RanksetError, match=pattern) as excinfo:
        rankset.evaluate({"q": {"a": 2.0, "b": 1.0}}, {"q": labels}, ["ra_nwg@5"], scale=scale)
    assert re.search(rf"(?<![\d.]){bad}(\.0)?(?![\d.])", str(excinfo.value)), str(excinfo.value)


def test_grade_outside_a_custom_scale_is_an_error() -> None:
    labels = {"a": 1, "b": 2}
    with pytest.raises(rankset.RanksetError, match=r"(?<![\d.])2(\.0)?(?![\d.])"):
        rankset.evaluate({"q": {"a": 2.0}}, {"q": labels}, ["harm@5"], scale={0: 1, 1: 5})


# --- properties on random inputs ------------------------------------------------------------

# ASCII ids whose byte order differs from "natural" order (B < a, 10 < 9), so ties matter.
DOC_IDS: Final = ("a", "b", "B", "a0", "a10", "a9", "z", "10", "9", "c", "d", "e", "f", "g")
SCORES: Final = (0.0, 0.5, 1.0, 1.0, 2.0, 3.5)  # few values: many ties
CUSTOM_SCALE: Final[Mapping[float, int]] = {0: 2, 1: 3, 2: 4, 4: 5, 9: 1}
SCALES: Final[tuple[Scale, ...]] = ("rag5", "trec_dl", "binary", CUSTOM_SCALE, "trec_dl")
PARAM_CHOICES: Final[Mapping[str, tuple[float, ...]]] = {
    "alpha": (0.0, 0.5, 2.0),
    "cap4": (0.5, 2.0),
    "cap3": (0.1, 1.0),
    "fallback4": (0.9, 0.5),
    "fallback3": (0.1, 0.0),
}
# (n5, n4, n3) of a query's labels, every mix: with n5 >= 3 next to one 3 or 4 the caps bind
TIER_COUNTS: Final = tuple(itertools.product((1, 0, 2, 3, 5), (1, 0, 2), (1, 0, 3)))
# per query: which labels to draw (tiers excluded), or no labels, or only negative grades
PROFILES: Final = (
    "all",
    "all",
    "all",
    "no_5",
    "no_3_4",
    "no_5_3_4",
    "negative_only",
    "unlabelled",
)


@dataclass(frozen=True)
class Scenario:
    runs: dict[str, dict[str, dict[str, float]]]
    labels: dict[str, dict[str, int]]
    scale: Scale
    metrics: list[str]
    pool_mode: str  # "own", "shared", "per_system"
    pools: dict[str, dict[str, list[str]]] | None

    def runs_frame(self) -> pl.DataFrame:
        rows = [
            (system, query, doc, score)
            for system, run in self.runs.items()
            for query, ranking in run.items()
            for doc, score in ranking.items()
        ]
        return pl.DataFrame(
            rows,
            schema={
                "system": pl.String,
                "query_id": pl.String,
                "doc_id": pl.String,
                "score": pl.Float64,
            },
            orient="row",
        )

    def labels_frame(self) -> pl.DataFrame:
        rows = [(q, d, g) for q, docs in self.labels.items() for d, g in docs.items()]
        return pl.DataFrame(
            rows,
            schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64},
            orient="row",
        )

    def pool_argument(self) -> Any:
        if self.pools is None:
            return None
        as_runs = {
            system: {query: dict.fromkeys(docs, 1.0) for query, docs in by_query.items()}
            for system, by_query in self.pools.items()
        }
        if self.pool_mode == "shared":
            return next(iter(as_runs.values()))
        return as_runs


def _metric_names(draw: st.DrawFn, ks: Iterable[int]) -> list[str]:
    names = []
    for k in ks:
        names += [f"{measure}@{k}" for measure in MEASURES]
        names.append(f"harm(unjudged=1)@{k}")
        keys = draw(st.lists(st.sampled_from(sorted(PARAM_CHOICES)), min_size=1, unique=True))
        params = ",".join(
            f"{key}={draw(st.sampled_from(PARAM_CHOICES[key]))}" for key in sorted(keys)
        )
        names.append(f"ra_nwg({params})@{k}")
    return names


def _draw_labels(draw: st.DrawFn, scale: Scale, profile: str) -> dict[str, int]:
    """Labels with drawn counts per tier (many tier 5 next to few 3/4 makes the caps bind)."""
    mapping = scale_map(scale)
    excluded = {
        "no_5": {5},
        "no_3_4": {3, 4},
        "no_5_3_4": {3, 4, 5},
        "negative_only": {1, 2, 3, 4, 5},
    }.get(profile, set())
    n5, n4, n3 = draw(st.sampled_from(TIER_COUNTS))
    counts = {5: n5, 4: n4, 3: n3, 2: draw(st.integers(0, 2)), 1: draw(st.integers(0, 2))}
    grades = [draw(st.sampled_from([-1, -2])) for _ in range(draw(st.integers(0, 2)))]
    for tier, count in counts.items():
        of_tier = sorted(int(g) for g, t in mapping.items() if t == tier)
        if of_tier and tier not in excluded:
            grades += [draw(st.sampled_from(of_tier)) for _ in range(count)]
    docs = draw(st.permutations(DOC_IDS))
    return dict(zip(docs, grades, strict=False))


def _draw_ranking(draw: st.DrawFn) -> dict[str, float]:
    docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=12, unique=True))
    return {doc: draw(st.sampled_from(SCORES)) for doc in docs}


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    scale = draw(st.sampled_from(SCALES))
    queries = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
    labels = {}
    for query in queries:
        profile = draw(st.sampled_from(PROFILES))
        drawn = {} if profile == "unlabelled" else _draw_labels(draw, scale, profile)
        if drawn:  # no label rows: the query is not in the labels
            labels[query] = drawn
    if not labels:  # some label rows are needed at all
        labels[queries[0]] = {DOC_IDS[0]: -1}
    systems = [f"s{i}" for i in range(draw(st.integers(1, 3)))]
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for system in systems:
        # rankset refuses a system with no labelled query at all, so each answers one
        answered = {draw(st.sampled_from(sorted(labels)))}
        answered |= {query for query in queries if draw(st.sampled_from((True, True, False)))}
        runs[system] = {query: _draw_ranking(draw) for query in sorted(answered)}
    ks = sorted(set(draw(st.lists(st.integers(1, 14), min_size=1, max_size=2))))
    metrics = _metric_names(draw, ks)

    pool_mode = draw(st.sampled_from(["own", "shared", "per_system", "shared", "per_system"]))
    pools: dict[str, dict[str, list[str]]] | None = None
    if pool_mode != "own":
        covered = sorted({q for run in runs.values() for q in run})

        def pool_for(base: Mapping[str, Mapping[str, float]]) -> dict[str, list[str]]:
            # every answered query gets a pool; it is often the run plus more docs
            out = {}
            for query in covered:
                extra = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, unique=True))
                keep = list(base.get(query, {})) if draw(st.booleans()) else []
                out[query] = sorted(set(extra) | set(keep))
            return out

        if pool_mode == "shared":
            shared = pool_for(runs[systems[0]])
            pools = dict.fromkeys(systems, shared)
        else:
            given_to = draw(st.lists(st.sampled_from(systems), min_size=1, unique=True))
            pools = {system: pool_for(runs[system]) for system in sorted(given_to)}
    return Scenario(runs, labels, scale, metrics, pool_mode, pools)


PROPERTY_SETTINGS = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPERTY_SETTINGS
@given(scenario=scenarios())
def test_rankset_equals_reference_on_random_runs(scenario: Scenario) -> None:
    want = reference_evaluate(
        scenario.runs,
        scenario.labels,
        scenario.metrics,
        scale=scenario.scale,
        pools=scenario.pools,
    )
    got = rankset_values(
        scenario.runs_frame(),
        scenario.labels_frame(),
        scenario.metrics,
        scale=scenario.scale,
        pool=scenario.pool_argument(),
    )
    assert_same_values(got, want)


@settings(PROPERTY_SETTINGS, max_examples=30)
@given(scenario=scenarios())
def test_default_pool_equals_each_systems_own_run(scenario: Scenario) -> None:
    k = parse_name(scenario.metrics[0]).k
    proc = [f"proc@{k}"]
    own = {
        system: {query: dict(ranking) for query, ranking in run.items()}
        for system, run in scenario.runs.items()
    }
    runs, labels, scale = scenario.runs_frame(), scenario.labels_frame(), scenario.scale
    default = rankset_values(runs, labels, proc, scale=scale)
    want = reference_evaluate(scenario.runs, scenario.labels, proc, scale=scale)
    assert_same_values(default, want)
    explicit = rankset_values(runs, labels, proc, scale=scale, pool=own)
    assert_same_values(explicit, default)
    if len(own) == 1:
        single = rankset_values(runs, labels, proc, scale=scale, pool=next(iter(own.values())))
        assert_same_values(single, default)


@st.composite
def reranked_scenarios(draw: st.DrawFn) -> tuple[Scenario, dict[str, dict[str, float]]]:
    scenario = draw(scenarios())
    base = scenario.runs["s0"]
    # same candidates, new scores: a permutation of the old ones or fresh (tied) values
    rerank = {}
    for query, ranking in base.items():
        if draw(st.booleans()):
            scores = draw(st.permutations(list(ranking.values())))
        else:
            scores = [draw(st.sampled_from(SCORES)) for _ in ranking]
        rerank[query] = dict(zip(ranking, scores, strict=True))
    return scenario, rerank


@settings(PROPERTY_SETTINGS, max_examples=30)
@given(case=reranked_scenarios())
def test_rerank_has_the_same_proc(case: tuple[Scenario, dict[str, dict[str, float]]]) -> None:
    scenario, rerank = case
    k = parse_name(scenario.metrics[0]).k
    names = [f"proc@{k}", f"ra_nwg@{k}"]
    runs = {"base": scenario.runs["s0"], "rerank": rerank}
    got = rankset_values(runs, scenario.labels, names, scale=scenario.scale)
    assert_same_values(got, reference_evaluate(runs, scenario.labels, names, scale=scenario.scale))
    for (system, query, name), value in got.items():
        if system == "base" and name.startswith("proc@"):
            assert got["rerank", query, name] == value
