"""Document and query texts: read from TSV, JSONL or Parquet files, mappings or frames.

A texts source maps an id to a text: ``doc_id, text`` for documents, ``query_id, text`` for
queries. Only the ids the page shows are kept (a semi-join before anything is collected), so
a whole collection can be passed; every text is cut to a snippet before it is embedded.
``irds:<ir_datasets id>`` reads a dataset's queries through ir_datasets; labels given as
``irds:`` lend the page their dataset's queries when those are already in its cache
(:func:`cached_queries`).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TypeAlias

import polars as pl

from rankset.errors import InputFormatError, ParameterError
from rankset.io import read_irds_queries
from rankset.io._shared import is_irds

__all__ = [
    "ID_COLUMNS",
    "TEXT_COLUMNS",
    "IntoTexts",
    "cached_queries",
    "read_texts",
    "snippet_expr",
]

#: Anything :func:`read_texts` reads: a file, ``{id: text}``, or a frame.
IntoTexts: TypeAlias = str | os.PathLike[str] | Mapping[str, str] | pl.DataFrame | pl.LazyFrame

#: Column names taken for the id, in order of preference.
ID_COLUMNS = ("doc_id", "docid", "docno", "pid", "_id", "id", "query_id", "qid", "topic_id")
#: Column names taken for the text, in order of preference.
TEXT_COLUMNS = ("text", "contents", "content", "doc", "body", "passage", "query", "question")

_JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
_PARQUET_SUFFIXES = (".parquet", ".pq")
_ELLIPSIS = "…"


def read_texts(
    source: IntoTexts, *, keep: Collection[str] | None = None, what: str = "texts"
) -> pl.DataFrame:
    r"""Read ``id, text`` pairs; keep only the ids in ``keep`` when given.

    ``irds:<ir_datasets id>`` (or a short name, ``irds:dl19-passage``) is the dataset's
    queries, read through ir_datasets (:func:`rankset.io.read_irds_queries`). Files:
    JSON lines (``.jsonl``, ``.ndjson``, ``.json``; one object per line with an id
    and a text field, e.g. ``{"doc_id": ..., "text": ...}`` or ``{"docid": ..., "doc":
    ...}``), Parquet, or tab-separated text (any other name): the id, a tab, then the text
    (further tabs belong to the text), with an optional header line. Gzip is read
    transparently. The id and text columns are the first of :data:`ID_COLUMNS` and
    :data:`TEXT_COLUMNS` present.

    Parameters
    ----------
    source
        A path, ``irds:<id>``, a mapping ``{id: text}``, or a Polars frame.
    keep
        The ids wanted; the others are dropped before the texts are collected.
    what
        The parameter's name in error messages (``texts``, ``queries``).

    Returns
    -------
    polars.DataFrame
        ``id`` and ``text`` (String), one row per id (the first text of a repeated id).

    Raises
    ------
    InputFormatError
        The file is missing or has no id or text column.
    ParameterError
        ``source`` is of another type.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "docs.tsv"
    ...     _ = path.write_text("doc_id\ttext\nd1\tRefunds \"within\"\t30 days.\nd2\tNo.\n")
    ...     read_texts(path, keep={"d1"}).rows()
    [('d1', 'Refunds "within"\t30 days.')]
    """
    frame = _scan(source, what)
    if keep is not None:
        wanted = pl.LazyFrame({"id": list(keep)}, schema={"id": pl.String})
        frame = frame.join(wanted, on="id", how="semi")
    return frame.unique("id", keep="first", maintain_order=True).collect()


def cached_queries(labels: object) -> pl.DataFrame | None:
    """Return the queries of the ``irds:`` dataset ``labels`` names, if already cached.

    Nothing is downloaded: labels that are not ``irds:``, a dataset whose queries are not
    in ir_datasets' cache, or ir_datasets not installed give None (the page then shows
    query ids alone).

    Examples
    --------
    >>> cached_queries("qrels.txt") is None
    True
    """
    if not is_irds(labels):
        return None
    try:
        queries = read_irds_queries(str(labels), download=False)
    except (InputFormatError, ImportError):  # MissingDependencyError is an ImportError
        return None
    return queries.rename({"query_id": "id"})


def snippet_expr(column: str, length: int) -> pl.Expr:
    r"""Cut a text column to ``length`` characters (an ellipsis ends a cut text), on one line.

    Examples
    --------
    >>> frame = pl.DataFrame({"t": ["short", "a longer  text\nhere"]})
    >>> frame.select(snippet_expr("t", 8))["t"].to_list()
    ['short', 'a longe…']
    """
    text = pl.col(column).str.replace_all(r"\s+", " ").str.strip_chars()
    return (
        pl.when(text.str.len_chars() > length)
        .then(pl.concat_str(text.str.slice(0, length - 1).str.strip_chars_end(), pl.lit(_ELLIPSIS)))
        .otherwise(text)
        .alias(column)
    )


def _scan(source: IntoTexts, what: str) -> pl.LazyFrame:
    if isinstance(source, pl.DataFrame | pl.LazyFrame):
        return _id_and_text(source.lazy(), what, "the frame")
    if isinstance(source, Mapping):
        return pl.LazyFrame(
            {"id": [str(key) for key in source], "text": [str(v) for v in source.values()]},
            schema={"id": pl.String, "text": pl.String},
        )
    if is_irds(source):
        return read_irds_queries(str(source)).lazy().rename({"query_id": "id"})
    if not isinstance(source, str | os.PathLike):
        msg = (
            f"The '{what}' parameter must be a path, a mapping {{id: text}} or a polars "
            f"DataFrame. Got {type(source).__name__} instead."
        )
        raise ParameterError(msg)
    path = Path(source)
    if not path.is_file():
        raise InputFormatError(f"{what}: file not found: {source}")
    name = path.name.lower().removesuffix(".gz")
    if name.endswith(_JSON_SUFFIXES):
        return _id_and_text(pl.scan_ndjson(path, infer_schema_length=1000), what, str(path))
    if name.endswith(_PARQUET_SUFFIXES):
        return _id_and_text(pl.scan_parquet(path), what, str(path))
    return _tab_separated(path, what)


def _id_and_text(frame: pl.LazyFrame, what: str, source: str) -> pl.LazyFrame:
    names = frame.collect_schema().names()
    id_column = next((name for name in ID_COLUMNS if name in names), None)
    text_column = next((name for name in TEXT_COLUMNS if name in names), None)
    if id_column is None or text_column is None:
        msg = (
            f"{what}: {source} needs an id column (one of {', '.join(ID_COLUMNS)}) and a "
            f"text column (one of {', '.join(TEXT_COLUMNS)}); it has {', '.join(names)}."
        )
        raise InputFormatError(msg)
    return frame.select(
        pl.col(id_column).cast(pl.String).alias("id"),
        pl.col(text_column).cast(pl.String).alias("text"),
    ).filter(pl.col("id").is_not_null() & pl.col("text").is_not_null())


def _tab_separated(path: Path, what: str) -> pl.LazyFrame:
    """``id<TAB>text`` lines; a first line naming the columns is a header."""
    fields = (
        pl.scan_lines(path)
        .filter(pl.col("line").str.strip_chars() != "")
        .select(pl.col("line").str.strip_chars_end("\r").str.splitn("\t", 2).alias("f"))
        .select(
            pl.col("f").struct.field("field_0").alias("id"),
            pl.col("f").struct.field("field_1").alias("text"),
        )
    )
    first = fields.head(1).collect()
    if first.height and first["text"][0] is None:
        msg = f"{what}: {path} is not tab-separated (expected 'id<TAB>text' lines)."
        raise InputFormatError(msg)
    if first.height and str(first["id"][0]).lower() in ID_COLUMNS:
        fields = fields.slice(1)
    return fields.filter(pl.col("text").is_not_null())
