r"""Judges' outputs: several labels per pair, probabilities per grade, other scales, gaps.

:func:`read_judgments` reads what relevance judges (LLMs most often) write, through the
readers' own parsers, and gives labels ``rankset.evaluate`` takes as they are. Its
decisions (``docs/judges-labels.md`` explains them):

- ``majority`` ties, and ties of the most probable grade, go to the lower grade;
- ``median`` of an even count is the mean of the two middle grades;
- with probabilities, each label's grade comes from its own vector and is aggregated like
  any grade; ``prob_k``, ``expected_grade`` and ``confidence`` are means over the labels;
- ``to_scale`` maps grades linearly after aggregation (it commutes with every aggregate);
- rows keep the order of each pair's first label.
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, cast

import polars as pl

from rankset._typing import InputFormat, Source, choices_of
from rankset._validation import check_choice, check_float, warn_user
from rankset.errors import GradeScaleError, InputFormatError, ParameterError, RanksetWarning
from rankset.io._dataset_rules import scalar_text
from rankset.io._irds_catalog import is_irds
from rankset.io._json import loads
from rankset.io._parsed import ALIASES, check_column_mapping
from rankset.io._readers import read, scan_labels
from rankset.io._remote import is_url
from rankset.io._sources import (
    decode_text,
    display_stem,
    format_from_extension,
    read_bytes,
    sniff_content,
    split_lines,
    stream_bytes,
)
from rankset.io._tables import (
    first_uncastable,
    foreign_to_lazy,
    is_foreign_frame,
    parse_table,
    read_delimited,
    read_parquet_bytes,
)
from rankset.io._trec import parse_trec

__all__ = ["MISSING_GRADES", "read_judgments"]

Aggregate = Literal["majority", "mean", "median"]
RelevanceFrom = Literal["most_probable", "expected", "column"]

#: What a judge writes for a pair it did not grade (compared after stripping blanks,
#: case-insensitively).
MISSING_GRADES: Final = ("", "na", "n/a", "nan", "null", "none", "-")
_KEYS: Final = ["query_id", "doc_id"]
# A TREC data line: a first non-blank character that is not '#' (as in _trec).
_DATA_LINE: Final = r"^[ \t\f\v\r]*[^ \t\f\v\r#]"
_FIELDS: Final = r"[^ \t\f\v\r]+"
_PROB_COLUMN: Final = re.compile(r"prob_(\d+)", re.IGNORECASE)
_BINARY_PROBS: Final = {"prob_no": 0, "prob_yes": 1}
_SHOWN: Final = 5  # how many lines an error lists


@dataclass(frozen=True)
class _Judged:
    """Labels as read: canonical columns, extras, and ``_where`` (the source row)."""

    name: str
    frame: pl.DataFrame
    where: Callable[[int], str]
    skipped: int
    grades: tuple[int, ...]  # the grades of the prob_* columns, when given


@dataclass(frozen=True)
class _Options:
    mapping: dict[str, str]
    judge: str | None
    missing: frozenset[str]
    relevance_from: RelevanceFrom
    tolerance: float


def read_judgments(
    source: Source,
    *,
    format: InputFormat | None = None,
    columns: Mapping[str, str] | None = None,
    aggregate: Aggregate | None = "majority",
    scale: tuple[float, float] | None = None,
    to_scale: tuple[float, float] | None = None,
    relevance_from: RelevanceFrom = "most_probable",
    judge: str | None = None,
    pool: Source | None = None,
    missing: Collection[str] = MISSING_GRADES,
    prob_tolerance: float = 1e-6,
) -> pl.DataFrame:
    r"""Read a relevance judge's labels: one row per pair, ready to evaluate with.

    Parameters
    ----------
    source
        TREC qrels text (``qid iter docid grade [confidence]``; a pair may repeat), a
        CSV, TSV, Parquet or JSON-lines table, a Polars, pandas or pyarrow frame, or
        anything else :func:`rankset.io.read` reads as labels. Tables may have a
        ``judge`` and a ``sample`` column and probability columns ``prob_0 … prob_k``
        (or ``prob_no``/``prob_yes``); LARA's ``topic_id`` is the query id.
    format
        The format, as in :func:`rankset.io.read`; inferred when None.
    columns
        Source column name -> canonical name (``query_id``, ``doc_id``, ``grade``,
        ``confidence``), as in :func:`rankset.io.read`.
    aggregate
        How a pair's labels become one: ``"majority"`` (the most frequent grade; a tie
        goes to the lower grade), ``"mean"``, ``"median"``; None keeps every label, with
        a ``judge`` column (the table's, else ``"1"``, ``"2"``… for a pair's first,
        second… label in the file) and ``sample`` when the table has one.
    scale
        ``(low, high)``: every grade (or every ``prob_k``'s k) must lie within it; one
        outside is a :class:`~rankset.errors.GradeScaleError` naming the file, its lines
        and the scale.
    to_scale
        ``(low, high)``: map the grades linearly from ``scale`` (or the probabilities'
        grades) onto this scale; the judge's grade stays in ``raw_grade``.
    relevance_from
        With probabilities, a label's grade: ``"most_probable"`` (a tie goes to the
        lower grade), ``"expected"`` (Σ k·prob_k) or ``"column"`` (the table's grade
        column; the probabilities are then only kept).
    judge
        The column naming the judge (default: ``judge`` when the table has one).
    pool
        Labels (anything :func:`rankset.io.scan_labels` reads) of the pairs that should
        have been judged: a :class:`~rankset.errors.RanksetWarning` says how many of
        them the judge (each judge, with ``aggregate=None``) left unlabelled.
    missing
        What a missing grade looks like (case-insensitive, blanks stripped); nulls and
        NaN always are. A label without a grade is left out and counted in a warning.
    prob_tolerance
        How far a row's probabilities may sum from 1.

    Returns
    -------
    polars.DataFrame
        ``query_id``, ``doc_id``, ``grade`` (f64), ``n_labels`` (the labels aggregated);
        ``judge`` (and ``sample``) with ``aggregate=None``; ``raw_grade`` with
        ``to_scale``; ``confidence`` when the source has it; ``prob_k`` (k ascending) and
        ``expected_grade`` with probabilities.

    Raises
    ------
    InputFormatError
        The source cannot be parsed, or probabilities are outside [0, 1] or do not sum
        to 1; the message names the file, the line (or row) and what was found.
    GradeScaleError
        A grade lies outside ``scale``.
    ParameterError
        An option is invalid.

    Examples
    --------
    >>> import io
    >>> text = "q1 0 d1 2\nq1 0 d1 1\nq1 0 d1 2\nq1 0 d2 1\nq1 0 d2 0\n"
    >>> read_judgments(io.StringIO(text)).rows()
    [('q1', 'd1', 2.0, 3), ('q1', 'd2', 0.0, 2)]
    """
    check_choice("format", format, choices_of(InputFormat), allow_none=True)
    check_choice("aggregate", aggregate, choices_of(Aggregate), allow_none=True)
    check_choice("relevance_from", relevance_from, choices_of(RelevanceFrom))
    for option, value in (("scale", scale), ("to_scale", to_scale)):
        if value is not None:
            _check_scale_pair(option, value)
    if judge is not None and not isinstance(judge, str):
        raise ParameterError(f"judge must be a column name, got {judge!r}")
    if isinstance(missing, str) or not all(isinstance(token, str) for token in missing):
        raise ParameterError(f"missing must be a collection of strings, got {missing!r}")
    tokens = frozenset(token.strip().lower() for token in missing)
    tolerance = check_float("prob_tolerance", prob_tolerance, minimum=0.0)
    options = _Options(check_column_mapping(columns), judge, tokens, relevance_from, tolerance)
    judged = _load(source, format, options)
    if scale is not None:
        _check_scale(judged, scale)
    grades = judged.grades
    source_scale = scale or ((float(min(grades)), float(max(grades))) if grades else None)
    if to_scale is not None and source_scale is None:
        raise ParameterError("to_scale needs the judge's scale: pass scale=(low, high) too")
    if judged.skipped:
        noun = "label has" if judged.skipped == 1 else "labels have"
        warn_user(
            f"{judged.name}: {judged.skipped} {noun} no grade (a pair the judge "
            "skipped); left out, so those pairs count as unjudged",
            RanksetWarning,
        )
    result = _aggregate(judged.frame, aggregate)
    if to_scale is not None and source_scale is not None:
        result = _rescale(result, source_scale, to_scale)
    if pool is not None:
        _report_pool(result, pool, judged.name)
    return result


def _check_scale_pair(name: str, value: Any) -> None:
    pair = isinstance(value, tuple | list) and len(value) == 2
    if (
        not pair
        or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value
        )
        or not value[0] < value[1]
    ):
        msg = f"{name} must be (low, high), two finite numbers with low < high; got {value!r}"
        raise ParameterError(msg)


# --------------------------------------------------------------------------------------
# Reading: the sources the readers know, with the judges' extra columns
# --------------------------------------------------------------------------------------


def _load(source: Any, format: str | None, options: _Options) -> _Judged:
    if isinstance(source, pl.DataFrame | pl.LazyFrame):
        name = f"<polars.{type(source).__name__}>"
        return _from_table(source.lazy().collect(), name, None, "frame", _rows(name), options)
    if is_foreign_frame(source):
        name = f"<{type(source).__module__.split('.')[0]}.{type(source).__name__}>"
        frame = foreign_to_lazy(source, name).collect()
        return _from_table(frame, name, None, "frame", _rows(name), options)
    if isinstance(source, str | os.PathLike) and not is_url(source) and not is_irds(source):
        path, name = Path(source), os.fspath(source)
        if path.is_file():
            data = read_bytes(path, name)
            resolved = format or format_from_extension(path) or sniff_content(data)
            return _from_bytes(data, name, display_stem(path), resolved, options)
    elif hasattr(source, "read") and not isinstance(source, str | os.PathLike):
        data = stream_bytes(source, "<stream>")
        return _from_bytes(data, "<stream>", None, format or sniff_content(data), options)
    return _from_labels(source, format, options)


def _from_labels(source: Any, format: str | None, options: _Options) -> _Judged:
    """Anything else :func:`read` takes (a mapping, a URL, ``irds:``...): labels as they are."""
    parsed = read(source, format=cast(Any, format), columns=options.mapping, kind="labels")
    if parsed.labels is None:
        raise InputFormatError(f"{parsed.source}: holds no labels")
    frame, name = parsed.labels.collect(), parsed.source
    unmapped = dataclasses.replace(options, mapping={})  # the columns are canonical now
    return _from_table(frame, name, parsed.stem, "frame", _rows(name), unmapped)


def _rows(name: str, offset: int = 1, word: str = "row") -> Callable[[int], str]:
    return lambda row: f"{name}, {word} {row + offset}"


def _from_bytes(
    data: bytes, name: str, stem: str | None, format: str, options: _Options
) -> _Judged:
    if format == "trec":
        return _from_trec(data, name, stem, options)
    if format in ("csv", "tsv"):
        frame = read_delimited(data, name, "," if format == "csv" else "\t")
        # Without quotes, row N of the table is line N + 1 of the file (after the header).
        plain = b'"' not in data and data.count(b"\r") == data.count(b"\r\n")
        where = _rows(name, 2, "line") if plain else _rows(name)
        return _from_table(frame, name, stem, cast(Any, format), where, options)
    if format == "parquet":
        frame = read_parquet_bytes(data, name)
        return _from_table(frame, name, stem, "parquet", _rows(name), options)
    if format in ("json", "records-jsonl"):
        records = _json_records(decode_text(data, name), name)
        if records is not None:
            frame, lines = records
            where = _line_of(name, lines)
            return _from_table(frame, name, stem, "records-jsonl", where, options)
    # "json" is what an extension says; the readers tell its dialects apart themselves
    return _from_labels(io.BytesIO(data), None if format == "json" else format, options)


def _json_records(text: str, name: str) -> tuple[pl.DataFrame, list[int]] | None:
    """Read JSON lines (or a JSON list) of flat records; None for other JSON documents."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        document = loads(text, name)
        if not (isinstance(document, list) and document and isinstance(document[0], dict)):
            return None
        records: list[Any] = document
        lines = list(range(1, len(records) + 1))  # record numbers: the lines are unknown
    else:
        numbered = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
        records = [loads(line, f"{name}, line {n}") for n, line in numbered]
        lines = [n for n, _ in numbered]
    first = records[0] if records else None
    if not isinstance(first, dict) or not ({"topic_id"} | set(ALIASES["query_id"])) & {
        key.lower() for key in first
    }:
        return None  # a ranx mapping, a dataset or samples: the readers' own formats
    keys: dict[str, None] = {}
    for position, record in enumerate(records):
        if not isinstance(record, dict):
            raise InputFormatError(f"{name}, line {lines[position]}: expected a JSON object")
        keys.update(dict.fromkeys(record))
    columns = {
        key: pl.Series(key, [scalar_text(r.get(key)) for r in records], pl.String) for key in keys
    }
    return pl.DataFrame(columns), lines


