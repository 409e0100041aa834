"""How the ir_measures face reads qrels and runs: every form ir_measures accepts.

Dicts of dicts, iterables of ``Qrel``/``ScoredDoc`` tuples (ir_measures' own, any named
tuple with its field names, or plain 3- and 4-tuples in its field order), Polars or
pandas frames with ir_measures' column names, and file paths. An iterator is read once:
qrels are kept as a frame (``query_id, doc_id, relevance, iteration``) from which the
labels and, for the intent-aware measures, the subtopic labels are read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import polars as pl

from rankset.errors import ParameterError

__all__ = ["QrelsSource", "read_run"]

_QREL_FIELDS = ("query_id", "doc_id", "relevance", "iteration")
_RUN_FIELDS = ("query_id", "doc_id", "score")


def _rows(source: Any, fields: tuple[str, ...], what: str) -> pl.DataFrame:
    """Return an iterable of tuples as a frame of ``fields`` (a qrel's iteration optional)."""
    rows = []
    for row in source:
        if not isinstance(row, tuple) or len(row) < 3:
            msg = f"{what}: expected ({', '.join(fields[:3])}) tuples, a frame, a dict or a path"
            raise ParameterError(msg)
        names = getattr(row, "_fields", None)
        if names is not None and all(f in names for f in fields[:3]):
            values = [getattr(row, f) for f in fields if f in names]
        else:
            values = list(row[: len(fields)])
        rows.append(values + ["0"] * (len(fields) - len(values)))
    value = "relevance" if what == "qrels" else "score"
    schema = {f: pl.Float64 if f == value else pl.String for f in fields}
    return pl.DataFrame(
        [[str(v) if schema[f] == pl.String else float(v) for f, v in zip(fields, r, strict=True)]
         for r in rows],
        schema=schema,
        orient="row",
    )  # fmt: skip


def _frame(source: Any) -> pl.DataFrame | None:
    """Return a Polars or pandas frame (or lazy frame) as a Polars frame, else None."""
    if isinstance(source, pl.LazyFrame):
        return source.collect()
    if isinstance(source, pl.DataFrame):
        return source
    if hasattr(source, "columns") and type(source).__module__.startswith("pandas"):
        return pl.from_pandas(source)
    return None


class QrelsSource:
    """Qrels read once: the labels frame and, on demand, the subtopic labels of a level."""

    def __init__(self, qrels: Any) -> None:
        from rankset.io import scan_labels

        self.path: str | os.PathLike[str] | None = None
        self.table: pl.DataFrame | None = None
        frame = _frame(qrels)
        if isinstance(qrels, str | os.PathLike):
            self.path = qrels
            source: Any = qrels
        elif isinstance(qrels, Mapping):
            self.table = pl.DataFrame(
                [
                    (str(q), str(d), float(g), "0")
                    for q, docs in qrels.items()
                    for d, g in docs.items()
                ],
                schema=dict.fromkeys(_QREL_FIELDS, pl.String) | {"relevance": pl.Float64},
                orient="row",
            )
            source = self.table.select("query_id", "doc_id", grade="relevance")
        elif frame is not None:
            grade = "relevance" if "relevance" in frame.columns else "grade"
            subtopic = pl.col("iteration") if "iteration" in frame.columns else pl.lit("0")
            self.table = frame.select(
                pl.col("query_id", "doc_id").cast(pl.String),
                relevance=pl.col(grade).cast(pl.Float64),
                iteration=subtopic.cast(pl.String),
            )
            source = self.table.select("query_id", "doc_id", grade="relevance")
        else:
            self.table = _rows(qrels, _QREL_FIELDS, "qrels")
            source = self.table.select("query_id", "doc_id", grade="relevance")
        self.labels = scan_labels(source).collect().select("query_id", "doc_id", "grade")

    def subtopics(self, level: float) -> pl.DataFrame:
        """Return the qrels as subtopic labels: ``iteration`` names the subtopic (else ``"0"``)."""
        from rankset.io import read_subtopics

        if self.path is not None:
            return read_subtopics(self.path, relevance_level=level)
        assert self.table is not None
        labels = self.table.select("query_id", "doc_id", subtopic="iteration", grade="relevance")
        return read_subtopics(labels, relevance_level=level)


def read_run(run: Any) -> pl.DataFrame:
    """Read a run in any of ir_measures' forms into ``query_id, doc_id, score, ...``."""
    from rankset.io import scan_run

    frame = _frame(run)
    if isinstance(run, str | os.PathLike | Mapping):
        source: Any = run
    elif frame is not None:
        source = frame.select(*_RUN_FIELDS)
    else:
        source = _rows(run, _RUN_FIELDS, "run")
    return scan_run(source).collect()
