"""Per-query costs of retrieval: latency, tokens and money, beside the quality metrics.

A costs table has one row per (system, query): ``query_id``, optionally ``system`` (a
table without it belongs to the one system evaluated), and any of :data:`COST_COLUMNS`,
each a finite number >= 0. Files: CSV, TSV, Parquet or JSON Lines (by extension), or a
Polars frame.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final, TypeAlias

import polars as pl

from rankset.errors import InputFormatError
from rankset.io._sources import read_table_file

__all__ = ["COST_COLUMNS", "IntoCosts", "read_costs"]

#: The cost columns a costs table may hold.
COST_COLUMNS: Final = ("latency_ms", "tokens_in", "tokens_out", "cost")
#: What :func:`read_costs` reads.
IntoCosts: TypeAlias = str | os.PathLike[str] | pl.DataFrame | pl.LazyFrame


def read_costs(source: IntoCosts) -> pl.DataFrame:
    """Read a per-query costs table: ``[system,] query_id`` and the cost columns it has.

    Raises
    ------
    InputFormatError
        A missing file, no ``query_id`` or no cost column, a value that is not a finite
        number >= 0 (the message names the column and the row), or a (system, query)
        given twice.

    Examples
    --------
    >>> costs = pl.DataFrame({"query_id": ["q1", "q2"], "latency_ms": [12.0, 30.5]})
    >>> read_costs(costs).rows()
    [('q1', 12.0), ('q2', 30.5)]
    """
    name = "the costs frame"
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        frame = read_table_file(Path(name), "costs")
    elif isinstance(source, pl.DataFrame):
        frame = source
    else:
        msg = (
            "The 'costs' parameter must be a path or a polars frame. "
            f"Got {type(source).__name__} instead."
        )
        raise InputFormatError(msg)
    if "query_id" not in frame.columns:
        msg = f"{name}: a costs table needs a query_id column; it has {', '.join(frame.columns)}."
        raise InputFormatError(msg)
    present = [column for column in COST_COLUMNS if column in frame.columns]
    if not present:
        msg = (
            f"{name}: a costs table needs at least one of {', '.join(COST_COLUMNS)}; it has "
            f"{', '.join(frame.columns)}."
        )
        raise InputFormatError(msg)
    keys = [column for column in ("system", "query_id") if column in frame.columns]
    out = frame.select(
        *(pl.col(key).cast(pl.String) for key in keys),
        *(pl.col(column).cast(pl.Float64, strict=False) for column in present),
    )
    for column in present:
        values = out[column]
        bad = (values.is_null() | values.is_nan() | values.is_infinite() | (values < 0)).arg_true()
        if bad.len():
            row = int(bad[0])
            msg = (
                f"{name}, row {row + 1}: {column} must be a finite number >= 0; got "
                f"{frame[column][row]!r}."
            )
            raise InputFormatError(msg)
    repeated = out.filter(out.select(keys).is_duplicated())
    if repeated.height:
        first = repeated.row(0, named=True)
        what = ", ".join(f"{key} {first[key]!r}" for key in keys)
        msg = f"{name}: {what} has {repeated.height} rows; give one row per (system, query)."
        raise InputFormatError(msg)
    return out