def _from_trec(data: bytes, name: str, stem: str | None, options: _Options) -> _Judged:
    """TREC qrels: lines without a grade (or with a missing one) are blanked and counted."""
    if options.judge is not None:
        raise InputFormatError(f"{name}: TREC qrels have no judge column {options.judge!r}")
    lines = split_lines(data, name)
    fields = pl.col("line").str.extract_all(_FIELDS)
    grade = fields.list.get(3, null_on_oob=True).str.to_lowercase()
    is_data = pl.col("line").is_not_null() & pl.col("line").str.contains(_DATA_LINE)
    skipped = is_data & (
        (fields.list.len() == 3)
        | (fields.list.len().is_in([4, 5]) & grade.is_in(list(options.missing)))
    )
    marked = lines.select("lineno", "line", is_data.alias("data"), skipped.alias("skipped"))
    n_skipped = int(marked["skipped"].sum())
    if n_skipped:
        if n_skipped == int(marked["data"].sum()):
            raise InputFormatError(f"{name}: no line has a grade ({n_skipped} without one)")
        kept_text = pl.when(pl.col("skipped")).then(pl.lit("")).otherwise(pl.col("line"))
        text = marked.select(kept_text.fill_null("").str.join("\n")).item()
        data = (text + "\n").encode("utf-8")
    parsed = parse_trec(data, name, stem, "labels")
    assert parsed.labels is not None
    frame = parsed.labels.collect()
    line_numbers = marked.filter(pl.col("data") & ~pl.col("skipped"))["lineno"].to_list()
    assert len(line_numbers) == frame.height
    frame = frame.with_row_index("_where")
    return _Judged(name, frame, _line_of(name, line_numbers), n_skipped, ())


