"""rankset.ppi_means: judge labels on many queries, corrected by human labels on a few.

The estimate and its interval equal a plain numpy transcription of the published
estimator (Angelopoulos et al., Science 2023) over the per-query values that
``rankset.evaluate`` gives under each label set; by hand on a small case; and the
estimator's preconditions are refused with a message.
"""

from __future__ import annotations

from pathlib import Path
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest

import rankset
from rankset.errors import ParameterError, SchemaError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
RUNS = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}


def _qrels() -> pl.DataFrame:
    return pl.read_csv(
        SAMPLE / "qrels.txt",
        separator=" ",
        has_header=False,
        new_columns=["query_id", "iter", "doc_id", "grade"],
        schema_overrides={"query_id": pl.String, "doc_id": pl.String},
    )


def test_the_estimate_and_interval_equal_a_numpy_transcription() -> None:
    qrels = _qrels()
    judge = qrels.with_columns(pl.col("grade").ge(2).cast(pl.Int64))  # a strict judge
    queries = sorted(qrels["query_id"].unique().to_list())
    human = qrels.filter(pl.col("query_id").is_in(pl.Series(queries[:15]).implode()))
    metrics = ["ndcg@10", "ap"]
    got = rankset.ppi_means(RUNS, judge, human, metrics, confidence=0.9)
    f_all = rankset.evaluate(RUNS, judge, metrics, confidence=None).wide()
    y_all = rankset.evaluate(RUNS, human, metrics, confidence=None).wide()
    z = NormalDist().inv_cdf(0.95)
    assert got.height == 4
    for row in got.iter_rows(named=True):
        f = f_all.filter(system=row["system"])
        y = y_all.filter(system=row["system"])
        human_ids = set(y["query_id"])
        f_labeled = f.filter(pl.col("query_id").is_in(pl.Series(list(human_ids)).implode()))
        f_unlabeled = f.filter(~pl.col("query_id").is_in(pl.Series(list(human_ids)).implode()))
        joined = f_labeled.join(y, on="query_id", suffix="_y")
        fl = joined[row["metric"]].to_numpy()
        yl = joined[f"{row['metric']}_y"].to_numpy()
        fu = f_unlabeled[row["metric"]].drop_nulls().to_numpy()
        estimate = fu.mean() - (fl - yl).mean()
        half = z * np.sqrt(fu.var(ddof=1) / fu.size + (fl - yl).var(ddof=1) / fl.size)
        assert (row["n_human"], row["n_judge_only"]) == (fl.size, fu.size)
        assert row["mean"] == pytest.approx(estimate, abs=1e-12)
        assert row["ci_low"] == pytest.approx(estimate - half, abs=1e-12)
        assert row["ci_high"] == pytest.approx(estimate + half, abs=1e-12)
        assert row["human_mean"] == pytest.approx(yl.mean(), abs=1e-12)


def test_by_hand() -> None:
    run = {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(6)}
    judge = {f"q{i}": {"a": 1} for i in range(6)}
    # people: a on q0 (rr 1, as the judge), b on q1 (rr 1/2, the judge says 1)
    human = {"q0": {"a": 1}, "q1": {"b": 1}}
    row = rankset.ppi_means(run, judge, human, "rr").row(0, named=True)
    assert (row["n_judge_only"], row["n_human"]) == (4, 2)
    assert row["mean"] == pytest.approx(1.0 - 0.25)
    # var(f) = 0 on q2..q5; f - y = (0, 0.5): variance 0.125, over n = 2
    half = NormalDist().inv_cdf(0.975) * np.sqrt(0.125 / 2)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((0.75 - half, 0.75 + half))


def test_too_few_queries_on_either_side_and_a_bad_level_are_refused() -> None:
    run = {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(3)}
    judge = {f"q{i}": {"a": 1} for i in range(3)}
    with pytest.raises(SchemaError, match="1 human-labelled and 2 judge-only"):
        rankset.ppi_means(run, judge, {"q0": {"a": 1}}, "rr")
    with pytest.raises(SchemaError, match="2 human-labelled and 1 judge-only"):
        rankset.ppi_means(run, judge, {"q0": {"a": 1}, "q1": {"a": 1}}, "rr")
    with pytest.raises(ParameterError, match="confidence"):
        rankset.ppi_means(run, judge, judge, "rr", confidence=1.0)


# --- ppi_compare: the same estimator on differences, in compare's columns -----------------


def _numpy_ppi(f_all: pl.DataFrame, y_all: pl.DataFrame, metric: str) -> tuple[float, float]:
    """Estimate and standard error from per-query columns, transcribed from the paper."""
    human_ids = pl.Series(y_all["query_id"].to_list()).implode()
    labeled = f_all.filter(pl.col("query_id").is_in(human_ids)).join(
        y_all, on="query_id", suffix="_y"
    )
    unlabeled = f_all.filter(~pl.col("query_id").is_in(human_ids))
    fl, yl = labeled[metric].to_numpy(), labeled[f"{metric}_y"].to_numpy()
    fu = unlabeled[metric].to_numpy()
    estimate = fu.mean() - (fl - yl).mean()
    return estimate, float(np.sqrt(fu.var(ddof=1) / fu.size + (fl - yl).var(ddof=1) / fl.size))


