"""The dashboard's History view: an experiment store's logged means, charted and tabled.

The expected numbers are computed here with plain Python from the store's history rows.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS, embedded
from rankset.cli import main
from rankset.errors import InputFormatError
from rankset.experiments import Store
from rankset.pages.dashboard import dashboard

N_RESAMPLES = 100
METRICS = ["ndcg@10", "ap"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Two entries: both runs, then the reranker cut to depth 5 (its AP falls) with rr."""
    logged = Store(tmp_path_factory.mktemp("history") / "store")
    runs = list(SAMPLE_RUNS.values())
    options = {"tag": "main", "scale": "trec_dl", "n_resamples": N_RESAMPLES}
    logged.evaluate_and_log(runs, SAMPLE_QRELS, METRICS, names=list(SAMPLE_RUNS), **options)
    logged.evaluate_and_log(
        [SAMPLE_RUNS["rerank"]], SAMPLE_QRELS, [*METRICS, "rr"], names=["rerank"], max_depth=5,
        **options,
    )  # fmt: skip
    return logged


@pytest.fixture(scope="module")
def page(store: Store) -> str:
    board = dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        metrics=METRICS,
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        history=store.path,
        progress=False,
    )
    return board.html


def expected_latest(store: Store, metrics: list[str]) -> list[dict[str, Any]]:
    """Each (system, metric) of ``metrics``: its rows oldest first, the last two compared."""
    by_key: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in store.history().to_dicts():  # rows of (entry, system, metric)
        if row["metric"] in metrics:
            by_key.setdefault((row["system"], row["metric"]), []).append(row)
    out = []
    for system, metric in sorted(by_key, key=lambda key: (metrics.index(key[1]), key[0])):
        rows = sorted(by_key[(system, metric)], key=lambda row: row["time"])
        last = rows[-1]
        previous = rows[-2]["mean"] if len(rows) > 1 else None
        out.append(
            {
                "system": system,
                "metric": metric,
                "n_entries": len(rows),
                # as the chart names it: a repeated tag and the short id
                "last_entry": f"{last['tag']}@{last['entry_id'].rsplit('-', 1)[1]}",
                "last_time": last["time"].strftime("%Y-%m-%d %H:%M"),
                "last_mean": last["mean"],
                "previous_mean": previous,
                "change": None if previous is None else last["mean"] - previous,
            }
        )
    return out


def test_the_page_holds_the_history_view(page: str) -> None:
    assert '<button type="button" role="tab" data-tab="history">History</button>' in page
    assert '<section data-view="history" aria-label="History" hidden>' in page
    assert '<div id="chart-history"></div>' in page
    assert '<table id="history-table"></table>' in page
    assert "The means logged in the experiment store: 2 entries from " in page
    spec = embedded(page, "rankset-specs")["history"]
    assert {"name": "metric", "value": "ndcg@10"} in spec["params"]
    assert "the logged means of 2 entries of an experiment store" in page


def test_the_tables_numbers_are_the_stores(page: str, store: Store) -> None:
    history = embedded(page, "rankset-data")["history"]
    assert history["entries"] == 2
    assert history["metrics"] == METRICS
    assert "rr" in history["held"]  # logged, but not one of the dashboard's metrics
    expected = expected_latest(store, METRICS)
    assert [(row["system"], row["metric"]) for row in history["latest"]] == [
        ("bm25", "ndcg@10"),
        ("rerank", "ndcg@10"),
        ("bm25", "ap"),
        ("rerank", "ap"),
    ]
    for shown, wanted in zip(history["latest"], expected, strict=True):
        for key in ("system", "metric", "n_entries", "last_entry", "last_time"):
            assert shown[key] == wanted[key], key
        for key in ("last_mean", "previous_mean", "change"):
            assert shown[key] == pytest.approx(wanted[key]), key
    rerank_ap = history["latest"][3]
    assert rerank_ap["n_entries"] == 2
    assert rerank_ap["change"] < 0  # cut to depth 5, the reranker's AP fell
    assert history["latest"][0]["previous_mean"] is None  # bm25 was logged once
    # the chart's rows: every logged mean of the shown metrics, and no other
    rows = [(r["entry_id"], r["system"], r["metric"], r["mean"]) for r in history["rows"]]
    logged = [
        (r["entry_id"], r["system"], r["metric"], r["mean"])
        for r in store.history().to_dicts()
        if r["metric"] in METRICS
    ]
    assert rows == logged
    assert len(rows) == 6


def test_a_store_a_folder_and_a_frame_give_the_same_view(page: str, store: Store) -> None:
    # a frame holds no per-query values, so its last changes are not tested (p is null)
    untested = embedded(page, "rankset-data")["history"]
    untested["latest"] = [{**row, "p": None} for row in untested["latest"]]
    # nor its steps (no ring, no entry before to name)
    untested["rows"] = [
        {key: value for key, value in row.items() if key not in ("p_step", "previous")}
        for row in untested["rows"]
    ]
    for given, expected in ((store, embedded(page, "rankset-data")["history"]),
                            (store.history(), untested)):  # fmt: skip
        board = dashboard(
            SAMPLE_RUNS,
            SAMPLE_QRELS,
            metrics=METRICS,
            scale="trec_dl",
            n_resamples=N_RESAMPLES,
            history=given,
            progress=False,
        )
        assert embedded(board.html, "rankset-data")["history"] == expected