def _line_of(name: str, line_numbers: list[int]) -> Callable[[int], str]:
    return lambda row: f"{name}, line {line_numbers[row]}"


def _prob_columns(names: list[str], name: str) -> dict[int, str]:
    found: dict[int, str] = {}
    for column in names:
        match = _PROB_COLUMN.fullmatch(column)
        k = int(match.group(1)) if match else _BINARY_PROBS.get(column.lower())
        if k is None:
            continue
        if k in found:
            msg = f"{name}: columns {found[k]!r} and {column!r} both give grade {k}'s probability"
            raise InputFormatError(msg)
        found[k] = column
    return dict(sorted(found.items()))


def _grade_column(names: list[str], options: _Options) -> str | None:
    for source, canonical in options.mapping.items():
        if canonical == "grade":
            return source
    by_lower = {n.lower(): n for n in reversed(names) if n not in options.mapping}
    return next((by_lower[a] for a in ALIASES["grade"] if a in by_lower), None)


def _is_missing(frame: pl.DataFrame, column: str, missing: frozenset[str]) -> pl.Expr:
    value = pl.col(column)
    dtype = frame.schema[column]
    if dtype.is_numeric() or dtype == pl.Boolean:
        return value.is_null() | (value.is_nan() if dtype.is_float() else pl.lit(False))
    text = value.cast(pl.String).str.strip_chars().str.to_lowercase()
    return value.is_null() | text.is_in(list(missing))


