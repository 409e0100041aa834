"""rankset.compare on hand-built per-query frames and on the bundled sample."""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats as scipy_stats

import rankset
from rankset.comparison.pairwise import COMPARE_COLUMNS, compare, compare_each
from rankset.errors import MissingDependencyError, ParameterError, RanksetWarning, SchemaError

DATA = Path(__file__).resolve().parents[2] / "data" / "sample"

Values = Mapping[str, Mapping[str, float | None]]


def per_query(
    values: Mapping[str, Values], measures: Mapping[str, str] | None = None
) -> pl.DataFrame:
    """Tidy frame from ``{metric: {system: {query_id: value}}}`` (None = NA)."""
    rows = [
        {
            "system": system,
            "query_id": query_id,
            "metric": metric,
            "measure": (measures or {}).get(metric, metric.split("@")[0]),
            "k": int(metric.split("@")[1]) if "@" in metric else None,
            "value": value,
        }
        for metric, systems in values.items()
        for system, queries in systems.items()
        for query_id, value in queries.items()
    ]
    return pl.DataFrame(
        rows,
        schema={
            "system": pl.String,
            "query_id": pl.String,
            "metric": pl.String,
            "measure": pl.String,
            "k": pl.Int64,
            "value": pl.Float64,
        },
    )


def row(frame: pl.DataFrame, **where: object) -> dict[str, object]:
    selected = frame.filter(*(pl.col(key) == value for key, value in where.items()))
    assert selected.height == 1, selected
    return selected.row(0, named=True)


def scipy_p(function, a: list[float], b: list[float]) -> float:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(function(a, b).pvalue)


THREE_SYSTEMS = per_query(
    {
        "ndcg@10": {
            "base": {"q1": 0.25, "q2": 0.5, "q3": 0.5, "q4": 1.0},
            "same": {"q1": 0.5, "q2": 0.5, "q3": 0.25, "q4": 1.0},
            "better": {"q1": 1.0, "q2": 1.0, "q3": 1.0, "q4": 1.0},
        }
    }
)


# --- the per-comparison figures by hand --------------------------------------------------


def test_delta_means_and_win_tie_loss_by_hand() -> None:
    out = compare(THREE_SYSTEMS, "base", tests=["randomization"], n_resamples=2000)
    assert out["system"].to_list() == ["same", "better"]  # the frame's order
    same = row(out, system="same")
    # same - base per query: +0.25, 0, -0.25, 0.
    assert same["n_queries"] == 4
    assert same["n_dropped"] == 0
    assert same["mean"] == pytest.approx(2.25 / 4)
    assert same["baseline_mean"] == pytest.approx(2.25 / 4)
    assert same["delta"] == pytest.approx(0.0)
    assert (same["wins"], same["ties"], same["losses"]) == (1, 2, 1)
    better = row(out, system="better")
    # better - base: +0.75, +0.5, +0.5, 0 -> mean 0.4375.
    assert better["mean"] == 1.0
    assert better["delta"] == pytest.approx(1.75 / 4)
    assert (better["wins"], better["ties"], better["losses"]) == (3, 1, 0)
    assert better["ci_low"] <= better["delta"] <= better["ci_high"]
    # Resampled means of {0.75, 0.5, 0.5, 0} stay within [0, 0.75].
    assert better["ci_low"] >= 0.0
    assert better["ci_high"] <= 0.75


def test_lower_is_better_metric_turns_wins_around() -> None:
    systems: Values = {
        "base": {"q1": 0.2, "q2": 0.4, "q3": 0.0, "q4": 0.6},
        "new": {"q1": 0.0, "q2": 0.6, "q3": 0.0, "q4": 0.2},
    }
    frame = per_query({"harm@5": systems, "precision@5": systems})
    out = compare(frame, "base", tests=["randomization"], n_resamples=500)
    harm = row(out, metric="harm@5")
    # harm: lower wins -> q1 and q4 are wins, q2 a loss, q3 a tie.
    assert (harm["wins"], harm["ties"], harm["losses"]) == (2, 1, 1)
    assert harm["delta"] == pytest.approx((0.8 - 1.2) / 4)
    precision = row(out, metric="precision@5")
    assert (precision["wins"], precision["ties"], precision["losses"]) == (1, 1, 2)


