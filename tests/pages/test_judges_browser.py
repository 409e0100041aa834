"""The judges view in headless Chromium: the dashboard's tab, the report's section, a notebook.

Driven by Playwright with the system Chromium, as the other browser tests are. What is
asserted is what is on the screen (visible text, rows, the address), and it is compared
with :attr:`rankset.pages.Analysis.judges_view`, whose rows the fast tests check against
meta_evaluate and SciPy. Screenshots go to ``RANKSET_SCREENSHOTS`` when it names a folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset
from _support.dashboard_cases import SAMPLE_QRELS, sample_texts
from _support.judges_cases import sample_judge, sample_runs
from _support.report_cases import fmt
from rankset.pages import Analysis
from rankset.pages._texts import read_texts
from rankset.pages.dashboard import render as render_dashboard
from rankset.pages.report import render as render_report

# starts headless Chromium: the fast lane (-m 'not slow') leaves it out
pytestmark = pytest.mark.slow

pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)


@pytest.fixture(scope="module")
def analysis(tmp_path_factory: pytest.TempPathFactory) -> Analysis:
    runs = sample_runs()
    judge = sample_judge(tmp_path_factory.mktemp("judge"), runs)
    return rankset.analyse(
        runs,
        SAMPLE_QRELS,
        metrics=["ndcg@10", "ap"],
        label_sets={"llm": judge},
        scale="trec_dl",
        n_resamples=200,
        progress=False,
    )


@pytest.fixture(scope="module")
def pages(analysis: Analysis, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    docs, queries = sample_texts(folder)
    board = render_dashboard(
        analysis,
        texts=read_texts(docs, what="texts"),
        query_texts=read_texts(queries, what="queries"),
    )
    report = folder / "report.html"
    report.write_text(render_report(analysis), encoding="utf-8")
    notebook = folder / "notebook.html"
    notebook.write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>notebook</title>'
        "</head><body><h1>In [1]: rankset.dashboard(...)</h1>"
        f"{board._repr_html_()}</body></html>",
        encoding="utf-8",
    )
    return {"dashboard": board.save(folder / "dashboard.html"), "report": report,
            "notebook": notebook}  # fmt: skip


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("request", lambda request: requests.append(request.url))
    yield tab
    context.close()
    assert errors == []
    assert [u for u in requests if not u.startswith(("file:", "data:", "about:"))] == []


def screenshot(target: Any, name: str, **options: Any) -> None:
    folder = os.environ.get("RANKSET_SCREENSHOTS")
    if folder:
        target.screenshot(path=Path(folder) / f"judges_{name}.png", **options)


def texts(locator: Any) -> list[str]:
    return [" ".join(t.split()) for t in locator.all_inner_texts()]


def test_the_dashboards_judges_tab_shows_both_leaderboards_and_their_correlations(
    page: Any, pages: dict[str, Path], analysis: Analysis
) -> None:
    view = analysis.judges_view
    assert view is not None
    page.goto(pages["dashboard"].as_uri())
    page.wait_for_selector("body[data-ready='true']")
    assert not page.is_visible("#judges-correlations")
    page.click("[data-tab=judges]")
    assert page.is_visible("#judges-correlations")
    assert "view=judges" in page.evaluate("location.hash")
    assert page.locator("#chart-judges svg").count() == 1
    assert page.locator("#chart-calibration svg").count() == 1
    assert page.is_visible("#chart-judges svg")
    assert page.is_visible("#chart-calibration svg")
    # the correlations of ndcg@10, each with its interval, as the analysis holds them
    row = page.locator("#judges-correlations tbody tr[data-judge='llm']")
    shown = view.correlations.filter(pl.col("metric") == "ndcg@10")
    for name, value, low, high in shown.select(
        "correlation", "value", "ci_low", "ci_high"
    ).iter_rows():
        cell = " ".join(row.locator(f"td[data-correlation='{name}']").inner_text().split())
        assert cell == f"{fmt(value)} [{fmt(low)}, {fmt(high)}]", name
    # the leaderboards side by side, best by the humans first
    boards = view.leaderboards.filter(pl.col("metric") == "ndcg@10")
    rows = texts(page.locator("#judges-boards tbody tr"))
    expected = []
    for r in boards.iter_rows(named=True):
        change = r["rank_change"]
        arrow = "=" if change == 0 else (f"↑{change}" if change > 0 else f"↓{-change}")
        expected.append(
            f"{r['system']} {fmt(r['truth_mean'])} {r['truth_rank']} {fmt(r['judge_mean'])} "
            f"{r['judge_rank']} {arrow}"
        )
    assert rows == expected
    assert any("↑" in row for row in rows)  # the judge moves a system up
    screenshot(page, "dashboard", full_page=True)
    # another metric: the tables follow it
    page.select_option("#metric", "ap")
    ap = view.correlations.filter(pl.col("metric") == "ap", pl.col("correlation") == "kendall")
    cell = row.locator("td[data-correlation='kendall'] .mean").inner_text()
    assert cell == fmt(ap["value"].item())
    assert "(ap)" in page.locator("#judges-topics-title").inner_text()


def test_a_topic_of_disagreement_opens_its_query_view(
    page: Any, pages: dict[str, Path], analysis: Analysis
) -> None:
    view = analysis.judges_view
    assert view is not None
    worst = view.topics.filter(pl.col("metric") == "ndcg@10")["query_id"].to_list()
    page.goto(pages["dashboard"].as_uri() + "#view=judges&a=bm25&b=noisy-bm25&k=5")
    page.wait_for_selector("body[data-ready='true']")
    listed = page.locator("#judges-topics tbody tr th a")
    assert listed.all_inner_texts() == worst
    first = page.locator("#judges-topics tbody tr").first
    assert "what is the" in first.inner_text()  # the query's text beside its id
    listed.first.click()
    page.wait_for_selector("#serp-b")
    assert page.locator("#query-title").inner_text() == f"Query {worst[0]}"
    fragment = page.evaluate("decodeURIComponent(location.hash)")
    assert fragment.startswith(f"#query={worst[0]}&a=bm25&b=noisy-bm25&metric=ndcg@10&k=5")
    assert page.locator("#serp-a tbody tr").count() == 5
    page.go_back()
    page.wait_for_selector("#judges-correlations", state="visible")


def test_the_reports_judges_section_reads_as_the_analysis_says(
    page: Any, pages: dict[str, Path], analysis: Analysis
) -> None:
    view = analysis.judges_view
    assert view is not None
    page.goto(pages["report"].as_uri())
    page.click("nav a[href='#judges']")
    heading = page.locator("section#judges h2")
    assert heading.inner_text() == "Judges"
    box = heading.bounding_box()
    assert box is not None
    assert -2 <= box["y"] < 1000  # the link scrolled to it: on screen
    table = page.locator("section#judges #judges-correlations")
    assert table.is_visible()
    kendall = view.correlations.filter(pl.col("metric") == "ndcg@10")["value"][0]
    first = texts(table.locator("tbody tr").first)[0]
    assert first.startswith(f"llm ndcg@10 4 40 {fmt(kendall)} [")
    boards = texts(page.locator("section#judges #judges-boards tbody tr"))
    truth = view.leaderboards.filter(pl.col("metric") == "ndcg@10")
    assert [row.split(" ")[0] for row in boards] == truth["system"].to_list()
    topics = page.locator("section#judges table.judges-topics tbody tr td a")
    worst = view.topics.filter(pl.col("metric") == "ndcg@10")["query_id"].to_list()
    assert topics.all_inner_texts() == worst
    topics.first.click()
    assert page.evaluate("location.hash").startswith("#judges-llm-ndcg@10-")
    assert page.is_visible("section#judges .vega-embed svg")
    assert page.locator("#chart-judges svg.marks").count() == 1
    assert page.locator("#chart-calibration svg.marks").count() == 1
    screenshot(page.locator("section#judges"), "report")


def test_the_judges_tab_works_inside_a_notebooks_frame(
    page: Any, pages: dict[str, Path], analysis: Analysis
) -> None:
    view = analysis.judges_view
    assert view is not None
    page.goto(pages["notebook"].as_uri())
    page.evaluate("window.hostMarker = 'still here'")
    frame = page.frame_locator("iframe")
    frame.locator("body[data-ready='true']").wait_for()
    frame.locator("[data-tab=judges]").click()
    assert frame.locator("#judges-correlations").is_visible()
    assert frame.locator("#chart-judges svg").count() == 1
    screenshot(page, "notebook")
    worst = view.topics.filter(pl.col("metric") == "ndcg@10")["query_id"][0]
    frame.locator(f'#judges-topics a:text-is("{worst}")').first.click()
    frame.locator("#serp-b").wait_for()
    assert frame.locator("#query-title").inner_text() == f"Query {worst}"
    assert page.url == pages["notebook"].as_uri()  # the host page did not navigate
    assert page.evaluate("window.hostMarker") == "still here"
    page.evaluate("history.back()")
    frame.locator("#judges-correlations").wait_for(state="visible")
