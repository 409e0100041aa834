"""The dashboard without labels: two runs contrasted, no metric (issue #48, point 1).

Expected rankings are read from the run files here, by hand (score descending, then
document id descending: trec_eval's order); RBO is :func:`rankset.label_quality.rbo`'s and
tau_AP :func:`rankset.label_quality.tau_ap`'s, overlap a set intersection.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from _support.dashboard_cases import SAMPLE_RUNS, embedded, sample_texts
from rankset.cli import main
from rankset.errors import ParameterError
from rankset.label_quality import rbo, tau_ap
from rankset.pages import analyse
from rankset.pages.dashboard import dashboard
from rankset.pages.report import report


def _top(path: Path, k: int) -> dict[str, list[str]]:
    """``{query: its top k doc ids}`` of a TREC run file, in trec_eval's order."""
    rows: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            query, _, doc, _, score, _ = line.split()
            rows[query].append((float(score), doc))
    return {
        query: [doc for _, doc in sorted(docs, reverse=True)[:k]] for query, docs in rows.items()
    }


def _expected(k: int = 10) -> dict[str, dict[str, Any]]:
    """Per query: both top k, overlap@k, RBO and tau_AP of rerank against bm25."""
    tops = {name: _top(path, k) for name, path in SAMPLE_RUNS.items()}
    out = {}
    for query, first in tops["bm25"].items():
        second = tops["rerank"][query]
        shared = [doc for doc in first if doc in second]
        in_a = set(first)
        out[query] = {
            "a": first,
            "b": second,
            "overlap": len(shared),
            "rbo": rbo(first, second),
            "tau": tau_ap([doc for doc in second if doc in in_a], shared)
            if len(shared) >= 2
            else None,
        }
    return out


