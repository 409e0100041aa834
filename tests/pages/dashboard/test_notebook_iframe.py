"""The dashboard inside a notebook's output: ``Dashboard._repr_html_``'s sandboxed iframe.

The frame is ``<iframe srcdoc=...>``: its document has no address of its own, and a
``#query=...`` link would resolve against the host page, so the browser would load the
notebook into the frame and the query view would never open. The script follows every
in-page link itself and keeps its state in memory (and in the frame's history entries,
so the browser's back and forward step through the views). Driven by Playwright with
the system Chromium, as test_browser.py is.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _support.browser import PLAYWRIGHT_ARGS, PLAYWRIGHT_CHROMIUM
from rankset.pages import dashboard as dashboards

# starts headless Chromium: the fast lane (-m 'not slow') leaves it out
pytestmark = pytest.mark.slow

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "data" / "sample"
CHROMIUM = PLAYWRIGHT_CHROMIUM
ARGS = PLAYWRIGHT_ARGS


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A host page, as a notebook shows the output: a heading, then the frame."""
    board = dashboards.dashboard(
        {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"},
        SAMPLE / "qrels.txt",
        scale="trec_dl",
        n_resamples=200,
    )
    page = tmp_path_factory.mktemp("notebook") / "notebook.html"
    page.write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>notebook</title>'
        "</head><body><h1>In [1]: rankset.pages.dashboard(...)</h1>"
        f"{board._repr_html_()}</body></html>",
        encoding="utf-8",
    )
    return page


@pytest.fixture
def page(notebook: Path) -> Iterator[tuple[Any, list[str]]]:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium)")
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        host = browser.new_page(viewport={"width": 1400, "height": 1000})
        host.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        host.on("pageerror", lambda error: errors.append(str(error)))
        host.goto(notebook.resolve().as_uri())
        yield host, errors
        browser.close()


def selected_tab(frame: Any) -> str:
    return str(frame.locator("[role=tab][aria-selected=true]").text_content()).strip()


def test_a_query_link_opens_the_side_by_side_view_inside_the_frame(
    page: tuple[Any, list[str]], notebook: Path, tmp_path: Path
) -> None:
    host, errors = page
    host.evaluate("window.hostMarker = 'still here'")  # gone if the host page reloads
    frame = host.frame_locator("iframe")
    frame.locator("body[data-ready='true']").wait_for()
    frame.locator("[data-tab=queries]").click()
    frame.locator('#query-table a:text-is("q005")').click()

    frame.locator("#serp-b").wait_for()
    assert str(frame.locator("#query-title").text_content()) == "Query q005"
    assert frame.locator("#serp-a").is_visible()
    assert frame.locator("#serp-b").is_visible()
    assert frame.locator("#serp-a tbody tr").count() == 10
    assert frame.locator("#serp-b tbody tr").count() == 10
    sides = frame.locator(".serps h3").all_inner_texts()
    assert sides == ["A: bm25", "B: rerank"]
    assert selected_tab(frame) == "Query"
    # on screen: the view's heading lies inside the frame's box, in the host's viewport
    box, heading = host.locator("iframe").bounding_box(), frame.locator("#query-title")
    top = heading.bounding_box()
    assert box is not None
    assert top is not None
    assert box["y"] <= top["y"]
    assert top["y"] + top["height"] <= box["y"] + box["height"]
    assert top["y"] + top["height"] <= 1000
    host.screenshot(path=tmp_path / "notebook-query.png", full_page=False)

    # the host page did not navigate, and the frame is still the dashboard's document
    assert host.url == notebook.resolve().as_uri()
    assert host.evaluate("window.hostMarker") == "still here"
    assert [frame.url for frame in host.frames] == [host.url, "about:srcdoc"]
    assert host.frames[1].evaluate("document.getElementById('rankset-data') !== null")

    # the browser's back and forward step through the frame's views
    host.evaluate("history.back()")
    frame.locator("#query-table").wait_for()
    assert selected_tab(frame) == "Queries"
    host.evaluate("history.forward()")
    frame.locator("#serp-a").wait_for()
    assert str(frame.locator("#query-title").text_content()) == "Query q005"
    assert host.evaluate("window.hostMarker") == "still here"
    assert errors == []
