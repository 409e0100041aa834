"""A plain ``{query: {doc: score}}`` run measured against prepared labels, ranked in Python.

The fused plan (:mod:`rankset.evaluation._fused`) measures an in-memory run in one
Polars query: it ranks the rows, joins them with their labels, and checks them. On a
run of one query and a hundred documents, that query's nodes cost more than their work.
A dict run needs none of them: its keys are its distinct queries and documents (no
document twice in a ranking), Python sorts a hundred scores in microseconds, and the
labels of each query are looked up by document in a dict kept per query. So the
labelled rows are found here, in rank order, and only the measures run in Polars: the
same row columns, aggregations and values as every other path, over the same rows in
the same order, so the values are bit-identical.

Taken only when nothing needs the general kernel's word: text ids that the id rules
surely accept, finite numeric scores, the ordering by score in doubles, the default
query policy, no per-query cutoffs; anything else returns None, and the fused plan or
the general kernel measures the run (and names what is wrong with it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Protocol

import polars as pl

from rankset.evaluation._plan import SMALL_RUN_ROWS, EvaluationPlan
from rankset.measures._shared import GROUP, NUM_RET, POSITIONS_BELOW, with_positions_below

__all__ = ["LabelsByQuery", "MappingPlan", "MappingValues", "plain_id", "plain_numbers"]

# The frames are in memory and every step is needed (see _fused).
_NO_OPTIMIZATIONS = pl.QueryOptFlags.none()
# Integers are scores when a double holds them exactly (Polars reads them as doubles).
_EXACT_INTEGERS = 1 << 53
# Queries whose labels are kept by document: a loop over every query of a large label
# table holds at most this many lookups.
_KEPT_QUERIES = 10_000
_BEST_FIRST = itemgetter(1, 0)  # (score, doc id), sorted descending: trec_eval's order


@dataclass(frozen=True)
class MappingValues:
    """A dict run's values by query id and its query counts (see ``FusedValues``)."""

    values: pl.DataFrame
    n_answered: int
    n_run_queries_without_labels: int


class LabelsByQuery(Protocol):
    """The fused plan's tables a dict run is measured against (``FusedPlan``'s fields).

    ``labels`` by query with their statistics on rows, ``stats`` the per-query
    statistics, ``spans`` and ``stats_rows`` where each query's rows are, ``fills``
    and ``values`` the empty values and the metrics' expressions.
    """

    @property
    def labels(self) -> pl.DataFrame: ...
    @property
    def stats(self) -> pl.DataFrame: ...
    @property
    def spans(self) -> dict[str, tuple[int, int]]: ...
    @property
    def stats_rows(self) -> dict[str, int]: ...
    @property
    def fills(self) -> list[pl.Expr]: ...
    @property
    def values(self) -> list[pl.Expr]: ...


