r"""Match retrieved text chunks to gold texts, so chunk-level runs can be scored by id.

Some RAG systems return ranked *chunks of text* and are judged against a list of gold
texts per query, with no document ids on either side. :func:`match_text` gives every
chunk a ``doc_id`` from the gold item it matches, and returns labels for the gold items,
so the usual metrics apply unchanged.

Rules (each stated once, here):

* **Order.** A query's chunks are taken in ``pos`` order when the run has a ``pos``
  column (what :func:`rankset.schema.normalize_run` produces); otherwise by ``score``
  descending, or without a score column by ``rank`` ascending; ties are broken by
  ``text`` descending, then by input order. Chunks are then renumbered 1, 2, ... per
  ``(system, query_id)``; that number is written to ``pos`` and ``rank`` in the result.
* **Gold items.** Each gold row is one item. Its id is the ``gold_id`` column when there
  is one (ids must be non-null, unique within a query and must not start with ``#``),
  else ``"g1"``, ``"g2"``, ... in input order within the query. Its grade is the
  ``grade`` column when there is one, else 1.0.
* **Modes.** ``"exact"``: the chunk text equals the gold text. ``"normalized"``: equal
  after :func:`normalize_text`. ``"contained"``: the normalised chunk text is a substring
  of the normalised gold text (the chunk comes from that gold document).
  ``"json_escaped"``: the chunk text, as it is or JSON-escaped (``json.dumps`` without
  its quotes: ``\n`` for a line break, ``\"`` for a quote, ``\uXXXX`` beyond ASCII), is a
  substring of the gold text as it is: gold documents stored as JSON strings still match
  the chunks cut from them. A chunk whose compared text is empty or null matches
  nothing, in every mode.
* **Several gold matches.** A chunk that matches several gold items takes the first one
  in gold order; it does not fall back to a later item when the first is already taken.
  Two gold items with the same compared text therefore cannot both be credited.
* **Credit once.** Per ``(system, query_id)`` each gold item is credited to its
  best-placed matching chunk, whose ``doc_id`` becomes the gold id. Every later chunk
  matching the same item is a non-relevant duplicate with ``doc_id``
  ``"#dup<n>:<gold_id>"`` (``n`` = 1 for the first repeat). A chunk matching nothing gets
  ``"#unmatched:<pos>"``. Ids starting with ``#`` are reserved for these, so they never
  collide with gold ids, and every ``doc_id`` is unique within its ranking.

Matching is vectorised: ``"exact"`` and ``"normalized"`` are one equi-join on
``(query_id, text)``; ``"contained"`` joins each chunk to its query's gold items and
tests ``str.contains(..., literal=True)`` row-wise.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, get_args

import polars as pl

from rankset._validation import check_choice, missing_columns_message
from rankset.errors import SchemaError

__all__ = ["MatchMode", "TextMatch", "match_text", "normalize_text"]

MatchMode = Literal["exact", "normalized", "contained", "json_escaped"]

_MODES: Final = get_args(MatchMode)
_MAX_LISTED: Final = 5

# Internal column names; the prefix keeps them clear of the caller's columns.
_POS: Final = "_tm_pos"
_ROW: Final = "_tm_row"
_KEY: Final = "_tm_key"
_GKEY: Final = "_tm_gold_key"
_GOLD: Final = "_tm_gold"
_GOLD_ID: Final = "_tm_gold_id"
_STATUS: Final = "_tm_status"
_CHUNK: Final = ("system", "query_id", _POS)

# A leading "Date: ..." line, as conversation-memory documents carry.
_DATE_LINE: Final = r"^\s*date:[^\n]*\n"
# A speaker prefix at the start of any line ("user: ", "assistant: ").
_SPEAKER: Final = r"(?m)^[ \t]*(?:user|assistant):[ \t]*"


@dataclass(frozen=True)
class TextMatch:
    """The outcome of :func:`match_text`.

    Attributes
    ----------
    run
        The input run, one row per chunk, with ``doc_id`` set from the match (a gold id,
        ``"#dup<n>:<gold_id>"`` or ``"#unmatched:<pos>"``), ``pos`` and ``rank`` set to
        the chunk's 1-based position, ``system``/``query_id``/``text`` cast to strings,
        and every other column kept. Sorted by ``system, query_id, pos``. When the run
        has scores, :func:`rankset.evaluate` orders by score and breaks score ties by the
        new ``doc_id``; pass ``order="rank"`` to score exactly the order matched here.
    labels
        ``query_id, doc_id, grade``: one row per gold item (``doc_id`` = gold id).
    report
        Per system: ``system, n_chunks, n_matched`` (chunks credited with a gold item),
        ``n_duplicate`` (chunks matching a gold item already credited higher up) and
        ``n_unmatched``; ``n_chunks`` is the sum of the other three.
    mode
        The match mode used.
    """

    run: pl.LazyFrame
    labels: pl.LazyFrame
    report: pl.DataFrame
    mode: MatchMode = "exact"


def normalize_text(text: pl.Expr) -> pl.Expr:
    r"""Normalise text for the ``"normalized"`` and ``"contained"`` match modes.

    In this order: Unicode NFKC; lower-case; drop a first line that starts with
    ``date:`` (after leading whitespace) when a line break follows it; drop ``user:`` and
    ``assistant:`` speaker prefixes (with the spaces or tabs around them) at the start of
    every line; replace every run of whitespace (line breaks included) by one space;
    strip leading and trailing whitespace.

    Parameters
    ----------
    text
        A string expression.

    Returns
    -------
    polars.Expr
        The normalised string (null stays null).

    Examples
    --------
    >>> text = "Date: 2024-05-01\nUser:  Hi\nassistant: ＨＥＬＬＯ  there"
    >>> frame = pl.DataFrame({"text": [text]})
    >>> frame.select(normalize_text(pl.col("text"))).item()
    'hi hello there'
    """
    return (
        text.str.normalize("NFKC")
        .str.to_lowercase()
        .str.replace(_DATE_LINE, "")
        .str.replace_all(_SPEAKER, "")
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
    )


def match_text(
    run: pl.LazyFrame | pl.DataFrame,
    gold: pl.LazyFrame | pl.DataFrame,
    *,
    mode: MatchMode = "exact",
) -> TextMatch:
    """Give each retrieved chunk the id of the gold text it matches.

    Parameters
    ----------
    run
        Columns ``system, query_id, text`` and an order: ``pos`` (1-based, as
        :func:`rankset.schema.normalize_run` makes it), else ``score`` (descending), else
        ``rank`` (ascending); ties by ``text`` descending. A ``doc_id`` column, if any,
        is replaced.
    gold
        Columns ``query_id, text``, optionally ``gold_id`` (default ``"g1"``, ``"g2"``,
        ... in input order per query) and ``grade`` (default 1.0).
    mode
        ``"exact"`` (equal strings), ``"normalized"`` (equal after
        :func:`normalize_text`), ``"contained"`` (normalised chunk is a substring of
        the normalised gold text) or ``"json_escaped"`` (the chunk, as it is or
        JSON-escaped, is a substring of the gold text).

    Returns
    -------
    TextMatch
        The run with ``doc_id`` set, labels for the gold items and per-system counts.
        The module docstring states the matching and crediting rules.

    Raises
    ------
    SchemaError
        A required column is missing, the run has no column to order it by, or a
        ``gold_id`` is null, repeated within a query or starts with ``#``.
    ParameterError
        ``mode`` is not one of the modes above.

    Examples
    --------
    >>> run = pl.DataFrame({"system": "s", "query_id": "q1", "pos": [1, 2, 3, 4],
    ...                     "text": ["Paris is in France.", "The sky is blue.",
    ...                              "paris is in  France.", "Paris is in France."]})
    >>> gold = pl.DataFrame({"query_id": "q1", "text": ["Paris is in France."]})
    >>> tm = match_text(run, gold)
    >>> tm.run.collect().select("pos", "doc_id")
    shape: (4, 2)
    ┌─────┬──────────────┐
    │ pos ┆ doc_id       │
    │ --- ┆ ---          │
    │ i64 ┆ str          │
    ╞═════╪══════════════╡
    │ 1   ┆ g1           │
    │ 2   ┆ #unmatched:2 │
    │ 3   ┆ #unmatched:3 │
    │ 4   ┆ #dup1:g1     │
    └─────┴──────────────┘
    >>> tm.report
    shape: (1, 5)
    ┌────────┬──────────┬───────────┬─────────────┬─────────────┐
    │ system ┆ n_chunks ┆ n_matched ┆ n_duplicate ┆ n_unmatched │
    │ ---    ┆ ---      ┆ ---       ┆ ---         ┆ ---         │
    │ str    ┆ u32      ┆ u32       ┆ u32         ┆ u32         │
    ╞════════╪══════════╪═══════════╪═════════════╪═════════════╡
    │ s      ┆ 4        ┆ 1         ┆ 1           ┆ 2           │
    └────────┴──────────┴───────────┴─────────────┴─────────────┘
    >>> match_text(run, gold, mode="normalized").report["n_duplicate"].item()
    2
    """
    check_choice("mode", mode, _MODES)
    run, gold = run.lazy(), gold.lazy()
    run_columns = _require(run, ("system", "query_id", "text"), "run")
    gold_columns = _require(gold, ("query_id", "text"), "gold")

    chunks = _order_chunks(run, run_columns)
    items = _gold_items(gold, gold_columns)
    compare = _compared_text(mode)
    keyed_chunks = chunks.select(*_CHUNK, compare(pl.col("text")).alias(_KEY)).filter(
        pl.col(_KEY).str.len_bytes() > 0
    )
    keyed_items = items.select("query_id", _GOLD, _GOLD_ID, compare(pl.col("text")).alias(_GKEY))
    if mode == "contained":
        matches = _contained_matches(keyed_chunks, keyed_items)
    elif mode == "json_escaped":
        escaped = pl.col(_KEY).map_batches(_json_escaped, return_dtype=pl.String)
        matches = _contained_matches(keyed_chunks.with_columns(_escaped=escaped), keyed_items)
    else:
        matches = _equal_matches(keyed_chunks, keyed_items)

    matched, labels = pl.collect_all(
        [
            _credit(chunks.join(matches, on=list(_CHUNK), how="left")),
            items.select("query_id", pl.col(_GOLD_ID).alias("doc_id"), "grade"),
        ]
    )
    _check_gold_ids(labels)

    report = (
        matched.group_by("system")
        .agg(
            n_chunks=pl.len(),
            n_matched=(pl.col(_STATUS) == "matched").sum(),
            n_duplicate=(pl.col(_STATUS) == "duplicate").sum(),
            n_unmatched=(pl.col(_STATUS) == "unmatched").sum(),
        )
        .sort("system")
    )
    output = matched.with_columns(pos=pl.col(_POS), rank=pl.col(_POS)).select(
        _output_columns(run_columns)
    )
    return TextMatch(run=output.lazy(), labels=labels.lazy(), report=report, mode=mode)


# --- inputs ----------------------------------------------------------------------------


def _require(frame: pl.LazyFrame, columns: Sequence[str], what: str) -> list[str]:
    present = frame.collect_schema().names()
    missing = [c for c in columns if c not in present]
    if missing:
        msg = missing_columns_message(f"match_text: the {what}", missing, columns, sorted(present))
        raise SchemaError(msg)
    return present


def _order_chunks(run: pl.LazyFrame, columns: list[str]) -> pl.LazyFrame:
    """Cast the key columns and number each ranking's chunks 1, 2, ... in ``_POS``."""
    if "pos" in columns:
        key, descending = "pos", False
    elif "score" in columns:
        key, descending = "score", True
    elif "rank" in columns:
        key, descending = "rank", False
    else:
        msg = (
            "match_text: the run has no 'pos', 'score' or 'rank' column to order its "
            f"chunks by (found: {', '.join(sorted(columns))})."
        )
        raise SchemaError(msg)
    return (
        run.with_columns(
            pl.col("system").cast(pl.String),
            pl.col("query_id").cast(pl.String),
            pl.col("text").cast(pl.String),
        )
        .sort(
            ["system", "query_id", key, "text"],
            descending=[False, False, descending, True],
            nulls_last=True,
            maintain_order=True,
        )
        .with_columns(
            pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("system", "query_id").alias(_POS)
        )
    )


