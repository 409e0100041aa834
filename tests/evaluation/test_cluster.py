"""Evaluation on a real local Dask cluster (two worker processes).

Per-query values, summaries and query counts must equal the single-machine evaluation
exactly (``DataFrame.equals``: same bits, same nulls), for classic and RAG metrics,
several systems, a separate pool, both query policies and every input kind the cluster
reads (Parquet files read by the workers, a partitioned dataset, in-memory frames).
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl
import pytest

import rankset

distributed = pytest.importorskip("distributed", reason="needs the rankset[dask] extra")

from rankset.cli import main  # noqa: E402
from rankset.evaluation import _dask as dask_executor  # noqa: E402
from rankset.evaluation import cluster  # noqa: E402  (after the skip: needs distributed)

# starts a Dask cluster: the fast lane (-m 'not slow') leaves it out
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
QRELS = SAMPLE / "qrels.txt"
METRICS = [
    "ndcg@10",
    "ap",
    "rr",
    "recall@100",
    "P@10",
    "bpref",
    "num_ret",
    "ra_nwg@5",
    "proc@10",
    "pct_proc@10",
    "n_recall_4plus@10",
    "harm(unjudged=1)@5",
]


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with cluster.connect("local:2") as dask_client:
        yield dask_client


@pytest.fixture(scope="module")
def parquet_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three systems as Parquet files: bm25, rerank and a third with shuffled ties."""
    folder = tmp_path_factory.mktemp("runs")
    paths = []
    for name in ("bm25", "rerank"):
        frame = rankset.io.scan_run(SAMPLE / f"{name}.trec").collect()
        paths.append(folder / f"{name}.parquet")
        frame.write_parquet(paths[-1])
    # A third system: bm25 with scores rounded to one decimal (many ties), rows reversed.
    tied = (
        rankset.io.scan_run(SAMPLE / "bm25.trec")
        .collect()
        .with_columns(pl.col("score").round(1), system=pl.lit("tied"))
        .reverse()
    )
    paths.append(folder / "tied.parquet")
    tied.write_parquet(paths[-1])
    return paths


def _both(runs: Any, labels: Any, client: Any, **options: Any) -> tuple[Any, Any]:
    single = rankset.evaluate(runs, labels, METRICS, scale="trec_dl", **options)
    on_cluster = rankset.evaluate(
        runs, labels, METRICS, scale="trec_dl", engine="dask", client=client, **options
    )
    return single, on_cluster


def _assert_same(single: rankset.EvaluationResult, other: rankset.EvaluationResult) -> None:
    assert single.per_query.height > 0
    assert other.per_query.equals(single.per_query)
    assert other.summary.equals(single.summary)
    assert other.query_counts.equals(single.query_counts)


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_cluster_equals_single_machine_with_a_pool(
    client: Any, parquet_runs: list[Path], missing: str
) -> None:
    pool = parquet_runs[0]
    with distributed.get_task_stream(client) as stream:
        single, on_cluster = _both(
            [str(p) for p in parquet_runs], QRELS, client, pool=str(pool), missing=missing
        )
    _assert_same(single, on_cluster)
    assert on_cluster.systems == ["bm25", "rerank", "tied"]
    assert on_cluster.config["engine"] == "dask"
    buckets = on_cluster.config["buckets"]
    assert buckets == cluster.BUCKETS_PER_THREAD * 2  # two workers, one thread each
    # Every bucket was measured by a task on a worker of this cluster.
    tasks = [t for t in stream.data if t["key"].startswith("_measure_bucket")]
    assert len(tasks) == buckets
    assert {t["worker"] for t in tasks} <= set(client.nthreads())


def test_cluster_reads_a_partitioned_dataset(
    client: Any, parquet_runs: list[Path], tmp_path: Path
) -> None:
    dataset = rankset.partition([str(p) for p in parquet_runs], QRELS, tmp_path / "ds", buckets=5)
    single = rankset.evaluate(
        [str(p) for p in parquet_runs], QRELS, METRICS, scale="trec_dl", missing="zero"
    )
    on_cluster = rankset.evaluate(
        dataset, None, METRICS, scale="trec_dl", missing="zero", engine="dask", client=client
    )
    assert on_cluster.config["buckets"] == 5  # the dataset's own count
    assert on_cluster.per_query.equals(single.per_query)
    assert on_cluster.summary.equals(single.summary)


def test_cluster_with_in_memory_inputs_and_a_pool_per_system(client: Any) -> None:
    runs = {
        "bm25": rankset.io.scan_run(SAMPLE / "bm25.trec").collect(),
        "rerank": SAMPLE / "rerank.trec",  # a text file: parsed here, sent to the workers
    }
    labels = rankset.io.scan_labels(QRELS).collect()
    pools = {"rerank": SAMPLE / "bm25.trec"}
    single, on_cluster = _both(runs, labels, client, pool=pools, pool_depth=50, buckets=3)
    _assert_same(single, on_cluster)
    assert on_cluster.config["buckets"] == 3


