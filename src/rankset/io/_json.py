"""JSON and JSON Lines: RAG evaluation samples, golden sets, datasets and plain records.

The dialects, told apart by their first object when no format is given:

- ``samples``: RAG evaluation samples, one per query, with ``expected_output``
  (relevant ids, or id -> gain), ``actual_output`` (the retrieved ids or
  ``{"retrieved": [...]}``), ``metadata.k`` and ``expected_answer``; they carry a
  run, labels, cutoffs and answers at once. A JSON list, ``{"samples": [...]}`` or
  JSON Lines.
- ``rag-gs``: a golden set of graded passages, records with ``qid``, ``doc_id`` and
  ``grade_1_5``.
- ``dataset-json``: a dataset document ``{"queries": [{"query_id",
  "relevant_documents", "relevance_scores"}]}``.
- ``records-jsonl``: records with run or label columns, named like a table's.
- ``ranx``: a ``{query_id: {doc_id: number}}`` object (see ``_ranx``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import polars as pl

from rankset._typing import DatasetChecks, InputFormat, Kind
from rankset.errors import InputFormatError, ParameterError
from rankset.io._dataset_rules import (
    dataset_query_labels,
    implied_relevance_level,
    scalar_text,
    warn_broken_rules,
)
from rankset.io._parsed import (
    ALIASES,
    ANSWERS_SCHEMA,
    CUTOFFS_SCHEMA,
    LABELS_SCHEMA,
    MAX_SHOWN_LINE,
    ParsedInput,
    check_no_mapping,
    id_text,
    number_word,
)
from rankset.io._ranx import looks_like_ranx, parse_ranx
from rankset.io._tables import check_rows, first_uncastable, parse_table

__all__ = ["JSON_FORMATS", "load_json_lines", "loads", "parse_json"]

#: The formats read from JSON or JSON Lines.
#: The label row that marks a sample with an empty expected_output as labelled.
NO_RELEVANT_DOCUMENT: Final = "<no relevant document>"
JSON_FORMATS: Final = frozenset({"samples", "rag-gs", "dataset-json", "records-jsonl", "ranx"})
# An escaped UTF-16 surrogate: paired it is one character, alone it is none.
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")


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
            run={"query_id": [], "doc_id": [], "rank": [], "text": [], "where": []},
            labels={"query_id": [], "doc_id": [], "grade": [], "where": []},
            cutoffs={"query_id": [], "k": [], "where": []},
            answers={"query_id": [], "answer": []},
        )


def parse_json(
    text: str,
    name: str,
    stem: str | None,
    format: str | None,
    mapping: dict[str, str],
    kind: Kind,
    *,
    dataset_checks: DatasetChecks = "error",
) -> ParsedInput:
    """Parse a JSON or JSON Lines document in ``format``, or in the dialect it looks like.

    Examples
    --------
    >>> text = '{"qid": "q1", "doc_id": "d1", "grade_1_5": 4}'
    >>> parsed = parse_json(text, "<stream>", None, None, {}, "auto")
    >>> parsed.format, parsed.labels.collect().rows()
    ('rag-gs', [('q1', 'd1', 4.0)])
    """
    document = _load_json_document(text, name)
    resolved = format or _sniff_json(document)
    if resolved not in JSON_FORMATS:
        msg = f"{name}: format {resolved!r} cannot be read from JSON"
        raise ParameterError(msg)
    if resolved == "ranx":
        check_no_mapping(mapping, "ranx")
        ranx = document.value if isinstance(document, _Record) else None
        if not isinstance(ranx, Mapping):
            msg = f"{name}: expected a JSON object {{query_id: {{doc_id: number}}}} for ranx"
            raise InputFormatError(msg)
        return parse_ranx(ranx, name, stem, kind)
    if resolved == "dataset-json":
        check_no_mapping(mapping, "dataset-json")
        return _parse_dataset_json(document, name, stem, dataset_checks)
    records = _as_records(document, name, resolved)
    if resolved == "samples":
        check_no_mapping(mapping, "samples")
        return _parse_samples(records, name, stem)
    if resolved == "rag-gs":
        return _parse_records(records, name, stem, "rag-gs", mapping, "labels")
    return _parse_records(records, name, stem, "records-jsonl", mapping, kind)


def loads(text: str, name: str) -> Any:
    r"""Parse one JSON text; every way it can fail is an error naming ``name``.

    Invalid JSON names its line and column. Three limits of Python's parser become
    messages too: nesting deeper than the recursion limit, an integer longer than
    Python converts (4,300 digits), and a lone UTF-16 surrogate (``"\\ud800"``), which
    no UTF-8 text can hold.

    Examples
    --------
    >>> loads('{"a": [1, 2]}', "<stream>")
    {'a': [1, 2]}
    >>> loads('{"id": "\\ud800"}', "x.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankset.errors.InputFormatError: x.json: a string holds a lone UTF-16 surrogate ...
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFormatError(_json_error(name, exc)) from None
    except RecursionError:
        msg = f"{name}: JSON nested too deeply to read (more than {sys.getrecursionlimit()} levels)"
        raise InputFormatError(msg) from None
    except ValueError as exc:  # an integer with too many digits
        msg = f"{name}: a JSON number is too long to read ({exc})"
        raise InputFormatError(msg) from None
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(value, name)
    return value


def _refuse_lone_surrogates(value: Any, where: str) -> None:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        msg = (
            f"{where}: a string holds a lone UTF-16 surrogate escape (like \\ud800), "
            "which is not a character; fix the id or text that holds it"
        )
        raise InputFormatError(msg) from None


# --------------------------------------------------------------------------------------
# Documents and records
# --------------------------------------------------------------------------------------


def _load_json_document(text: str, name: str) -> _Record | list[_Record]:
    """Parse a whole JSON document, or JSON Lines when the text is one object per line."""
    stripped = text.lstrip()
    if not stripped:
        msg = f"{name}: the file is empty; expected JSON or JSON Lines"
        raise InputFormatError(msg)
    if stripped.startswith("["):
        return _Record(loads(text, name), name)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        first_line = stripped.split("\n", 1)[0]
        if exc.msg != "Extra data" and not _is_json(first_line):
            raise InputFormatError(_json_error(name, exc)) from None
    except (ValueError, RecursionError):
        return _Record(loads(text, name), name)  # for its message
    else:
        if _SURROGATE_ESCAPE.search(text):
            _refuse_lone_surrogates(value, name)
        return _Record(value, name)
    return load_json_lines(text, name, check_surrogates=bool(_SURROGATE_ESCAPE.search(text)))


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _json_error(name: str, exc: json.JSONDecodeError) -> str:
    return f"{name}, line {exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno})"


def load_json_lines(text: str, name: str, *, check_surrogates: bool) -> list[_Record]:
    """Parse JSON Lines (blank lines skipped); a bad line is an error naming it."""
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
        except (ValueError, RecursionError):
            value = loads(line, where)  # for its message
        if check_surrogates:
            _refuse_lone_surrogates(value, where)
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
            if looks_like_ranx(value):
                return "ranx"
        return _sniff_record(value)
    return _sniff_record(document[0].value if document else None)


def _sniff_record(value: Any) -> str:
    if isinstance(value, dict):
        if "grade_1_5" in value:
            return "rag-gs"
        if any(key in value for key in (*_SAMPLE_KEYS, "hypothesis")):
            return "samples"
    return "records-jsonl"


# The sample contract's keys, snake_case or camelCase.
_SAMPLE_KEYS: Final = {
    "expected_output": "expected_output",
    "expectedOutput": "expected_output",
    "actual_output": "actual_output",
    "actualOutput": "actual_output",
}
_SAMPLE_ALIASES: Final = {
    **_SAMPLE_KEYS,
    "expectedAnswer": "expected_answer",
    "queryId": "query_id",
}


def _sample_fields(sample: Mapping[str, Any], position: int, where: str) -> dict[str, Any]:
    """One sample with canonical keys; a ``{hypothesis, reference}`` record as a sample.

    Such a record (an evaluation API's recall@k input) holds JSON-serialised chunk lists:
    the chunks are matched by exact text, so each chunk is its own id; its query is its
    ``id``/``query_id`` or its position (q1, q2...), and its cutoff its ``k``, else the
    whole retrieved list, as that API's default.
    """
    fields = {_SAMPLE_ALIASES.get(key, key): value for key, value in sample.items()}
    if "hypothesis" not in fields:
        return fields
    retrieved = _maybe_json_string(fields.pop("hypothesis"), where, "hypothesis")
    reference = _maybe_json_string(fields.pop("reference", None), where, "reference")
    if not isinstance(retrieved, list) or not isinstance(reference, list):
        msg = f"{where}: hypothesis and reference must be JSON lists of chunks"
        raise InputFormatError(msg)
    if not any(fields.get(key) is not None for key in ("id", "query_id", "qid")):
        fields["query_id"] = f"q{position}"
    k = fields.pop("k", None) or len(retrieved)
    given = fields.get("metadata")
    metadata: dict[str, Any] = dict(given) if isinstance(given, Mapping) else {}
    fields["metadata"] = {"k": k, **metadata} if retrieved else metadata
    fields["actual_output"] = retrieved
    fields["expected_output"] = reference
    return fields


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


def _maybe_json_string(value: Any, where: str, field: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        msg = f"{where}: {field} is a string but not valid JSON ({exc.msg})"
        raise InputFormatError(msg) from None
    except (ValueError, RecursionError):
        return loads(value, f"{where}, {field}")  # for its message


# --------------------------------------------------------------------------------------
# RAG evaluation samples
# --------------------------------------------------------------------------------------


def _sample_query_id(sample: Mapping[str, Any], where: str) -> str:
    for key in ("id", "query_id", "qid"):
        if sample.get(key) is not None:
            return id_text(sample[key], where, key)
    msg = f"{where}: sample has no 'id' (or 'query_id', 'qid')"
    raise InputFormatError(msg)


def _parse_samples(records: list[_Record], name: str, stem: str | None) -> ParsedInput:
    tables = _SampleTables.empty()
    for position, record in enumerate(records, start=1):
        sample = _sample_fields(_require_object(record), position, record.where)
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
        relevance_level=implied_relevance_level(tables.labels["grade"]),
        rows_checked=True,
    )


def _add_expected_output(
    tables: _SampleTables, sample: Mapping[str, Any], query_id: str, where: str
) -> None:
    expected = _maybe_json_string(sample.get("expected_output"), where, "expected_output")
    if expected is None:
        return
    if isinstance(expected, Mapping):
        pairs = [(str(doc), scalar_text(gain)) for doc, gain in expected.items()]
    elif isinstance(expected, list):
        pairs = [(id_text(doc, where, "expected_output item"), "1") for doc in expected]
    else:
        msg = (
            f"{where}: expected_output must be a list of relevant ids or an id -> gain "
            f"object, found {json.dumps(expected)}"
        )
        raise InputFormatError(msg)
    if not pairs:
        # No relevant document: the query is still scored (hit, recall, RR, nDCG 0, as the
        # sample contract says; NA where a metric defines it so), not dropped. One label
        # row marks it labelled: a passage no run retrieves, graded -1 (in the pool,
        # unjudged: it counts nowhere).
        pairs = [(NO_RELEVANT_DOCUMENT, "-1")]
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
            f"found {json.dumps(actual)[:MAX_SHOWN_LINE]}"
        )
        raise InputFormatError(msg)
    run = tables.run
    for rank, item in enumerate(actual, start=1):
        doc_id, text = _retrieved_item(item, where)
        run["query_id"].append(query_id)
        run["doc_id"].append(doc_id)
        run["rank"].append(rank)
        run["text"].append(text)
        run["where"].append(where)