def test_alignment_drops_na_and_missing_queries_and_counts_them() -> None:
    frame = per_query(
        {
            "ap": {
                "base": {"q1": 0.2, "q2": 0.5, "q3": 0.4, "q4": 0.9, "q6": 0.3},
                # q2 NA, q4 missing, q5 unknown to the baseline.
                "sys": {"q1": 0.6, "q2": None, "q3": 0.5, "q5": 0.7, "q6": 0.8},
            }
        }
    )
    out = compare(frame, "base", tests=["randomization", "t", "wilcoxon"], n_resamples=500)
    first = out.row(0, named=True)
    # Aligned: q1, q3, q6. Dropped: q2 (NA), q4 (baseline only), q5 (system only).
    assert first["n_queries"] == 3
    assert first["n_dropped"] == 3
    assert first["mean"] == pytest.approx((0.6 + 0.5 + 0.8) / 3)
    # The baseline mean is over the same three queries, not over all its five.
    assert first["baseline_mean"] == pytest.approx((0.2 + 0.4 + 0.3) / 3)
    assert first["delta"] == pytest.approx((0.4 + 0.1 + 0.5) / 3)
    # The tests see exactly the aligned pairs: no zero filled in, no shifted pairing.
    sys_values, base_values = [0.6, 0.5, 0.8], [0.2, 0.4, 0.3]
    assert row(out, test="t")["p"] == pytest.approx(
        scipy_p(scipy_stats.ttest_rel, sys_values, base_values), rel=1e-12
    )
    assert row(out, test="wilcoxon")["p"] == pytest.approx(
        scipy_p(scipy_stats.wilcoxon, sys_values, base_values), rel=1e-12
    )


def test_a_system_with_no_common_query_gets_nulls() -> None:
    frame = per_query(
        {"rr": {"base": {"q1": 1.0, "q2": 0.5}, "other": {"q3": 1.0}, "new": {"q1": 0.5}}}
    )
    out = compare(frame, "base", tests=["randomization", "t"], n_resamples=200)
    other = out.filter(pl.col("system") == "other")
    assert other["n_queries"].to_list() == [0, 0]
    assert other["n_dropped"].to_list() == [3, 3]
    for column in ("mean", "baseline_mean", "delta", "ci_low", "ci_high", "p", "p_adj", "reject"):
        assert other[column].null_count() == 2, column
    # One aligned query: the t-test is undefined (null), the randomization p is 1.
    new = out.filter(pl.col("system") == "new")
    assert new["p"].to_list() == [1.0, None]
    assert new["wins"].to_list() == [0, 0]
    assert new["losses"].to_list() == [1, 1]


# --- tests and corrections ---------------------------------------------------------------


def test_classical_p_values_equal_scipy_on_the_aligned_vectors() -> None:
    rng = np.random.default_rng(12)
    queries = [f"q{i:02d}" for i in range(30)]
    base = (rng.integers(0, 5, 30) / 4).tolist()
    new = (rng.integers(0, 5, 30) / 4).tolist()
    frame = per_query(
        {
            "precision@4": {
                "base": dict(zip(queries, base, strict=True)),
                "new": dict(zip(queries, new, strict=True)),
            }
        }
    )
    out = compare(frame, "base", tests=["t", "wilcoxon"], correction=None)
    assert row(out, test="t")["p"] == pytest.approx(
        scipy_p(scipy_stats.ttest_rel, new, base), rel=1e-12
    )
    assert row(out, test="wilcoxon")["p"] == pytest.approx(
        scipy_p(scipy_stats.wilcoxon, new, base), rel=1e-12
    )


