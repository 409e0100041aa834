"""The report's "History" section: an experiment store's logged means, charted and tabled."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

import rankset
from _support.report_cases import QRELS, RUNS, fmt
from rankset.experiments import Store
from rankset.pages.report import report
from rankset.pages.report._page import build_report

_ROW = re.compile(r"<tr><th scope=\"row\">([^<]*)</th>(.*?)</tr>")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Two entries: both runs, then the reranker cut to depth 5 (its AP falls)."""
    logged = Store(tmp_path_factory.mktemp("history") / "store")
    names = ["bm25", "rerank"]
    logged.evaluate_and_log(RUNS, QRELS, ["ndcg@10", "ap"], tag="main", names=names)
    logged.evaluate_and_log(
        [RUNS[1]], QRELS, ["ndcg@10", "ap", "rr"], tag="main", names=["rerank"], max_depth=5
    )
    return logged


def _history_rows(page: str) -> dict[tuple[str, str], list[str]]:
    """The History table's cells by (system, metric)."""
    section = page.split("<h2>History</h2>", 1)[1].split("<h2>", 1)[0]
    section = section.split("</table>", 1)[0]  # the first table; the second: what changed
    rows = {}
    for system, rest in _ROW.findall(section):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", rest)
        rows[(system, cells[0])] = cells
    return rows


def test_the_section_shows_each_systems_last_mean_and_change(store: Store, tmp_path: Path) -> None:
    out = report(
        RUNS,
        QRELS,
        metrics=["ndcg@10", "ap"],
        out=tmp_path / "r.html",
        scale="trec_dl",
        n_resamples=50,
        worst=0,
        history=store.path,
        progress=False,
    ).path
    page = out.read_text(encoding="utf-8")
    assert "<h2>History</h2>" in page
    assert 'id="chart-history-0"' in page
    assert 'id="chart-history-1"' in page
    rows = _history_rows(page)
    # rr was logged but is not one of the report's metrics: not in the table.
    assert set(rows) == {
        ("bm25", "ndcg@10"),
        ("bm25", "ap"),
        ("rerank", "ndcg@10"),
        ("rerank", "ap"),
    }
    history = store.history()
    for (system, metric), cells in rows.items():
        means = history.filter(pl.col("system") == system, pl.col("metric") == metric)[
            "mean"
        ].to_list()  # oldest first
        assert cells[1] == str(len(means))  # entries
        assert cells[4] == fmt(means[-1])  # last mean
        if len(means) == 1:
            assert cells[5] == cells[6] == "–"
        else:
            assert cells[5] == fmt(means[-2])
            assert float(cells[6].replace("−", "-")) == pytest.approx(
                means[-1] - means[-2], abs=1e-4
            )
    # The cut reranker's AP fell: the change is negative and shown so.
    assert rows[("rerank", "ap")][6].startswith(("−", "-"))


def test_a_history_without_the_reports_metrics_says_what_it_holds() -> None:
    result = rankset.evaluate(RUNS, QRELS, ["ndcg@10"], scale="trec_dl", confidence=None)
    history = pl.DataFrame(
        {
            "entry_id": ["e1"],
            "time": [datetime(2026, 1, 1, tzinfo=UTC)],
            "system": ["bm25"],
            "metric": ["recall@1000"],
            "mean": [0.5],
        }
    )
    page = build_report(result, history=history)
    section = page.split("<h2>History</h2>", 1)[1]
    assert "None of this report's metrics was logged in the store (1 entry)" in section
    assert "recall@1000" in section
    assert "chart-history-" not in section


def test_the_cli_reads_a_store_and_refuses_a_folder_that_is_not_one(
    store: Store, tmp_path: Path
) -> None:
    command = [sys.executable, "-m", "rankset.cli", "--quiet", "report", *map(str, RUNS)]
    command += ["--qrels", str(QRELS), "--scale", "trec_dl", "--n-resamples", "50", "-m", "ap"]
    done = subprocess.run(
        [*command, "--out", str(tmp_path / "r.html"), "--store", str(store.path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "<h2>History</h2>" in (tmp_path / "r.html").read_text(encoding="utf-8")
    missing = tmp_path / "no-store"
    missing.mkdir()
    done = subprocess.run(
        [*command, "--out", str(tmp_path / "s.html"), "--store", str(missing)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2
    assert f"{missing} is not a rankset store" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "s.html").exists()


def test_times_in_another_zone_are_shown_in_utc() -> None:
    from zoneinfo import ZoneInfo

    result = rankset.evaluate(RUNS, QRELS, ["ndcg@10"], scale="trec_dl", confidence=None)
    paris = ZoneInfo("Europe/Paris")
    history = pl.DataFrame(
        {
            "entry_id": ["e1", "e2"],
            # 00:30 in Paris on 2 January is 23:30 UTC on 1 January (winter, UTC+1)
            "time": [
                datetime(2026, 1, 1, 0, 30, tzinfo=paris),
                datetime(2026, 1, 2, 0, 30, tzinfo=paris),
            ],
            "system": ["bm25", "bm25"],
            "metric": ["ndcg@10", "ndcg@10"],
            "mean": [0.4, 0.5],
        }
    )
    section = build_report(result, history=history).split("<h2>History</h2>", 1)[1]
    assert "2026-01-01 23:30" in section
    assert "from 2025-12-31 to 2026-01-01" in section
