"""Document and query texts: read from TSV, JSONL, JSON or Parquet files, mappings or frames.

A texts source maps an id to a text: ``doc_id, text`` for documents, ``query_id, text`` for
queries. Only the ids the page shows are kept (a semi-join before anything is collected), so
a whole collection can be passed; every text is cut to a snippet before it is embedded.
``irds:<ir_datasets id>`` reads a dataset's queries through ir_datasets; labels given as
``irds:`` lend the page their dataset's queries when those are already in its cache
(:func:`cached_queries`).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, TypeAlias

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
    ...}``), a JSON array (``.json``) of such objects or in rank_llm's and pyserini's
    candidate layout (``[{"query": ..., "hits": [{"qid", "docid", "content"}, ...]}]``:
    the hits' passages, or with ``what="queries"`` the queries), Parquet, or
    tab-separated text (any other name): the id, a tab, then the text (further tabs
    belong to the text), with an optional header line. Gzip is read transparently. The id
    and text columns are the first of :data:`ID_COLUMNS` and :data:`TEXT_COLUMNS` present.

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
        The file is missing, cannot be parsed, or has no id or text column (the message
        names the file).
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
    try:
        frame = _scan(source, what)
        if keep is not None:
            wanted = pl.LazyFrame({"id": list(keep)}, schema={"id": pl.String})
            frame = frame.join(wanted, on="id", how="semi")
        return frame.unique("id", keep="first", maintain_order=True).collect()
    except pl.exceptions.PolarsError as error:  # a malformed file, found while reading
        where = source if isinstance(source, str | os.PathLike) else "the source"
        msg = f"{what}: {where} could not be read as texts: {_first_line(error)}"
        raise InputFormatError(msg) from None


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
        if _starts_an_array(path):
            return _json_array(path, what)
        return _id_and_text(pl.scan_ndjson(path, infer_schema_length=1000), what, str(path))
    if name.endswith(_PARQUET_SUFFIXES):
        return _id_and_text(pl.scan_parquet(path), what, str(path))
    return _tab_separated(path, what)


def _open(path: Path) -> gzip.GzipFile | Any:
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else path.open("rb")


def _starts_an_array(path: Path) -> bool:
    """Whether a JSON file holds one array (not one object per line)."""
    with _open(path) as handle:
        head = handle.read(4096).lstrip()
    return head.startswith(b"[")


def _json_array(path: Path, what: str) -> pl.LazyFrame:
    """Read a JSON array of id/text objects, or rank_llm's ``[{query, hits}]`` layout."""
    try:
        with _open(path) as handle:
            items = json.load(handle)
    except (ValueError, OSError) as error:  # JSONDecodeError, UnicodeDecodeError, bad gzip
        msg = f"{what}: {path} is not valid JSON: {error}"
        raise InputFormatError(msg) from None
    objects = [item for item in items if isinstance(item, dict)]
    if len(objects) != len(items):
        msg = f"{what}: {path} must be a JSON array of objects."
        raise InputFormatError(msg)
    if objects and all("hits" in item for item in objects):
        return _hits(objects, what, path)
    frame = pl.DataFrame(objects, infer_schema_length=None) if objects else pl.DataFrame()
    return _id_and_text(frame.lazy(), what, str(path))


def _hits(items: list[dict[str, Any]], what: str, path: Path) -> pl.LazyFrame:
    """Read the passages (for queries: the queries) of rank_llm's candidate lists."""
    ids: list[str] = []
    texts: list[str] = []
    for number, item in enumerate(items, start=1):
        hits = item["hits"]
        if not isinstance(hits, list) or not all(isinstance(hit, dict) for hit in hits):
            msg = f"{what}: {path}: element {number} has 'hits' that are not a list of objects."
            raise InputFormatError(msg)
        if what == "queries":
            query = item.get("query")
            text = query.get("text") if isinstance(query, dict) else query
            qid = query.get("qid") if isinstance(query, dict) else None
            qid = qid if qid is not None else next((h.get("qid") for h in hits), None)
            if qid is not None and text is not None:
                ids.append(str(qid))
                texts.append(str(text))
            continue
        for hit in hits:
            docid = next((hit[key] for key in ID_COLUMNS if key in hit), None)
            text = next((hit[key] for key in TEXT_COLUMNS if key in hit), None)
            if docid is None or text is None:
                msg = (
                    f"{what}: {path}: element {number} has a hit without an id "
                    f"(one of {', '.join(ID_COLUMNS)}) or a text (one of "
                    f"{', '.join(TEXT_COLUMNS)}); it has {', '.join(hit)}."
                )
                raise InputFormatError(msg)
            ids.append(str(docid))
            texts.append(str(text))
    return pl.LazyFrame({"id": ids, "text": texts}, schema={"id": pl.String, "text": pl.String})


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


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