def test_randomization_p_is_within_monte_carlo_error_of_exact_enumeration() -> None:
    base = [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.9, 0.4, 0.5]
    new = [0.5, 0.4, 0.3, 0.4, 0.6, 0.9, 0.1, 0.9, 0.7, 0.8]
    queries = [f"q{i}" for i in range(10)]
    frame = per_query(
        {
            "ap": {
                "b": dict(zip(queries, base, strict=True)),
                "n": dict(zip(queries, new, strict=True)),
            }
        }
    )
    n_resamples = 20_000
    p = compare(frame, "b", tests=["randomization"], n_resamples=n_resamples)["p"][0]
    diffs = np.array(new) - np.array(base)
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=10)))
    exact = float(np.mean(np.abs(signs @ diffs) >= abs(diffs.sum()) - 1e-12))
    tolerance = 4 * math.sqrt(exact * (1 - exact) / n_resamples) + 1 / (n_resamples + 1)
    assert abs(p - exact) <= tolerance


def test_correction_family_is_all_rows_of_one_test() -> None:
    out = compare(
        THREE_SYSTEMS, "base", tests=["randomization", "t"], correction="bonferroni", alpha=0.2
    )
    for test in ("randomization", "t"):
        rows = out.filter(pl.col("test") == test)
        family = rows["p"].drop_nulls().len()
        expected = [None if p is None else min(1.0, p * family) for p in rows["p"].to_list()]
        assert rows["p_adj"].to_list() == pytest.approx(expected)
    # The t-test of "same" vs base: diffs +0.25, 0, -0.25, 0 -> t = 0, p = 1.
    assert row(out, system="same", test="t")["p"] == pytest.approx(1.0)
    assert out["reject"].to_list() == [p < 0.2 for p in out["p_adj"].to_list()]


def test_holm_over_two_rows_by_hand() -> None:
    out = compare(THREE_SYSTEMS, "base", tests=["t"], correction="holm")
    p_better, p_same = out["p"].to_list()
    # Holm with m = 2: the smaller p times 2, the larger times 1 but not below the first.
    low, high = sorted([p_better, p_same])
    expected = {low: min(1.0, 2 * low), high: max(min(1.0, 2 * low), high)}
    assert out["p_adj"].to_list() == pytest.approx([expected[p_better], expected[p_same]])
    uncorrected = compare(THREE_SYSTEMS, "base", tests=["t"], correction=None)
    assert uncorrected["p_adj"].to_list() == uncorrected["p"].to_list()


# --- slicing -----------------------------------------------------------------------------


def test_slices_from_metadata() -> None:
    frame = per_query(
        {
            "ndcg@10": {
                "base": {"q1": 0.2, "q2": 0.4, "q3": 0.6, "q4": 0.8, "q5": 0.5},
                "new": {"q1": 0.4, "q2": 0.4, "q3": 0.5, "q4": 1.0, "q5": 0.5},
            }
        }
    )
    metadata = pl.DataFrame(
        {"query_id": ["q1", "q2", "q3", "q4"], "topic": ["a", "a", "b", "b"], "lang": "en"}
    )
    out = compare(frame, "base", tests=["randomization"], by="topic", metadata=metadata)
    assert out.columns == ["system", "metric", "topic", *COMPARE_COLUMNS[2:]]
    # Slices a (q1, q2), b (q3, q4) and null (q5 has no metadata), nulls last.
    assert out["topic"].to_list() == ["a", "b", None]
    assert out["n_queries"].to_list() == [2, 2, 1]
    assert out["delta"].to_list() == pytest.approx([0.1, 0.05, 0.0])
    assert out["wins"].to_list() == [1, 1, 0]
    assert out["losses"].to_list() == [0, 1, 0]
    two = compare(frame, "base", tests=["randomization"], by=["lang", "topic"], metadata=metadata)
    assert two.columns[:4] == ["system", "metric", "lang", "topic"]
    assert two.height == 3


def test_slices_from_a_column_of_the_per_query_frame() -> None:
    frame = THREE_SYSTEMS.with_columns(
        difficulty=pl.col("query_id").replace_strict({"q1": "hard", "q2": "hard"}, default="easy")
    )
    out = compare(frame, "base", tests=["randomization"], by="difficulty", n_resamples=200)
    assert out.select("system", "difficulty", "n_queries").rows() == [
        ("same", "easy", 2),
        ("same", "hard", 2),
        ("better", "easy", 2),
        ("better", "hard", 2),
    ]
    # better - base on the hard queries q1, q2: +0.75, +0.5.
    assert row(out, system="better", difficulty="hard")["delta"] == pytest.approx(0.625)