def _gold_items(gold: pl.LazyFrame, columns: list[str]) -> pl.LazyFrame:
    """``query_id, text, _GOLD`` (1-based order within the query), ``_GOLD_ID, grade``."""
    order = pl.col(_ROW).rank("ordinal").over("query_id").cast(pl.Int64)
    gold_id = pl.col("gold_id").cast(pl.String) if "gold_id" in columns else pl.format("g{}", order)
    grade = pl.col("grade").cast(pl.Float64) if "grade" in columns else pl.lit(1.0)
    return gold.with_row_index(_ROW).select(
        pl.col("query_id").cast(pl.String),
        pl.col("text").cast(pl.String),
        order.alias(_GOLD),
        gold_id.alias(_GOLD_ID),
        grade.alias("grade"),
    )


def _check_gold_ids(labels: pl.DataFrame) -> None:
    bad = labels.filter(pl.col("doc_id").is_null() | pl.col("doc_id").str.starts_with("#"))
    if bad.height:
        listed = ", ".join(
            f"query {q!r} id {d!r}"
            for q, d in bad.head(_MAX_LISTED).select("query_id", "doc_id").iter_rows()
        )
        msg = (
            "match_text: gold ids must be non-null and must not start with '#', which marks "
            f"rankset's non-gold ids (first offenders: {listed})."
        )
        raise SchemaError(msg)
    repeated = (
        labels.group_by("query_id", "doc_id")
        .agg(copies=pl.len())
        .filter(pl.col("copies") > 1)
        .sort("query_id", "doc_id")
        .head(_MAX_LISTED)
    )
    if repeated.height:
        listed = "; ".join(f"query {q!r} id {d!r} ({n} times)" for q, d, n in repeated.iter_rows())
        msg = f"match_text: a gold id is repeated within a query (first offenders: {listed})."
        raise SchemaError(msg)


