"""The History view's marks and the entries' changes in headless Chromium (both pages).

A seeded store (tests/experiments/test_history_marks.py's, smaller): two entries of the
same runs, then one with the reranker cut to depth 5 (its AP falls: a real change), under
one tag. What is asserted is what is on the screen: the x axis names the entries (no
millisecond ticks such as ".950"), one ring per system on the cut entry and none
elsewhere, and the table of what changed, consecutive or between two entries picked.
Screenshots go to ``RANKSET_SCREENSHOTS`` when it names a folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS
from rankset.experiments import Store
from rankset.pages.dashboard import dashboard
from rankset.pages.report import report

# starts headless Chromium: the fast lane (-m 'not slow') leaves it out
pytestmark = pytest.mark.slow

pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)

METRICS = ["ndcg@10", "ap"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("history")
    store = Store(folder / "store")
    runs, names = list(SAMPLE_RUNS.values()), list(SAMPLE_RUNS)
    options = {"scale": "trec_dl", "n_resamples": 100, "names": names, "tag": "main"}
    entries = [
        store.evaluate_and_log(runs, SAMPLE_QRELS, METRICS, meta={"m": "v1"}, **options),
        store.evaluate_and_log(runs, SAMPLE_QRELS, METRICS, meta={"m": "v1"}, **options),
        store.evaluate_and_log(
            runs, SAMPLE_QRELS, METRICS, max_depth=5, meta={"m": "v2"}, **options
        ),
    ]
    shared = {"metrics": METRICS, "scale": "trec_dl", "n_resamples": 100, "progress": False}
    board = dashboard(SAMPLE_RUNS, SAMPLE_QRELS, history=store, **shared)
    page = report(SAMPLE_RUNS, SAMPLE_QRELS, history=store, out=folder / "r.html", **shared)
    return {
        "dashboard": board.save(folder / "dashboard.html"),
        "report": page.path,
        "names": [f"main@{entry.rsplit('-', 1)[1]}" for entry in entries],
    }


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


def screenshot(target: Any, name: str) -> None:
    folder = os.environ.get("RANKSET_SCREENSHOTS")
    if folder:
        target.screenshot(path=Path(folder) / f"history_{name}.png")


def rings(page: Any, chart: str) -> list[str]:
    """The entry of each ring drawn (a point whose tooltip names the change's p)."""
    labels = page.evaluate(
        f"""Array.from(document.querySelectorAll('{chart} [aria-roledescription=point]'))
              .map(e => e.getAttribute('aria-label'))"""
    )
    out = []
    for label in labels:
        fields = dict(part.split(": ", 1) for part in label.split("; "))
        if "p of the change" in fields:
            out.append(fields["entry"])
    return out


def axis_labels(page: Any, chart: str) -> list[str]:
    return page.evaluate(
        f"""Array.from(document.querySelectorAll('{chart} [aria-roledescription=axis]'))
              .map(e => e.getAttribute('aria-label'))"""
    )


def test_the_dashboard_rings_the_real_change_and_lists_what_changed(
    page: Any, pages: dict[str, Any]
) -> None:
    first, second, cut = pages["names"]
    page.goto(pages["dashboard"].as_uri() + "#view=history&metric=ap")
    page.wait_for_selector("body[data-ready='true']")
    page.wait_for_selector("#chart-history svg")
    assert sorted(rings(page, "#chart-history")) == [cut, cut]  # bm25's and the reranker's
    x_axis = next(a for a in axis_labels(page, "#chart-history") if a.startswith("X-axis"))
    assert first in x_axis
    assert cut in x_axis
    assert ".950" not in x_axis
    rows = page.locator("#history-changes tbody tr")
    assert [r.split("\t") for r in rows.all_inner_texts()] == [
        [cut, second, "meta.m", '"v1"', '"v2"'],
        [cut, second, "option.max_depth", "null", "5"],
    ]
    screenshot(page.locator("section[data-view=history]"), "dashboard")
    # two entries picked: the first against the cut
    page.select_option("#history-from", first)
    page.select_option("#history-to", cut)
    assert [r.split("\t")[2] for r in rows.all_inner_texts()] == ["meta.m", "option.max_depth"]
    page.select_option("#history-to", second)
    assert rows.count() == 0
    assert "No recorded option" in page.locator("#history-changes caption").inner_text()


def test_the_report_rings_the_real_change_and_tables_what_changed(
    page: Any, pages: dict[str, Any]
) -> None:
    first, second, cut = pages["names"]
    page.goto(pages["report"].as_uri())
    page.wait_for_selector("#chart-history-1 svg")
    assert sorted(rings(page, "#chart-history-1")) == [cut, cut]  # ap
    x_axis = next(a for a in axis_labels(page, "#chart-history-1") if a.startswith("X-axis"))
    assert first in x_axis
    assert second in x_axis
    assert "option.max_depth" in page.locator("#history").inner_text()
    screenshot(page.locator("#history"), "report")
