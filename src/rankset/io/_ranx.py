"""ranx-style mappings ``{query_id: {doc_id: number}}``, in memory or as a JSON object.

The same shape holds a run (the numbers are scores) or labels (grades), so the caller
says which.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from decimal import Decimal
from itertools import chain
from operator import itemgetter
from typing import Any

import polars as pl

from rankset._typing import Kind
from rankset.errors import InputFormatError
from rankset.io._parsed import LABELS_SCHEMA, RUN_SCHEMA, ParsedInput, id_text

__all__ = [
    "is_ranx_object",
    "looks_like_ranx",
    "parse_ranx",
    "parse_ranx_runs",
    "ranx_object_dict",
]


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
    flat = _flat_columns(mapping)
    # Text keys of one dict are distinct: no document twice in a ranking. Integer keys
    # (read row by row) could collide with text ones ("1" and 1).
    unique_docs = flat is not None
    ranking_numbers = None if flat is None else flat[1]
    columns = _checked_columns(mapping, name, kind) if flat is None else flat[0]
    query_ids, doc_ids, values = columns
    ids = {"query_id": query_ids, "doc_id": doc_ids}
    if kind == "labels":
        labels = pl.DataFrame({**ids, "grade": values}, schema=LABELS_SCHEMA)
        return ParsedInput(name, stem, "ranx", labels=labels.lazy())
    rows = len(doc_ids)
    run = pl.DataFrame(
        {
            **ids,
            "rank": pl.Series([None], dtype=pl.Int64).new_from_index(0, rows),
            "score": values,
            "system": pl.Series([None], dtype=pl.String).new_from_index(0, rows),
        },
        schema=RUN_SCHEMA,
    )
    # The profile the evaluation would otherwise measure in a pass: no system column
    # values (tags), a score on every row.
    profile = {"tags": [], "n_scores": run.height, "n_rows": run.height}
    return ParsedInput(
        name,
        stem,
        "ranx",
        run=run.lazy(),
        profile=profile,
        unique_docs=unique_docs,
        rows_in_memory=run.height,
        ranking_numbers=ranking_numbers,
        query_ids=None if flat is None else tuple(query for query, docs in mapping.items() if docs),
    )


_Columns = tuple[pl.Series | list[str], pl.Series | list[str], pl.Series | list[float]]


def _flat_columns(mapping: Mapping[Any, Any]) -> tuple[_Columns, pl.Series | None] | None:
    """Return the three columns without a Python step per row, or None to go row by row.

    The common shape (text ids, ``dict`` values, numbers) is flattened with list
    extensions and checked by the column constructors; anything else (integer ids, a
    mapping that is not a ``dict``, an entry to report) is left to the row-by-row
    reader, which gives the same frame or names the offending entry. Beside the
    columns: past :data:`_SMALL` rows, each row's query number (sorted), which the
    query ids are gathered by; None below.
    """
    doc_ids: list[Any] = []
    values: list[Any] = []
    for query, docs in mapping.items():
        if type(query) is not str or type(docs) is not dict:
            return None
        doc_ids.extend(docs)
        values.extend(docs.values())
    converted = _converted(doc_ids, values, "value")
    if converted is None:
        return None
    doc_series, value_series = converted
    if len(values) <= _SMALL:  # a list is quicker than Polars' fixed costs
        query_ids = [query for query, docs in mapping.items() for _ in range(len(docs))]
        query_series = pl.Series("query_id", query_ids, dtype=pl.String)
        return (query_series, doc_series, value_series), None
    # Each query id once, repeated by its document count.
    counts = pl.Series([len(docs) for docs in mapping.values()], dtype=pl.UInt32)
    repeats = pl.int_range(len(counts), dtype=pl.UInt32, eager=True).repeat_by(counts)
    numbers = repeats.explode(empty_as_null=False).set_sorted()
    query_series = pl.Series("query_id", list(mapping), dtype=pl.String).gather(numbers)
    return (query_series, doc_series, value_series), numbers


# Up to this many rows, the query ids are repeated and the values' types read in Python.
_SMALL = 2_000


def parse_ranx_runs(runs: Mapping[Any, Any], names: Sequence[str] | None) -> ParsedInput | None:
    """Read ``{system: {query_id: {doc_id: score}}}`` as one run with a system column.

    Many small runs read as one frame are measured in one pass, not one per run. Only
    the common shape is taken (text names and ids, ``dict`` values, numbers, no empty
    run); for anything else None, and each run is read by :func:`parse_ranx`, which names
    the offending entry. ``names`` replace the mapping's keys, in order.

    Examples
    --------
    >>> parsed = parse_ranx_runs({"a": {"q1": {"d1": 2.0}}, "b": {"q1": {"d2": 1.0}}}, None)
    >>> parsed.run.select("system", "query_id", "doc_id", "score").collect().rows()
    [('a', 'q1', 'd1', 2.0), ('b', 'q1', 'd2', 1.0)]
    """
    systems = list(runs) if names is None else list(names)
    if len(set(systems)) != len(systems):  # the naming rule says what to do then
        return None
    query_ids: list[Any] = []
    ranked_docs: list[Any] = []
    rankings_per_run: list[int] = []
    for system, run in zip(systems, runs.values(), strict=True):
        if type(system) is not str or type(run) is not dict or not run:
            return None
        rankings_per_run.append(len(run))
        query_ids.extend(run)
        ranked_docs.extend(run.values())
    if not all(type(query) is str for query in query_ids) or not all(
        type(docs) is dict for docs in ranked_docs
    ):
        return None
    # Flattened by the interpreter's own loops: no Python step per row.
    doc_ids = list(chain.from_iterable(ranked_docs))
    values = list(chain.from_iterable(map(dict.values, ranked_docs)))
    rows_per_ranking = list(map(len, ranked_docs))
    converted = _converted(doc_ids, values, "score")
    if converted is None:
        return None
    doc_series, value_series = converted
    rankings = _repeated(rows_per_ranking)
    ranking_systems = _repeated(rankings_per_run)
    query_series = pl.Series("query_id", query_ids, dtype=pl.String).gather(rankings)
    system_series = pl.Series("system", systems, dtype=pl.String).gather(
        ranking_systems.gather(rankings)
    )
    run_frame = pl.DataFrame(
        {
            "query_id": query_series,
            "doc_id": doc_series,
            "rank": pl.Series([None], dtype=pl.Int64).new_from_index(0, len(doc_series)),
            "score": value_series,
            "system": system_series,
        },
        schema=RUN_SCHEMA,
    )
    profile = {"tags": systems[:2], "n_scores": run_frame.height, "n_rows": run_frame.height}
    return ParsedInput(
        "<dict>",
        None,
        "ranx",
        run=run_frame.lazy(),
        profile=profile,
        unique_docs=True,
        rows_in_memory=run_frame.height,
        ranking_numbers=rankings,  # each (system, query) is one ranking: a dict's keys
        query_ids=tuple(dict.fromkeys(query_ids)),
        systems=tuple(systems),
    )


def _converted(
    doc_ids: list[Any], values: list[Any], value_name: str
) -> tuple[pl.Series, pl.Series] | None:
    """Return the doc ids as text and the values as doubles; None if any will not do.

    Strict conversions: a doc id that is not text, a value that is not a number (or is
    None, or a boolean) gives None, and the row-by-row reader names it.
    """
    try:
        doc_series = pl.Series("doc_id", doc_ids, dtype=pl.String, strict=True)
        value_series = pl.Series(value_name, values, dtype=pl.Float64, strict=True)
    except TypeError:
        return None
    if value_series.null_count() or not _no_booleans(values, value_series):
        return None
    return doc_series, value_series


def _repeated(counts: list[int]) -> pl.Series:
    """Return 0, 1, ... each repeated by its count (the item of each row), sorted.

    By numpy: a tenth of the three eager Polars steps' cost on 1,000 counts.

    Examples
    --------
    >>> _repeated([2, 0, 1]).to_list()
    [0, 0, 2]
    """
    import numpy as np  # a core dependency, loaded when a mapping of runs is read

    items = np.arange(len(counts), dtype=np.uint32)
    return pl.Series(np.repeat(items, counts)).set_sorted()


def _no_booleans(values: list[Any], converted: pl.Series) -> bool:
    """Whether no value converted to ``Float64`` was a boolean.

    The strict conversion takes any number (numpy's, ``Decimal``) and ``True``, refuses
    text and keeps None as null. A boolean is refused as a score or grade, and it can
    only have become 0.0 or 1.0, so only the types of the values that did are read.
    """
    picked: Sequence[Any] = values
    if len(values) > _SMALL:  # past it, the converted column says where to look
        import numpy as np  # a core dependency; a third of Polars' eager steps' cost

        scores = converted.to_numpy()  # no nulls here: a view
        positions = np.flatnonzero((scores == 0.0) | (scores == 1.0)).tolist()
        # itemgetter of one position gives the value itself, not a tuple of it
        many = len(positions) > 1
        picked = itemgetter(*positions)(values) if many else [values[i] for i in positions]
    return not any(map(_is_boolean_type, set(map(type, picked))))


def _is_boolean_type(kind: type) -> bool:
    # numpy's is named "bool" (numpy 2) or "bool_" and is no subclass of Python's
    return issubclass(kind, bool) or kind.__name__ in ("bool", "bool_")


def _checked_columns(mapping: Mapping[Any, Any], name: str, kind: Kind) -> _Columns:
    """Return the three columns read entry by entry, naming the first unusable one."""
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
    return query_ids, doc_ids, values


def looks_like_ranx(value: Mapping[str, Any]) -> bool:
    """Whether a mapping is one ranx-style run or labels: ``{id: {doc: number}}``.

    ``{name: run}`` (mappings of mappings of mappings) is not. The first value found
    decides: a mapping is ``{name: run}``, anything else a score or grade, which the
    readers check (a boolean or a text is named there as what it is).

    Examples
    --------
    >>> looks_like_ranx({"q1": {"d1": 0.5}}), looks_like_ranx({"bm25": {"q1": {"d1": 0.5}}})
    (True, False)
    """
    if not value:
        return False
    # Decided by the first value found: the readers check every entry and name a bad one.
    for inner in value.values():
        if type(inner) is not dict and not isinstance(inner, Mapping):
            return False
        for score in inner.values():
            return type(score) is not dict and not isinstance(score, Mapping)
    return True


def _is_number(value: object) -> bool:
    """Whether a score or grade is a number: a real one or a ``Decimal``, not a boolean."""
    if type(value) is float or type(value) is int:
        return True
    return isinstance(value, numbers.Real | Decimal) and not _is_boolean_type(type(value))


def is_ranx_object(value: object) -> bool:
    """Whether ``value`` is a ``ranx.Run`` or ``ranx.Qrels`` (checked without importing ranx).

    Examples
    --------
    >>> is_ranx_object({"q1": {"d1": 1.0}})
    False
    """
    kind = type(value)
    return (
        kind.__module__.split(".")[0] == "ranx"
        and kind.__name__ in ("Run", "Qrels")
        and callable(getattr(value, "to_dict", None))
    )


def ranx_object_dict(value: Any) -> tuple[dict[str, Any], str, str | None]:
    """Return a ranx object's ``{qid: {doc: score}}``, its display name and its own name."""
    name = getattr(value, "name", None)
    return value.to_dict(), f"<ranx.{type(value).__name__}>", str(name) if name else None
