"""Seeded synthetic retrieval workloads for the benchmark runner.

    python benchmarks/generate.py --size msmarco --out /tmp/rankset-bench/msmarco [--seed 0]
        [--ties trec_eval,ascending,random]

Writes to ``--out``:

``run.trec``
    ``qid Q0 docid rank score tag`` lines, ``depth`` documents per query, scores rounded to
    two decimals (so there are ties), lines ordered as trec_eval orders them (score
    descending, ties by document id descending).
``run-ascending.trec``, ``run-random.trec``
    The same rankings with each tie group in another order, as real runs come: ascending
    document ids (Anserini and most toolkits), or a seeded random order (a dense
    retriever's index order, a reranker's unstable sort). Queries stay in the same order,
    scores descending within each; the rank column counts the lines as written. Only the
    tie orders named in ``--ties`` are written (all three by default; only trec_eval's
    for ``huge``).
``qrels.txt``
    ``qid 0 docid grade`` lines: 20 to 40 graded labels (0-3) per query, about half of them
    on retrieved documents (more often near the top), the rest on documents outside the
    run. Every query has at least one label of grade >= 1 and a full ranking: the two cases
    where pytrec_eval 0.5.11 can hang are kept out.
``run-shuffled.trec`` (only with ``--ties ...,shuffled``)
    Every row of the run in a seeded random order: rankings interleaved and scores in
    no order, each line keeping its rank in trec_eval's order.
``run.parquet``, ``run-ascending.parquet``, ``run-random.parquet``, ``qrels.parquet``
    The same data as ``query_id, doc_id, rank, score`` and ``query_id, doc_id, grade``.

The ``huge`` size (100,000 x 1,000: 100 million rows, for the larger-than-memory mode) is
generated 5,000 queries at a time and written as Parquet only (``--text`` adds the TREC
files, 3.4 GB).

Query and document ids are MS MARCO-like decimal strings. Everything is vectorised (numpy
and Polars): the 7,000 x 1,000 ``msmarco`` workload takes seconds. The same seed gives
byte-identical files.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import polars as pl
from _ties import TIE_ORDERS, tie_orders_option


class Size(NamedTuple):
    queries: int
    depth: int


SIZES: dict[str, Size] = {
    "small": Size(1_000, 100),
    "msmarco": Size(7_000, 1_000),
    "large": Size(20_000, 1_000),
    "huge": Size(100_000, 1_000),
}
CHUNKED = {"huge"}  # generated in chunks of CHUNK_QUERIES queries
CHUNK_QUERIES = 5_000
CORPUS = 8_841_823  # documents in the MS MARCO passage collection
QUERY_ID_SPACE = 1_200_000
MIN_LABELS, MAX_LABELS = 20, 40
RETRIEVED_SHARE = 0.5  # chance that a label falls on a retrieved document
#: Mixed into the seed of the random tie order, so the rankings themselves do not change.
TIE_SEED = 1
GRADE_P = (0.45, 0.30, 0.15, 0.10)  # grades 0, 1, 2, 3


def unique_ids(rng: np.random.Generator, rows: int, cols: int, space: int) -> np.ndarray:
    """``rows x cols`` ids, unique within each row, in random order within the row.

    Sorted draws ``s_0 <= s_1 <= ...`` become strictly increasing as ``s_j + j``.
    """
    draws = np.sort(rng.integers(0, space, size=(rows, cols), dtype=np.int64), axis=1)
    ids = draws + np.arange(cols, dtype=np.int64)
    return rng.permuted(ids, axis=1)


def make_run(rng: np.random.Generator, query_ids: np.ndarray, depth: int) -> pl.DataFrame:
    n = query_ids.size
    docs = unique_ids(rng, n, depth, CORPUS - depth)
    # BM25-like scores: a per-query level and spread, two decimals -> ties in the body.
    level = rng.uniform(12.0, 30.0, size=(n, 1))
    spread = rng.uniform(1.5, 4.0, size=(n, 1))
    scores = np.round(level + spread * rng.standard_normal((n, depth)), 2)
    frame = pl.DataFrame(
        {
            "query_id": np.repeat(query_ids, depth),
            "doc_id": docs.ravel(),
            "score": scores.ravel(),
        }
    ).with_columns(pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String))
    frame = frame.sort(
        ["query_id", "score", "doc_id"], descending=[False, True, True], maintain_order=True
    )
    return frame.with_columns(
        rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("query_id")
    ).select("query_id", "doc_id", "rank", "score")


def make_qrels(rng: np.random.Generator, run: pl.DataFrame, n: int, depth: int) -> pl.DataFrame:
    counts = rng.integers(MIN_LABELS, MAX_LABELS + 1, size=n)
    retrieved = np.minimum(rng.binomial(counts, RETRIEVED_SHARE), depth)
    # Retrieved labels: sample rank positions without replacement, biased to the top.
    positions = np.arange(depth, dtype=np.float64)
    keys = rng.exponential(size=(n, depth)) * np.sqrt(positions + 10.0)
    take = min(MAX_LABELS, depth)
    chosen = np.argsort(keys, axis=1, kind="stable")[:, :take]
    keep = np.arange(take) < retrieved[:, None]
    run_docs = run["doc_id"].to_numpy().reshape(n, depth)
    row_index = np.broadcast_to(np.arange(n)[:, None], chosen.shape)
    hit_docs = run_docs[row_index, chosen][keep]
    hit_queries = np.repeat(np.arange(n), retrieved)
    # Unretrieved labels: documents from anywhere in the corpus.
    missed = counts - retrieved
    other = unique_ids(rng, n, MAX_LABELS, CORPUS - MAX_LABELS)
    miss_keep = np.arange(MAX_LABELS) < missed[:, None]
    miss_docs = other[miss_keep].astype(str)
    miss_queries = np.repeat(np.arange(n), missed)

    qids = run["query_id"].to_numpy().reshape(n, depth)[:, 0]
    labels = pl.DataFrame(
        {
            "q": np.concatenate([hit_queries, miss_queries]),
            "doc_id": np.concatenate([hit_docs.astype(str), miss_docs]),
        }
    )
    # A corpus draw can hit a retrieved document of the same query: keep the first label.
    labels = labels.unique(["q", "doc_id"], keep="first", maintain_order=True)
    grades = rng.choice(len(GRADE_P), size=labels.height, p=GRADE_P)
    labels = labels.with_columns(grade=pl.Series(grades, dtype=pl.Int64))
    # At least one relevant label per query (the first one, a retrieved document).
    first = pl.int_range(pl.len()).over("q") == 0
    labels = labels.with_columns(
        grade=pl.when(first).then(pl.max_horizontal("grade", 1)).otherwise("grade")
    )
    return (
        labels.with_columns(query_id=pl.Series(qids)[labels["q"]])
        .sort(["q", "doc_id"])
        .select("query_id", "doc_id", "grade")
    )


def run_stem(ties: str) -> str:
    """Return the file name, without suffix, of the run written with tie order ``ties``."""
    return "run" if ties == "trec_eval" else f"run-{ties}"


def reorder_ties(run: pl.DataFrame, ties: str, rng: np.random.Generator) -> pl.DataFrame:
    """Return ``run`` (in trec_eval's order) with each tie group in order ``ties``.

    Queries keep their order and scores stay descending within each; ``rank`` is
    renumbered as the lines are written.
    """
    if ties == "trec_eval":
        return run
    if ties == "shuffled":
        # Every row anywhere: rankings interleaved, scores in no order; each row keeps
        # its rank in trec_eval's order (the rank column a reader ignores given scores).
        return run[rng.permutation(run.height)]
    if ties == "ascending":
        tie_key = pl.col("doc_id")
    else:
        tie_key = pl.Series("_shuffle", rng.permutation(run.height))
    reordered = run.with_columns(_tie_key=tie_key).sort(
        ["query_id", "score", "_tie_key"], descending=[False, True, False], maintain_order=True
    )
    return reordered.drop("_tie_key").with_columns(
        rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("query_id")
    )


def write_trec_run(run: pl.DataFrame, out: Any) -> None:
    run.select(
        "query_id",
        pl.lit("Q0").alias("q0"),
        "doc_id",
        "rank",
        "score",
        pl.lit("bench").alias("tag"),
    ).write_csv(out, separator=" ", include_header=False, float_precision=2)


def generate_chunked(
    size: str,
    out: Path,
    seed: int = 0,
    text: bool = False,
    tie_orders: tuple[str, ...] = TIE_ORDERS,
) -> dict[str, int]:
    """Write a workload too large for memory, CHUNK_QUERIES queries at a time."""
    import pyarrow.parquet as pq

    spec = SIZES[size]
    rng = np.random.default_rng(seed)
    tie_rng = np.random.default_rng([seed, TIE_SEED])
    query_ids = np.sort(rng.choice(QUERY_ID_SPACE * 10, size=spec.queries, replace=False))
    out.mkdir(parents=True, exist_ok=True)
    writers: dict[str, pq.ParquetWriter] = {}
    label_parts = []
    lines = 0
    handles = {ties: (out / f"{run_stem(ties)}.trec").open("wb") for ties in tie_orders if text}
    qrels_text = (out / "qrels.txt").open("wb") if text else None
    try:
        for start in range(0, spec.queries, CHUNK_QUERIES):
            chunk = query_ids[start : start + CHUNK_QUERIES]
            run = make_run(rng, chunk, spec.depth)
            qrels = make_qrels(rng, run, chunk.size, spec.depth)
            for ties in tie_orders:
                ordered = reorder_ties(run, ties, tie_rng)
                table = ordered.to_arrow()
                if ties not in writers:
                    path = out / f"{run_stem(ties)}.parquet"
                    writers[ties] = pq.ParquetWriter(path, table.schema)
                writers[ties].write_table(table)
                if text:
                    write_trec_run(ordered, handles[ties])
            label_parts.append(qrels)
            lines += run.height
            if qrels_text is not None:
                qrels.select("query_id", pl.lit("0"), "doc_id", "grade").write_csv(
                    qrels_text, separator=" ", include_header=False
                )
    finally:
        for writer in writers.values():
            writer.close()
        for handle in [*handles.values(), *([qrels_text] if qrels_text else [])]:
            handle.close()
    labels = pl.concat(label_parts)
    labels.write_parquet(out / "qrels.parquet", statistics=False)
    return {"queries": spec.queries, "run_lines": lines, "labels": labels.height}


def generate(
    size: str, out: Path, seed: int = 0, tie_orders: tuple[str, ...] = TIE_ORDERS
) -> dict[str, int]:
    spec = SIZES[size]
    rng = np.random.default_rng(seed)
    query_ids = np.sort(rng.choice(QUERY_ID_SPACE, size=spec.queries, replace=False))
    run = make_run(rng, query_ids, spec.depth)
    qrels = make_qrels(rng, run, spec.queries, spec.depth)

    out.mkdir(parents=True, exist_ok=True)
    tie_rng = np.random.default_rng([seed, TIE_SEED])
    for ties in tie_orders:
        ordered = reorder_ties(run, ties, tie_rng)
        write_trec_run(ordered, out / f"{run_stem(ties)}.trec")
        ordered.write_parquet(out / f"{run_stem(ties)}.parquet", statistics=False)
    qrels.select("query_id", pl.lit("0").alias("iter"), "doc_id", "grade").write_csv(
        out / "qrels.txt", separator=" ", include_header=False
    )
    qrels.write_parquet(out / "qrels.parquet", statistics=False)
    return {"queries": spec.queries, "run_lines": run.height, "labels": qrels.height}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--queries", type=int, default=None, help="override the size's number of queries"
    )
    parser.add_argument("--text", action="store_true", help="huge: also write TREC text")
    parser.add_argument(
        "--ties",
        type=tie_orders_option,
        default=None,
        help="tie orders to write, comma-separated (default: trec_eval,ascending,random; "
        "huge: trec_eval)",
    )
    args = parser.parse_args(argv)
    if args.queries is not None:
        SIZES[args.size] = SIZES[args.size]._replace(queries=args.queries)
    start = time.perf_counter()
    if args.size in CHUNKED:
        ties = args.ties or ("trec_eval",)  # 100 million rows: one order unless asked
        counts = generate_chunked(args.size, args.out, args.seed, text=args.text, tie_orders=ties)
    else:
        ties = args.ties or TIE_ORDERS
        counts = generate(args.size, args.out, args.seed, tie_orders=ties)
    seconds = time.perf_counter() - start
    print(
        f"{args.size}: {counts['queries']:,} queries, {counts['run_lines']:,} run lines, "
        f"{counts['labels']:,} labels, ties {', '.join(ties)} -> {args.out} ({seconds:.1f} s)"
    )


if __name__ == "__main__":
    main()
