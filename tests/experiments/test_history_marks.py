"""Marks of significant changes between consecutive entries of a tag, and what changed.

A seeded store: entries 1 and 2 of tag main evaluate the same runs (no change), an entry
of tag exp between them cuts the reranker to depth 5, entry 3 of main cuts it too (its AP
falls on many queries: a real change), entry 4 repeats entry 3 (no change). The expected p
of the real change is a sign-flip test of the per-query differences by numpy (Monte Carlo),
independently of rankset.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS
from rankset.experiments import Store
from rankset.experiments._shared import MARK_ALPHA, read_history, setting_changes
from rankset.pages.report._history import history_section

METRICS = ["ndcg@10", "ap"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, list[str]]:
    logged = Store(tmp_path_factory.mktemp("marks") / "store")
    runs, names = list(SAMPLE_RUNS.values()), list(SAMPLE_RUNS)
    options = {"scale": "trec_dl", "n_resamples": 100, "names": names}

    def log(**settings: object) -> str:
        return logged.evaluate_and_log(runs, SAMPLE_QRELS, METRICS, **options, **settings)

    entries = [
        log(tag="main", meta={"m": "v1"}),
        log(tag="exp", max_depth=5),
        log(tag="main", meta={"m": "v1"}),
        log(tag="main", max_depth=5, meta={"m": "v2"}),
        log(tag="main", max_depth=5, meta={"m": "v2"}),
    ]
    return logged, entries


def test_every_consecutive_change_of_a_tag_is_tested_and_only_the_real_one_marked(
    store: tuple[Store, list[str]],
) -> None:
    logged, (first, exp, second, cut, repeat) = store
    history = read_history(logged)
    assert history is not None
    steps = {
        (row["entry_id"], row["system"], row["metric"]): row
        for row in history.iter_rows(named=True)
    }
    for system in SAMPLE_RUNS:
        for metric in METRICS:
            # the first entry of each tag has no entry before it
            assert steps[(first, system, metric)]["p_step"] is None
            assert steps[(exp, system, metric)]["p_step"] is None
            # main's series skips exp: entry 2 follows entry 1, unchanged (no mark)
            assert steps[(second, system, metric)]["previous_entry"] == first
            assert steps[(second, system, metric)]["p_step"] == 1.0
            assert steps[(repeat, system, metric)]["previous_entry"] == cut
            assert steps[(repeat, system, metric)]["p_step"] == 1.0
            assert steps[(cut, system, metric)]["previous_entry"] == second
    # the cut, not the last change, is tested and marked: the reranker's AP falls
    marked = steps[(cut, "rerank", "ap")]["p_step"]
    assert marked is not None
    assert marked < MARK_ALPHA
    values = logged.per_query([second, cut]).filter(
        (pl.col("system") == "rerank") & (pl.col("metric") == "ap")
    )
    wide = values.pivot(on="entry_id", index="query_id", values="value").drop_nulls()
    diffs = (wide[cut] - wide[second]).to_numpy()
    signs = np.random.default_rng(0).choice([-1.0, 1.0], size=(20_000, diffs.size))
    flipped = np.abs((signs * diffs).mean(axis=1))
    reference = (1 + (flipped >= abs(diffs.mean()) - 1e-12).sum()) / (1 + len(flipped))
    assert abs(marked - reference) < 0.01
    # the names the pages give: a repeated tag takes the short id
    assert steps[(cut, "rerank", "ap")]["entry"] == f"main@{cut.rsplit('-', 1)[1]}"
    assert steps[(exp, "rerank", "ap")]["entry"] == "exp"


def test_only_the_options_and_meta_that_changed_are_listed(
    store: tuple[Store, list[str]],
) -> None:
    logged, entries = store
    history = read_history(logged)
    assert history is not None
    names = dict(history.select("entry_id", "entry").unique().iter_rows())
    changes = setting_changes(history)
    # consecutive in logged order: 1 -> exp -> 2 -> cut -> repeat (the repeat: nothing)
    assert changes.rows() == [
        (names[entries[1]], names[entries[0]], "meta.m", '"v1"', None),
        (names[entries[1]], names[entries[0]], "option.max_depth", "null", "5"),
        (names[entries[2]], names[entries[1]], "meta.m", None, '"v1"'),
        (names[entries[2]], names[entries[1]], "option.max_depth", "5", "null"),
        (names[entries[3]], names[entries[2]], "meta.m", '"v1"', '"v2"'),
        (names[entries[3]], names[entries[2]], "option.max_depth", "null", "5"),
    ]
    html = history_section(history, METRICS, list(SAMPLE_RUNS))
    assert "What changed between consecutive entries" in html
    assert html.count("option.max_depth") == 3


def test_the_history_chart_names_entries_and_rings_the_marked_means(
    store: tuple[Store, list[str]],
) -> None:
    from rankset import charts

    history = read_history(store[0])
    assert history is not None
    spec = charts.history_chart(history, "ap").to_dict()
    x = spec["layer"][1]["encoding"]["x"]
    assert (x["field"], x["type"]) == ("entry", "nominal")  # names, not milliseconds
    ring = spec["layer"][-1]
    assert ring["transform"] == [{"filter": "isValid(datum.p_step) && datum.p_step < 0.05"}]
    rows = spec["data"]["values"]
    ringed = {r["entry"] for r in rows if r["p_step"] is not None and r["p_step"] < 0.05}
    cut = store[1][3]
    assert ringed == {f"main@{cut.rsplit('-', 1)[1]}"}
