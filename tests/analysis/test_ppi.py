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
