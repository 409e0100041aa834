"""A suite of two collections built from the bundled sample (no ../shared needed).

- ``sample``: the sample's qrels and three runs: BM25, the reranker, and ``top5`` (BM25
  cut to its first five documents, a system only this collection has);
- ``boosted``: the first 20 queries, each with BM25's first three documents judged
  grade 3 (and the sample's other labels kept): on it BM25 ranks first, so the ranks of
  the two collections differ.

Files are written into a given folder; expected values come from separate
``rankset.evaluate`` calls and plain Python, never from the suite's own frames.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
SUITE_METRICS = ["ndcg@10", "ap", "rr"]
SUITE_OPTIONS = {"scale": "trec_dl", "n_resamples": 200, "seed": 0}


def _read(path: Path, columns: list[str]) -> pl.DataFrame:
    return pl.read_csv(path, separator=" ", has_header=False, new_columns=columns)


def write_suite(folder: Path) -> Path:
    """Write the derived qrels, the ``top5`` run and ``SUITE.toml`` in ``folder``."""
    qrels = _read(SAMPLE / "qrels.txt", ["query_id", "iteration", "doc_id", "grade"])
    bm25 = _read(SAMPLE / "bm25.trec", ["query_id", "q0", "doc_id", "rank", "score", "tag"])
    queries = sorted(qrels["query_id"].unique().to_list())[:20]
    boosted = (
        bm25.filter(pl.col("query_id").is_in(queries), pl.col("rank") <= 3)
        .select("query_id", pl.lit(0).alias("iteration"), "doc_id", pl.lit(3).alias("grade"))
        .cast({"iteration": pl.Int64, "grade": pl.Int64})
    )
    kept = qrels.filter(pl.col("query_id").is_in(queries)).join(
        boosted, on=["query_id", "doc_id"], how="anti"
    )
    pl.concat([kept, boosted]).sort("query_id", "doc_id").write_csv(
        folder / "boosted.qrels", separator=" ", include_header=False
    )
    bm25.filter(pl.col("rank") <= 5).with_columns(tag=pl.lit("top5")).write_csv(
        folder / "top5.trec", separator=" ", include_header=False
    )
    runs = f'bm25 = "{SAMPLE / "bm25.trec"}", rerank = "{SAMPLE / "rerank.trec"}"'
    (folder / "SUITE.toml").write_text(
        f"metrics = {SUITE_METRICS!r}\n\n"
        f'[collections.sample]\nqrels = "{SAMPLE / "qrels.txt"}"\n'
        f'runs = {{ {runs}, top5 = "top5.trec" }}\n\n'
        f'[collections.boosted]\nqrels = "boosted.qrels"\nruns = {{ {runs} }}\n'.replace("'", '"'),
        encoding="utf-8",
    )
    return folder / "SUITE.toml"


def collections(folder: Path) -> dict[str, tuple[dict[str, str], str]]:
    """The suite's ``{collection: (runs, qrels)}`` as written by :func:`write_suite`."""
    runs = {"bm25": str(SAMPLE / "bm25.trec"), "rerank": str(SAMPLE / "rerank.trec")}
    return {
        "sample": ({**runs, "top5": str(folder / "top5.trec")}, str(SAMPLE / "qrels.txt")),
        "boosted": (runs, str(folder / "boosted.qrels")),
    }


def plain_ranks(means: dict[str, float], greater: bool = True) -> dict[str, float]:
    """Rank by hand: 1 = best, ties share their average rank."""
    out = {}
    for system, value in means.items():
        better = sum(1 for v in means.values() if (v > value if greater else v < value))
        equal = sum(1 for v in means.values() if v == value)
        out[system] = 1 + better + (equal - 1) / 2
    return out