def _retrieved_item(item: Any, where: str) -> tuple[str, str | None]:
    if not isinstance(item, Mapping):
        return id_text(item, where, "retrieved item"), None
    key = "id" if "id" in item else "doc_id"
    doc_id = id_text(item.get(key), where, "retrieved item id")
    text = item.get("text")
    if text is not None and not isinstance(text, str):
        msg = f"{where}: retrieved item {doc_id!r} has non-string text"
        raise InputFormatError(msg)
    return doc_id, text


def _add_cutoff(
    tables: _SampleTables, sample: Mapping[str, Any], query_id: str, where: str
) -> None:
    metadata = sample.get("metadata")
    if metadata is None:
        return
    if not isinstance(metadata, Mapping):
        found = json.dumps(metadata)[:MAX_SHOWN_LINE]
        msg = f'{where}: metadata must be a JSON object (like {{"k": 5}}), found {found}'
        raise InputFormatError(msg)
    if metadata.get("k") is None:
        return
    tables.cutoffs["query_id"].append(query_id)
    tables.cutoffs["k"].append(scalar_text(metadata["k"]))
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
    check_rows(frame.lazy(), "run", columns["where"].__getitem__)
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
        first = first_uncastable(text.lazy(), column, pl.String(), target)
        if first is not None:
            row, value = first
            msg = f"{where[row]}: {column} {value!r} is not {number_word(target)}"
            raise InputFormatError(msg)
    typed = text.lazy().cast(schema, strict=False)
    if "grade" in schema:
        check_rows(typed, "labels", where.__getitem__)
    if "k" in schema:
        small = typed.with_row_index("row").filter(pl.col("k") < 1).head(1).collect()
        if small.height:
            row, k = small.item(0, "row"), small.item(0, "k")
            msg = f"{where[row]}: metadata.k must be an integer >= 1, found {k}"
            raise InputFormatError(msg)
    return typed


