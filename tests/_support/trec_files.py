"""Read TREC qrels in the tests with Polars alone, independently of rankset's readers."""

from __future__ import annotations

from pathlib import Path

import polars as pl


def read_qrels(path: Path) -> pl.DataFrame:
    """A qrels file (plain or gzipped) as ``query_id, iter, doc_id, grade``, ids as strings."""
    return pl.read_csv(
        path,
        separator=" ",
        has_header=False,
        new_columns=["query_id", "iter", "doc_id", "grade"],
        schema_overrides={"query_id": pl.String, "doc_id": pl.String},
    )