def test_without_a_store_there_is_no_history_view() -> None:
    board = dashboard(SAMPLE_RUNS, SAMPLE_QRELS, metrics=["ap"], scale="trec_dl", n_resamples=50)
    assert 'data-tab="history"' not in board.html
    assert 'id="chart-history"' not in board.html
    assert embedded(board.html, "rankset-data")["history"] is None
    assert "history" not in embedded(board.html, "rankset-specs")


def test_a_store_without_the_dashboards_metrics_says_what_it_holds(store: Store) -> None:
    board = dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        metrics=["recall@100"],
        scale="trec_dl",
        n_resamples=50,
        history=store,
    )
    assert (
        "None of this dashboard&#x27;s metrics was logged in the store (2 entries); "
        "it holds ndcg@10, ap, judged@10, rr." in board.html
    )
    assert embedded(board.html, "rankset-data")["history"]["latest"] == []


def test_a_folder_that_is_no_store_is_refused_before_any_work(tmp_path: Path) -> None:
    heard: list[str] = []
    with pytest.raises(InputFormatError, match="is not a rankset store"):
        dashboard(
            SAMPLE_RUNS,
            SAMPLE_QRELS,
            history=tmp_path,
            progress=lambda done, total, what: heard.append(what),
        )
    assert heard == []
    assert list(tmp_path.iterdir()) == []  # read only: nothing written there


def test_the_cli_adds_the_history_of_store(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "board.html"
    options = ["--qrels", str(SAMPLE_QRELS), "--scale", "trec_dl", "-m", "ndcg@10", "-m", "ap"]
    options += ["--quiet", "--out", str(out)]
    before = sorted(path.name for path in store.path.rglob("*"))
    assert main(["dashboard", "--store", str(store.path), *options]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}: 3 systems")  # 2 entries' runs
    history = embedded(out.read_text(encoding="utf-8"), "rankset-data")["history"]
    assert history["entries"] == 2
    assert history["latest"][-1]["change"] == pytest.approx(
        expected_latest(store, METRICS)[-1]["change"]
    )
    assert sorted(path.name for path in store.path.rglob("*")) == before  # only read


def test_the_cli_refuses_a_folder_that_is_no_store(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-store"
    folder.mkdir()
    out = tmp_path / "board.html"
    command = [sys.executable, "-m", "rankset.cli", "--quiet", "dashboard"]
    command += [*map(str, SAMPLE_RUNS.values()), "--qrels", str(SAMPLE_QRELS)]
    done = subprocess.run(
        [*command, "--store", str(folder), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2
    assert f"{folder} is not a rankset store" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()
    assert list(folder.iterdir()) == []


def test_store_runs_are_named_by_tag_and_short_id_and_name_counts_the_user_s_runs(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = (entry.rsplit("-", 1)[1] for entry in store.entries())
    assert len(first) == len(second) == 8
    out = tmp_path / "board.html"
    options = ["--qrels", str(SAMPLE_QRELS), "--scale", "trec_dl", "-m", "ap", "--quiet"]
    command = ["dashboard", str(SAMPLE_RUNS["bm25"]), "--store", str(store.path), *options]
    assert main([*command, "--name", "mine", "--out", str(out)]) == 0
    systems = embedded(out.read_text(encoding="utf-8"), "rankset-data")["systems"]
    # both entries are tagged main: the tag and the entry's short id tell them apart
    assert sorted(systems) == sorted(
        [f"main@{first}:bm25", f"main@{first}:rerank", f"main@{second}:rerank", "mine"]
    )
    capsys.readouterr()
    assert main([*command, "--name", "a", "--name", "b", "--out", str(out)]) == 2
    assert "--name names the runs given on the line: 1 run(s), 2 name(s)" in (
        capsys.readouterr().err
    )


def test_a_unique_tag_names_its_runs_and_no_tag_gives_the_short_id(tmp_path: Path) -> None:
    logged = Store(tmp_path / "store")
    run = SAMPLE_RUNS["bm25"]
    tagged = logged.evaluate_and_log(run, SAMPLE_QRELS, ["ap"], tag="v1", scale="trec_dl")
    untagged = logged.evaluate_and_log(run, SAMPLE_QRELS, ["ap"], scale="trec_dl")
    names = sorted(logged.sources()[0])
    assert names == sorted(["v1:bm25", f"{untagged.rsplit('-', 1)[1]}:bm25"])
    assert tagged != untagged


def test_the_last_change_of_each_system_is_tested_against_the_entry_before(
    page: str, store: Store
) -> None:
    """The reranker cut to depth 5 (the store's second entry) loses AP on many queries;
    bm25, logged once, has no change to test. Expected p-values: a sign-flip test of the
    per-query differences, enumerated here by Monte Carlo with numpy, independently."""
    import numpy as np

    latest = {
        (r["system"], r["metric"]): r for r in embedded(page, "rankset-data")["history"]["latest"]
    }
    assert latest[("bm25", "ap")]["p"] is None
    first, second = store.entries()
    values = store.per_query([first, second]).filter(
        (pl.col("system") == "rerank") & (pl.col("metric") == "ap")
    )
    wide = values.pivot(on="entry_id", index="query_id", values="value").drop_nulls()
    diffs = (wide[second] - wide[first]).to_numpy()
    rng = np.random.default_rng(0)
    signs = rng.choice([-1.0, 1.0], size=(20_000, diffs.size))
    flipped = np.abs((signs * diffs).mean(axis=1))
    reference = (1 + (flipped >= abs(diffs.mean()) - 1e-12).sum()) / (1 + len(flipped))
    p = latest[("rerank", "ap")]["p"]
    assert p is not None
    assert p < 0.05  # the cut is a real loss
    assert abs(p - reference) < 0.01  # the same test, up to Monte Carlo error
