"""The dashboard in a real headless Chromium: load, pick, click, open, change k, reload.

Driven by Playwright's Python package with the system Chromium (``/usr/bin/chromium``; no
browser is downloaded). Assertions read what is on the screen: text, row counts, the URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS, dl19_inputs, sample_texts
from rankset.evaluation import numbered_runs
from rankset.label_quality import rbo, tau_ap
from rankset.pages import Dashboard
from rankset.pages.dashboard import dashboard

# starts headless Chromium: the fast lane (-m 'not slow') leaves it out
pytestmark = pytest.mark.slow

pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
N_RESAMPLES = 200


@dataclass
class Tab:
    """A page and what it logged: console errors, uncaught errors, requests, dialogs."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def open(self, path: Path, fragment: str = "") -> Tab:
        self.page.goto(path.resolve().as_uri() + fragment)
        self.page.wait_for_selector("body[data-ready]")
        assert self.page.get_attribute("body", "data-ready") == "true"
        return self

    def text(self, selector: str) -> str:
        return str(self.page.text_content(selector)).strip()

    def rows(self, selector: str) -> int:
        return int(self.page.locator(f"{selector} tbody tr").count())

    def fragment(self) -> str:
        return str(self.page.evaluate("decodeURIComponent(location.hash)"))

    def outside_requests(self) -> list[str]:
        return [url for url in self.requests if not url.startswith(("file:", "data:", "about:"))]


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    opened = Tab(page)
    page.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: opened.errors.append(str(error)))
    page.on("request", lambda request: opened.requests.append(request.url))
    page.on("dialog", lambda dialog: (opened.dialogs.append(dialog.message), dialog.dismiss()))
    yield opened
    context.close()
    assert opened.errors == []
    assert opened.outside_requests() == []
    assert opened.dialogs == []


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dashboard")
    docs, queries = sample_texts(folder)
    board = dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        texts=docs,
        queries=queries,
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        title="Sample dashboard",
    )
    return board.save(folder / "sample.html")


def top(system: str, query: str, k: int) -> list[str]:
    runs = numbered_runs(SAMPLE_RUNS)
    ranking = runs.filter(pl.col("system") == system, pl.col("query_id") == query)
    return ranking.filter(pl.col("pos") <= k).sort("pos")["doc_id"].to_list()


def test_the_page_loads_with_every_chart(tab: Tab, sample: Path) -> None:
    tab.open(sample)
    assert tab.page.title() == "Sample dashboard"
    assert tab.page.is_visible("#systems-table")
    assert not tab.page.is_visible("#query-table")
    assert tab.rows("#systems-table") == 2
    for chart in ("summary", "curves", "diagnosis", "differences"):
        assert tab.page.locator(f"#chart-{chart} svg").count() == 1, chart
    assert "40 queries" in tab.text("#holds")
    assert tab.fragment() == ""


def test_picking_a_metric_changes_the_view_and_the_address(tab: Tab, sample: Path) -> None:
    tab.open(sample)
    tab.page.select_option("#metric", "ap")
    assert tab.text("#systems-table thead th.current") == "ap"
    assert "metric=ap" in tab.fragment()
    assert tab.text("#curves-note").startswith("Curves of ap@k")
    tab.page.go_back()
    assert tab.text("#systems-table thead th.current") == "ndcg@10"


def test_a_quadrant_cell_filters_the_query_list(tab: Tab, sample: Path) -> None:
    tab.open(sample)
    cell = tab.page.locator(
        '#chart-diagnosis path[aria-label^="quadrant: reranking miss; system: bm25;"]'
    )
    count = int(re.search(r"queries: (\d+)", str(cell.get_attribute("aria-label"))).group(1))
    assert count > 0
    cell.click()
    assert tab.page.is_visible("#query-table")
    assert tab.rows("#query-table") == count
    assert tab.text("#query-count").startswith(f"{count} of 40 queries")
    assert "bm25: reranking miss" in tab.text("#active-filters")
    assert "quadrant=reranking miss&system=bm25" in tab.fragment()
    tab.page.click("#clear-filters")
    assert tab.rows("#query-table") == 40


def test_a_histogram_bar_and_the_filters_narrow_the_list(tab: Tab, sample: Path) -> None:
    tab.open(sample, "#view=queries")
    bar = tab.page.locator("#chart-differences path[aria-label]").first
    label = str(bar.get_attribute("aria-label"))
    count = int(re.search(r"queries: (\d+)", label).group(1))
    bar.click()
    assert tab.rows("#query-table") == count
    assert "diff=" in tab.fragment()
    tab.page.click("#clear-diff")
    tab.page.fill("#filter-text", "q01")
    assert tab.rows("#query-table") == 10  # q010 ... q019
    tab.page.fill("#filter-text", "")
    tab.page.select_option("#filter-outcome", "losses")
    losses = tab.rows("#query-table")
    assert all(cell.startswith("−") for cell in tab.page.locator("td.diff").all_inner_texts())
    assert f"loses {losses}" in tab.text("#query-count")


