"""Diagnose where a system loses its evidence: in retrieval or in reranking.

Two views, both over an :class:`~rankset.evaluation.EvaluationResult`:

- :func:`diagnose` places every (system, query) in one quadrant of the PROC@K × %PROC@K
  matrix. PROC@K is the ceiling the candidate pool allows; %PROC@K is the share of that
  ceiling the chosen top K realised. A low ceiling is the retriever's fault, a low share the
  reranker's.
- :func:`regressions` compares two systems query by query on recall@K and nDCG@K. A fall in
  recall means relevant documents left the top K (coverage); nDCG falling while recall holds
  means the same documents came back in a worse order (ordering).

Both work on the per-query values only; no metric is recomputed here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankset._format import ReprTable, html_repr, text_repr
from rankset._typing import Change, IntoLabels, IntoRun, Quadrant
from rankset._validation import check_float, check_fraction, check_int
from rankset.errors import ParameterError, SchemaError
from rankset.evaluation import EvaluateOptions, EvaluationResult, evaluate_with
from rankset.measures import parse_metric

__all__ = [
    "CHANGES",
    "QUADRANTS",
    "Change",
    "Diagnosis",
    "Quadrant",
    "diagnose",
    "quadrant_counts",
    "regression_counts",
    "regressions",
]

#: The quadrants, in display order.
QUADRANTS: tuple[Quadrant, ...] = ("healthy", "retrieval miss", "reranking miss", "both")

#: The classes of :func:`regressions`, worst first.
CHANGES: tuple[Change, ...] = (
    "coverage regression",
    "ordering regression",
    "mixed",
    "unchanged",
    "improved",
)

# Column of the wide count table that holds the queries without a quadrant.
_UNCLASSIFIED = "unclassified"


@dataclass(frozen=True)
class Diagnosis:
    """The outcome of :func:`diagnose`.

    Attributes
    ----------
    per_query
        One row per (system, query): ``system, query_id, k, ra_nwg, proc, pct_proc,
        quadrant`` (null when the query cannot be classified). Sorted by system (in the
        order the runs were given), quadrant (in :data:`QUADRANTS` order, null last) and
        query.
    counts
        One row per system and quadrant, zeros included, plus one row with a null
        quadrant for the unclassifiable queries: ``system, quadrant, n_queries, share``.
        ``share`` is the fraction of the system's classifiable queries (null on the
        unclassifiable row, and when a system has no classifiable query).
    thresholds
        The thresholds used, keyed by the column they apply to: ``proc`` and ``pct_proc``.
    """

    per_query: pl.DataFrame
    counts: pl.DataFrame
    thresholds: dict[str, float]

    def wide(self) -> pl.DataFrame:
        """Return the counts with one column per quadrant (+ ``unclassified``), a row per system.

        Examples
        --------
        >>> from rankset.diagnosis.quadrants import diagnose
        >>> labels = {"q1": {"a": 5}, "q2": {"b": 5, "c": 1}}
        >>> run = {"q1": {"a": 1.0}, "q2": {"c": 2.0, "b": 1.0}}
        >>> diagnose(run, labels, k=1).wide()
        shape: (1, 6)
        ┌────────┬─────────┬────────────────┬────────────────┬──────┬──────────────┐
        │ system ┆ healthy ┆ retrieval miss ┆ reranking miss ┆ both ┆ unclassified │
        │ ---    ┆ ---     ┆ ---            ┆ ---            ┆ ---  ┆ ---          │
        │ str    ┆ u32     ┆ u32            ┆ u32            ┆ u32  ┆ u32          │
        ╞════════╪═════════╪════════════════╪════════════════╪══════╪══════════════╡
        │ run    ┆ 1       ┆ 0              ┆ 1              ┆ 0    ┆ 0            │
        └────────┴─────────┴────────────────┴────────────────┴──────┴──────────────┘
        """
        return (
            self.counts.with_columns(pl.col("quadrant").fill_null(_UNCLASSIFIED))
            .pivot(
                on="quadrant",
                index="system",
                values="n_queries",
                on_columns=[*QUADRANTS, _UNCLASSIFIED],
            )
            .sort(_system_rank(self.counts["system"].unique(maintain_order=True).to_list()))
        )

    def _repr_blocks(self) -> tuple[str, ReprTable, str]:
        """Return the title, the queries per quadrant of each system, and a note."""
        k = self.per_query["k"].drop_nulls().unique().sort().to_list()
        cutoff = k[0] if len(k) == 1 else k
        title = (
            f"Diagnosis at k={cutoff}: {self.per_query.height} (system, query) pairs, "
            f"thresholds PROC {self.thresholds['proc']}, %PROC {self.thresholds['pct_proc']}"
        )
        wide = self.wide()
        table = ReprTable(wide.columns, wide.rows(), n_rows=wide.height, row_noun="systems")
        return title, table, "(queries per quadrant; .counts has the shares)"

    def __repr__(self) -> str:
        title, table, note = self._repr_blocks()
        # The title whole, not clipped at 80 columns: a test pins it (see above).
        return "\n".join([title, *text_repr(title, table, note).splitlines()[1:]])

    def _repr_html_(self) -> str:
        return html_repr(*self._repr_blocks())


def diagnose(
    source: EvaluationResult | IntoRun | Mapping[str, IntoRun],
    labels: IntoLabels | None = None,
    *,
    k: int = 10,
    proc_threshold: float = 0.5,
    pct_proc_threshold: float = 0.5,
    **evaluate_options: Any,
) -> Diagnosis:
    """Place every (system, query) in the retrieval-versus-reranking matrix.

    The quadrant rules, applied in this order:

    - ``proc@k`` NA (the query has no useful labelled evidence): no quadrant (null); the
      query is counted as unclassifiable.
    - ``proc@k == 0`` (the pool holds none of the query's useful evidence, so
      ``pct_proc@k`` is NA): ``"retrieval miss"``, whatever the thresholds.
    - ``pct_proc@k`` NA with ``proc@k > 0`` (only in hand-made results): null.
    - ``proc >= proc_threshold`` and ``pct_proc >= pct_proc_threshold``: ``"healthy"``.
    - ``proc < proc_threshold`` and ``pct_proc >= pct_proc_threshold``:
      ``"retrieval miss"``.
    - ``proc >= proc_threshold`` and ``pct_proc < pct_proc_threshold``:
      ``"reranking miss"``.
    - both below their thresholds: ``"both"``.

    Parameters
    ----------
    source
        An :class:`~rankset.evaluation.EvaluationResult` holding ``ra_nwg@{k}``,
        ``proc@{k}`` and ``pct_proc@{k}``, or runs in any form :func:`rankset.evaluate`
        accepts; runs are evaluated on those three metrics.
    labels
        Labels for the runs; must be omitted when ``source`` is a result.
    k
        The cutoff K.
    proc_threshold
        ``proc@k`` at or above which the pool counts as good enough.
    pct_proc_threshold
        ``pct_proc@k`` at or above which the selection counts as good enough.
    **evaluate_options
        Passed to :func:`rankset.evaluate` when ``source`` holds runs (``scale=``,
        ``pool=``, ``names=``...).

    Returns
    -------
    Diagnosis

    Raises
    ------
    ParameterError
        On a threshold outside [0, 1], a bad ``k``, a result lacking one of the three
        metrics, or labels/options given together with a result.

    Examples
    --------
    >>> from rankset.diagnosis.quadrants import diagnose
    >>> labels = {"q1": {"a": 5, "b": 1}, "q2": {"c": 5}, "q3": {"d": 2}}
    >>> run = {"q1": {"b": 2.0, "a": 1.0}, "q2": {"c": 1.0}, "q3": {"d": 1.0}}
    >>> diag = diagnose(run, labels, k=1)
    >>> diag.per_query.select("query_id", "proc", "pct_proc", "quadrant").rows()
    [('q2', 1.0, 1.0, 'healthy'), ('q1', 1.0, 0.0, 'reranking miss'), ('q3', None, None, None)]
    """
    check_int("k", k, 1)
    thresholds = {
        "proc": check_fraction("proc_threshold", proc_threshold, closed=True),
        "pct_proc": check_fraction("pct_proc_threshold", pct_proc_threshold, closed=True),
    }
    names = {"ra_nwg": f"ra_nwg@{k}", "proc": f"proc@{k}", "pct_proc": f"pct_proc@{k}"}
    if isinstance(source, EvaluationResult):
        if labels is not None or evaluate_options:
            msg = (
                "diagnose() got an EvaluationResult: labels and evaluation options apply only "
                "when it is given runs to evaluate."
            )
            raise ParameterError(msg)
        result = source
        _require_metrics(result, list(names.values()), "diagnose()")
    else:
        options = EvaluateOptions.from_kwargs(evaluate_options, "diagnose")
        result = evaluate_with(source, labels, list(names.values()), options, confidence=None)

    per_query = (
        _wide(result.per_query, names, index=["system", "query_id"])
        .with_columns(pl.lit(k, dtype=pl.Int64).alias("k"))
        .with_columns(_quadrant(thresholds["proc"], thresholds["pct_proc"]))
        .select("system", "query_id", "k", "ra_nwg", "proc", "pct_proc", "quadrant")
        .sort(
            _system_rank(result.systems),
            _order("quadrant", QUADRANTS),
            "query_id",
            nulls_last=True,
            maintain_order=True,
        )
    )
    return Diagnosis(per_query=per_query, counts=quadrant_counts(per_query), thresholds=thresholds)


def regressions(
    result: EvaluationResult,
    baseline: str,
    candidate: str,
    *,
    k: int | None = None,
    recall_metric: str | None = None,
    ndcg_metric: str | None = None,
    tolerance: float = 1e-9,
) -> pl.DataFrame:
    """Classify each query's change from ``baseline`` to ``candidate`` on recall and nDCG.

    A delta is ``candidate - baseline``; it counts as a rise when ``> tolerance``, a fall
    when ``< -tolerance``, and as held otherwise. The classes (:data:`CHANGES`) cover the
    nine (recall, nDCG) combinations once each:

    - ``"coverage regression"``: recall fell (whatever nDCG did): relevant documents left
      the top K.
    - ``"ordering regression"``: recall held and nDCG fell: the same relevant documents,
      in a worse order.
    - ``"mixed"``: recall rose and nDCG fell: more relevant documents, but better ones
      were displaced or sank.
    - ``"unchanged"``: neither moved.
    - ``"improved"``: neither fell and at least one rose.

    Only queries that both systems have, with all four values non-NA, are compared; the
    others are left out.

    Parameters
    ----------
    result
        An evaluation holding both systems and both metrics.
    baseline, candidate
        System names in ``result``.
    k
        Cutoff of the default metric names ``recall@{k}`` and ``ndcg@{k}``. When omitted,
        the only cutoff at which ``result`` holds both is used.
    recall_metric, ndcg_metric
        Metric names overriding the defaults (any accepted spelling, e.g. ``R@20``).
    tolerance
        Largest absolute delta still counted as held (>= 0).

    Returns
    -------
    pl.DataFrame
        ``query_id, recall_baseline, recall_candidate, recall_delta, ndcg_baseline,
        ndcg_candidate, ndcg_delta, change``; sorted by class (worst first), then by nDCG
        delta (largest fall first), then query. :func:`regression_counts` tallies it.

    Raises
    ------
    ParameterError
        On an unknown system, a metric the result lacks (the message lists those it
        holds), an ambiguous or missing cutoff, or a negative tolerance.

    Examples
    --------
    >>> import rankset
    >>> from rankset.diagnosis.quadrants import regressions
    >>> labels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    >>> runs = {
    ...     "base": {"q1": {"a": 3.0, "b": 2.0, "x": 1.0}, "q2": {"x": 2.0, "c": 1.0}},
    ...     "new": {"q1": {"x": 3.0, "a": 2.0, "b": 1.0}, "q2": {"c": 2.0, "x": 1.0}},
    ... }
    >>> res = rankset.evaluate(runs, labels, ["recall@2", "ndcg@2"])
    >>> regressions(res, "base", "new").select("query_id", "change").rows()
    [('q1', 'coverage regression'), ('q2', 'improved')]
    """
    tol = check_float("tolerance", tolerance, minimum=0)
    recall_name, ndcg_name = _regression_metrics(result, k, recall_metric, ndcg_metric)
    systems = _present_systems(result)
    for role, system in (("baseline", baseline), ("candidate", candidate)):
        if system not in systems:
            msg = (
                f"The {role} system {system!r} is not in the result; "
                f"it holds: {', '.join(systems) or 'no system'}."
            )
            raise ParameterError(msg)
    if baseline == candidate:
        msg = f"baseline and candidate must be different systems. Got {baseline!r} twice."
        raise ParameterError(msg)

    names = {"recall": recall_name, "ndcg": ndcg_name}
    per_query = result.per_query.filter(pl.col("system").is_in([baseline, candidate]))
    wide = _wide(per_query, names, index=["system", "query_id"])
    before = wide.filter(pl.col("system") == baseline).drop("system")
    after = wide.filter(pl.col("system") == candidate).drop("system")
    recall_delta = pl.col("recall_candidate") - pl.col("recall_baseline")
    ndcg_delta = pl.col("ndcg_candidate") - pl.col("ndcg_baseline")
    return (
        before.join(after, on="query_id", how="inner", suffix="_candidate")
        .rename({"recall": "recall_baseline", "ndcg": "ndcg_baseline"})
        .drop_nulls(["recall_baseline", "recall_candidate", "ndcg_baseline", "ndcg_candidate"])
        .with_columns(recall_delta=recall_delta, ndcg_delta=ndcg_delta)
        .with_columns(change=_change(tol))
        .select(
            "query_id",
            "recall_baseline",
            "recall_candidate",
            "recall_delta",
            "ndcg_baseline",
            "ndcg_candidate",
            "ndcg_delta",
            "change",
        )
        .sort(_order("change", CHANGES), "ndcg_delta", "query_id", maintain_order=True)
    )


def regression_counts(frame: pl.DataFrame) -> pl.DataFrame:
    """Tally a :func:`regressions` frame: one row per class, zeros included.

    Parameters
    ----------
    frame
        The frame :func:`regressions` returned (one comparison).

    Returns
    -------
    pl.DataFrame
        ``change, n_queries, share, query_ids``: the classes in :data:`CHANGES` order,
        the share of compared queries (null when none was compared) and the sorted ids.

    Examples
    --------
    >>> import polars as pl
    >>> from rankset.diagnosis.quadrants import regression_counts
    >>> frame = pl.DataFrame({"query_id": ["q2", "q1"], "change": ["improved", "improved"]})
    >>> regression_counts(frame).filter(pl.col("n_queries") > 0).rows()
    [('improved', 2, 1.0, ['q1', 'q2'])]
    """
    missing = [column for column in ("query_id", "change") if column not in frame.columns]
    if missing:
        msg = (
            f"regression_counts() needs the frame regressions() returns; it lacks the "
            f"column(s) {', '.join(repr(c) for c in missing)}."
        )
        raise SchemaError(msg)
    tallies = frame.group_by("change").agg(n_queries=pl.len(), query_ids=pl.col("query_id").sort())
    total = frame.height
    return (
        pl.DataFrame({"change": list(CHANGES)})
        .join(tallies, on="change", how="left", maintain_order="left")
        .select(
            "change",
            pl.col("n_queries").fill_null(0),
            (pl.col("n_queries").fill_null(0) / total if total else pl.lit(None, pl.Float64))
            .cast(pl.Float64)
            .alias("share"),
            pl.col("query_ids").fill_null(pl.lit([], dtype=pl.List(pl.String))),
        )
    )


# --- rules ---------------------------------------------------------------------------


def _quadrant(proc_threshold: float, pct_proc_threshold: float) -> pl.Expr:
    """Express the quadrant rules of :func:`diagnose` (stated in its docstring)."""
    proc, pct = pl.col("proc"), pl.col("pct_proc")
    proc_high = proc >= proc_threshold
    pct_high = pct >= pct_proc_threshold
    return (
        pl.when(proc.is_null())
        .then(pl.lit(None, pl.String))
        .when(proc == 0)
        .then(pl.lit("retrieval miss"))
        .when(pct.is_null())
        .then(pl.lit(None, pl.String))
        .when(proc_high & pct_high)
        .then(pl.lit("healthy"))
        .when(pct_high)
        .then(pl.lit("retrieval miss"))
        .when(proc_high)
        .then(pl.lit("reranking miss"))
        .otherwise(pl.lit("both"))
        .alias("quadrant")
    )


def _change(tolerance: float) -> pl.Expr:
    """Express the classes of :func:`regressions` (stated in its docstring)."""
    recall, ndcg = pl.col("recall_delta"), pl.col("ndcg_delta")
    return (
        pl.when(recall < -tolerance)
        .then(pl.lit("coverage regression"))
        .when(recall > tolerance)
        .then(pl.when(ndcg < -tolerance).then(pl.lit("mixed")).otherwise(pl.lit("improved")))
        .when(ndcg < -tolerance)
        .then(pl.lit("ordering regression"))
        .when(ndcg > tolerance)
        .then(pl.lit("improved"))
        .otherwise(pl.lit("unchanged"))
    )


def quadrant_counts(per_query: pl.DataFrame) -> pl.DataFrame:
    """Count the queries of each system in each quadrant: :attr:`Diagnosis.counts`.

    Parameters
    ----------
    per_query
        A frame with ``system`` and ``quadrant`` (null: unclassified), such as
        :attr:`Diagnosis.per_query`.

    Returns
    -------
    polars.DataFrame
        ``system, quadrant, n_queries, share``: every quadrant of every system, zeros
        included, and the unclassified queries (quadrant null, share null); ``share`` is
        over the classified queries.

    Examples
    --------
    >>> frame = pl.DataFrame({"system": ["a", "a", "a"],
    ...                       "quadrant": ["healthy", "both", None]})
    >>> quadrant_counts(frame).select("quadrant", "n_queries", "share").rows()[::3]
    [('healthy', 1, 0.5), ('both', 1, 0.5)]
    >>> quadrant_counts(frame)["n_queries"].to_list()
    [1, 0, 0, 1, 1]
    """
    systems = per_query["system"].unique(maintain_order=True).to_list()
    grid = pl.DataFrame({"system": systems}, schema={"system": pl.String}).join(
        pl.DataFrame({"quadrant": [*QUADRANTS, None]}, schema={"quadrant": pl.String}), how="cross"
    )
    tallies = per_query.group_by("system", "quadrant").agg(n_queries=pl.len())
    classified = pl.col("n_queries").filter(pl.col("quadrant").is_not_null()).sum()
    return (
        grid.join(tallies, on=["system", "quadrant"], how="left", nulls_equal=True)
        .with_columns(pl.col("n_queries").fill_null(0))
        .with_columns(
            share=pl.when(pl.col("quadrant").is_not_null())
            .then(pl.col("n_queries") / classified.over("system"))
            .fill_nan(None)
        )
        .sort(
            _system_rank(systems),
            _order("quadrant", QUADRANTS),
            nulls_last=True,
            maintain_order=True,
        )
    )


# --- helpers -------------------------------------------------------------------------


def _order(column: str, values: tuple[str, ...]) -> pl.Expr:
    """Sort key placing ``column``'s values in the given order (null stays null)."""
    positions = {value: position for position, value in enumerate(values)}
    return pl.col(column).replace_strict(positions, default=None, return_dtype=pl.UInt8)


