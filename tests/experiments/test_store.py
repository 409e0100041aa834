"""The experiment store: layout, reading with Polars alone, duplicates, history, format."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.errors import InputFormatError, ParameterError
from rankset.experiments import FORMAT_VERSION, HISTORY_COLUMNS, Store
from rankset.experiments._provenance import git_commit
from rankset.experiments._shared import parse_meta

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
RUNS = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
QRELS = SAMPLE / "qrels.txt"
METRICS = ["ndcg@10", "rr", "judged@10"]


@pytest.fixture(scope="module")
def result() -> rankset.EvaluationResult:
    return rankset.evaluate(RUNS, QRELS, METRICS)


def test_an_entry_is_one_folder_of_parquet_tables(
    tmp_path: Path, result: rankset.EvaluationResult
) -> None:
    store = Store(tmp_path / "store")
    entry = store.log(result, tag="main")
    assert re.fullmatch(r"\d{8}T\d{6}\.\d{6}Z-[0-9a-f]{8}", entry)
    folder = tmp_path / "store" / "entries" / entry
    assert sorted(p.name for p in folder.iterdir()) == [
        "costs.parquet",  # empty: the evaluation had no costs
        "per_query.parquet",
        "query_counts.parquet",
        "runs.parquet",
        "summary.parquet",
    ]
    meta = json.loads((tmp_path / "store" / "store.json").read_text())
    assert meta["format"] == "rankset-store"
    assert meta["format_version"] == FORMAT_VERSION == 1
    # nothing left behind by the write
    assert list((tmp_path / "store" / ".tmp").iterdir()) == []


def test_polars_alone_reads_every_table(tmp_path: Path, result: rankset.EvaluationResult) -> None:
    store = Store(tmp_path)
    first = store.log(result, tag="a")
    second = store.log(result, tag="b")
    per_query = pl.read_parquet(f"{tmp_path}/entries/*/per_query.parquet")
    assert per_query.columns == [
        "entry_id", "system", "query_id", "metric", "measure", "k", "value"
    ]  # fmt: skip
    assert per_query.height == 2 * result.per_query.height == 2 * 2 * 40 * 3
    assert_frame_equal(per_query, store.per_query())
    summary = pl.read_parquet(f"{tmp_path}/entries/*/summary.parquet")
    assert summary.columns == [
        "entry_id", "system", "metric", "mean", "ci_low", "ci_high", "n_queries", "n_na"
    ]  # fmt: skip
    assert_frame_equal(summary, store.summary())
    runs = pl.read_parquet(f"{tmp_path}/entries/*/runs.parquet")
    assert runs["entry_id"].to_list() == [first, first, second, second]
    assert runs["system"].to_list() == ["bm25", "rerank"] * 2
    assert runs["tag"].to_list() == ["a", "a", "b", "b"]
    assert runs["time"].dtype == pl.Datetime("us", "UTC")
    # what went in comes out: the entry's per-query values are evaluate's
    assert_frame_equal(
        per_query.filter(pl.col("entry_id") == first).drop("entry_id"), result.per_query
    )


def test_runs_record_hashes_versions_and_meta(
    tmp_path: Path, result: rankset.EvaluationResult
) -> None:
    import hashlib

    store = Store(tmp_path)
    store.log(result, meta=["model=bm25", "index=v2"])
    runs = store.runs()
    want = [hashlib.sha256(path.read_bytes()).hexdigest() for path in RUNS.values()]
    assert runs["run_hash"].to_list() == want
    assert runs["labels_hash"].unique().to_list() == [
        hashlib.sha256(QRELS.read_bytes()).hexdigest()
    ]
    assert runs["run_source"].to_list() == [str(p) for p in RUNS.values()]
    assert runs["rankset_version"].unique().to_list() == [rankset.__version__]
    assert json.loads(runs["metrics"][0]) == METRICS
    assert json.loads(runs["options"][0])["missing"] == "skip"
    assert json.loads(runs["meta"][0]) == {"index": "v2", "model": "bm25"}
    commit = runs["git_commit"][0]
    assert commit == git_commit()
    assert commit is None or re.fullmatch(r"[0-9a-f]{40}", commit)


def test_git_commit_is_none_outside_a_repository(tmp_path: Path) -> None:
    assert git_commit(tmp_path) is None
    assert git_commit(tmp_path / "missing") is None  # never raises


def test_meta_takes_a_mapping_or_key_value_strings() -> None:
    assert parse_meta({"k": 10, "prompt": "v3"}) == {"k": 10, "prompt": "v3"}
    assert parse_meta(["a=1", "b=x=y"]) == {"a": "1", "b": "x=y"}
    with pytest.raises(ParameterError, match="key=value"):
        parse_meta(["novalue"])
    with pytest.raises(ParameterError, match="JSON values"):
        parse_meta({"f": object()})


def test_history_means_are_evaluates_means(tmp_path: Path) -> None:
    store = Store(tmp_path)
    results = []
    for k, tag in ((10, "main"), (5, "main"), (3, "branch")):
        res = rankset.evaluate(RUNS, QRELS, [f"ndcg@{k}", "rr"])
        store.log(res, tag=tag)
        results.append(res)
    history = store.history()
    assert history.columns == list(HISTORY_COLUMNS)
    assert history.height == 3 * 2 * 2
    assert history["time"].is_sorted()
    assert history["entry_id"].is_sorted()
    for res, (_, part) in zip(
        results, history.group_by("entry_id", maintain_order=True), strict=True
    ):
        # the summary evaluate gave, and the plain mean of its per-query values
        joined = part.join(res.summary, on=["system", "metric"], suffix="_eval")
        assert joined.height == 4
        assert (joined["mean"] == joined["mean_eval"]).all()
        assert (joined["ci_low"] == joined["ci_low_eval"]).all()
        for system, metric, mean in part.select("system", "metric", "mean").rows():
            values = res.per_query.filter(
                (pl.col("system") == system) & (pl.col("metric") == metric)
            )["value"].to_list()
            assert mean == pytest.approx(statistics.fmean(values), abs=1e-12)
    ndcg10 = store.history(metric="NDCG@10")  # any spelling of the metric
    assert ndcg10["metric"].unique().to_list() == ["ndcg@10"]
    assert (
        ndcg10["mean"].to_list()
        == results[0].summary.filter(pl.col("metric") == "ndcg@10")["mean"].to_list()
    )
    assert store.history(tag="branch")["metric"].unique(maintain_order=True).to_list() == [
        "ndcg@3",
        "rr",
    ]
    assert store.history(tag="main", system="rerank").height == 4
    assert store.history(tag="nothing").is_empty()


def test_the_same_evaluation_twice_is_a_second_entry_marked_duplicate(
    tmp_path: Path, result: rankset.EvaluationResult
) -> None:
    store = Store(tmp_path)
    first = store.log(result, tag="main")
    other = store.log(rankset.evaluate(RUNS, QRELS, ["ndcg@5"]), tag="main")
    again = store.evaluate_and_log(RUNS, QRELS, ["ndcg@10", "rr"], tag="release")
    # the same run bytes under another name and in another order of systems is the same
    swapped = store.evaluate_and_log(
        {"new": RUNS["rerank"], "old": RUNS["bm25"]}, QRELS, ["ndcg@10", "rr"]
    )
    runs = store.runs()
    assert runs["entry_id"].to_list() == [
        first,
        first,
        other,
        other,
        again,
        again,
        swapped,
        swapped,
    ]
    assert runs["duplicate_of"].to_list() == [None, None, None, None, first, first, first, first]
    history = store.history(metric="ndcg@10")
    assert history.filter(pl.col("duplicate_of").is_null())["entry_id"].unique().to_list() == [
        first
    ]
    assert store.history(drop_duplicates=True)["entry_id"].unique(
        maintain_order=True
    ).to_list() == [
        first,
        other,
    ]
    # other options are another evaluation
    cut = store.evaluate_and_log(RUNS, QRELS, ["ndcg@10", "rr"], max_depth=5)
    assert store.runs([cut])["duplicate_of"].to_list() == [None, None]


def test_in_memory_runs_are_known_by_their_content(tmp_path: Path) -> None:
    store = Store(tmp_path)
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
    labels = {"q1": {"b": 1}, "q2": {"c": 1}}
    first = store.evaluate_and_log(run, labels, ["rr"], coverage_k=None)
    frame = pl.DataFrame(
        {"query_id": ["q2", "q1", "q1"], "doc_id": ["c", "b", "a"], "score": [1.0, 1.0, 2.0]}
    )
    second = store.evaluate_and_log(frame, labels, ["rr"], coverage_k=None)
    changed = store.evaluate_and_log({**run, "q2": {"d": 1.0}}, labels, ["rr"], coverage_k=None)
    runs = store.runs()
    assert runs["run_source"].to_list() == [
        "<builtins.dict>",
        "<polars.DataFrame>",
        "<builtins.dict>",
    ]
    assert runs["run_hash"][0] == runs["run_hash"][1] != runs["run_hash"][2]
    assert runs["duplicate_of"].to_list() == [None, first, None]
    # a result logged without its sources is known by its per-query values
    res = rankset.evaluate(run, labels, ["rr"])
    bare = store.log(res)
    bare_again = store.log(res)
    dup = store.runs([bare, bare_again])
    assert dup["run_hash"].to_list() == [None, None]
    assert dup["duplicate_of"].to_list() == [None, bare]
    assert second != first != changed


def test_an_entry_comes_back_as_a_result_that_compare_takes(
    tmp_path: Path, result: rankset.EvaluationResult
) -> None:
    store = Store(tmp_path)
    entry = store.log(result, tag="main")
    back = store.result(entry)
    assert_frame_equal(back.per_query, result.per_query)
    assert_frame_equal(back.summary, result.summary)
    assert_frame_equal(back.query_counts, result.query_counts)
    assert back.metrics == result.metrics
    assert back.systems == ["bm25", "rerank"]
    assert back.config["entry_id"] == entry
    assert back.config["tag"] == "main"
    assert store.result(entry[:20]).config["entry_id"] == entry  # a unique prefix will do

    # two entries, one system each, renamed and stacked: compare as if evaluated together
    a = store.log(rankset.evaluate({"x": RUNS["bm25"]}, QRELS, METRICS))
    b = store.log(rankset.evaluate({"x": RUNS["rerank"]}, QRELS, METRICS))
    stacked = pl.concat(
        [store.result(a, name="bm25").per_query, store.result(b, name="rerank").per_query]
    )
    got = rankset.compare(stacked, "bm25", tests=["randomization"], n_resamples=2000)
    want = rankset.compare(result, "bm25", tests=["randomization"], n_resamples=2000)
    assert_frame_equal(got, want)
    one = store.result(entry, system="rerank", name="candidate")
    assert one.systems == ["candidate"]
    assert one.summary["system"].unique().to_list() == ["candidate"]


def test_latest_returns_the_newest_entry_with_a_tag(
    tmp_path: Path, result: rankset.EvaluationResult
) -> None:
    store = Store(tmp_path)
    store.log(result, tag="main")
    newest = store.log(rankset.evaluate(RUNS, QRELS, ["rr"]), tag="main")
    store.log(result, tag="feature")
    latest = store.latest(tag="main")
    assert latest.config["entry_id"] == newest
    assert latest.metrics == ["rr"]
    assert store.latest(tag="main", system="bm25").systems == ["bm25"]
    assert store.latest().config["tag"] == "feature"
    with pytest.raises(ParameterError, match=r"no entry with tag 'mian'.*Did you mean 'main'"):
        store.latest(tag="mian")


def test_unknown_entries_and_tables_are_named(
    tmp_path: Path, result: rankset.EvaluationResult
) -> None:
    store = Store(tmp_path)
    entry = store.log(result)
    store.log(result)
    with pytest.raises(ParameterError, match="has no entry 'nope'"):
        store.result("nope")
    with pytest.raises(ParameterError, match="names 2 entries"):
        store.result(entry[:4])
    with pytest.raises(ParameterError, match="Did you mean 'per_query'"):
        store.scan("per_qeury")
    with pytest.raises(ParameterError, match=r"has no system 'bm26'.*Did you mean 'bm25'"):
        store.result(entry, system="bm26")
    with pytest.raises(ParameterError, match="holds 2 systems"):
        store.result(entry, name="x")
    with pytest.raises(ParameterError, match="must be an EvaluationResult"):
        store.log(result.per_query)  # type: ignore[arg-type]


def test_an_empty_store_reads_as_empty_frames(tmp_path: Path) -> None:
    store = Store(tmp_path / "new")
    assert store.entries() == []
    assert store.history().columns == list(HISTORY_COLUMNS)
    assert store.history().is_empty()
    assert store.per_query().is_empty()
    assert store.runs().is_empty()
    with pytest.raises(ParameterError, match="has no entry"):
        store.latest()


def test_a_newer_format_is_refused_and_an_older_one_read(
    tmp_path: Path, result: rankset.EvaluationResult
) -> None:
    store = Store(tmp_path)
    entry = store.log(result)
    # an older writer that wrote fewer columns: they read as null, nothing breaks
    old = tmp_path / "entries" / "20200101T000000.000000Z-00000000"
    old.mkdir()
    for table in ("summary", "per_query", "query_counts"):
        pl.read_parquet(tmp_path / "entries" / entry / f"{table}.parquet").with_columns(
            entry_id=pl.lit(old.name)
        ).write_parquet(old / f"{table}.parquet")
    pl.read_parquet(tmp_path / "entries" / entry / "runs.parquet").select(
        pl.lit(old.name).alias("entry_id"), "time", "tag", "system", "metrics", "options"
    ).write_parquet(old / "runs.parquet")
    reread = Store(tmp_path)
    assert reread.entries() == [old.name, entry]
    runs = reread.runs()
    assert runs.filter(pl.col("entry_id") == old.name)["meta"].to_list() == [None, None]
    assert runs["duplicate_of"].to_list() == [None] * 4  # no key: never a duplicate
    assert reread.history().height == 2 * result.summary.height
    assert_frame_equal(reread.result(old.name).per_query, result.per_query)

    path = tmp_path / "store.json"
    content = json.loads(path.read_text())
    path.write_text(json.dumps({**content, "format_version": FORMAT_VERSION + 1}))
    with pytest.raises(InputFormatError, match=r"format version 2.*reads format versions up to 1"):
        Store(tmp_path)
    path.write_text(json.dumps({**content, "format": "something-else"}))
    with pytest.raises(InputFormatError, match="does not describe a rankset store"):
        Store(tmp_path)
    path.write_text("{not json")
    with pytest.raises(InputFormatError, match="not valid JSON"):
        Store(tmp_path)


def test_a_folder_that_is_not_a_store_is_not_taken_over(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match="is not a rankset store"):
        Store(tmp_path / "absent", create=False)
    assert not (tmp_path / "absent").exists()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(InputFormatError, match="holds files but is no rankset store"):
        Store(tmp_path / "busy")
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputFormatError, match="is a file"):
        Store(tmp_path / "file")
