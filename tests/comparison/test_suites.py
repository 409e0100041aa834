"""evaluate_suite: per collection = separate evaluate calls; macro mean, ranks, Borda, TOML."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.charts import suite_heatmap
from rankset.comparison import (
    SuiteResult,
    evaluate_suite,
    evaluate_suite_toml,
    suite_from_toml,
)
from rankset.comparison.suites import AGGREGATE_COLUMNS, average_ranks
from rankset.errors import ParameterError, RanksetWarning

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
FIRST_STAGE = DATA / "rank_llm_dl_runs" / "first_stage"
QRELS = DATA / "anserini_qrels_topics" / "qrels"
SYSTEMS = ["bm25", "bm25-rm3", "splade-pp-ed", "tasb", "openai-ada2", "repllama"]
DL = ["dl19", "dl20"]
METRICS = ["ndcg@10", "recall@100", "harm@10"]
OPTIONS = {"relevance_level": 2, "scale": "trec_dl"}  # TREC DL: binary at grade 2


def _dl_collections() -> dict[str, tuple[dict[str, str], str]]:
    needed = [QRELS / f"qrels.{c}-passage.txt.gz" for c in DL] + [
        FIRST_STAGE / f"{s}.{c}.trec.gz" for s in SYSTEMS for c in DL
    ]
    absent = [str(p) for p in needed if not p.exists()]
    if absent:
        pytest.skip(f"the shared DL19/DL20 data is absent ({absent[0]}; see {DATA}/README.md)")
    return {
        c: (
            {s: str(FIRST_STAGE / f"{s}.{c}.trec.gz") for s in SYSTEMS},
            str(QRELS / f"qrels.{c}-passage.txt.gz"),
        )
        for c in DL
    }


@pytest.fixture(scope="module")
def dl_suite() -> SuiteResult:
    return evaluate_suite(_dl_collections(), METRICS, n_resamples=300, **OPTIONS)


def test_each_collection_equals_a_separate_evaluate_call(dl_suite: SuiteResult) -> None:
    for name, (runs, qrels) in _dl_collections().items():
        alone = rankset.evaluate(runs, qrels, METRICS, n_resamples=300, **OPTIONS)
        assert_frame_equal(dl_suite.results[name].summary, alone.summary)
        assert_frame_equal(dl_suite.results[name].per_query, alone.per_query)
        rows = dl_suite.per_collection.filter(pl.col("collection") == name)
        assert_frame_equal(rows.select(alone.summary.columns), alone.summary)
    assert dl_suite.missing.height == 0
    # nDCG@10 as the data's README (and Pyserini's 2CR) give it
    ndcg = dl_suite.per_collection.filter(pl.col("metric") == "ndcg@10")
    got = {(c, s): round(m, 4) for c, s, m in ndcg.select("collection", "system", "mean").rows()}
    assert got[("dl19", "bm25")] == 0.5058
    assert got[("dl20", "splade-pp-ed")] == 0.7197


def test_the_aggregate_rows_by_hand(dl_suite: SuiteResult) -> None:
    assert dl_suite.aggregate.columns == list(AGGREGATE_COLUMNS)
    assert dl_suite.aggregate.height == len(SYSTEMS) * len(METRICS)
    for metric in METRICS:
        rows = dl_suite.per_collection.filter(pl.col("metric") == metric)
        sign = -1.0 if metric.startswith("harm") else 1.0
        means = {c: dict(rows.filter(pl.col("collection") == c).select("system", "mean").rows())
                 for c in DL}  # fmt: skip
        for row in dl_suite.aggregate.filter(pl.col("metric") == metric).iter_rows(named=True):
            system = row["system"]
            assert row["macro_mean"] == pytest.approx(np.mean([means[c][system] for c in DL]))
            ranks = []
            for c in DL:  # rank 1 = best: 1 + systems better + half the others tied
                mine = sign * means[c][system]
                better = sum(sign * v > mine for v in means[c].values())
                tied = sum(sign * v == mine for v in means[c].values()) - 1
                ranks.append(1 + better + tied / 2)
            assert row["mean_rank"] == pytest.approx(np.mean(ranks))
            assert row["borda"] == pytest.approx(sum(len(SYSTEMS) - r for r in ranks))
            assert row["n_collections"] == 2
            assert row["ci_low"] <= row["macro_mean"] <= row["ci_high"]
            assert row["ci_low_queries"] <= row["macro_mean"] <= row["ci_high_queries"]
            assert row["rank_low"] <= row["mean_rank"] <= row["rank_high"]
            # over two collections, the resampled macro means lie between the two means
            assert min(means[c][system] for c in DL) <= row["ci_low"] + 1e-12
    best = dl_suite.aggregate.filter(pl.col("metric") == "ndcg@10")["system"].to_list()
    assert best[-2:] == ["bm25-rm3", "bm25"]
    assert "ndcg@10:" in repr(dl_suite)
    assert "dl20 (54 queries)" in repr(dl_suite)


def test_the_heatmap_shows_the_suites_means_and_ranks(dl_suite: SuiteResult) -> None:
    spec = suite_heatmap(dl_suite, "ndcg@10").to_dict()
    cells = {(v["collection"], v["system"]): v for v in spec["data"]["values"]}
    for row in dl_suite.per_collection.filter(pl.col("metric") == "ndcg@10").iter_rows(named=True):
        cell = cells[(row["collection"], row["system"])]
        assert (cell["mean"], cell["rank"]) == (row["mean"], row["rank"])
    order = dl_suite.aggregate.filter(pl.col("metric") == "ndcg@10")["system"].to_list()
    assert spec["layer"][0]["encoding"]["y"]["sort"] == order
    assert spec["layer"][0]["encoding"]["x"]["sort"] == DL
    harm = suite_heatmap(dl_suite.per_collection, "harm@10").to_dict()
    assert harm["layer"][0]["encoding"]["color"]["scale"]["reverse"] is True


# A hand-made suite, no shared data: three collections of two queries, three systems
# whose per-query values are the collection means (both queries alike).
MEANS = {  # collection: {system: mean}
    "c1": {"a": 1.0, "b": 0.5, "c": 0.0},
    "c2": {"a": 0.5, "b": 0.5, "c": 1.0},
    "c3": {"a": 0.0, "b": 1.0, "c": 0.5},
}


def _hand_made() -> dict[str, tuple[dict[str, dict[str, dict[str, float]]], dict[str, dict]]]:
    # rr: the relevant document d1 at rank 1 (1.0), rank 2 (0.5), or absent (0.0)
    ranking = {1.0: ["d1", "d2"], 0.5: ["d2", "d1"], 0.0: ["d2", "d3"]}
    collections = {}
    for name, means in MEANS.items():
        runs = {
            system: {q: {doc: 2.0 - i for i, doc in enumerate(ranking[m])} for q in ("q1", "q2")}
            for system, m in means.items()
        }
        collections[name] = (runs, {"q1": {"d1": 1}, "q2": {"d1": 1}})
    return collections


def test_a_hand_made_suite_ranks_and_borda() -> None:
    suite = evaluate_suite(_hand_made(), ["rr"], n_resamples=200)
    table = suite.per_collection.select("collection", "system", "rank")
    ranks = {(c, s): r for c, s, r in table.rows()}
    # c1: a > b > c; c2: c first, a and b tied (2.5 each); c3: b > c > a
    assert ranks == {
        ("c1", "a"): 1.0, ("c1", "b"): 2.0, ("c1", "c"): 3.0,
        ("c2", "a"): 2.5, ("c2", "b"): 2.5, ("c2", "c"): 1.0,
        ("c3", "a"): 3.0, ("c3", "b"): 1.0, ("c3", "c"): 2.0,
    }  # fmt: skip
    got = {row[0]: row[1:] for row in suite.aggregate.select(
        "system", "macro_mean", "mean_rank", "borda").rows()}  # fmt: skip
    # Borda: 3 - rank per collection. a: 2 + 0.5 + 0 ; b: 1 + 0.5 + 2 ; c: 0 + 2 + 1
    assert got["a"] == pytest.approx((0.5, 6.5 / 3, 2.5))
    assert got["b"] == pytest.approx((2 / 3, 5.5 / 3, 3.5))
    assert got["c"] == pytest.approx((0.5, 2.0, 3.0))
    assert suite.aggregate["system"].to_list() == ["b", "c", "a"]
    # both queries alike: resampling queries changes nothing
    row = suite.aggregate.filter(pl.col("system") == "b").row(0, named=True)
    assert row["ci_low_queries"] == pytest.approx(2 / 3) == row["ci_high_queries"]
    # resampling three collections: the macro mean stays within the collection means
    assert 0.5 <= row["ci_low"] <= row["ci_high"] <= 1.0
    assert 1.0 <= row["rank_low"] <= row["rank_high"] <= 2.5


def test_lower_is_better_metrics_rank_the_smallest_first() -> None:
    values = np.array([[0.1, 0.3, 0.1], [0.2, 0.2, 0.4]])
    assert average_ranks(values, greater_is_better=False).tolist() == [
        [1.5, 3.0, 1.5], [1.5, 1.5, 3.0]
    ]  # fmt: skip
    assert average_ranks(values, greater_is_better=True).tolist() == [
        [2.5, 1.0, 2.5], [2.5, 2.5, 1.0]
    ]  # fmt: skip


def test_the_bootstrap_is_seeded() -> None:
    first = evaluate_suite(_hand_made(), ["rr", "ap"], seed=7, n_resamples=100)
    again = evaluate_suite(_hand_made(), ["rr", "ap"], seed=7, n_resamples=100)
    other = evaluate_suite(_hand_made(), ["rr", "ap"], seed=8, n_resamples=100)
    assert_frame_equal(first.aggregate, again.aggregate)
    assert_frame_equal(first.per_collection, again.per_collection)
    intervals = ["ci_low", "ci_high", "rank_low", "rank_high"]
    assert not first.aggregate.select(intervals).equals(other.aggregate.select(intervals))
    none = evaluate_suite(_hand_made(), ["rr"], confidence=None)
    assert none.aggregate["ci_low"].null_count() == 3
    assert none.aggregate["borda"].to_list() == [3.5, 3.0, 2.5]


def test_the_query_bootstrap_varies_with_the_queries() -> None:
    collections = _hand_made()
    runs, _ = collections["c1"]
    collections["c1"] = (runs, {"q1": {"d1": 1}, "q2": {"d2": 1}})  # a: 1.0 then 0.5
    suite = evaluate_suite(collections, ["rr"], n_resamples=500)
    row = suite.aggregate.filter(pl.col("system") == "a").row(0, named=True)
    # c1's mean of a resamples to 1.0, 0.75 or 0.5: the macro mean to (x + 0.5 + 0) / 3
    assert row["ci_low_queries"] == pytest.approx(1 / 3)
    assert row["ci_high_queries"] == pytest.approx(0.5)


def test_a_system_missing_from_a_collection_is_reported() -> None:
    collections = _hand_made()
    runs, qrels = collections["c2"]
    collections["c2"] = ({k: v for k, v in runs.items() if k != "c"}, qrels)
    with pytest.warns(RanksetWarning, match="c from c2"):
        suite = evaluate_suite(collections, ["rr"], n_resamples=50)
    assert suite.missing.rows() == [("c2", "c")]
    row = suite.aggregate.filter(pl.col("system") == "c").row(0, named=True)
    assert row["n_collections"] == 2
    assert row["macro_mean"] is None
    assert row["borda"] is None
    # ranks among the systems in every collection: a and b
    ranks = suite.per_collection.filter(pl.col("collection") == "c1")["rank"].to_list()
    assert ranks == [1.0, 2.0, None]
    assert "missing: c not in c2" in repr(suite)


def test_bad_collections_are_refused() -> None:
    with pytest.raises(ParameterError, match="non-empty"):
        evaluate_suite({}, ["rr"])
    with pytest.raises(ParameterError, match="'c1' must be a \\(runs, qrels\\) pair"):
        evaluate_suite({"c1": "runs.trec"}, ["rr"])
    with pytest.raises(ParameterError, match="no 'labels' option"):
        evaluate_suite(_hand_made(), ["rr"], labels={"q1": {"d1": 1}})


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "runs").mkdir(exist_ok=True)
    for system in ("x", "y"):
        (tmp_path / "runs" / f"{system}.trec").write_text(
            f"q1 Q0 d1 1 2.0 {system}\nq2 Q0 d2 1 2.0 {system}\nq2 Q0 d1 2 1.0 {system}\n"
        )
    path = tmp_path / "suite.toml"
    path.write_text(text)
    return path


SUITE = """
metrics = ["rr", "ndcg@10"]
[collections.one]
qrels = "q.txt"
runs = ["runs/x.trec", "runs/y.trec"]
[collections.two]
qrels = "q.txt"
runs = {first = "runs/x.trec", second = "runs/y.trec"}
"""


def test_a_suite_file_is_read_relative_to_its_folder(tmp_path: Path) -> None:
    path = _write(tmp_path, SUITE)
    collections = suite_from_toml(path)
    assert collections["one"] == (
        [str(tmp_path / "runs" / "x.trec"), str(tmp_path / "runs" / "y.trec")],
        str(tmp_path / "q.txt"),
    )
    assert collections["two"][0] == {
        "first": str(tmp_path / "runs" / "x.trec"),
        "second": str(tmp_path / "runs" / "y.trec"),
    }
    import tomllib

    assert suite_from_toml(tomllib.loads(SUITE), base=tmp_path) == collections
    with pytest.warns(RanksetWarning, match="missing"):  # tags x, y against first, second
        suite = evaluate_suite_toml(path, n_resamples=50)
    assert suite.metrics == ["rr", "ndcg@10"]
    assert suite.missing.height == 4
    one = rankset.evaluate(*collections["one"], ["rr"])
    got = suite.per_collection.filter(pl.col("collection") == "one", pl.col("metric") == "rr")
    assert got.select("system", "mean").rows() == one.summary.select("system", "mean").rows()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("metrics = [", r"suite\.toml: not valid TOML"),
        ("metric = ['rr']", r"suite\.toml: unknown key 'metric'.*Did you mean 'metrics'"),
        ("metrics = ['rr']", r"suite\.toml: 'collections' must hold"),
        ("metrics = [1]\n[collections.a]\nqrels='q.txt'\nruns=['runs/x.trec']", r"'metrics'"),
        ("[collections]\na = 3", r"suite\.toml: 'collections\.a' must be a table"),
        ("[collections.a]\nruns = ['runs/x.trec']", r"'collections\.a' has no 'qrels'"),
        ("[collections.a]\nqrels = 'q.txt'", r"'collections\.a' has no 'runs'"),
        ("[collections.a]\nqrels='q.txt'\nruns=[]", r"'collections\.a\.runs' must be .*empty"),
        ("[collections.a]\nqrels='q.txt'\nruns='runs/x.trec'", r"'collections\.a\.runs' must"),
        ("[collections.a]\nqrels=3\nruns=['runs/x.trec']", r"'collections\.a\.qrels' must be"),
        (
            "[collections.a]\nqrels='q.txt'\nruns=['runs/z.trec']",
            r"'collections\.a\.runs\[0\]' names .*z\.trec, which does not exist",
        ),
        ("[collections.a]\nqrels='q.txt'\nruns={s=1}", r"'collections\.a\.runs\.s' must be"),
        ("[collections.a]\nqrels='q.txt'\nrun=['runs/x.trec']", r"unknown key 'collections.a.run"),
    ],
)  # fmt: skip
def test_malformed_suite_files_name_the_file_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ParameterError, match=message):
        evaluate_suite_toml(path) if "metrics" in text else suite_from_toml(path)


def test_a_suite_file_needs_metrics_and_must_exist(tmp_path: Path) -> None:
    path = _write(tmp_path, "[collections.a]\nqrels='q.txt'\nruns=['runs/x.trec']")
    with pytest.raises(ParameterError, match=r"suite\.toml: no 'metrics'"):
        evaluate_suite_toml(path)
    assert evaluate_suite_toml(path, ["rr"], n_resamples=20).metrics == ["rr"]
    with pytest.raises(ParameterError, match=r"nowhere\.toml: the suite file does not exist"):
        suite_from_toml(tmp_path / "nowhere.toml")
