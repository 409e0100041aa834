"""Time the significance machinery: 7,000 queries x 5 systems x 3 metrics, 10,000 resamples.

    python benchmarks/bench_compare.py [--queries 200000] [--repeats 3]

Synthetic per-query values (seeded). Prints the best of three wall times for the shared
sign-matrix randomization core, the same one comparison at a time, and full compare()
calls (bootstrap CIs of the deltas included), then the process's peak RSS. Not a test:
numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

from rankset.comparison.pairwise import compare
from rankset.stats.paired import paired_randomization_tests

N_QUERIES = 7_000  # the default of --queries
SYSTEMS = ["s0", "s1", "s2", "s3", "s4"]
METRICS = ["ndcg@10", "ap", "harm@5"]
N_RESAMPLES = 10_000


def best_of(run: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return min(times), out


def per_query_frame(rng: np.random.Generator, n_queries: int) -> pl.DataFrame:
    queries = [f"q{i:06d}" for i in range(n_queries)]
    frames = []
    for metric in METRICS:
        base = rng.random(n_queries)
        for j, system in enumerate(SYSTEMS):
            values = np.clip(base + rng.normal(0.005 * j, 0.15, n_queries), 0, 1).round(3)
            frames.append(
                pl.DataFrame(
                    {"system": system, "query_id": queries, "metric": metric, "value": values}
                )
            )
    return pl.concat(frames)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=N_QUERIES)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many calls")
    args = parser.parse_args(argv)
    n_queries, repeats = args.queries, args.repeats
    rng = np.random.default_rng(0)
    frame = per_query_frame(rng, n_queries)
    print(f"{n_queries:,} queries x {len(SYSTEMS)} systems x {len(METRICS)} metrics")
    comparisons = (len(SYSTEMS) - 1) * len(METRICS)
    diffs = rng.normal(0.01, 0.2, size=(n_queries, comparisons))
    seconds, _ = best_of(
        lambda: paired_randomization_tests(diffs, n_resamples=N_RESAMPLES), repeats
    )
    print(f"randomization, {comparisons} comparisons at once: {seconds:.3f} s")
    seconds, _ = best_of(
        lambda: [
            paired_randomization_tests(diffs[:, [j]], n_resamples=N_RESAMPLES)
            for j in range(comparisons)
        ],
        repeats,
    )
    print(f"randomization, one comparison at a time: {seconds:.3f} s")
    seconds, out = best_of(
        lambda: compare(frame, "s0", tests=("randomization",), n_resamples=N_RESAMPLES),
        repeats,
    )
    print(f"compare(randomization) with bootstrap CIs: {seconds:.3f} s ({out.height} rows)")
    seconds, out = best_of(lambda: compare(frame, "s0", n_resamples=N_RESAMPLES), repeats)
    print(
        f"compare(randomization, t, wilcoxon) with bootstrap CIs: {seconds:.3f} s "
        f"({out.height} rows)"
    )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the process: {peak_mb:,.0f} MB")


if __name__ == "__main__":
    main()
