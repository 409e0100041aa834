"""One in-memory run of one system against prepared labels, measured in one collect.

The general kernel (:mod:`rankset.evaluation._kernel`) collects in steps: the pass over
the runs, its checks (which decide the numbering, name a bad row, look for duplicate
documents), then the per-query aggregations, then the query policy. On a small run each
step's fixed cost dominates: a call of 100 rows spends most of its time starting
Polars queries. A prepared :class:`~rankset.evaluation.Evaluator` knows everything
but the run beforehand, so for the common case (one system's run held in memory, the
default duplicate policy) this module plans the whole measurement as one query over
frames prepared once: the labels with the statistics their rows need, the per-query
statistics, and the expressions of the rows, aggregations and values.

It is optimistic: the checks of the run (ids, scores, duplicate documents, at least one
labelled query answered) are collected with the values, and when any of them finds
something, the values are dropped and the general kernel measures the run, raising or
warning as it always does. The steps are the kernel's, over the same expressions and in
the same row order (labelled rows by query and position, on the in-memory engine), so
the values are bit-identical to :func:`rankset.evaluate`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import polars as pl

from rankset.evaluation._fused_mapping import MappingPlan, plain_id
from rankset.evaluation._kernel_labels import PreparedLabels
from rankset.evaluation._packed_hits import pair_hash
from rankset.evaluation._pass import SMALL_ENGINE, row_checks, same_ranking_as_previous_row
from rankset.evaluation._plan import EvaluationPlan
from rankset.evaluation._runs import RunPart
from rankset.io._shared import count_problems, id_problems
from rankset.measures._shared import (
    GROUP,
    NUM_RET,
    POSITIONS_BELOW,
    QUERY_K,
    with_positions_below,
)

__all__ = ["FusedPlan", "FusedValues", "Measured", "SystemsValues"]

_SYSTEM = "_system"
_RANKING = "_ranking"
_LABELLED = "_labelled"
_UNLABELLED = "_unlabelled"
_RANKINGS = "_rankings"
# The pair hash a run is joined to its labels on, the suffix of the labels' ids beside
# the run's, and each ranking's count of joined rows whose ids differ (hash collisions).
_PAIR = "_pair"
_LABELLED_AS = "_labelled"
_MISMATCHED = "_mismatched"
# Blocks of equal ids beyond one per ranking: a ranking's rows are not all together.
_SPLIT = "_split_rankings"
# From this many rows, a run whose reader did not number its rankings is numbered by
# its blocks of ids (when none is split), which costs a query more than its ids.
_BLOCKS_FROM_ROWS = 5_000
# The frames are in memory and every step is needed: the optimizer's passes over the
# plan would cost more than they save (a third of a 100-row call).
_NO_OPTIMIZATIONS = pl.QueryOptFlags.none()
# From this many label rows, a run whose query ids its reader does not know (a frame)
# has them read, to join with their labels only.
_SLICED_FROM_ROWS = 5_000


class Measured(NamedTuple):
    """What a result is made of: values by system and query, each system's counts.

    ``wide`` has ``system, query_id`` and each metric's value; ``answered`` each
    system's ``n_answered`` and ``n_run_queries_without_labels``; ``systems`` the
    systems in order; ``n_label_queries`` the labelled queries.
    """

    wide: pl.LazyFrame
    answered: pl.LazyFrame
    systems: list[str]
    n_label_queries: int


@dataclass(frozen=True)
class FusedValues:
    """One system's run measured: its values and the queries it answered.

    ``values`` has ``query_id`` (and ``QUERY_K`` with per-query cutoffs), then each
    metric's value, by query id; ``n_answered`` and ``n_run_queries_without_labels``
    count the run's distinct queries with labels and without, ``n_label_queries`` the
    labelled queries.
    """

    values: pl.DataFrame
    system: str
    n_answered: int
    n_run_queries_without_labels: int
    n_label_queries: int

    def measured(self) -> Measured:
        """Return the values, query counts and systems a result is made of."""
        answered = pl.LazyFrame(
            {
                "system": [self.system],
                "n_answered": [self.n_answered],
                "n_run_queries_without_labels": [self.n_run_queries_without_labels],
            }
        )
        wide = self.values.lazy().with_columns(system=pl.lit(self.system, dtype=pl.String))
        return Measured(wide, answered, [self.system], self.n_label_queries)


@dataclass(frozen=True)
class SystemsValues:
    """Several systems' runs measured together (:meth:`FusedPlan.measure_systems`).

    ``counted`` has ``system, query_id``, each metric's value by query id, and each
    row's system's count of rankings; ``systems`` are the systems in the order given,
    ``n_label_queries`` counts the labelled queries.
    """

    counted: pl.DataFrame = field(repr=False)
    systems: tuple[str, ...]
    n_label_queries: int

    @property
    def values(self) -> pl.DataFrame:
        """``system, query_id`` and each metric's value, by query id."""
        return self.counted.drop(_RANKINGS)

    def measured(self) -> Measured:
        """Return the values, query counts and systems a result is made of."""
        return Measured(
            self.values.lazy(), self.answered(), list(self.systems), self.n_label_queries
        )

    def answered(self) -> pl.LazyFrame:
        """Plan ``system, n_answered, n_run_queries_without_labels``, systems as given.

        A system's rankings are its distinct queries (a dict's keys); those with a
        row in ``values`` have labels.
        """
        answered = (
            self.counted.lazy()
            .group_by("system")
            .agg(pl.len().cast(pl.Int64).alias("n_answered"), pl.col(_RANKINGS).first())
        )
        order = pl.LazyFrame({"system": list(self.systems)}, schema={"system": pl.String})
        return order.join(answered, on="system", how="left", maintain_order="left").select(
            "system",
            "n_answered",
            (pl.col(_RANKINGS) - pl.col("n_answered")).alias("n_run_queries_without_labels"),
        )


