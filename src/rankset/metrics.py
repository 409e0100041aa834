"""Classic IR measures: their specs, aliases and Polars expressions.

Every measure here equals trec_eval 9.0.8 where trec_eval has it (the test suite checks
this against trec_eval's own regression outputs, NIST's official TREC DL scores and
pytrec_eval on random data). Conventions shared with trec_eval:

* binary measures call a document relevant when ``grade >= rel`` (the evaluation's
  ``relevance_level`` unless the metric sets ``rel``); nDCG and DCG use the grade itself
  as gain and ignore the relevance level;
* documents that are not in the labels are non-relevant; negative grades mean "in the
  pool but unjudged" (skipped by bpref, not counted as judged);
* a ratio whose denominator is 0 (no relevant labels, ideal DCG 0) is 0, not NA;
* precision divides by k even when fewer than k documents were retrieved; recall, AP and
  R-precision divide by the number of relevant labels.

Examples
--------
>>> import rankset
>>> run = {"q1": {"d7": 5.0, "d3": 4.0, "d1": 3.0, "d9": 2.0, "d2": 1.0}}
>>> labels = {"q1": {"d3": 1, "d9": 1}}
>>> res = rankset.evaluate(run, labels, ["hit@5", "recall@5", "rr", "ndcg@5"])
>>> res.per_query.select("metric", "value").with_columns(pl.col("value").round(4))
shape: (4, 2)
┌──────────┬────────┐
│ metric   ┆ value  │
│ ---      ┆ ---    │
│ str      ┆ f64    │
╞══════════╪════════╡
│ hit@5    ┆ 1.0    │
│ recall@5 ┆ 1.0    │
│ rr       ┆ 0.5    │
│ ndcg@5   ┆ 0.6509 │
└──────────┴────────┘
"""

from __future__ import annotations

import polars as pl

from rankset.plan import PlanBuilder, ratio_or_zero
from rankset.registry import MeasureSpec, Metric, ParamSpec, register

__all__: list[str] = []

_REL = ParamSpec(
    "rel",
    float,
    None,
    minimum=None,
    description="relevance level for this metric (default: the evaluation's relevance_level)",
)
_BETA = ParamSpec("beta", float, 1.0, minimum=0.0, description="weight of recall over precision")


