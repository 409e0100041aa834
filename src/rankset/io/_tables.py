"""Tables: Parquet, CSV and TSV files, and in-memory Polars, pandas and pyarrow frames.

A table's columns are mapped to the canonical ones (the caller's ``columns`` first,
then the built-in aliases), checked and cast; a value that cannot be cast is an error
naming its row. Text tables are read as text throughout, so ids keep leading zeros.
"""

from __future__ import annotations

import csv
import glob
import io
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import polars as pl

from rankset._typing import InputFormat, Kind
from rankset.errors import InputFormatError
from rankset.io._costs import COST_COLUMNS
from rankset.io._parsed import (
    ALIASES,
    LABELS_SCHEMA,
    NUMERIC_TARGETS,
    RUN_SCHEMA,
    ParsedInput,
    check_format_for,
    id_problems,
    number_problems,
    number_word,
    score_problems,
    show_line,
)
from rankset.io._sources import GLOB_CHARS, display_stem, format_from_extension, split_lines

__all__ = [
    "check_rows",
    "concat_named_frames",
    "first_uncastable",
    "foreign_to_lazy",
    "is_foreign_frame",
    "parse_parquet_files",
    "parse_parquet_path",
    "parse_table",
    "read_delimited",
    "read_frame",
    "read_glob",
    "read_parquet_bytes",
]


# Labels keep a confidence column when they have one (TREC 2025 RAG qrels), and the
# stratum of sampled qrels (rankset.measures.sampled).
_LABEL_EXTRAS: Final = ("confidence", "stratum")
_LABEL_COLUMNS: Final = frozenset({*LABELS_SCHEMA, *_LABEL_EXTRAS})
# BEIR's qrels name the document column ``corpus-id``; some MTEB exports ``corpus_id``.
_BEIR_DOC_COLUMNS: Final = frozenset({"corpus-id", "corpus_id"})


def is_foreign_frame(source: object) -> bool:
    """Whether ``source`` is a pandas DataFrame or a pyarrow Table or RecordBatch.

    Examples
    --------
    >>> import pyarrow as pa
    >>> is_foreign_frame(pa.table({"query_id": ["q1"]})), is_foreign_frame({"q1": {}})
    (True, False)
    """
    # Checking the class's module keeps pandas and pyarrow unimported until the caller
    # hands over one of their objects.
    cls = type(source)
    module = cls.__module__.split(".")[0]
    return (module == "pandas" and cls.__name__ == "DataFrame") or (
        module == "pyarrow" and cls.__name__ in ("Table", "RecordBatch")
    )


def foreign_to_lazy(source: Any, name: str) -> pl.LazyFrame:
    """Convert a pandas or pyarrow table to a Polars LazyFrame."""
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


