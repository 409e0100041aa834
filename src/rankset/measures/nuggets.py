"""Nugget measures: which facts (nuggets) of a query's answer the top K passages support.

They read nugget labels (``evaluate(..., nuggets=...)``, :func:`rankset.io.read_nuggets`):
per query, nugget and passage, the support (full 1, partial 0.5, none 0) and the nugget's
importance (vital 1, okay 0.5, or a number). For a system's top K, a nugget's support
``a(n)`` is the best support any of those passages gives it.

``nugget_coverage@k`` (alias ``claim_recall@k``)
    Nuggets fully supported by a top-K passage over the query's nuggets: FreshStack's
    Coverage@K, RAGChecker's claim recall (a claim entailed by a retrieved chunk), and
    nuggetizer's ``strict_all_score`` when the passages stand for the answer.
``nugget_coverage_partial@k``
    The same with partial support counting 0.5: nuggetizer's ``all_score`` (TREC 2024
    RAG's "All").
``vital_coverage@k``, ``vital_coverage_partial@k``
    The two above over the vital nuggets only (``strict_vital_score``, ``vital_score``);
    NA for a query without a vital nugget (nuggetizer scores such a query 0).
``nugget_recall@k``
    Importance-weighted: sum of importance × a(n) (partial 0.5) over the sum of
    importances; with vital 1 and okay 0.5 it is TREC 2024 RAG's weighted nugget score.
``context_precision@k``
    RAGChecker's context precision: the share of the top-K passages that fully support at
    least one nugget (over the passages retrieved within K; NA when none is).
``alpha_ndcg@k``, parameter ``alpha`` (0.5)
    α-nDCG (Clarke et al., 2008) with the nuggets as subtopics and full support as
    relevance: a passage gains, for each nugget it supports, (1 - α)^(passages above it
    supporting that nugget), discounted by log2(position + 1); over the same sum for the
    ideal ordering, built greedily from the passages of the nugget labels (each step takes
    the passage with the largest gain, ties to the smaller passage id), as is usual since
    the exact ideal is NP-hard. NA for a query without a fully supported nugget.

Every nugget measure needs an explicit cutoff (``@k``). A query without nugget labels is
NA. The nugget pass joins the runs with the nugget labels once and aggregates per
(system, query), beside the main pass.

Examples
--------
>>> import rankset
>>> nuggets = pl.DataFrame(
...     {"query_id": "q", "nugget_id": ["n1", "n1", "n2", "n3"],
...      "doc_id": ["a", "b", "b", "c"],
...      "support": ["support", "support", "partial_support", "support"],
...      "importance": ["vital", "vital", "okay", "okay"]}
... )
>>> run = {"q": {"a": 3.0, "b": 2.0, "x": 1.0}}
>>> res = rankset.evaluate(
...     run, None, ["nugget_coverage@2", "nugget_coverage_partial@2", "nugget_recall@2",
...                 "context_precision@2"], nuggets=nuggets, confidence=None)
>>> for metric, value in res.per_query.select("metric", "value").rows():
...     print(metric, round(value, 4))
nugget_coverage@2 0.3333
nugget_coverage_partial@2 0.5
nugget_recall@2 0.625
context_precision@2 1.0

The top 2 (``a``, ``b``) fully support n1 and partly n2; n3 is only in ``c``: coverage
1/3, with partial (1 + 0.5)/3, weighted (1 + 0.5 × 0.5)/(1 + 0.5 + 0.5) = 0.625; both
passages support a nugget fully.
"""

from __future__ import annotations

import polars as pl

from rankset.errors import ParameterError
from rankset.measures._features import PER_QUERY, Features
from rankset.measures._registry import Metric, ParamSpec, define

__all__ = ["NUGGET_MEASURES", "NUGGET_STATS", "nugget_column"]

#: The measures of this module (they need nugget labels).
NUGGET_MEASURES = (
    "nugget_coverage",
    "nugget_coverage_partial",
    "vital_coverage",
    "vital_coverage_partial",
    "nugget_recall",
    "context_precision",
    "alpha_ndcg",
)
#: Per-query statistics of the nugget labels the measures read.
NUGGET_STATS = ("_n_nuggets", "_n_vital", "_nugget_weight")

_ALPHA = ParamSpec(
    "alpha", float, 0.5, minimum=0.0, description="redundancy penalty: 0 = no penalty"
)


def _cutoff(metric: Metric) -> int:
    if metric.k == PER_QUERY or not isinstance(metric.k, int):
        msg = (
            f"{metric.spec.name} needs an explicit cutoff: write {metric.spec.name}@k "
            "(nugget measures have no per-query k)."
        )
        raise ParameterError(msg)
    return metric.k


