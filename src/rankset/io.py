"""Read runs, labels, cutoffs and answers from files and objects; write runs and labels.

This module only parses: it turns each supported input into Polars frames with the
canonical column names and dtypes. Ordering, duplicate checks and the choice of scored
queries live in the schema module.

Supported inputs
----------------
- TREC text: runs ``qid Q0 docid rank score tag`` and qrels ``qid iter docid grade``
  (the default for any file name without a recognised extension). As in trec_eval,
  fields after a run's tag are ignored, lines whose first non-blank character is ``#``
  are comments, and blank lines are skipped.
- ``samples``: JSON or JSONL samples with ``expected_output``, ``actual_output``,
  ``metadata.k`` and ``expected_answer``.
- ``rag-gs``: golden-set JSONL with ``qid``, ``doc_id`` and ``grade_1_5``.
- ``dataset-json``: ``{"queries": [{"query_id", "relevant_documents", "relevance_scores"}]}``.
- ``records-jsonl``: JSONL records with run or label columns.
- Parquet, CSV and TSV tables, and in-memory Polars, pandas and pyarrow frames.
- ``ranx``: mappings ``{query_id: {doc_id: number}}``.

Gzip compression is detected from the content, whatever the file is called.
"""

from __future__ import annotations

import contextlib
import glob as _glob
import gzip
import io
import json
import numbers
import os
import re
import secrets
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, Literal, TypeAlias, cast, get_args

import polars as pl

from rankset._validation import check_choice
from rankset.errors import InputFormatError, ParameterError
from rankset.partitioned import MANIFEST, read_partitioned

if TYPE_CHECKING:
    import pandas
    import pyarrow

__all__ = [
    "InputFormat",
    "Kind",
    "ParsedInput",
    "Source",
    "WriteFormat",
    "atomic_path",
    "read",
    "read_answers",
    "read_labels",
    "read_run",
    "write_labels",
    "write_parquet",
    "write_run",
]

Source: TypeAlias = (
    "str | os.PathLike[str] | IO[bytes] | IO[str] | pl.DataFrame | pl.LazyFrame"
    " | pandas.DataFrame | pyarrow.Table | Mapping[str, Mapping[str, float]]"
)
InputFormat: TypeAlias = Literal[
    "trec",
    "samples",
    "rag-gs",
    "dataset-json",
    "parquet",
    "csv",
    "tsv",
    "ranx",
    "frame",
    "records-jsonl",
]
Kind: TypeAlias = Literal["auto", "run", "labels"]
WriteFormat: TypeAlias = Literal["trec", "parquet", "csv"]

_INPUT_FORMATS: Final = frozenset(get_args(InputFormat))
_KINDS: Final = frozenset(get_args(Kind))
_WRITE_FORMATS: Final = frozenset(get_args(WriteFormat))
_FILE_FORMATS: Final = _INPUT_FORMATS - {"frame"}
_JSON_FORMATS: Final = frozenset({"samples", "rag-gs", "dataset-json", "records-jsonl", "ranx"})

