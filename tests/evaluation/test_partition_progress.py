"""rankset.partition counts the buckets it writes (each is a pass over the inputs)."""

from __future__ import annotations

from pathlib import Path

import rankset

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_partition_counts_its_buckets(tmp_path: Path) -> None:
    calls: list[tuple[int, int, str]] = []
    out = rankset.partition(
        [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")],
        str(SAMPLE / "qrels.txt"),
        tmp_path / "ds",
        buckets=4,
        progress=lambda done, total, what: calls.append((done, total, what)),
    )
    assert calls == [(done, 4, "buckets") for done in range(5)]
    # the dataset is the one written without a callback
    silent = rankset.partition(
        [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")],
        str(SAMPLE / "qrels.txt"),
        tmp_path / "silent",
        buckets=4,
    )
    for table in ("run", "labels"):
        for bucket in range(4):
            part = Path(table) / f"bucket={bucket}" / "part-0.parquet"
            assert (out / part).read_bytes() == (silent / part).read_bytes()
