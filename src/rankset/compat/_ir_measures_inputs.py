"""How the ir_measures face reads qrels and runs: every form ir_measures accepts.

Dicts, ``Qrel``/``ScoredDoc`` tuples (or any 3- or 4-tuples), Polars or pandas frames with
ir_measures' column names, and file paths.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import polars as pl

from rankset.errors import ParameterError

__all__ = ["frames", "subtopics"]


def _table(source: Any, columns: tuple[str, str, str], what: str) -> Any:
    """Return ``source`` as rankset reads it: frames renamed, tuples as a frame."""
    query, doc, value = columns
    if isinstance(source, str | os.PathLike | Mapping):
        return source
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if hasattr(source, "columns") and not isinstance(source, pl.DataFrame):
        source = pl.from_pandas(source) if type(source).__module__.startswith("pandas") else source
    if isinstance(source, pl.DataFrame):
        renames = {"relevance": "grade"} if value == "grade" else {}
        present = {old: new for old, new in renames.items() if old in source.columns}
        return source.rename(present).select(query, doc, value)
    rows = list(source)
    if rows and not all(isinstance(row, tuple) and len(row) >= 3 for row in rows):
        msg = f"{what}: expected (query_id, doc_id, {value}) tuples, a frame, a dict or a path"
        raise ParameterError(msg)
    return pl.DataFrame(
        [(str(r[0]), str(r[1]), float(r[2])) for r in rows],
        schema={query: pl.String, doc: pl.String, value: pl.Float64},
        orient="row",
    )


def frames(qrels: Any, run: Any) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read qrels and run into frames ``query_id, doc_id, grade`` and ``..., score``."""
    from rankset.io import scan_labels, scan_run

    labels = scan_labels(_table(qrels, ("query_id", "doc_id", "grade"), "qrels")).collect()
    ranked = scan_run(_table(run, ("query_id", "doc_id", "score"), "run")).collect()
    return labels.select("query_id", "doc_id", "grade"), ranked


def subtopics(qrels: Any, level: float) -> pl.DataFrame:
    """Read the qrels as subtopic labels: ``iteration`` names the subtopic (else ``"0"``)."""
    from rankset.io import read_subtopics

    if isinstance(qrels, str | os.PathLike):
        return read_subtopics(qrels, relevance_level=level)
    if hasattr(qrels, "columns"):  # a frame: ir_measures' column names
        frame = qrels if isinstance(qrels, pl.DataFrame) else pl.from_pandas(qrels)
        grade = "relevance" if "relevance" in frame.columns else "grade"
        subtopic = pl.col("iteration") if "iteration" in frame.columns else pl.lit("0")
        labels = frame.select(
            pl.col("query_id", "doc_id").cast(pl.String),
            subtopic=subtopic.cast(pl.String),
            grade=pl.col(grade).cast(pl.Float64),
        )
        return read_subtopics(labels, relevance_level=level)
    if isinstance(qrels, Mapping):
        rows = [(q, "0", d, g) for q, docs in qrels.items() for d, g in docs.items()]
    else:
        rows = [(r[0], r[3] if len(r) > 3 else "0", r[1], r[2]) for r in qrels]
    frame = pl.DataFrame(
        [(str(q), str(s), str(d), float(g)) for q, s, d, g in rows],
        schema=["query_id", "subtopic", "doc_id", "grade"],
        orient="row",
    )
    return read_subtopics(frame, relevance_level=level)