def _from_table(
    frame: pl.DataFrame,
    name: str,
    stem: str | None,
    format: Any,
    where: Callable[[int], str],
    options: _Options,
) -> _Judged:
    names = frame.columns
    probs = _prob_columns(names, name)
    use_probs = bool(probs) and options.relevance_from != "column"
    grade_column = _grade_column(names, options)
    if grade_column is None and not use_probs:
        msg = (
            f"{name}: expected a grade column ({', '.join(ALIASES['grade'])}) or "
            f"probability columns prob_0 … prob_k; found columns {names}"
        )
        raise InputFormatError(msg)
    judge = options.judge or ("judge" if "judge" in names else None)
    if judge is not None and judge not in names:
        raise InputFormatError(f"{name}: no judge column {judge!r}; found columns {names}")
    frame = frame.with_row_index("_where")
    if use_probs:
        each = [_is_missing(frame, c, options.missing) for c in probs.values()]
        absent = pl.all_horizontal(each)
        partial = frame.select((pl.any_horizontal(each) & ~absent).arg_true().first()).item()
        if partial is not None:
            msg = f"{where(partial)}: some probabilities are missing and others are not"
            raise InputFormatError(msg)
    else:
        absent = _is_missing(frame, cast(str, grade_column), options.missing)
    kept = frame.filter(~absent)
    skipped = frame.height - kept.height
    if kept.height == 0:
        raise InputFormatError(f"{name}: no label has a grade ({skipped} without one)")
    extras = []
    if probs:
        kept = _checked_probabilities(kept, probs, where, options.tolerance, options.relevance_from)
        extras = [f"prob_{k}" for k in probs] + ["expected_grade"]
    mapping = dict(options.mapping)
    named_query = any(c == "query_id" for c in mapping.values()) or {
        n.lower() for n in names
    } & set(ALIASES["query_id"])
    if "topic_id" in names and not named_query:
        mapping["topic_id"] = "query_id"  # LARA's input
    labels_source = kept.drop("_where", *extras)
    if use_probs:
        mapping = {s: c for s, c in mapping.items() if c != "grade"}
        labels_source = labels_source.drop(grade_column or [], strict=False).with_columns(
            kept["_grade_from_probs"].alias("grade")
        )
    labels_source = labels_source.drop("_grade_from_probs", strict=False)
    rows = kept["_where"].to_list()
    parsed = parse_table(
        labels_source.lazy(), name, stem, format, mapping, "labels",
        lambda row: where(rows[row]), validate_rows=True,
    )  # fmt: skip
    assert parsed.labels is not None
    labels = parsed.labels.collect()
    added = [kept["_where"]]
    if judge is not None:
        added.append(kept[judge].cast(pl.String).alias("judge"))
    if "sample" in names:
        added.append(kept["sample"].cast(pl.String))
    added.extend(kept[column] for column in extras)
    grades = tuple(probs) if use_probs else ()
    return _Judged(name, labels.with_columns(added), where, skipped, grades)


