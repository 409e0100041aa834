"""Take the documentation's screenshots of the dashboard (``docs/images/dashboard/``).

Run from the repository root: ``PYTHONPATH=tests python tests/pages/dashboard/screenshots.py``
(optionally ``[SHARED_DATA]``; tests/ on the path makes the ``_support`` package importable).
Needs Playwright (``pip install playwright``) and the system Chromium. The overview, query
list and side-by-side view show four TREC DL 2019 runs from the shared data folder (numbers
and ids only: the MS MARCO passages are not redistributed); the snippet view shows the
bundled sample with made-up texts.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _support.dashboard_cases import ROOT, SAMPLE_QRELS, SAMPLE_RUNS, dl19_inputs, sample_texts
from rankset.pages.dashboard import dashboard

OUT = ROOT / "docs" / "images" / "dashboard"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def main(shared: Path) -> None:
    """Build both dashboards and write the PNG files."""
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        inputs = dl19_inputs(shared, work)
        dl19 = dashboard(
            inputs["runs"],  # type: ignore[arg-type]
            inputs["qrels"],  # type: ignore[arg-type]
            scale="trec_dl",
            relevance_level=2,
            title="TREC DL 2019 passages: BM25, SPLADE++ and RankVicuna",
        ).save(work / "dl19.html")
        docs, queries = sample_texts(work)
        sample = dashboard(
            SAMPLE_RUNS, SAMPLE_QRELS, texts=docs, queries=queries, scale="trec_dl", snippet=160
        ).save(work / "sample.html")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})

            def show(path: Path, fragment: str) -> None:
                page.goto(path.as_uri() + fragment)
                page.wait_for_selector("body[data-ready='true']")

            show(dl19, "#a=bm25&b=rankvicuna-bm25")
            page.screenshot(path=OUT / "overview.png", full_page=True)
            cell = '[aria-label^="quadrant: reranking miss; system: bm25;"]'
            page.click(f"#chart-diagnosis path{cell}")
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=OUT / "queries.png")
            show(dl19, "#query=1112341&a=bm25&b=rankvicuna-bm25&k=10")
            page.screenshot(path=OUT / "query.png")
            show(sample, "#query=q003&a=bm25&b=rerank&k=5")
            page.screenshot(path=OUT / "query-snippets.png")
            browser.close()
    for name in sorted(OUT.glob("*.png")):
        print(name.relative_to(ROOT), f"{name.stat().st_size / 1e3:.0f} kB")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data")
