"""The query list as a regression finder, in Chromium: the delta filter, the largest
losses first, and the marks of values that differ from the baseline.

Expected queries come from pytrec_eval's nDCG@10 of the same DL19 runs, filtered with
pandas, independently of the page and of rankset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rankset.pages.dashboard import dashboard

pd = pytest.importorskip("pandas")
pytrec_eval = pytest.importorskip("pytrec_eval")

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
RUNS = {
    "bm25": SHARED / "rank_llm_dl_runs" / "first_stage" / "bm25.dl19.trec.gz",
    "splade": SHARED / "rank_llm_dl_runs" / "first_stage" / "splade-pp-ed.dl19.trec.gz",
}
QRELS = SHARED / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
pytestmark = [
    pytest.mark.slow,  # starts headless Chromium
    pytest.mark.skipif(not QRELS.is_file(), reason="needs ../shared/data (TREC DL 2019)"),
]


def _read(path: Path, columns: int) -> list[list[str]]:
    import gzip

    return [line.split() for line in gzip.open(path, "rt") if len(line.split()) == columns]


@pytest.fixture(scope="module")
def expected() -> Any:
    """pytrec_eval's nDCG@10 per query and system, as a pandas frame; B - A = splade - bm25."""
    qrels: dict[str, dict[str, int]] = {}
    for query, _, doc, grade in _read(QRELS, 4):
        qrels.setdefault(query, {})[doc] = int(grade)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"})
    rows = []
    for name, path in RUNS.items():
        run: dict[str, dict[str, float]] = {}
        for query, _, doc, _, score, _ in _read(path, 6):
            run.setdefault(query, {})[doc] = float(score)
        for query, values in evaluator.evaluate(run).items():
            rows.append({"system": name, "query_id": query, "value": values["ndcg_cut_10"]})
    wide = pd.DataFrame(rows).pivot(index="query_id", columns="system", values="value")
    wide["diff"] = wide["splade"] - wide["bm25"]
    return wide


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    board = dashboard(RUNS, QRELS, scale="trec_dl", n_resamples=50, progress=False)
    return board.save(tmp_path_factory.mktemp("regressions") / "dl19.html")


def _listed(browser: Any, page: Path, fragment: str) -> tuple[list[str], list[str]]:
    """The query ids the list shows, in order, and the class of splade's value cells."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.goto(page.resolve().as_uri() + fragment)
    tab.wait_for_selector("body[data-ready]")
    rows = tab.locator("#query-table tbody tr[data-query]")
    ids = [str(rows.nth(i).get_attribute("data-query")) for i in range(rows.count())]
    cells = tab.locator("#query-table tbody tr[data-query] td.sys-b")
    classes = [str(cells.nth(i).get_attribute("class")) for i in range(cells.count())]
    context.close()
    return ids, classes


@pytest.mark.parametrize(("delta", "query"), [
    ("worse:0.05", "diff <= -0.05"), ("worse:0.2", "diff <= -0.2"),
    ("better:0.1", "diff >= 0.1"), ("better:0.3", "diff >= 0.3"),
])  # fmt: skip
def test_the_delta_filter_lists_what_a_pandas_filter_finds(
    browser: Any, page: Path, expected: Any, delta: str, query: str
) -> None:
    # no difference sits on a threshold, where the page's 6-decimal values could tip it
    threshold = float(delta.split(":")[1])
    assert (abs(expected["diff"].abs() - threshold) > 1e-5).all()
    want = sorted(expected.query(query).index)
    assert want  # the filter keeps some queries and leaves out others
    assert len(want) < len(expected)
    fragment = f"#view=queries&a=bm25&b=splade&metric=ndcg@10&delta={delta}"
    ids, _ = _listed(browser, page, fragment)
    assert sorted(ids) == want


def test_largest_losses_come_first_and_cells_mark_the_baseline(
    browser: Any, page: Path, expected: Any
) -> None:
    ids, classes = _listed(browser, page, "#view=queries&a=bm25&b=splade&metric=ndcg@10&sort=-fall")
    assert len(ids) == len(expected) == 43
    falls = -expected["diff"]
    assert ids[0] == falls.idxmax()
    assert [round(falls[q], 6) for q in ids] == sorted((round(f, 6) for f in falls), reverse=True)
    # splade's cells are marked against the baseline bm25: worse, better, or no mark
    for query_id, cls in zip(ids, classes, strict=True):
        diff = expected["diff"][query_id]
        mark = "worse" if diff < -1e-6 else ("better" if diff > 1e-6 else None)
        assert (mark is not None and mark in cls.split()) or (mark is None and "vs-base" not in cls)
