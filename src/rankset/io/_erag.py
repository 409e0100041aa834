r"""eRAG's per-document downstream scores: a run and continuous labels.

eRAG (Salemi and Zamani, SIGIR 2024) gives each retrieved document of a query, alone, to
the generator and scores the answer against the gold answers with a downstream metric
(a number in 0..1). That score is the document's label. eRAG's own code numbers the
documents of a query by their position, ``"0"``, ``"1"``, ..., and ranks them in list
order; :func:`read_erag` returns the same run and labels, so every rankset measure can
read them (the measures of real-valued gains are in :mod:`rankset.measures.continuous`).

Accepted shapes, in memory or as a JSON / JSON Lines file (gzip-compressed or not):

- ``{query_id: [score, ...]}``: the scores of a query's documents in retrieved order;
- ``{query_id: {"doc_ids": [...], "scores": [...]}}``: the same with document ids;
- JSON Lines, one query per line: ``{"query_id": ..., "scores": [...]}`` with an
  optional ``"doc_ids"`` (``"qid"`` or ``"query"`` may name the query).
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from rankset.errors import InputFormatError
from rankset.io._json import load_json_lines
from rankset.io._parsed import LABELS_SCHEMA, id_text
from rankset.io._sources import decode_text, read_bytes, stream_bytes

__all__ = ["ERAG_RUN_SCHEMA", "ERagTables", "read_erag"]

ERAG_RUN_SCHEMA = pl.Schema(
    {
        "system": pl.String,
        "query_id": pl.String,
        "doc_id": pl.String,
        "rank": pl.Int64,
        "score": pl.Float64,
    }
)
_QUERY_KEYS = ("query_id", "qid", "query")


class ERagTables(NamedTuple):
    """What :func:`read_erag` returns: the ranking eRAG evaluated and its labels."""

    run: pl.DataFrame
    """``system, query_id, doc_id, rank, score``: rank 1 is the first document; the
    score of the document at 0-based position ``i`` of ``n`` is ``n - i`` (eRAG's)."""
    labels: pl.DataFrame
    """``query_id, doc_id, grade``: the grade is the downstream score (Float64)."""


def read_erag(
    source: str | os.PathLike[str] | io.IOBase | Mapping[Any, Any],
    *,
    system: str = "erag",
) -> ERagTables:
    r"""Read eRAG's per-document downstream scores as a run and continuous labels.

    Parameters
    ----------
    source
        A mapping ``{query_id: [score, ...]}`` (scores in retrieved order) or
        ``{query_id: {"doc_ids": [...], "scores": [...]}}``, or a JSON or JSON Lines
        file (a path or a stream) holding one; see the module docstring.
    system
        The run's system name.

    Returns
    -------
    ERagTables
        ``(run, labels)``. Without document ids, a query's documents are ``"0"``,
        ``"1"``, ... by position, as eRAG numbers them.

    Raises
    ------
    InputFormatError
        A score that is not a number in 0..1 (eRAG refuses others), a query without
        documents, a document twice in a query's list, ``doc_ids`` and ``scores`` of
        different lengths, or a malformed record. The message names the file (or
        ``<mapping>``), the line where one applies, and the query.

    Examples
    --------
    >>> run, labels = read_erag({"q1": [0.0, 0.5, 1.0]})
    >>> run.rows()
    [('erag', 'q1', '0', 1, 3.0), ('erag', 'q1', '1', 2, 2.0), ('erag', 'q1', '2', 3, 1.0)]
    >>> labels.rows()
    [('q1', '0', 0.0), ('q1', '1', 0.5), ('q1', '2', 1.0)]
    >>> read_erag({"q1": [0.5, 1.5]})
    Traceback (most recent call last):
    ...
    rankset.errors.InputFormatError: <mapping>, query 'q1': score 2 is 1.5; eRAG's ...
    """
    rows = _queries(source)
    query_ids: list[str] = []
    doc_ids: list[str] = []
    ranks: list[int] = []
    grades: list[float] = []
    for query, docs, scores in rows:
        query_ids += [query] * len(docs)
        doc_ids += docs
        ranks += range(1, len(docs) + 1)
        grades += scores
    n_docs = [len(docs) for _, docs, _ in rows]
    scores_of_run = [float(n - i) for n in n_docs for i in range(n)]
    run = pl.DataFrame(
        {
            "system": [system] * len(doc_ids),
            "query_id": query_ids,
            "doc_id": doc_ids,
            "rank": ranks,
            "score": scores_of_run,
        },
        schema=ERAG_RUN_SCHEMA,
    )
    labels = pl.DataFrame(
        {"query_id": query_ids, "doc_id": doc_ids, "grade": grades}, schema=LABELS_SCHEMA
    )
    return ERagTables(run, labels)


def _queries(source: Any) -> list[tuple[str, list[str], list[float]]]:
    """Return each query's (id, document ids, scores), checked."""
    if isinstance(source, Mapping):
        return _from_mapping(source, "<mapping>")
    if isinstance(source, str | os.PathLike):
        name = str(source)
        data = read_bytes(Path(source), name)
    elif hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        data = stream_bytes(source, name)
    else:
        msg = (
            "read_erag reads a mapping {query_id: [score, ...]} or a JSON / JSON Lines file; "
            f"got {type(source).__name__}"
        )
        raise InputFormatError(msg)
    text = decode_text(data, name)
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):  # not one JSON document: JSON Lines
        lines = load_json_lines(text, name, check_surrogates=True)
        if not lines:
            msg = f"{name}: the file is empty; expected JSON or JSON Lines"
            raise InputFormatError(msg) from None
        records = [(line.value, line.where) for line in lines]
    else:
        if not isinstance(document, Mapping):
            msg = (
                f"{name}: expected a JSON object {{query_id: [score, ...]}} or JSON Lines "
                "records, found a JSON " + type(document).__name__
            )
            raise InputFormatError(msg)
        if not _is_record(document):
            return _from_mapping(document, name)
        records = [(document, name)]
    seen: set[str] = set()
    queries = []
    for record, where in records:
        entry = _from_record(record, where)
        if entry[0] in seen:
            msg = f"{where}: query {entry[0]!r} appears on an earlier line too"
            raise InputFormatError(msg)
        seen.add(entry[0])
        queries.append(entry)
    return queries