def _checked_probabilities(
    kept: pl.DataFrame,
    probs: dict[int, str],
    where: Callable[[int], str],
    tolerance: float,
    relevance_from: RelevanceFrom,
) -> pl.DataFrame:
    """Cast the prob columns, check each row's vector, add the expected and likeliest grade."""
    for column in probs.values():
        dtype = kept.schema[column]
        if not (dtype.is_numeric() or dtype == pl.Null):
            bad = first_uncastable(kept.lazy(), column, dtype, pl.Float64())
            if bad is not None:
                row, value = bad
                msg = f"{where(int(kept['_where'][row]))}: {column} {value!r} is not a number"
                raise InputFormatError(msg)
    renamed = [pl.col(c).cast(pl.Float64).alias(f"prob_{k}") for k, c in probs.items()]
    typed = kept.with_columns(renamed)
    values = [pl.col(f"prob_{k}") for k in probs]
    total = pl.sum_horizontal(values)
    outside = pl.any_horizontal([(v < 0) | (v > 1) | v.is_nan() for v in values])
    bad_sum = ((total - 1).abs() > tolerance) | total.is_nan()
    flagged = typed.filter(outside | bad_sum).head(1)
    if flagged.height:
        first = flagged.row(0, named=True)
        found = [first[f"prob_{k}"] for k in probs]
        shown = ", ".join(f"prob_{k}={value!r}" for k, value in zip(probs, found, strict=True))
        if any(not 0 <= value <= 1 for value in found):
            problem = "a probability outside [0, 1]"
        else:
            problem = f"probabilities that sum to {sum(found)!r}"
        msg = (
            f"{where(int(first['_where']))}: {problem} ({shown}); expected each in [0, 1] "
            f"and a sum of 1 (within {tolerance:g})"
        )
        raise InputFormatError(msg)
    highest = pl.max_horizontal(values)
    likeliest = pl.coalesce([pl.when(pl.col(f"prob_{k}") == highest).then(k) for k in probs])
    expected = pl.sum_horizontal([float(k) * pl.col(f"prob_{k}") for k in probs])
    chosen = pl.col("expected_grade") if relevance_from == "expected" else pl.col("_likeliest")
    return (
        typed.with_columns(
            expected.alias("expected_grade"), likeliest.cast(pl.Float64).alias("_likeliest")
        )
        .with_columns(chosen.alias("_grade_from_probs"))
        .drop("_likeliest")
    )


# --------------------------------------------------------------------------------------
# Scale, aggregation, rescaling, pool coverage
# --------------------------------------------------------------------------------------


