"""Time the nugget measures against the classic ones on the same run.

    python benchmarks/nuggets.py [--queries 10000] [--depth 100] [--nuggets 20]

A seeded synthetic collection: per query, ``depth`` retrieved passages out of a pool of
1.5 × ``depth``, ``nuggets`` nuggets (a quarter vital), each named by 8 passages of the
pool (a third full support, a third partial, a third none); the labels are those the
nuggets imply. Times (best of ``--repeats``, in-process, after one warm-up call) the
classic metrics, the nugget metrics, and both in one call; prints the ratio. Not a test:
numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import polars as pl

import rankset

CLASSIC = ["ndcg@10", "ap", "recall@100", "precision@10", "rr"]
NUGGET = [
    "nugget_coverage@20",
    "nugget_coverage_partial@20",
    "vital_coverage@20",
    "nugget_recall@20",
    "context_precision@10",
    "alpha_ndcg@10",
]


def collection(
    n_queries: int, depth: int, n_nuggets: int, seed: int = 0
) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    pool = int(depth * 1.5)
    queries = np.repeat(np.arange(n_queries), depth)
    docs = np.concatenate([rng.permutation(pool)[:depth] for _ in range(n_queries)])
    run = pl.DataFrame(
        {
            "query_id": pl.Series(queries).cast(pl.String),
            "doc_id": pl.Series(docs).cast(pl.String),
            "score": rng.random(n_queries * depth),
        }
    )
    per_nugget = 8
    size = n_queries * n_nuggets * per_nugget
    nuggets = pl.DataFrame(
        {
            "query_id": pl.Series(np.repeat(np.arange(n_queries), n_nuggets * per_nugget)).cast(
                pl.String
            ),
            "nugget_id": pl.Series(
                np.tile(np.repeat(np.arange(n_nuggets), per_nugget), n_queries)
            ).cast(pl.String),
            "doc_id": pl.Series(rng.integers(0, pool, size)).cast(pl.String),
            "support": rng.choice(np.array(["support", "partial_support", "not_support"]), size),
            "importance": pl.Series(
                np.where(
                    np.tile(np.repeat(np.arange(n_nuggets), per_nugget), n_queries)
                    < n_nuggets // 4,
                    "vital",
                    "okay",
                )
            ),
        }
    ).unique(subset=["query_id", "nugget_id", "doc_id"], keep="first")
    return run, nuggets


def best_of(repeats: int, call: object) -> float:
    call()  # type: ignore[operator]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--nuggets", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    run, nuggets = collection(args.queries, args.depth, args.nuggets)
    labels = rankset.evaluate(
        run.head(1), None, ["num_rel"], nuggets=nuggets, confidence=None
    ) and nuggets.group_by("query_id", "doc_id").agg(
        grade=(pl.col("support") == "support").any().cast(pl.Float64)
    )
    print(
        f"{args.queries:,} queries x {args.depth} retrieved ({run.height:,} run rows), "
        f"{args.nuggets} nuggets each ({nuggets.height:,} nugget rows), "
        f"{labels.height:,} implied labels"
    )
    options = {"confidence": None, "nuggets": nuggets}
    classic = best_of(args.repeats, lambda: rankset.evaluate(run, labels, CLASSIC, **options))
    nugget = best_of(args.repeats, lambda: rankset.evaluate(run, labels, NUGGET, **options))
    both = best_of(args.repeats, lambda: rankset.evaluate(run, labels, CLASSIC + NUGGET, **options))
    print(f"classic ({len(CLASSIC)} metrics): {classic:.2f} s")
    print(f"nugget ({len(NUGGET)} metrics): {nugget:.2f} s  ({nugget / classic:.2f} x classic)")
    print(f"both in one call: {both:.2f} s  ({both / classic:.2f} x classic)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:,.0f} MB")


if __name__ == "__main__":
    main()