def _is_record(value: Mapping[str, Any]) -> bool:
    return "scores" in value and any(key in value for key in _QUERY_KEYS)


def _from_mapping(
    mapping: Mapping[Any, Any], name: str
) -> list[tuple[str, list[str], list[float]]]:
    queries = []
    for key, value in mapping.items():
        query = id_text(key, name, "a query id")
        where = f"{name}, query {query!r}"
        if isinstance(value, Mapping):
            queries.append((query, *_checked(value.get("scores"), value.get("doc_ids"), where)))
        else:
            queries.append((query, *_checked(value, None, where)))
    return queries


def _from_record(value: Any, where: str) -> tuple[str, list[str], list[float]]:
    key = next((k for k in _QUERY_KEYS if isinstance(value, Mapping) and k in value), None)
    if key is None or "scores" not in value:
        msg = (
            f"{where}: expected a JSON object with query_id (or qid, query) and "
            "scores, and optionally doc_ids"
        )
        raise InputFormatError(msg)
    query = id_text(value[key], where, "the query id")
    return (query, *_checked(value["scores"], value.get("doc_ids"), f"{where}, query {query!r}"))


def _checked(scores: Any, doc_ids: Any, where: str) -> tuple[list[str], list[float]]:
    """Check one query's scores (and ids); return the ids (positions without) and scores."""
    if not _is_list(scores):
        msg = f"{where}: expected a list of scores, found {type(scores).__name__}"
        raise InputFormatError(msg)
    if not scores:
        msg = f"{where}: no documents; eRAG needs the score of every retrieved document"
        raise InputFormatError(msg)
    values = [_score(score, position, where) for position, score in enumerate(scores, 1)]
    if doc_ids is None:
        return [str(position) for position in range(len(values))], values
    if not _is_list(doc_ids):
        msg = f"{where}: expected doc_ids to be a list, found {type(doc_ids).__name__}"
        raise InputFormatError(msg)
    if len(doc_ids) != len(values):
        msg = f"{where}: {len(doc_ids)} doc_ids for {len(values)} scores"
        raise InputFormatError(msg)
    ids = [id_text(doc, where, "a document id") for doc in doc_ids]
    if len(set(ids)) != len(ids):
        twice = next(doc for doc in ids if ids.count(doc) > 1)
        msg = f"{where}: document {twice!r} is listed twice"
        raise InputFormatError(msg)
    return ids, values


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _score(value: Any, position: int, where: str) -> float:
    # A bool is 0 or 1 (``answer in text``), as eRAG reads it.
    if not isinstance(value, int | float):
        msg = f"{where}: score {position} is {value!r}, not a number"
        raise InputFormatError(msg)
    number = float(value)
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        msg = f"{where}: score {position} is {value!r}; eRAG's downstream scores lie in 0..1"
        raise InputFormatError(msg)
    return number
