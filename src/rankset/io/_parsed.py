"""What every reader returns, and the checks and message pieces the readers share.

A reader turns one source into a :class:`ParsedInput`: lazy frames with the canonical
column names and dtypes below. The format modules (``_trec``, ``_tables``, ``_json``,
``_ranx``) build it; nothing here reads a file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import polars as pl

from rankset._typing import InputFormat
from rankset._validation import did_you_mean
from rankset.errors import InputFormatError, ParameterError

__all__ = [
    "ALIASES",
    "ANSWERS_SCHEMA",
    "CANONICAL_COLUMNS",
    "CUTOFFS_SCHEMA",
    "LABELS_SCHEMA",
    "MAX_SHOWN_LINE",
    "NUMERIC_TARGETS",
    "RUN_SCHEMA",
    "ParsedInput",
    "TextScan",
    "check_column_mapping",
    "check_format_for",
    "check_no_mapping",
    "id_text",
    "no_table_message",
    "number_word",
    "show_line",
]

RUN_SCHEMA: Final = pl.Schema(
    {
        "query_id": pl.String,
        "doc_id": pl.String,
        "rank": pl.Int64,
        "score": pl.Float64,
        "system": pl.String,
    }
)
LABELS_SCHEMA: Final = pl.Schema({"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64})
CUTOFFS_SCHEMA: Final = pl.Schema({"query_id": pl.String, "k": pl.Int64})
ANSWERS_SCHEMA: Final = pl.Schema({"query_id": pl.String, "answer": pl.String})

# Source column names accepted for each canonical column, in order of preference: when a
# table has several (say `query_id` and `query`), the earlier one wins.
ALIASES: Final[Mapping[str, tuple[str, ...]]] = {
    "query_id": ("query_id", "qid", "topic", "query"),
    "doc_id": ("doc_id", "docid", "docno", "pid", "id"),
    "rank": ("rank",),
    "score": ("score", "sim"),
    "grade": ("grade", "rel", "relevance", "label", "grade_1_5"),
    "system": ("system", "tag", "run_id", "run"),
    "text": ("text", "content", "passage"),
}
CANONICAL_COLUMNS: Final = frozenset(ALIASES)
NUMERIC_TARGETS: Final[Mapping[str, pl.DataType]] = {
    "rank": pl.Int64(),
    "score": pl.Float64(),
    "grade": pl.Float64(),
    "k": pl.Int64(),
}

#: Longest part of a source line quoted in a message.
MAX_SHOWN_LINE: Final = 200


def every_field_read(columns: Sequence[str]) -> pl.Expr:
    """Return an aggregate that is True when no value of ``columns`` is missing.

    Polars' CSV reader reads an empty field as null: repeated blanks, a short line or a
    blank line leave one, where the general parser sees another field count.

    Examples
    --------
    >>> frame = pl.DataFrame({"a": ["x", None], "b": ["y", "z"]})
    >>> frame.select(every_field_read(["a", "b"])).item()
    False
    """
    return pl.sum_horizontal(pl.col(*columns).null_count()) == 0


def no_comment_line(query_id: pl.Expr) -> pl.Expr:
    """Return an aggregate that is True when no query id starts with ``#``.

    A data line starting with ``#`` is a comment for the general parser.

    Examples
    --------
    >>> pl.DataFrame({"q": ["301", "#302"]}).select(no_comment_line(pl.col("q"))).item()
    False
    """
    return ~query_id.str.starts_with("#").any()


@dataclass(frozen=True)
class TextScan:
    """What evaluation assumes of a TREC run file it scans lazily, to verify in its pass.

    The file's first 128 kB are in the plain layout (six fields, one separator, one
    tag); the scan assumes every line is, with the first line's ``tag``. The pass over
    the runs checks that every field it reads was there (``every_field_read`` over
    ``SCANNED_FIELDS``), that every line has that tag, and that no query id starts
    with ``#``; when a check fails, or the CSV reader raises, evaluation reads the file
    again with :func:`rankset.io.read`, whose general parser names the offending line.

    Two things are checked in the first 128 kB only, because checking them on every
    line would slow the pass: an empty Q0 field (two separators in a row where Q0
    belongs; the line's other fields are read in place, where the general parser and
    trec_eval see five fields), and a vertical tab, form feed or lone carriage return
    inside a field (the general parser splits fields there).
    """

    tag: str
    head: pl.DataFrame  # the file's first lines, parsed: to judge its order cheaply

    #: The column that keeps each scanned line's own tag, for the checks.
    TAG_COLUMN: ClassVar[str] = "_tag"
    #: The fields the checks need besides the query and document ids.
    CHECKED_FIELDS: ClassVar[tuple[str, ...]] = ("rank", "score", "_tag")

    def layout_kept(self) -> pl.Expr:
        """Return an aggregate: True when every line kept the plain layout and the tag.

        Examples
        --------
        >>> scan = TextScan("bm25", pl.DataFrame())
        >>> rows = pl.DataFrame({"query_id": ["1"], "doc_id": ["d"], "rank": [1],
        ...                      "score": [1.0], "_tag": ["bm25"]})
        >>> rows.select(scan.layout_kept()).item()
        True
        """
        fields = ("query_id", "doc_id", *self.CHECKED_FIELDS)
        one_tag = (pl.col(self.TAG_COLUMN) == self.tag).all()
        return every_field_read(fields) & one_tag

    @staticmethod
    def no_comment_line(query_id: pl.Expr) -> pl.Expr:
        """Return an aggregate that is True when no query id starts with ``#``."""
        return no_comment_line(query_id)