def _precision(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return plan.relevant_retrieved(metric) / plan.cutoff_value(metric)


def _recall(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return ratio_or_zero(plan.relevant_retrieved(metric), plan.num_relevant(metric))


def _f_measure(beta: float | None = None) -> object:
    def build(plan: PlanBuilder, metric: Metric) -> pl.Expr:
        b = float(metric.get("beta") if beta is None else beta)  # type: ignore[arg-type]
        precision = _precision(plan, metric)
        recall = _recall(plan, metric)
        weight = b * b
        denominator = weight * precision + recall
        return ratio_or_zero((1.0 + weight) * precision * recall, denominator)

    return build


def _hit(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return (plan.relevant_retrieved(metric) > 0).cast(pl.Float64)


def _recall_all(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    num_rel = plan.num_relevant(metric)
    return ((num_rel > 0) & (plan.relevant_retrieved(metric) >= num_rel)).cast(pl.Float64)


def _rr(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return (1.0 / plan.first_relevant_position(metric)).fill_null(0.0)


def _ap(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return ratio_or_zero(plan.precision_sum(metric), plan.num_relevant(metric))


def _ndcg(exponential: bool) -> object:
    def build(plan: PlanBuilder, metric: Metric) -> pl.Expr:
        return ratio_or_zero(
            plan.dcg(metric, exponential=exponential),
            plan.ideal_dcg(metric, exponential=exponential),
        )

    return build


def _dcg(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return plan.dcg(metric)


def _rprec(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return ratio_or_zero(plan.relevant_within_r(metric), plan.num_relevant(metric))


def _bpref(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return ratio_or_zero(plan.bpref_sum(metric), plan.num_relevant(metric))


def _judged(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return plan.judged_retrieved(metric) / plan.cutoff_value(metric)


def _num_ret(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    del metric
    return plan.num_ret()


def _num_rel(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return plan.num_relevant(metric)


def _num_rel_ret(plan: PlanBuilder, metric: Metric) -> pl.Expr:
    return plan.relevant_retrieved(metric)


def _define(
    name: str,
    description: str,
    cutoff: str,
    build: object,
    *,
    aliases: tuple[str, ...] = (),
    params: tuple[ParamSpec, ...] = (_REL,),
    trec_eval_name: str | None = None,
) -> None:
    spec = MeasureSpec(
        name=name,
        description=description,
        cutoff=cutoff,  # type: ignore[arg-type]
        params=params,
        trec_eval_name=trec_eval_name,
        build=build,  # type: ignore[arg-type]
    )
    register(spec, aliases)


_define(
    "hit",
    "1 if any relevant document is in the top k, else 0 (success; Hit Rate when averaged).",
    "required",
    _hit,
    aliases=("success", "hit_rate", "retrieval-hit"),
    trec_eval_name="success",
)
_define(
    "precision",
    "Relevant documents in the top k divided by k.",
    "required",
    _precision,
    aliases=("p",),
    trec_eval_name="P",
)
_define(
    "recall",
    "Relevant documents in the top k divided by all relevant labels of the query.",
    "optional",
    _recall,
    aliases=("r", "retrieval-recall"),
    trec_eval_name="recall",
)
_define(
    "f1",
    "Harmonic mean of precision@k and recall@k.",
    "required",
    _f_measure(1.0),
)
_define(
    "f2",
    "F-measure at k weighting recall 4 times as much as precision (beta = 2).",
    "required",
    _f_measure(2.0),
)
_define(
    "fbeta",
    "F-measure at k with recall weighted beta^2 times as much as precision.",
    "required",
    _f_measure(),
    params=(_BETA, _REL),
)
_define(
    "recall_all",
    "1 if every relevant label of the query is in the top k (0 when there is none).",
    "required",
    _recall_all,
)
_define(
    "rr",
    "1 / position of the first relevant document (within k if given), 0 if none (MRR).",
    "optional",
    _rr,
    aliases=("recip_rank", "mrr", "retrieval-mrr", "reciprocal_rank"),
    trec_eval_name="recip_rank",
)
_define(
    "ap",
    "Average precision: precision at each relevant position (within k), summed, "
    "divided by all relevant labels (MAP when averaged).",
    "optional",
    _ap,
    aliases=("map", "map_cut", "average_precision"),
    trec_eval_name="map",
)
_define(
    "ndcg",
    "DCG (gain = grade, discount log2(position + 1)) over the ideal DCG of all labels.",
    "optional",
    _ndcg(exponential=False),
    aliases=("ndcg_cut", "retrieval-ndcg"),
    params=(),
    trec_eval_name="ndcg",
)
_define(
    "ndcg_exp",
    "nDCG with exponential gains 2^grade - 1 (Burges et al.).",
    "optional",
    _ndcg(exponential=True),
    aliases=("ndcg_burges",),
    params=(),
)
_define(
    "dcg",
    "Discounted cumulative gain with gain = grade and discount log2(position + 1).",
    "optional",
    _dcg,
    params=(),
)
_define(
    "rprec",
    "Precision at R, where R is the number of relevant labels of the query.",
    "none",
    _rprec,
    aliases=("r-precision", "r_precision"),
    trec_eval_name="Rprec",
)
_define(
    "bpref",
    "Binary preference: how often relevant documents rank above judged non-relevant ones.",
    "none",
    _bpref,
    trec_eval_name="bpref",
)
_define(
    "judged",
    "Fraction of the top k that has a label (grade >= 0); unlabeled documents count as "
    "non-relevant, so read it beside the other metrics.",
    "required",
    _judged,
    params=(),
)
_define(
    "num_ret",
    "Number of documents retrieved for the query (full depth).",
    "none",
    _num_ret,
    params=(),
    trec_eval_name="num_ret",
)
_define(
    "num_rel",
    "Number of relevant labels of the query.",
    "none",
    _num_rel,
    trec_eval_name="num_rel",
)
_define(
    "num_rel_ret",
    "Number of relevant documents retrieved (full depth).",
    "none",
    _num_rel_ret,
    trec_eval_name="num_rel_ret",
)