# --- matching --------------------------------------------------------------------------


def _compared_text(mode: MatchMode) -> Callable[[pl.Expr], pl.Expr]:
    """Return what each mode compares: raw text for exact and JSON-escaped, else normalised."""
    if mode in ("exact", "json_escaped"):
        return _unchanged
    return normalize_text


def _unchanged(text: pl.Expr) -> pl.Expr:
    return text


def _equal_matches(chunks: pl.LazyFrame, items: pl.LazyFrame) -> pl.LazyFrame:
    """Per chunk, the first gold item (in gold order) whose compared text equals it."""
    first_items = items.group_by("query_id", _GKEY).agg(
        pl.col(_GOLD).min(), pl.col(_GOLD_ID).sort_by(_GOLD).first()
    )
    return chunks.join(
        first_items, left_on=["query_id", _KEY], right_on=["query_id", _GKEY], how="inner"
    ).select(*_CHUNK, _GOLD, _GOLD_ID)


def _contained_matches(chunks: pl.LazyFrame, items: pl.LazyFrame) -> pl.LazyFrame:
    """Per chunk, the first gold item (in gold order) whose text contains the chunk's.

    A chunk with an ``_escaped`` column also matches a gold text holding that form.
    """
    contains = pl.col(_GKEY).str.contains(pl.col(_KEY), literal=True)
    if "_escaped" in chunks.collect_schema().names():
        contains = contains | pl.col(_GKEY).str.contains(pl.col("_escaped"), literal=True)
    return (
        chunks.join(items, on="query_id", how="inner")
        .filter(contains)
        .group_by(*_CHUNK)
        .agg(pl.col(_GOLD).min(), pl.col(_GOLD_ID).sort_by(_GOLD).first())
    )


