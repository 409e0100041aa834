"""Time the all-pairs tests: 20 systems x 7,000 queries x 3 metrics, 10,000 permutations.

    python benchmarks/many_systems.py [--systems 20] [--queries 7000] [--resamples 10000]

Synthetic per-query values (seeded: a per-query difficulty shared by the systems, a small
effect per system, noise). Times, once each (they are long):

- the randomised Tukey HSD core alone (the three metrics share the permutations);
- compare_all(tests=["randomized_tukey"]): the same test plus every pair's bootstrap
  interval of the difference and of the effect size, 10,000 resamples each;
- compare_all(tests=["tukey"]) and compare_all(tests=["randomization"]) (the paired
  sign-flip test, Holm over every pair and metric);

then the process's peak RSS. Not a test: numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
import polars as pl

from rankset.comparison.all_pairs import compare_all
from rankset.stats.multiple import randomized_tukey_hsd

METRICS = ["ndcg@10", "ap", "recall@100"]


def per_query_frame(n_systems: int, n_queries: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    queries = [f"q{i:06d}" for i in range(n_queries)]
    frames = []
    for metric in METRICS:
        difficulty = rng.random(n_queries)
        for j in range(n_systems):
            values = np.clip(0.7 * difficulty + 0.004 * j + rng.normal(0, 0.12, n_queries), 0, 1)
            frames.append(
                pl.DataFrame(
                    {"system": f"s{j:02d}", "query_id": queries, "metric": metric, "value": values}
                )
            )
    return pl.concat(frames)


def timed(label: str, run: object) -> object:
    start, cpu = time.perf_counter(), time.process_time()
    out = run()  # type: ignore[operator]
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    print(f"{label}: {wall:.1f} s wall, {used:.1f} s CPU")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--queries", type=int, default=7_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args(argv)
    frame = per_query_frame(args.systems, args.queries)
    pairs = args.systems * (args.systems - 1) // 2
    print(
        f"{args.systems} systems ({pairs} pairs) x {args.queries:,} queries x {len(METRICS)} "
        f"metrics, {args.resamples:,} resamples; {os.cpu_count()} cores"
    )
    stack = np.stack(
        [
            frame.filter(metric=metric)
            .pivot(on="system", index="query_id", values="value")
            .drop("query_id")
            .to_numpy()
            for metric in METRICS
        ]
    )
    timed(
        "randomised Tukey HSD core, 3 metrics sharing permutations",
        lambda: randomized_tukey_hsd(stack, n_resamples=args.resamples),
    )
    for test in ("randomized_tukey", "tukey", "randomization"):
        table = timed(
            f"compare_all(tests=[{test!r}]) with intervals and effect sizes",
            lambda test=test: compare_all(frame, tests=[test], n_resamples=args.resamples),
        )
        assert isinstance(table, pl.DataFrame)
        print(f"  rows {table.height:,}, significant {table['reject'].sum():,}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:,.0f} MB")


if __name__ == "__main__":
    main()
