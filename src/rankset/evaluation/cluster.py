"""Evaluation on a Dask cluster: the per-bucket kernel run by the workers.

``rankset.evaluate(..., engine="dask", client=client)`` (CLI ``--dask ADDRESS`` or
``--dask local:N``) splits the queries into hash buckets, exactly as the
larger-than-memory mode does (:func:`rankset.evaluation.bucket_of`), and sends one task
per bucket to the cluster. Each task runs :func:`measure_bucket`,
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
    from rankset.evaluation.cluster import connect

    if __name__ == "__main__":
        with connect("local:2") as client:
            result = rankset.evaluate(["bm25.parquet", "rerank.parquet"], "qrels.txt",
                                      ["ndcg@10", "ap"], engine="dask", client=client)
        print(result.summary)
"""

from rankset.evaluation._dask import (
    BUCKETS_PER_THREAD,
    check_workers,
    cluster_for,
    connect,
    measure_on_cluster,
    resolve_client,
)
from rankset.evaluation._kernel import PartialResult
from rankset.evaluation._kernel_api import finish, measure_bucket, measure_tables, plan_evaluation

__all__ = [
    "BUCKETS_PER_THREAD",
    "PartialResult",
    "check_workers",
    "cluster_for",
    "connect",
    "finish",
    "measure_bucket",
    "measure_on_cluster",
    "measure_tables",
    "plan_evaluation",
    "resolve_client",
]