def test_a_query_opens_and_k_changes_its_depth(tab: Tab, sample: Path) -> None:
    tab.open(sample, "#view=queries&sort=query")
    tab.page.click('#query-table a:text-is("q005")')
    assert tab.text("#query-title") == "Query q005"
    assert tab.rows("#serp-a") == 10
    assert tab.rows("#serp-b") == 10
    shown = tab.page.locator("#serp-b td.doc code").all_inner_texts()
    assert shown == top("rerank", "q005", 10)
    tab.page.locator("#k").fill("5")
    assert tab.rows("#serp-a") == 5
    assert tab.rows("#serp-b") == 5
    assert "k=5" in tab.fragment()
    # the label-free contrast equals rankset.label_quality's, on the two top 5
    first, second = top("bm25", "q005", 5), top("rerank", "q005", 5)
    shared = [doc for doc in first if doc in second]
    assert tab.text('#contrast dd[data-measure="overlap@5"]') == str(len(shared))
    shown_rbo = float(tab.text('#contrast dd[data-measure="RBO (p = 0.9)"]').replace("−", "-"))
    assert shown_rbo == pytest.approx(rbo(first, second, 0.9), abs=5e-5)
    if len(shared) >= 2:
        order_b = [doc for doc in second if doc in shared]
        shown_tau = tab.text('#contrast dd[data-measure="tau_AP (B vs A)"]').replace("−", "-")
        assert float(shown_tau) == pytest.approx(tau_ap(order_b, shared), abs=5e-5)


def test_a_fragment_opens_the_side_by_side_view(tab: Tab, sample: Path) -> None:
    tab.open(sample, "#query=q003&a=bm25&b=rerank")
    assert tab.page.is_visible("#serp-a")
    assert tab.text("#query-title") == "Query q003"
    assert tab.text("#query-text").startswith("what is the ")
    assert tab.page.locator("#serp-a td.doc code").all_inner_texts() == top("bm25", "q003", 10)
    assert tab.page.locator("#serp-b td.doc code").all_inner_texts() == top("rerank", "q003", 10)
    grades = tab.page.locator("#serp-b td.grade").all_inner_texts()
    assert len(grades) == 10
    assert all(g == "unjudged" or g.isdigit() for g in grades)
    assert any(g.isdigit() for g in grades)
    assert tab.page.locator("#serp-a .snippet").count() == 10
    moves = tab.page.locator("#serp-b td.move").all_inner_texts()
    assert all(re.fullmatch(r"\d+ (=|↑\d+|↓\d+)|new \(.*\)", move) for move in moves)
    assert "Relevant documents neither top 10 holds" in tab.text("#missed-title")
    # reload, and back/forward, restore the view
    tab.page.reload()
    tab.page.wait_for_selector("body[data-ready]")
    assert tab.text("#query-title") == "Query q003"
    tab.page.select_option("#sys-a", "rerank")
    tab.page.select_option("#sys-b", "bm25")
    assert tab.text("#serp-a thead th:last-child") == "bm25’s rank"
    tab.page.go_back()
    tab.page.go_back()
    assert tab.text("#serp-a thead th:last-child") == "rerank’s rank"
    tab.page.go_forward()
    assert "a=rerank" in tab.fragment()


def test_an_unknown_query_says_so(tab: Tab, sample: Path) -> None:
    tab.open(sample, "#query=nope&a=bm25&b=rerank")
    assert "nope is not in this file" in tab.text("#query-missing")


def test_hostile_strings_stay_text(tab: Tab, tmp_path: Path) -> None:
    payload = '<img src=x onerror="alert(1)">'
    run = pl.DataFrame({"query_id": [payload, "q2"], "doc_id": ["d1", "d1"], "score": 1.0})
    labels = pl.DataFrame({"query_id": [payload, "q2"], "doc_id": ["d1", "d1"], "grade": 3})
    board = dashboard(
        {payload: run, "</script><b>": run},
        labels,
        texts={"d1": payload},
        title=payload,
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
    )
    path = board.save(tmp_path / "hostile.html")
    tab.open(path, "#view=queries")
    assert tab.page.locator("img").count() == 0
    assert tab.page.title() == payload
    assert payload in tab.page.locator("#query-table a").all_inner_texts()
    tab.page.click("#query-table a >> nth=0")
    assert tab.page.locator("#serp-a .snippet").first.inner_text() == payload