def _wide(per_query: pl.DataFrame, names: dict[str, str], index: list[str]) -> pl.DataFrame:
    """One column per wanted metric (renamed to the keys of ``names``)."""
    metrics = list(names.values())
    return (
        per_query.filter(pl.col("metric").is_in(metrics))
        .pivot(on="metric", index=index, values="value", on_columns=metrics)
        .rename({metric: column for column, metric in names.items()})
    )


def _present_metrics(result: EvaluationResult) -> list[str]:
    listed = result.metrics
    seen = result.per_query["metric"].unique().sort().to_list()
    return [*listed, *(name for name in seen if name not in listed)]


def _present_systems(result: EvaluationResult) -> list[str]:
    return result.systems


def _system_rank(systems: list[str]) -> pl.Expr:
    """Sort key keeping the systems in the order given (the order of the inputs)."""
    return pl.col("system").replace_strict(
        {system: position for position, system in enumerate(systems)}, return_dtype=pl.Int64
    )


def _require_metrics(result: EvaluationResult, needed: list[str], caller: str) -> None:
    present = _present_metrics(result)
    missing = [name for name in needed if name not in present]
    if missing:
        msg = (
            f"{caller} needs {', '.join(needed)} in the result, which lacks "
            f"{', '.join(missing)}; it holds: {', '.join(present) or 'no metric'}."
        )
        raise ParameterError(msg)


