"""TREC text: runs ``qid Q0 docid rank score tag`` and qrels ``qid iter docid grade``.

Three readers give the same table. The general parser splits lines and matches each
with a regular expression: it copes with any whitespace, comments and blank lines, and
names the line of any error. Most files are in the plain layout (fields separated by
one space or one tab, nothing else); Polars' CSV reader reads those faster and in less
memory, and whatever it does not read cleanly goes to the general parser, so errors and
edge cases are always the general parser's. :func:`scan_trec_run` scans a plain-layout
run file lazily, leaving the evaluation's pass to verify what it assumed.

As in trec_eval, fields after a run's tag are ignored, lines whose first non-blank
character is ``#`` are comments, and blank lines are skipped.

Two more layouts are told apart by their first line's field count: MS MARCO's run
``qid docid rank`` (three fields, the third an integer; no score, so ordered by rank,
no tag, so named after the file) and the TREC 2025 RAG qrels with a fifth field, a
per-label confidence ``qid iter docid grade confidence`` (kept as ``confidence`` f64).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import polars as pl

from rankset._typing import Kind, Source
from rankset.errors import InputFormatError
from rankset.io._parsed import (
    NUMERIC_TARGETS,
    ParsedInput,
    TextScan,
    count_problems,
    every_field_read,
    id_problems,
    no_comment_line,
    no_inner_blank,
    number_problems,
    number_word,
    score_problems,
    show_line,
)
from rankset.io._sources import (
    GZIP_MAGIC,
    PARQUET_MAGIC,
    UTF8_BOM,
    display_stem,
    format_from_extension,
    split_lines,
)

__all__ = [
    "MSMARCO_RUN",
    "SCANNED_FIELDS",
    "SCANNED_TAG",
    "every_field_read",
    "no_comment_line",
    "parse_msmarco_run",
    "parse_trec",
    "parse_trec_lines",
    "read_plain_trec_labels",
    "read_plain_trec_run",
    "scan_trec_run",
]

_BLANK: Final = r"[ \t\f\v\r]"
_FIELD: Final = r"[^ \t\f\v\r]+"
# A data line has a first non-blank character and it is not '#'; '#' later in a line
# (doc ids like `msmarco_v2.1_doc_50_2286987788#13_3087841662`) is data.
_DATA_LINE: Final = r"^[ \t\f\v\r]*[^ \t\f\v\r#]"
_SPLIT_FIELDS: Final = re.compile(_BLANK + "+")
_TREC_COLUMNS: Final = frozenset(
    {"query_id", "doc_id", "rank", "score", "system", "grade", "confidence"}
)
#: The dtype each numeric field is cast to.
_FIELD_TYPES: Final = NUMERIC_TARGETS


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
#: MS MARCO's run files (and pyserini's ``--output-format msmarco``): tab-separated.
MSMARCO_RUN: Final = _TrecLayout(
    "run", ("query_id", "doc_id", "rank"), "qid docid rank", ignores_trailing_fields=False
)
#: The TREC 2025 RAG track's qrels: a fifth field, the label's confidence.
_QRELS_CONFIDENCE: Final = _TrecLayout(
    "labels",
    ("query_id", "iteration", "doc_id", "grade", "confidence"),
    "qid iter docid grade confidence",
    ignores_trailing_fields=False,
)
_TREC_LAYOUTS: Final = {"run": _TREC_RUN, "labels": _TREC_QRELS}
# The layouts a first line may choose, in order.
_ALL_LAYOUTS: Final = (_TREC_RUN, _TREC_QRELS, _QRELS_CONFIDENCE, MSMARCO_RUN)


# --------------------------------------------------------------------------------------
# The plain layout, read by Polars' CSV reader
# --------------------------------------------------------------------------------------

# The common layout of run files: six fields separated by one space or one tab, no more.
_PLAIN_RUN_SCHEMA: Final = {
    "query_id": pl.String,
    "q0": pl.String,
    "doc_id": pl.String,
    "rank": pl.Int64,
    "score": pl.Float64,
    "system": pl.String,
}
_RUN_FIELDS: Final = tuple(_PLAIN_RUN_SCHEMA)
# Qrels in the plain layout. Integer grades only (anything else goes to the general
# parser, which reads decimals too); a line with a fifth field makes the CSV reader raise.
_PLAIN_QRELS_SCHEMA: Final = {
    "query_id": pl.String,
    "iteration": pl.String,
    "doc_id": pl.String,
    "grade": pl.Int64,
}
_PEEK_BYTES: Final = 4096
_HEAD_BYTES: Final = 1 << 17  # enough for the first thousand lines of most runs

#: The column of a lazily scanned run that keeps each line's own tag, for the checks.
SCANNED_TAG: Final = TextScan.TAG_COLUMN
#: The fields of a scanned run that the pass checks were all read (see TextScan).
SCANNED_FIELDS: Final = ("query_id", "doc_id", *TextScan.CHECKED_FIELDS)


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
    if head.startswith(GZIP_MAGIC) or head.startswith(PARQUET_MAGIC):
        return None
    first = head.removeprefix(UTF8_BOM).split(b"\n", 1)[0].removesuffix(b"\r")
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
    schema: dict[str, pl.DataType | type[pl.DataType]] = dict(_PLAIN_RUN_SCHEMA)
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


def _other_blanks(data: bytes) -> bool:
    r"""Whether ``data`` has a vertical tab, a form feed or a carriage return inside a line.

    The general parser splits fields on any blank; the CSV reader only on its separator.

    Examples
    --------
    >>> _other_blanks(b"q 0 d 1\n"), _other_blanks(b"q 0 d 1\r\n"), _other_blanks(b"q 0 d\r1\n")
    (False, False, True)
    >>> _other_blanks(b"q 0\x0bd 1\n"), _other_blanks(b"q 0 d 1\r\nq 0 e\r2\r\n")
    (True, True)
    """
    if b"\x0b" in data or b"\x0c" in data:
        return True
    # a file without a carriage return (most are) needs no count of its CRLFs
    return b"\r" in data and data.count(b"\r") != data.count(b"\r\n")


def read_plain_trec_run(source: Path | bytes) -> pl.DataFrame | None:
    """Read a TREC run in the plain layout with Polars' CSV reader, or return None.

    Most run files are six fields separated by single spaces; for those the CSV reader
    (separator ``" "``, no quoting) gives the general parser's table faster and in less
    memory. Anything it does not read cleanly (another field count, tabs or repeated
    spaces, blank or comment lines, a bad number, invalid UTF-8) makes this return
    None, and the general parser takes over, so errors and edge cases are exactly the
    general parser's.
    """
    separator = _plain_layout_separator(source)
    if separator is None or (isinstance(source, bytes) and _other_blanks(source)):
        return None
    try:
        frame = _scan_plain_layout(source, separator).collect()
    except (pl.exceptions.PolarsError, OSError):
        return None
    clean, tags = frame.select(
        (
            every_field_read(_RUN_FIELDS)
            & no_comment_line(pl.col("query_id"))
            & _no_problem(_TREC_RUN)
            & no_inner_blank(["query_id", "q0", "doc_id", "system"], separator)
        ).alias("clean"),
        pl.col("system").unique().head(2).implode(),
    ).row(0)
    if not clean:
        return None
    frame = frame.drop("q0")
    if len(tags) == 1:
        # One tag (the usual case): a constant column instead of millions of copies.
        frame = frame.with_columns(pl.lit(tags[0], dtype=pl.String).alias("system"))
    return frame


def read_plain_trec_labels(data: bytes) -> pl.DataFrame | None:
    """Read qrels in the plain layout with Polars' CSV reader, or return None.

    The labels' counterpart of :func:`read_plain_trec_run`: the general parser's table
    (``query_id, doc_id, grade`` as Float64) when every line reads cleanly; any other
    file is left to the general parser.
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
            schema=_PLAIN_QRELS_SCHEMA,
            raise_if_empty=True,
        )
    except pl.exceptions.PolarsError:
        return None
    clean = frame.select(
        every_field_read(list(_PLAIN_QRELS_SCHEMA))
        & no_comment_line(pl.col("query_id"))
        & _no_problem(_TREC_QRELS)
        & no_inner_blank(["query_id", "iteration", "doc_id"], separator)
    ).item()
    if not clean:
        return None
    return frame.select("query_id", "doc_id", pl.col("grade").cast(pl.Float64))


