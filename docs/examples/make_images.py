"""Draw the pictures of the Charts, Report, Curves and Diagnose pages (``docs/images/``).

Run from the repository root: ``python docs/examples/make_images.py``. Every chart is built
by ``rankset.charts`` from the bundled sample (``data/sample``: a BM25 run, its reranking and
graded TREC DL labels) and rendered to PNG by vl-convert (``pip install "rankset[render]"``);
the report's picture is a screenshot of ``rankset.report(...)`` in headless Chromium
(``/usr/bin/chromium``, or the ``CHROMIUM`` environment variable). Bootstrap and
randomization are seeded, so a second run draws the same charts.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import altair as alt

import rankset
from rankset import charts
from rankset.pages.report import report

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
RUNS = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
QRELS = SAMPLE / "qrels.txt"
OUT = ROOT / "docs" / "images"
SEED = 0
N_RESAMPLES = 2000
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--virtual-time-budget=10000",
)


def sample_charts() -> dict[str, alt.TopLevelMixin]:
    """Build the charts of the sample, keyed by their image's path under ``docs/images``."""
    result = rankset.evaluate(
        RUNS, QRELS, ["ndcg@10", "ap", "recall@100"], scale="trec_dl", seed=SEED
    )
    comparison = rankset.compare(
        result, "bm25", tests=["randomization"], n_resamples=N_RESAMPLES, seed=SEED
    )
    curves = rankset.curves(
        RUNS,
        QRELS,
        ["ndcg", "precision", "recall"],
        ks=20,
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        seed=SEED,
    )
    diagnosis = rankset.diagnose(RUNS, QRELS, k=10, scale="trec_dl")
    colors = charts.system_colors(sorted(RUNS))  # a system keeps its colour in every chart
    return {
        "charts/distribution.png": charts.distribution_chart(result, "ndcg@10", colors=colors),
        "charts/difference.png": charts.difference_chart(result, "ndcg@10", "bm25", colors=colors),
        "charts/comparison.png": charts.comparison_chart(comparison, colors=colors),
        "curves/curves.png": charts.curves_chart(curves, colors=colors),
        "diagnose/scatter.png": charts.diagnostic_scatter(diagnosis),
        "diagnose/heatmap.png": charts.diagnostic_heatmap(diagnosis),
    }


def draw_charts() -> list[Path]:
    """Write the sample's charts as PNG files; return their paths."""
    written = []
    with alt.theme.enable(charts.THEME):  # the theme of the report and the dashboard
        for name, chart in sample_charts().items():
            path = OUT / name
            path.parent.mkdir(parents=True, exist_ok=True)
            written.append(charts.save_chart(chart, path, scale=1.5))
    return written


def shoot_report() -> Path:
    """Write the sample's HTML report and screenshot its top in headless Chromium."""
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    shot = OUT / "report" / "report.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rankset-docs-") as folder:
        page = report(
            RUNS,
            QRELS,
            baseline="bm25",
            scale="trec_dl",
            n_resamples=N_RESAMPLES,
            seed=SEED,
            title="rankset report: the bundled sample",
            out=Path(folder) / "report.html",
        ).path
        subprocess.run(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={Path(folder) / 'profile'}",
                f"--screenshot={shot}",
                "--window-size=1280,1770",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    return shot


def main() -> None:
    """Write every picture and list them."""
    for path in [*draw_charts(), shoot_report()]:
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