def test_ppi_compare_equals_a_numpy_transcription_on_differences() -> None:
    qrels = _qrels()
    judge = qrels.with_columns(pl.col("grade").ge(2).cast(pl.Int64))
    queries = sorted(qrels["query_id"].unique().to_list())
    human = qrels.filter(pl.col("query_id").is_in(pl.Series(queries[:12]).implode()))
    metrics = ["ndcg@10", "rr"]
    got = rankset.ppi_compare(RUNS, judge, human, "bm25", metrics, confidence=0.9)
    f = rankset.evaluate(RUNS, judge, metrics, confidence=None).wide()
    y = rankset.evaluate(RUNS, human, metrics, confidence=None).wide()
    z = NormalDist().inv_cdf(0.95)
    assert got["metric"].to_list() == metrics
    assert set(got["system"]) == {"rerank"}
    assert set(got["test"]) == {"ppi"}
    p_values = []
    for row in got.iter_rows(named=True):
        metric = row["metric"]

        def side(frame: pl.DataFrame, system: str, metric: str = metric) -> pl.DataFrame:
            return frame.filter(system=system).select("query_id", metric).sort("query_id")

        diff_f = side(f, "rerank").with_columns(pl.col(metric) - side(f, "bm25")[metric])
        diff_y = side(y, "rerank").with_columns(pl.col(metric) - side(y, "bm25")[metric])
        delta, se = _numpy_ppi(diff_f, diff_y, metric)
        mean, _ = _numpy_ppi(side(f, "rerank"), side(y, "rerank"), metric)
        base, _ = _numpy_ppi(side(f, "bm25"), side(y, "bm25"), metric)
        assert row["delta"] == pytest.approx(delta, abs=1e-12)
        assert (row["mean"], row["baseline_mean"]) == pytest.approx((mean, base), abs=1e-12)
        assert row["ci_low"] == pytest.approx(delta - z * se, abs=1e-12)
        assert row["ci_high"] == pytest.approx(delta + z * se, abs=1e-12)
        p = 2.0 * (1.0 - NormalDist().cdf(abs(delta) / se))
        assert row["p"] == pytest.approx(p, abs=1e-12)
        assert row["n_queries"] == len(queries)
        assert row["n_dropped"] == 0
        p_values.append(p)
    # Holm over the two rows, by hand
    low, high = sorted(p_values)
    holm = {low: min(1.0, 2 * low), high: max(min(1.0, 2 * low), min(1.0, high))}
    assert got["p_adj"].to_list() == pytest.approx([holm[p] for p in p_values], abs=1e-12)
    assert got["reject"].to_list() == [holm[p] < 0.05 for p in p_values]


def test_ppi_compare_rows_stack_under_compare() -> None:
    qrels = _qrels()
    queries = sorted(qrels["query_id"].unique().to_list())
    human = qrels.filter(pl.col("query_id").is_in(pl.Series(queries[:10]).implode()))
    result = rankset.evaluate(RUNS, qrels, ["ndcg@10"])
    classic = rankset.compare(result, "bm25", tests=["randomization"], n_resamples=200)
    ppi = rankset.ppi_compare(RUNS, qrels, human, "bm25", "ndcg@10")
    both = pl.concat([classic, ppi])
    assert both["test"].to_list() == ["randomization", "ppi"]
    assert ppi["wins"].is_null().all()
    # judge == human labels: no bias, so the estimate is the judge-only mean difference
    wide = result.wide().filter(~pl.col("query_id").is_in(pl.Series(queries[:10]).implode()))
    per_system = {s: wide.filter(system=s)["ndcg@10"].mean() for s in ("bm25", "rerank")}
    assert ppi["delta"][0] == pytest.approx(per_system["rerank"] - per_system["bm25"])


def test_ppi_compare_by_hand_and_its_refusals() -> None:
    queries = [f"q{i}" for i in range(8)]
    runs = {
        "base": {q: {"b": 2.0, "a": 1.0} for q in queries},
        "new": {q: {"a": 2.0, "b": 1.0} for q in queries if q != "q7"},
    }
    judge = {q: {"a": 1} for q in queries}
    human = {"q0": {"a": 1}, "q1": {"a": 1}, "q2": {"b": 1}, "q3": {"b": 1}}
    row = rankset.ppi_compare(runs, judge, human, "base", "rr").row(0, named=True)
    # q7: no ranking for new; judge-only q4..q6 give f differences 0.5; human-labelled
    # differences f - y = 0, 0, 1, 1 (mean 0.5, variance 1/3)
    assert (row["n_queries"], row["n_dropped"]) == (7, 1)
    assert row["delta"] == pytest.approx(0.5 - 0.5)
    se = np.sqrt(0.0 / 3 + (1 / 3) / 4)
    half = NormalDist().inv_cdf(0.975) * se
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((-half, half))
    assert row["p"] == pytest.approx(1.0)
    with pytest.raises(ParameterError, match=r"'baseline'.*Did you mean 'base'"):
        rankset.ppi_compare(runs, judge, human, "bse", "rr")
    with pytest.raises(SchemaError, match=r"ppi_compare.*1 human-labelled"):
        rankset.ppi_compare(runs, judge, {"q0": {"a": 1}}, "base", "rr")
    with pytest.raises(ParameterError, match="correction"):
        rankset.ppi_compare(runs, judge, human, "base", "rr", correction="sidak")  # type: ignore[arg-type]
