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
    the passage with the largest gain, ties to the larger passage id, as NIST's ndeval),
    as is usual since the exact ideal is NP-hard. NA for a query without a fully supported nugget.

The intent-aware measures of NIST's ``ndeval`` read subtopic labels as nuggets (each
subtopic a nugget, a relevant document full support: :func:`rankset.io.read_subtopics`).
With A the query's subtopics with a relevant passage and g(r) the novelty gain above:

``alpha_dcg@k``, ``err_ia@k``
    Σ g(r) / log2(r + 1) (ERR-IA: Σ g(r) / r) over A times the same sum of (1 - α)^(r-1),
    as if every passage covered every subtopic; at k = 1 unscaled, as ndeval.
``nerr_ia@k``
    Σ g(r) / r over the greedy ideal's.
``nrbp``, ``nnrbp``, parameter ``beta`` (0.5)
    (1 - (1 - α) β) / A × Σ g(r) β^(r-1) over the whole ranking; over the ideal's.
``map_ia``
    The mean over the A subtopics of the AP of that subtopic's passages.
``p_ia@k``, ``subtopic_recall@k``
    (passage, subtopic) relevant pairs in the top k over k × A; subtopics covered by the
    top k over A.

The greedy ideal takes the passage of largest gain at each rank, ties to the larger
passage id, as ndeval does. These are NA for a query with A = 0.

Every nugget measure but ``nrbp``, ``nnrbp`` and ``map_ia`` needs an explicit cutoff
(``@k``). A query without nugget labels is NA. The nugget pass joins the runs with the
nugget labels once and aggregates per (system, query), beside the main pass.

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

import math
from collections.abc import Callable

import polars as pl

from rankset.errors import ParameterError
from rankset.measures._features import Features
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
    "alpha_dcg",
    "err_ia",
    "nerr_ia",
    "nrbp",
    "nnrbp",
    "map_ia",
    "p_ia",
    "subtopic_recall",
)
#: Per-query statistics of the nugget labels the measures read.
NUGGET_STATS = ("_n_nuggets", "_n_vital", "_nugget_weight", "_n_supported")

_ALPHA = ParamSpec(
    "alpha", float, 0.5, minimum=0.0, description="redundancy penalty: 0 = no penalty"
)


def _cutoff(metric: Metric) -> int:
    return metric.explicit_cutoff("nugget measures have no per-query k")


def nugget_column(
    features: Features, kind: str, k: int, alpha: float | None = None, beta: float | None = None
) -> pl.Expr:
    """Register a per-(system, query) count of the nugget pass; return its column.

    ``kind``: ``full``/``any`` (nuggets fully / at least partly supported in the top
    ``k``), ``vfull``/``vany`` (vital ones), ``wfull``/``wany`` (their importances summed),
    ``docs`` (top-``k`` passages fully supporting a nugget), ``adcg`` (α-DCG), ``aerr``
    (ERR-IA's sum), ``anrbp`` (NRBP's sum, with ``beta``), ``amap`` (the subtopic APs
    summed), ``apairs`` (top-``k`` (passage, nugget) pairs of full support), and
    ``aidcg``, ``aierr``, ``ainrbp`` (the greedy ideal's α-DCG, ERR-IA and NRBP sums, per
    query). ``k`` 0 means the whole ranking.
    """
    suffix = f"{k}" if alpha is None else f"{alpha!r}_{k}"
    suffix = suffix if beta is None else f"{suffix}_{beta!r}"
    name = f"_nug_{kind}_{suffix}".replace(".", "p")
    features.nugget_columns[name] = (kind, k, alpha, beta)
    if kind in ("aidcg", "aierr", "ainrbp"):
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


def _alpha(metric: Metric) -> float:
    alpha = float(metric.get("alpha"))  # type: ignore[arg-type]
    if alpha > 1:
        msg = (
            f"The 'alpha' parameter of {metric.spec.name} must lie in [0, 1]. "
            f"Got {alpha!r} instead."
        )
        raise ParameterError(msg)
    return alpha


def _subtopics() -> pl.Expr:
    """Count the query's subtopics (nuggets) with a fully supporting passage: ndeval's A."""
    return _stat("_n_supported")


def _per_subtopic(value: pl.Expr) -> pl.Expr:
    """``value`` where the query has a subtopic with a relevant passage, else NA."""
    return pl.when(_subtopics() > 0).then(value).otherwise(None)


def _every_passage_covers_every_subtopic(
    k: int, alpha: float, discount: Callable[[int], float]
) -> float:
    """Ndeval's "ideal ideal" per subtopic: sum over ranks r <= k of (1 - α)^(r-1) x discount."""
    total = 0.0
    for rank in range(1, k + 1):
        total += (1.0 - alpha) ** (rank - 1) * discount(rank)
    return total


_INTENT_AWARE = "no subtopic (nugget) of the query has a fully supporting labelled passage"


@define(
    "alpha_ndcg",
    description="alpha-nDCG (ndeval): subtopics are nuggets (full support = relevant), over "
    "a greedy ideal.",
    cutoff="required",
    params=(_ALPHA,),
    aliases=("alpha-ndcg",),
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="alpha_nDCG",
)
def _alpha_ndcg(features: Features, metric: Metric) -> pl.Expr:
    k, alpha = _cutoff(metric), _alpha(metric)
    dcg = nugget_column(features, "adcg", k, alpha)
    ideal = nugget_column(features, "aidcg", k, alpha)
    return pl.when(ideal > 0).then(dcg / ideal).otherwise(None)


