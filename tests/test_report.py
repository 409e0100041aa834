"""The static HTML report: structure, numbers, escaping, self-containment, rendering."""

from __future__ import annotations

import html
import re
from pathlib import Path

import polars as pl
import pytest

import rankset
from _browser import chromium, descendants, load  # tests/ is on sys.path (conftest.py)
from rankset.report import CSP, build_report, report

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
RUNS = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]
QRELS = SAMPLE / "qrels.txt"
METRICS = ("ndcg@10", "ap", "recall@100", "ra_nwg@10", "proc@10", "pct_proc@10")
N_RESAMPLES = 300

SCRIPT_PAYLOAD = "<script>alert(1)</script>"
TITLE_PAYLOAD = "<img src=x onerror=document.title='pwned'>"
SCRIPT_TITLE_PAYLOAD = "<script>document.title='pwned2'</script>"

needs_chromium = pytest.mark.skipif(
    chromium() is None,
    reason="chromium is not on PATH (Debian: apt-get install -y chromium)",
)


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "sample.html"
    return report(
        RUNS, QRELS, out=out, scale="trec_dl", n_resamples=N_RESAMPLES, title="Sample report"
    )


@pytest.fixture(scope="module")
def sample_result() -> rankset.EvaluationResult:
    return rankset.evaluate(RUNS, QRELS, METRICS, scale="trec_dl", n_resamples=N_RESAMPLES)


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    queries = [SCRIPT_PAYLOAD, TITLE_PAYLOAD, "q&3", "q4"]
    docs = ["d1", "d2", "d3"]
    run = pl.DataFrame(
        {
            "query_id": [q for q in queries for _ in docs],
            "doc_id": docs * len(queries),
            "score": [3.0, 2.0, 1.0] * len(queries),
        }
    )
    flipped = run.with_columns(pl.col("score").reverse().over("query_id"))
    labels = pl.DataFrame(
        {
            "query_id": [q for q in queries for _ in docs],
            "doc_id": docs * len(queries),
            "grade": [5, 1, 4, 2, 5, 3, 1, 1, 5, 4, 4, 2],
        }
    )
    out = tmp_path_factory.mktemp("hostile") / "hostile.html"
    return report(
        {SCRIPT_PAYLOAD: run, SCRIPT_TITLE_PAYLOAD: flipped},
        labels,
        out=out,
        k=2,
        k_max=3,
        n_resamples=100,
        title="Hostile",
        query_text={TITLE_PAYLOAD: SCRIPT_PAYLOAD, "q4": "plain <b>text</b>"},
    )


def _fmt(value: float) -> str:
    return f"{value:.4f}".replace("-", "−")


# --- structure -------------------------------------------------------------------------------


def test_sample_report_sections_and_means(
    sample_report: Path, sample_result: rankset.EvaluationResult
) -> None:
    page = sample_report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>Sample report</title>" in page
    for heading in (
        "Queries",
        "Summary",
        "Comparison",
        "Metric vs k",
        "Diagnostic matrix",
        "Worst queries",
    ):
        assert f"<h2>{heading}</h2>" in page, heading
    for metric in METRICS:
        assert f'<th class="num" scope="col">{metric}</th>' in page
    summary = sample_result.summary
    assert summary.height == 2 * len(METRICS)
    for system, metric, mean, low, high in summary.select(
        "system", "metric", "mean", "ci_low", "ci_high"
    ).iter_rows():
        cell = f'{_fmt(mean)}<span class="ci">[{_fmt(low)}, {_fmt(high)}]</span></td>'
        assert cell in page, (system, metric)
    # The best system per column is highlighted: rerank is at least as good everywhere.
    best = re.findall(r'<td class="num best"[^>]*>([0-9.]+)<', page)
    assert len(best) >= len(METRICS)
    # The comparison table marks significant rows and gives W / T / L.
    assert "✓" in page
    assert "30 / 8 / 2" in page  # rerank vs bm25 on ndcg@10 in the sample


def test_sample_report_written_atomically(sample_report: Path) -> None:
    leftovers = [p.name for p in sample_report.parent.iterdir() if p != sample_report]
    assert leftovers == []


