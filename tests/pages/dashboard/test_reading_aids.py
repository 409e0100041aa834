"""The query view's reading aids in Chromium: the query's words marked in the snippets, a
snippet opened by a click, and the previous and next query of the query list.

Expected words and orders are worked out here from the sample's texts and the runs'
values, not read from the page's script.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS, sample_texts
from rankset.pages.dashboard import dashboard

pytestmark = pytest.mark.slow  # starts headless Chromium


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("aids")
    docs, queries = sample_texts(folder)
    board = dashboard(
        SAMPLE_RUNS, SAMPLE_QRELS, texts=docs, queries=queries, scale="trec_dl",
        n_resamples=50, progress=False,
    )  # fmt: skip
    texts = {}
    for line in queries.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts[record["query_id"]] = record["text"]
    return board.save(folder / "board.html"), texts


def _open(browser: Any, path: Path, fragment: str) -> Any:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(path.resolve().as_uri() + fragment)
    page.wait_for_selector("body[data-ready]")
    return page


def test_the_query_s_words_are_marked_in_the_snippets(
    browser: Any, built: tuple[Path, dict[str, str]]
) -> None:
    path, texts = built
    query = sorted(texts)[3]
    # "what is the <w1> <w2> rule": the words worth marking, stop words left out
    words = {w for w in re.split(r"\W+", texts[query].lower()) if len(w) >= 3} - {"what", "the"}
    page = _open(browser, path, f"#query={query}&a=bm25&b=rerank&k=10")
    marked = {text.lower() for text in page.locator("#serp-a mark").all_text_contents()}
    snippets = " ".join(page.locator("#serp-a .snippet").all_text_contents()).lower()
    expected = {w for w in re.findall(r"\w+", snippets) if any(w.startswith(t) for t in words)}
    assert marked
    assert marked == expected
    # a click opens a snippet, a second closes it
    snippet = page.locator("#serp-a .snippet").first
    assert "open" not in str(snippet.get_attribute("class"))
    snippet.click()
    assert "open" in str(snippet.get_attribute("class")).split()
    snippet.click()
    assert "open" not in str(snippet.get_attribute("class")).split()
    page.context.close()


def test_previous_and_next_follow_the_query_list_s_order(
    browser: Any, built: tuple[Path, dict[str, str]]
) -> None:
    path, _ = built
    # the list sorted by query id: next of the first query is the second, and so on
    ordered = sorted(built[1])
    page = _open(browser, path, f"#query={ordered[0]}&a=bm25&b=rerank&sort=query")
    assert page.locator("#prev-query").is_disabled()
    assert f"Query 1 of {len(ordered)}" in str(page.text_content("#query-nav"))
    page.click("#next-query")
    page.wait_for_function(f"decodeURIComponent(location.hash).includes('query={ordered[1]}')")
    assert str(page.text_content("#query-title")) == f"Query {ordered[1]}"
    page.click("#prev-query")
    page.wait_for_function(f"decodeURIComponent(location.hash).includes('query={ordered[0]}')")
    # with a filter, the steps stay inside the filtered list: one query, nowhere to go
    fragment = f"#query={ordered[2]}&a=bm25&b=rerank&text={ordered[2]}"
    page.goto(path.resolve().as_uri() + fragment)
    page.wait_for_selector("body[data-ready]")
    assert "Query 1 of 1 in the query list" in str(page.text_content("#query-nav"))
    assert page.locator("#prev-query").is_disabled()
    assert page.locator("#next-query").is_disabled()
    page.context.close()
