"""What every reader returns, and the checks and message pieces the readers share.

A reader turns one source into a :class:`ParsedInput`: lazy frames with the canonical
column names and dtypes below. The format modules (``_trec``, ``_tables``, ``_json``,
``_ranx``) build it; nothing here reads a file.
"""

from __future__ import annotations

import functools
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
    "ID_CONTROL_CHARACTERS",
    "LABELS_SCHEMA",
    "MAX_SHOWN_LINE",
    "NUMERIC_TARGETS",
    "RUN_SCHEMA",
    "ParsedInput",
    "TextScan",
    "check_column_mapping",
    "check_format_for",
    "check_no_mapping",
    "count_problems",
    "id_problems",
    "id_text",
    "no_inner_blank",
    "no_table_message",
    "number_problems",
    "number_word",
    "score_problems",
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
    "query_id": ("query_id", "qid", "topic", "query", "query-id"),
    "doc_id": ("doc_id", "docid", "docno", "pid", "id", "corpus-id", "corpus_id"),
    "rank": ("rank",),
    "score": ("score", "sim"),
    "grade": ("grade", "rel", "relevance", "label", "grade_1_5"),
    "system": ("system", "tag", "run_id", "run"),
    "text": ("text", "content", "passage"),
    # How sure a label is (TREC 2025 RAG qrels); kept with labels, never scored.
    "confidence": ("confidence",),
    # The stratum a sampled label was drawn from (NIST's sampled qrels); kept with labels.
    "stratum": ("stratum",),
}
CANONICAL_COLUMNS: Final = frozenset(ALIASES)
NUMERIC_TARGETS: Final[Mapping[str, pl.DataType]] = {
    "rank": pl.Int64(),
    "score": pl.Float64(),
    "grade": pl.Float64(),
    "k": pl.Int64(),
    "confidence": pl.Float64(),
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


#: The characters no id may hold: C0 controls (tab, CR and LF among them) and DEL.
ID_CONTROL_CHARACTERS: tuple[str, ...] = (*(chr(code) for code in range(32)), "\x7f")


def id_problems(column: str) -> dict[str, pl.Expr]:
    r"""Return the ways an id can be unusable, each as a row mask over ``column``.

    An id is a non-empty string with no control character and no leading or trailing
    space: such ids survive a round trip through every format (TREC text splits on
    blanks, so a blank id or one with a tab, CR or vertical tab would not) and match
    the labels' ids as written. A blank id shows as one with a leading space.

    Examples
    --------
    >>> frame = pl.DataFrame({"doc_id": ["d1", "", "d\x00", " d", None]})
    >>> masks = id_problems("doc_id")
    >>> frame.select(**{p: m.fill_null(False).sum() for p, m in masks.items()}).row(0)
    (1, 1, 1, 1)
    """
    return dict(_id_problems(column))  # a copy: callers merge and extend it


@functools.lru_cache(maxsize=16)
def _id_problems(column: str) -> dict[str, pl.Expr]:
    """Build :func:`id_problems` once per column (expressions are immutable)."""
    value = pl.col(column).cast(pl.String)
    return {
        f"no {column}": value.is_null(),
        f"an empty {column}": value.str.len_bytes() == 0,
        f"a {column} with a control character": value.str.contains_any(list(ID_CONTROL_CHARACTERS)),
        f"a {column} with a leading or trailing space": value.str.starts_with(" ")
        | value.str.ends_with(" "),
    }


def number_problems(column: str, what: str) -> dict[str, pl.Expr]:
    """Return the masks of a number column that must hold finite values: null, NaN or inf.

    Examples
    --------
    >>> frame = pl.DataFrame({"grade": [1.0, None, float("nan"), float("-inf")]})
    >>> masks = number_problems("grade", "grade")
    >>> frame.select(**{p: m.fill_null(False).sum() for p, m in masks.items()}).row(0)
    (1, 2)
    """
    value = pl.col(column).cast(pl.Float64)
    return {
        f"no {what}": value.is_null(),
        f"a {what} that is not a finite number (NaN or infinite)": ~value.is_finite(),
    }


def score_problems(column: str = "score") -> dict[str, pl.Expr]:
    """Return the masks of a run's score column: null or NaN; ±inf are ordered values.

    trec_eval, pytrec_eval and ranx rank an infinite score like any other (C's ``atof``
    reads ``inf`` and ``1e400`` as infinity); NaN has no order, so it is refused.

    Examples
    --------
    >>> frame = pl.DataFrame({"score": [1.0, None, float("nan"), float("-inf")]})
    >>> masks = score_problems()
    >>> frame.select(**{p: m.fill_null(False).sum() for p, m in masks.items()}).row(0)
    (1, 1)
    """
    value = pl.col(column).cast(pl.Float64)
    return {"no score": value.is_null(), "a score that is NaN (not a number)": value.is_nan()}


def count_problems(problems: dict[str, pl.Expr]) -> list[pl.Expr]:
    """Return one aggregate per problem: how many rows have it (aliased by the problem).

    Examples
    --------
    >>> frame = pl.DataFrame({"query_id": ["q1", "", None]})
    >>> frame.select(count_problems(id_problems("query_id"))).row(0)
    (1, 1, 0, 0)
    """
    return [mask.fill_null(False).sum().alias(problem) for problem, mask in problems.items()]


def no_inner_blank(columns: Sequence[str], separator: str) -> pl.Expr:
    r"""Return an aggregate: True when no value of ``columns`` holds a space.

    Only tab-separated lines can hold one inside a field (the general parser, like
    trec_eval, splits fields there); with a space separator it is always True. Other
    blanks inside an id are control characters, which :func:`id_problems` refuses.

    Examples
    --------
    >>> frame = pl.DataFrame({"doc_id": ["d 1"]})
    >>> frame.select(no_inner_blank(["doc_id"], "\t")).item()
    False
    """
    if separator == " ":
        return pl.lit(True)
    spaced = pl.col(*columns).cast(pl.String).str.contains(" ", literal=True)
    return ~pl.any_horizontal(spaced.any())


@dataclass(frozen=True)
class TextScan:
    """What evaluation assumes of a TREC run file it scans lazily, to verify in its pass.

    The file's first 128 kB are in the plain layout (six fields, one separator, one
    tag); the scan assumes every line is, with the first line's ``tag``. The pass over
    the runs checks that every field it reads was there (``every_field_read`` over
    ``SCANNED_FIELDS``), that every line has that tag, and that no query id starts
    with ``#``; when a check fails, or the CSV reader raises, evaluation reads the file
    again with :func:`rankset.io.read`, whose general parser names the offending line.

    The pass also applies the row rules every reader obeys (:func:`id_problems`, a
    finite score) to every line, so an empty Q0 field or a vertical tab, form feed or
    carriage return inside an id sends the file to the general parser however deep in
    the file it is: the plain file and its gzip give the same result.
    """

    tag: str
    head: pl.DataFrame  # the file's first lines, parsed: to judge its order cheaply
    separator: str = " "  # the plain layout's separator: one space or one tab

    #: The column that keeps each scanned line's own tag, for the checks.
    TAG_COLUMN: ClassVar[str] = "_tag"
    #: The fields the checks need besides the query and document ids.
    CHECKED_FIELDS: ClassVar[tuple[str, ...]] = ("q0", "rank", "score", "_tag")

    def layout_kept(self) -> pl.Expr:
        """Return an aggregate: True when every line kept the plain layout and the tag.

        Examples
        --------
        >>> scan = TextScan("bm25", pl.DataFrame())
        >>> rows = pl.DataFrame({"query_id": ["1"], "q0": ["Q0"], "doc_id": ["d"],
        ...                      "rank": [1], "score": [1.0], "_tag": ["bm25"]})
        >>> rows.select(scan.layout_kept()).item()
        True
        """
        fields = ("query_id", "doc_id", *self.CHECKED_FIELDS)
        one_tag = (pl.col(self.TAG_COLUMN) == self.tag).all()
        return every_field_read(fields) & one_tag & no_inner_blank(["q0", "doc_id"], self.separator)

    def rankings_kept(self, query_id: pl.Expr) -> pl.Expr:
        r"""Return an aggregate over the rankings' query ids: none a comment or split.

        Examples
        --------
        >>> scan = TextScan("bm25", pl.DataFrame(), separator="\t")
        >>> pl.DataFrame({"q": ["1", "2 3"]}).select(scan.rankings_kept(pl.col("q"))).item()
        False
        """
        kept = no_comment_line(query_id)
        if self.separator != " ":
            kept = kept & ~query_id.str.contains(" ", literal=True).any()
        return kept


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
    relevance_level
        The relevance level the source implies when the caller sets none: sample files
        whose ``expected_output`` maps ids to gains below 1 make every positive gain
        relevant (the smallest positive gain); None: rankset's default of 1.
    scan
        For a TREC run scanned lazily: what the evaluation must verify in its pass.
    rows_checked
        Whether the reader applied :func:`id_problems` to every run row (text read whole,
        CSV/TSV, JSON), so the pass over the runs need not scan the ids again.
    unique_docs
        Whether the source's shape rules out a document ranked twice for a query (the
        text keys of a ``{qid: {doc: score}}`` dict), so no duplicate check is needed.
    rows_in_memory
        For a frame (or dict) given in memory: its row count, known without a pass.
    ranking_numbers
        For a run the reader built ranking by ranking (a large dict): each row's ranking
        as an integer (0, 1, ...), in row order, flagged sorted; None when not known.
    query_ids
        The run's distinct query ids, when the reader knows them without a pass (a
        dict's keys): a prepared evaluation reads only these queries' labels.
    systems
        For a run of several systems read from a mapping of runs: its system names in
        the order given (results list them so); None: the system column's, sorted.
    scale
        The grade scale (a preset name) the source documents for its labels, used when
        the caller sets none: ir_datasets' relevance definitions (``trec_dl`` for TREC
        DL); None: the labels' grades choose.
    absent
        The run columns its source does not hold, filled with nulls here (``system``,
        ``score`` or ``rank`` of a table): a run profile need not read them.
    costs
        For a run table holding any of the cost columns (``latency_ms``, ``tokens_in``,
        ``tokens_out``, ``cost``): ``query_id`` str, ``system`` str when the table has
        one, and those columns as they are, one row per run row; the evaluation takes
        them as the costs when none are given (one value per query).

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
    relevance_level: float | None = None  # implied by the source (gain maps of samples)
    scan: TextScan | None = None  # a lazily scanned TREC run (evaluation verifies it)
    rows_checked: bool = False  # the reader applied the id rules to every run row
    unique_docs: bool = False  # no document twice in a ranking, by the source's shape
    rows_in_memory: int | None = None  # the row count of a frame given in memory
    ranking_numbers: pl.Series | None = None  # each row's ranking, when the reader knows it
    query_ids: tuple[str, ...] | None = None  # the run's distinct query ids, when known
    systems: tuple[str, ...] | None = None  # its systems in the order given, when known
    scale: str | None = None  # the grade scale the source documents (ir_datasets)
    # A run table's cost columns (latency_ms, ...): query_id, [system], the costs per row.
    costs: pl.LazyFrame | None = None
    absent: frozenset[str] = frozenset()  # run columns the source lacks (nulls here)


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