def test_the_notebook_frame_draws(tab: Tab, sample: Path, tmp_path: Path) -> None:
    board = dashboard(SAMPLE_RUNS, SAMPLE_QRELS, scale="trec_dl", n_resamples=N_RESAMPLES)
    assert isinstance(board, Dashboard)
    notebook = tmp_path / "notebook.html"
    notebook.write_text(f"<!DOCTYPE html><title>nb</title>{board._repr_html_()}", "utf-8")
    tab.page.goto(notebook.as_uri())
    frame = tab.page.frame_locator("iframe")
    frame.locator("body[data-ready='true']").wait_for()
    assert frame.locator("#systems-table tbody tr").count() == 2
    frame.locator("[data-tab=queries]").click()
    assert frame.locator("#query-table tbody tr").count() == 40


def test_dl19_runs_open_a_query_with_grades(tab: Tab, shared_data: Path, tmp_path: Path) -> None:
    inputs = dl19_inputs(shared_data, tmp_path)
    board = dashboard(
        inputs["runs"],  # type: ignore[arg-type]
        inputs["qrels"],  # type: ignore[arg-type]
        texts=inputs["texts"],  # type: ignore[arg-type]
        queries=inputs["queries"],  # type: ignore[arg-type]
        scale="trec_dl",
        relevance_level=2,
        n_resamples=1000,
    )
    assert board.n_queries == 43
    path = board.save(tmp_path / "dl19.html")
    tab.open(path, "#query=1037798&a=bm25&b=rankvicuna-bm25")
    assert tab.text("#query-title") == "Query 1037798"
    assert tab.text("#query-text") == "who is robert gray"
    for side in ("a", "b"):
        assert tab.rows(f"#serp-{side}") == 10
        grades = tab.page.locator(f"#serp-{side} td.grade").all_inner_texts()
        assert all(g == "unjudged" or g in {"0", "1", "2", "3"} for g in grades)
        assert tab.page.locator(f"#serp-{side} .snippet").count() == 10
    assert tab.rows("#systems-table") == 0  # the overview is not drawn until shown
    tab.page.click("[data-tab=overview]")
    assert tab.rows("#systems-table") == 4
    assert tab.page.locator("#chart-diagnosis path[aria-label]").count() == 16
    tab.page.screenshot(path=tmp_path / "overview.png", full_page=True)


@pytest.fixture(scope="module")
def with_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample with a history of three entries a week apart (means written by hand)."""
    from datetime import UTC, datetime

    day = {entry: datetime(2026, 11, 1 + 7 * n, 9, tzinfo=UTC) for n, entry in enumerate("abc")}
    logged = [  # entry, system, ndcg@10, ap
        ("a", "bm25", 0.40, 0.20),
        ("a", "rerank", 0.50, 0.30),
        ("b", "bm25", 0.42, 0.21),
        ("c", "rerank", 0.55, 0.28),
        ("c", "bm25", 0.41, 0.22),
    ]
    rows = [
        {"entry_id": entry, "time": day[entry], "tag": "main", "system": system,
         "metric": metric, "mean": mean, "ci_low": mean - 0.04, "ci_high": mean + 0.04}
        for entry, system, ndcg, ap in logged
        for metric, mean in (("ndcg@10", ndcg), ("ap", ap))
    ]  # fmt: skip
    board = dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        metrics=["ndcg@10", "ap", "rr"],
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        history=pl.DataFrame(rows),
    )
    return board.save(tmp_path_factory.mktemp("history") / "history.html")


def test_the_history_view_follows_the_metric(tab: Tab, with_history: Path, tmp_path: Path) -> None:
    tab.open(with_history, "#view=history")
    assert tab.page.is_visible("#chart-history")
    assert tab.page.locator("#chart-history svg").count() == 1
    assert tab.page.locator("[data-error]").count() == 0
    assert "ndcg@10 over logged entries" in tab.text("#chart-history svg")
    assert tab.page.locator("#chart-history path[aria-label*='system: rerank']").count() > 0
    cells = {
        row.get_attribute("data-system"): row.locator("td").all_inner_texts()
        for row in tab.page.locator("#history-table tbody tr").all()
    }  # entries, last entry, logged, last mean, the one before, change, p
    # a history frame holds no per-query values: no test, p is NA; the last entry is
    # named as the chart's axis names it (a repeated tag: tag@short id)
    assert cells == {
        "bm25": ["3", "main@c", "2026-11-15 09:00", "0.4100", "0.4200", "−0.0100", "–"],
        "rerank": ["2", "main@c", "2026-11-15 09:00", "0.5500", "0.5000", "+0.0500", "–"],
    }
    tab.page.screenshot(path=tmp_path / "history.png", full_page=True)
    tab.page.select_option("#metric", "ap")
    assert "view=history" in tab.fragment()
    assert "metric=ap" in tab.fragment()
    assert "ap over logged entries" in tab.text("#chart-history svg")
    changes = tab.page.locator("#history-table tbody td.diff").all_inner_texts()
    assert changes == ["+0.0100", "−0.0200"]
    tab.page.select_option("#metric", "rr")  # a dashboard metric the store does not hold
    assert not tab.page.is_visible("#chart-history")
    assert tab.text("#history-missing") == (
        "rr was not logged in the store; of this dashboard's metrics it holds ndcg@10, ap."
    )
    tab.page.go_back()
    assert tab.page.is_visible("#chart-history svg")


@pytest.fixture(scope="module")
def with_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample with a suite of two collections (tests/_support/suite_cases.py)."""
    import warnings

    from _support.suite_cases import SUITE_OPTIONS, write_suite
    from rankset.comparison import evaluate_suite_toml

    folder = tmp_path_factory.mktemp("suite")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a run only one collection has: warned
        suite = evaluate_suite_toml(write_suite(folder), **SUITE_OPTIONS)
    board = dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        metrics=["ndcg@10", "ap", "recall@100"],
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        suite=suite,
    )
    return board.save(folder / "suite.html")