def test_slice_errors() -> None:
    metadata = pl.DataFrame({"query_id": ["q1"], "topic": ["a"]})
    with pytest.raises(ParameterError, match=r"The 'by' column\(s\) 'lang' are not in metadata"):
        compare(THREE_SYSTEMS, "base", by="lang", metadata=metadata)
    with pytest.raises(ParameterError, match=r"not in the per-query frame.*metadata="):
        compare(THREE_SYSTEMS, "base", by="topic")
    with pytest.raises(ParameterError, match="'query_id' column"):
        compare(THREE_SYSTEMS, "base", by="topic", metadata=metadata.rename({"query_id": "q"}))
    two_topics = pl.DataFrame({"query_id": ["q1", "q1"], "topic": ["a", "b"]})
    with pytest.raises(ParameterError, match="query 'q1' several values of topic"):
        compare(THREE_SYSTEMS, "base", by="topic", metadata=two_topics)
    with pytest.raises(ParameterError, match="The 'by' parameter must name metadata columns"):
        compare(THREE_SYSTEMS, "base", by="system", metadata=metadata)


# --- determinism and input forms ---------------------------------------------------------


def test_seeded_deterministic_and_independent_of_row_order() -> None:
    rng = np.random.default_rng(0)
    queries = [f"q{i}" for i in range(50)]
    frame = per_query(
        {
            metric: {
                system: dict(zip(queries, rng.random(50).round(2).tolist(), strict=True))
                for system in ("a", "b", "c")
            }
            for metric in ("ap", "rr")
        }
    )
    first = compare(frame, "a", n_resamples=2000, seed=5)
    assert_frame_equal(compare(frame, "a", n_resamples=2000, seed=5), first)
    # Row order changes nothing but the default metric order (order of appearance).
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=1)
    again = compare(shuffled, "a", metrics=["ap", "rr"], n_resamples=2000, seed=5)
    assert_frame_equal(again, first)
    other_seed = compare(frame, "a", n_resamples=2000, seed=6)
    assert other_seed["p"].to_list() != first["p"].to_list()
    assert other_seed["delta"].to_list() == first["delta"].to_list()


def test_rows_keep_the_systems_order_then_metrics_and_tests_as_asked() -> None:
    # Systems come in the order given (the frame's, or the evaluation's inputs'), not
    # alphabetically: a table reads in the order the user listed the runs.
    systems: Values = {
        "z": {"q1": 0.5, "q2": 0.3},
        "base": {"q1": 0.2, "q2": 0.3},
        "a": {"q1": 0.1, "q2": 0.9},
    }
    frame = per_query({"rr": systems, "ap": systems})
    out = compare(frame, "base", metrics=["rr", "AP"], tests=["wilcoxon", "randomization"])
    assert out.select("system", "metric", "test").rows() == [
        ("z", "rr", "wilcoxon"),
        ("z", "rr", "randomization"),
        ("z", "ap", "wilcoxon"),
        ("z", "ap", "randomization"),
        ("a", "rr", "wilcoxon"),
        ("a", "rr", "randomization"),
        ("a", "ap", "wilcoxon"),
        ("a", "ap", "randomization"),
    ]
    again = compare(frame.sort("system"), "base", metrics=["rr", "AP"], tests=["randomization"])
    assert again["system"].unique(maintain_order=True).to_list() == ["a", "z"]
    for system in ("a", "z"):  # the same figures whatever the order
        assert_frame_equal(
            again.filter(system=system),
            out.filter(system=system, test="randomization"),
        )
    assert out.columns == list(COMPARE_COLUMNS)


def test_lazy_frame_input() -> None:
    eager = compare(THREE_SYSTEMS, "base", n_resamples=300)
    assert_frame_equal(compare(THREE_SYSTEMS.lazy(), "base", n_resamples=300), eager)


# --- errors ------------------------------------------------------------------------------


