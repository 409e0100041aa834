"""The files the command line writes: the format their names say, or a refusal.

A table output (``--per-query``, and ``--out`` of curves, compare and agreement) is
written as its extension says: Parquet (``.parquet``, ``.pq``; the run configuration in
the file's metadata), CSV (``.csv``), JSON lines (``.jsonl``, ``.ndjson``) or one JSON
array of objects (``.json``); ``-`` writes CSV to stdout, which then carries that table
only. HTML outputs (report, dashboard) must end in ``.html`` or ``.htm``; a fused run is
TREC text, or Parquet or CSV by its extension. Every name is checked before any work, and
a missing folder is named as such. Files are written atomically (a temporary file beside
the target, then a rename).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from rankset.errors import ParameterError

if TYPE_CHECKING:
    import polars as pl

__all__ = ["STDOUT", "check_outputs", "write_table", "writes_stdout"]

#: The output name that means standard output.
STDOUT: Final = "-"
TableFormat: TypeAlias = Literal["parquet", "csv", "jsonl", "json"]
_TABLE_FORMATS: Final[Mapping[str, TableFormat]] = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}
_HTML: Final = (".html", ".htm")
# Names a fused run cannot take: write_run writes TREC text, Parquet or CSV only.
_NOT_A_RUN: Final = (".json", ".jsonl", ".ndjson", ".tsv", ".yaml", ".yml", *_HTML)
_FLAGS: Final = {"per_query": "--per-query", "out": "--out"}
# (command, option) -> what the option writes; options not listed are left alone.
_KINDS: Final[Mapping[tuple[str, str], str]] = {
    ("evaluate", "per_query"): "table",
    ("curves", "out"): "table",
    ("curves", "per_query"): "table",
    ("compare", "out"): "table",
    ("diagnose", "per_query"): "table",
    ("agreement", "out"): "table",
    ("report", "out"): "html",
    ("dashboard", "out"): "html",
    ("fuse", "out"): "run",
    ("partition", "out"): "folder",
}
_TABLE_NAMES: Final = ".parquet, .csv, .jsonl or .json"


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output whose name the command cannot honour.

    Raises
    ------
    ParameterError
        An extension the output cannot be written as, ``-`` where stdout cannot take
        it (or twice, or beside ``--json``), a name that is a folder, or a folder that
        does not exist.
    """
    to_stdout = []
    for dest, flag in _FLAGS.items():
        value = getattr(args, dest, None)
        kind = _KINDS.get((args.command, dest))
        if value is None or kind is None:
            continue
        if value == STDOUT:
            if kind != "table":
                msg = f"{flag} -: {_what(kind)} cannot go to stdout; give a file name."
                raise ParameterError(msg)
            to_stdout.append(flag)
            continue
        _check_name(flag, value, kind)
    if len(to_stdout) > 1:
        raise ParameterError(
            f"Only one output can go to stdout ('-'); got {' and '.join(to_stdout)}."
        )
    if to_stdout and (getattr(args, "json", False) or getattr(args, "table_format", None)):
        other = "--json" if getattr(args, "json", False) else "--format"
        msg = f"{to_stdout[0]} - writes the table to stdout, where {other} prints too: drop one."
        raise ParameterError(msg)


def writes_stdout(args: argparse.Namespace) -> bool:
    """Whether an output goes to stdout (``-``): the command then prints nothing else there."""
    return any(getattr(args, dest, None) == STDOUT for dest in _FLAGS)


def write_table(frame: pl.DataFrame, path: str, *, config: Mapping[str, Any] | None = None) -> None:
    """Write ``frame`` as ``path``'s extension says (checked by :func:`check_outputs`).

    ``config`` goes into a Parquet file's metadata; CSV and JSON have no place for it.
    """
    from rankset.io import write_parquet
    from rankset.io._shared import atomic_path

    if path == STDOUT:
        _refuse_nested(frame, path)
        sys.stdout.write(frame.write_csv())
        sys.stdout.flush()
        return
    fmt = _TABLE_FORMATS[Path(path).suffix.lower()]
    if fmt == "parquet":
        write_parquet(frame, path, config=config)
        return
    if fmt == "csv":
        _refuse_nested(frame, path)
    with atomic_path(path) as temp:
        if fmt == "csv":
            frame.write_csv(temp)
        elif fmt == "jsonl":
            frame.write_ndjson(temp)
        else:
            frame.write_json(temp)


def _check_name(flag: str, value: str, kind: str) -> None:
    if kind == "folder":  # a dataset folder to create: rankset.partition checks it
        return
    path = Path(value)
    if value.endswith(("/", os.sep)) or path.is_dir():
        example = path / ("report.html" if kind == "html" else "per_query.parquet")
        msg = f"{flag} {value} names a folder; give the file to write in it (e.g. {example})."
        raise ParameterError(msg)
    # A run may be gzipped (write_run compresses on .gz); a table or a page may not.
    suffix = _suffix(value) if kind == "run" else path.suffix.lower()
    if kind == "table" and suffix not in _TABLE_FORMATS:
        msg = (
            f"{flag} {value}: cannot write a table as {suffix or 'a name without extension'}; "
            f"end the name in {_TABLE_NAMES} (or give - for CSV on stdout)."
        )
        raise ParameterError(msg)
    if kind == "html" and suffix not in _HTML:
        msg = f"{flag} {value}: this writes an HTML page; end the name in .html or .htm."
        raise ParameterError(msg)
    if kind == "run" and suffix in _NOT_A_RUN:
        msg = (
            f"{flag} {value}: a run is written as TREC text (any other name), .parquet or "
            f".csv, optionally .gz; not as {suffix}."
        )
        raise ParameterError(msg)
    folder = path.parent
    if not folder.is_dir():
        msg = f"{flag} {value}: the folder {folder} does not exist; create it first."
        raise ParameterError(msg)


def _suffix(name: str) -> str:
    stem = name[:-3] if name.lower().endswith(".gz") else name
    return Path(stem).suffix.lower()


def _what(kind: str) -> str:
    return {"html": "an HTML page", "run": "a fused run", "folder": "a dataset folder"}[kind]


def _refuse_nested(frame: pl.DataFrame, path: str) -> None:
    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    if nested:
        msg = (
            f"{path}: CSV cannot hold the column(s) {', '.join(nested)} (lists); "
            "write .parquet, .jsonl or .json instead."
        )
        raise ParameterError(msg)
