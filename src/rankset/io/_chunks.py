"""Tables of text chunks: chunk-level runs and gold texts, before they have document ids.

:func:`rankset.match_text` gives chunks the ids of the gold texts they match; this reads
the two tables it takes from Parquet, CSV/TSV or JSONL files.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from rankset.errors import InputFormatError
from rankset.io._sources import display_stem, read_table_file

__all__ = ["read_text_table"]


def read_text_table(
    path: str | os.PathLike[str], required: tuple[str, ...] = ("query_id", "text")
) -> pl.DataFrame:
    r"""Read a table of texts (a run of chunks, or gold texts): Parquet, CSV, TSV or JSONL.

    A run of chunks without a ``system`` column is named after its file.

    Raises
    ------
    InputFormatError
        The file is missing, of another format, or lacks a required column.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "gold.csv"
    ...     _ = path.write_text("query_id,text\nq1,Paris is the capital.\n")
    ...     read_text_table(path).rows()
    [('q1', 'Paris is the capital.')]
    """
    file = Path(path)
    frame = read_table_file(file, "texts")
    if "system" in required and "system" not in frame.columns:
        frame = frame.with_columns(system=pl.lit(display_stem(file)))
    missing = [column for column in required if column not in frame.columns]
    if missing:
        msg = (
            f"{path}: no column(s) {', '.join(missing)}; expected {', '.join(required)} "
            f"(columns: {', '.join(frame.columns)})."
        )
        raise InputFormatError(msg)
    if "query_id" in frame.columns:
        frame = frame.with_columns(pl.col("query_id").cast(pl.String))
    return frame
