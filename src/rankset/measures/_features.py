"""The generic machinery that metric expressions are built with: :class:`Features`.

An evaluation runs over one joined frame with a row per retrieved document that has a
label: ``system, query_id, doc_id, pos`` (1-based position after the ordering rule) and
``grade``, plus per-query label statistics joined on ``query_id``. Documents without a
label add nothing to any sum, count or minimum a measure needs, so they are left out:
only the number of documents retrieved (:data:`NUM_RET`) looks at every row, and the
evaluation counts it in its pass over the whole run. Every row feature must keep that
property: it may depend on labelled rows only.

Measures do not touch that frame directly: they register *features* on a
:class:`Features` object (``relevant retrieved within the cutoff``, ``DCG at k``,
``number of relevant labels``...) and combine the columns they get back. Each feature is
registered once under a name that encodes its parameters, so ten metrics needing the
same count share one column, and the whole evaluation stays a single lazy group-by over
``(system, query_id)``. A name is an identity: registering a *different* expression
under a name already taken raises :class:`FeatureConflictError`.

Four kinds of columns are collected:

* row columns, added to the joined frame before the group-by (``_rel_1``: grade >= 1);
* aggregations, one per ``(system, query_id)`` group (``_relret_1_10``), each with the
  value it takes for a query the system did not answer;
* label row columns and label aggregations, one per query over the labels (``_nrel_1``,
  ``_idcg_lin_10``);
* columns the evaluation computes outside the group-by and joins in (:data:`NUM_RET`,
  the first position containing an answer).

A measure's final value is an expression over the aggregated and label columns. The
features themselves live next to the measures that use them
(:mod:`rankset.measures.ranking`, :mod:`rankset.measures.rag`).

Floating-point arithmetic follows trec_eval's, so a value has the same bits whatever else
is computed and whatever the input order (the rule, stated once):

* a sum adds its terms one by one in rank order (ideal rank order for label sums), as
  trec_eval's loops do (:func:`sequential_sum`); the evaluation gives the rows in that
  order;
* a ratio is a true division, also by a constant cutoff (``P@k = rel / k``, not
  ``rel * (1 / k)``): :meth:`Features.cutoff_value` is a column for that reason;
* the DCG discount ``log2(position + 1)`` is the C library's ``log2``
  (:func:`log2_of_positions`), not ``ln(x) / ln(2)``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, Protocol

import polars as pl

from rankset.errors import RanksetError
from rankset.measures.scales import GradeScale, resolve_scale

__all__ = [
    "GROUP",
    "NUM_RET",
    "PER_QUERY",
    "POSITIONS_BELOW",
    "QUERY_K",
    "FeatureConflictError",
    "Features",
    "MetricView",
    "level_key",
    "log2_of_positions",
    "ratio_or_zero",
    "sequential_sum",
    "with_positions_below",
]

#: The group-by key of every evaluation.
GROUP = ("system", "query_id")

#: Documents retrieved per (system, query), full depth: counted over every run row.
NUM_RET = "_num_ret"

#: Column holding the per-query cutoff (cutoffs table, then ``k=``, then the default).
QUERY_K = "_k"

#: The cutoff value that means "resolve k per query" (cutoffs table, then ``k=``, then 5).
PER_QUERY: Literal["k"] = "k"

Reducer = Literal["sum", "min"]


class FeatureConflictError(RanksetError):
    """Two different expressions were registered under one feature name.

    Feature names are identities (metrics share a column by asking for the same name), so
    a name must encode everything that makes its expression differ.
    """


class MetricView(Protocol):
    """What :class:`Features` reads of a metric; :class:`rankset.measures.Metric` has it."""

    @property
    def name(self) -> str:
        """Canonical printed form, for messages."""
        ...

    @property
    def k(self) -> int | Literal["k"] | None:
        """The cutoff: an int, :data:`PER_QUERY`, or None for the full ranking."""
        ...

    @property
    def rel(self) -> float | None:
        """The metric's own relevance level, or None to use the evaluation's."""
        ...


def level_key(level: float) -> str:
    """Spell a relevance level for a feature name: ``1`` -> ``"1"``, ``0.5`` -> ``"0p5"``.

    Examples
    --------
    >>> level_key(1.0), level_key(0.5), level_key(-1)
    ('1', '0p5', 'm1')
    """
    return f"{level:g}".replace(".", "p").replace("-", "m")


def _materialized(values: pl.Series) -> pl.Series:
    """Return ``values`` as an array of floats, whatever form Polars held them in."""
    return values.cast(pl.Float64).rechunk()


@dataclass
class Features:
    """Collects the columns a set of metrics needs; see the module docstring.

    The evaluation reads the collected dicts and flags; measures fill them through the
    methods below (and set :attr:`uses_tiers` / :attr:`containment_modes` when they need
    grade tiers or answer matching).

    Parameters
    ----------
    relevance_level
        Grade at or above which a document counts as relevant for binary measures,
        unless a metric sets its own ``rel`` parameter.
    scale
        How grades map to tiers 5..1 (the RAG set metrics).
    pool_depth
        The default PROC pool stops at this position (None: everything retrieved).
    """

    relevance_level: float = 1.0
    scale: GradeScale = field(default_factory=lambda: resolve_scale("rag5"))
    pool_depth: int | None = None
    row_columns: dict[str, pl.Expr] = field(default_factory=dict)
    aggregations: dict[str, pl.Expr] = field(default_factory=dict)
    # value an aggregation takes for a query the system did not answer (missing="zero")
    empty_values: dict[str, float | None] = field(default_factory=dict)
    label_row_columns: dict[str, pl.Expr] = field(default_factory=dict)
    label_aggregations: dict[str, pl.Expr] = field(default_factory=dict)
    # label aggregations that must also be visible on run rows
    label_stats_on_rows: set[str] = field(default_factory=set)
    uses_query_k: bool = False
    # Cutoff-dependent aggregations of per-query-k metrics, as (per-row contribution,
    # reducer): a cumulative sum (or min) over positions then gives every k in one pass
    # (metric-vs-k curves). Label-side likewise, over ideal positions.
    cumulative: dict[str, tuple[pl.Expr, str]] = field(default_factory=dict)
    label_cumulative: dict[str, pl.Expr] = field(default_factory=dict)
    uses_tiers: bool = False
    # containment modes asked for ("exact", "casefold", "whitespace")
    containment_modes: set[str] = field(default_factory=set)
    # counts of the nugget pass, by column: (kind, cutoff, alpha, beta)
    # (rankset.measures.nuggets)
    nugget_columns: dict[str, tuple[str, int, float | None, float | None]] = field(
        default_factory=dict
    )

    def copy(self) -> Features:
        """Return a copy whose registries fill without touching this one's."""
        registries: dict[str, Any] = {
            item.name: type(value)(value)
            for item in fields(self)
            if isinstance(value := getattr(self, item.name), dict | set)
        }
        return replace(self, **registries)

    # --- parameters ------------------------------------------------------------------

    def level(self, metric: MetricView) -> float:
        """Relevance level of ``metric``: its ``rel`` parameter, else the evaluation's."""
        value = metric.rel
        return self.relevance_level if value is None else float(value)

    def cutoff(self, metric: MetricView) -> pl.Expr | None:
        """Return the cutoff as an expression (literal or per-query column), or ``None``."""
        if metric.k is None:
            return None
        if metric.k == PER_QUERY:
            self.uses_query_k = True
            self.label_stats_on_rows.add(QUERY_K)
            return pl.col(QUERY_K)
        return pl.lit(metric.k, dtype=pl.Int64)

    def cutoff_value(self, metric: MetricView) -> pl.Expr:
        """Return the cutoff as a float column for final formulas (P@k = x / k).

        A constant cutoff is made a full column (``num_ret * 0 + k``; ``num_ret`` is a
        finite count): Polars divides by a constant by multiplying with its reciprocal
        (7 * 0.1 = 0.7000000000000001) where trec_eval divides (7 / 10 = 0.7), and it
        keeps a literal, even one aggregated per query, as a constant.
        """
        cutoff = self.cutoff(metric)
        if cutoff is None:
            msg = f"{metric.name} has no cutoff"
            raise ValueError(msg)
        column = (
            cutoff.cast(pl.Float64)  # the per-query column
            if not isinstance(metric.k, int)
            else self.num_ret() * 0.0 + float(metric.k)
        )
        # Polars may also hold a column whose values are all equal as one scalar (a
        # concatenation of one-row frames, each a bucket's only query, gave one), and
        # divides by it as by a constant; a column handed back from Python never is.
        return column.map_batches(_materialized, return_dtype=pl.Float64)

    @staticmethod
    def cutoff_key(metric: MetricView) -> str:
        """Spell the cutoff for a feature name: ``"10"``, ``"k"`` or ``"all"``."""
        return "all" if metric.k is None else str(metric.k)

    def within(self, metric: MetricView) -> pl.Expr:
        """Whether a run row's position is within the metric's cutoff."""
        cutoff = self.cutoff(metric)
        return pl.lit(True) if cutoff is None else pl.col("pos") <= cutoff

    # --- registration ----------------------------------------------------------------

    def row_column(self, name: str, expr: pl.Expr) -> str:
        """Add ``expr`` (aliased ``name``) to the labelled run rows; return ``name``."""
        _claim("row column", self.row_columns, name, expr.alias(name))
        return name

    def label_row_column(self, name: str, expr: pl.Expr) -> str:
        """Add ``expr`` (aliased ``name``) to the label rows; return ``name``."""
        _claim("label row column", self.label_row_columns, name, expr.alias(name))
        return name

    def aggregate(self, name: str, expr: pl.Expr, *, empty: float | None = 0.0) -> pl.Expr:
        """Register a per-(system, query) aggregation and its value for an unanswered query.

        ``empty`` is also what a ranking without any labelled document gets (0 for sums,
        None for minima).
        """
        _claim("aggregation", self.aggregations, name, expr.alias(name))
        self._empty(name, empty)
        return pl.col(name)

    def aggregate_within_cutoff(
        self, name: str, contribution: pl.Expr, metric: MetricView, *, reducer: Reducer = "sum"
    ) -> pl.Expr:
        """Register ``reducer`` (sum or min) of a per-row contribution within the cutoff.

        A ``min`` contribution is null on rows that do not count. For a per-query cutoff
        the contribution is also kept in :attr:`cumulative`, so metric-vs-k curves get
        every k from one cumulative pass.
        """
        contribution = contribution.cast(pl.Float64)
        kept = contribution.filter(self.within(metric))
        if metric.k == PER_QUERY:
            _claim_pair(self.cumulative, name, (contribution, reducer))
        if reducer == "min":
            return self.aggregate(name, kept.min(), empty=None)
        return self.aggregate(name, sequential_sum(kept))

    def label_aggregate(self, name: str, expr: pl.Expr) -> pl.Expr:
        """Register a per-query aggregation over the labels; return its column."""
        _claim("label aggregation", self.label_aggregations, name, expr.alias(name))
        return pl.col(name)

    def label_sum_within_cutoff(
        self, name: str, contribution: pl.Expr, metric: MetricView, *, position: str
    ) -> pl.Expr:
        """Register the sum over label rows whose ``position`` column is within the cutoff.

        For a per-query cutoff the contribution is also kept in :attr:`label_cumulative`.
        """
        cutoff = self.cutoff(metric)
        within = pl.lit(True) if cutoff is None else pl.col(position) <= cutoff
        if metric.k == PER_QUERY:
            _claim("label cumulative", self.label_cumulative, name, contribution)
        # Label rows come in (query, doc) order: the sum runs in `position` order.
        in_order = contribution.filter(within).sort_by(pl.col(position).filter(within))
        return self.label_aggregate(name, sequential_sum(in_order))

    def share_with_rows(self, *names: str) -> None:
        """Make label aggregations visible on the run rows (joined on ``query_id``)."""
        self.label_stats_on_rows.update(names)

    def external(self, name: str, *, empty: float | None) -> pl.Expr:
        """Declare a per-(system, query) column the evaluation computes outside the group-by.

        Registers the value it takes for an unanswered query and returns the column.
        """
        self._empty(name, empty)
        return pl.col(name)

    def num_ret(self) -> pl.Expr:
        """Count the documents retrieved (full depth); always provided by the evaluation."""
        return self.external(NUM_RET, empty=0.0)

    def _empty(self, name: str, empty: float | None) -> None:
        if name in self.empty_values and self.empty_values[name] != empty:
            msg = (
                f"The feature {name!r} is registered with two empty values: "
                f"{self.empty_values[name]!r} and {empty!r}."
            )
            raise FeatureConflictError(msg)
        self.empty_values.setdefault(name, empty)


