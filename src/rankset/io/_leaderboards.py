"""Leaderboard files: per-topic and aggregate values of systems, as other tools write them.

A leaderboard is what an evaluation tool prints: one value per system, topic and measure,
with the aggregate (the mean over the topics) on rows whose topic is ``all``. The formats
are those of the TREC AutoJudge tools (``autojudge-evaluate``):

- ``trec_eval``: ``measure topic value`` (trec_eval ``-q``'s output); the file's name is
  the system, so a folder holds one file per system;
- ``tot``: ``system measure topic value``;
- ``ir_measures``: ``system topic measure value``;
- ``ranking``: ``topic Q0 system rank value measure`` (a TREC run's layout);
- ``jsonl``: one JSON object per line with ``run_id``, ``topic_id``, ``measure``, ``value``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

from rankset.errors import InputFormatError, ParameterError
from rankset.io._sources import decode_text, read_bytes

__all__ = ["LEADERBOARD_FORMATS", "read_leaderboard"]

#: The formats :func:`read_leaderboard` reads, each with the order of its fields.
LEADERBOARD_FORMATS: dict[str, tuple[str, ...]] = {
    "trec_eval": ("measure", "topic", "value"),
    "tot": ("system", "measure", "topic", "value"),
    "ir_measures": ("system", "topic", "measure", "value"),
    "ranking": ("topic", "Q0", "system", "rank", "value", "measure"),
    "jsonl": ("run_id", "topic_id", "measure", "value"),
}
_SCHEMA = {"system": pl.String, "query_id": pl.String, "metric": pl.String, "value": pl.Float64}
_Row = tuple[str, str, str, float]


def read_leaderboard(
    source: Any, format: str = "ir_measures", *, header: bool = False
) -> pl.DataFrame:
    r"""Read a leaderboard: ``system, query_id, metric, value``, in the order of the file.

    Parameters
    ----------
    source
        A file (plain or gzip-compressed), a folder (every file in it whose name does not
        start with a dot, in name order), or a frame that already has the four columns.
    format
        ``"trec_eval"`` (``measure topic value``, the file's name is the system),
        ``"tot"`` (``system measure topic value``), ``"ir_measures"`` (``system topic
        measure value``), ``"ranking"`` (``topic Q0 system rank value measure``) or
        ``"jsonl"`` (objects with ``run_id``, ``topic_id``, ``measure``, ``value``).
        Fields are separated by white space.
    header
        Skip the first line of each file.

    Returns
    -------
    polars.DataFrame
        ``system, query_id, metric, value`` (String, String, String, Float64); the
        aggregate rows keep the topic ``all``.

    Raises
    ------
    InputFormatError
        A line with the wrong number of fields or a value that is not a finite number:
        the message names the file, the line and what the format expects.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "board.txt"
    >>> _ = path.write_text("bm25 q1 ndcg@10 0.5\nbm25 all ndcg@10 0.5\n")
    >>> read_leaderboard(path).rows()
    [('bm25', 'q1', 'ndcg@10', 0.5), ('bm25', 'all', 'ndcg@10', 0.5)]
    >>> _ = path.write_text("bm25 q1 0.5\n")
    >>> read_leaderboard(path)
    Traceback (most recent call last):
    ...
    rankset.errors.InputFormatError: ...board.txt, line 1: expected 4 fields ...
    """
    if format not in LEADERBOARD_FORMATS:
        msg = (
            f"The 'format' parameter must be one of {', '.join(LEADERBOARD_FORMATS)}. "
            f"Got {format!r} instead."
        )
        raise ParameterError(msg)
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        return _checked_frame(source)
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            msg = f"{path}: the folder holds no leaderboard file"
            raise InputFormatError(msg)
    elif path.is_file():
        files = [path]
    else:
        msg = f"{path}: no such file or folder"
        raise InputFormatError(msg)
    rows = [row for file in files for row in _rows(file, format, header=header)]
    return pl.DataFrame(rows, schema=_SCHEMA, orient="row")


def _checked_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Check a frame given in memory: the four columns, cast to their dtypes."""
    missing = [c for c in _SCHEMA if c not in frame.columns]
    if missing:
        msg = (
            f"a leaderboard frame needs the columns system, query_id, metric, value; "
            f"it lacks {', '.join(missing)}"
        )
        raise InputFormatError(msg)
    try:
        return frame.select(pl.col(c).cast(dtype) for c, dtype in _SCHEMA.items())
    except pl.exceptions.PolarsError as error:
        msg = f"a leaderboard frame's columns must be strings and a number value: {error}"
        raise InputFormatError(msg) from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    text = decode_text(read_bytes(path, str(path)), str(path))
    yield from enumerate(text.splitlines(), start=1)


def _rows(path: Path, format: str, *, header: bool) -> Iterator[_Row]:
    """Parse one file's lines; blank lines are skipped."""
    for lineno, line in _lines(path):
        if (header and lineno == 1) or not line.strip():
            continue
        yield _parse(line, format, path, lineno)


def _parse(line: str, format: str, path: Path, lineno: int) -> _Row:
    expected = LEADERBOARD_FORMATS[format]
    where = f"{path}, line {lineno}"
    if format == "jsonl":
        try:
            record = json.loads(line)
            fields = {name: record[name] for name in expected}
        except (ValueError, KeyError, TypeError):
            msg = f"{where}: expected a JSON object with {', '.join(expected)}: {line[:80]!r}"
            raise InputFormatError(msg) from None
        system, topic, metric = (str(fields[n]) for n in ("run_id", "topic_id", "measure"))
        return system, topic, metric, _number(fields["value"], where)
    parts = line.split()
    if len(parts) != len(expected):
        msg = (
            f"{where}: expected {len(expected)} fields ({' '.join(expected)}) in the "
            f"{format} format, found {len(parts)}: {line[:80]!r}"
        )
        raise InputFormatError(msg)
    field = dict(zip(expected, parts, strict=True))
    system = path.name if format == "trec_eval" else field["system"]
    return system, field["topic"], field["measure"], _number(field["value"], where)


def _number(value: object, where: str) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number):
        msg = f"{where}: expected the value to be a finite number, found {value!r}"
        raise InputFormatError(msg)
    return number