def test_unknown_baseline_lists_systems_and_suggests() -> None:
    message = (
        r"The 'baseline' parameter must be one of the systems: 'base', 'same', 'better'. "
        r"Got 'bse' instead. Did you mean 'base'"
    )
    with pytest.raises(ParameterError, match=message):
        compare(THREE_SYSTEMS, "bse")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metrics": ["ndcg@5"]}, r"The metric 'ndcg@5' is not in the result \(metrics: ndcg@10\)"),
        (
            {"tests": ["wilcoxn"]},
            r"among 'randomization', 't', 'wilcoxon', 'tukey', 'randomized_tukey'. Got 'wilcoxn' "
            r"instead. Did you mean 'wilcox",
        ),
        ({"tests": []}, r"must name at least one test"),
        ({"correction": "fdr"}, r"The 'correction' parameter must be one of 'holm'"),
        ({"alpha": 2}, r"The 'alpha' parameter must be a float in \(0, 1\). Got 2 instead."),
        ({"confidence": 1.0}, r"The 'confidence' parameter must be a float in \(0, 1\)"),
        ({"seed": -3}, r"The 'seed' parameter must be an int >= 0. Got -3 instead."),
        ({"n_resamples": 0}, r"The 'n_resamples' parameter must be an int >= 1. Got 0"),
    ],
)
def test_parameters_are_checked(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        compare(THREE_SYSTEMS, "base", **kwargs)  # type: ignore[arg-type]


def test_schema_errors() -> None:
    with pytest.raises(SchemaError, match="per-query frame has no column 'value'"):
        compare(THREE_SYSTEMS.drop("value"), "base")
    with pytest.raises(SchemaError, match="repeat a"):
        compare(pl.concat([THREE_SYSTEMS, THREE_SYSTEMS.head(1)]), "base")
    with pytest.raises(ParameterError, match="EvaluationResult"):
        compare({"a": 1}, "base")  # type: ignore[arg-type]


def test_unknown_metric_direction_is_an_error() -> None:
    frame = per_query({"my_score": {"a": {"q1": 1.0}, "b": {"q1": 0.5}}})
    with pytest.raises(ParameterError, match="higher 'my_score' is better"):
        compare(frame, "a", tests=["randomization"])


def test_without_scipy_only_the_randomization_test_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    with pytest.raises(MissingDependencyError, match=r"rankset\[stats\]") as info:
        compare(THREE_SYSTEMS, "base", tests=["randomization", "t"])
    # Asked for a test that needs scipy: the message says which one needs none.
    assert "tests=['randomization'] (CLI --test randomization)" in str(info.value)
    out = compare(THREE_SYSTEMS, "base", tests=["randomization"], n_resamples=100)
    assert out.height == 2
    # The default (the core install has no scipy) runs the randomization test, and says so.
    with pytest.warns(RanksetWarning, match="randomization test only"):
        default = compare(THREE_SYSTEMS, "base", n_resamples=100)
    assert default["test"].unique().to_list() == ["randomization"]
    assert default.drop("p", "p_adj", "reject").equals(out.drop("p", "p_adj", "reject"))


def test_import_stays_light() -> None:
    import subprocess

    code = (
        "import sys, rankset.comparison.pairwise; "
        "print('numpy' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert out == "False False"


# --- property: counts add up -------------------------------------------------------------

_value = st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.0]))


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.sampled_from([f"q{i}" for i in range(8)]), _value, max_size=8),
    st.dictionaries(st.sampled_from([f"q{i}" for i in range(8)]), _value, max_size=8),
)
def test_counts_add_up(base: dict[str, float | None], new: dict[str, float | None]) -> None:
    frame = per_query({"ap": {"base": base or {"q0": None}, "new": new or {"q0": None}}})
    out = compare(frame, "base", tests=["randomization"], n_resamples=50)
    result = out.row(0, named=True)
    base, new = base or {"q0": None}, new or {"q0": None}
    both = [q for q in base if q in new and base[q] is not None and new[q] is not None]
    assert result["n_queries"] == len(both)
    assert result["n_dropped"] == len(set(base) | set(new)) - len(both)
    assert result["wins"] + result["ties"] + result["losses"] == len(both)
    assert result["wins"] == sum(new[q] > base[q] for q in both)  # type: ignore[operator]
    assert result["ties"] == sum(new[q] == base[q] for q in both)


# --- end to end on the bundled sample ----------------------------------------------------


