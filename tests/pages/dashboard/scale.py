"""Measure the dashboard: build time, file size, and time to open in headless Chromium.

Run from the repository root: ``PYTHONPATH=tests python tests/pages/dashboard/scale.py``
(optionally ``[SHARED_DATA]``; tests/ on the path makes the ``_support`` package importable). Cases:
the bundled sample, four TREC DL 2019 runs (when the shared data folder is there), and
synthetic 7,000 queries x 10 systems x top 20, without and with document texts. The
budget the issue sets: under a minute to build, under 3 s to open, under 25 MB. Figures
go in docs/dashboard.md; no test asserts on time.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _support.dashboard_cases import (
    ROOT,
    SAMPLE_QRELS,
    SAMPLE_RUNS,
    dl19_inputs,
    sample_texts,
    synthetic,
)
from rankset.pages import Dashboard
from rankset.pages.dashboard import dashboard

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def open_seconds(path: Path, fragment: str = "") -> tuple[float, float]:
    """Seconds from navigation to a drawn page, and to the query list drawn after a click."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        start = time.perf_counter()
        page.goto(path.as_uri() + fragment)
        page.wait_for_selector("body[data-ready='true']")
        opened = time.perf_counter() - start
        start = time.perf_counter()
        page.click("[data-tab=queries]")
        page.wait_for_selector("#query-table tbody tr")
        listed = time.perf_counter() - start
        browser.close()
    return opened, listed


def measure(name: str, build: Callable[[], Dashboard], folder: Path) -> None:
    """Build, save and open one case; print a row of figures."""
    start = time.perf_counter()
    board = build()
    built = time.perf_counter() - start
    path = board.save(folder / f"{name}.html")
    opened, listed = open_seconds(path)
    held = f"{board.n_queries:,}" + (f" of {board.n_queries_total:,}" if board.sampled else "")
    print(
        f"{name:<24} {len(board.systems):>3} systems {held:>16} queries  built {built:5.1f} s  "
        f"{board.size / 1e6:5.1f} MB  opens {opened:4.2f} s  query list {listed:4.2f} s",
        flush=True,
    )


def main(shared: Path) -> None:
    """Measure every case."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        docs, queries = sample_texts(folder)
        measure(
            "sample",
            lambda: dashboard(
                SAMPLE_RUNS, SAMPLE_QRELS, texts=docs, queries=queries, scale="trec_dl"
            ),
            folder,
        )
        if shared.is_dir():
            inputs = dl19_inputs(shared, folder)
            measure(
                "dl19 (4 runs, texts)",
                lambda: dashboard(
                    inputs["runs"],  # type: ignore[arg-type]
                    inputs["qrels"],  # type: ignore[arg-type]
                    texts=inputs["texts"],  # type: ignore[arg-type]
                    queries=inputs["queries"],  # type: ignore[arg-type]
                    scale="trec_dl",
                    relevance_level=2,
                ),
                folder,
            )
        runs, labels, texts = synthetic(7000, 10, 20)
        measure("7000x10x20", lambda: dashboard(runs, labels, scale="trec_dl"), folder)
        measure(
            "7000x10x20 with texts",
            lambda: dashboard(runs, labels, texts=texts, scale="trec_dl"),
            folder,
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data")
