"""Cost beside quality in headless Chromium: the report's Cost section, the dashboard's block.

Three systems of the sample: bm25, the reranker, and bm25 again under another name with a
dearer cost (as good as bm25 and dearer: off the front). What is asserted is what is on the
screen (the table's rows, the chart's points as their aria labels say), compared with
:attr:`rankset.pages.Analysis.cost_quality`, whose front the fast tests check by hand
(tests/comparison/test_pareto.py). Screenshots go to ``RANKSET_SCREENSHOTS`` when it names
a folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset
from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS
from rankset.pages import Analysis
from rankset.pages.dashboard import render as render_dashboard
from rankset.pages.report import render as render_report

# starts headless Chromium: the fast lane (-m 'not slow') leaves it out
pytestmark = pytest.mark.slow

pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)

LATENCY = {"bm25": 20.0, "rerank": 400.0, "bm25-slow": 60.0}


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    runs = {**SAMPLE_RUNS, "bm25-slow": SAMPLE_RUNS["bm25"]}
    queries = sorted({line.split()[0] for line in SAMPLE_QRELS.read_text().splitlines()})
    costs = pl.DataFrame(
        [
            {"system": s, "query_id": q, "latency_ms": base + i, "tokens_in": 10.0 * i}
            for s, base in LATENCY.items()
            for i, q in enumerate(queries)
        ]
    )
    return rankset.analyse(
        runs, SAMPLE_QRELS, metrics=["ndcg@10", "ap"], costs=costs, scale="trec_dl",
        n_resamples=200, progress=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def pages(analysis: Analysis, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    report = folder / "report.html"
    report.write_text(render_report(analysis), encoding="utf-8")
    return {"dashboard": render_dashboard(analysis).save(folder / "dashboard.html"),
            "report": report}  # fmt: skip


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert errors == []


def screenshot(target: Any, name: str, **options: Any) -> None:
    folder = os.environ.get("RANKSET_SCREENSHOTS")
    if folder:
        target.screenshot(path=Path(folder) / f"costs_{name}.png", **options)


def points(page: Any, chart: str) -> dict[str, bool]:
    """Each drawn point's system and whether its label says it is on the front."""
    labels = page.evaluate(
        f"""Array.from(document.querySelectorAll('{chart} [aria-roledescription=point]'))
              .map(e => e.getAttribute('aria-label'))"""
    )
    out = {}
    for label in labels:
        fields = dict(part.split(": ", 1) for part in label.split("; "))
        out[fields["system"]] = fields["on the Pareto front"] == "true"
    return out


def expected_front(analysis: Analysis, metric: str, cost: str) -> dict[str, bool]:
    assert analysis.cost_quality is not None
    rows = analysis.cost_quality.filter(pl.col("metric") == metric, pl.col("cost") == cost)
    return dict(rows.select("system", "pareto").iter_rows())


def test_the_front_is_bm25_and_the_reranker(analysis: Analysis) -> None:
    # bm25-slow is bm25 (the same run), dearer: dominated; the reranker is better and dearer
    assert expected_front(analysis, "ndcg@10", "latency_ms") == {
        "bm25": True, "rerank": True, "bm25-slow": False,
    }  # fmt: skip


def test_the_report_charts_quality_against_each_cost_and_tables_the_costs(
    page: Any, pages: dict[str, Path], analysis: Analysis
) -> None:
    page.goto(pages["report"].as_uri())
    page.wait_for_selector("#chart-costs-1 svg")
    assert page.is_visible("#costs")
    assert page.locator("#costs svg.marks").count() == 2  # latency_ms and tokens_in
    assert "ndcg@10 versus mean latency_ms" in page.locator("#chart-costs-0").inner_text()
    assert points(page, "#chart-costs-0") == expected_front(analysis, "ndcg@10", "latency_ms")
    rows = page.locator("#costs table tbody tr")
    assert rows.count() == 6  # 3 systems x 2 cost columns
    costs = analysis.result.costs
    assert costs is not None
    for number, r in enumerate(costs.iter_rows(named=True)):
        cells = rows.nth(number).locator("th, td").all_inner_texts()
        assert cells[:3] == [r["system"], r["cost"], f"{r['mean']:.4f}"]
        on_front = expected_front(analysis, "ndcg@10", r["cost"])[r["system"]]
        assert (cells[-1] == "✓") is on_front
    screenshot(page.locator("#costs"), "report")


def test_the_dashboard_shows_costs_and_follows_the_metric_picker(
    page: Any, pages: dict[str, Path], analysis: Analysis
) -> None:
    page.goto(pages["dashboard"].as_uri())
    page.wait_for_selector("body[data-ready='true']")
    assert page.is_visible("#costs-box")
    assert page.is_visible("#chart-costs svg")
    assert points(page, "#chart-costs") == expected_front(analysis, "ndcg@10", "latency_ms")
    rows = page.locator("#costs-table tbody tr")
    assert rows.count() == 6
    shown = {
        (rows.nth(i).get_attribute("data-system"), rows.nth(i).get_attribute("data-cost")):
        rows.nth(i).get_attribute("data-pareto") == "true"
        for i in range(rows.count())
    }  # fmt: skip
    assert cost_quality_marks(analysis, "ndcg@10") == shown
    screenshot(page.locator("#costs-box"), "dashboard")
    # another metric: the table and the chart follow it
    page.select_option("#metric", "ap")
    assert "ap" in page.locator("#costs-table thead").inner_text()
    assert "ap versus mean latency_ms" in page.locator("#chart-costs").inner_text()
    assert points(page, "#chart-costs") == expected_front(analysis, "ap", "latency_ms")
    # the chart's menu picks the cost column
    page.select_option("#chart-costs select", "tokens_in")
    assert "ap versus mean tokens_in" in page.locator("#chart-costs").inner_text()
    assert points(page, "#chart-costs") == expected_front(analysis, "ap", "tokens_in")


def cost_quality_marks(analysis: Analysis, metric: str) -> dict[tuple[str, str], bool]:
    assert analysis.cost_quality is not None
    rows = analysis.cost_quality.filter(pl.col("metric") == metric)
    return {(s, c): on for s, c, on in rows.select("system", "cost", "pareto").iter_rows()}
