"""A generated dashboard of many systems, in Chromium: tests against one baseline only.

Past a budget of resampled sums the analysis compares every system with the baseline
alone (100 systems x 10,000 queries x 10 metrics would draw 5e13 with every system as
the baseline in turn). Here a zero budget makes 14 systems such a case. The page then
holds the tests against that baseline; picking another shows the means' differences,
unmarked, with a note; and the query list still filters as a pytrec_eval count says,
showing the columns of A, B and the baseline only (more than 12 systems).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from _support.dashboard_cases import synthetic
from rankset.pages import _analysis_steps
from rankset.pages.dashboard import dashboard

pytrec_eval = pytest.importorskip("pytrec_eval")
pytestmark = pytest.mark.slow  # starts headless Chromium

N_QUERIES, N_SYSTEMS = 1500, 14


@pytest.fixture(scope="module")
def inputs() -> tuple[dict[str, Any], Any]:
    runs, labels, _ = synthetic(N_QUERIES, N_SYSTEMS, 20, seed=3)
    return runs, labels


@pytest.fixture(scope="module")
def page(inputs: tuple[dict[str, Any], Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs, labels = inputs
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_analysis_steps, "EVERY_BASELINE_BUDGET", 0)
        board = dashboard(runs, labels, scale="trec_dl", n_resamples=100, progress=False)
    assert board.n_queries == N_QUERIES  # every query fits the default budget
    return board.save(tmp_path_factory.mktemp("scale") / "scale.html")


def _ndcg10(inputs: tuple[dict[str, Any], Any], name: str) -> dict[str, float]:
    runs, labels = inputs
    qrels: dict[str, dict[str, int]] = {}
    for query, doc, grade in labels.iter_rows():
        qrels.setdefault(query, {})[doc] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for query, doc, score in runs[name].iter_rows():
        run.setdefault(query, {})[doc] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"})
    return {query: v["ndcg_cut_10"] for query, v in evaluator.evaluate(run).items()}


def _open(browser: Any, page: Path, fragment: str) -> Any:
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    tab.goto(page.resolve().as_uri() + fragment)
    tab.wait_for_selector("body[data-ready='true']")
    return tab


def test_the_tested_baseline_marks_and_another_shows_untested_differences(
    browser: Any, page: Path
) -> None:
    tab = _open(browser, page, "")
    assert tab.locator("#untested-note").is_hidden()
    assert tab.locator("#systems-table .delta").count() == (N_SYSTEMS - 1) * 5
    assert tab.locator("#systems-table .delta.untested").count() == 0
    tab.close()
    tab = _open(browser, page, "#baseline=system-04")
    note = tab.locator("#untested-note")
    assert note.is_visible()
    assert "No tests against system-04" in note.inner_text()
    assert "system-00" in note.inner_text()
    untested = tab.locator("#systems-table .delta.untested")
    assert untested.count() == (N_SYSTEMS - 1) * 5
    assert tab.locator("#systems-table .delta.up, #systems-table .delta.down").count() == 0
    tab.close()


def test_the_loss_filter_lists_what_pytrec_eval_counts(
    browser: Any, page: Path, inputs: tuple[dict[str, Any], Any]
) -> None:
    a, b = _ndcg10(inputs, "system-00"), _ndcg10(inputs, "system-07")
    # the page keeps 6 decimals: no difference sits that close to a tie
    assert all(abs(b[q] - a[q]) > 1e-6 or b[q] == a[q] for q in a)
    losses = sorted(q for q in a if b[q] < a[q])
    assert 0 < len(losses) < N_QUERIES
    tab = _open(
        browser, page, "#view=queries&a=system-00&b=system-07&metric=ndcg@10&outcome=losses"
    )
    assert tab.locator("#query-count").inner_text().startswith(f"{len(losses):,} of 1,500")
    head = tab.locator("#query-table thead th")
    names = [head.nth(i).inner_text().rstrip(" \u25b4\u25be") for i in range(head.count())]
    assert names == ["query", "system-00", "system-07", "B \u2212 A"]  # A is the baseline
    assert (
        "The list shows the values of A, B and the baseline"
        in tab.locator("#differences-note").inner_text()
    )
    # sorted by the largest losses first: the first row is pytrec_eval's largest loss
    tab.select_option("#sort-order", "-fall")
    first = tab.locator("#query-table tbody tr[data-query]").first.get_attribute("data-query")
    assert first == max(losses, key=lambda q: (a[q] - b[q], q))
    tab.close()