@dataclass(frozen=True)
class MappingPlan:
    """What a plain dict run is measured with besides the fused plan's tables.

    ``row_columns`` are the features' row columns (``log2(pos + 1)`` read from its
    table by Polars for rankings short enough: :func:`with_positions_below`).
    """

    row_columns: dict[str, pl.Expr]
    aggregations: list[pl.Expr]
    # Whether one query's aggregations may be selected rather than grouped by query.
    selects_one_query: bool
    # {doc id: row in ``labels``} of the last _KEPT_QUERIES queries looked up.
    doc_rows: dict[str, dict[str, int]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def prepare(
        cls, plan: EvaluationPlan, tables: tuple[pl.DataFrame, pl.DataFrame]
    ) -> MappingPlan | None:
        """Return the plan of dict runs; None when the options need the general steps.

        ``tables`` are the fused plan's labels and statistics (their schemas are read).

        Runs ordered by rank or by 32-bit scores, every labelled query scored
        (``missing="zero"``), per-query cutoffs, or an engine asked for by name.
        """
        options, features = plan.options, plan.features
        if (
            options.order not in ("auto", "score")
            or options.score_precision != "float64"
            or options.missing != "skip"
            or options.engine not in ("auto", "in-memory")
            or features.uses_query_k
        ):
            return None
        row_columns = dict(features.row_columns)
        aggregations = list(features.aggregations.values())
        selects = _selects_alike(tables, list(row_columns.values()), aggregations)
        return cls(row_columns, aggregations, selects)

    def measure(self, run: Any, system: str, fused: LabelsByQuery) -> MappingValues | None:
        """Return the values of a plain dict run named ``system``; None if not plain.

        None also when no labelled query is answered (the general kernel says so).
        """
        ranked = _ranked(run)
        if ranked is None:
            return None
        rows: list[int] = []
        positions: list[int] = []
        scored: list[int] = []
        lengths: list[float] = []
        for query, docs in ranked:
            stats_row = fused.stats_rows.get(query)
            if stats_row is None:
                continue
            scored.append(stats_row)
            lengths.append(float(len(docs)))
            labelled = self._doc_rows(query, fused)
            for position, doc in enumerate(docs, 1):
                row = labelled.get(doc)
                if row is not None:
                    rows.append(row)
                    positions.append(position)
        if not scored:
            return None
        values = self._values(fused, system, (rows, positions), (scored, lengths), ranked)
        return MappingValues(values, len(scored), len(ranked) - len(scored))

    def _values(
        self,
        fused: LabelsByQuery,
        system: str,
        labelled_rows: tuple[list[int], list[int]],
        scored_queries: tuple[list[int], list[float]],
        ranked: list[tuple[str, list[str]]],
    ) -> pl.DataFrame:
        """Measure the labelled rows (in rank order, by query) in one Polars query.

        ``labelled_rows``: each labelled row's row in the labels and its position;
        ``scored_queries``: each scored query's row in the statistics and its length.
        """
        (rows, positions), (scored, lengths) = labelled_rows, scored_queries
        # Gathered in the one query: each eager step would cost more than its rows.
        name = pl.lit(system, dtype=pl.String).alias("system")
        frame = (
            fused.labels.lazy()
            .select(
                pl.all().gather(pl.lit(pl.Series(rows, dtype=pl.Int64))),
            )
            .with_columns(name, pl.lit(pl.Series("pos", positions, dtype=pl.Int64)))
        )
        stats = (
            fused.stats.lazy()
            .select(
                pl.all().gather(pl.lit(pl.Series(scored, dtype=pl.Int64))),
            )
            .with_columns(name, pl.lit(pl.Series(NUM_RET, lengths, dtype=pl.Float64)))
        )
        deepest = max(len(docs) for _, docs in ranked)
        row_columns = self.row_columns
        if deepest < POSITIONS_BELOW:
            row_columns = with_positions_below(row_columns, deepest)
        for expr in row_columns.values():
            frame = frame.with_columns(expr)
        if len(scored) == 1 and rows and self.selects_one_query:
            # One ranking with labelled rows: its one group, without grouping.
            one = frame.select(self.aggregations)
            aggregated = pl.concat([stats, one], how="horizontal")
        else:
            grouped = frame.group_by(list(GROUP)).agg(self.aggregations)
            aggregated = stats.join(grouped, on=list(GROUP), how="left", maintain_order="left")
        planned = aggregated.with_columns(fused.fills).select("query_id", *fused.values)
        return planned.collect(engine="in-memory", optimizations=_NO_OPTIMIZATIONS)

    def _doc_rows(self, query: str, fused: LabelsByQuery) -> dict[str, int]:
        """Return ``{doc id: row in labels}`` of one labelled query, kept once read."""
        found = self.doc_rows.get(query)
        if found is None:
            start, length = fused.spans.get(query, (0, 0))
            docs = fused.labels["doc_id"].slice(start, length).to_list()
            found = dict(zip(docs, range(start, start + length), strict=True))
            if len(self.doc_rows) >= _KEPT_QUERIES:  # the oldest goes: memory stays bounded
                self.doc_rows.pop(next(iter(self.doc_rows)), None)
            self.doc_rows[query] = found
        return found


def _selects_alike(
    tables: tuple[pl.DataFrame, pl.DataFrame],
    row_columns: list[pl.Expr],
    aggregations: list[pl.Expr],
) -> bool:
    """Whether the aggregations selected over one ranking's rows give its grouped row.

    True when each aggregation has the same dtype selected as grouped (a scalar per
    group, not a list) and no name is also a statistic's; read from the schemas only,
    and kept for the same expressions over the same columns (a loop of one-shot calls
    builds them once: :func:`rankset.evaluation._plan._built`).
    """
    labels, stats = tables
    key = (
        tuple(map(id, row_columns + aggregations)),
        tuple(labels.schema.items()),
        tuple(stats.columns),
    )
    kept = _selected_alike.get(key)
    if kept is None:
        kept = (row_columns + aggregations, _selected_as_grouped(tables, row_columns, aggregations))
        if len(_selected_alike) >= _KEPT:
            _selected_alike.pop(next(iter(_selected_alike)))
        _selected_alike[key] = kept
    return kept[1]


# The last _KEPT answers of _selects_alike, with the expressions (their ids are the key).
_KEPT = 32
_selected_alike: dict[tuple[Any, ...], tuple[list[pl.Expr], bool]] = {}


def _selected_as_grouped(
    tables: tuple[pl.DataFrame, pl.DataFrame],
    row_columns: list[pl.Expr],
    aggregations: list[pl.Expr],
) -> bool:
    labels, stats = tables
    rows = labels.lazy().with_columns(
        pl.lit("", dtype=pl.String).alias("system"), pl.lit(1, dtype=pl.Int64).alias("pos")
    )
    for expr in row_columns:
        rows = rows.with_columns(expr)
    try:
        grouped = rows.group_by(list(GROUP)).agg(aggregations).collect_schema()
        selected = rows.select(aggregations).collect_schema()
    except pl.exceptions.PolarsError:
        return False
    clash = set(selected) & {*stats.columns, "system", NUM_RET}
    return not clash and all(grouped.get(name) == dtype for name, dtype in selected.items())


def _ranked(run: Any) -> list[tuple[str, list[str]]] | None:
    """Return each answered query's documents best first, queries by id; None if unfit.

    Best first is trec_eval's order: by score descending, ties by document id
    descending (Python compares text by code point, as UTF-8 bytes compare); ``-0.0``
    and ``0.0`` are equal, as in C. None unless every query id and document id is
    plain text (:func:`plain_id`) and every score a finite ``float`` or an ``int`` that
    a double holds exactly, and the run has at most ``SMALL_RUN_ROWS`` rows.
    """
    if type(run) is not dict or not all(type(query) is str for query in run):
        return None
    ranked: list[tuple[str, list[str]]] = []
    rows = 0
    for query in sorted(run):
        docs = run[query]
        if type(docs) is not dict or not plain_id(query):
            return None
        if not docs:
            continue  # no rows: the query is not answered
        if not plain_numbers(docs) or not all(type(doc) is str for doc in docs):
            return None
        if not all(map(plain_id, docs)):
            return None
        rows += len(docs)
        ranked.append(
            (query, [doc for doc, _ in sorted(docs.items(), key=_BEST_FIRST, reverse=True)])
        )
    return ranked if rows <= SMALL_RUN_ROWS else None


def plain_numbers(docs: Mapping[Any, Any]) -> bool:
    """Whether every value is a finite double, or an integer a double holds exactly."""
    kinds = set(map(type, docs.values()))
    if not kinds <= {float, int}:
        return False
    if int in kinds and not all(
        -_EXACT_INTEGERS <= score <= _EXACT_INTEGERS for score in docs.values()
    ):
        return False
    return all(map(math.isfinite, docs.values()))


def plain_id(value: str) -> bool:
    """Whether an id is surely usable: not empty, printable, no leading or trailing space.

    Stricter than the id rules (``isprintable`` refuses more than control characters):
    an id it doubts is checked by the general kernel, which applies the rules.
    """
    return bool(value) and value.isprintable() and value[0] != " " and value[-1] != " "