def test_sample_bm25_versus_rerank() -> None:
    res = rankset.evaluate(
        [DATA / "bm25.trec", DATA / "rerank.trec"], DATA / "qrels.txt", ["ndcg@10", "ap"]
    )
    out = compare(res, baseline="bm25", n_resamples=2000)
    assert out.height == 2 * 3  # (rerank) × 2 metrics × 3 tests
    assert out.group_by("system", "metric").len()["len"].to_list() == [3, 3]
    assert set(out["test"]) == {"randomization", "t", "wilcoxon"}
    assert out["metric"].unique(maintain_order=True).to_list() == ["ndcg@10", "ap"]
    means = dict(
        res.summary.filter(pl.col("metric") == "ndcg@10").select("system", "mean").iter_rows()
    )
    ndcg = out.filter(pl.col("metric") == "ndcg@10")
    assert ndcg["n_queries"].to_list() == [40, 40, 40]
    assert ndcg["n_dropped"].to_list() == [0, 0, 0]
    assert ndcg["delta"].to_list() == pytest.approx(
        [means["rerank"] - means["bm25"]] * 3, rel=1e-12
    )
    # The same figures from the per-query frame itself.
    assert_frame_equal(compare(res.per_query, "bm25", n_resamples=2000), out)


def test_means_are_the_same_to_the_bit_whatever_the_row_order() -> None:
    # Unrounded values, the rows shuffled: the means (and so the differences) are the
    # same to the last bit as with the rows sorted (each comparison adds its values in
    # query-id order), and compare_each's rows for one baseline are compare's.
    rng = np.random.default_rng(3)
    queries = [f"q{i:03d}" for i in range(300)]
    rows = [
        (system, query, metric, float(value))
        for system in ("a", "b", "c")
        for metric in ("ap", "rr")
        for query, value in zip(rng.permutation(queries), rng.random(300), strict=True)
    ]
    ordered = pl.DataFrame(rows, schema=["system", "query_id", "metric", "value"], orient="row")
    ordered = ordered.sort("system", "metric", "query_id")
    frame = ordered.sample(fraction=1.0, shuffle=True, seed=2)
    options = {"tests": ["randomization"], "n_resamples": 200, "seed": 1}
    got = compare(frame, "a", metrics=["ap", "rr"], **options)
    expected = compare(ordered, "a", metrics=["ap", "rr"], **options)
    assert_frame_equal(got.sort("system", "metric"), expected.sort("system", "metric"))
    each = compare_each(frame, ["a"], metrics=["ap", "rr"], n_resamples=200, seed=1)
    assert_frame_equal(each.drop("baseline"), got)
    for system, metric, mean in got.select("system", "metric", "mean").rows():
        values = ordered.filter(system=system, metric=metric)["value"].to_numpy()
        assert mean == pytest.approx(float(np.mean(values)), abs=1e-15)


def test_the_pairs_are_joined_on_integer_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    # 99 systems x 10,000 queries x 10 metrics pair into 9.9 million rows: with string
    # system, query and metric columns the join took the dashboard's build past 4 GB.
    from rankset.comparison import pairwise

    seen: list[pl.Schema] = []
    original = pairwise.summarise_pairs

    def spy(pairs: pl.DataFrame, *args: object) -> pl.DataFrame:
        seen.append(pairs.schema)
        return original(pairs, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(pairwise, "summarise_pairs", spy)
    frame = per_query(
        {"ap": {"a": {"q1": 0.5, "q2": 0.25}, "b": {"q1": 1.0, "q3": 0.5}, "c": {"q2": 0.0}}}
    )
    out = compare_each(frame, n_resamples=100)
    assert out.select("system", "baseline").rows() == [
        ("b", "a"), ("c", "a"), ("a", "b"), ("c", "b"), ("a", "c"), ("b", "c")
    ]  # fmt: skip
    assert out["n_queries"].to_list() == [1, 1, 1, 0, 1, 0]
    assert out["n_dropped"].to_list() == [2, 1, 2, 3, 1, 3]
    assert len(seen) == 1
    assert not [name for name, dtype in seen[0].items() if dtype in (pl.String, pl.Categorical)]
