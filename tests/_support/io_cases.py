"""Sample inputs and expected frames shared by the tests of rankset.io."""

from __future__ import annotations

from pathlib import Path

import polars as pl

RUN_TEXT = (
    "301 Q0 FR940202-2-00150 1 2.5 bm25\n"
    "301 Q0 CR#93E-1860 2 -1e-3 bm25\n"
    "007 Q0 msmarco_v2.1_doc_50_2286987788#13_3087841662 1 0.75 bm25\n"
)
EXPECTED_RUN = pl.DataFrame(
    {
        "query_id": ["301", "301", "007"],
        "doc_id": [
            "FR940202-2-00150",
            "CR#93E-1860",
            "msmarco_v2.1_doc_50_2286987788#13_3087841662",
        ],
        "rank": [1, 2, 1],
        "score": [2.5, -0.001, 0.75],
        "system": ["bm25", "bm25", "bm25"],
    },
    schema={
        "query_id": pl.String,
        "doc_id": pl.String,
        "rank": pl.Int64,
        "score": pl.Float64,
        "system": pl.String,
    },
)
LABELS_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64}


def write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def write_text(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


def labels_frame(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=LABELS_SCHEMA, orient="row")
