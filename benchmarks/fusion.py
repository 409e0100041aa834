"""Fusion timings: optimize_fusion's one evaluation against a loop of evaluate calls.

Usage: python benchmarks/fusion.py --shared ../shared/data [--repeats 3]

Fuses three TREC DL 2019 first-stage runs (bm25, splade-pp-ed, tasb; 1,000 deep) with RRF
over a grid of k and reports both ways' wall time and whether they pick the same k.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import polars as pl

import rankset

RUNS = ("bm25", "splade-pp-ed", "tasb")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path, default=Path("../shared/data"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    first_stage = args.shared / "rank_llm_dl_runs" / "first_stage"
    runs = [rankset.scan_run(first_stage / f"{name}.dl19.trec.gz").collect() for name in RUNS]
    qrels_path = args.shared / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    qrels = rankset.scan_labels(qrels_path).collect()
    queries = sorted(set(qrels["query_id"]))
    train = queries[::2]
    for grid in (
        [float(k) for k in (1, 5, 10, 20, 30, 40, 60, 80, 100, 150)],
        [float(k) for k in range(5, 151, 5)],
    ):
        _compare(runs, qrels, train, grid, args.repeats)


def _compare(
    runs: list[pl.DataFrame],
    qrels: pl.DataFrame,
    train: list[str],
    grid: list[float],
    repeats: int,
) -> None:
    one_pass, loop = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        search = rankset.optimize_fusion(
            runs, qrels, "rrf", "ndcg@10", grid={"k": grid}, train_queries=train
        )
        one_pass.append(time.perf_counter() - start)

        start = time.perf_counter()
        means = {}
        for k in grid:
            result = rankset.evaluate(
                rankset.fuse(runs, "rrf", k=k), qrels, ["ndcg@10"], confidence=None
            )
            means[k] = result.per_query.filter(pl.col("query_id").is_in(train))["value"].mean()
        loop.append(time.perf_counter() - start)
        best_loop = max(grid, key=lambda k: (means[k], -grid.index(k)))
        assert search.best["k"] == best_loop, (search.best, best_loop)

    fast, slow = statistics.median(one_pass), statistics.median(loop)
    print(f"{len(grid)} configurations, {len(runs)} runs, {len(train)} training queries")
    print(f"optimize_fusion: {fast:.2f} s; loop of fuse + evaluate: {slow:.2f} s")
    print(f"speed-up {slow / fast:.1f}x; both pick k = {search.best['k']:g}")


if __name__ == "__main__":
    main()
