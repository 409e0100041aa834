"""The public readers, and the dispatch of a source to the reader of its format.

:func:`read` parses any source into a :class:`ParsedInput`; :func:`scan_run` and
:func:`scan_labels` return one table of it as a LazyFrame.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sized
from pathlib import Path
from typing import Any, Final, cast

import polars as pl

from rankset._dependencies import import_optional
from rankset._typing import DatasetChecks, InputFormat, Kind, Source, choices_of
from rankset._validation import check_choice
from rankset.errors import InputFormatError, ParameterError
from rankset.io._irds import read_irds
from rankset.io._irds_catalog import is_irds
from rankset.io._parsed import (
    ParsedInput,
    check_column_mapping,
    check_format_for,
    check_no_mapping,
    no_table_message,
)
from rankset.io._partitioned import MANIFEST, read_partitioned
from rankset.io._ranx import is_ranx_object, parse_ranx, ranx_object_dict
from rankset.io._remote import fetch_url, is_url, parse_parquet_url, url_path
from rankset.io._sources import (
    GLOB_CHARS,
    GZIP_MAGIC,
    decode_text,
    display_stem,
    format_from_extension,
    read_bytes,
    sniff_content,
    starts_with,
    starts_with_trec_line,
    stream_bytes,
)
from rankset.io._tables import (
    foreign_to_lazy,
    is_foreign_frame,
    parse_parquet_files,
    parse_parquet_path,
    parse_table,
    read_delimited,
    read_frame,
    read_glob,
    read_parquet_bytes,
)
from rankset.io._trec import parse_msmarco_run, parse_trec, read_plain_trec_run

__all__ = ["read", "scan_labels", "scan_run"]

_INPUT_FORMATS: Final = frozenset(choices_of(InputFormat))
_KINDS: Final = frozenset(choices_of(Kind))
_FILE_FORMATS: Final = _INPUT_FORMATS - {"frame"}


def read(
    source: Source,
    *,
    format: InputFormat | None = None,
    columns: Mapping[str, str] | None = None,
    kind: Kind = "auto",
    dataset_checks: DatasetChecks = "error",
) -> ParsedInput:
    r"""Parse a run, labels, cutoffs and answers from a file, stream or in-memory object.

    Parameters
    ----------
    source
        A path (``str`` or path-like; ``.gz`` is decompressed transparently), a URL
        (``https://``, ``hf://``, ``s3://``: read as a local file would be; Parquet on
        an object store is scanned by Polars, lazily), ``irds:<ir_datasets id>`` or
        ``irds:<short name>`` (``irds:dl19-passage``; labels, through the optional
        ``ir_datasets`` package), a glob
        pattern or a folder of Parquet files read as one table (``runs/bm25/*.parquet``;
        named after the folder), a binary or text file object, a Polars
        DataFrame/LazyFrame, a pandas DataFrame, a pyarrow Table, or a ranx-style
        mapping ``{query_id: {doc_id: number}}``.
    format
        The input format; inferred when None: from the file extension (``.parquet``,
        ``.pq``, ``.csv``, ``.tsv``, ``.json``, ``.jsonl``, ``.ndjson``), else from the
        content (Parquet magic bytes, JSON when the first non-blank character is ``{`` or
        ``[``, else TREC text). JSON sources are told apart by their first object.
        A ``.tsv`` file whose first line is TREC-family text rather than a header is
        read as TREC text; ``"msmarco"`` reads every line as an MS MARCO run line
        (``qid docid rank``).
    columns
        For tables and JSON records: source column name -> canonical name (``query_id``,
        ``doc_id``, ``rank``, ``score``, ``grade``, ``system``, ``text``, and
        ``confidence``, a label's, kept with the labels but not scored). Applied before
        the built-in aliases (``qid``, ``docno``, ``rel``, ``tag``, ``query-id``,
        ``corpus-id``, ...); BEIR/MTEB qrels (``corpus-id`` and ``score``, no grade and
        no rank) are labels whose ``score`` is the grade.
    kind
        ``"run"`` or ``"labels"`` forces what a single-table source holds; ``"auto"``
        decides from the content (TREC field count, a grade column). Sources with several
        tables (samples) are parsed whole regardless.
    dataset_checks
        For dataset JSON (``{"queries": [...]}``), its own rules: each query has a
        relevant document, and ``relevance_scores``, when given, grades all of them.
        ``"error"`` raises at the first broken one; ``"warn"`` reads on (a query without
        relevant documents is scored as having none, an ungraded document gets grade 1)
        and says in one :class:`~rankset.RanksetWarning` how many queries broke them.

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

    Examples
    --------
    >>> import io
    >>> parsed = read(io.StringIO("301 0 CR93E-1282 1\n301 0 FR940202-2-00150 0\n"))
    >>> parsed.format, parsed.run is None, parsed.labels.collect().height
    ('trec', True, 2)
    """
    check_choice("format", format, _INPUT_FORMATS, allow_none=True)
    check_choice("kind", kind, _KINDS)
    check_choice("dataset_checks", dataset_checks, choices_of(DatasetChecks))
    mapping = check_column_mapping(columns)
    if isinstance(source, pl.DataFrame | pl.LazyFrame):
        parsed = read_frame(
            source.lazy(), f"<polars.{type(source).__name__}>", format, mapping, kind
        )
        if isinstance(source, pl.DataFrame):
            parsed = dataclasses.replace(parsed, rows_in_memory=source.height)
        return parsed
    if is_foreign_frame(source):
        name = f"<{type(source).__module__.split('.')[0]}.{type(source).__name__}>"
        parsed = read_frame(foreign_to_lazy(source, name), name, format, mapping, kind)
        return dataclasses.replace(parsed, rows_in_memory=len(cast(Sized, source)))
    if is_ranx_object(source):  # ranx.Run / ranx.Qrels: their dict, and the run's name
        check_format_for(format, {"ranx"}, "a ranx object")
        check_no_mapping(mapping, "ranx")
        return parse_ranx(*ranx_object_dict(source), kind)
    if isinstance(source, Mapping):
        check_format_for(format, {"ranx"}, "a mapping")
        check_no_mapping(mapping, "ranx")
        return parse_ranx(source, "<dict>", None, kind)
    if is_irds(source):
        check_format_for(format, {"trec"}, "an ir_datasets id")
        check_no_mapping(mapping, "trec")
        return read_irds(cast(str, source), kind)
    if is_url(source):
        return _read_url(cast(str, source), format, mapping, kind, dataset_checks)
    if isinstance(source, str | os.PathLike):
        return _read_path(
            Path(source), os.fspath(source), format, mapping, kind, dataset_checks=dataset_checks
        )
    if hasattr(source, "read"):
        return _read_stream(source, format, mapping, kind, dataset_checks=dataset_checks)
    msg = (
        f"cannot read a {type(source).__name__}: expected a path, a file object, a Polars, "
        "pandas or pyarrow frame, a ranx Run or Qrels, or a mapping {query_id: {doc_id: "
        "number}}"
    )
    raise ParameterError(msg)


def scan_run(
    source: Source,
    *,
    format: InputFormat | None = None,
    columns: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    r"""Scan a run, ranked documents per query, as a LazyFrame.

    The source is parsed now, so a malformed file raises here, not at ``.collect()``;
    Parquet files and frames stay lazy until collected.

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
    ParameterError
        ``format`` or ``columns`` is invalid, or does not fit the source.

    Examples
    --------
    >>> import io
    >>> text = "301 Q0 FR940202-2-00150 1 2.13 bm25\n301 Q0 FR940203-1-00036 2 1.91 bm25\n"
    >>> scan_run(io.StringIO(text)).collect()
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

    >>> scan_run({"q1": {"d1": 0.5}}).collect()["score"].to_list()
    [0.5]
    """
    parsed = read(source, format=format, columns=columns, kind="run")
    if parsed.run is None:
        raise InputFormatError(no_table_message(parsed, "run"))
    return parsed.run


def scan_labels(
    source: Source,
    *,
    format: InputFormat | None = None,
    columns: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    r"""Scan labels (qrels), graded judgments per query, as a LazyFrame.

    The source is parsed now, so a malformed file raises here, not at ``.collect()``.

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
    ParameterError
        ``format`` or ``columns`` is invalid, or does not fit the source.

    Examples
    --------
    >>> import io
    >>> scan_labels(io.StringIO("301 0 CR93E-1282 1\n")).collect()["grade"].to_list()
    [1.0]
    """
    parsed = read(source, format=format, columns=columns, kind="labels")
    if parsed.labels is None:
        raise InputFormatError(no_table_message(parsed, "labels"))
    return parsed.labels


# --------------------------------------------------------------------------------------
# Dispatch: files, folders, globs and streams
# --------------------------------------------------------------------------------------


def _read_path(
    path: Path,
    name: str,
    format: str | None,
    mapping: dict[str, str],
    kind: Kind,
    *,
    dataset_checks: DatasetChecks = "error",
) -> ParsedInput:
    check_format_for(format, set(_FILE_FORMATS), "a file")
    if path.is_dir():
        if (path / MANIFEST).is_file():
            run, labels, buckets, profile = read_partitioned(path, name)
            return ParsedInput(
                name, None, "parquet", run=run, labels=labels, buckets=buckets, profile=profile
            )
        if format in (None, "parquet") and next(path.rglob("*.parquet"), None) is not None:
            # A folder of Parquet files (Spark, Dask, Hive-partitioned output): one table.
            return parse_parquet_files(path, name, path.name, mapping, kind)
        msg = (
            f"{name}: is a directory, expected a file, a folder of .parquet files, or a "
            f"dataset written by rankset.partition (which has a {MANIFEST})"
        )
        raise InputFormatError(msg)
    if not path.exists() and GLOB_CHARS.search(name):
        return read_glob(name, format, mapping, kind)
    stem = display_stem(path)
    resolved = format or format_from_extension(path)
    if path.exists() and not path.is_file():
        # A pipe, FIFO or device (<(zcat run.gz), /dev/stdin) can be read once only.
        return _parse_bytes(
            read_bytes(path, name), name, stem, resolved, mapping, kind,
            dataset_checks=dataset_checks, asked=format is not None,
        )  # fmt: skip
    if resolved == "parquet" and not starts_with(path, name, GZIP_MAGIC):
        return parse_parquet_path(path, name, stem, mapping, kind)
    tried_plain = False
    if resolved in (None, "trec") and kind != "labels" and not mapping:
        # Most run files are plain one-space TREC text: read them straight from disk.
        plain = read_plain_trec_run(path)
        if plain is not None:
            return ParsedInput(name, stem, "trec", run=plain.lazy(), rows_checked=True)
        tried_plain = not starts_with(path, name, GZIP_MAGIC)
    data = read_bytes(path, name)
    return _parse_bytes(
        data, name, stem, resolved, mapping, kind,
        try_plain=not tried_plain, dataset_checks=dataset_checks, asked=format is not None,
    )  # fmt: skip


def _read_url(
    url: str, format: str | None, mapping: dict[str, str], kind: Kind, dataset_checks: DatasetChecks
) -> ParsedInput:
    """Read a remote file: the format from the URL's extension, else from its content."""
    check_format_for(format, set(_FILE_FORMATS), "a URL")
    path = url_path(url)
    stem = display_stem(path) if path.name else None
    resolved = format or format_from_extension(path)
    if resolved == "parquet" or (resolved is None and GLOB_CHARS.search(path.name)):
        return parse_parquet_url(url, stem or url, mapping, kind)
    data = fetch_url(url)
    return _parse_bytes(
        data, url, stem, resolved, mapping, kind,
        dataset_checks=dataset_checks, asked=format is not None,
    )  # fmt: skip


def _read_stream(
    stream: Any,
    format: str | None,
    mapping: dict[str, str],
    kind: Kind,
    *,
    dataset_checks: DatasetChecks = "error",
) -> ParsedInput:
    check_format_for(format, set(_FILE_FORMATS), "a file object")
    name = "<stream>"
    data = stream_bytes(stream, name)
    return _parse_bytes(
        data, name, None, format, mapping, kind,
        dataset_checks=dataset_checks, asked=format is not None,
    )  # fmt: skip


def _parse_bytes(
    data: bytes,
    name: str,
    stem: str | None,
    format: str | None,
    mapping: dict[str, str],
    kind: Kind,
    *,
    try_plain: bool = True,
    dataset_checks: DatasetChecks = "error",
    asked: bool = True,
) -> ParsedInput:
    """Parse ``data`` as ``format`` (sniffed when None); ``asked``: the caller named it."""
    resolved = format or sniff_content(data)
    if resolved == "tsv" and not asked and not mapping and starts_with_trec_line(data):
        # a .tsv without a header: MS MARCO's run.dev.small.tsv is TREC-family text
        resolved = "trec"
    if resolved == "msmarco":
        check_no_mapping(mapping, "msmarco")
        return parse_msmarco_run(data, name, stem, kind)
    if resolved == "trec":
        check_no_mapping(mapping, "trec")
        return parse_trec(data, name, stem, kind, try_plain=try_plain)
    if resolved == "parquet":
        frame = read_parquet_bytes(data, name)
        return parse_table(frame.lazy(), name, stem, "parquet", mapping, kind)
    if resolved == "csv":
        frame = read_delimited(data, name, ",")
        return parse_table(frame.lazy(), name, stem, "csv", mapping, kind, validate_rows=True)
    if resolved == "tsv":
        frame = read_delimited(data, name, "\t")
        return parse_table(frame.lazy(), name, stem, "tsv", mapping, kind, validate_rows=True)
    from rankset.io._json import parse_json  # JSON's dialects: loaded for JSON only

    if resolved == "yaml":
        return parse_json(_yaml_as_json(data, name), name, stem, None, mapping, kind)
    json_format = None if resolved == "json" else resolved
    text = decode_text(data, name)
    return parse_json(text, name, stem, json_format, mapping, kind, dataset_checks=dataset_checks)


def _yaml_as_json(data: bytes, name: str) -> str:
    """Return a YAML document (sample files: ``samples:``, a list) as JSON, via PyYAML."""
    yaml = import_optional("yaml", extra="yaml", purpose=f"Reading {name} (YAML)")
    try:
        document = yaml.safe_load(decode_text(data, name))
    except yaml.YAMLError as error:
        raise InputFormatError(f"{name}: not valid YAML ({error})") from None
    return json.dumps(document, default=str)