def test_sample_report_is_self_contained(sample_report: Path) -> None:
    page = sample_report.read_text(encoding="utf-8")
    references = re.findall(r"""\b(?:src|href)\s*=\s*["']?([^"'\s>]+)""", page)
    assert not [r for r in references if re.match(r"(?i)\s*(https?:)?//", r)]
    assert "<link" not in page
    markup = _without_scripts(page)
    assert "@import" not in markup
    assert "url(" not in markup
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert len(re.findall(r"<script\b", page)) >= 2  # the bundle, then the charts


def test_build_report_without_optional_sections() -> None:
    res = rankset.evaluate({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}}, ["rr"], n_resamples=50)
    page = build_report(res, title="Small")
    assert "<h2>Summary</h2>" in page
    assert "<h2>Worst queries</h2>" in page
    assert "<h2>Comparison</h2>" not in page
    assert "<h2>Diagnostic matrix</h2>" not in page
    assert "Not in this report" in page


def test_report_drops_rag_metrics_when_labels_do_not_fit_the_scale(tmp_path: Path) -> None:
    out = report(RUNS, QRELS, out=tmp_path / "r.html", n_resamples=50)  # no scale=
    page = out.read_text(encoding="utf-8")
    assert "Left out ra_nwg@10, proc@10, pct_proc@10" in page
    assert "<h2>Diagnostic matrix</h2>" not in page
    assert "<h2>Summary</h2>" in page
    with pytest.raises(rankset.SchemaError):
        report(RUNS, QRELS, out=tmp_path / "s.html", scale="rag5", n_resamples=50)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_number_formatting_matches_python() -> None:
    from rankset.report import _fmt as fmt

    values = [0.0, 1.0, 0.12345, 1234.56785, 0.99996, -0.5, 2.5e-5, None, float("nan")]
    got = pl.DataFrame({"v": values}, schema={"v": pl.Float64}).select(fmt(pl.col("v")))
    expected = ["–" if v is None or v != v else _fmt(v) for v in values]
    assert got.to_series().to_list() == expected


# --- escaping --------------------------------------------------------------------------------


def test_user_strings_are_escaped(hostile_report: Path) -> None:
    page = hostile_report.read_text(encoding="utf-8")
    for payload in (SCRIPT_PAYLOAD, TITLE_PAYLOAD, SCRIPT_TITLE_PAYLOAD):
        assert payload not in page  # not in the tables, nor raw in the chart specs
    escaped = html.escape(SCRIPT_PAYLOAD)
    assert f'<th scope="row">{escaped}</th>' in page  # system name in a table
    assert f"<td>{escaped}</td>" in page  # query id in the worst-queries table
    assert f'<td class="text">{escaped}</td>' in page  # query text
    assert f"<td>{html.escape(TITLE_PAYLOAD)}</td>" in page
    assert "q&amp;3" in page
    # Nothing user-made reached a tag: the only elements are the report's own.
    assert not re.search(r"<img\b", _without_scripts(page))
    assert len(re.findall(r"<script\b", page)) == page.count("</script>")


# --- headless Chromium -----------------------------------------------------------------------


def _without_scripts(page: str) -> str:
    return re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.S)


def _chart_ids(page: str) -> set[str]:
    return set(re.findall(r'<div id="(chart-[^"]+)"', page))


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
    ids = _chart_ids(page)
    assert len(ids) >= 6
    loaded = load(sample_report)
    drawn = descendants(loaded.dom, ids)
    assert set(drawn) == ids
    for element_id, tags in drawn.items():
        assert "svg" in tags or "canvas" in tags, f"{element_id} did not draw"
    assert not re.search(r"\sdata-error=", _without_scripts(loaded.dom))
    assert [u for u in loaded.page_requests if not u.startswith(("file:", "data:"))] == []


@needs_chromium
def test_escaped_payload_does_not_run_in_chromium(hostile_report: Path) -> None:
    page = hostile_report.read_text(encoding="utf-8")
    loaded = load(hostile_report)
    title = re.search(r"<title>(.*?)</title>", loaded.dom, re.S)
    assert title is not None
    assert title.group(1) == "Hostile"
    assert not re.search(r"<img\b", _without_scripts(loaded.dom))
    drawn = descendants(loaded.dom, _chart_ids(page))
    assert drawn
    assert all("svg" in tags or "canvas" in tags for tags in drawn.values())
    assert [u for u in loaded.page_requests if not u.startswith(("file:", "data:"))] == []