def _json_escaped(texts: pl.Series) -> pl.Series:
    """Each text as ``json.dumps`` writes it, without the quotes (once per distinct text)."""
    table = {text: json.dumps(text)[1:-1] for text in texts.unique().drop_nulls().to_list()}
    return texts.replace_strict(table, default=None, return_dtype=pl.String)


def _credit(chunks: pl.LazyFrame) -> pl.LazyFrame:
    """Set ``doc_id`` and ``_STATUS``: credit each gold item to its best-placed chunk."""
    occurrence = pl.col(_POS).rank("ordinal").over("system", "query_id", _GOLD)
    unmatched = pl.col(_GOLD).is_null()
    return chunks.with_columns(
        pl.when(unmatched)
        .then(pl.format("#unmatched:{}", pl.col(_POS)))
        .when(occurrence == 1)
        .then(pl.col(_GOLD_ID))
        .otherwise(pl.format("#dup{}:{}", occurrence - 1, pl.col(_GOLD_ID)))
        .alias("doc_id"),
        pl.when(unmatched)
        .then(pl.lit("unmatched"))
        .when(occurrence == 1)
        .then(pl.lit("matched"))
        .otherwise(pl.lit("duplicate"))
        .alias(_STATUS),
    ).sort(*_CHUNK)


def _output_columns(run_columns: list[str]) -> list[str]:
    """List the run's own columns in their order, then ``doc_id``, ``pos``, ``rank`` if new."""
    added = [c for c in ("doc_id", "pos", "rank") if c not in run_columns]
    return [*run_columns, *added]