def _claim(kind: str, store: dict[str, pl.Expr], name: str, expr: pl.Expr) -> None:
    """Store ``expr`` under ``name``, sharing an equal one and refusing a different one."""
    registered = store.get(name)
    if registered is None:
        store[name] = expr
    elif not registered.meta.eq(expr):
        raise FeatureConflictError(_conflict_message(kind, name, registered, expr))


def _claim_pair(
    store: dict[str, tuple[pl.Expr, str]], name: str, pair: tuple[pl.Expr, str]
) -> None:
    registered = store.get(name)
    if registered is None:
        store[name] = pair
    elif registered[1] != pair[1] or not registered[0].meta.eq(pair[0]):
        raise FeatureConflictError(
            _conflict_message("cumulative contribution", name, registered, pair)
        )


def _conflict_message(kind: str, name: str, registered: object, new: object) -> str:
    return (
        f"Two different expressions claim the {kind} {name!r}:\n"
        f"  registered: {registered}\n"
        f"  new:        {new}\n"
        "A feature name must encode everything its expression depends on; give the new "
        "one its own name."
    )


def sequential_sum(terms: pl.Expr) -> pl.Expr:
    """Add ``terms`` one by one, in their order, as a C loop does (null when empty).

    Polars' ``sum`` adds in blocks and lanes (faster, and not the loop's bits); the last
    running sum is the loop's result.

    Examples
    --------
    >>> terms = [0.1] * 3 + [1e16, 1.0, -1e16]
    >>> pl.DataFrame({"x": terms}).select(sequential_sum(pl.col("x"))).item()
    0.0
    """
    return terms.cum_sum().last()