RUN_SCHEMA: Final = pl.Schema(
    {
        "query_id": pl.String,
        "doc_id": pl.String,
        "rank": pl.Int64,
        "score": pl.Float64,
        "system": pl.String,
    }
)
LABELS_SCHEMA: Final = pl.Schema({"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64})
CUTOFFS_SCHEMA: Final = pl.Schema({"query_id": pl.String, "k": pl.Int64})
ANSWERS_SCHEMA: Final = pl.Schema({"query_id": pl.String, "answer": pl.String})

# Source column names accepted for each canonical column, in order of preference: when a
# table has several (say `query_id` and `query`), the earlier one wins.
_ALIASES: Final[Mapping[str, tuple[str, ...]]] = {
    "query_id": ("query_id", "qid", "topic", "query"),
    "doc_id": ("doc_id", "docid", "docno", "pid", "id"),
    "rank": ("rank",),
    "score": ("score", "sim"),
    "grade": ("grade", "rel", "relevance", "label", "grade_1_5"),
    "system": ("system", "tag", "run_id", "run"),
    "text": ("text", "content", "passage"),
}
_CANONICAL_COLUMNS: Final = frozenset(_ALIASES)
_NUMERIC_TARGETS: Final[Mapping[str, pl.DataType]] = {
    "rank": pl.Int64(),
    "score": pl.Float64(),
    "grade": pl.Float64(),
    "k": pl.Int64(),
}

_GZIP_MAGIC: Final = b"\x1f\x8b"
_PARQUET_MAGIC: Final = b"PAR1"
_EXTENSION_FORMATS: Final[Mapping[str, str]] = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "tsv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
}
# Extensions that name a format and so are not part of a run's display stem.
_FORMAT_EXTENSIONS: Final = frozenset(
    {*_EXTENSION_FORMATS, ".trec", ".run", ".txt", ".qrels", ".res"}
)

_MAX_SHOWN_LINE: Final = 200


@dataclass(frozen=True, eq=False)
class ParsedInput:
    """The tables parsed from one source, each with canonical columns and dtypes.

    ``eq=False`` because comparing lazy frames is not a boolean operation.

    Attributes
    ----------
    source
        Display name for messages: the path as given, or ``"<polars.DataFrame>"``,
        ``"<pandas.DataFrame>"``, ``"<pyarrow.Table>"``, ``"<dict>"``, ``"<stream>"``.
    stem
        File name without ``.gz`` and without the format extension (``"bm25.dl19"`` for
        ``bm25.dl19.trec.gz``); None for in-memory objects and streams.
    format
        The format the source was parsed as.
    run
        ``query_id`` str, ``doc_id`` str, ``rank`` i64, ``score`` f64, ``system`` str
        (rank, score and system nullable), plus ``text`` str when the source has text.
    labels
        ``query_id`` str, ``doc_id`` str, ``grade`` f64.
    cutoffs
        ``query_id`` str, ``k`` i64.
    answers
        ``query_id`` str, ``answer`` str (one row per acceptable answer).
    buckets
        For a dataset written by :func:`rankset.partition`: its number of buckets (the
        run then has a ``bucket`` column too).
    """

    source: str
    stem: str | None
    format: InputFormat
    run: pl.LazyFrame | None = None
    labels: pl.LazyFrame | None = None
    cutoffs: pl.LazyFrame | None = None
    answers: pl.LazyFrame | None = None
    buckets: int | None = None  # a partitioned dataset's bucket count (rankset.partition)
    profile: dict[str, Any] | None = None  # a dataset's run profile, from its manifest
    scan: TextScan | None = None  # a lazily scanned TREC run (evaluation verifies it)


# --------------------------------------------------------------------------------------
# Public readers
# --------------------------------------------------------------------------------------


def read(
    source: Source,
    *,
    format: InputFormat | None = None,
    columns: Mapping[str, str] | None = None,
    kind: Kind = "auto",
) -> ParsedInput:
    """Parse a run, labels, cutoffs and answers from a file, stream or in-memory object.

    Parameters
    ----------
    source
        A path (``str`` or path-like; ``.gz`` is decompressed transparently), a glob
        pattern or a folder of Parquet files read as one table (``runs/bm25/*.parquet``;
        named after the folder), a binary or text file object, a Polars
        DataFrame/LazyFrame, a pandas DataFrame, a pyarrow Table, or a ranx-style
        mapping ``{query_id: {doc_id: number}}``.
    format
        The input format; inferred when None: from the file extension (``.parquet``,
        ``.pq``, ``.csv``, ``.tsv``, ``.json``, ``.jsonl``, ``.ndjson``), else from the
        content (Parquet magic bytes, JSON when the first non-blank character is ``{`` or
        ``[``, else TREC text). JSON sources are told apart by their first object.
    columns
        For tables and JSON records: source column name -> canonical name (``query_id``,
        ``doc_id``, ``rank``, ``score``, ``grade``, ``system``, ``text``). Applied before
        the built-in aliases (``qid``, ``docno``, ``rel``, ``tag``, ...).
    kind
        ``"run"`` or ``"labels"`` forces what a single-table source holds; ``"auto"``
        decides from the content (TREC field count, a grade column). Sources with several
        tables (samples) are parsed whole regardless.

    Returns
    -------
    ParsedInput
        The parsed tables as lazy frames; absent tables are None.

    Raises
    ------
    InputFormatError
        The source cannot be parsed; the message names the source, the line where one
        applies, and what was expected.
    ParameterError
        ``format``, ``kind`` or ``columns`` is invalid, or does not fit the source.
    """
    check_choice("format", format, _INPUT_FORMATS, allow_none=True)
    check_choice("kind", kind, _KINDS)
    mapping = _check_column_mapping(columns)
    if isinstance(source, pl.DataFrame | pl.LazyFrame):
        return _read_frame(
            source.lazy(), f"<polars.{type(source).__name__}>", format, mapping, kind
        )
    if _is_foreign_frame(source):
        name = f"<{type(source).__module__.split('.')[0]}.{type(source).__name__}>"
        return _read_frame(_foreign_to_lazy(source, name), name, format, mapping, kind)
    if isinstance(source, Mapping):
        _check_format_for(format, {"ranx"}, "a mapping")
        _check_no_mapping(mapping, "ranx")
        return _parse_ranx(source, "<dict>", None, kind)
    if isinstance(source, str | os.PathLike):
        return _read_path(Path(source), os.fspath(source), format, mapping, kind)
    if hasattr(source, "read"):
        return _read_stream(source, format, mapping, kind)
    msg = (
        f"cannot read a {type(source).__name__}: expected a path, a file object, a Polars, "
        "pandas or pyarrow frame, or a mapping {query_id: {doc_id: number}}"
    )
    raise ParameterError(msg)


def read_run(
    source: Source,
    *,
    format: InputFormat | None = None,
    columns: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    r"""Read a run: ranked documents per query.

    Parameters
    ----------
    source
        Anything :func:`read` accepts.
    format
        The input format; inferred when None (see :func:`read`).
    columns
        Source column name -> canonical name, for tables and JSON records.

    Returns
    -------
    polars.LazyFrame
        ``query_id`` str, ``doc_id`` str, ``rank`` i64, ``score`` f64, ``system`` str,
        and ``text`` str when the source has passage text. Rows keep the source order.

    Raises
    ------
    InputFormatError
        The source cannot be parsed, or carries no run (e.g. a qrels file).

    Examples
    --------
    >>> import io
    >>> text = "301 Q0 FR940202-2-00150 1 2.13 bm25\n301 Q0 FR940203-1-00036 2 1.91 bm25\n"
    >>> read_run(io.StringIO(text)).collect()
    shape: (2, 5)
    ┌──────────┬──────────────────┬──────┬───────┬────────┐
    │ query_id ┆ doc_id           ┆ rank ┆ score ┆ system │
    │ ---      ┆ ---              ┆ ---  ┆ ---   ┆ ---    │
    │ str      ┆ str              ┆ i64  ┆ f64   ┆ str    │
    ╞══════════╪══════════════════╪══════╪═══════╪════════╡
    │ 301      ┆ FR940202-2-00150 ┆ 1    ┆ 2.13  ┆ bm25   │
    │ 301      ┆ FR940203-1-00036 ┆ 2    ┆ 1.91  ┆ bm25   │
    └──────────┴──────────────────┴──────┴───────┴────────┘

    A ranx-style mapping holds scores only:

    >>> read_run({"q1": {"d1": 0.5}}).collect()["score"].to_list()
    [0.5]
    """
    parsed = read(source, format=format, columns=columns, kind="run")
    if parsed.run is None:
        raise InputFormatError(_no_table_message(parsed, "run"))
    return parsed.run


def read_labels(
    source: Source,
    *,
    format: InputFormat | None = None,
    columns: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    r"""Read labels (qrels): graded judgments per query.

    Parameters
    ----------
    source
        Anything :func:`read` accepts.
    format
        The input format; inferred when None (see :func:`read`).
    columns
        Source column name -> canonical name, for tables and JSON records.

    Returns
    -------
    polars.LazyFrame
        ``query_id`` str, ``doc_id`` str, ``grade`` f64, in source order.

    Raises
    ------
    InputFormatError
        The source cannot be parsed, or carries no labels (e.g. a TREC run file).

    Examples
    --------
    >>> import io
    >>> read_labels(io.StringIO("301 0 CR93E-1282 1\n")).collect()["grade"].to_list()
    [1.0]
    """
    parsed = read(source, format=format, columns=columns, kind="labels")
    if parsed.labels is None:
        raise InputFormatError(_no_table_message(parsed, "labels"))
    return parsed.labels


_ANSWER_ID_KEYS = ("query_id", "qid", "id")
_ANSWER_KEYS = ("answers", "answer", "expected_answer")


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

    Examples
    --------
    >>> import io
    >>> read_answers(io.StringIO("q1\t30 days\nq1\tone month\n")).collect()["answer"].to_list()
    ['30 days', 'one month']
    """
    schema = {"query_id": pl.String, "answer": pl.String}
    if isinstance(source, Mapping):
        rows = [
            (str(query), str(answer))
            for query, value in source.items()
            for answer in ([value] if isinstance(value, str) else value)
        ]
        return pl.LazyFrame(rows, schema=schema, orient="row")
    if isinstance(source, pl.DataFrame | pl.LazyFrame):
        frame = source.lazy()
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
    if isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        data = _read_bytes(Path(source), name)
    else:
        name = "<stream>"
        content = source.read()
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        data = _gunzip_if_needed(data, name)
    text = _decode_text(data, name)
    if text.lstrip()[:1] in ("{", "["):
        return _answers_from_json(text, name).lazy()
    return _answers_from_tsv(data, name).lazy()


def _answers_from_json(text: str, name: str) -> pl.DataFrame:
    stripped = text.lstrip()
    records: list[Any]
    if stripped.startswith("["):
        records = _loads(text, name)
    else:
        records = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    msg = f"{name}, line {lineno}: not valid JSON ({exc.msg})"
                    raise InputFormatError(msg) from None
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
    return pl.DataFrame(rows, schema={"query_id": pl.String, "answer": pl.String}, orient="row")


def _answers_from_tsv(data: bytes, name: str) -> pl.DataFrame:
    lines = _split_lines(data, name).filter(
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
        msg = f"{name}, line {lineno}: expected 'query_id<TAB>answer', found {_show_line(line)}"
        raise InputFormatError(msg)
    return parts.select("query_id", "answer")


def _no_table_message(parsed: ParsedInput, table: str) -> str:
    present = [
        name
        for name in ("run", "labels", "cutoffs", "answers")
        if getattr(parsed, name) is not None
    ]
    found = ", ".join(present) if present else "nothing"
    return f"{parsed.source}: expected {table}, but this {parsed.format} input holds {found}"


# --------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------


def _check_column_mapping(columns: Mapping[str, str] | None) -> dict[str, str]:
    if columns is None:
        return {}
    if not isinstance(columns, Mapping):
        msg = f"The 'columns' parameter must be a mapping. Got {columns!r} instead."
        raise ParameterError(msg)
    targets: dict[str, str] = {}
    for source_name, canonical in columns.items():
        if canonical in targets:
            msg = (
                f"The 'columns' parameter maps both {targets[canonical]!r} and {source_name!r} "
                f"to {canonical!r}; map one source column to each canonical column."
            )
            raise ParameterError(msg)
        targets[canonical] = source_name
        if canonical not in _CANONICAL_COLUMNS:
            msg = (
                f"The 'columns' parameter maps {source_name!r} to {canonical!r}, which is not "
                f"a canonical column; use one of {sorted(_CANONICAL_COLUMNS)}."
            )
            raise ParameterError(msg)
    return dict(columns)


def _check_format_for(format: str | None, allowed: set[str], what: str) -> None:
    if format is not None and format not in allowed:
        msg = f"format {format!r} cannot be read from {what}; use one of {sorted(allowed)}"
        raise ParameterError(msg)


def _check_no_mapping(mapping: Mapping[str, str], format: str) -> None:
    if mapping:
        msg = f"The 'columns' parameter does not apply to the fixed layout of {format} input."
        raise ParameterError(msg)


# --------------------------------------------------------------------------------------
# Files and streams
# --------------------------------------------------------------------------------------


def _read_path(
    path: Path, name: str, format: str | None, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    _check_format_for(format, set(_FILE_FORMATS), "a file")
    if path.is_dir():
        if (path / MANIFEST).is_file():
            run, labels, buckets, profile = read_partitioned(path, name)
            return ParsedInput(
                name, None, "parquet", run=run, labels=labels, buckets=buckets, profile=profile
            )
        if format in (None, "parquet") and next(path.rglob("*.parquet"), None) is not None:
            # A folder of Parquet files (Spark, Dask, Hive-partitioned output): one table.
            return _parse_parquet_files(path, name, path.name, mapping, kind)
        msg = (
            f"{name}: is a directory, expected a file, a folder of .parquet files, or a "
            f"dataset written by rankset.partition (which has a {MANIFEST})"
        )
        raise InputFormatError(msg)
    if not path.exists() and _GLOB_CHARS.search(name):
        return _read_glob(name, format, mapping, kind)
    stem = _display_stem(path)
    resolved = format or _format_from_extension(path)
    if resolved == "parquet" and not _starts_with(path, name, _GZIP_MAGIC):
        return _parse_parquet_path(path, name, stem, mapping, kind)
    tried_simple = False
    if resolved in (None, "trec") and kind != "labels" and not mapping:
        # Most run files are plain one-space TREC text: read them straight from disk.
        simple = _read_simple_trec_run(path)
        if simple is not None:
            return ParsedInput(name, stem, "trec", run=simple.lazy())
        tried_simple = not _starts_with(path, name, _GZIP_MAGIC)
    data = _read_bytes(path, name)
    return _parse_bytes(data, name, stem, resolved, mapping, kind, try_simple=not tried_simple)


def _read_stream(
    stream: Any, format: str | None, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    _check_format_for(format, set(_FILE_FORMATS), "a file object")
    content = stream.read()
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    name = "<stream>"
    return _parse_bytes(_gunzip_if_needed(data, name), name, None, format, mapping, kind)


def _display_stem(path: Path) -> str:
    name = path.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    suffix = Path(name).suffix
    if suffix.lower() in _FORMAT_EXTENSIONS:
        name = name[: -len(suffix)]
    return name


def _format_from_extension(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return _EXTENSION_FORMATS.get(Path(name).suffix)


def _starts_with(path: Path, name: str, magic: bytes) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(magic)) == magic
    except FileNotFoundError:
        raise InputFormatError(f"file not found: {name}") from None


def _read_bytes(path: Path, name: str) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputFormatError(f"file not found: {name}") from None
    return _gunzip_if_needed(data, name)


def _gunzip_if_needed(data: bytes, name: str) -> bytes:
    if not data.startswith(_GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        msg = f"{name}: starts like gzip but cannot be decompressed ({exc})"
        raise InputFormatError(msg) from None


def _sniff_content(data: bytes) -> str:
    if data.startswith(_PARQUET_MAGIC):
        return "parquet"
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n\f\v")
    return "json" if head[:1] in (b"{", b"[") else "trec"


def _parse_bytes(
    data: bytes,
    name: str,
    stem: str | None,
    format: str | None,
    mapping: dict[str, str],
    kind: Kind,
    *,
    try_simple: bool = True,
) -> ParsedInput:
    resolved = format or _sniff_content(data)
    if resolved == "trec":
        _check_no_mapping(mapping, "trec")
        return _parse_trec(data, name, stem, kind, try_simple=try_simple)
    if resolved == "parquet":
        frame = _read_parquet_bytes(data, name)
        return _parse_table(frame.lazy(), name, stem, "parquet", mapping, kind)
    if resolved == "csv":
        frame = _read_delimited(data, name, ",")
        return _parse_table(frame.lazy(), name, stem, "csv", mapping, kind)
    if resolved == "tsv":
        frame = _read_delimited(data, name, "\t")
        return _parse_table(frame.lazy(), name, stem, "tsv", mapping, kind)
    json_format = None if resolved == "json" else resolved
    return _parse_json(_decode_text(data, name), name, stem, json_format, mapping, kind)


def _decode_text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        msg = f"{name}, line {line}: not valid UTF-8 ({exc.reason})"
        raise InputFormatError(msg) from None


# --------------------------------------------------------------------------------------
# TREC text
# --------------------------------------------------------------------------------------

_BLANK: Final = r"[ \t\f\v\r]"
_FIELD: Final = r"[^ \t\f\v\r]+"
# A data line has a first non-blank character and it is not '#'; '#' later in a line
# (doc ids like `msmarco_v2.1_doc_50_2286987788#13_3087841662`) is data.
_DATA_LINE: Final = r"^[ \t\f\v\r]*[^ \t\f\v\r#]"
_SPLIT_FIELDS: Final = re.compile(_BLANK + "+")
_TREC_COLUMNS: Final = frozenset({"query_id", "doc_id", "rank", "score", "system", "grade"})


@dataclass(frozen=True)
class _TrecLayout:
    kind: Literal["run", "labels"]
    fields: tuple[str, ...]
    description: str
    # trec_eval ignores anything after a run's tag (its own results.trunc test file
    # relies on it) but rejects a fifth qrels field; the layouts follow it.
    ignores_trailing_fields: bool

    @property
    def kept(self) -> tuple[str, ...]:
        """The fields that become columns; the Q0/iteration field is checked, not kept."""
        return tuple(field for field in self.fields if field in _TREC_COLUMNS)

    @property
    def pattern(self) -> str:
        groups = (_BLANK + "+").join(
            f"(?P<{field}>{_FIELD})" if field in _TREC_COLUMNS else _FIELD for field in self.fields
        )
        tail = f"(?:{_BLANK}.*)?" if self.ignores_trailing_fields else f"{_BLANK}*"
        return f"^{_BLANK}*{groups}{tail}$"

    def accepts_field_count(self, count: int) -> bool:
        wanted = len(self.fields)
        return count >= wanted if self.ignores_trailing_fields else count == wanted


_TREC_RUN: Final = _TrecLayout(
    "run",
    ("query_id", "q0", "doc_id", "rank", "score", "system"),
    "qid Q0 docid rank score tag",
    ignores_trailing_fields=True,
)
_TREC_QRELS: Final = _TrecLayout(
    "labels",
    ("query_id", "iteration", "doc_id", "grade"),
    "qid iter docid grade",
    ignores_trailing_fields=False,
)
_TREC_LAYOUTS: Final = {"run": _TREC_RUN, "labels": _TREC_QRELS}


# The common layout of run files: six fields separated by one space or one tab, no more.
_SIMPLE_RUN_SCHEMA: Final = {
    "query_id": pl.String,
    "q0": pl.String,
    "doc_id": pl.String,
    "rank": pl.Int64,
    "score": pl.Float64,
    "system": pl.String,
}
_PEEK_BYTES: Final = 4096
_HEAD_BYTES: Final = 1 << 17  # enough for the first thousand lines of most runs
_UTF8_BOM: Final = b"\xef\xbb\xbf"


def _plain_layout_separator(source: Path | bytes, fields: int = 6) -> str | None:
    """Return the separator of a plain-layout TREC file, judged from its first line.

    None when the first line is not ``fields`` fields (six for a run, four for qrels)
    separated by one space (or one tab) with no other blanks, or the source is gzip,
    Parquet or unreadable.
    """
    if isinstance(source, bytes):
        head = source[:_PEEK_BYTES]
    else:
        try:
            with source.open("rb") as handle:
                head = handle.read(_PEEK_BYTES)
        except OSError:
            return None
    if head.startswith(_GZIP_MAGIC) or head.startswith(_PARQUET_MAGIC):
        return None
    first = head.removeprefix(_UTF8_BOM).split(b"\n", 1)[0].removesuffix(b"\r")
    separator = b"\t" if b"\t" in first else b" "
    others = [blank for blank in b" \t\f\v\r" if blank != separator[0]]
    if len(first.split(separator)) != fields or any(blank in first for blank in others):
        return None
    return separator.decode()


def _scan_plain_layout(
    source: Path | bytes, separator: str, *, categorical: Sequence[str] = ("q0",)
) -> pl.LazyFrame:
    """Scan a plain-layout run with Polars' CSV reader (every column, ``q0`` included).

    Fields after the tag are dropped, as trec_eval ignores them. Columns in
    ``categorical`` (``q0``, only checked for presence; a scan's tags, only compared
    with the first) are read as categoricals, a code per line instead of a string.
    """
    schema: dict[str, pl.DataType | type[pl.DataType]] = dict(_SIMPLE_RUN_SCHEMA)
    for column in categorical:
        schema[column] = pl.Categorical()
    return pl.scan_csv(
        source,
        separator=separator,
        has_header=False,
        quote_char=None,
        schema=schema,
        raise_if_empty=True,
        truncate_ragged_lines=True,
    )


def every_field_read(columns: Sequence[str]) -> pl.Expr:
    """Return an aggregate that is True when no value of ``columns`` is missing.

    Polars' CSV reader reads an empty field as null: repeated blanks, a short line or a
    blank line leave one, where the general parser sees another field count.
    """
    return pl.sum_horizontal(pl.col(*columns).null_count()) == 0


def no_comment_line(query_id: pl.Expr) -> pl.Expr:
    """Return an aggregate that is True when no query id starts with ``#``.

    A data line starting with ``#`` is a comment for the general parser.
    """
    return ~query_id.str.starts_with("#").any()


def _other_blanks(data: bytes) -> bool:
    """Whether ``data`` has a vertical tab, a form feed or a carriage return inside a line.

    The general parser splits fields on any blank; the CSV reader only on its separator.
    """
    return b"\x0b" in data or b"\x0c" in data or data.count(b"\r") != data.count(b"\r\n")


_RUN_FIELDS: Final = ("query_id", "q0", "doc_id", "rank", "score", "system")


def _read_simple_trec_run(source: Path | bytes) -> pl.DataFrame | None:
    """Read a TREC run in the plain layout with Polars' CSV reader, or return None.

    The general parser splits lines and matches each with a regular expression, which
    copes with any whitespace, comments and blank lines, and names the line of any
    error. Most run files are six fields separated by single spaces; for those the CSV
    reader (separator ``" "``, no quoting) gives the same table in about a third of the
    time and half the memory. Anything it does not read cleanly (another field count,
    tabs or repeated spaces, blank or comment lines, a bad number, invalid UTF-8) makes
    this return None, and the general parser takes over, so errors and edge cases are
    exactly the general parser's.
    """
    separator = _plain_layout_separator(source)
    if separator is None or (isinstance(source, bytes) and _other_blanks(source)):
        return None
    try:
        frame = _scan_plain_layout(source, separator).collect()
    except (pl.exceptions.PolarsError, OSError):
        return None
    clean, tags = frame.select(
        (every_field_read(_RUN_FIELDS) & no_comment_line(pl.col("query_id"))).alias("clean"),
        pl.col("system").unique().head(2).implode(),
    ).row(0)
    if not clean:
        return None
    frame = frame.drop("q0")
    if len(tags) == 1:
        # One tag (the usual case): a constant column instead of millions of copies.
        frame = frame.with_columns(pl.lit(tags[0], dtype=pl.String).alias("system"))
    return frame


# Qrels in the plain layout. Integer grades only (anything else goes to the general
# parser, which reads decimals too); a line with a fifth field makes the CSV reader raise.
_SIMPLE_QRELS_SCHEMA: Final = {
    "query_id": pl.String,
    "iteration": pl.String,
    "doc_id": pl.String,
    "grade": pl.Int64,
}


def _read_simple_trec_labels(data: bytes) -> pl.DataFrame | None:
    """Read qrels in the plain layout with Polars' CSV reader, or return None.

    The labels' counterpart of :func:`_read_simple_trec_run`: the same table as the
    general parser (``query_id, doc_id, grade`` as Float64) in about a fifth of the
    time; any line it does not read cleanly leaves the file to the general parser.
    """
    separator = _plain_layout_separator(data, fields=4)
    if separator is None or _other_blanks(data):
        return None
    try:
        frame = pl.read_csv(
            data,
            separator=separator,
            has_header=False,
            quote_char=None,
            schema=_SIMPLE_QRELS_SCHEMA,
            raise_if_empty=True,
        )
    except pl.exceptions.PolarsError:
        return None
    clean = frame.select(
        every_field_read(list(_SIMPLE_QRELS_SCHEMA)) & no_comment_line(pl.col("query_id"))
    ).item()
    if not clean:
        return None
    return frame.select("query_id", "doc_id", pl.col("grade").cast(pl.Float64))


@dataclass(frozen=True)
class TextScan:
    """What evaluation assumes of a TREC run file it scans lazily, to verify in its pass.

    The file's first 128 kB are in the plain layout (six fields, one separator, one
    tag); the scan assumes every line is, with the first line's ``tag``. The pass over
    the runs checks that every field it reads was there (:func:`every_field_read` over
    :data:`SCANNED_FIELDS`), that every line has that tag, and that no query id starts
    with ``#``; when a check fails, or the CSV reader raises, evaluation reads the file
    again with :func:`read`, whose general parser names the offending line.

    Checked in the first 128 kB only, each to save a tenth to a sixth of the pass: an
    empty Q0 field (two separators in a row where Q0 belongs; the line's other fields
    are read in place, where the general parser and trec_eval see five fields), and a
    vertical tab, form feed or lone carriage return inside a field (the general parser
    splits fields there).
    """

    tag: str
    head: pl.DataFrame  # the file's first lines, parsed: to judge its order cheaply


#: The column of a lazily scanned run that keeps each line's own tag, for the checks.
SCANNED_TAG = "_tag"
#: The fields of a scanned run that the pass checks were all read (see TextScan).
SCANNED_FIELDS = ("query_id", "doc_id", "rank", "score", SCANNED_TAG)


def scan_trec_run(source: Any) -> ParsedInput | None:
    """Scan a plain-layout TREC run file lazily, or return None (then use :func:`read`).

    Only for a path to an uncompressed text file whose first line is in the plain
    layout; the result's ``scan`` holds what the evaluation must verify in its pass.
    """
    if not isinstance(source, str | os.PathLike):
        return None
    path = Path(source)
    name = os.fspath(source)
    if _format_from_extension(path) not in (None, "trec") or not path.is_file():
        return None
    separator = _plain_layout_separator(path)
    if separator is None:
        return None
    try:
        with path.open("rb") as handle:
            start = handle.read(_HEAD_BYTES)
        lines = start[: start.rfind(b"\n") + 1] or start
        first = lines.removeprefix(_UTF8_BOM).split(b"\n", 1)[0].rstrip(b"\r")
        tag = first.split(separator.encode())[-1].decode("utf-8")
        head = _scan_plain_layout(lines, separator).collect(engine="in-memory")
    except (OSError, UnicodeDecodeError, pl.exceptions.PolarsError):
        return None  # e.g. a word for a score in the first lines: the general parser says so
    kept = head.select(
        every_field_read(_RUN_FIELDS)
        & no_comment_line(pl.col("query_id"))
        & (pl.col("system") == tag).all()
    ).item()
    if not kept or _other_blanks(lines):
        return None  # read whole at once rather than after a pass
    run = (
        _scan_plain_layout(path, separator, categorical=("system",))
        .drop("q0")
        .rename({"system": SCANNED_TAG})
    )
    scan = TextScan(tag, head.drop("q0").rename({"system": SCANNED_TAG}))
    return ParsedInput(name, _display_stem(path), "trec", run=run, scan=scan)


def _parse_trec(
    data: bytes, name: str, stem: str | None, kind: Kind, *, try_simple: bool = True
) -> ParsedInput:
    # try_simple=False: the caller already tried the plain-layout reader on these bytes.
    if kind != "labels" and try_simple:
        simple = _read_simple_trec_run(data)
        if simple is not None:
            return ParsedInput(name, stem, "trec", run=simple.lazy())
    if kind != "run":
        labels = _read_simple_trec_labels(data)
        if labels is not None:
            return ParsedInput(name, stem, "trec", labels=labels.lazy())
    return _parse_trec_lines(data, name, stem, kind)


def _parse_trec_lines(data: bytes, name: str, stem: str | None, kind: Kind) -> ParsedInput:
    """Parse TREC text line by line: any blanks, comments, blank lines; errors name lines."""
    lines = _split_lines(data, name)
    data_lines = lines.filter(pl.col("line").str.contains(_DATA_LINE))
    if data_lines.height == 0:
        msg = f"{name}: the file has no data lines; expected {_expected_trec(kind)}"
        raise InputFormatError(msg)
    layout = _choose_trec_layout(data_lines, name, kind)
    table = _extract_trec_fields(data_lines, layout, name)
    if layout.kind == "run":
        return ParsedInput(name, stem, "trec", run=table.lazy())
    return ParsedInput(name, stem, "trec", labels=table.lazy())


def _expected_trec(kind: Kind) -> str:
    if kind == "auto":
        return (
            f"TREC run lines ({_TREC_RUN.description}) or qrels lines ({_TREC_QRELS.description})"
        )
    layout = _TREC_LAYOUTS[kind]
    what = "run" if kind == "run" else "qrels"
    return f"TREC {what} lines ({layout.description})"


def _split_lines(data: bytes, name: str) -> pl.DataFrame:
    """Split bytes into a ``lineno``/``line`` frame; blank lines keep their number as null."""
    try:
        # A NUL separator and no quoting turn the CSV reader into a fast, multithreaded
        # line splitter that strips CRLF and a UTF-8 BOM and keeps empty lines as nulls.
        return pl.read_csv(
            data,
            has_header=False,
            separator="\x00",
            quote_char=None,
            schema={"line": pl.String},
            row_index_name="lineno",
            row_index_offset=1,
            raise_if_empty=False,
        )
    except pl.exceptions.PolarsError:
        # NUL bytes or invalid UTF-8: the slow path either copes or reports the line.
        return _split_lines_slowly(data, name)


def _split_lines_slowly(data: bytes, name: str) -> pl.DataFrame:
    lines = _decode_text(data, name).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    series = pl.Series("line", [line.removesuffix("\r") or None for line in lines], pl.String)
    return series.to_frame().with_row_index("lineno", offset=1)


def _split_fields(line: str) -> list[str]:
    stripped = line.strip(" \t\f\v\r")
    return _SPLIT_FIELDS.split(stripped) if stripped else []


def _show_line(line: str) -> str:
    shown = line.rstrip("\r")
    if len(shown) > _MAX_SHOWN_LINE:
        shown = shown[:_MAX_SHOWN_LINE] + "..."
    return repr(shown)


def _choose_trec_layout(data_lines: pl.DataFrame, name: str, kind: Kind) -> _TrecLayout:
    if kind != "auto":
        return _TREC_LAYOUTS[kind]
    lineno, line = data_lines.row(0)
    count = len(_split_fields(line))
    for layout in (_TREC_RUN, _TREC_QRELS):
        if layout.accepts_field_count(count):
            return layout
    msg = (
        f"{name}, line {lineno}: expected 6 whitespace-separated fields "
        f"({_TREC_RUN.description}) for a run or 4 ({_TREC_QRELS.description}) for qrels, "
        f"found {count}: {_show_line(line)}"
    )
    raise InputFormatError(msg)


def _extract_trec_fields(data_lines: pl.DataFrame, layout: _TrecLayout, name: str) -> pl.DataFrame:
    columns = [
        pl.col(field).cast(_NUMERIC_TARGETS[field], strict=False)
        if field in _NUMERIC_TARGETS
        else pl.col(field)
        for field in layout.kept
    ]
    parsed = (
        data_lines.lazy()
        .select(pl.col("line").str.extract_groups(layout.pattern).alias("fields"))
        .unnest("fields")
        .select(columns)
        # The streaming engine spreads the regex work over all cores.
        .collect(engine="streaming")
    )
    # Every field of a data line is non-empty text, so a null can only mean a line the
    # pattern rejected (wrong field count: all groups null) or a failed number cast.
    if sum(parsed.null_count().row(0)) > 0:
        row = parsed.with_row_index("row").filter(pl.any_horizontal(pl.all().is_null()))
        lineno, line = data_lines.row(int(row.item(0, "row")))
        raise InputFormatError(_describe_bad_trec_line(name, lineno, line, layout))
    return parsed


def _describe_bad_trec_line(name: str, lineno: int, line: str, layout: _TrecLayout) -> str:
    where = f"{name}, line {lineno}"
    fields = _split_fields(line)
    if not layout.accepts_field_count(len(fields)):
        return (
            f"{where}: expected {len(layout.fields)} whitespace-separated fields "
            f"({layout.description}), found {len(fields)}: {_show_line(line)}"
        )
    for field, value in zip(layout.fields, fields, strict=False):
        target = _NUMERIC_TARGETS.get(field)
        if target is not None and _cast_one(value, target) is None:
            return f"{where}: {field} {value!r} is not {_number_word(target)}"
    return f"{where}: cannot parse {_show_line(line)} as {layout.description}"


def _cast_one(value: str, target: pl.DataType) -> object:
    return pl.Series([value], dtype=pl.String).cast(target, strict=False).item()


def _number_word(target: pl.DataType) -> str:
    return "an integer" if target.is_integer() else "a number"


# --------------------------------------------------------------------------------------
# Tables: Parquet, CSV, TSV and in-memory frames
# --------------------------------------------------------------------------------------


def _is_foreign_frame(source: object) -> bool:
    # Checking the class's module keeps pandas and pyarrow unimported until the caller
    # hands over one of their objects.
    cls = type(source)
    module = cls.__module__.split(".")[0]
    return (module == "pandas" and cls.__name__ == "DataFrame") or (
        module == "pyarrow" and cls.__name__ in ("Table", "RecordBatch")
    )


def _foreign_to_lazy(source: Any, name: str) -> pl.LazyFrame:
    try:
        if type(source).__module__.startswith("pandas"):
            return pl.from_pandas(source).lazy()
        frame = pl.from_arrow(source)
    except (pl.exceptions.PolarsError, TypeError, ValueError) as exc:
        msg = f"{name}: cannot convert to a Polars frame ({exc})"
        raise InputFormatError(msg) from None
    if not isinstance(frame, pl.DataFrame):  # pragma: no cover - tables give frames
        msg = f"{name}: expected a table, got a single column"
        raise InputFormatError(msg)
    return frame.lazy()


def _read_frame(
    frame: pl.LazyFrame, name: str, format: str | None, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    _check_format_for(format, {"frame"}, "an in-memory frame")
    return _parse_table(frame, name, None, "frame", mapping, kind)


def _parse_parquet_path(
    path: Path, name: str, stem: str, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    try:
        frame = pl.scan_parquet(path)
        frame.collect_schema()
    except pl.exceptions.PolarsError as exc:
        msg = f"{name}: not a readable Parquet file ({exc})"
        raise InputFormatError(msg) from None
    return _parse_table(frame, name, stem, "parquet", mapping, kind)


_GLOB_CHARS = re.compile(r"[*?\[]")


def _read_glob(
    pattern: str, format: str | None, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    """Read the Parquet files a glob pattern matches (``runs/bm25/part-*.parquet``) as one."""
    matches = sorted(Path(p) for p in _glob.glob(pattern, recursive=True) if Path(p).is_file())
    if not matches:
        raise InputFormatError(f"{pattern}: no file matches this pattern")
    others = [p for p in matches if (format or _format_from_extension(p)) != "parquet"]
    if others:
        msg = (
            f"{pattern}: a pattern reads Parquet files only; it matches {others[0]} "
            "(name each text file on its own)"
        )
        raise InputFormatError(msg)
    pattern_path = Path(pattern)
    named_by_folder = not _GLOB_CHARS.search(pattern_path.parent.name) and pattern_path.parent.name
    stem = pattern_path.parent.name if named_by_folder else _display_stem(matches[0])
    return _parse_parquet_files(matches, pattern, stem, mapping, kind)


def _parse_parquet_files(
    files: Path | list[Path], name: str, stem: str, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    try:
        frame = pl.scan_parquet(files)
        frame.collect_schema()
    except pl.exceptions.PolarsError as exc:
        msg = f"{name}: not readable as Parquet files ({exc})"
        raise InputFormatError(msg) from None
    return _parse_table(frame, name, stem, "parquet", mapping, kind)


def _read_parquet_bytes(data: bytes, name: str) -> pl.DataFrame:
    try:
        return pl.read_parquet(io.BytesIO(data))
    except pl.exceptions.PolarsError as exc:
        msg = f"{name}: not a readable Parquet file ({exc})"
        raise InputFormatError(msg) from None


def _read_delimited(data: bytes, name: str, separator: str) -> pl.DataFrame:
    # Every column is read as text so ids keep leading zeros and stay strings; numbers
    # are cast later with messages that name the bad row.
    try:
        return pl.read_csv(data, separator=separator, infer_schema=False)
    except pl.exceptions.NoDataError:
        msg = f"{name}: the file is empty; expected a header row naming the columns"
        raise InputFormatError(msg) from None
    except pl.exceptions.PolarsError as exc:
        msg = f"{name}: cannot parse as {'CSV' if separator == ',' else 'TSV'} ({exc})"
        raise InputFormatError(msg) from None


def _parse_table(
    frame: pl.LazyFrame,
    name: str,
    stem: str | None,
    format: InputFormat,
    mapping: dict[str, str],
    kind: Kind,
    row_label: Callable[[int], str] | None = None,
) -> ParsedInput:
    schema = frame.collect_schema()
    chosen = _resolve_columns(list(schema.names()), mapping, name)
    table_kind = kind if kind != "auto" else ("labels" if "grade" in chosen else "run")
    _require_columns(chosen, table_kind, name, list(schema.names()))
    # Columns of the other table kind are neither validated nor kept.
    wanted = LABELS_SCHEMA if table_kind == "labels" else {**RUN_SCHEMA, "text": pl.String}
    chosen = {canonical: source for canonical, source in chosen.items() if canonical in wanted}
    describe = row_label or (lambda row: f"{name}, row {row + 1}")
    selected = frame.select(pl.col(source).alias(canonical) for canonical, source in chosen.items())
    typed = _cast_table(selected, schema, chosen, name, describe)
    if table_kind == "labels":
        return ParsedInput(name, stem, format, labels=typed.select(*LABELS_SCHEMA))
    run_columns = [
        pl.col(c) if c in chosen else pl.lit(None, dtype=dtype).alias(c)
        for c, dtype in RUN_SCHEMA.items()
    ]
    if "text" in chosen:
        run_columns.append(pl.col("text"))
    return ParsedInput(name, stem, format, run=typed.select(run_columns))


def _resolve_columns(names: Sequence[str], mapping: Mapping[str, str], name: str) -> dict[str, str]:
    """Map each canonical column to the source column that provides it."""
    for source_name in mapping:
        if source_name not in names:
            msg = (
                f"{name}: column {source_name!r} named in 'columns' is not in the source; "
                f"found columns {list(names)}"
            )
            raise InputFormatError(msg)
    chosen = {canonical: source for source, canonical in mapping.items()}
    used = set(mapping)
    by_lower = {n.lower(): n for n in reversed(names)}
    for canonical, aliases in _ALIASES.items():
        if canonical in chosen:
            continue
        for alias in aliases:
            source = by_lower.get(alias)
            if source is not None and source not in used:
                chosen[canonical] = source
                used.add(source)
                break
    return chosen


def _require_columns(
    chosen: Mapping[str, str], kind: Literal["run", "labels"], name: str, found: list[str]
) -> None:
    missing = [f"'{c}'" for c in ("query_id", "doc_id") if c not in chosen]
    if kind == "labels" and "grade" not in chosen:
        missing.append("'grade'")
    if kind == "run" and "rank" not in chosen and "score" not in chosen:
        missing.append("'rank' or 'score'")
    if missing:
        what = "labels" if kind == "labels" else "a run"
        msg = f"{name}: missing column {', '.join(missing)} for {what}; found columns {found}"
        raise InputFormatError(msg)


def _cast_table(
    frame: pl.LazyFrame,
    schema: pl.Schema,
    chosen: Mapping[str, str],
    name: str,
    describe: Callable[[int], str],
) -> pl.LazyFrame:
    casts = []
    for canonical, source in chosen.items():
        dtype = schema[source]
        target = _NUMERIC_TARGETS.get(canonical, pl.String())
        _check_castable(frame, canonical, source, dtype, target, name, describe)
        casts.append(pl.col(canonical).cast(target, strict=False))
    return frame.with_columns(casts)


def _check_castable(
    frame: pl.LazyFrame,
    canonical: str,
    source: str,
    dtype: pl.DataType,
    target: pl.DataType,
    name: str,
    describe: Callable[[int], str],
) -> None:
    label = f"column {source!r}" if source == canonical else f"column {source!r} ({canonical})"
    if target == pl.String:
        textual = dtype in (pl.String, pl.Null) or isinstance(dtype, pl.Categorical | pl.Enum)
        if not (textual or dtype.is_integer()):
            msg = f"{name}: {label} has dtype {dtype}; expected strings or integers"
            raise InputFormatError(msg)
        return
    if dtype.is_integer() or dtype == pl.Null or (dtype.is_float() and target.is_float()):
        return
    if dtype == pl.Boolean and canonical == "grade":
        return
    if not (dtype.is_float() or dtype == pl.String or isinstance(dtype, pl.Categorical)):
        msg = f"{name}: {label} has dtype {dtype}; expected {_number_word(target)}s"
        raise InputFormatError(msg)
    # Only text (and float ranks) can fail to cast, so only then is the column read now.
    first = _first_uncastable(frame, canonical, dtype, target)
    if first is not None:
        row, value = first
        msg = f"{describe(row)}: {label} value {value!r} is not {_number_word(target)}"
        raise InputFormatError(msg)


def _first_uncastable(
    frame: pl.LazyFrame, column: str, dtype: pl.DataType, target: pl.DataType
) -> tuple[int, str] | None:
    raw = pl.col(column)
    if dtype.is_float():
        outside = ~raw.is_finite() | (raw != raw.round()) | (raw.abs() >= 2.0**63)
        bad = raw.is_not_null() & outside
    else:
        raw = raw.cast(pl.String)
        bad = raw.is_not_null() & raw.cast(target, strict=False).is_null()
    found = (
        frame.select(raw.cast(pl.String).alias("value"), bad.alias("bad"))
        .with_row_index("row")
        .filter(pl.col("bad"))
        .head(1)
        .collect()
    )
    if found.height == 0:
        return None
    return int(found.item(0, "row")), str(found.item(0, "value"))


# --------------------------------------------------------------------------------------
# JSON and JSONL
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Record:
    """One JSON object and where it came from, for messages."""

    value: Any
    where: str


@dataclass
class _SampleTables:
    """Column lists accumulated while walking samples."""

    run: dict[str, list[Any]]
    labels: dict[str, list[Any]]
    cutoffs: dict[str, list[Any]]
    answers: dict[str, list[Any]]

    @classmethod
    def empty(cls) -> _SampleTables:
        return cls(
            run={"query_id": [], "doc_id": [], "rank": [], "text": []},
            labels={"query_id": [], "doc_id": [], "grade": [], "where": []},
            cutoffs={"query_id": [], "k": [], "where": []},
            answers={"query_id": [], "answer": []},
        )


def _parse_json(
    text: str,
    name: str,
    stem: str | None,
    format: str | None,
    mapping: dict[str, str],
    kind: Kind,
) -> ParsedInput:
    document = _load_json_document(text, name)
    resolved = format or _sniff_json(document)
    if resolved not in _JSON_FORMATS:
        msg = f"{name}: format {resolved!r} cannot be read from JSON"
        raise ParameterError(msg)
    if resolved == "ranx":
        _check_no_mapping(mapping, "ranx")
        ranx = document.value if isinstance(document, _Record) else None
        if not isinstance(ranx, Mapping):
            msg = f"{name}: expected a JSON object {{query_id: {{doc_id: number}}}} for ranx"
            raise InputFormatError(msg)
        return _parse_ranx(ranx, name, stem, kind)
    if resolved == "dataset-json":
        _check_no_mapping(mapping, "dataset-json")
        return _parse_dataset_json(document, name, stem)
    records = _as_records(document, name, resolved)
    if resolved == "samples":
        _check_no_mapping(mapping, "samples")
        return _parse_samples(records, name, stem)
    if resolved == "rag-gs":
        return _parse_records(records, name, stem, "rag-gs", mapping, "labels")
    return _parse_records(records, name, stem, "records-jsonl", mapping, kind)


def _load_json_document(text: str, name: str) -> _Record | list[_Record]:
    """Parse a whole JSON document, or JSON Lines when the text is one object per line."""
    stripped = text.lstrip()
    if not stripped:
        msg = f"{name}: the file is empty; expected JSON or JSON Lines"
        raise InputFormatError(msg)
    if stripped.startswith("["):
        return _Record(_loads(text, name), name)
    try:
        return _Record(json.loads(text), name)
    except json.JSONDecodeError as exc:
        first_line = stripped.split("\n", 1)[0]
        if exc.msg != "Extra data" and not _is_json(first_line):
            raise InputFormatError(_json_error(name, exc)) from None
    return _load_json_lines(text, name)


def _loads(text: str, name: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFormatError(_json_error(name, exc)) from None


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def _json_error(name: str, exc: json.JSONDecodeError) -> str:
    return f"{name}, line {exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno})"


def _load_json_lines(text: str, name: str) -> list[_Record]:
    records = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{name}, line {lineno}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            msg = f"{where}: invalid JSON ({exc.msg} at column {exc.colno})"
            raise InputFormatError(msg) from None
        records.append(_Record(value, where))
    return records


def _sniff_json(document: _Record | list[_Record]) -> str:
    if isinstance(document, _Record):
        value = document.value
        if isinstance(value, list):
            return _sniff_record(value[0] if value else None)
        if isinstance(value, dict):
            if isinstance(value.get("samples"), list):
                return "samples"
            if "queries" in value:
                return "dataset-json"
            if _looks_like_ranx(value):
                return "ranx"
        return _sniff_record(value)
    return _sniff_record(document[0].value if document else None)


def _sniff_record(value: Any) -> str:
    if isinstance(value, dict):
        if "grade_1_5" in value:
            return "rag-gs"
        if "expected_output" in value or "actual_output" in value:
            return "samples"
    return "records-jsonl"


def _looks_like_ranx(value: Mapping[str, Any]) -> bool:
    if not value or not all(isinstance(inner, Mapping) for inner in value.values()):
        return False
    return all(_is_number(score) for inner in value.values() for score in list(inner.values())[:1])


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _as_records(document: _Record | list[_Record], name: str, format: str) -> list[_Record]:
    if isinstance(document, list):
        return document
    value = document.value
    if isinstance(value, dict) and isinstance(value.get("samples"), list):
        value = value["samples"]
    if isinstance(value, list):
        unit = "sample" if format == "samples" else "record"
        return [_Record(item, f"{name}, {unit} {i}") for i, item in enumerate(value, start=1)]
    return [_Record(value, name)]


def _require_object(record: _Record) -> Mapping[str, Any]:
    if not isinstance(record.value, Mapping):
        msg = f"{record.where}: expected a JSON object, found {type(record.value).__name__}"
        raise InputFormatError(msg)
    return record.value


def _id_text(value: Any, where: str, what: str) -> str:
    # Ids may be written as JSON numbers; they are still ids, so they become strings.
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    msg = f"{where}: {what} must be a string or an integer, found {json.dumps(value)}"
    raise InputFormatError(msg)


def _scalar_text(value: Any) -> str | None:
    """JSON scalar -> text for a checked numeric cast (None stays null)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value)


def _maybe_json_string(value: Any, where: str, field: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        msg = f"{where}: {field} is a string but not valid JSON ({exc.msg})"
        raise InputFormatError(msg) from None


def _sample_query_id(sample: Mapping[str, Any], where: str) -> str:
    for key in ("id", "query_id", "qid"):
        if sample.get(key) is not None:
            return _id_text(sample[key], where, key)
    msg = f"{where}: sample has no 'id' (or 'query_id', 'qid')"
    raise InputFormatError(msg)


def _parse_samples(records: list[_Record], name: str, stem: str | None) -> ParsedInput:
    tables = _SampleTables.empty()
    for record in records:
        sample = _require_object(record)
        query_id = _sample_query_id(sample, record.where)
        _add_expected_output(tables, sample, query_id, record.where)
        _add_actual_output(tables, sample, query_id, record.where)
        _add_cutoff(tables, sample, query_id, record.where)
        _add_answers(tables, sample, query_id, record.where)
    return ParsedInput(
        name,
        stem,
        "samples",
        run=_sample_run(tables.run),
        labels=_checked_frame(tables.labels, LABELS_SCHEMA),
        cutoffs=_checked_frame(tables.cutoffs, CUTOFFS_SCHEMA),
        answers=_plain_frame(tables.answers, ANSWERS_SCHEMA),
    )


def _add_expected_output(
    tables: _SampleTables, sample: Mapping[str, Any], query_id: str, where: str
) -> None:
    expected = _maybe_json_string(sample.get("expected_output"), where, "expected_output")
    if expected is None:
        return
    if isinstance(expected, Mapping):
        pairs = [(str(doc), _scalar_text(gain)) for doc, gain in expected.items()]
    elif isinstance(expected, list):
        pairs = [(_id_text(doc, where, "expected_output item"), "1") for doc in expected]
    else:
        msg = (
            f"{where}: expected_output must be a list of relevant ids or an id -> gain "
            f"object, found {json.dumps(expected)}"
        )
        raise InputFormatError(msg)
    labels = tables.labels
    for doc_id, grade in pairs:
        labels["query_id"].append(query_id)
        labels["doc_id"].append(doc_id)
        labels["grade"].append(grade)
        labels["where"].append(where)


def _add_actual_output(
    tables: _SampleTables, sample: Mapping[str, Any], query_id: str, where: str
) -> None:
    actual = _maybe_json_string(sample.get("actual_output"), where, "actual_output")
    if actual is None:
        return
    if isinstance(actual, Mapping) and "retrieved" in actual:
        actual = actual["retrieved"]
    if not isinstance(actual, list):
        msg = (
            f'{where}: actual_output must be {{"retrieved": [...]}} or a list of ids, '
            f"found {json.dumps(actual)[:_MAX_SHOWN_LINE]}"
        )
        raise InputFormatError(msg)
    run = tables.run
    for rank, item in enumerate(actual, start=1):
        doc_id, text = _retrieved_item(item, where)
        run["query_id"].append(query_id)
        run["doc_id"].append(doc_id)
        run["rank"].append(rank)
        run["text"].append(text)


def _retrieved_item(item: Any, where: str) -> tuple[str, str | None]:
    if not isinstance(item, Mapping):
        return _id_text(item, where, "retrieved item"), None
    key = "id" if "id" in item else "doc_id"
    doc_id = _id_text(item.get(key), where, "retrieved item id")
    text = item.get("text")
    if text is not None and not isinstance(text, str):
        msg = f"{where}: retrieved item {doc_id!r} has non-string text"
        raise InputFormatError(msg)
    return doc_id, text


def _add_cutoff(
    tables: _SampleTables, sample: Mapping[str, Any], query_id: str, where: str
) -> None:
    metadata = sample.get("metadata")
    if not isinstance(metadata, Mapping) or metadata.get("k") is None:
        return
    tables.cutoffs["query_id"].append(query_id)
    tables.cutoffs["k"].append(_scalar_text(metadata["k"]))
    tables.cutoffs["where"].append(where)


def _add_answers(
    tables: _SampleTables, sample: Mapping[str, Any], query_id: str, where: str
) -> None:
    expected = sample.get("expected_answer")
    if expected is None:
        return
    answers = [expected] if isinstance(expected, str) else expected
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        msg = f"{where}: expected_answer must be a string or a list of strings"
        raise InputFormatError(msg)
    tables.answers["query_id"].extend([query_id] * len(answers))
    tables.answers["answer"].extend(answers)


def _sample_run(columns: dict[str, list[Any]]) -> pl.LazyFrame | None:
    if not columns["query_id"]:
        return None
    has_text = any(text is not None for text in columns["text"])
    frame = pl.DataFrame(
        {
            "query_id": pl.Series(columns["query_id"], dtype=pl.String),
            "doc_id": pl.Series(columns["doc_id"], dtype=pl.String),
            "rank": pl.Series(columns["rank"], dtype=pl.Int64),
            "score": pl.Series([None] * len(columns["rank"]), dtype=pl.Float64),
            "system": pl.Series([None] * len(columns["rank"]), dtype=pl.String),
        }
    )
    if has_text:
        frame = frame.with_columns(text=pl.Series(columns["text"], dtype=pl.String))
    return frame.lazy()


def _plain_frame(columns: dict[str, list[Any]], schema: pl.Schema) -> pl.LazyFrame | None:
    if not columns["query_id"]:
        return None
    return pl.DataFrame({c: columns[c] for c in schema}, schema=schema).lazy()


def _checked_frame(columns: dict[str, list[Any]], schema: pl.Schema) -> pl.LazyFrame | None:
    """Cast text numbers to ``schema``; the message of a bad value names its record."""
    if not columns["query_id"]:
        return None
    where = columns["where"]
    text = pl.DataFrame(
        {c: pl.Series(columns[c], dtype=pl.String) for c in schema}, schema_overrides=None
    )
    for column, target in schema.items():
        if target == pl.String:
            continue
        first = _first_uncastable(text.lazy(), column, pl.String(), target)
        if first is not None:
            row, value = first
            msg = f"{where[row]}: {column} {value!r} is not {_number_word(target)}"
            raise InputFormatError(msg)
    return text.lazy().cast(schema, strict=False)


def _parse_records(
    records: list[_Record],
    name: str,
    stem: str | None,
    format: InputFormat,
    mapping: dict[str, str],
    kind: Kind,
) -> ParsedInput:
    columns: dict[str, list[str | None]] = {}
    seen: set[str] = set()
    for row, record in enumerate(records):
        obj = _require_object(record)
        seen.update(obj)
        for canonical, value in _canonical_fields(obj, mapping).items():
            column = columns.setdefault(canonical, [])
            column.extend([None] * (row - len(column)))
            column.append(_scalar_text(value))
    for source_name in mapping:
        if source_name not in seen:
            msg = f"{name}: key {source_name!r} named in 'columns' is in no record"
            raise InputFormatError(msg)
    frame = pl.DataFrame(
        {
            c: pl.Series(v + [None] * (len(records) - len(v)), dtype=pl.String)
            for c, v in columns.items()
        }
    )
    wheres = [record.where for record in records]
    return _parse_table(frame.lazy(), name, stem, format, {}, kind, wheres.__getitem__)


def _canonical_fields(obj: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """Pick each canonical field from one record; records may use different aliases."""
    fields = {canonical: obj[key] for key, canonical in mapping.items() if key in obj}
    by_lower = {key.lower(): key for key in reversed(list(obj)) if key not in mapping}
    for canonical, aliases in _ALIASES.items():
        if canonical in fields:
            continue
        key = next((by_lower[a] for a in aliases if a in by_lower), None)
        if key is not None:
            fields[canonical] = obj[key]
    return fields


def _parse_dataset_json(
    document: _Record | list[_Record], name: str, stem: str | None
) -> ParsedInput:
    value = document.value if isinstance(document, _Record) else None
    queries = value.get("queries") if isinstance(value, Mapping) else None
    if not isinstance(queries, list):
        msg = f"{name}: expected a JSON object with a 'queries' list (dataset-json)"
        raise InputFormatError(msg)
    labels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "grade": [], "where": []}
    for position, query in enumerate(queries, start=1):
        record = _Record(query, f"{name}, query {position}")
        for doc_id, grade in _dataset_query_labels(_require_object(record), record.where):
            labels["query_id"].append(_id_text(query.get("query_id"), record.where, "query_id"))
            labels["doc_id"].append(doc_id)
            labels["grade"].append(grade)
            labels["where"].append(record.where)
    return ParsedInput(name, stem, "dataset-json", labels=_checked_frame(labels, LABELS_SCHEMA))


def _dataset_query_labels(query: Mapping[str, Any], where: str) -> list[tuple[str, str | None]]:
    relevant = query.get("relevant_documents") or []
    scores = query.get("relevance_scores") or {}
    if not isinstance(relevant, list) or not isinstance(scores, Mapping):
        msg = f"{where}: relevant_documents must be a list and relevance_scores an object"
        raise InputFormatError(msg)
    docs = [_id_text(doc, where, "relevant document") for doc in relevant]
    # Documents graded only in relevance_scores are labels too.
    docs += [doc for doc in scores if doc not in set(docs)]
    return [(doc, _scalar_text(scores[doc]) if doc in scores else "1") for doc in docs]


# --------------------------------------------------------------------------------------
# ranx-style mappings
# --------------------------------------------------------------------------------------


def _parse_ranx(mapping: Mapping[Any, Any], name: str, stem: str | None, kind: Kind) -> ParsedInput:
    if kind == "auto":
        msg = (
            f"{name}: a mapping {{query_id: {{doc_id: number}}}} can be a run or labels; "
            "pass kind='run' or kind='labels' (or call read_run / read_labels)"
        )
        raise InputFormatError(msg)
    query_ids: list[str] = []
    doc_ids: list[str] = []
    values: list[float] = []
    for query, docs in mapping.items():
        query_id = _id_text(query, name, "query id")
        if not isinstance(docs, Mapping):
            msg = f"{name}: query {query_id!r} maps to {type(docs).__name__}, expected a mapping"
            raise InputFormatError(msg)
        for doc, value in docs.items():
            if not _is_number(value):
                what = "score" if kind == "run" else "grade"
                msg = f"{name}: query {query_id!r}, doc {doc!r}: {what} {value!r} is not a number"
                raise InputFormatError(msg)
            query_ids.append(query_id)
            doc_ids.append(_id_text(doc, name, "doc id"))
            values.append(float(value))
    ids = {"query_id": query_ids, "doc_id": doc_ids}
    if kind == "labels":
        labels = pl.DataFrame({**ids, "grade": values}, schema=LABELS_SCHEMA)
        return ParsedInput(name, stem, "ranx", labels=labels.lazy())
    nulls = [None] * len(values)
    run = pl.DataFrame({**ids, "rank": nulls, "score": values, "system": nulls}, schema=RUN_SCHEMA)
    return ParsedInput(name, stem, "ranx", run=run.lazy())


# --------------------------------------------------------------------------------------
# Writers
# --------------------------------------------------------------------------------------


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` only on success.

    Readers never see a half-written file, and a failed write leaves an existing file
    untouched and no temporary file behind.

    Parameters
    ----------
    path
        The file to (re)place.

    Yields
    ------
    pathlib.Path
        A new, empty file in the same directory (same file system, so the final
        :func:`os.replace` is atomic).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = Path(folder) / "out.txt"
    ...     with atomic_path(target) as tmp:
    ...         _ = tmp.write_text("done")
    ...     print(target.read_text())
    done
    """
    target = Path(path)
    temp = _create_temp_beside(target)
    try:
        yield temp
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _create_temp_beside(target: Path) -> Path:
    # os.open with mode 0o666 lets the umask decide permissions, as for a plain open();
    # tempfile.mkstemp would leave the final file readable by its owner only.
    while True:
        temp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except FileExistsError:  # pragma: no cover - 48 random bits collided
            continue
        return temp


def write_parquet(
    frame: pl.DataFrame, path: str | os.PathLike[str], *, config: Mapping[str, Any] | None = None
) -> Path:
    """Write a frame to Parquet atomically, with ``config`` as JSON in the file metadata.

    The configuration goes under the key ``rankset`` of the file's key-value metadata
    (``polars.read_parquet_metadata(path)["rankset"]``, or
    ``pyarrow.parquet.read_metadata(path).metadata[b"rankset"]``).
    """
    target = Path(path)
    metadata = None
    if config is not None:
        metadata = {"rankset": json.dumps(dict(config), sort_keys=True, default=str)}
    # Polars' own writer: importing pyarrow.parquet alone would take about 0.15 s.
    with atomic_path(target) as tmp:
        frame.write_parquet(tmp, metadata=metadata)
    return target


def write_run(
    frame: pl.DataFrame | pl.LazyFrame,
    path: str | os.PathLike[str],
    *,
    format: WriteFormat | None = None,
) -> None:
    """Write a run as TREC text, Parquet or CSV, atomically.

    Parameters
    ----------
    frame
        A run with ``query_id`` and ``doc_id`` and, optionally, ``rank``, ``score`` and
        ``system``.
    path
        Destination; a ``.gz`` suffix gzip-compresses the output.
    format
        ``"trec"``, ``"parquet"`` or ``"csv"``; when None, from the extension
        (``.parquet``/``.pq``, ``.csv``), else TREC.

    Notes
    -----
    TREC lines are ``qid Q0 docid rank score system``. Rank and score are written as in
    the frame; the score in the shortest text that reads back to the same float. A
    missing or null ``system`` is written as ``rankset``; a missing or null rank as the
    row's position within its (system, query) in frame order; a missing or null score
    as ``-rank``, which keeps the rank order under trec_eval's sort by score. Parquet
    and CSV get the frame's columns as they are.

    Raises
    ------
    ParameterError
        ``format`` is invalid, or an id or system cannot be written as one TREC field.
    """
    fmt = _write_format(path, format)
    data = _collect(frame)
    _require_output_columns(data, ("query_id", "doc_id"), "run")
    if fmt == "trec":
        _require_numeric_columns(data, {"rank": "integers", "score": "numbers"})
        _check_trec_fields(data, ("query_id", "doc_id", "system"))
        _write_lines(data.select(_trec_run_line(data).alias("line")), path)
    else:
        _write_table(data, path, fmt)


def write_labels(
    frame: pl.DataFrame | pl.LazyFrame,
    path: str | os.PathLike[str],
    *,
    format: WriteFormat | None = None,
) -> None:
    """Write labels as TREC qrels, Parquet or CSV, atomically.

    Parameters
    ----------
    frame
        Labels with ``query_id``, ``doc_id`` and ``grade``.
    path
        Destination; a ``.gz`` suffix gzip-compresses the output.
    format
        ``"trec"``, ``"parquet"`` or ``"csv"``; when None, from the extension
        (``.parquet``/``.pq``, ``.csv``), else TREC.

    Notes
    -----
    TREC lines are ``qid 0 docid grade``; an integral grade is written without a decimal
    point (``2``, not ``2.0``), any other grade as the shortest text of its float.

    Raises
    ------
    ParameterError
        ``format`` is invalid, a column is missing, or an id cannot be one TREC field.
    """
    fmt = _write_format(path, format)
    data = _collect(frame)
    _require_output_columns(data, ("query_id", "doc_id", "grade"), "labels")
    if fmt == "trec":
        _require_numeric_columns(data, {"grade": "numbers"})
        _check_trec_fields(data, ("query_id", "doc_id"))
        grade = pl.col("grade").cast(pl.Float64)
        line = pl.concat_str(
            [pl.col("query_id"), pl.lit("0"), pl.col("doc_id"), _number_text(grade)],
            separator=" ",
        )
        _write_lines(data.select(line.alias("line")), path)
    else:
        _write_table(data, path, fmt)


def _write_format(path: str | os.PathLike[str], format: str | None) -> WriteFormat:
    check_choice("format", format, _WRITE_FORMATS, allow_none=True)
    if format is not None:
        return cast("WriteFormat", format)
    by_extension = _format_from_extension(Path(path))
    if by_extension in ("parquet", "csv"):
        return cast("WriteFormat", by_extension)
    if by_extension is not None:
        msg = (
            f"cannot write {os.fspath(path)!r}: its extension names {by_extension} input, "
            "which rankset does not write; use .trec, .parquet or .csv, or pass format="
        )
        raise ParameterError(msg)
    return "trec"


def _collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame
    msg = f"expected a Polars DataFrame or LazyFrame, got {type(frame).__name__}"
    raise ParameterError(msg)


def _require_output_columns(data: pl.DataFrame, required: Sequence[str], what: str) -> None:
    missing = [c for c in required if c not in data.columns]
    if missing:
        msg = f"cannot write {what}: missing column(s) {missing}; found {data.columns}"
        raise ParameterError(msg)


def _trec_run_line(data: pl.DataFrame) -> pl.Expr:
    system = (
        pl.col("system").cast(pl.String).fill_null("rankset")
        if "system" in data.columns
        else pl.lit("rankset")
    )
    position = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(system, pl.col("query_id"))
    rank = pl.col("rank").cast(pl.Int64).fill_null(position) if "rank" in data.columns else position
    score = (
        pl.col("score").cast(pl.Float64).fill_null(-rank.cast(pl.Float64))
        if "score" in data.columns
        else -rank.cast(pl.Float64)
    )
    return pl.concat_str(
        [
            pl.col("query_id").cast(pl.String),
            pl.lit("Q0"),
            pl.col("doc_id").cast(pl.String),
            rank.cast(pl.String),
            score.cast(pl.String),
            system,
        ],
        separator=" ",
    )


def _number_text(value: pl.Expr) -> pl.Expr:
    # Integral grades print as integers; |x| < 2**53 keeps the Int64 cast exact.
    integral = value.is_finite() & (value == value.round()) & (value.abs() < 2.0**53)
    return (
        pl.when(integral)
        .then(value.cast(pl.Int64, strict=False).cast(pl.String))
        .otherwise(value.cast(pl.String))
    )


def _require_numeric_columns(data: pl.DataFrame, wanted: Mapping[str, str]) -> None:
    for column, what in wanted.items():
        if column not in data.columns:
            continue
        dtype = data.schema[column]
        numeric = dtype.is_integer() if what == "integers" else dtype.is_numeric()
        if not (numeric or dtype == pl.Null):
            msg = f"cannot write TREC text: column {column!r} has dtype {dtype}, expected {what}"
            raise ParameterError(msg)


def _check_trec_fields(data: pl.DataFrame, fields: Sequence[str]) -> None:
    """Refuse values that would not read back as the same TREC field."""
    present = [f for f in fields if f in data.columns]
    # A query id starting with '#' would make its line read back as a comment.
    unwritable = {
        "query_id": r"^$|\s|^#",
        "doc_id": r"^$|\s",
        "system": r"^$|\s",
    }
    checks = [
        (
            pl.col(f).cast(pl.String).str.contains(unwritable[f])
            | (pl.col(f).is_null() & pl.lit(f != "system"))
        ).any()
        for f in present
    ]
    flags = data.select(checks).row(0)
    for field, is_bad in zip(present, flags, strict=True):
        if is_bad:
            msg = (
                f"cannot write TREC text: column {field!r} has a value that is empty, null, "
                "contains whitespace or (for query_id) starts with '#'"
            )
            raise ParameterError(msg)


def _write_lines(lines: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    with atomic_path(path) as temp:
        lines.write_csv(
            temp,
            include_header=False,
            quote_style="never",
            compression=_csv_compression(path),
            check_extension=False,
        )


def _write_table(data: pl.DataFrame, path: str | os.PathLike[str], fmt: WriteFormat) -> None:
    with atomic_path(path) as temp:
        if fmt == "csv":
            data.write_csv(temp, compression=_csv_compression(path), check_extension=False)
        elif _is_gzip_name(path):
            # Parquet compresses internally; gzip on top only honours the name asked for.
            buffer = io.BytesIO()
            data.write_parquet(buffer)
            temp.write_bytes(gzip.compress(buffer.getvalue()))
        else:
            data.write_parquet(temp)


def _csv_compression(path: str | os.PathLike[str]) -> Literal["gzip", "uncompressed"]:
    return "gzip" if _is_gzip_name(path) else "uncompressed"


def _is_gzip_name(path: str | os.PathLike[str]) -> bool:
    return Path(path).name.lower().endswith(".gz")