@dataclass(frozen=True, eq=False)
class ParsedInput:
    """The tables parsed from one source, each with canonical columns and dtypes.

    ``eq=False`` because comparing lazy frames is not a boolean operation.

    Attributes
    ----------
    source
        Display name for messages: the path as given, or ``"<polars.DataFrame>"``,
        ``"<pandas.DataFrame>"``, ``"<pyarrow.Table>"``, ``"<dict>"``, ``"<stream>"``.
    stem
        File name without ``.gz`` and without the format extension (``"bm25.dl19"`` for
        ``bm25.dl19.trec.gz``); None for in-memory objects and streams.
    format
        The format the source was parsed as.
    run
        ``query_id`` str, ``doc_id`` str, ``rank`` i64, ``score`` f64, ``system`` str
        (rank, score and system nullable), plus ``text`` str when the source has text.
    labels
        ``query_id`` str, ``doc_id`` str, ``grade`` f64.
    cutoffs
        ``query_id`` str, ``k`` i64.
    answers
        ``query_id`` str, ``answer`` str (one row per acceptable answer).
    buckets
        For a dataset written by :func:`rankset.partition`: its number of buckets (the
        run then has a ``bucket`` column too).
    profile
        For such a dataset: the run profile stored in its manifest, if any.
    scan
        For a TREC run scanned lazily: what the evaluation must verify in its pass.

    Examples
    --------
    >>> import polars as pl
    >>> parsed = ParsedInput("<dict>", None, "ranx", labels=pl.LazyFrame(schema=LABELS_SCHEMA))
    >>> parsed.run is None, parsed.labels.collect().height
    (True, 0)
    """

    source: str
    stem: str | None
    format: InputFormat
    run: pl.LazyFrame | None = None
    labels: pl.LazyFrame | None = None
    cutoffs: pl.LazyFrame | None = None
    answers: pl.LazyFrame | None = None
    buckets: int | None = None  # a partitioned dataset's bucket count (rankset.partition)
    profile: dict[str, Any] | None = None  # a dataset's run profile, from its manifest
    scan: TextScan | None = None  # a lazily scanned TREC run (evaluation verifies it)


def no_table_message(parsed: ParsedInput, table: str) -> str:
    """Say that ``parsed`` lacks ``table`` and what it holds instead."""
    present = [
        name
        for name in ("run", "labels", "cutoffs", "answers")
        if getattr(parsed, name) is not None
    ]
    found = ", ".join(present) if present else "nothing"
    return f"{parsed.source}: expected {table}, but this {parsed.format} input holds {found}"


def check_column_mapping(columns: Mapping[str, str] | None) -> dict[str, str]:
    """Return the ``columns`` argument as a dict after checking its canonical names."""
    if columns is None:
        return {}
    if not isinstance(columns, Mapping):
        msg = f"The 'columns' parameter must be a mapping. Got {columns!r} instead."
        raise ParameterError(msg)
    targets: dict[str, str] = {}
    for source_name, canonical in columns.items():
        if canonical in targets:
            msg = (
                f"The 'columns' parameter maps both {targets[canonical]!r} and {source_name!r} "
                f"to {canonical!r}; map one source column to each canonical column."
            )
            raise ParameterError(msg)
        targets[canonical] = source_name
        if canonical not in CANONICAL_COLUMNS:
            msg = (
                f"The 'columns' parameter maps {source_name!r} to {canonical!r}, which is not "
                f"a canonical column; use one of {sorted(CANONICAL_COLUMNS)}."
                f"{did_you_mean(str(canonical), CANONICAL_COLUMNS)}"
            )
            raise ParameterError(msg)
    return dict(columns)


def check_format_for(format: str | None, allowed: set[str], what: str) -> None:
    """Refuse a ``format`` that cannot be read from ``what`` (a file, a frame...)."""
    if format is not None and format not in allowed:
        msg = f"format {format!r} cannot be read from {what}; use one of {sorted(allowed)}"
        raise ParameterError(msg)


def check_no_mapping(mapping: Mapping[str, str], format: str) -> None:
    """Refuse a column mapping for a format whose layout is fixed."""
    if mapping:
        msg = f"The 'columns' parameter does not apply to the fixed layout of {format} input."
        raise ParameterError(msg)


def id_text(value: Any, where: str, what: str) -> str:
    """Return an id as text: a string, or an integer written as one (a JSON number)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    msg = f"{where}: {what} must be a string or an integer, found {json.dumps(value)}"
    raise InputFormatError(msg)


def show_line(line: str) -> str:
    """Quote a source line for a message, cut at :data:`MAX_SHOWN_LINE` characters."""
    shown = line.rstrip("\r")
    if len(shown) > MAX_SHOWN_LINE:
        shown = shown[:MAX_SHOWN_LINE] + "..."
    return repr(shown)


def number_word(target: pl.DataType) -> str:
    """Name what a numeric column holds, for messages: an integer or a number."""
    return "an integer" if target.is_integer() else "a number"