def scan_trec_run(source: Source) -> ParsedInput | None:
    r"""Scan a plain-layout TREC run file lazily, or return None (then use ``read``).

    Only for a path to an uncompressed text file whose first line is in the plain
    layout; the result's ``scan`` holds what the evaluation must verify in its pass.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\n")
    >>> parsed = scan_trec_run(path)
    >>> parsed.scan.tag, parsed.run.collect().height
    ('bm25', 2)
    >>> scan_trec_run({"q1": {"d1": 1.0}}) is None
    True
    """
    if not isinstance(source, str | os.PathLike):
        return None
    path = Path(source)
    name = os.fspath(source)
    if format_from_extension(path) not in (None, "trec") or not path.is_file():
        return None
    separator = _plain_layout_separator(path)
    if separator is None:
        return None
    try:
        with path.open("rb") as handle:
            start = handle.read(_HEAD_BYTES)
        lines = start[: start.rfind(b"\n") + 1] or start
        first = lines.removeprefix(UTF8_BOM).split(b"\n", 1)[0].rstrip(b"\r")
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
    # Q0 and the tag stay, for the pass to check that no line left Q0 empty and every
    # line has the first line's tag; as strings: nothing holds them, and Polars reads
    # and compares those faster than it builds categoricals.
    run = _scan_plain_layout(path, separator, categorical=()).rename({"system": SCANNED_TAG})
    scan = TextScan(tag, head.drop("q0").rename({"system": SCANNED_TAG}), separator)
    return ParsedInput(name, display_stem(path), "trec", run=run, scan=scan)