@functools.cache
def log2_of_positions(position: str) -> pl.Expr:
    """Return ``log2(position + 1)`` of a column as C's ``log2`` computes it (trec_eval's).

    ``ln(x) / ln(2)``, Polars' ``log(2)``, differs from ``log2(x)`` in the last bit for
    many integers; positions are few distinct integers, so each is computed once by
    :func:`math.log2`. One expression per column (cached), so features that share it
    compare equal.

    Examples
    --------
    >>> frame = pl.DataFrame({"pos": [1, 2, 3, 2]})
    >>> frame.select(log2_of_positions("pos"))["pos"].to_list()
    [1.0, 1.584962500721156, 2.0, 1.584962500721156]
    """
    return pl.col(position).map_batches(
        _log2_plus_one, return_dtype=pl.Float64, is_elementwise=True
    )


def _log2_plus_one(positions: pl.Series) -> pl.Series:
    low, high = positions.min(), positions.max()
    if (
        positions.dtype.is_integer()
        and isinstance(low, int)
        and isinstance(high, int)
        and low >= 0
        and high < _LOG2_TABLE_LIMIT
    ):
        # Looked up by position in a table computed once: no hashing, no Python per row.
        return _log2_table(high).gather(positions).rename(positions.name)
    distinct = positions.unique().drop_nulls().to_list()
    table = {value: math.log2(value + 1) for value in distinct}
    return positions.replace_strict(table, default=None, return_dtype=pl.Float64)


