"""Inputs of the chart tests, built once with the real API from the sample data."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankset

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
RUNS = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")]
QRELS = str(SAMPLE / "qrels.txt")


@pytest.fixture(scope="session")
def result() -> rankset.EvaluationResult:
    return rankset.evaluate(RUNS, QRELS, ["ndcg@10", "ap", "harm@5"], scale="trec_dl")


@pytest.fixture(scope="session")
def comparison(result: rankset.EvaluationResult) -> pl.DataFrame:
    return rankset.compare(result, baseline="bm25", tests=("randomization",), n_resamples=500)


@pytest.fixture(scope="session")
def curves() -> rankset.Curves:
    return rankset.curves(RUNS, QRELS, measures=("ndcg", "recall"), ks=10, scale="trec_dl")


@pytest.fixture(scope="session")
def diagnosis() -> rankset.Diagnosis:
    return rankset.diagnose(RUNS, QRELS, k=5, scale="trec_dl")
