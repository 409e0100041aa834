"""Acceptable answer strings per query, for ``containment@k``.

From a mapping, a frame, or a file: tab-separated ``query_id<TAB>answer`` lines, or
JSON/JSONL objects with an id and one or more answers.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import polars as pl

from rankset.errors import InputFormatError
from rankset.io._json import loads
from rankset.io._parsed import ANSWERS_SCHEMA, show_line
from rankset.io._sources import decode_text, read_bytes, split_lines, stream_bytes

__all__ = ["read_answers"]

_ANSWER_ID_KEYS: Final = ("query_id", "qid", "id")
_ANSWER_KEYS: Final = ("answers", "answer", "expected_answer")


def read_answers(
    source: str | os.PathLike[str] | pl.DataFrame | pl.LazyFrame | Mapping[str, Any],
) -> pl.LazyFrame:
    r"""Read acceptable answer strings per query (for ``containment@k``).

    Parameters
    ----------
    source
        A ``{query_id: answer or [answers]}`` mapping; a frame with ``query_id`` and
        ``answer`` (str or list of str) columns; or a file: tab-separated lines
        ``query_id<TAB>answer`` (one answer per line, repeat the id for more; ``#``
        comment lines skipped), or JSON/JSONL objects with an id (``query_id``, ``qid`` or
        ``id``) and ``answers``, ``answer`` or ``expected_answer`` (a string or a list).

    Returns
    -------
    polars.LazyFrame
        ``query_id`` str, ``answer`` str; one row per acceptable answer.

    Raises
    ------
    InputFormatError
        A frame, line or record without a query id and an answer.

    Examples
    --------
    >>> import io
    >>> read_answers(io.StringIO("q1\t30 days\nq1\tone month\n")).collect()["answer"].to_list()
    ['30 days', 'one month']
    >>> read_answers({"q2": ["yes", "y"]}).collect().rows()
    [('q2', 'yes'), ('q2', 'y')]
    """
    if isinstance(source, Mapping):
        rows = [
            (str(query), str(answer))
            for query, value in source.items()
            for answer in ([value] if isinstance(value, str) else value)
        ]
        return pl.LazyFrame(rows, schema=ANSWERS_SCHEMA, orient="row")
    if isinstance(source, pl.DataFrame | pl.LazyFrame):
        return _answers_from_frame(source.lazy())
    if isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        data = read_bytes(Path(source), name)
    else:
        name = "<stream>"
        data = stream_bytes(source, name)
    text = decode_text(data, name)
    if text.lstrip()[:1] in ("{", "["):
        return _answers_from_json(text, name).lazy()
    return _answers_from_tsv(data, name).lazy()


def _answers_from_frame(frame: pl.LazyFrame) -> pl.LazyFrame:
    names = frame.collect_schema().names()
    query = next((c for c in _ANSWER_ID_KEYS if c in names), None)
    answer = next((c for c in _ANSWER_KEYS if c in names), None)
    if query is None or answer is None:
        msg = (
            "answers frame: expected a query id column (query_id, qid or id) and an "
            f"answer column (answer or answers); found {', '.join(names) or 'none'}"
        )
        raise InputFormatError(msg)
    frame = frame.select(
        pl.col(query).cast(pl.String).alias("query_id"), pl.col(answer).alias("answer")
    )
    if isinstance(frame.collect_schema()["answer"], pl.List):
        frame = frame.explode("answer")
    return frame.select("query_id", pl.col("answer").cast(pl.String)).drop_nulls()


def _answers_from_json(text: str, name: str) -> pl.DataFrame:
    stripped = text.lstrip()
    records: list[Any]
    if stripped.startswith("["):
        records = loads(text, name)
    else:
        records = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                records.append(loads(line, f"{name}, line {lineno}"))
    rows: list[tuple[str, str]] = []
    for number, record in enumerate(records, start=1):
        query = next((record[key] for key in _ANSWER_ID_KEYS if key in record), None)
        value = next((record[key] for key in _ANSWER_KEYS if key in record), None)
        if query is None or value is None:
            msg = (
                f"{name}, record {number}: expected an id (query_id, qid or id) and answers "
                "(answers, answer or expected_answer)"
            )
            raise InputFormatError(msg)
        for answer in [value] if isinstance(value, str) else value:
            rows.append((str(query), str(answer)))
    return pl.DataFrame(rows, schema=ANSWERS_SCHEMA, orient="row")


def _answers_from_tsv(data: bytes, name: str) -> pl.DataFrame:
    lines = split_lines(data, name).filter(
        pl.col("line").is_not_null() & ~pl.col("line").str.strip_chars_start().str.starts_with("#")
    )
    if lines.height == 0:
        msg = f"{name}: no data lines; expected 'query_id<TAB>answer' lines"
        raise InputFormatError(msg)
    parts = lines.with_columns(
        query_id=pl.col("line").str.split_exact("\t", 1).struct.field("field_0").str.strip_chars(),
        answer=pl.col("line").str.splitn("\t", 2).struct.field("field_1"),
    )
    bad = parts.filter(pl.col("answer").is_null() | (pl.col("query_id") == ""))
    if bad.height:
        lineno, line = bad.select("lineno", "line").row(0)
        msg = f"{name}, line {lineno}: expected 'query_id<TAB>answer', found {show_line(line)}"
        raise InputFormatError(msg)
    return parts.select("query_id", "answer")