# --------------------------------------------------------------------------------------
# The general parser
# --------------------------------------------------------------------------------------


def parse_trec(
    data: bytes, name: str, stem: str | None, kind: Kind, *, try_plain: bool = True
) -> ParsedInput:
    """Parse TREC text: the plain-layout readers first, else the general parser.

    ``try_plain=False`` when the caller already tried the plain run reader on the file.
    """
    if kind != "labels" and try_plain:
        plain = read_plain_trec_run(data)
        if plain is not None:
            return ParsedInput(name, stem, "trec", run=plain.lazy(), rows_checked=True)
    if kind != "run":
        labels = read_plain_trec_labels(data)
        if labels is not None:
            return ParsedInput(name, stem, "trec", labels=labels.lazy())
    return parse_trec_lines(data, name, stem, kind)


def parse_trec_lines(data: bytes, name: str, stem: str | None, kind: Kind) -> ParsedInput:
    """Parse TREC text line by line: any blanks, comments, blank lines; errors name lines."""
    lines = split_lines(data, name)
    data_lines = lines.filter(pl.col("line").str.contains(_DATA_LINE))
    if data_lines.height == 0:
        msg = f"{name}: the file has no data lines; expected {_expected_trec(kind)}"
        raise InputFormatError(msg)
    layout = _choose_trec_layout(data_lines, name, kind)
    table = _extract_trec_fields(data_lines, layout, name)
    if layout.kind == "run":
        return ParsedInput(name, stem, "trec", run=table.lazy(), rows_checked=True)
    return ParsedInput(name, stem, "trec", labels=table.lazy())


def parse_msmarco_run(data: bytes, name: str, stem: str | None, kind: Kind) -> ParsedInput:
    r"""Parse an MS MARCO run (``qid docid rank``), whatever its first line looks like.

    ``format="msmarco"``: every data line must have the three fields, the rank an integer.

    Examples
    --------
    >>> parsed = parse_msmarco_run(b"1\t7\t1\n1\t8\t2\n", "<stream>", None, "auto")
    >>> parsed.format, parsed.run.collect()["doc_id"].to_list()
    ('msmarco', ['7', '8'])
    """
    if kind == "labels":
        msg = f"{name}: an MS MARCO run ({MSMARCO_RUN.description}) holds a run, not labels"
        raise InputFormatError(msg)
    lines = split_lines(data, name)
    data_lines = lines.filter(pl.col("line").str.contains(_DATA_LINE))
    if data_lines.height == 0:
        msg = f"{name}: the file has no data lines; expected {MSMARCO_RUN.description}"
        raise InputFormatError(msg)
    table = _extract_trec_fields(data_lines, MSMARCO_RUN, name)
    return ParsedInput(name, stem, "msmarco", run=table.lazy(), rows_checked=True)


def _expected_trec(kind: Kind) -> str:
    if kind == "auto":
        return (
            f"TREC run lines ({_TREC_RUN.description}) or qrels lines ({_TREC_QRELS.description})"
        )
    layout = _TREC_LAYOUTS[kind]
    what = "run" if kind == "run" else "qrels"
    return f"TREC {what} lines ({layout.description})"


def _split_fields(line: str) -> list[str]:
    stripped = line.strip(" \t\f\v\r")
    return _SPLIT_FIELDS.split(stripped) if stripped else []


def _choose_trec_layout(data_lines: pl.DataFrame, name: str, kind: Kind) -> _TrecLayout:
    lineno, line = data_lines.row(0)
    fields = _split_fields(line)
    for layout in _ALL_LAYOUTS:
        if kind in ("auto", layout.kind) and _fits_first_line(layout, fields):
            return layout
    if kind != "auto":
        return _TREC_LAYOUTS[kind]  # the line is reported as not in this layout
    msg = (
        f"{name}, line {lineno}: expected 6 whitespace-separated fields "
        f"({_TREC_RUN.description}) for a run or 4 ({_TREC_QRELS.description}) for qrels "
        f"(or 3, {MSMARCO_RUN.description}, an MS MARCO run; or 5, "
        f"{_QRELS_CONFIDENCE.description}), found {len(fields)}: {show_line(line)}"
        f"{_tagless_hint(fields)}"
    )
    raise InputFormatError(msg)


