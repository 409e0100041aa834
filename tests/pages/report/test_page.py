"""The page: its sections and numbers, the sections left out, self-containment, the file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import rankset
from _support.report_cases import METRICS, QRELS, RUNS, fmt, without_scripts
from rankset.pages.report import CSP, report
from rankset.pages.report._page import build_report

RAG = list(METRICS)  # the RAG metrics need a grade scale


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
        cell = f'{fmt(mean)}<span class="ci">[{fmt(low)}, {fmt(high)}]</span></td>'
        assert cell in page, (system, metric)
    # The best system per column is highlighted: rerank is at least as good everywhere.
    best = re.findall(r'<td class="num best"[^>]*>([0-9.]+)<', page)
    assert len(best) >= len(METRICS)
    # The comparison table marks significant rows and gives W / T / L.
    assert "✓" in page
    assert "30 / 8 / 2" in page  # rerank vs bm25 on ndcg@10 in the sample
    # Beside each Δ, the relative change over the baseline's mean, as services show it.
    assert '<th scope="col" class="num">Δ %</th>' in page
    means = {(s, m): v for s, m, v in summary.select("system", "metric", "mean").iter_rows()}
    for metric in METRICS:
        base, other = means[("bm25", metric)], means[("rerank", metric)]
        relative = f"{100 * (other - base) / abs(base):+.1f}%".replace("-", "\u2212")
        assert f'<td class="num">{relative}</td>' in page, metric


def test_sample_report_written_atomically(sample_report: Path) -> None:
    leftovers = [p.name for p in sample_report.parent.iterdir() if p != sample_report]
    assert leftovers == []


def test_sample_report_is_self_contained(sample_report: Path) -> None:
    page = sample_report.read_text(encoding="utf-8")
    references = re.findall(r"""\b(?:src|href)\s*=\s*["']?([^"'\s>]+)""", page)
    assert not [r for r in references if re.match(r"(?i)\s*(https?:)?//", r)]
    assert "<link" not in page
    markup = without_scripts(page)
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


def test_report_takes_the_scale_the_labels_fit(tmp_path: Path) -> None:
    # The sample's grades 0-3 used to drop the RAG metrics unless --scale trec_dl was given.
    with pytest.warns(rankset.RanksetWarning, match="using scale='trec_dl'"):
        out = report(RUNS, QRELS, metrics=RAG, out=tmp_path / "r.html", n_resamples=50).path
    page = out.read_text(encoding="utf-8")
    assert "Left out" not in page
    assert "<h2>Diagnostic matrix</h2>" in page
    assert '<th class="num" scope="col">ra_nwg@10</th>' in page


def test_report_drops_rag_metrics_when_labels_fit_no_scale(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"  # grades 0, 1, 2 and 4: no preset holds them all
    qrels.write_text(Path(QRELS).read_text(encoding="utf-8").replace(" 3\n", " 4\n"))
    out = report(RUNS, qrels, metrics=RAG, out=tmp_path / "r.html", n_resamples=50).path
    page = out.read_text(encoding="utf-8")
    assert "Left out ra_nwg@10, proc@10, pct_proc@10" in page
    assert "<h2>Diagnostic matrix</h2>" not in page
    assert "<h2>Summary</h2>" in page
    with pytest.raises(rankset.SchemaError):
        report(RUNS, QRELS, metrics=RAG, out=tmp_path / "s.html", scale="rag5", n_resamples=50)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels.txt", "r.html"]


@pytest.mark.parametrize("worst", [-1, 2.5, True])
def test_worst_is_checked_before_anything_is_computed(tmp_path: Path, worst: Any) -> None:
    # A run that cannot be read: the check must come first, and no file is written.
    with pytest.raises(rankset.ParameterError, match=r"The 'worst' parameter must be an int >= 0"):
        report(tmp_path / "no-such-run.trec", QRELS, out=tmp_path / "r.html", worst=worst)
    res = rankset.evaluate({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}}, ["rr"], n_resamples=50)
    with pytest.raises(rankset.ParameterError, match="'worst'"):
        build_report(res, worst=worst)
    assert list(tmp_path.iterdir()) == []


def test_import_does_not_load_altair() -> None:
    # The sections draw with Altair; they load when the first page is built.
    code = "import sys, rankset.pages.report; print('altair' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert out == "False"


def _chart_query_ids(page: str, element_id: str) -> set[str]:
    """The query ids in the inline data of one embedded chart."""
    prefix = f'vegaEmbed(document.getElementById("{element_id}"), '
    spec, _ = json.JSONDecoder().raw_decode(page, page.index(prefix) + len(prefix))
    rows = [row for data in spec.get("datasets", {}).values() for row in data]
    rows += spec.get("data", {}).get("values", [])
    return {row["query_id"] for row in rows if "query_id" in row}


def test_per_query_charts_draw_one_seeded_sample_beyond_2000_queries(tmp_path: Path) -> None:
    # 200,000 queries used to inline every point: past the charts' row limit, and GBs.
    n = 2_500
    queries = [f"q{i}" for i in range(n)]
    runs = {
        "a": {q: {"d1": 1.0, "d2": 0.5} for q in queries},
        "b": {q: {"d2": 1.0, "d1": 0.5} for q in queries},
    }
    labels = {q: {"d1": 5, "d2": 3} for q in queries}
    page = report(runs, labels, out=tmp_path / "r.html", n_resamples=20).path.read_text("utf-8")
    assert f"{n:,} queries: the per-query charts draw a sample of 2,000" in page
    drawn = [
        _chart_query_ids(page, element_id)
        for element_id in ("chart-distribution", "chart-difference", "chart-diagnostic-scatter")
    ]
    assert len(drawn[0]) == 2_000
    assert drawn[0] == drawn[1] == drawn[2]  # the same queries in every chart
    assert drawn[0] <= set(queries)
    assert f'title="n = {n}, NA = 0"' in page  # the table's means use every query


def test_a_small_report_draws_every_query(sample_report: Path) -> None:
    page = sample_report.read_text(encoding="utf-8")
    assert "draw a sample" not in page
    assert len(_chart_query_ids(page, "chart-distribution")) == 40  # the sample's queries


def _system_colours(page: str) -> dict[str, set[str]]:
    """Every colour each system gets in the page's charts (from their colour scales)."""
    colours: dict[str, set[str]] = {}
    for match in re.finditer(r'vegaEmbed\(document\.getElementById\("([\w-]+)"\), ', page):
        spec, _ = json.JSONDecoder().raw_decode(page, match.end())
        stack: list[object] = [spec]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                domain, colour_range = node.get("domain"), node.get("range")
                if isinstance(domain, list) and isinstance(colour_range, list):
                    for name, colour in zip(domain, colour_range, strict=False):
                        colours.setdefault(str(name), set()).add(str(colour))
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return colours


def test_a_system_keeps_its_colour_in_every_chart(sample_report: Path) -> None:
    # The comparison chart, which has no row for the baseline, used to colour the other
    # system with the baseline's colour.
    colours = _system_colours(sample_report.read_text(encoding="utf-8"))
    assert set(colours) >= {"bm25", "rerank"}
    assert len(colours["rerank"]) == 1, colours
    assert len(colours["bm25"]) == 1, colours
    assert colours["rerank"] != colours["bm25"]


def test_worst_queries_are_queries_with_a_relevant_label(sample_report: Path) -> None:
    # On the sample they used to be q010, q020, q030, q040: no relevant label, so 0 for
    # every system, which says nothing about either.
    graded: dict[str, float] = {}
    for line in Path(QRELS).read_text(encoding="utf-8").splitlines():
        query, _, _, grade = line.split()
        graded[query] = max(graded.get(query, 0.0), float(grade))
    unjudged = {query for query, best in graded.items() if best < 1}
    assert unjudged == {"q010", "q020", "q030", "q040"}
    page = sample_report.read_text(encoding="utf-8")
    worst = page[page.index("<h2>Worst queries</h2>") :]
    listed = set(re.findall(r"<td>(q\d{3})</td>", worst))
    assert len(listed) >= 10
    assert not listed & unjudged
    assert "only queries with a relevant label" in worst
    assert '<th class="num" scope="col">num_rel</th>' not in page  # not asked for


@pytest.mark.parametrize(
    ("correction", "named"),
    [
        ("holm", "(Holm)"),
        ("bonferroni", "(Bonferroni)"),
        ("bh", "(Benjamini-Hochberg)"),
        (None, "p not adjusted"),
    ],
)
def test_the_comparison_caption_names_the_correction_applied(
    sample_result: rankset.EvaluationResult, correction: Any, named: str
) -> None:
    # The caption said "Holm" whatever correction the comparison had been made with.
    comparison = rankset.compare(
        sample_result, "bm25", tests=["randomization"], correction=correction, n_resamples=200
    )
    page = build_report(
        sample_result, baseline="bm25", comparison=comparison, correction=correction
    )
    caption = re.search(r"Each system against the baseline.*?</caption>", page, re.S)
    assert caption is not None
    assert named in caption.group(0)
    others = {"(Holm)", "(Bonferroni)", "(Benjamini-Hochberg)", "p not adjusted"} - {named}
    assert not any(other in caption.group(0) for other in others)


def test_an_unknown_correction_is_refused(sample_result: rankset.EvaluationResult) -> None:
    with pytest.raises(rankset.ParameterError, match="correction"):
        build_report(sample_result, correction="sidak")  # type: ignore[arg-type]