def test_the_cli_writes_the_page_without_qrels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs, queries = sample_texts(tmp_path)
    out = tmp_path / "board.html"
    runs = [str(SAMPLE_RUNS["bm25"]), str(SAMPLE_RUNS["rerank"])]
    command = ["dashboard", *runs, "--texts", str(docs), "--queries", str(queries)]
    assert main([*command, "--quiet", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}: 2 systems, 40 queries")
    data = embedded(out.read_text(encoding="utf-8"), "rankset-data")
    assert data["systems"] == ["bm25", "rerank"]
    assert data["metrics"] == []
    assert data["values"] == []
    assert data["summary"] == []
    assert data["compare"] == {}
    assert data["diagnosis"] is None
    assert data["curves"] is None
    assert len(data["queries"]) == 40
    # the page ships both rankings' top depth, as the run files order them
    top = _top(SAMPLE_RUNS["rerank"], data["depth"])
    qi = data["queries"].index("q003")
    ids = data["doc_ids"][qi]
    assert [ids[d] for d in data["rankings"][1][qi]] == top["q003"]


def test_a_label_free_analysis_and_the_report_refusing_it() -> None:
    analysis = analyse(SAMPLE_RUNS, progress=False)
    assert analysis.label_free
    assert analysis.metrics == ()
    assert analysis.systems == ["bm25", "rerank"]
    assert analysis.baseline == "bm25"
    assert len(analysis.query_ids) == 40
    assert "no labels" in repr(analysis)
    assert repr(dashboard(analysis, progress=False)).startswith("Dashboard(2 systems, no labels")
    # runs that carry their own labels are evaluated as before
    assert not analyse(
        SAMPLE_RUNS["bm25"].parent / "samples.jsonl", n_resamples=50, progress=False
    ).label_free
    with pytest.raises(ParameterError, match=r"the report shows metrics, so it needs labels"):
        report(analysis, progress=False)
    with pytest.raises(ParameterError, match="needs 'labels'"):
        analyse(SAMPLE_RUNS, label_sets={"x": SAMPLE_RUNS["bm25"]}, progress=False)


def test_the_analysis_contrasts_equal_label_quality_s_per_query() -> None:
    expected = _expected(10)
    frame = analyse(SAMPLE_RUNS, progress=False).contrasts
    assert frame is not None
    assert frame["query_id"].to_list() == sorted(expected)
    for row in frame.iter_rows(named=True):
        want = expected[row["query_id"]]
        assert (row["system"], row["baseline"]) == ("rerank", "bm25")
        assert row["overlap"] == want["overlap"]
        assert row["rbo"] == pytest.approx(want["rbo"], abs=1e-12)
        assert row["tau_ap"] == pytest.approx(want["tau"], abs=1e-12)
    # lists of other lengths, disjoint, swapped, one side empty; three systems
    runs = {
        "a": {"q1": {"x": 5, "y": 4, "z": 3, "w": 2}, "q2": {"x": 2, "y": 1}, "q3": {"x": 1}},
        "b": {"q1": {"z": 5, "x": 4, "v": 3}, "q2": {"u": 2, "t": 1}, "q4": {"x": 1}},
        "c": {"q1": {"y": 3, "x": 2}, "q2": {"y": 2, "x": 1}},
    }
    lists = {
        name: {q: sorted(docs, key=docs.__getitem__, reverse=True) for q, docs in run.items()}
        for name, run in runs.items()
    }
    frame = analyse(runs, k=3, progress=False).contrasts
    assert frame is not None
    assert frame.select("system", "query_id").rows() == [
        (name, q) for name in ("b", "c") for q in ("q1", "q2", "q3", "q4")
    ]
    for row in frame.iter_rows(named=True):
        first = lists["a"].get(row["query_id"], [])[:3]
        second = lists[row["system"]].get(row["query_id"], [])[:3]
        shared = [doc for doc in first if doc in second]
        n = min(len(first), len(second))
        union = len(set(first) | set(second))
        assert row["overlap"] == len(shared)
        assert row["jaccard"] == (len(shared) / union if union else None)
        assert row["rbo"] == (pytest.approx(rbo(first[:n], second[:n])) if n else None)
        tau = tau_ap([d for d in second if d in shared], shared) if len(shared) >= 2 else None
        assert row["tau_ap"] == (pytest.approx(tau) if tau is not None else None)


@pytest.fixture(scope="module")
def label_free_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("label-free")
    docs, queries = sample_texts(folder)
    board = dashboard(SAMPLE_RUNS, texts=docs, queries=queries, progress=False)
    return board.save(folder / "board.html")


@pytest.mark.slow
def test_a_query_opened_from_a_fragment_shows_both_top_10s_and_their_contrast(
    browser: Any, label_free_page: Path
) -> None:
    expected = _expected(10)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for query in ("q003", "q021"):
        page.goto(label_free_page.resolve().as_uri() + f"#query={query}&a=bm25&b=rerank&k=10")
        page.wait_for_selector("body[data-ready]")
        page.reload()  # another fragment of the same file: read it afresh
        page.wait_for_selector("body[data-ready=true]")
        assert page.locator("#query-title").text_content() == f"Query {query}"
        want = expected[query]
        for side in ("a", "b"):
            shown = page.locator(f"#serp-{side} tbody tr").evaluate_all(
                "rows => rows.map(r => r.dataset.doc)"
            )
            assert shown == want[side]
            heads = page.locator(f"#serp-{side} thead th").all_text_contents()
            assert "grade" not in heads  # no labels, no grade column
        facts = {
            node.get_attribute("data-measure"): node.text_content()
            for node in page.locator("#contrast dd").all()
        }
        assert facts["overlap@10"] == str(want["overlap"])
        assert facts["RBO (p = 0.9)"] == f"{want['rbo']:.4f}"
        tau = "\u2013" if want["tau"] is None else f"{want['tau']:.4f}".replace("-", "\u2212")
        assert facts["tau_AP (B vs A)"] == tau
        assert page.locator("#query-metrics").count() == 0
        assert page.locator("#missed").count() == 0
    assert errors == []
    page.close()


@pytest.mark.slow
def test_the_query_list_puts_the_least_similar_query_first(
    browser: Any, label_free_page: Path
) -> None:
    expected = _expected(10)
    by_rbo = sorted(expected, key=lambda query: (expected[query]["rbo"], query))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(label_free_page.resolve().as_uri() + "#view=queries")
    page.wait_for_selector("body[data-ready=true]")
    listed = page.locator("#query-table tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.query)"
    )
    assert listed == by_rbo  # the default: ascending RBO, the most different first
    rbos = page.locator('#query-table tbody td[data-measure="rbo"]').all_text_contents()
    assert rbos[0] == f"{expected[by_rbo[0]]['rbo']:.4f}"
    page.locator('#query-table th[data-sort="overlap"]').click()
    assert "sort=overlap" in page.evaluate("location.hash")
    overlaps = page.locator('#query-table tbody td[data-measure="overlap"]').all_text_contents()
    assert [int(value) for value in overlaps] == sorted(
        expected[query]["overlap"] for query in expected
    )
    page.locator('#query-table th[data-sort="overlap"]').click()  # again: descending
    assert "sort=-overlap" in page.evaluate("location.hash")
    page.goto(label_free_page.resolve().as_uri() + "#view=queries&sort=-rbo")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    first = page.locator("#query-table tbody tr").first.get_attribute("data-query")
    assert first == by_rbo[-1]
    # the overview: the mean RBO and overlap of rerank against bm25 over the queries
    page.goto(label_free_page.resolve().as_uri() + "#view=overview")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    row = page.locator('#systems-table tr[data-system="rerank"]')
    mean_rbo = sum(e["rbo"] for e in expected.values()) / len(expected)
    mean_overlap = sum(e["overlap"] for e in expected.values()) / len(expected)
    assert row.locator('td[data-measure="rbo"]').text_content() == f"{mean_rbo:.4f}"
    assert row.locator('td[data-measure="overlap"]').text_content() == f"{mean_overlap:.2f}"
    page.close()
