"""The pages in headless Chromium: every chart draws, no request leaves, no payload runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from _support.browser import chromium, descendants, load
from _support.report_cases import chart_ids, without_scripts

# starts headless Chromium: the fast lane (-m 'not slow') leaves it out
pytestmark = pytest.mark.slow

needs_chromium = pytest.mark.skipif(
    chromium() is None,
    reason="chromium is not on PATH (Debian: apt-get install -y chromium)",
)


@needs_chromium
def test_browser_detects_page_requests(tmp_path: Path) -> None:
    # The detector must see a request a page makes, or the next tests prove nothing.
    canary = tmp_path / "canary.html"
    canary.write_text(
        '<!DOCTYPE html><title>c</title><img src="http://127.0.0.1:9/x.png">'
        '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">',
        encoding="utf-8",
    )
    loaded = load(canary)
    assert loaded.page_requests == ["http://127.0.0.1:9/x.png"]


@needs_chromium
def test_sample_report_renders_in_chromium(sample_report: Path) -> None:
    page = sample_report.read_text(encoding="utf-8")
    ids = chart_ids(page)
    assert len(ids) >= 6
    loaded = load(sample_report)
    drawn = descendants(loaded.dom, ids)
    assert set(drawn) == ids
    for element_id, tags in drawn.items():
        assert "svg" in tags or "canvas" in tags, f"{element_id} did not draw"
    assert not re.search(r"\sdata-error=", without_scripts(loaded.dom))
    assert [u for u in loaded.page_requests if not u.startswith(("file:", "data:"))] == []


@needs_chromium
def test_escaped_payload_does_not_run_in_chromium(hostile_report: Path) -> None:
    page = hostile_report.read_text(encoding="utf-8")
    loaded = load(hostile_report)
    title = re.search(r"<title>(.*?)</title>", loaded.dom, re.S)
    assert title is not None
    assert title.group(1) == "Hostile"
    assert not re.search(r"<img\b", without_scripts(loaded.dom))
    drawn = descendants(loaded.dom, chart_ids(page))
    assert drawn
    assert all("svg" in tags or "canvas" in tags for tags in drawn.values())
    assert [u for u in loaded.page_requests if not u.startswith(("file:", "data:"))] == []


@needs_chromium
def test_the_bundle_draws_beside_an_amd_module_loader(tmp_path: Path) -> None:
    # The classic Jupyter notebook defines RequireJS's define(): UMD builds would register
    # with it instead of setting window.vega, and no chart would draw (enable_offline).
    import altair as alt

    from rankset import charts

    chart = alt.Chart(alt.Data(values=[{"a": 1}, {"a": 2}])).mark_point().encode(x="a:Q")
    loader = "<script>window.define = function () {}; window.define.amd = {};</script>"
    page = tmp_path / "amd.html"
    page.write_text(
        f"<!DOCTYPE html><title>amd</title>{loader}"
        f"{charts.inline_html(chart, element_id='amd-chart')}",
        encoding="utf-8",
    )
    drawn = descendants(load(page).dom, {"amd-chart"})
    assert "svg" in drawn["amd-chart"]


@needs_chromium
def test_the_history_charts_draw_in_chromium(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    import polars as pl

    import rankset
    from rankset.pages.report._page import build_report

    result = rankset.evaluate(
        {"bm25": {"q1": {"d1": 1.0, "d2": 0.5}}},
        {"q1": {"d1": 1}},
        ["ndcg@10", "rr"],
        confidence=None,
    )
    days = [datetime(2026, 11, day, tzinfo=UTC) for day in (1, 8, 15)]
    history = pl.DataFrame(
        {
            "entry_id": ["e1", "e1", "e2", "e2", "e3", "e3"],
            "time": [day for day in days for _ in range(2)],
            "system": ["bm25"] * 6,
            "metric": ["ndcg@10", "rr"] * 3,
            "mean": [0.40, 0.50, 0.45, 0.55, 0.43, 0.60],
            "ci_low": [0.30, 0.40, 0.35, 0.45, 0.33, 0.50],
            "ci_high": [0.50, 0.60, 0.55, 0.65, 0.53, 0.70],
        }
    )
    page = tmp_path / "history.html"
    page.write_text(build_report(result, history=history), encoding="utf-8")
    ids = {"chart-history-0", "chart-history-1"}
    loaded = load(page)
    drawn = descendants(loaded.dom, ids)
    assert set(drawn) == ids
    for element_id, tags in drawn.items():
        assert "svg" in tags or "canvas" in tags, f"{element_id} did not draw"
    assert not re.search(r"\sdata-error=", without_scripts(loaded.dom))


@needs_chromium
def test_the_suite_heatmaps_draw_in_chromium(tmp_path: Path) -> None:
    import warnings

    from _support.suite_cases import SUITE_METRICS, SUITE_OPTIONS, write_suite
    from rankset.comparison import evaluate_suite_toml
    from rankset.pages.report import suite_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a run only one collection has: warned
        suite = evaluate_suite_toml(write_suite(tmp_path), **SUITE_OPTIONS)
    page = suite_report(suite, out=tmp_path / "suite.html")
    ids = {f"chart-suite-{n}" for n in range(len(SUITE_METRICS))}
    loaded = load(page)
    drawn = descendants(loaded.dom, ids)
    assert set(drawn) == ids
    for element_id, tags in drawn.items():
        assert "svg" in tags or "canvas" in tags, f"{element_id} did not draw"
    assert not re.search(r"\sdata-error=", without_scripts(loaded.dom))
    assert [u for u in loaded.page_requests if not u.startswith(("file:", "data:"))] == []
