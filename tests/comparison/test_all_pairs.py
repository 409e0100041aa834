"""compare_all, significance_matrix, rank_intervals, anova, average_replicates; Tukey in compare.

References: ``rankset.compare`` for each pair's paired rows, statsmodels' ``multipletests``
for the correction over all pairs, statsmodels' additive OLS and ``anova_lm`` for the
Tukey HSD's error variance and the ANOVA table, numpy for effect sizes, and hand-made
cases for ranks, ties with the best and replicates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import rankset
from rankset.comparison.all_pairs import ALL_PAIRS_COLUMNS, compare_all, significance_matrix
from rankset.comparison.many_systems import anova, average_replicates, rank_intervals
from rankset.errors import ParameterError

scipy_stats = pytest.importorskip("scipy.stats")
smf = pytest.importorskip("statsmodels.formula.api")
sm_anova = pytest.importorskip("statsmodels.stats.anova")
multitest = pytest.importorskip("statsmodels.stats.multitest")

SYSTEMS = ["bm25", "dense", "hybrid", "rerank"]


def _per_query(
    seed: int = 0, n: int = 30, metrics: tuple[str, ...] = ("ndcg@10", "ap")
) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for metric in metrics:
        difficulty = rng.random(n)
        for j, system in enumerate(SYSTEMS):
            values = np.clip(0.6 * difficulty + 0.05 * j + rng.normal(0, 0.1, n), 0, 1)
            rows += [(system, f"q{i:02d}", metric, float(v)) for i, v in enumerate(values)]
    return pl.DataFrame(rows, schema=["system", "query_id", "metric", "value"], orient="row")


def _matrix(frame: pl.DataFrame, metric: str) -> np.ndarray:
    wide = frame.filter(metric=metric).pivot(on="system", index="query_id", values="value")
    return wide.sort("query_id").drop_nulls().select(SYSTEMS).to_numpy()


def test_every_pair_once_with_compares_figures_and_one_correction() -> None:
    frame = _per_query()
    table = compare_all(frame, tests=["randomization", "t"], n_resamples=2000)
    assert table.columns == list(ALL_PAIRS_COLUMNS)
    pairs = table.filter(metric="ndcg@10", test="t").select("system", "baseline").rows()
    assert pairs == [
        ("dense", "bm25"), ("hybrid", "bm25"), ("rerank", "bm25"),
        ("hybrid", "dense"), ("rerank", "dense"), ("rerank", "hybrid"),
    ]  # fmt: skip
    for baseline in SYSTEMS[:-1]:
        expected = rankset.compare(
            frame, baseline, tests=["randomization", "t"], n_resamples=2000, correction=None
        )
        got = table.filter(baseline=baseline)
        joined = got.join(expected, on=["system", "metric", "test"], suffix="_compare")
        assert joined.height == got.height
        for column in ("mean", "delta", "wins", "losses"):
            assert joined[column].to_list() == joined[f"{column}_compare"].to_list(), column
        # The resampled statistics come from one matrix product over every comparison of a
        # call; a call with fewer columns may round the last bit differently (BLAS).
        for column in ("ci_low", "ci_high", "p"):
            expected = joined[f"{column}_compare"].to_list()
            assert joined[column].to_list() == pytest.approx(expected, rel=1e-12), column
    for test in ("randomization", "t"):
        rows = table.filter(test=test)
        holm = multitest.multipletests(rows["p"].to_numpy(), method="holm")[1]
        np.testing.assert_allclose(rows["p_adj"].to_numpy(), holm, rtol=1e-12)
        assert rows["reject"].to_list() == (holm < 0.05).tolist()


def test_effect_sizes_are_mean_over_sd_of_the_paired_differences() -> None:
    frame = _per_query(1)
    table = compare_all(frame, tests=["t"], n_resamples=500)
    for row in table.iter_rows(named=True):
        matrix = _matrix(frame, row["metric"])
        diffs = matrix[:, SYSTEMS.index(row["system"])] - matrix[:, SYSTEMS.index(row["baseline"])]
        assert row["effect_size"] == pytest.approx(diffs.mean() / diffs.std(ddof=1), rel=1e-9)
        assert row["effect_ci_low"] < row["effect_size"] < row["effect_ci_high"]


def test_tukey_rows_use_the_two_way_anova_error_variance() -> None:
    frame = _per_query(2)
    table = compare_all(frame, tests=["tukey"], n_resamples=300)
    for metric in ("ndcg@10", "ap"):
        matrix = _matrix(frame, metric)
        n, k = matrix.shape
        long = pd.DataFrame(
            {
                "value": matrix.ravel(),
                "query": np.repeat(np.arange(n), k).astype(str),
                "system": np.tile(SYSTEMS, n),
            }
        )
        fit = smf.ols("value ~ C(system) + C(query)", data=long).fit()
        for row in table.filter(metric=metric).iter_rows(named=True):
            i, j = SYSTEMS.index(row["system"]), SYSTEMS.index(row["baseline"])
            q = abs(matrix[:, i].mean() - matrix[:, j].mean()) / np.sqrt(fit.mse_resid / n)
            expected = scipy_stats.studentized_range.sf(q, k, fit.df_resid)
            assert row["p"] == pytest.approx(expected, rel=1e-9)
            assert row["p_adj"] == row["p"]


def test_compare_runs_the_family_tests_against_its_baseline() -> None:
    frame = _per_query(3)
    out = rankset.compare(
        frame, "bm25", metrics=["ndcg@10"], tests=["t", "tukey", "randomized_tukey"],
        n_resamples=1000,
    )  # fmt: skip
    assert out["test"].to_list() == ["t", "tukey", "randomized_tukey"] * 3
    family = compare_all(
        frame, metrics=["ndcg@10"], baselines=["bm25"], tests=["tukey", "randomized_tukey"],
        n_resamples=1000,
    )  # fmt: skip
    got = out.filter(pl.col("test") != "t").drop("reject")
    expected = family.select(got.columns)
    assert got.sort("system", "test").rows() == expected.sort("system", "test").rows()
    with pytest.raises(ParameterError, match="cannot run within 'by' slices"):
        rankset.compare(frame.with_columns(topic=pl.lit("x")), "bm25", tests=["tukey"], by="topic")


def test_randomized_tukey_on_a_clear_case_and_queries_some_system_lacks() -> None:
    frame = _per_query(4, n=40)
    # rerank is much better; bm25 lacks two queries: dropped for every system
    frame = frame.with_columns(
        pl.when(pl.col("system") == "rerank").then(pl.col("value") + 0.3).otherwise("value")
    ).filter(~((pl.col("system") == "bm25") & pl.col("query_id").is_in(["q00", "q01"])))
    table = compare_all(frame, metrics=["ap"], tests=["randomized_tukey"], n_resamples=2000)
    assert set(table["n_queries"]) == {38}
    assert set(table["n_dropped"]) == {2}
    rerank = table.filter(pl.col("system") == "rerank")
    assert rerank["p"].max() == pytest.approx(1 / 2001)  # no permutation reaches it


def test_significance_matrix() -> None:
    table = compare_all(_per_query(5), tests=["t"], n_resamples=200)
    p = significance_matrix(table, metric="ap", value="p_adj")
    assert p.columns == ["system", *SYSTEMS]
    values = p.drop("system").to_numpy()
    np.testing.assert_array_equal(values, values.T)  # symmetric, null diagonal
    assert np.isnan(np.diag(values.astype(float))).all()
    delta = significance_matrix(table, metric="ap", value="delta").drop("system").to_numpy()
    np.testing.assert_allclose(delta, -delta.T)
    row = table.filter(metric="ap", system="rerank", baseline="bm25").row(0, named=True)
    assert delta[SYSTEMS.index("rerank"), SYSTEMS.index("bm25")] == row["delta"]
    with pytest.raises(ParameterError, match="no rows"):
        significance_matrix(table, metric="rr")


def test_rank_intervals_and_ties_with_the_best() -> None:
    queries = [f"q{i}" for i in range(12)]
    best = [0.9, 0.8, 0.9, 0.85, 0.9, 0.8, 0.95, 0.9, 0.85, 0.9, 0.8, 0.9]
    close = [v - 0.01 for v in best[:6]] + [v + 0.005 for v in best[6:]]
    far = [0.1] * 12
    frame = pl.DataFrame(
        {
            "system": ["best"] * 12 + ["close"] * 12 + ["far"] * 12,
            "query_id": queries * 3,
            "metric": "ndcg@10",
            "value": best + close + far,
        }
    )
    out = rank_intervals(frame, n_resamples=500)
    assert out["system"].to_list() == ["best", "close", "far"]
    assert out["rank"].to_list() == [1, 2, 3]
    assert out["tied_with_best"].to_list() == [True, True, False]
    far_row = out.row(2, named=True)
    assert (far_row["rank_low"], far_row["rank_high"]) == (3, 3)
    assert out.row(0, named=True)["rank_high"] == 2  # best and close swap in resamples
    harm = frame.with_columns(metric=pl.lit("harm@10"))  # lower is better
    assert rank_intervals(harm, tied_test=None, n_resamples=50)["system"][0] == "far"


def test_anova_table_equals_statsmodels() -> None:
    frame = _per_query(6, n=15, metrics=("ap",))
    matrix = _matrix(frame, "ap")
    n, k = matrix.shape
    long = pd.DataFrame(
        {"value": matrix.ravel(), "query": np.repeat(np.arange(n), k).astype(str),
         "system": np.tile(SYSTEMS, n)}
    )  # fmt: skip
    reference = sm_anova.anova_lm(smf.ols("value ~ C(system) + C(query)", data=long).fit(), typ=2)
    table = anova(frame)
    for source, label in (("system", "C(system)"), ("query", "C(query)"), ("residual", "Residual")):
        row = table.filter(source=source).row(0, named=True)
        assert row["df"] == reference.loc[label, "df"]
        assert row["sum_sq"] == pytest.approx(reference.loc[label, "sum_sq"], rel=1e-9)
        if source != "residual":
            assert row["F"] == pytest.approx(reference.loc[label, "F"], rel=1e-9)
            assert row["p"] == pytest.approx(reference.loc[label, "PR(>F)"], rel=1e-6)
    assert table.filter(source="residual")["F"].is_null().all()


def test_replicates_are_averaged_per_query_before_testing() -> None:
    frame = _per_query(7, n=10, metrics=("ap",))
    seeds = frame.filter(pl.col("system").is_in(["dense", "hybrid"]))
    mapping = {"dense": "model", "hybrid": "model"}
    averaged, spread = average_replicates(frame, mapping)
    assert averaged["system"].unique(maintain_order=True).to_list() == ["bm25", "model", "rerank"]
    wide = seeds.pivot(on="system", index="query_id", values="value").sort("query_id")
    expected = ((wide["dense"] + wide["hybrid"]) / 2).to_list()
    assert averaged.filter(system="model").sort("query_id")["value"].to_list() == pytest.approx(
        expected
    )
    model = spread.filter(system="model").row(0, named=True)
    run_means = [wide["dense"].mean(), wide["hybrid"].mean()]
    assert model["n_replicates"] == 2
    assert model["replicate_sd"] == pytest.approx(float(np.std(run_means, ddof=1)))
    assert spread.filter(system="bm25")["n_replicates"].to_list() == [1]
    assert compare_all(averaged, tests=["t"]).height == 3
    with pytest.raises(ParameterError, match="not in the result"):
        average_replicates(frame, {"dnse": "model"})


def test_bad_arguments_are_refused() -> None:
    frame = _per_query(8, n=5)
    with pytest.raises(ParameterError, match="two systems or more"):
        compare_all(frame.filter(system="bm25"))
    with pytest.raises(ParameterError, match=r"'baselines'.*Did you mean 'bm25'"):
        compare_all(frame, baselines=["bm2"])
    with pytest.raises(ParameterError, match="tied_test"):
        rank_intervals(frame, tied_test="t")


def test_a_resample_count_that_cannot_reach_significance_is_said() -> None:
    frame = _per_query(9, n=12)  # 6 pairs x 2 metrics = 12 rows
    # 12 / (100 + 1) >= 0.05: Holm can reject nothing; with 300, 12 / 301 < 0.05
    with pytest.warns(rankset.RanksetWarning, match=r"n_resamples >= 240"):
        compare_all(frame, tests=["randomization"], n_resamples=100)
    with pytest.warns(rankset.RanksetWarning, match="holm over 3 rows"):
        rankset.compare(frame, "bm25", metrics=["ap"], tests=["randomization"], n_resamples=50)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_all(frame, tests=["randomization"], n_resamples=300)
        compare_all(frame, tests=["randomization"], n_resamples=100, correction="bh")


def test_relative_delta_is_delta_over_the_baselines_mean() -> None:
    frame = _per_query(10, n=8)
    zero = frame.with_columns(
        pl.when(pl.col("system") == "bm25").then(0.0).otherwise("value").alias("value")
    )
    for table in (rankset.compare(frame, "bm25", tests=["t"]), compare_all(frame, tests=["t"])):
        for row in table.iter_rows(named=True):
            assert row["relative_delta"] == pytest.approx(row["delta"] / row["baseline_mean"])
    rows = rankset.compare(zero, "bm25", tests=["t"])
    assert rows["relative_delta"].is_null().all()  # a baseline mean of 0: no ratio