def nugget_column(features: Features, kind: str, k: int, alpha: float | None = None) -> pl.Expr:
    """Register a per-(system, query) count of the nugget pass; return its column.

    ``kind``: ``full``/``any`` (nuggets fully / at least partly supported in the top
    ``k``), ``vfull``/``vany`` (vital ones), ``wfull``/``wany`` (their importances summed),
    ``docs`` (top-``k`` passages fully supporting a nugget), ``adcg`` (α-DCG), and
    ``aidcg`` (the ideal α-DCG, per query).
    """
    suffix = f"{k}" if alpha is None else f"{alpha!r}_{k}".replace(".", "p")
    name = f"_nug_{kind}_{suffix}"
    features.nugget_columns[name] = (kind, k, alpha)
    if kind == "aidcg":
        return pl.col(name)
    # Joined after the query policy: a query the system did not answer has no row (null),
    # which counts nothing.
    return features.external(name, empty=None).fill_null(0.0)


def _stat(name: str) -> pl.Expr:
    return pl.col(name).fill_null(0.0)


def _coverage(features: Features, metric: Metric, vital: bool, partial: bool) -> pl.Expr:
    k = _cutoff(metric)
    prefix = "v" if vital else ""
    full = nugget_column(features, f"{prefix}full", k)
    supported = full
    if partial:
        some = nugget_column(features, f"{prefix}any", k)
        supported = full + 0.5 * (some - full)
    total = _stat("_n_vital" if vital else "_n_nuggets")
    return pl.when(total > 0).then(supported / total).otherwise(None)


@define(
    "nugget_coverage",
    description="Nuggets fully supported by a top-K passage over the query's nuggets "
    "(FreshStack Coverage, RAGChecker claim recall).",
    cutoff="required",
    aliases=("claim_recall",),
    empty_value=0.0,
    na_rule="the query has no nugget labels",
)
def _nugget_coverage(features: Features, metric: Metric) -> pl.Expr:
    return _coverage(features, metric, vital=False, partial=False)


@define(
    "nugget_coverage_partial",
    description="Nugget coverage with partial support counting 0.5 (nuggetizer's All score).",
    cutoff="required",
    empty_value=0.0,
    na_rule="the query has no nugget labels",
)
def _nugget_coverage_partial(features: Features, metric: Metric) -> pl.Expr:
    return _coverage(features, metric, vital=False, partial=True)


@define(
    "vital_coverage",
    description="Vital nuggets fully supported by a top-K passage over the vital nuggets.",
    cutoff="required",
    empty_value=0.0,
    na_rule="the query has no vital nugget",
)
def _vital_coverage(features: Features, metric: Metric) -> pl.Expr:
    return _coverage(features, metric, vital=True, partial=False)


@define(
    "vital_coverage_partial",
    description="Vital nugget coverage with partial support counting 0.5 (nuggetizer's "
    "Vital score).",
    cutoff="required",
    empty_value=0.0,
    na_rule="the query has no vital nugget",
)
def _vital_coverage_partial(features: Features, metric: Metric) -> pl.Expr:
    return _coverage(features, metric, vital=True, partial=True)


@define(
    "nugget_recall",
    description="Importance-weighted nugget support in the top K (partial = 0.5) over the "
    "importances (TREC 2024 RAG's weighted score).",
    cutoff="required",
    empty_value=0.0,
    na_rule="the query has no nugget labels (or their importances sum to 0)",
)
def _nugget_recall(features: Features, metric: Metric) -> pl.Expr:
    k = _cutoff(metric)
    full = nugget_column(features, "wfull", k)
    some = nugget_column(features, "wany", k)
    total = _stat("_nugget_weight")
    return pl.when(total > 0).then((full + 0.5 * (some - full)) / total).otherwise(None)


@define(
    "context_precision",
    description="Share of the top-K passages that fully support a nugget (RAGChecker).",
    cutoff="required",
    empty_value=None,
    na_rule="the query has no nugget labels, or the system retrieved nothing for it",
)
def _context_precision(features: Features, metric: Metric) -> pl.Expr:
    k = _cutoff(metric)
    supporting = nugget_column(features, "docs", k)
    retrieved = pl.min_horizontal(features.num_ret(), features.cutoff_value(metric))
    has_nuggets = _stat("_n_nuggets") > 0
    return pl.when(has_nuggets & (retrieved > 0)).then(supporting / retrieved).otherwise(None)


@define(
    "alpha_ndcg",
    description="alpha-nDCG with the nuggets as subtopics (full support = relevant), over "
    "a greedy ideal.",
    cutoff="required",
    params=(_ALPHA,),
    aliases=("alpha-ndcg",),
    empty_value=0.0,
    na_rule="no nugget of the query is fully supported by a labelled passage",
)
def _alpha_ndcg(features: Features, metric: Metric) -> pl.Expr:
    k = _cutoff(metric)
    alpha = float(metric.get("alpha"))  # type: ignore[arg-type]
    if alpha > 1:
        msg = f"The 'alpha' parameter of alpha_ndcg must lie in [0, 1]. Got {alpha!r} instead."
        raise ParameterError(msg)
    dcg = nugget_column(features, "adcg", k, alpha)
    ideal = nugget_column(features, "aidcg", k, alpha)
    return pl.when(ideal > 0).then(dcg / ideal).otherwise(None)