def _regression_metrics(
    result: EvaluationResult,
    k: int | None,
    recall_metric: str | None,
    ndcg_metric: str | None,
) -> tuple[str, str]:
    if k is not None:
        check_int("k", k, 1)
    present = _present_metrics(result)
    if k is None and (recall_metric is None or ndcg_metric is None):
        # Canonical names without parameters print as ``measure@<int>``.
        cutoffs = sorted(_cutoffs(present, "recall") & _cutoffs(present, "ndcg"))
        if len(cutoffs) != 1:
            found = f"it holds both at k = {cutoffs}" if cutoffs else "it holds no such pair"
            msg = (
                "regressions() needs k= (or recall_metric= and ndcg_metric=) to pick "
                f"recall@k and ndcg@k: {found}."
            )
            raise ParameterError(msg)
        k = cutoffs[0]
    recall_name = parse_metric(recall_metric or f"recall@{k}").name
    ndcg_name = parse_metric(ndcg_metric or f"ndcg@{k}").name
    if recall_name == ndcg_name:
        msg = f"recall_metric and ndcg_metric must differ. Got {recall_name!r} twice."
        raise ParameterError(msg)
    for role, name in (("recall_metric", recall_name), ("ndcg_metric", ndcg_name)):
        if name not in present:
            msg = (
                f"The result has no {name!r} (the {role} of regressions()); "
                f"it holds: {', '.join(present) or 'no metric'}."
            )
            raise ParameterError(msg)
    return recall_name, ndcg_name


def _cutoffs(names: list[str], measure: str) -> set[int]:
    pattern = re.compile(rf"{measure}@(\d+)")
    return {int(match[1]) for name in names if (match := pattern.fullmatch(name))}
