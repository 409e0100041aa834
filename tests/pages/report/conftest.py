"""Reports built once for the report tests: the sample data, and hostile strings everywhere."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankset
from _support.report_cases import (
    METRICS,
    N_RESAMPLES,
    QRELS,
    RUNS,
    SCRIPT_PAYLOAD,
    SCRIPT_TITLE_PAYLOAD,
    TITLE_PAYLOAD,
)
from rankset.pages.report import report


@pytest.fixture(scope="session")
def sample_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "sample.html"
    return report(
        RUNS,
        QRELS,
        metrics=METRICS,
        out=out,
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        title="Sample report",
    ).path


@pytest.fixture(scope="session")
def sample_result() -> rankset.EvaluationResult:
    return rankset.evaluate(RUNS, QRELS, METRICS, scale="trec_dl", n_resamples=N_RESAMPLES)


@pytest.fixture(scope="session")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    queries = [SCRIPT_PAYLOAD, TITLE_PAYLOAD, "q&3", "q4"]
    docs = ["d1", "d2", "d3"]
    run = pl.DataFrame(
        {
            "query_id": [q for q in queries for _ in docs],
            "doc_id": docs * len(queries),
            "score": [3.0, 2.0, 1.0] * len(queries),
        }
    )
    flipped = run.with_columns(pl.col("score").reverse().over("query_id"))
    labels = pl.DataFrame(
        {
            "query_id": [q for q in queries for _ in docs],
            "doc_id": docs * len(queries),
            "grade": [5, 1, 4, 2, 5, 3, 1, 1, 5, 4, 4, 2],
        }
    )
    out = tmp_path_factory.mktemp("hostile") / "hostile.html"
    return report(
        {SCRIPT_PAYLOAD: run, SCRIPT_TITLE_PAYLOAD: flipped},
        labels,
        out=out,
        k=2,
        depth=3,
        n_resamples=100,
        title="Hostile",
        query_text={TITLE_PAYLOAD: SCRIPT_PAYLOAD, "q4": "plain <b>text</b>"},
    ).path
