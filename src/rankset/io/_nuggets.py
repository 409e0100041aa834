"""Nugget labels: which passages support which facts (nuggets) of a query's answer.

One row per (query, nugget, passage): ``query_id, nugget_id, doc_id, support`` and the
nugget's ``importance``. Read from a frame, from Parquet, CSV/TSV or JSONL with those
columns, or from nuggetizer's assignment output (JSONL, one record per query and passage
with its list of nuggets).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

import polars as pl

from rankset.errors import InputFormatError
from rankset.io._sources import read_bytes

__all__ = ["NUGGET_SCHEMA", "read_nuggets", "read_subtopics"]

#: The columns and dtypes of a nugget label frame.
NUGGET_SCHEMA: Final = {
    "query_id": pl.String,
    "nugget_id": pl.String,
    "doc_id": pl.String,
    "support": pl.Float64,
    "importance": pl.Float64,
    "vital": pl.Boolean,
}
# Support: full = 1, partial = 0.5, none = 0 (nuggetizer's and RAGChecker's words too).
_SUPPORT: Final = {
    "full": 1.0,
    "support": 1.0,
    "supported": 1.0,
    "entailment": 1.0,
    "partial": 0.5,
    "partial_support": 0.5,
    "partially_supported": 0.5,
    "none": 0.0,
    "not_support": 0.0,
    "no_support": 0.0,
    "unsupported": 0.0,
    "neutral": 0.0,
    "contradiction": 0.0,
}
# Importance: vital weighs 1 and okay 0.5, as in TREC 2024 RAG's weighted nugget score.
_IMPORTANCE: Final = {"vital": 1.0, "okay": 0.5, "ok": 0.5}
_ALIASES: Final = {
    "qid": "query_id",
    "docid": "doc_id",
    "pid": "doc_id",
    "nugget": "nugget_id",
    "assignment": "support",
}


def read_nuggets(source: Any) -> pl.DataFrame:
    """Read nugget labels: per query, nugget and passage, the support and the importance.

    Parameters
    ----------
    source
        A Polars frame, or a path to Parquet, CSV, TSV or JSONL with the columns
        ``query_id`` (or ``qid``), ``nugget_id`` (or ``nugget``; else the nugget's
        ``text`` names it), ``doc_id`` (or ``docid``), ``support`` (or ``assignment``)
        and ``importance``; or nuggetizer's assignment JSONL: one record per query and
        passage (``qid``, ``docid``) holding a ``nuggets`` list of ``{text, importance,
        assignment}``.

    Returns
    -------
    polars.DataFrame
        :data:`NUGGET_SCHEMA`: ``support`` is 1 (full: ``support``, ``full``), 0.5
        (``partial_support``, ``partial``) or 0 (``not_support``, ``none``); a number in
        [0, 1] is kept. ``importance`` is 1 for ``vital``, 0.5 for ``okay``, or the number
        given; ``vital`` is true for ``vital`` (or a number >= 1). A missing importance is
        vital.

    Raises
    ------
    InputFormatError
        A missing column, an unknown support or importance word (with the row), a
        nugget given two importances, or a (query, nugget, passage) given twice.

    Examples
    --------
    >>> frame = pl.DataFrame(
    ...     {"qid": ["q1", "q1"], "nugget": ["n1", "n2"], "docid": ["d1", "d1"],
    ...      "assignment": ["support", "partial_support"], "importance": ["vital", "okay"]}
    ... )
    >>> read_nuggets(frame).select("nugget_id", "support", "importance", "vital").rows()
    [('n1', 1.0, 1.0, True), ('n2', 0.5, 0.5, False)]
    """
    where = "the nugget frame"
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        frame = source
    elif isinstance(source, str | os.PathLike):
        where = str(source)
        frame = _read_file(Path(source))
    else:
        msg = (
            "The 'nuggets' parameter must be a polars frame or a path to Parquet, CSV, TSV or "
            f"JSONL. Got {type(source).__name__} instead."
        )
        raise InputFormatError(msg)
    return _normalise(frame, where)


def read_subtopics(source: Any, *, relevance_level: float = 1.0) -> pl.DataFrame:
    """Read subtopic (intent) labels, TREC's diversity qrels, as nugget labels.

    Each subtopic of a query becomes a nugget; a passage whose grade for it is at least
    ``relevance_level`` supports it fully (support 1), any other labelled passage not
    (support 0). Every subtopic weighs the same (importance 1, vital). Pass the result as
    ``nuggets=`` to :func:`rankset.evaluate` for the intent-aware measures (``alpha_ndcg``,
    ``err_ia``, ``nrbp``, ``map_ia``, ``p_ia``, ``subtopic_recall``...).

    Parameters
    ----------
    source
        A path to a diversity qrels file, one ``query subtopic doc grade`` line per
        judgement (whitespace-separated, as NIST's ndeval reads it), or a Polars frame with
        ``query_id``, ``subtopic`` (or ``iteration``), ``doc_id`` and ``grade`` (or
        ``relevance``).
    relevance_level
        The grade from which a passage is relevant to a subtopic (ndeval: 1).

    Returns
    -------
    polars.DataFrame
        :data:`NUGGET_SCHEMA`, a row per judgement.

    Examples
    --------
    >>> frame = pl.DataFrame({"query_id": "q", "subtopic": ["1", "2", "2"],
    ...                       "doc_id": ["a", "a", "b"], "grade": [1, 0, 2]})
    >>> read_subtopics(frame).select("nugget_id", "doc_id", "support").rows()
    [('1', 'a', 1.0), ('2', 'a', 0.0), ('2', 'b', 1.0)]
    """
    if isinstance(source, pl.DataFrame):
        where = "subtopic labels"
        frame = source.rename(
            {old: new for old, new in _SUBTOPIC_ALIASES.items() if old in source.columns}
        )
    elif isinstance(source, str | os.PathLike):
        where = str(source)
        frame = _read_subtopic_file(Path(source))
    else:
        msg = (
            "Subtopic labels must be a polars frame or a path to a diversity qrels file. "
            f"Got {type(source).__name__} instead."
        )
        raise InputFormatError(msg)
    _require(frame, ("query_id", "subtopic", "doc_id", "grade"), where, "")
    # a file's line numbers (blank lines counted), else a frame's row numbers
    word = "line" if "_line" in frame.columns else "row"
    if "_line" not in frame.columns:
        frame = frame.with_row_index("_line", offset=1)
    grade = pl.col("grade").cast(pl.Float64, strict=False)
    unreadable = frame.filter(grade.is_null() | grade.is_nan() | pl.col("grade").is_null())
    if unreadable.height:
        row = unreadable.row(0, named=True)
        msg = f"{where}, {word} {row['_line']}: grade {row['grade']!r} is not a number."
        raise InputFormatError(msg)
    key = ["query_id", "subtopic", "doc_id"]
    twice = frame.filter(pl.struct(key).is_duplicated())
    if twice.height:
        first = twice.row(0, named=True)
        again = twice.filter([pl.col(c) == first[c] for c in key])["_line"].to_list()
        msg = (
            f"{where}, {word}s {' and '.join(map(str, again[:2]))}: query {first['query_id']!r}, "
            f"subtopic {first['subtopic']!r}, document {first['doc_id']!r} judged twice; "
            "expected once."
        )
        raise InputFormatError(msg)
    nuggets = frame.select(
        "query_id",
        pl.col("subtopic").alias("nugget_id"),
        "doc_id",
        support=(grade >= relevance_level).cast(pl.Float64),
        importance=pl.lit(1.0),
    )
    return _normalise(nuggets, where)


_SUBTOPIC_ALIASES: Final = {"iteration": "subtopic", "relevance": "grade", "nugget_id": "subtopic"}


def _require(frame: pl.DataFrame, needed: tuple[str, ...], where: str, optional: str) -> None:
    """Refuse a frame without the ``needed`` columns, naming them and what it has."""
    missing = [column for column in needed if column not in frame.columns]
    if missing:
        expected = [*needed, optional] if optional else list(needed)
        msg = (
            f"{where}: no column(s) {', '.join(missing)}; expected "
            f"{', '.join(expected[:-1])} and {expected[-1]} (columns: {', '.join(frame.columns)})."
        )
        raise InputFormatError(msg)


def _read_subtopic_file(path: Path) -> pl.DataFrame:
    rows = []
    text = read_bytes(path, str(path)).decode("utf-8-sig")
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            msg = (
                f"{path}, line {number}: {len(fields)} fields in {line.strip()!r}; expected "
                "4: query subtopic doc grade."
            )
            raise InputFormatError(msg)
        rows.append([*fields, number])
    if not rows:
        raise InputFormatError(f"{path}: no judgements; expected query subtopic doc grade lines.")
    schema = {c: pl.String for c in ("query_id", "subtopic", "doc_id", "grade")}
    return pl.DataFrame(rows, schema={**schema, "_line": pl.Int64}, orient="row")


def _read_file(path: Path) -> pl.DataFrame:
    name = path.name.lower().removesuffix(".gz")
    if name.endswith(".parquet"):
        return pl.read_parquet(path)
    data = read_bytes(path, str(path))
    text = data.decode("utf-8-sig")
    if name.endswith((".csv", ".tsv")):
        separator = "\t" if name.endswith(".tsv") else ","
        return pl.read_csv(data, separator=separator, infer_schema=False)
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            msg = f"{path}, line {number}: not JSON ({error.msg}); expected one object per line."
            raise InputFormatError(msg) from None
        if not isinstance(record, dict):
            msg = f"{path}, line {number}: expected a JSON object, got {type(record).__name__}."
            raise InputFormatError(msg)
        if isinstance(record.get("nuggets"), list):  # nuggetizer: one record per passage
            base = {k: v for k, v in record.items() if k != "nuggets"}
            for nugget in record["nuggets"]:
                if not isinstance(nugget, dict):
                    msg = f"{path}, line {number}: each of 'nuggets' must be an object."
                    raise InputFormatError(msg)
                records.append({**base, **nugget})
        else:
            records.append(record)
    if not records:
        raise InputFormatError(f"{path}: no nugget rows; expected JSONL records.")
    return pl.DataFrame(
        [{key: None if value is None else str(value) for key, value in r.items()} for r in records]
    )


def _normalise(frame: pl.DataFrame, where: str) -> pl.DataFrame:
    renames = {old: new for old, new in _ALIASES.items() if old in frame.columns}
    renames = {old: new for old, new in renames.items() if new not in frame.columns}
    frame = frame.rename(renames)
    if "nugget_id" not in frame.columns and "text" in frame.columns:
        frame = frame.with_columns(pl.col("text").alias("nugget_id"))
    if "importance" not in frame.columns:
        frame = frame.with_columns(pl.lit("vital").alias("importance"))
    _require(frame, ("query_id", "nugget_id", "doc_id", "support"), where, "importance")
    frame = frame.select(
        *(pl.col(c).cast(pl.String) for c in ("query_id", "nugget_id", "doc_id")),
        pl.col("support").cast(pl.String).str.strip_chars().str.to_lowercase(),
        pl.col("importance").cast(pl.String).str.strip_chars().str.to_lowercase(),
    ).with_row_index("_row", offset=1)
    nulls = frame.filter(pl.any_horizontal(pl.all().exclude("_row").is_null()))
    if nulls.height:
        row = nulls.row(0, named=True)
        msg = f"{where}, row {row['_row']}: an empty field in {row}; every field is needed."
        raise InputFormatError(msg)
    support = _levels(frame, "support", _SUPPORT, where)
    importance = _levels(frame, "importance", _IMPORTANCE, where, bounded=False)
    out = frame.with_columns(
        support=support,
        importance=importance,
        vital=(pl.col("importance") == "vital")
        | (
            importance.is_not_null()
            & (importance >= 1)
            & ~pl.col("importance").is_in(["okay", "ok"])
        ),
    )
    twice = out.filter(pl.struct("query_id", "nugget_id", "doc_id").is_duplicated())
    if twice.height:
        row = twice.row(0, named=True)
        msg = (
            f"{where}: query {row['query_id']!r}, nugget {row['nugget_id']!r}, passage "
            f"{row['doc_id']!r} is given {twice.height} times; expected once."
        )
        raise InputFormatError(msg)
    conflicting = out.group_by("query_id", "nugget_id").agg(pl.col("importance").n_unique())
    conflicting = conflicting.filter(pl.col("importance") > 1)
    if conflicting.height:
        row = conflicting.row(0, named=True)
        msg = (
            f"{where}: nugget {row['nugget_id']!r} of query {row['query_id']!r} has "
            f"{row['importance']} different importances; expected one."
        )
        raise InputFormatError(msg)
    return out.select(list(NUGGET_SCHEMA)).cast(NUGGET_SCHEMA)  # type: ignore[arg-type]


def _levels(
    frame: pl.DataFrame,
    column: str,
    words: dict[str, float],
    where: str,
    *,
    bounded: bool = True,
) -> pl.Expr:
    """Return the column as numbers: a known word's value, else the number given."""
    number = pl.col(column).cast(pl.Float64, strict=False)
    value = pl.col(column).replace_strict(words, default=None, return_dtype=pl.Float64)
    combined = pl.coalesce(value, number)
    valid = combined.is_not_null() & combined.is_finite() & (combined >= 0)
    if bounded:
        valid = valid & (combined <= 1)
    bad = frame.filter(~valid)
    if bad.height:
        row = bad.row(0, named=True)
        allowed = ", ".join(words)
        numbers = "a number in [0, 1]" if bounded else "a number >= 0"
        msg = (
            f"{where}, row {row['_row']}: {column} {row[column]!r} is not one of {allowed} or "
            f"{numbers}."
        )
        raise InputFormatError(msg)
    return combined
