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
    from rankset.evaluation import Partition, _Prepared

__all__ = ["connect", "default_buckets", "measure_on_cluster", "resolve_client"]

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


def default_buckets(client: Any) -> int:
    """Return the bucket count used when none is given: four per worker thread.

    More buckets than threads balance the load (queries differ in length) and bound
    each task's memory; with runs much larger than the workers' memory, pass a larger
    ``buckets=`` (a task holds about ``1/buckets`` of the runs' rows).
    """
    return BUCKETS_PER_THREAD * check_workers(client)


def _measure_bucket(bucket: int, prepared: _Prepared, buckets: int, keep_rows: bool) -> Partition:
    """Run the kernel over one bucket of queries: the task of each worker."""
    from rankset.evaluation import measure_partition

    return measure_partition(prepared, (bucket, buckets), keep_rows=keep_rows)


def measure_on_cluster(prepared: _Prepared, *, keep_rows: bool = False) -> list[Partition]:
    """Run the kernel once per bucket on the cluster; return the partitions in order."""
    client = resolve_client(prepared.client)
    check_workers(client)
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