@define(
    "alpha_dcg",
    description="alpha-DCG@k (ndeval) over its value for k passages each covering every "
    "subtopic (k = 1: unscaled, as ndeval).",
    cutoff="required",
    params=(_ALPHA,),
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="alpha_DCG",
)
def _alpha_dcg(features: Features, metric: Metric) -> pl.Expr:
    k, alpha = _cutoff(metric), _alpha(metric)
    dcg = nugget_column(features, "adcg", k, alpha)
    if k == 1:
        return _per_subtopic(dcg)
    scale = _every_passage_covers_every_subtopic(k, alpha, lambda r: 1.0 / math.log2(r + 1))
    return _per_subtopic(dcg / (_subtopics() * scale))


@define(
    "err_ia",
    description="Intent-aware ERR@k (ndeval): novelty gains over rank, over its value for "
    "k passages each covering every subtopic (k = 1: unscaled, as ndeval).",
    cutoff="required",
    params=(_ALPHA,),
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="ERR_IA",
)
def _err_ia(features: Features, metric: Metric) -> pl.Expr:
    k, alpha = _cutoff(metric), _alpha(metric)
    err = nugget_column(features, "aerr", k, alpha)
    if k == 1:
        return _per_subtopic(err)
    scale = _every_passage_covers_every_subtopic(k, alpha, lambda r: 1.0 / r)
    return _per_subtopic(err / (_subtopics() * scale))


@define(
    "nerr_ia",
    description="Intent-aware ERR@k over the greedy ideal's (ndeval's nERR-IA).",
    cutoff="required",
    params=(_ALPHA,),
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="nERR_IA",
)
def _nerr_ia(features: Features, metric: Metric) -> pl.Expr:
    k, alpha = _cutoff(metric), _alpha(metric)
    err = nugget_column(features, "aerr", k, alpha)
    ideal = nugget_column(features, "aierr", k, alpha)
    return _per_subtopic(pl.when(err > 0).then(err / ideal).otherwise(0.0))


_BETA = ParamSpec("beta", float, 0.5, minimum=0.0, description="persistence: chance of reading on")


def _nrbp_sums(features: Features, metric: Metric) -> tuple[pl.Expr, float, float]:
    alpha, beta = _alpha(metric), float(metric.get("beta"))  # type: ignore[arg-type]
    return nugget_column(features, "anrbp", 0, alpha, beta), alpha, beta


@define(
    "nrbp",
    description="Novelty- and rank-biased precision (ndeval): (1 - (1 - alpha) beta) / "
    "subtopics x the novelty gains discounted by beta^(rank - 1), the whole ranking.",
    cutoff="none",
    params=(_ALPHA, _BETA),
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="NRBP",
)
def _nrbp(features: Features, metric: Metric) -> pl.Expr:
    gains, alpha, beta = _nrbp_sums(features, metric)
    return _per_subtopic((1.0 - (1.0 - alpha) * beta) / _subtopics() * gains)


@define(
    "nnrbp",
    description="NRBP over the greedy ideal ranking's NRBP (ndeval's nNRBP).",
    cutoff="none",
    params=(_ALPHA, _BETA),
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="nNRBP",
)
def _nnrbp(features: Features, metric: Metric) -> pl.Expr:
    gains, alpha, beta = _nrbp_sums(features, metric)
    ideal = nugget_column(features, "ainrbp", 0, alpha, beta)
    factor = (1.0 - (1.0 - alpha) * beta) / _subtopics()
    return _per_subtopic(pl.when(ideal > 0).then(factor * gains / (factor * ideal)))


@define(
    "map_ia",
    description="Intent-aware AP (ndeval's MAP-IA): the mean over subtopics of the AP with "
    "that subtopic's passages as the relevant ones.",
    cutoff="none",
    aliases=("ap_ia",),
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="AP_IA",
)
def _map_ia(features: Features, metric: Metric) -> pl.Expr:
    return _per_subtopic(nugget_column(features, "amap", 0) / _subtopics())


@define(
    "p_ia",
    description="Intent-aware precision@k (ndeval): (passage, subtopic) relevant pairs in "
    "the top k over k x subtopics.",
    cutoff="required",
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="P_IA",
)
def _p_ia(features: Features, metric: Metric) -> pl.Expr:
    k = _cutoff(metric)
    pairs = nugget_column(features, "apairs", k)
    return _per_subtopic(pairs / (_subtopics() * float(k)))


@define(
    "subtopic_recall",
    description="Subtopic recall@k (ndeval's strec): subtopics with a relevant passage in "
    "the top k over the subtopics.",
    cutoff="required",
    aliases=("strec",),
    empty_value=0.0,
    na_rule=_INTENT_AWARE,
    ir_measures="StRecall",
)
def _subtopic_recall(features: Features, metric: Metric) -> pl.Expr:
    return _per_subtopic(nugget_column(features, "full", _cutoff(metric)) / _subtopics())