def _fits_first_line(layout: _TrecLayout, fields: list[str]) -> bool:
    """Whether a first line of ``fields`` chooses ``layout``.

    Three fields are an MS MARCO run only when the third is an integer (a rank); five
    are qrels with a confidence only when the second is not ``Q0`` (that is a run line
    without its tag).
    """
    if not layout.accepts_field_count(len(fields)):
        return False
    if layout is MSMARCO_RUN:
        return _cast_one(fields[2], pl.Int64()) is not None
    if layout is _QRELS_CONFIDENCE:
        return fields[1].upper() != "Q0"
    return True


def _tagless_hint(fields: list[str]) -> str:
    if len(fields) == 5 and fields[1].upper() == "Q0":
        return "; a run line needs a sixth field, the run's tag"
    return ""


def _extract_trec_fields(data_lines: pl.DataFrame, layout: _TrecLayout, name: str) -> pl.DataFrame:
    columns = [
        pl.col(field).cast(_FIELD_TYPES[field], strict=False)
        if field in _FIELD_TYPES
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
    problems = _problems(layout)
    counts = parsed.select(count_problems(problems)).row(0, named=True)
    for problem, count in counts.items():
        if count:
            row = parsed.with_row_index("row").filter(problems[problem])
            lineno, line = data_lines.row(int(row.item(0, "row")))
            msg = f"{name}, line {lineno}: {problem} ({count} line(s) in all): {show_line(line)}"
            raise InputFormatError(msg)
    if layout is MSMARCO_RUN:
        # No score (ordered by rank) and no tag (named after the file).
        parsed = parsed.with_columns(
            pl.lit(None, dtype=pl.Float64).alias("score"),
            pl.lit(None, dtype=pl.String).alias("system"),
        )
    return parsed


def _problems(layout: _TrecLayout) -> dict[str, pl.Expr]:
    """Return the rules every parsed row obeys: usable ids, a numeric score, a finite grade.

    Within TREC text an id can only break them with a control character (blanks
    separate the fields), a score by being NaN and a grade by being NaN or infinite.
    """
    if layout.kind == "labels":
        numbers = number_problems("grade", "grade")
        if "confidence" in layout.kept:
            numbers.update(number_problems("confidence", "confidence"))
    else:
        numbers = score_problems() if "score" in layout.kept else {}
    return {**id_problems("query_id"), **id_problems("doc_id"), **numbers}


def _no_problem(layout: _TrecLayout) -> pl.Expr:
    """Return an aggregate: True when no row breaks :func:`_problems` (or has a null)."""
    return ~pl.any_horizontal(mask.fill_null(True).any() for mask in _problems(layout).values())


def _describe_bad_trec_line(name: str, lineno: int, line: str, layout: _TrecLayout) -> str:
    where = f"{name}, line {lineno}"
    fields = _split_fields(line)
    if not layout.accepts_field_count(len(fields)):
        return (
            f"{where}: expected {len(layout.fields)} whitespace-separated fields "
            f"({layout.description}), found {len(fields)}: {show_line(line)}"
            f"{_other_kind_hint(layout, fields)}"
        )
    for field, value in zip(layout.fields, fields, strict=False):
        target = _FIELD_TYPES.get(field)
        if target is not None and _cast_one(value, target) is None:
            return f"{where}: {field} {value!r} is not {number_word(target)}"
    return f"{where}: cannot parse {show_line(line)} as {layout.description}"


def _other_kind_hint(layout: _TrecLayout, fields: list[str]) -> str:
    """Say when a line is the other kind's layout: qrels given as a run, or the reverse."""
    other = _TREC_QRELS if layout.kind == "run" else _TREC_RUN
    if not other.accepts_field_count(len(fields)):
        return ""
    numbers = fields[3:4] if other.kind == "labels" else fields[3:5]
    if any(_cast_one(value, pl.Float64()) is None for value in numbers):
        return ""
    if other.kind == "labels":
        return (
            "; this looks like a qrels file (qid iter docid grade): pass it as the labels (--qrels)"
        )
    return "; this looks like a run file (qid Q0 docid rank score tag): pass it as a run"


def _cast_one(value: str, target: pl.DataType) -> object:
    return pl.Series([value], dtype=pl.String).cast(target, strict=False).item()
