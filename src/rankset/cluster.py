"""Evaluation on a Dask cluster: the per-bucket kernel run by the workers.

``rankset.evaluate(..., engine="dask", client=client)`` (CLI ``--dask ADDRESS`` or
``--dask local:N``) splits the queries into hash buckets, exactly as the
larger-than-memory mode does (:func:`rankset.evaluation.bucket_of`), and sends one task
per bucket to the cluster. Each task runs :func:`rankset.evaluation.measure_partition`,
the kernel the single-machine evaluation runs too, over its own queries: it reads its
rows itself (Parquet files, or its bucket's folder of a :func:`rankset.partition`
dataset) and returns small frames, one row per (system, query). The client merges them
and finishes as on one machine, so every value is bit-identical to a single-machine
evaluation.

Requirements, checked before any task is sent:

- every worker runs the same Polars and rankset versions as the client (the bucket of a
  query is Polars' seeded hash of its id, stable within one Polars version);
- the paths of file inputs are readable by the workers (a shared file system, or the
  same paths on every machine). In-memory inputs and text files are parsed on the
  client and sent to every worker once: fine for labels, slow for large runs, which
  belong in Parquet (``rankset partition`` writes a bucketed dataset once).

A script that starts a local cluster must do it under ``if __name__ == "__main__":``:
worker processes are started by re-importing the script (Python's ``spawn``), and
without the guard each would try to start a cluster of its own.

Examples
--------
A two-worker local cluster (started and closed by :func:`connect`)::

    import rankset
    from rankset.cluster import connect

    if __name__ == "__main__":
        with connect("local:2") as client:
            result = rankset.evaluate(["bm25.parquet", "rerank.parquet"], "qrels.txt",
                                      ["ndcg@10", "ap"], engine="dask", client=client)
        print(result.summary)
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset.errors import ClusterError, MissingDependencyError, ParameterError

if TYPE_CHECKING:
    from rankset.evaluation import EvaluationResult, Partition, _Prepared

__all__ = [
    "BUCKETS_PER_THREAD",
    "cluster_for",
    "connect",
    "finish",
    "measure_bucket",
    "measure_on_cluster",
    "measure_tables",
    "plan_evaluation",
    "resolve_client",
]

_EXTRA_HINT = "pip install 'rankset[dask]'"
#: Buckets per worker thread when neither ``buckets=`` nor a dataset gives a count.
BUCKETS_PER_THREAD = 4


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        msg = f"engine='dask' needs Dask's distributed scheduler: {_EXTRA_HINT}"
        raise MissingDependencyError(msg) from None
    return distributed


def resolve_client(client: Any) -> Any:
    """Return ``client``, or the current Dask client when it is None.

    Raises
    ------
    ParameterError
        No client was given and none is current.
    """
    distributed = _distributed()
    if client is not None:
        if not isinstance(client, distributed.Client):
            msg = (
                "The 'client' parameter must be a dask.distributed.Client. "
                f"Got {type(client).__name__} instead."
            )
            raise ParameterError(msg)
        return client
    try:
        return distributed.get_client()
    except ValueError:
        msg = (
            "engine='dask' needs a Dask client: pass client=Client(...) or start one first "
            "(rankset.cluster.connect('local:2') for a local cluster)."
        )
        raise ParameterError(msg) from None


def _environment() -> dict[str, str]:
    """Return what must agree between the client and every worker."""
    from rankset import __version__

    return {
        "python": ".".join(map(str, sys.version_info[:2])),
        "polars": pl.__version__,
        "rankset": __version__,
    }


def check_workers(client: Any) -> int:
    """Check that the cluster has workers like the client; return their thread count.

    Raises
    ------
    ClusterError
        No worker is connected, or a worker's Python, Polars or rankset version differs
        from the client's (buckets would then differ between machines).
    """
    threads = client.nthreads()
    if not threads:
        msg = f"The Dask cluster at {client.scheduler.address} has no worker."
        raise ClusterError(msg)
    here = _environment()
    for worker, there in sorted(client.run(_environment).items()):
        differing = [
            f"{key} {there.get(key)} (client {value})"
            for key, value in here.items()
            if there.get(key) != value
        ]
        if differing:
            msg = (
                f"Worker {worker} runs {', '.join(differing)}. Every worker needs the "
                "client's Python, Polars and rankset versions: the bucket of a query is "
                "Polars' hash of its id, and the values must be the client's to the bit."
            )
            raise ClusterError(msg)
    return int(sum(threads.values()))


def cluster_for(client: Any, buckets: int | None) -> tuple[Any, int]:
    """Resolve the client, check its workers once, and settle the bucket count.

    Without ``buckets`` (nor a dataset's count): four per worker thread. More buckets
    than threads balance the load (queries differ in length) and bound each task's
    memory; with runs much larger than the workers' memory, pass a larger ``buckets=``
    (a task holds about ``1/buckets`` of the runs' rows).
    """
    client = resolve_client(client)
    threads = check_workers(client)
    return client, buckets or BUCKETS_PER_THREAD * threads


def _measure_bucket(bucket: int, prepared: _Prepared, buckets: int, keep_rows: bool) -> Partition:
    """Run the kernel over one bucket of queries: the task of each worker."""
    from rankset.evaluation import measure_partition

    return measure_partition(prepared, (bucket, buckets), keep_rows=keep_rows)


# --- the kernel, for any engine --------------------------------------------------------


def plan_evaluation(
    runs: Any,
    labels: Any = None,
    metrics: Any = None,
    **options: Any,
) -> _Prepared:
    """Plan an evaluation for another engine to run: an opaque, picklable plan.

    Takes :func:`rankset.evaluate`'s arguments (not ``engine="dask"``). Inputs are read
    lazily: Parquet files are only opened by :func:`measure_bucket`, wherever it runs.
    Give ``buckets=N`` to measure by bucket; send the plan to the workers once.

    Examples
    --------
    >>> from rankset.cluster import finish, measure_bucket, plan_evaluation
    >>> run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}, "q3": {"d": 1.0}}
    >>> labels = {"q1": {"b": 1}, "q2": {"c": 1}, "q3": {"e": 1}}
    >>> plan = plan_evaluation(run, labels, ["rr"], buckets=2)
    >>> parts = [measure_bucket(plan, bucket) for bucket in range(2)]  # e.g. on workers
    >>> finish(plan, parts, confidence=None).summary["mean"].item()
    0.5
    """
    from rankset.evaluation import DEFAULT_METRICS, _prepare, evaluate_options
    from rankset.registry import parse_metrics

    settings = evaluate_options(options, "plan_evaluation")
    if settings["engine"] == "dask" or settings["client"] is not None:
        msg = "plan_evaluation() plans for another engine: leave engine='dask' and client out."
        raise ParameterError(msg)
    return _prepare(runs, labels, parse_metrics(metrics or DEFAULT_METRICS), **settings)


def measure_bucket(plan: _Prepared, bucket: int) -> Partition:
    """Measure the queries of one bucket of a plan made with ``buckets=N``.

    The task reads its own rows (a dataset's bucket folder, or the Parquet files
    filtered by :func:`rankset.evaluation.bucket_of`) and returns small frames.
    """
    from rankset.evaluation import measure_partition

    buckets = plan.settings["buckets"]
    if buckets is None:
        msg = "measure_bucket() needs a plan made with buckets=N (plan_evaluation)."
        raise ParameterError(msg)
    if not isinstance(bucket, int) or not 0 <= bucket < buckets:
        msg = f"The bucket must be an int in 0..{buckets - 1}; got {bucket!r}."
        raise ParameterError(msg)
    return measure_partition(plan, (bucket, buckets))


def measure_tables(
    plan: _Prepared,
    runs: Any,
    labels: Any,
    *,
    pool: Any = None,
    answers: Any = None,
) -> Partition:
    """Measure whole queries handed over as tables (Arrow, Polars or pandas).

    For engines that do the shuffle themselves (Spark's ``cogroup(...).applyInArrow``,
    Ray Data's ``groupby(...).map_groups``): ``runs`` holds every run row of some
    queries (``system, query_id, doc_id`` and ``score`` and/or ``rank``), ``labels`` all
    their labels, ``pool`` and ``answers`` their pool rows and answers when the plan
    has a pool or containment metrics. A query must not be split between calls.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from rankset.cluster import finish, measure_tables, plan_evaluation
    >>> plan = plan_evaluation({"q1": {"a": 1.0}}, {"q1": {"a": 1}}, ["rr"])
    >>> run = pa.table({"system": ["s", "s"], "query_id": ["q1", "q1"],
    ...                 "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> labels = pa.table({"query_id": ["q1"], "doc_id": ["a"], "grade": [1]})
    >>> finish(plan, [measure_tables(plan, run, labels)], confidence=None).wide()
    shape: (1, 3)
    ┌────────┬──────────┬─────┐
    │ system ┆ query_id ┆ rr  │
    │ ---    ┆ ---      ┆ --- │
    │ str    ┆ str      ┆ f64 │
    ╞════════╪══════════╪═════╡
    │ s      ┆ q1       ┆ 0.5 │
    └────────┴──────────┴─────┘
    """
    from rankset import io as rio
    from rankset.evaluation import (
        _answer_positions,
        _pool_tier_counts,
        answer_rows,
        measure_partition,
    )
    from rankset.run_pass import RunPart, Runs
    from rankset.schema import normalize_labels

    run = rio.read_run(runs)
    unnamed = run.select(pl.col("system").null_count()).collect().item()
    if unnamed:
        msg = (
            "measure_tables(): the runs table needs a 'system' column naming the system of "
            f"every row ({unnamed} rows have none)."
        )
        raise ParameterError(msg)
    order = plan.settings["order"]
    scored = [part.has_scores for part in plan.runs.inputs]
    if order == "auto" and len(set(scored)) > 1:
        msg = (
            "measure_tables(): the plan mixes runs with and without scores; plan it with "
            "order='score' or order='rank'."
        )
        raise ParameterError(msg)
    has_scores = order != "rank" and (scored[0] if order == "auto" else True)
    tables = Runs(
        inputs=[RunPart(run, "<runs table>", has_scores, None)],
        order=order,
        duplicates=plan.runs.duplicates,
    )
    label_frame = normalize_labels(rio.read_labels(labels), source="<labels table>")
    pools = plan.pools
    if (pools is None) != (pool is None):
        need = "has no pool: leave pool out" if pools is None else "has a pool: pass its rows"
        raise ParameterError(f"measure_tables(): the plan {need}.")
    if pools is not None:
        pool_source = dict(pool) if pools.by_system else pool
        pools = _pool_tier_counts(
            plan.plan, pool_source, label_frame, order=order, depth=plan.settings["pool_depth"]
        )
    answer_frame = answer_positions = None
    if plan.answers is not None:
        if answers is None:
            msg = "measure_tables(): the plan has containment metrics: pass answers."
            raise ParameterError(msg)
        answer_frame = answer_rows(rio.read_answers(answers))
        answer_positions = _answer_positions(plan.plan, tables, answer_frame)
    part_plan = dataclasses.replace(
        plan,
        runs=tables,
        labels=label_frame,
        pools=pools,
        answers=answer_frame,
        answer_positions=answer_positions,
        dataset_labels=None,
    )
    return measure_partition(part_plan, None)


def finish(
    plan: _Prepared,
    parts: Any,
    *,
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> EvaluationResult:
    """Merge the measured partitions and finish as :func:`rankset.evaluate` does.

    Raises
    ------
    ClusterError
        A bucket is missing or repeated, or a query was split between partitions.
    """
    from rankset.evaluation import _check_resampling, _finish, _result, merge_partitions

    _check_resampling(confidence, n_resamples, seed)
    collected = _finish(plan, merge_partitions(list(parts)))
    return _result(plan, collected, confidence=confidence, n_resamples=n_resamples, seed=seed)


# --- on Dask ---------------------------------------------------------------------------


def measure_on_cluster(prepared: _Prepared, *, keep_rows: bool = False) -> list[Partition]:
    """Run the kernel once per bucket on the cluster; return the partitions in order."""
    client = prepared.client  # resolved and checked when the plan was made (cluster_for)
    buckets = prepared.settings["buckets"]
    # The plan travels once to every worker; the client itself stays here.
    [plan] = client.scatter([dataclasses.replace(prepared, client=None)], broadcast=True)
    futures = client.map(
        _measure_bucket,
        range(buckets),
        prepared=plan,
        buckets=buckets,
        keep_rows=keep_rows,
        pure=False,
    )
    try:
        parts: list[Partition] = client.gather(futures)
    finally:
        client.cancel([*futures, plan])
    return parts


def _parse_address(address: str) -> tuple[str, int | None]:
    """``"local"``/``"local:N"`` → ("local", N); anything else is a scheduler address."""
    if address == "local" or address.startswith("local:"):
        count = address.partition(":")[2]
        if count and (not count.isdigit() or int(count) < 1):
            msg = f"--dask local:N needs a positive worker count N; got {address!r}."
            raise ParameterError(msg)
        return "local", int(count) if count else None
    return address, None


@contextmanager
def connect(address: str) -> Iterator[Any]:
    """Open a Dask client, closed on exit: a scheduler address or ``"local:N"``.

    ``"local:N"`` starts a local cluster of N worker processes with one thread each
    (``"local"``: one per core), each with its Polars thread pool sized to its share of
    the cores; ``"tcp://host:8786"`` connects to a running scheduler.

    Examples
    --------
    >>> from rankset.cluster import _parse_address
    >>> _parse_address("local:2"), _parse_address("tcp://10.0.0.5:8786")
    (('local', 2), ('tcp://10.0.0.5:8786', None))
    """
    target, n_workers = _parse_address(address)
    distributed = _distributed()
    if target != "local":
        with distributed.Client(target) as client:
            yield client
        return
    if (
        multiprocessing.parent_process() is not None
        and getattr(sys.modules.get("__main__"), "__name__", "") == "__mp_main__"
    ):
        msg = (
            "A local Dask cluster was started while a worker process was starting: start "
            'it under `if __name__ == "__main__":` in the script.'
        )
        raise ClusterError(msg)
    cores = os.cpu_count() or 1
    n_workers = n_workers or cores
    polars_threads = max(1, math.floor(cores / n_workers))
    with (
        distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: never clashes with another cluster
            env={"POLARS_MAX_THREADS": str(polars_threads)},
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
