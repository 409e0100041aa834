"""The shared building blocks that metric expressions are made of.

An evaluation runs over one joined frame with a row per retrieved document that has a
label: ``system, query_id, doc_id, pos`` (1-based position after the ordering rule) and
``grade``, plus per-query label statistics joined on ``query_id``. Documents without a
label add nothing to any sum, count or minimum a measure needs, so they are left out
(about 98% of the rows of a 1,000-deep run): only the number of documents retrieved
(:data:`NUM_RET`) looks at every row, and the evaluation counts it in its pass over the
whole run. Every row feature must keep that property: it may depend on labelled rows
only. Measures do not touch that frame directly: they ask a
:class:`PlanBuilder` for *features* (``relevant retrieved within the cutoff``, ``DCG at
k``, ``number of relevant labels``...). Each feature is registered once under a name that
encodes its parameters, so ten metrics needing the same count share one column, and the
whole evaluation stays a single lazy group-by over ``(system, query_id)``.

Three kinds of columns are collected:

* row columns, added to the joined frame before the group-by (``_rel_1``: grade >= 1);
* aggregations, one per ``(system, query_id)`` group (``_relret_1_10``);
* label aggregations, one per query over the labels (``_nrel_1``, ``_idcg_lin_10``).

A measure's final value is an expression over the aggregated and label columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from rankset.registry import PER_QUERY, Metric
from rankset.scales import TIERS, GradeScale, resolve_scale

__all__ = ["GROUP", "NUM_RET", "PlanBuilder", "ratio_or_zero"]

#: The group-by key of every evaluation.
GROUP = ("system", "query_id")

#: Documents retrieved per (system, query), full depth: counted over every run row.
NUM_RET = "_num_ret"

#: Column holding the per-query cutoff (cutoffs table, then ``k=``, then the default).
QUERY_K = "_k"


def _level_key(level: float) -> str:
    return f"{level:g}".replace(".", "p").replace("-", "m")


@dataclass
class PlanBuilder:
    """Collects the columns a set of metrics needs; see the module docstring.

    Parameters
    ----------
    relevance_level
        Grade at or above which a document counts as relevant for binary measures,
        unless a metric sets its own ``rel`` parameter.
    """

    relevance_level: float = 1.0
    scale: GradeScale = field(default_factory=lambda: resolve_scale("rag5"))
    # The default PROC pool stops at this position (None: everything retrieved).
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

    # --- parameters ------------------------------------------------------------------

    def level(self, metric: Metric) -> float:
        """Relevance level of ``metric``: its ``rel`` parameter, else the evaluation's."""
        value = metric.get("rel") if "rel" in {p.name for p in metric.spec.params} else None
        return self.relevance_level if value is None else float(value)

    def cutoff(self, metric: Metric) -> pl.Expr | None:
        """Return the cutoff as an expression (literal or per-query column), or ``None``."""
        if metric.k is None:
            return None
        if metric.k == PER_QUERY:
            self.uses_query_k = True
            self.label_stats_on_rows.add(QUERY_K)
            return pl.col(QUERY_K)
        return pl.lit(metric.k, dtype=pl.Int64)

    @staticmethod
    def _cutoff_key(metric: Metric) -> str:
        return "all" if metric.k is None else str(metric.k)

    def _within(self, metric: Metric) -> pl.Expr:
        cutoff = self.cutoff(metric)
        return pl.lit(True) if cutoff is None else pl.col("pos") <= cutoff

    def _agg(self, name: str, expr: pl.Expr, empty: float | None = 0.0) -> pl.Expr:
        self.aggregations.setdefault(name, expr.alias(name))
        self.empty_values.setdefault(name, empty)
        return pl.col(name)

    def _cut_agg(
        self, name: str, contribution: pl.Expr, metric: Metric, *, reducer: str = "sum"
    ) -> pl.Expr:
        """Register ``reducer`` (sum or min) of a per-row contribution within the cutoff.

        A ``min`` contribution is null on rows that do not count.
        """
        contribution = contribution.cast(pl.Float64)
        kept = contribution.filter(self._within(metric))
        if metric.k == PER_QUERY:
            self.cumulative.setdefault(name, (contribution, reducer))
        if reducer == "min":
            return self._agg(name, kept.min(), empty=None)
        return self._agg(name, kept.sum())

    def _label_agg(self, name: str, expr: pl.Expr) -> pl.Expr:
        self.label_aggregations.setdefault(name, expr.alias(name))
        return pl.col(name)

    # --- row features ----------------------------------------------------------------

    def _relevant_row(self, level: float) -> str:
        name = f"_rel_{_level_key(level)}"
        self.row_columns.setdefault(name, (pl.col("grade") >= level).fill_null(False).alias(name))
        return name

    def _judged_row(self) -> str:
        # Negative grades mean "in the pool but unjudged" (trec_eval); null = not in labels.
        name = "_judged"
        self.row_columns.setdefault(name, (pl.col("grade") >= 0).fill_null(False).alias(name))
        return name

    def _relevant_so_far_row(self, level: float) -> str:
        rel = self._relevant_row(level)
        name = f"_cumrel_{_level_key(level)}"
        self.row_columns.setdefault(
            name,
            pl.col(rel).cast(pl.UInt32).cum_sum().over(GROUP, order_by="pos").alias(name),
        )
        return name

    def _nonrelevant_above_row(self, level: float) -> str:
        rel = self._relevant_row(level)
        judged = self._judged_row()
        name = f"_nonrel_above_{_level_key(level)}"
        judged_nonrel = (pl.col(judged) & ~pl.col(rel)).cast(pl.UInt32)
        self.row_columns.setdefault(
            name, judged_nonrel.cum_sum().over(GROUP, order_by="pos").alias(name)
        )
        return name

    def _gain_row(self, exponential: bool) -> str:
        name = "_gain_exp" if exponential else "_gain_lin"
        grade = pl.col("grade").fill_null(0.0)
        positive = pl.when(grade > 0).then(grade).otherwise(0.0)
        gain = (pl.lit(2.0).pow(positive) - 1.0) if exponential else positive
        self.row_columns.setdefault(name, gain.alias(name))
        return name

    # --- per-(system, query) features ------------------------------------------------

    def num_ret(self) -> pl.Expr:
        """Count the documents retrieved (full depth); always provided by the evaluation."""
        self.empty_values.setdefault(NUM_RET, 0.0)
        return pl.col(NUM_RET)

    def relevant_retrieved(self, metric: Metric) -> pl.Expr:
        """Count the relevant documents within the metric's cutoff."""
        level = self.level(metric)
        rel = self._relevant_row(level)
        name = f"_relret_{_level_key(level)}_{self._cutoff_key(metric)}"
        return self._cut_agg(name, pl.col(rel), metric)

    def judged_retrieved(self, metric: Metric) -> pl.Expr:
        """Count the judged documents (grade >= 0) within the metric's cutoff."""
        judged = self._judged_row()
        name = f"_judgedret_{self._cutoff_key(metric)}"
        return self._cut_agg(name, pl.col(judged), metric)

    def first_relevant_position(self, metric: Metric) -> pl.Expr:
        """Return the first relevant position within the cutoff (null if none)."""
        level = self.level(metric)
        rel = self._relevant_row(level)
        name = f"_firstrel_{_level_key(level)}_{self._cutoff_key(metric)}"
        first = pl.when(pl.col(rel)).then(pl.col("pos"))
        return self._cut_agg(name, first, metric, reducer="min")

    def precision_sum(self, metric: Metric) -> pl.Expr:
        """Sum of precision at each relevant position within the cutoff (AP numerator)."""
        level = self.level(metric)
        rel = self._relevant_row(level)
        cumrel = self._relevant_so_far_row(level)
        name = f"_precsum_{_level_key(level)}_{self._cutoff_key(metric)}"
        precision_here = pl.col(cumrel).cast(pl.Float64) / pl.col("pos").cast(pl.Float64)
        contribution = pl.when(pl.col(rel)).then(precision_here).otherwise(0.0)
        return self._cut_agg(name, contribution, metric)

    def dcg(self, metric: Metric, *, exponential: bool = False) -> pl.Expr:
        """DCG within the cutoff: gain / log2(position + 1), linear or 2^g - 1 gains."""
        gain = self._gain_row(exponential)
        kind = "exp" if exponential else "lin"
        name = f"_dcg_{kind}_{self._cutoff_key(metric)}"
        discount = (pl.col("pos").cast(pl.Float64) + 1.0).log(2)
        return self._cut_agg(name, pl.col(gain) / discount, metric)

    def relevant_within_r(self, metric: Metric) -> pl.Expr:
        """Relevant documents within the first R positions, R = number relevant (R-prec)."""
        level = self.level(metric)
        rel = self._relevant_row(level)
        num_rel = self._num_relevant_label_stat(level)
        self.label_stats_on_rows.add(num_rel)
        name = f"_relret_{_level_key(level)}_r"
        expr = (pl.col(rel) & (pl.col("pos") <= pl.col(num_rel))).sum().cast(pl.Float64)
        return self._agg(name, expr)

    def bpref_sum(self, metric: Metric) -> pl.Expr:
        """Sum over relevant retrieved docs of 1 - min(n, R) / min(N, R) (trec_eval bpref).

        ``n`` is the number of judged non-relevant documents ranked above, ``R`` the
        number of relevant and ``N`` of judged non-relevant labels of the query.
        """
        level = self.level(metric)
        rel = self._relevant_row(level)
        above = self._nonrelevant_above_row(level)
        num_rel = self._num_relevant_label_stat(level)
        num_nonrel = self._num_nonrelevant_label_stat(level)
        self.label_stats_on_rows.update({num_rel, num_nonrel})
        n = pl.col(above).cast(pl.Float64)
        big_r = pl.col(num_rel)
        big_n = pl.col(num_nonrel)
        term = (
            pl.when(n > 0)
            .then(1.0 - pl.min_horizontal(n, big_r) / pl.min_horizontal(big_n, big_r))
            .otherwise(1.0)
        )
        name = f"_bpref_{_level_key(level)}"
        return self._agg(name, term.filter(pl.col(rel)).sum())

    # --- tiers (RAG set metrics) ------------------------------------------------------

    def _tier(self, grade: pl.Expr) -> pl.Expr:
        self.uses_tiers = True
        # Negative grades are "in the pool but unjudged": no tier, whatever the scale says.
        return pl.when(grade >= 0).then(self.scale.tier_expr(grade)).alias("_tier")

    def _tier_row(self) -> str:
        self.row_columns.setdefault("_tier", self._tier(pl.col("grade")))
        return "_tier"

    def tier_count(self, tier: int) -> pl.Expr:
        """Count the query's labels of ``tier`` (negative grades excluded)."""
        self.label_row_columns.setdefault("_tier", self._tier(pl.col("grade")))
        name = f"_ntier_{tier}"
        return self._label_agg(name, (pl.col("_tier") == tier).sum().cast(pl.Float64))

    def tier_counts(self) -> dict[int, pl.Expr]:
        """Count the query's labels of every tier, ``{tier: expr}``."""
        return {tier: self.tier_count(tier) for tier in TIERS}

    def tiers_in_top(self, metric: Metric, lowest: int, highest: int = 5) -> pl.Expr:
        """Count documents within the cutoff whose tier is in ``lowest..highest``."""
        tier = pl.col(self._tier_row())
        name = f"_top_tier_{lowest}_{highest}_{self._cutoff_key(metric)}"
        return self._cut_agg(name, tier.is_between(lowest, highest).fill_null(False), metric)

    def untiered_in_top(self, metric: Metric) -> pl.Expr:
        """Count documents within the cutoff that have no tier (unlabelled or negative).

        Those are the documents within the cutoff, ``min(k, retrieved)``, less the tiered
        ones: unlabelled rows are not in the joined frame.
        """
        cutoff = self.cutoff(metric)
        retrieved = self.num_ret()
        within = retrieved if cutoff is None else pl.min_horizontal(cutoff, retrieved)
        tiered = self.tiers_in_top(metric, min(TIERS), max(TIERS))
        return within.cast(pl.Float64) - tiered

    def pool_tier_counts(self) -> dict[int, pl.Expr]:
        """Count the pool's documents of every tier (the pool: see :mod:`rankset.rag`).

        By default the pool of a (system, query) is everything the system retrieved for
        the query, or its first ``pool_depth`` documents; evaluation replaces these columns
        when a separate pool run is given.
        """
        tier = pl.col(self._tier_row())
        in_pool = pl.lit(True) if self.pool_depth is None else pl.col("pos") <= self.pool_depth
        return {
            t: self._agg(
                f"_pool_tier_{t}", ((tier == t) & in_pool).fill_null(False).sum().cast(pl.Float64)
            )
            for t in TIERS
        }

    # --- answers (containment) --------------------------------------------------------

    def first_containing_position(self, mode: str) -> pl.Expr:
        """Return the first position whose text contains an answer (null if none).

        Computed by a separate aggregation over (run text × answers) that the evaluation
        joins in; see :func:`rankset.evaluation`.
        """
        self.containment_modes.add(mode)
        name = f"_first_answer_{mode}"
        self.empty_values.setdefault(name, None)
        return pl.col(name)

    def num_answers(self) -> pl.Expr:
        """Count the acceptable answers of the query (0 when it has none)."""
        return pl.col("_n_answers").fill_null(0)

    # --- per-query label features ----------------------------------------------------

    def _num_relevant_label_stat(self, level: float) -> str:
        name = f"_nrel_{_level_key(level)}"
        self._label_agg(name, (pl.col("grade") >= level).sum().cast(pl.Float64))
        return name

    def _num_nonrelevant_label_stat(self, level: float) -> str:
        name = f"_nnonrel_{_level_key(level)}"
        grade = pl.col("grade")
        self._label_agg(name, ((grade >= 0) & (grade < level)).sum().cast(pl.Float64))
        return name

    def num_relevant(self, metric: Metric) -> pl.Expr:
        """Count the relevant labels of the query (grade >= level)."""
        return pl.col(self._num_relevant_label_stat(self.level(metric)))

    def ideal_dcg(self, metric: Metric, *, exponential: bool = False) -> pl.Expr:
        """DCG of the ideal ranking of all the query's labels, within the cutoff."""
        kind = "exp" if exponential else "lin"
        gain_name = f"_igain_{kind}"
        grade = pl.col("grade")
        positive = pl.when(grade > 0).then(grade).otherwise(0.0)
        gain = (pl.lit(2.0).pow(positive) - 1.0) if exponential else positive
        self.label_row_columns.setdefault(gain_name, gain.alias(gain_name))
        self.label_row_columns.setdefault(
            "_ipos",
            positive.rank("ordinal", descending=True).over("query_id").alias("_ipos"),
        )
        cutoff = self.cutoff(metric)
        within = pl.lit(True) if cutoff is None else pl.col("_ipos") <= cutoff
        discount = (pl.col("_ipos").cast(pl.Float64) + 1.0).log(2)
        name = f"_idcg_{kind}_{self._cutoff_key(metric)}"
        contribution = pl.col(gain_name) / discount
        if metric.k == PER_QUERY:
            self.label_cumulative.setdefault(name, contribution)
        return self._label_agg(name, contribution.filter(within).sum())

    def cutoff_value(self, metric: Metric) -> pl.Expr:
        """Return the cutoff as a float expression for final formulas (P@k = x / k)."""
        cutoff = self.cutoff(metric)
        if cutoff is None:
            msg = f"{metric.name} has no cutoff"
            raise ValueError(msg)
        return cutoff.cast(pl.Float64)


def ratio_or_zero(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator``, or 0.0 where the denominator is 0 (trec_eval's rule)."""
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(0.0)
