"""The dashboard's Collections view: a suite's heatmap and aggregate, and its CLI.

The suite of tests/_support/suite_cases.py (the sample over its qrels and over derived qrels where
BM25 ranks first, and a run only the first collection has). Expected means come from
separate ``rankset.evaluate`` calls, ranks from plain Python.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import rankset
from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS, embedded
from _support.suite_cases import (
    SUITE_METRICS,
    SUITE_OPTIONS,
    collections,
    plain_ranks,
    write_suite,
)
from rankset.comparison import SuiteResult, evaluate_suite_toml
from rankset.errors import ParameterError
from rankset.pages.dashboard import dashboard

METRICS = ["ndcg@10", "ap", "recall@100"]  # recall@100: a dashboard metric the suite lacks


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = tmp_path_factory.mktemp("suite")
    write_suite(made)
    return made


@pytest.fixture(scope="module")
def suite(folder: Path) -> SuiteResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # top5 is missing from one collection: warned
        return evaluate_suite_toml(folder / "SUITE.toml", **SUITE_OPTIONS)


@pytest.fixture(scope="module")
def page(suite: SuiteResult) -> str:
    board = dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        metrics=METRICS,
        scale="trec_dl",
        n_resamples=100,
        suite=suite,
        progress=False,
    )
    return board.html


def test_the_page_holds_the_collections_view(page: str) -> None:
    assert '<button type="button" role="tab" data-tab="collections">Collections</button>' in page
    assert '<section data-view="collections" aria-label="Collections" hidden>' in page
    assert '<div id="chart-collections"></div>' in page
    assert '<table id="collections-table"></table>' in page
    assert "2 collections: sample (40 queries), boosted (20 queries)." in page
    assert "Missing: top5 is not in boosted" in page
    assert "the means of 2 collections of a suite, with their ranks" in page
    spec = embedded(page, "rankset-specs")["collections"]
    params = {param["name"]: param["value"] for param in spec["params"]}
    assert params == {"metric": "ndcg@10", "lower": False}


def test_the_cells_are_each_collections_means_and_ranks(page: str, folder: Path) -> None:
    data = embedded(page, "rankset-data")["suite"]
    assert data["collections"] == ["sample", "boosted"]
    assert data["queries"] == [40, 20]
    assert data["metrics"] == ["ndcg@10", "ap"]  # the dashboard's, in its order, held
    assert data["held"] == SUITE_METRICS
    assert data["missing"] == [{"collection": "boosted", "system": "top5"}]
    cells = {(c["collection"], c["system"], c["metric"]): c for c in data["cells"]}
    assert {metric for _, _, metric in cells} == {"ndcg@10", "ap"}
    for name, (runs, qrels) in collections(folder).items():
        alone = rankset.evaluate(runs, qrels, ["ndcg@10", "ap"], **SUITE_OPTIONS)
        for metric in ("ndcg@10", "ap"):
            means = dict(alone.summary.filter(metric=metric).select("system", "mean").rows())
            ranks = plain_ranks({s: v for s, v in means.items() if s != "top5"})
            for system, mean in means.items():
                cell = cells[(name, system, metric)]
                assert cell["mean"] == pytest.approx(mean, abs=1e-12)
                assert cell["rank"] == ranks.get(system)  # None for top5
    # BM25 is first on the boosted collection, second on the sample: white text where
    # the mean is in the better half of the metric's range
    assert cells[("boosted", "bm25", "ndcg@10")]["rank"] == 1.0
    assert cells[("boosted", "bm25", "ndcg@10")]["dark"] is True
    assert cells[("sample", "top5", "ndcg@10")]["dark"] is False
    rows = [(r["metric"], r["system"]) for r in data["aggregate"]]
    assert sorted(rows) == sorted(
        (m, s) for m in ("ndcg@10", "ap") for s in ("bm25", "rerank", "top5")
    )


def test_without_a_suite_there_is_no_collections_view() -> None:
    board = dashboard(SAMPLE_RUNS, SAMPLE_QRELS, metrics=["ap"], scale="trec_dl", n_resamples=50)
    assert 'data-tab="collections"' not in board.html
    assert 'id="chart-collections"' not in board.html
    assert embedded(board.html, "rankset-data")["suite"] is None
    assert "collections" not in embedded(board.html, "rankset-specs")


def test_what_is_no_suite_is_refused_before_any_work(suite: SuiteResult) -> None:
    heard: list[str] = []
    with pytest.raises(ParameterError, match="must be a SuiteResult"):
        dashboard(
            SAMPLE_RUNS,
            SAMPLE_QRELS,
            suite=suite.per_collection,  # type: ignore[arg-type]
            progress=lambda done, total, what: heard.append(what),
        )
    assert heard == []


def test_the_cli_writes_a_dashboard_of_the_suite(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "board.html"
    done = subprocess.run(
        [
            *(
                sys.executable,
                "-m",
                "rankset.cli",
                "evaluate",
                "--suite",
                str(folder / "SUITE.toml"),
            ),
            "--scale",
            "trec_dl",
            "--dashboard",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stderr
    page = out.read_text(encoding="utf-8")
    data = embedded(page, "rankset-data")
    assert data["systems"] == ["bm25", "rerank", "top5"]  # the first collection's runs
    assert data["suite"]["metrics"] == SUITE_METRICS
    assert "rankset dashboard: sample and the suite SUITE.toml" in page
