"""ranx-style mappings ``{query_id: {doc_id: number}}``, in memory or as a JSON object.

The same shape holds a run (the numbers are scores) or labels (grades), so the caller
says which.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import polars as pl

from rankset._typing import Kind
from rankset.errors import InputFormatError
from rankset.io._parsed import LABELS_SCHEMA, RUN_SCHEMA, ParsedInput, id_text

__all__ = ["looks_like_ranx", "parse_ranx"]


def parse_ranx(mapping: Mapping[Any, Any], name: str, stem: str | None, kind: Kind) -> ParsedInput:
    """Parse a ranx-style mapping as a run (scores) or labels (grades).

    Examples
    --------
    >>> parse_ranx({"q1": {"d1": 2}}, "<dict>", None, "labels").labels.collect().rows()
    [('q1', 'd1', 2.0)]
    """
    if kind == "auto":
        msg = (
            f"{name}: a mapping {{query_id: {{doc_id: number}}}} can be a run or labels; "
            "pass kind='run' or kind='labels' (or call scan_run / scan_labels)"
        )
        raise InputFormatError(msg)
    query_ids: list[str] = []
    doc_ids: list[str] = []
    values: list[float] = []
    for query, docs in mapping.items():
        query_id = id_text(query, name, "query id")
        if not isinstance(docs, Mapping):
            msg = f"{name}: query {query_id!r} maps to {type(docs).__name__}, expected a mapping"
            raise InputFormatError(msg)
        for doc, value in docs.items():
            if not _is_number(value):
                what = "score" if kind == "run" else "grade"
                msg = f"{name}: query {query_id!r}, doc {doc!r}: {what} {value!r} is not a number"
                raise InputFormatError(msg)
            query_ids.append(query_id)
            doc_ids.append(id_text(doc, name, "doc id"))
            values.append(float(value))
    ids = {"query_id": query_ids, "doc_id": doc_ids}
    if kind == "labels":
        labels = pl.DataFrame({**ids, "grade": values}, schema=LABELS_SCHEMA)
        return ParsedInput(name, stem, "ranx", labels=labels.lazy())
    nulls = [None] * len(values)
    run = pl.DataFrame({**ids, "rank": nulls, "score": values, "system": nulls}, schema=RUN_SCHEMA)
    return ParsedInput(name, stem, "ranx", run=run.lazy())


def looks_like_ranx(value: Mapping[str, Any]) -> bool:
    """Whether a mapping is one ranx-style run or labels: ``{id: {doc: number}}``.

    A number is any real number, numpy scalars included; ``{name: run}`` (mappings of
    mappings) is not.

    Examples
    --------
    >>> looks_like_ranx({"q1": {"d1": 0.5}}), looks_like_ranx({"bm25": {"q1": {"d1": 0.5}}})
    (True, False)
    """
    if not value or not all(isinstance(inner, Mapping) for inner in value.values()):
        return False
    return all(_is_number(score) for inner in value.values() for score in list(inner.values())[:1])


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