@dataclass(frozen=True)
class FusedPlan:
    """What a prepared evaluator measures every run with, built once.

    ``labels`` are the prepared labels with the statistics their rows need
    (``label_stats_on_rows``) joined on, so a run's labelled rows need one join, in
    query order; ``stats`` the per-query label statistics, ``label_queries`` their query
    ids (as one list, the literal each call's check reads);
    ``fills`` give a ranking without labelled rows (or an unanswered query) the empty
    values, and ``values`` are the metrics' expressions, in the order asked.
    ``spans`` give each labelled query's first row in ``labels`` and its row count,
    ``stats_rows`` its row in ``stats``: a run whose query ids are known is joined
    with its queries' rows only (:meth:`for_queries`), so a call's cost follows the
    run, not the label table.
    """

    labels: pl.DataFrame
    stats: pl.DataFrame
    label_queries: pl.Series
    fills: list[pl.Expr]
    values: list[pl.Expr]
    spans: dict[str, tuple[int, int]]
    stats_rows: dict[str, int]
    # What a plain dict run is measured with (:meth:`measure_mapping`); None: not taken.
    mappings: MappingPlan | None = None

    @staticmethod
    def planned_labels(
        plan: EvaluationPlan, labels: pl.LazyFrame, stats: pl.LazyFrame
    ) -> list[pl.LazyFrame] | None:
        """Plan the fused plan's label tables; None when it cannot take the plan.

        ``labels`` and ``stats`` are the prepared labels, in (query, doc) order, and
        their statistics: lazy, so that the tables are collected with them (a one-shot
        call's labels: :func:`~rankset.evaluation._kernel_labels.prepare_labels`' ``also``).
        The plan is then still measured by the general kernel for options that count
        or drop rows on the way (``duplicates`` other than ``"error"``,
        ``ignore_identical_ids``) or columns joined from elsewhere than the run.
        """
        features, options = plan.features, plan.options
        external = set(features.empty_values) - set(features.aggregations)
        if options.duplicates != "error" or options.ignore_identical_ids or external - {NUM_RET}:
            return None
        on_rows = sorted(features.label_stats_on_rows)
        planned = labels.with_columns(_pair_hash().alias(_PAIR))
        if on_rows:
            planned = planned.join(
                stats.select("query_id", *on_rows),
                on="query_id",
                how="left",
                maintain_order="left",
            )
        return [planned, labels.group_by("query_id", maintain_order=True).len()]

    @classmethod
    def prepare(
        cls,
        plan: EvaluationPlan,
        prepared: PreparedLabels,
        tables: list[pl.DataFrame] | None = None,
    ) -> FusedPlan | None:
        """Return the fused plan of a prepared evaluator; None when it cannot take one.

        ``tables``: :meth:`planned_labels`' frames, collected with the labels; else
        they are planned on ``prepared`` and collected here.
        """
        if tables is None:
            planned = cls.planned_labels(plan, prepared.frame.lazy(), prepared.stats.lazy())
            if planned is None:
                return None
            # One query for both: each eager step would cost more than its rows.
            tables = pl.collect_all(planned, engine="in-memory", optimizations=_NO_OPTIMIZATIONS)
        if prepared.stats.height == 0:
            return None
        features = plan.features
        labels, counts = tables
        fills = [
            pl.col(name).fill_null(value)
            for name, value in features.empty_values.items()
            if value is not None
        ]
        queries = prepared.stats["query_id"].implode()
        starts = counts["len"].cum_sum() - counts["len"]
        spans = dict(
            zip(
                counts["query_id"].to_list(),
                zip(starts.to_list(), counts["len"].to_list(), strict=True),
                strict=True,
            )
        )
        stats_rows = {query: row for row, query in enumerate(prepared.stats["query_id"])}
        values = plan.value_columns()
        return cls(
            labels,
            prepared.stats,
            queries,
            fills,
            values,
            spans,
            stats_rows,
            MappingPlan.prepare(plan, (labels, prepared.stats)),
        )

    def for_queries(
        self, queries: tuple[str, ...] | None
    ) -> tuple[pl.DataFrame, pl.DataFrame, pl.Series]:
        """Return the labels, statistics and labelled query ids of these queries only.

        All of them when ``queries`` is None (not known). A query without labels has
        no rows; the rows keep the tables' order (by query).
        """
        if queries is None:
            return self.labels, self.stats, self.label_queries
        rows = sorted(self.stats_rows[query] for query in queries if query in self.stats_rows)
        if len(rows) == self.stats.height:  # every labelled query: the whole tables
            return self.labels, self.stats, self.label_queries
        spans = sorted(self.spans[query] for query in queries if query in self.spans)
        if len(spans) == 1:
            labels = self.labels.slice(*spans[0])
        else:
            starts = pl.Series([start for start, _ in spans], dtype=pl.Int64)
            ends = starts + pl.Series([length for _, length in spans], dtype=pl.Int64)
            labels = self.labels[pl.int_ranges(starts, ends, eager=True).explode()]
        stats = self.stats[pl.Series(rows, dtype=pl.Int64)]
        return labels, stats, stats["query_id"].implode()

    def measure_mapping(self, run: Any, system: str) -> FusedValues | None:
        """Return the values of a plain dict run (:class:`MappingPlan`); None if unfit."""
        found = None if self.mappings is None else self.mappings.measure(run, system, self)
        if found is None:
            return None
        return FusedValues(
            found.values,
            system,
            found.n_answered,
            found.n_run_queries_without_labels,
            self.stats.height,
        )

    def measure(self, plan: EvaluationPlan) -> FusedValues | None:
        """Return the run's values and query counts.

        ``plan`` is this plan with one run read (:func:`rankset.evaluation._plan.with_runs`).
        None when the run is not one system's in memory, or when its checks find
        anything to refuse, warn about or name: the general kernel measures it then.
        """
        runs = plan.runs
        # "in-memory": a run held in memory, up to SMALL_RUN_ROWS rows under "auto".
        if len(runs.inputs) != 1 or plan.engine != "in-memory":
            return None
        part = runs.inputs[0]
        several = part.systems is not None and len(part.systems) > 1
        if part.scan is not None or part.dataset_buckets is not None or several:
            return None
        # Every labelled query is scored under missing="zero": its statistics are needed.
        wanted = None if plan.options.missing == "zero" else self._run_queries(part)
        labels, stats, label_queries = self.for_queries(wanted)
        counted = self._known_queries(part)
        checks = [row_checks(runs, part)]
        if counted is None:
            checks.append(self._queries(part, label_queries))
        collected = self._collected(plan, part, (labels, stats), checks)
        if collected is None:
            return None
        values, found = collected
        if counted is None:
            counted = (found.pop(_SYSTEM), found.pop(_LABELLED), found.pop(_UNLABELLED))
        system, labelled, unlabelled = counted
        matched = _matched(values)
        if not labelled or any(found.values()) or matched is None:
            return None
        return FusedValues(matched, system, labelled, unlabelled, self.stats.height)

    def measure_systems(self, plan: EvaluationPlan) -> SystemsValues | None:
        """Return the values of several runs read together, and their query counts.

        Taken for a mapping of dict runs or frames read as one (their reader knows the
        systems, in order), under the default query policy: one collect for every
        system, as :meth:`measure` does for one. None when the runs
        are not such, when a check finds anything, or when a system answers no labelled
        query: the general kernel measures them then, and says what it found.
        """
        runs = plan.runs
        if len(runs.inputs) != 1 or plan.engine != "in-memory" or plan.options.missing != "skip":
            return None
        part = runs.inputs[0]
        systems = part.systems
        if systems is None or part.scan is not None or part.dataset_buckets is not None:
            return None
        known = part.query_ids is not None and all(map(plain_id, part.query_ids))
        labels, stats, _ = self.for_queries(self._run_queries(part))
        checks = [row_checks(runs, part)]
        if not known:  # the ids' problems, counted on each ranking's first row
            checks.append(self._query_problems(part))
        collected = self._collected(plan, part, (labels, stats), checks, several=True)
        if collected is None:
            return None
        values, found = collected
        counted = _matched(values)
        if any(found.values()) or counted is None or counted["system"].n_unique() != len(systems):
            return None
        return SystemsValues(counted, systems, self.stats.height)

    def _collected(
        self,
        plan: EvaluationPlan,
        part: RunPart,
        tables: tuple[pl.DataFrame, pl.DataFrame],
        checks: list[pl.LazyFrame],
        *,
        several: bool = False,
    ) -> tuple[pl.DataFrame, dict[str, Any]] | None:
        """Collect the run's values (:meth:`_values`) with ``checks``, in one query.

        Returns the values and every check's counts by name; None when Polars raises
        (the general kernel names what went wrong). A run whose reader did not number
        its rankings is numbered by its blocks of equal ids when it has
        :data:`_BLOCKS_FROM_ROWS` rows or more and no ranking is split over two blocks
        (:func:`_split_rankings`, a query over the blocks' first rows), else by the
        rankings' ids.
        """
        try:
            blocks = _numbered_by_blocks(part)
            planned = [self._values(plan, part, *tables, several=several, blocks=blocks)]
            values, *counts = pl.collect_all(
                [*planned, *checks], engine=SMALL_ENGINE, optimizations=_NO_OPTIMIZATIONS
            )
        except pl.exceptions.PolarsError:
            return None
        found: dict[str, Any] = {}
        for count in counts:
            found |= count.row(0, named=True)
        return values, found

    def _values(
        self,
        plan: EvaluationPlan,
        part: RunPart,
        labels_frame: pl.DataFrame,
        stats: pl.DataFrame,
        *,
        several: bool = False,
        blocks: bool = False,
    ) -> pl.LazyFrame:
        """Plan the values of one system's run: the kernel's steps, in one query.

        ``labels_frame`` and ``stats`` are :meth:`for_queries`' (the run's queries').

        Rankings are told apart by the number of each row's ranking when the reader
        gives it (a large dict), or with ``blocks`` by the number of each row's block
        of equal ids (the caller checks that no ranking is split), else by their ids: a
        sorted integer is quicker to partition, sort and group by than two strings.
        """
        features = plan.features
        length = pl.len().cast(pl.Float64).alias(NUM_RET)
        labels = labels_frame.lazy()
        # In (ranking, position) order: every aggregation adds its rows in rank order.
        row_columns = features.row_columns
        aggregations = list(features.aggregations.values())
        numbered_rows = blocks or part.ranking_numbers is not None
        if not numbered_rows:
            group = list(GROUP)
            numbered = plan.runs.numbered(part).select(*GROUP, "doc_id", "pos")
            lengths = part.rows(None).group_by(group).agg(length)
            if several:  # each system's rankings, counted before the unlabelled go
                lengths = lengths.with_columns(pl.len().over("system").alias(_RANKINGS))
            rows = numbered.join(labels, on=["query_id", "doc_id"]).sort(
                *group, "pos", maintain_order=True
            )
        else:
            group = [_RANKING]
            cast, key = plan.runs.cast(part, None)
            if part.ranking_numbers is None:  # no ranking is longer than the run
                ranking = (~same_ranking_as_previous_row(one_system=False)).cum_sum()
                rows_in_run = (part.profile or {}).get("n_rows")
                deepest = rows_in_run if isinstance(rows_in_run, int) else POSITIONS_BELOW
            else:
                ranking = pl.lit(part.ranking_numbers)
                deepest = _longest_block(part.ranking_numbers)
            cast = cast.with_columns(ranking.alias(_RANKING))
            # A ranking's rows are one block (the numbers are sorted) and its other
            # columns are constant: its document ids sorted within it, best first, rank
            # it, at half the cost of sorting every column of every row. Each row's
            # position is then its place in its block; the join keeps the order.
            best_first = pl.col("doc_id").sort_by(key, "doc_id", descending=True)
            numbered = cast.select(
                _RANKING,
                *GROUP,
                best_first.over(_RANKING),
                (pl.int_range(pl.len(), dtype=pl.Int64) + 1).over(_RANKING).alias("pos"),
            )
            kept = GROUP if several else ("query_id",)
            lengths = cast.group_by(group).agg(pl.col(*kept).first(), length)
            if several:  # each system's rankings, counted before the unlabelled go
                lengths = lengths.with_columns(pl.len().over("system").alias(_RANKINGS))
            # Joined on one 64-bit hash of the pair rather than two strings (40% less);
            # each joined row's ids are compared, and a row that differs (a collision)
            # sends the run to the general kernel (:func:`_matched`).
            keyed = numbered.with_columns(_pair_hash().alias(_PAIR))
            rows = keyed.join(labels, on=_PAIR, maintain_order="left", suffix=_LABELLED_AS)
            mismatched = pl.col("query_id").ne(pl.col("query_id" + _LABELLED_AS)) | pl.col(
                "doc_id"
            ).ne(pl.col("doc_id" + _LABELLED_AS))
            aggregations.append(mismatched.sum().alias(_MISMATCHED))
            if deepest < POSITIONS_BELOW:  # log2(pos + 1) read from its table
                row_columns = with_positions_below(row_columns, deepest)
        for expr in row_columns.values():
            rows = rows.with_columns(expr)
        aggregated = rows.group_by(group).agg(aggregations)
        if plan.options.missing == "zero":  # every labelled query, answered or not
            scored = stats.lazy().join(lengths, on="query_id", how="left", maintain_order="left")
        else:  # the labelled queries the run answers
            scored = lengths.join(stats.lazy(), on="query_id", maintain_order="left")
        return (
            scored.join(aggregated, on=group, how="left", maintain_order="left")
            .with_columns(self.fills)
            .select(
                *(GROUP if several else ("query_id",)),
                *([QUERY_K] if features.uses_query_k else []),
                *self.values,
                *([_RANKINGS] if several else []),
                *([_MISMATCHED] if numbered_rows else []),
            )
            .sort("query_id", maintain_order=True)
        )

    def _run_queries(self, part: RunPart) -> tuple[str, ...] | None:
        """Return the run's distinct query ids: its reader's, or read when labels are many.

        A frame's ids are read by a Polars query of their own, which costs less than
        joining with every label only past :data:`_SLICED_FROM_ROWS` label rows.
        """
        if part.query_ids is not None or self.labels.height < _SLICED_FROM_ROWS:
            return part.query_ids
        ids = part.rows(None).select(pl.col("query_id").cast(pl.String).unique())
        found = ids.collect(engine=SMALL_ENGINE, optimizations=_NO_OPTIMIZATIONS)
        return tuple(found["query_id"].drop_nulls().to_list())

    def _known_queries(self, part: RunPart) -> tuple[str, int, int] | None:
        """Count what :meth:`_queries` counts, from a run whose query ids its reader knows.

        The system, the distinct queries with labels and without; None when the ids
        are not known, the run has no one name, or an id may be unusable (the general
        kernel then names it): a dict's keys need no Polars query.
        """
        queries, system = part.query_ids, part.name
        if queries is None or system is None or not all(map(plain_id, queries)):
            return None
        labelled = sum(query in self.stats_rows for query in queries)
        return system, labelled, len(queries) - labelled

    def _query_problems(self, part: RunPart) -> pl.LazyFrame:
        """One row: the count of each query id problem, read as :meth:`_queries` reads them."""
        return _ranking_starts(part).select(*count_problems(id_problems("query_id")))

    def _queries(self, part: RunPart, label_queries: pl.Series) -> pl.LazyFrame:
        """One row: query id problems and other systems (counts), the system, the queries.

        Read on the first row of each block of equal ids (one per ranking when rankings
        are contiguous, as a dict's are): every distinct id and system is read at least
        once. The run's distinct queries are counted with labels and without.
        """
        query, system = pl.col("query_id"), pl.col("system")
        labelled = query.unique().is_in(label_queries)
        return _ranking_starts(part).select(
            *count_problems(id_problems("query_id")),
            (system.n_unique() - 1).alias("other systems"),
            system.first().alias(_SYSTEM),
            labelled.sum().alias(_LABELLED),
            (~labelled).sum().alias(_UNLABELLED),
        )