def test_the_collections_view_follows_the_metric(
    tab: Tab, with_suite: Path, tmp_path: Path
) -> None:
    tab.open(with_suite, "#view=collections")
    assert tab.page.is_visible("#chart-collections")
    assert tab.page.locator("#chart-collections svg").count() == 1
    assert tab.page.locator("[data-error]").count() == 0
    svg = tab.text("#chart-collections svg")
    assert "ndcg@10 by collection" in svg
    # a cell per (system, collection) the suite has: 3 systems on sample, 2 on boosted
    cells = tab.page.locator("#chart-collections path[aria-label*='collection: ']")
    assert cells.count() == 5
    # the rank in each cell: sample rerank 1, bm25 2, top5 none; boosted bm25 1, rerank 2
    ranks = tab.page.locator("#chart-collections g.mark-text.role-mark text").evaluate_all(
        "texts => texts.map(text => text.textContent)"
    )
    assert sorted(ranks) == ["1", "1", "2", "2", "–"]
    rows = {
        row.get_attribute("data-system"): row.locator("td").all_inner_texts()
        for row in tab.page.locator("#collections-table tbody tr").all()
    }  # collections, macro mean, CI (collections), CI (queries), mean rank, rank CI, Borda
    assert set(rows) == {"bm25", "rerank", "top5"}
    assert rows["top5"][0] == "1"
    assert rows["top5"][1:] == ["–"] * 6
    assert rows["bm25"][4] == rows["rerank"][4] == "1.5"  # first on one collection each
    tab.page.screenshot(path=tmp_path / "collections.png", full_page=True)
    tab.page.select_option("#metric", "ap")
    assert "view=collections" in tab.fragment()
    assert "ap by collection" in tab.text("#chart-collections svg")
    tab.page.select_option("#metric", "recall@100")  # not in the suite
    assert not tab.page.is_visible("#chart-collections")
    assert tab.text("#collections-missing") == (
        "recall@100 was not evaluated over the collections; of this dashboard's metrics "
        "the suite has ndcg@10, ap."
    )
    tab.page.go_back()
    assert tab.page.is_visible("#chart-collections svg")


def _luminance(fill: str) -> float:
    red, green, blue = (int(part) for part in re.findall(r"\d+", fill)[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_the_collections_colours_follow_the_metrics_direction(tab: Tab, tmp_path: Path) -> None:
    """Darker is better: the highest nDCG and the lowest unjudged share (unj) are darkest."""
    import warnings

    from _support.suite_cases import collections, write_suite
    from rankset.comparison import evaluate_suite

    write_suite(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a run only one collection has: warned
        suite = evaluate_suite(
            collections(tmp_path), ["ndcg@10", "unj@10"], scale="trec_dl", n_resamples=50
        )
    board = dashboard(
        SAMPLE_RUNS, SAMPLE_QRELS, metrics=["ndcg@10", "unj@10"], scale="trec_dl",
        n_resamples=50, suite=suite,
    ).save(tmp_path / "board.html")  # fmt: skip
    for metric, best in (("ndcg@10", max), ("unj@10", min)):
        tab.open(board, f"#view=collections&metric={metric}")
        fills = tab.page.locator("#chart-collections g.mark-rect.role-mark path").evaluate_all(
            "paths => paths.map(p => [p.getAttribute('aria-label'), p.getAttribute('fill')])"
        )
        shade = {
            float(re.search(r"mean: ([\d.]+)", label).group(1)): _luminance(fill)  # type: ignore[union-attr]
            for label, fill in fills
        }
        assert len(shade) == 5
        assert shade[best(shade)] == min(shade.values()), metric  # the darkest cell