# Integer positions below this read log2(position + 1) from a table (8 MB at most).
_LOG2_TABLE_LIMIT = 1 << 20
#: Runs whose rankings are all shorter than this may take :func:`with_positions_below`.
POSITIONS_BELOW = _LOG2_TABLE_LIMIT


def with_positions_below(
    row_columns: dict[str, pl.Expr], highest: int, position: str = "pos"
) -> dict[str, pl.Expr]:
    """Return row columns that read ``log2(position + 1)`` from the table without Python.

    :func:`log2_of_positions` calls Python on every chunk of a column; on a small frame
    of a few chunks that costs more than the rest of a with_columns (the chunks' calls
    wait on one another for the interpreter). When no position exceeds ``highest``
    (below :data:`POSITIONS_BELOW`, as the caller vouches: the run's positions, or the
    ideal ranking's ``_ipos`` of the labels), a row column that is exactly
    ``log2_of_positions(position)`` is replaced by a gather from the same table, built
    only as long as ``highest`` needs: the same doubles, read by Polars.

    Examples
    --------
    >>> columns = {"_discount": log2_of_positions("pos").alias("_discount")}
    >>> frame = pl.DataFrame({"pos": [1, 3]})
    >>> frame.select(*with_positions_below(columns, 3).values())["_discount"].to_list()
    [1.0, 2.0]
    """
    lookup = pl.lit(_log2_table(highest)).gather(pl.col(position))
    return {
        name: lookup.alias(name) if expr.meta.eq(log2_of_positions(position).alias(name)) else expr
        for name, expr in row_columns.items()
    }


_log2_table_kept: list[pl.Series] = []  # the largest table built, alone


def _log2_table(highest: int) -> pl.Series:
    """Return ``log2(i + 1)`` by :func:`math.log2` for ``i = 0 ..`` at least ``highest``."""
    if _log2_table_kept and (table := _log2_table_kept[0]).len() > highest:
        return table
    # Returned as built: another thread may replace the kept table meanwhile.
    size = max(1024, 1 << highest.bit_length())
    table = pl.Series([math.log2(i + 1) for i in range(size)], dtype=pl.Float64)
    _log2_table_kept[:] = [table]
    return table


def ratio_or_zero(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator``, or 0.0 where the denominator is 0 (trec_eval's rule)."""
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(0.0)