def _longest_block(numbers: pl.Series) -> int:
    """Return the length of the longest block of equal values in sorted ``numbers``.

    Examples
    --------
    >>> _longest_block(pl.Series([0, 0, 2, 2, 2, 7]))
    3
    """
    import numpy as np  # a core dependency, loaded with the runs that carry numbers

    values = numbers.to_numpy()
    if len(values) == 0:
        return 0
    edges = np.flatnonzero(values[1:] != values[:-1]) + 1
    return int(np.diff(edges, prepend=0, append=len(values)).max())


def _ranking_starts(part: RunPart) -> pl.LazyFrame:
    """Plan the first row of each block of equal ids (one per ranking when contiguous)."""
    return part.rows(None).filter(~same_ranking_as_previous_row(one_system=False))


def _numbered_by_blocks(part: RunPart) -> bool:
    """Whether a run is numbered by its blocks of equal ids (:meth:`FusedPlan._values`).

    A run its reader did not number, of :data:`_BLOCKS_FROM_ROWS` rows or more (a small
    run's ids cost less to rank by than a query more), none of whose rankings is split
    over two blocks (:func:`_split_rankings`, collected here).
    """
    rows = (part.profile or {}).get("n_rows")
    if part.ranking_numbers is not None or rows is None or rows < _BLOCKS_FROM_ROWS:
        return False
    split = _split_rankings(part).collect(engine=SMALL_ENGINE, optimizations=_NO_OPTIMIZATIONS)
    return not split.item()


def _split_rankings(part: RunPart) -> pl.LazyFrame:
    """One row: the count of blocks of equal ids beyond one per ranking (0: none split)."""
    return _ranking_starts(part).select((pl.len() - pl.struct(*GROUP).n_unique()).alias(_SPLIT))


def _pair_hash() -> pl.Expr:
    """Return each row's ``(query_id, doc_id)`` hash, for a join on one integer."""
    return pair_hash(pl.col("query_id"), pl.col("doc_id"))


def _matched(values: pl.DataFrame) -> pl.DataFrame | None:
    """Return the values without their count of mismatched rows; None if any mismatched.

    Rankings joined on the pair hash count the joined rows whose ids are not the
    label's (a collision of two pairs' hashes); frames joined on the ids have none.
    """
    if _MISMATCHED not in values.columns:
        return values
    if values[_MISMATCHED].sum():
        return None
    return values.drop(_MISMATCHED)