def _check_scale(judged: _Judged, scale: tuple[float, float]) -> None:
    low, high = scale
    shown_scale = f"[{low:g}, {high:g}]"
    outside_grades = [k for k in judged.grades if not low <= k <= high]
    if outside_grades:
        msg = (
            f"{judged.name}: column prob_{outside_grades[0]} gives a probability to "
            f"grade {outside_grades[0]}, outside the scale {shown_scale}"
        )
        raise GradeScaleError(msg)
    if judged.grades:
        return  # grades drawn from the probabilities lie within them
    grade = pl.col("grade")
    bad = judged.frame.filter((grade < low) | (grade > high))
    if bad.height == 0:
        return
    first = bad.row(0, named=True)
    places = [judged.where(int(row)) for row in bad["_where"].head(_SHOWN)]
    others = ", ".join(place.rsplit(", ", 1)[-1] for place in places[1:])
    also = f"; also {others}" + (", …" if bad.height > _SHOWN else "") if others else ""
    msg = (
        f"{places[0]}: grade {first['grade']:g} ({first['query_id']}, {first['doc_id']}) is "
        f"outside the scale {shown_scale}; {bad.height} label(s) in all{also}"
    )
    raise GradeScaleError(msg)


def _aggregate(frame: pl.DataFrame, aggregate: Aggregate | None) -> pl.DataFrame:
    extras = [c for c in frame.columns if c.startswith("prob_")]
    extras += [c for c in ("expected_grade", "confidence") if c in frame.columns]
    if aggregate is None:
        if "judge" not in frame.columns:
            occurrence = pl.int_range(pl.len()).over(_KEYS) + 1
            frame = frame.with_columns(occurrence.cast(pl.String).alias("judge"))
        apart = ["judge", *(["sample"] if "sample" in frame.columns else [])]
        return frame.select(
            *_KEYS, "grade", pl.lit(1, dtype=pl.UInt32).alias("n_labels"), *apart, *extras
        )
    grade = pl.col("grade")
    summary = frame.group_by(_KEYS, maintain_order=True).agg(
        pl.col("_where").min(),
        (grade.mean() if aggregate == "mean" else grade.median()).alias("grade"),
        pl.len().alias("n_labels"),
        *(pl.col(column).mean() for column in extras),
    )
    if aggregate == "majority":
        votes = frame.group_by([*_KEYS, "grade"]).agg(pl.len().alias("votes"))
        # The most votes; among grades with as many, the lowest.
        winner = votes.sort(["votes", "grade"], descending=[True, False]).unique(
            _KEYS, keep="first", maintain_order=True
        )
        summary = summary.drop("grade").join(winner.drop("votes"), on=_KEYS, how="left")
    ordered = summary.sort("_where")
    return ordered.select(*_KEYS, "grade", "n_labels", *extras)


def _rescale(
    frame: pl.DataFrame, scale: tuple[float, float], to_scale: tuple[float, float]
) -> pl.DataFrame:
    (low, high), (to_low, to_high) = scale, to_scale
    mapped = to_low + (pl.col("grade") - low) * (to_high - to_low) / (high - low)
    frame = frame.with_columns(mapped.alias("grade"), pl.col("grade").alias("raw_grade"))
    order = [*frame.columns[: frame.columns.index("n_labels") + 1], "raw_grade"]
    return frame.select(*order, pl.exclude(order))


def _report_pool(result: pl.DataFrame, pool: Any, name: str) -> None:
    pairs = scan_labels(pool).select(_KEYS).unique().collect()
    judges = (
        result["judge"].unique(maintain_order=True).to_list()
        if "judge" in result.columns and result["judge"].n_unique() > 1
        else [None]
    )
    gaps = []
    for judge in judges:
        labelled = result if judge is None else result.filter(pl.col("judge") == judge)
        left = pairs.join(labelled.select(_KEYS).unique(), on=_KEYS, how="anti").height
        if left:
            who = "the judge" if judge is None else f"judge {judge!r}"
            gaps.append(f"{who} left {left} of the {pairs.height} pool pairs unlabelled")
    outside = result.select(_KEYS).unique().join(pairs, on=_KEYS, how="anti").height
    if outside:
        gaps.append(f"{outside} labelled pair(s) are not in the pool")
    if gaps:
        warn_user(f"{name}: {'; '.join(gaps)}", RanksetWarning)