def read_frame(
    frame: pl.LazyFrame, name: str, format: str | None, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    """Parse an in-memory frame as a run or labels table."""
    check_format_for(format, {"frame"}, "an in-memory frame")
    return parse_table(frame, name, None, "frame", mapping, kind)


def parse_parquet_path(
    path: Path, name: str, stem: str, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    """Scan one Parquet file as a run or labels table."""
    try:
        frame = pl.scan_parquet(path)
        frame.collect_schema()
    except pl.exceptions.PolarsError as exc:
        msg = f"{name}: not a readable Parquet file ({exc})"
        raise InputFormatError(msg) from None
    return parse_table(frame, name, stem, "parquet", mapping, kind)


def read_glob(pattern: str, format: str | None, mapping: dict[str, str], kind: Kind) -> ParsedInput:
    """Read the Parquet files a glob pattern matches (``runs/bm25/part-*.parquet``) as one."""
    matches = sorted(Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
    if not matches:
        raise InputFormatError(f"{pattern}: no file matches this pattern")
    others = [p for p in matches if (format or format_from_extension(p)) != "parquet"]
    if others:
        msg = (
            f"{pattern}: a pattern reads Parquet files only; it matches {others[0]} "
            "(name each text file on its own)"
        )
        raise InputFormatError(msg)
    pattern_path = Path(pattern)
    named_by_folder = not GLOB_CHARS.search(pattern_path.parent.name) and pattern_path.parent.name
    stem = pattern_path.parent.name if named_by_folder else display_stem(matches[0])
    return parse_parquet_files(matches, pattern, stem, mapping, kind)


def parse_parquet_files(
    files: Path | list[Path], name: str, stem: str, mapping: dict[str, str], kind: Kind
) -> ParsedInput:
    """Scan Parquet files (a list, or a folder read recursively) as one table."""
    try:
        frame = pl.scan_parquet(files)
        frame.collect_schema()
    except pl.exceptions.PolarsError as exc:
        msg = f"{name}: not readable as Parquet files ({exc})"
        raise InputFormatError(msg) from None
    return parse_table(frame, name, stem, "parquet", mapping, kind)


def read_parquet_bytes(data: bytes, name: str) -> pl.DataFrame:
    """Read Parquet from bytes (a stream, or a gzip-compressed file)."""
    try:
        return pl.read_parquet(io.BytesIO(data))
    except pl.exceptions.PolarsError as exc:
        msg = f"{name}: not a readable Parquet file ({exc})"
        raise InputFormatError(msg) from None


def read_delimited(data: bytes, name: str, separator: str) -> pl.DataFrame:
    """Read CSV or TSV with a header row, every column as text.

    A header naming a column twice, a row with more or fewer fields than the header,
    and a header without rows are errors naming the column or the line (Polars would
    rename the second column, fill a short row with nulls, or read no rows silently).
    Lines may end in LF, CRLF or a lone CR (a lone CR ends a line even inside quotes).
    """
    what = "CSV" if separator == "," else "TSV"
    if data.count(b"\r") != data.count(b"\r\n"):
        # A lone CR ends a line, as in Python's universal newlines (old-Mac files).
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        # Every column is read as text so ids keep leading zeros and stay strings;
        # numbers are cast later with messages that name the bad row.
        frame = pl.read_csv(data, separator=separator, infer_schema=False)
    except pl.exceptions.NoDataError:
        msg = f"{name}: the file is empty; expected a header row naming the columns"
        raise InputFormatError(msg) from None
    except pl.exceptions.PolarsError as exc:
        ragged = _first_ragged_line(data, separator, name)
        msg = ragged or f"{name}: cannot parse as {what} ({exc})"
        raise InputFormatError(msg) from None
    header = _header_fields(data, separator, name)
    repeated = sorted({field for field in header if header.count(field) > 1})
    if repeated:
        msg = f"{name}: the header names column {repeated[0]!r} more than once; name each once"
        raise InputFormatError(msg)
    # Polars raises on a long row and fills a short one with nulls, which always reach
    # the last column: only then are the lines counted again (a second read of the text).
    if frame.width and frame.get_column(frame.columns[-1]).null_count():
        ragged = _first_ragged_line(data, separator, name)
        if ragged is not None:
            raise InputFormatError(ragged)
    if frame.height == 0:
        msg = f"{name}: the file has a header row but no data rows"
        raise InputFormatError(msg)
    return frame


def _decoded(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        msg = f"{name}: not UTF-8 text (byte {exc.start})"
        raise InputFormatError(msg) from None


def _header_fields(data: bytes, separator: str, name: str) -> list[str]:
    first = data.split(b"\n", 1)[0]
    return next(csv.reader([_decoded(first, name).rstrip("\r")], delimiter=separator), [])


def _first_ragged_line(data: bytes, separator: str, name: str) -> str | None:
    """Describe the first line whose field count differs from the header's, or None.

    Without quotes in the file, fields are counted by Polars over every line; with
    quotes (a field may then hold a separator or a line break), by Python's csv module.
    """
    expected = len(_header_fields(data, separator, name))
    if b'"' not in data:
        lines = split_lines(data, name).drop_nulls("line")
        counts = lines.with_columns(
            fields=pl.col("line").str.count_matches(separator, literal=True) + 1
        )
        bad = counts.filter(pl.col("fields") != expected).head(1)
        if bad.height == 0:
            return None
        lineno, line, found = bad.row(0)
    else:
        reader = csv.reader(io.StringIO(_decoded(data, name), newline=""), delimiter=separator)
        try:
            for row in reader:
                if row and len(row) != expected:
                    lineno, line, found = reader.line_num, separator.join(row), len(row)
                    break
            else:
                return None
        except csv.Error as error:
            return f"{name}, line {reader.line_num}: cannot parse as CSV ({error})"
    return (
        f"{name}, line {lineno}: expected {expected} fields as in the header, found "
        f"{found}: {show_line(line)}"
    )


def parse_table(
    frame: pl.LazyFrame,
    name: str,
    stem: str | None,
    format: InputFormat,
    mapping: dict[str, str],
    kind: Kind,
    row_label: Callable[[int], str] | None = None,
    *,
    validate_rows: bool = False,
) -> ParsedInput:
    """Map, check and cast a table's columns: a run, or labels when it has a grade.

    ``row_label`` names a row (0-based) in messages; by default ``"<name>, row N"``.
    ``validate_rows`` applies the row rules (usable ids, finite numbers) here, naming the
    row, for tables read whole anyway (text tables, JSON records); evaluation applies
    them to every input in its pass.
    """
    schema = frame.collect_schema()
    chosen = _resolve_columns(list(schema.names()), mapping, name)
    if kind != "run" and _is_beir_qrels(chosen, mapping):
        chosen["grade"] = chosen.pop("score")
    table_kind = kind if kind != "auto" else ("labels" if "grade" in chosen else "run")
    _require_columns(chosen, table_kind, name, list(schema.names()))
    # Columns of the other table kind are neither validated nor kept.
    wanted = _LABEL_COLUMNS if table_kind == "labels" else {**RUN_SCHEMA, "text": pl.String}
    chosen = {canonical: source for canonical, source in chosen.items() if canonical in wanted}
    describe = row_label or (lambda row: f"{name}, row {row + 1}")
    selected = frame.select(pl.col(source).alias(canonical) for canonical, source in chosen.items())
    typed = _cast_table(selected, schema, chosen, name, describe)
    if validate_rows:
        check_rows(typed, table_kind, describe)
    if table_kind == "labels":
        kept = [*LABELS_SCHEMA, *(extra for extra in _LABEL_EXTRAS if extra in chosen)]
        return ParsedInput(name, stem, format, labels=typed.select(kept))
    run_columns = [
        pl.col(c) if c in chosen else pl.lit(None, dtype=dtype).alias(c)
        for c, dtype in RUN_SCHEMA.items()
    ]
    if "text" in chosen:
        run_columns.append(pl.col("text"))
    return ParsedInput(
        name,
        stem,
        format,
        run=typed.select(run_columns),
        rows_checked=validate_rows,
        costs=_cost_columns(frame, schema.names(), chosen),
        absent=frozenset(c for c in RUN_SCHEMA if c not in chosen),
    )


def _cost_columns(
    frame: pl.LazyFrame, names: Sequence[str], chosen: Mapping[str, str]
) -> pl.LazyFrame | None:
    """Return a run table's cost columns with its query (and system) ids, if it has any."""
    present = [column for column in COST_COLUMNS if column in names]
    if not present:
        return None
    keys = [
        pl.col(chosen[key]).cast(pl.String).alias(key)
        for key in ("system", "query_id")
        if key in chosen
    ]
    return frame.select(*keys, *present)


def check_rows(
    typed: pl.LazyFrame, kind: Literal["run", "labels"], describe: Callable[[int], str]
) -> None:
    """Refuse the first row with an unusable id or a non-finite number, naming it.

    ``typed`` has the canonical columns and dtypes; ``describe`` names a 0-based row.

    Examples
    --------
    >>> labels = pl.LazyFrame({"query_id": ["q1"], "doc_id": ["d1"], "grade": [float("nan")]})
    >>> check_rows(labels, "labels", lambda row: f"qrels.csv, row {row + 1}")
    Traceback (most recent call last):
    ...
    rankset.errors.InputFormatError: qrels.csv, row 1: a grade that is not a finite number ...
    """
    names = typed.collect_schema().names()
    problems = {**id_problems("query_id"), **id_problems("doc_id")}
    if kind == "labels":
        problems.update(number_problems("grade", "grade"))
        if "confidence" in names:
            problems.update(number_problems("confidence", "confidence"))
    elif "score" in names:
        # A run may lack scores (ordered by rank); a score it has must be a number.
        problems.update(
            (problem, mask) for problem, mask in score_problems().items() if problem != "no score"
        )
    masks = [mask.fill_null(False).alias(problem) for problem, mask in problems.items()]
    flagged = (
        typed.select(masks)
        .with_row_index("row")
        .filter(pl.any_horizontal(pl.exclude("row")))
        .head(1)
        .collect()
    )
    if flagged.height == 0:
        return
    first = flagged.row(0, named=True)
    problem = next(problem for problem in problems if first[problem])
    shown = typed.slice(int(first["row"]), 1).collect().row(0, named=True)
    values = ", ".join(f"{column} {shown[column]!r}" for column in ("query_id", "doc_id"))
    msg = f"{describe(int(first['row']))}: {problem} ({values})"
    raise InputFormatError(msg)


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
    for canonical, aliases in ALIASES.items():
        if canonical in chosen:
            continue
        for alias in aliases:
            source = by_lower.get(alias)
            if source is not None and source not in used:
                chosen[canonical] = source
                used.add(source)
                break
    return chosen


def _is_beir_qrels(chosen: Mapping[str, str], mapping: Mapping[str, str]) -> bool:
    """Whether the table is BEIR/MTEB qrels: ``query-id, corpus-id, score`` (or ``_``).

    BEIR and MTEB name the grade ``score`` and the document ``corpus-id``; a table whose
    documents are in such a column, with a score, no grade and no rank, is labels, its
    score the grade. A score the caller mapped by name stays a score.
    """
    return (
        chosen.get("doc_id", "").lower() in _BEIR_DOC_COLUMNS
        and "score" in chosen
        and "score" not in mapping.values()
        and "grade" not in chosen
        and "rank" not in chosen
    )


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
        target = NUMERIC_TARGETS.get(canonical, pl.String())
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
        msg = f"{name}: {label} has dtype {dtype}; expected {number_word(target)}s"
        raise InputFormatError(msg)
    # Only text (and float ranks) can fail to cast, so only then is the column read now.
    first = first_uncastable(frame, canonical, dtype, target)
    if first is not None:
        row, value = first
        msg = f"{describe(row)}: {label} value {value!r} is not {number_word(target)}"
        raise InputFormatError(msg)


def first_uncastable(
    frame: pl.LazyFrame, column: str, dtype: pl.DataType, target: pl.DataType
) -> tuple[int, str] | None:
    """Return the row and value of the first entry of ``column`` not castable to ``target``.

    Examples
    --------
    >>> frame = pl.LazyFrame({"k": ["1", "two"]})
    >>> first_uncastable(frame, "k", pl.String(), pl.Int64())
    (1, 'two')
    """
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


def concat_named_frames(frames: Mapping[Any, Any], names: Sequence[str]) -> pl.DataFrame | None:
    """Stack Polars frames given by system name into one frame with a ``system`` column.

    Taken only when every frame is an eager Polars frame with rows, all share one schema
    and none names its own systems (a column a reader takes for ``system``); None
    otherwise, and each frame is read on its own.

    Examples
    --------
    >>> a = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    >>> concat_named_frames({"x": a, "y": a}, ["x", "y"])["system"].to_list()
    ['x', 'y']
    """
    values = list(frames.values())
    if not values or not all(type(frame) is pl.DataFrame for frame in values):
        return None
    taken = set(ALIASES["system"])
    if taken & set(values[0].columns) or not all(frame.height for frame in values):
        return None
    try:  # a vertical concat refuses other names, orders or dtypes: one schema
        stacked: pl.DataFrame = pl.concat(values, rechunk=False)
    except (pl.exceptions.SchemaError, pl.exceptions.ShapeError):
        return None
    system = pl.Series("system", names, dtype=pl.String)
    counts = pl.Series([frame.height for frame in values], dtype=pl.UInt32)
    index = pl.int_range(len(values), dtype=pl.UInt32, eager=True).repeat_by(counts).explode()
    return stacked.with_columns(system.gather(index))
