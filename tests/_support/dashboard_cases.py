"""Inputs of the dashboard tests and scripts: the sample, four DL19 runs, a synthetic scale.

- the bundled sample (``data/sample``) with generated texts (synthetic, shippable);
- four TREC DL 2019 passage runs from ``../shared/data/rank_llm_dl_runs`` (BM25, SPLADE++
  and RankVicuna's reranking of each), NIST's qrels and topics, and the passage texts the
  shared folder holds (MS MARCO terms: read there, never copied into the repository);
- a synthetic collection of any size (the 7,000 queries x 10 systems x top 20 budget).
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from rankset.io import scan_labels, scan_run

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
SAMPLE_RUNS = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
SAMPLE_QRELS = SAMPLE / "qrels.txt"

DL19_RUNS = {
    "bm25": "rank_llm_dl_runs/first_stage/bm25.dl19.trec.gz",
    "rankvicuna-bm25": "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-bm25.dl19.trec.gz",
    "splade": "rank_llm_dl_runs/first_stage/splade-pp-ed.dl19.trec.gz",
    "rankvicuna-splade": (
        "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-splade-pp-ed.dl19.trec.gz"
    ),
}
DL19_QRELS = "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz"
DL19_TOPICS = "anserini_qrels_topics/topics/topics.dl19-passage.txt"
_DL19_TEXTS = (
    "rank_llm_dl_runs/passage_text/bm25.dl19.top100.json.gz",
    "rank_llm_dl_runs/passage_text/splade-pp-ed.dl19.top100.json.gz",
)
_DL19_JUDGED = "trec_dl_official/dl19_judged_passages_text.jsonl.gz"

_WORDS = (
    "refund",
    "policy",
    "travel",
    "approval",
    "network",
    "port",
    "rotation",
    "backup",
    "archive",
    "invoice",
    "schedule",
    "laptop",
    "password",
    "office",
    "holiday",
    "ticket",
    "support",
    "lunch",
    "budget",
    "release",
)


def sample_texts(folder: Path) -> tuple[Path, Path]:
    """Write made-up texts for the sample's documents (TSV) and queries (JSONL)."""
    labels = scan_labels(SAMPLE_QRELS).collect()
    docs = sorted(set(scan_run(SAMPLE_RUNS["bm25"]).collect()["doc_id"]) | set(labels["doc_id"]))
    doc_file = folder / "sample-docs.tsv"
    with doc_file.open("w", encoding="utf-8") as out:
        out.write("doc_id\ttext\n")
        for i, doc in enumerate(docs):
            words = " ".join(_WORDS[(i * 7 + j) % len(_WORDS)] for j in range(40))
            out.write(f"{doc}\tDocument {doc} on {words}.\n")
    query_file = folder / "sample-queries.jsonl"
    queries = sorted(set(labels["query_id"]))
    with query_file.open("w", encoding="utf-8") as out:
        for i, query in enumerate(queries):
            topic = f"{_WORDS[i % len(_WORDS)]} {_WORDS[(i * 3 + 1) % len(_WORDS)]}"
            out.write(json.dumps({"query_id": query, "text": f"what is the {topic} rule"}) + "\n")
    return doc_file, query_file


def dl19_inputs(shared: Path, folder: Path) -> dict[str, object]:
    """The DL19 runs, qrels, topics and a JSONL of the passage texts the shared folder has."""
    texts = folder / "dl19-passages.jsonl"
    seen: set[str] = set()
    with texts.open("w", encoding="utf-8") as out:
        for name in _DL19_TEXTS:
            with gzip.open(shared / name, "rt", encoding="utf-8") as source:
                for query in json.load(source):
                    for hit in query["hits"]:
                        if hit["docid"] not in seen:
                            seen.add(hit["docid"])
                            out.write(json.dumps({"doc_id": hit["docid"], "text": hit["content"]}))
                            out.write("\n")
        with gzip.open(shared / _DL19_JUDGED, "rt", encoding="utf-8") as source:
            for line in source:
                record = json.loads(line)
                if record["docid"] not in seen:
                    seen.add(record["docid"])
                    out.write(json.dumps({"doc_id": record["docid"], "text": record["doc"]}))
                    out.write("\n")
    return {
        "runs": {name: shared / path for name, path in DL19_RUNS.items()},
        "qrels": shared / DL19_QRELS,
        "queries": shared / DL19_TOPICS,
        "texts": texts,
    }


def synthetic(
    n_queries: int = 7000, n_systems: int = 10, depth: int = 20, pool: int = 60, seed: int = 0
) -> tuple[dict[str, pl.DataFrame], pl.DataFrame, pl.DataFrame]:
    """Runs, graded labels and texts for ``n_queries`` made-up queries.

    Each query has ``pool`` candidates; ~30% are judged (grades 0-3); each system ranks
    the candidates by a noisy copy of their relevance and keeps its top ``depth``.
    """
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(n_queries), pool)
    doc = rng.integers(0, 50 * n_queries * pool, size=n_queries * pool)
    base = pl.DataFrame(
        {
            "query_id": np.char.add("q", query.astype(str)),
            "doc_id": np.char.add("D", doc.astype(str)),
        }
    ).unique(["query_id", "doc_id"], maintain_order=True)
    base = base.with_columns(relevance=pl.Series(rng.random(base.height)))
    labels = base.filter(pl.col("relevance") < 0.3).select(
        "query_id", "doc_id", grade=(pl.col("relevance") * 13).cast(pl.Int64).clip(0, 3)
    )
    runs = {}
    for system in range(n_systems):
        noise = pl.Series(rng.normal(0.0, 0.25 + 0.05 * system, base.height))
        runs[f"system-{system:02d}"] = (
            base.with_columns(score=-pl.col("relevance") + noise)
            .sort(["query_id", "score"], descending=[False, True])
            .group_by("query_id", maintain_order=True)
            .head(depth)
            .select("query_id", "doc_id", "score")
        )
    texts = base.select(
        "doc_id",
        text=pl.format("Passage {} on {} and more words to read here.", "doc_id", "query_id"),
    )
    return runs, labels, texts


def embedded(page: str, element_id: str) -> Any:
    """Return the JSON a page embeds in ``<script type="application/json" id=...>``."""
    found = re.search(
        rf'<script type="application/json" id="{element_id}">(.*?)</script>', page, re.S
    )
    assert found is not None
    return json.loads(found.group(1))
