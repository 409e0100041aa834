"""The Dask executor: the per-bucket kernel run as one task per bucket on a cluster.

Before any task is sent, every worker must run the client's Python, Polars and rankset
versions (the bucket of a query is Polars' seeded hash of its id, stable within one
Polars version), else a :class:`~rankset.errors.ClusterError` names the worker that
differs. ``distributed`` is imported only when a cluster is used.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl

from rankset._dependencies import import_optional
from rankset._version import __version__
from rankset.errors import ClusterError, ParameterError
from rankset.evaluation._kernel import PartialResult, measure_queries
from rankset.evaluation._plan import EvaluationPlan

__all__ = [
    "BUCKETS_PER_THREAD",
    "check_workers",
    "cluster_for",
    "connect",
    "measure_on_cluster",
    "resolve_client",
]

#: Buckets per worker thread when neither ``buckets=`` nor a dataset gives a count.
BUCKETS_PER_THREAD = 4


def _distributed() -> Any:
    return import_optional("distributed", extra="dask", purpose="engine='dask'")


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
            "(rankset.evaluation.cluster.connect('local:2') for a local cluster)."
        )
        raise ParameterError(msg) from None


def _environment() -> dict[str, str]:
    """Return what must agree between the client and every worker."""
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


def _measure_bucket(
    bucket: int, plan: EvaluationPlan, buckets: int, keep_rows: bool
) -> PartialResult:
    """Run the kernel over one bucket of queries: the task of each worker."""
    return measure_queries(plan, (bucket, buckets), keep_rows=keep_rows)


def measure_on_cluster(plan: EvaluationPlan, *, keep_rows: bool = False) -> list[PartialResult]:
    """Run the kernel once per bucket on the cluster; return the results in bucket order."""
    client = plan.client  # resolved and checked when the plan was made (cluster_for)
    buckets = plan.buckets
    if buckets is None:  # settled by on_cluster before a plan reaches here
        msg = "A plan for a Dask cluster needs its bucket count."
        raise ClusterError(msg)
    # The plan travels once to every worker; the client itself stays here.
    [sent] = client.scatter([dataclasses.replace(plan, client=None)], broadcast=True)
    futures = client.map(
        _measure_bucket,
        range(buckets),
        plan=sent,
        buckets=buckets,
        keep_rows=keep_rows,
        pure=False,
    )
    try:
        parts: list[PartialResult] = client.gather(futures)
    finally:
        client.cancel([*futures, sent])
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
    >>> from rankset.evaluation._dask import _parse_address
    >>> _parse_address("local:2"), _parse_address("tcp://10.0.0.5:8786")
    (('local', 2), ('tcp://10.0.0.5:8786', None))
    """
    target, n_workers = _parse_address(address)
    distributed = _distributed()
    if target != "local":
        try:
            client = distributed.Client(target)
        except (ValueError, TypeError) as error:  # a malformed address, not a refusal
            msg = f"--dask {address!r} is not a scheduler address ({error})."
            raise ParameterError(msg) from None
        with client:
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
