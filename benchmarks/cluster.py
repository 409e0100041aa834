"""Single machine versus a local Dask cluster on the same Parquet workload.

    python benchmarks/generate.py --size large --out /tmp/rankset-bench/large
    python benchmarks/cluster.py --data /tmp/rankset-bench/large [--workers 2] [--repeats 2]

Modes, each a fresh process (A B C D, then D C B A, ... ``--repeats`` times):

``single``
    ``rankset.evaluate(run.parquet, qrels.parquet)`` in one process.
``single_buckets``
    The same with ``buckets=`` the cluster's bucket count (the larger-than-memory mode).
``dask``
    ``engine="dask"`` on a local cluster of ``--workers`` processes (one thread each):
    every worker reads its buckets' rows from ``run.parquet`` itself.
``dask_dataset``
    The same on a dataset written once by ``rankset.partition`` (timed separately):
    each task opens only its bucket's folder.

Metrics: ndcg@10, AP, RR, recall@100, P@10, ra_nwg@5/10, proc@5/10 (scale trec_dl), no
confidence intervals. Reported per mode (medians): wall time of the evaluation (cluster
start-up apart), throughput in run rows per second, the client's peak RSS and the largest
worker peak RSS (``getrusage`` in each worker after the evaluation). Every mode's
per-query frame must equal the ``single`` one exactly; the script fails otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

METRICS = [
    "ndcg@10",
    "ap",
    "rr",
    "recall@100",
    "precision@10",
    "ra_nwg@5",
    "ra_nwg@10",
    "proc@5",
    "proc@10",
]
MODES = ["single", "single_buckets", "dask", "dask_dataset"]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(mode: str, data: Path, workers: int, out: Path) -> dict[str, Any]:
    """Run one mode in this process; return its measurements."""
    import rankset
    from rankset.evaluation.cluster import BUCKETS_PER_THREAD, connect

    buckets = BUCKETS_PER_THREAD * workers
    options: dict[str, Any] = {"scale": "trec_dl", "confidence": None}
    source: Any = data / "run.parquet"
    labels: Any = data / "qrels.parquet"
    record: dict[str, Any] = {"mode": mode}
    if mode.startswith("dask"):
        if mode == "dask_dataset":
            source, labels = data / "dataset", None
        started = time.perf_counter()
        with connect(f"local:{workers}") as client:
            record["startup_s"] = time.perf_counter() - started
            begin = time.perf_counter()
            result = rankset.evaluate(
                source, labels, METRICS, engine="dask", client=client, **options
            )
            record["wall_s"] = time.perf_counter() - begin
            peaks = client.run(_peak_mb)
            record["worker_peak_mb"] = max(peaks.values())
    else:
        if mode == "single_buckets":
            options["buckets"] = buckets
        begin = time.perf_counter()
        result = rankset.evaluate(source, labels, METRICS, **options)
        record["wall_s"] = time.perf_counter() - begin
    record["client_peak_mb"] = _peak_mb()
    record["buckets"] = result.config["buckets"]
    result.per_query.write_parquet(out)
    return record


def _run_mode(mode: str, data: Path, workers: int, out: Path) -> dict[str, Any]:
    command = [sys.executable, __file__, "--worker", mode, "--data", str(data)]
    command += ["--workers", str(workers), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.data, args.workers, args.out)))
        return

    import polars as pl

    import rankset

    rows = pl.scan_parquet(args.data / "run.parquet").select(pl.len()).collect().item()
    dataset = args.data / "dataset"
    if not dataset.exists():
        began = time.perf_counter()
        rankset.partition(
            args.data / "run.parquet",
            args.data / "qrels.parquet",
            dataset,
            buckets=4 * args.workers,
        )
        print(f"partition: {time.perf_counter() - began:.1f} s (once)")
    scratch = Path(tempfile.mkdtemp(prefix="rankset-cluster-"))
    records: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    try:
        for repeat in range(args.repeats):
            for mode in MODES if repeat % 2 == 0 else MODES[::-1]:
                out = scratch / f"{mode}.parquet"
                records[mode].append(_run_mode(mode, args.data, args.workers, out))
            reference = pl.read_parquet(scratch / "single.parquet")
            for mode in MODES[1:]:
                if not pl.read_parquet(scratch / f"{mode}.parquet").equals(reference):
                    raise SystemExit(f"{mode}: per-query values differ from the single run")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(
        f"{rows:,} run rows, {args.workers} workers, {os.cpu_count()} cores; medians of "
        f"{args.repeats}; per-query values identical in every mode"
    )
    print(
        f"{'mode':<16}{'buckets':>8}{'wall s':>8}{'Mrows/s':>9}{'client MB':>11}"
        f"{'worker MB':>11}{'start s':>9}"
    )
    summary = {}
    for mode, items in records.items():

        def med(key: str, items: list[dict[str, Any]] = items) -> float | None:
            values = [item[key] for item in items if key in item]
            return statistics.median(values) if values else None

        wall = med("wall_s")
        assert wall is not None
        summary[mode] = {
            "buckets": items[0]["buckets"],
            "wall_s": wall,
            "rows_per_s": rows / wall,
            "client_peak_mb": med("client_peak_mb"),
            "worker_peak_mb": med("worker_peak_mb"),
            "startup_s": med("startup_s"),
        }
        worker_mb = summary[mode]["worker_peak_mb"]
        startup = summary[mode]["startup_s"]
        print(
            f"{mode:<16}{items[0]['buckets']!s:>8}{wall:>8.2f}{rows / wall / 1e6:>9.2f}"
            f"{summary[mode]['client_peak_mb']:>11.0f}"
            f"{'' if worker_mb is None else f'{worker_mb:.0f}':>11}"
            f"{'' if startup is None else f'{startup:.2f}':>9}"
        )
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "modes": summary}, indent=2) + "\n")


if __name__ == "__main__":
    main()