# --------------------------------------------------------------------------------------
# Golden sets, plain records and dataset documents
# --------------------------------------------------------------------------------------


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
            column.append(scalar_text(value))
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
    return parse_table(
        frame.lazy(), name, stem, format, {}, kind, wheres.__getitem__, validate_rows=True
    )


def _canonical_fields(obj: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """Pick each canonical field from one record; records may use different aliases."""
    fields = {canonical: obj[key] for key, canonical in mapping.items() if key in obj}
    by_lower = {key.lower(): key for key in reversed(list(obj)) if key not in mapping}
    for canonical, aliases in ALIASES.items():
        if canonical in fields:
            continue
        key = next((by_lower[a] for a in aliases if a in by_lower), None)
        if key is not None:
            fields[canonical] = obj[key]
    return fields


def _parse_dataset_json(
    document: _Record | list[_Record], name: str, stem: str | None, checks: DatasetChecks
) -> ParsedInput:
    value = document.value if isinstance(document, _Record) else None
    queries = value.get("queries") if isinstance(value, Mapping) else None
    if not isinstance(queries, list):
        msg = f"{name}: expected a JSON object with a 'queries' list (dataset-json)"
        raise InputFormatError(msg)
    labels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "grade": [], "where": []}
    problems: list[str] | None = [] if checks == "warn" else None
    broken = 0
    for position, query in enumerate(queries, start=1):
        # a message names the query by its id, and by its place when that helps find it
        qid = query.get("query_id") if isinstance(query, Mapping) else None
        named = f"query {qid!r} (#{position})" if qid is not None else f"query #{position}"
        record = _Record(query, f"{name}, {named}")
        before = len(problems or ())
        pairs = dataset_query_labels(_require_object(record), record.where, problems)
        broken += len(problems or ()) > before
        if not pairs:  # read on under "warn": scored as a query with no relevant document
            pairs = [(NO_RELEVANT_DOCUMENT, "-1")]
        for doc_id, grade in pairs:
            labels["query_id"].append(id_text(query.get("query_id"), record.where, "query_id"))
            labels["doc_id"].append(doc_id)
            labels["grade"].append(grade)
            labels["where"].append(record.where)
    if problems:
        warn_broken_rules(name, broken, len(queries), problems[0])
    return ParsedInput(name, stem, "dataset-json", labels=_checked_frame(labels, LABELS_SCHEMA))