def test_curves_on_the_cluster_equal_single_machine(client: Any, parquet_runs: list[Path]) -> None:
    runs = [str(p) for p in parquet_runs]
    single = rankset.curves(runs, QRELS, ["ndcg", "ra_nwg"], ks=15, scale="trec_dl")
    on_cluster = rankset.curves(
        runs, QRELS, ["ndcg", "ra_nwg"], ks=15, scale="trec_dl", engine="dask", client=client
    )
    assert single.per_query.height > 0
    assert on_cluster.per_query.equals(single.per_query)


def test_errors_on_the_workers_reach_the_caller(client: Any, tmp_path: Path) -> None:
    labels = tmp_path / "qrels.txt"
    labels.write_text("q1 0 d1 1\nq1 0 d1 2\n", encoding="utf-8")
    run = {"q1": {"d1": 1.0}}
    with pytest.raises(rankset.SchemaError, match=r"qrels\.txt.*d1"):
        rankset.evaluate(run, labels, ["ap"], engine="dask", client=client)


def test_check_workers_refuses_other_versions() -> None:
    here = dask_executor._environment()
    other = {**here, "polars": "0.0.1"}
    fake = SimpleNamespace(
        nthreads=lambda: {"tcp://w1": 1, "tcp://w2": 1},
        run=lambda function: {"tcp://w1": here, "tcp://w2": other},
        scheduler=SimpleNamespace(address="tcp://s"),
    )
    with pytest.raises(rankset.ClusterError, match=r"tcp://w2 runs polars 0\.0\.1"):
        cluster.check_workers(fake)
    fake.run = lambda function: {"tcp://w1": here, "tcp://w2": here}
    assert cluster.check_workers(fake) == 2
    fake.nthreads = dict
    with pytest.raises(rankset.ClusterError, match="no worker"):
        cluster.check_workers(fake)


def test_a_client_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_client() -> None:
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", no_client)
    with pytest.raises(rankset.ParameterError, match="needs a Dask client"):
        cluster.resolve_client(None)
    with pytest.raises(rankset.ParameterError, match=r"must be a dask\.distributed\.Client"):
        cluster.resolve_client("tcp://host:8786")


@pytest.mark.parametrize("address", ["local:0", "local:two", "local:-1"])
def test_bad_local_addresses(address: str) -> None:
    with (
        pytest.raises(rankset.ParameterError, match="positive worker count"),
        cluster.connect(address),
    ):
        pass


def test_a_local_cluster_started_by_a_worker_bootstrap_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What a script without the __main__ guard does in each spawned worker process.
    monkeypatch.setattr(multiprocessing, "parent_process", lambda: object())
    monkeypatch.setattr(sys.modules["__main__"], "__name__", "__mp_main__")
    with (
        pytest.raises(rankset.ClusterError, match='if __name__ == "__main__"'),
        cluster.connect("local:1"),
    ):
        pass


def test_cli_dask_local(parquet_runs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(p) for p in parquet_runs[:2]]
    common = ["evaluate", *args, "--qrels", str(QRELS), "-m", "ndcg@10", "-m", "ap", "--json"]
    assert main(common) == 0
    single = capsys.readouterr().out
    assert main([*common, "--dask", "local:2"]) == 0
    assert capsys.readouterr().out == single
    assert main([*common, "--dask", "local:2", "--engine", "in-memory"]) == 2
    assert "--dask" in capsys.readouterr().err


def test_parquet_globs_and_folders(parquet_runs: list[Path], tmp_path: Path) -> None:
    frame = pl.read_parquet(parquet_runs[0])
    folder = tmp_path / "bm25"
    folder.mkdir()
    half = frame.height // 2
    frame.head(half).write_parquet(folder / "part-0.parquet")
    frame.tail(frame.height - half).write_parquet(folder / "part-1.parquet")
    expected = rankset.evaluate(parquet_runs[0], QRELS, ["ap", "ndcg@10"]).per_query
    by_glob = rankset.evaluate(str(folder / "part-*.parquet"), QRELS, ["ap", "ndcg@10"])
    by_folder = rankset.evaluate(folder, QRELS, ["ap", "ndcg@10"])
    assert by_glob.per_query.equals(expected)
    assert by_folder.per_query.equals(expected)
    with pytest.raises(rankset.InputFormatError, match="no file matches"):
        rankset.io.scan_run(str(tmp_path / "none" / "*.parquet"))
    (folder / "notes.trec").write_text("q 0 d 1 1 x\n", encoding="utf-8")
    with pytest.raises(rankset.InputFormatError, match="Parquet files only"):
        rankset.io.scan_run(str(folder / "*"))
