"""trec_eval's set measures: the retrieved documents as an unordered set.

Each counts over every document the run retrieved for the query (no cutoff), with
trec_eval 10.0's formulas and zero rules (``m_set_P.c``, ``m_set_rel_P.c``,
``m_set_recall.c``, ``m_set_map.c``, ``m_set_F.c``, ``m_num_nonrel_judged_ret.c``):

* ``set_P`` = relevant retrieved / retrieved (0 when nothing was retrieved);
* ``set_relative_P`` = relevant retrieved / min(retrieved, relevant);
* ``set_recall`` = relevant retrieved / relevant;
* ``set_map`` = relevant retrieved² / (retrieved × relevant);
* ``set_F`` = (x + 1) P R / (x P + R) with set P and R, 0 without a relevant document
  retrieved; trec_eval's parameter ``x`` weighs recall (it is not squared, unlike the
  beta of ``fbeta``);
* ``num_nonrel_judged_ret``: retrieved documents labelled non-relevant (0 <= grade <
  rel); unlabelled ones and negative grades ("in the pool but unjudged") do not count.

And ``relative_P@k`` (``m_rel_P.c``), set_relative_P's counterpart within a cutoff:
relevant in the top k / min(k, relevant), 0 without a relevant label.

Examples
--------
>>> import rankset
>>> run = {"q1": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}
>>> labels = {"q1": {"d1": 1, "d3": 0, "d9": 1, "d8": 2}}
>>> res = rankset.evaluate(run, labels, ["set_P", "set_recall", "num_nonrel_judged_ret"])
>>> res.per_query.select("metric", "value").rows()
[('set_p', 0.25), ('set_recall', 0.3333333333333333), ('num_nonrel_judged_ret', 1.0)]
"""

from __future__ import annotations

import polars as pl

from rankset.measures._features import Features, ratio_or_zero
from rankset.measures._registry import Metric, ParamSpec, define
from rankset.measures.ranking import REL, judged_retrieved, num_relevant, relevant_retrieved

__all__: list[str] = []

X = ParamSpec("x", float, 1.0, minimum=0.0, description="relative weight of recall over precision")


def _set_counts(features: Features, metric: Metric) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """Relevant retrieved, retrieved and relevant, as float columns.

    The measures here take no cutoff, so the counts are over the whole ranking.
    """
    relret = relevant_retrieved(features, metric).cast(pl.Float64)
    return relret, features.num_ret().cast(pl.Float64), num_relevant(features, metric)


@define(
    "set_p",
    description="Relevant documents retrieved divided by all documents retrieved (set "
    "precision, trec_eval's set_P).",
    cutoff="none",
    params=(REL,),
    trec_eval="set_P",
)
def _set_p(features: Features, metric: Metric) -> pl.Expr:
    relret, retrieved, _ = _set_counts(features, metric)
    return ratio_or_zero(relret, retrieved)


@define(
    "set_relative_p",
    description="Set precision over the best possible for that many documents: relevant "
    "retrieved / min(retrieved, relevant).",
    cutoff="none",
    params=(REL,),
    trec_eval="set_relative_P",
)
def _set_relative_p(features: Features, metric: Metric) -> pl.Expr:
    relret, retrieved, relevant = _set_counts(features, metric)
    return ratio_or_zero(relret, pl.min_horizontal(retrieved, relevant))


@define(
    "set_recall",
    description="Relevant documents retrieved divided by all relevant labels (set recall).",
    cutoff="none",
    params=(REL,),
    trec_eval="set_recall",
)
def _set_recall(features: Features, metric: Metric) -> pl.Expr:
    relret, _, relevant = _set_counts(features, metric)
    return ratio_or_zero(relret, relevant)


@define(
    "set_map",
    description="Unranked average precision: set precision times set recall, "
    "relevant retrieved² / (retrieved × relevant).",
    cutoff="none",
    params=(REL,),
    trec_eval="set_map",
)
def _set_map(features: Features, metric: Metric) -> pl.Expr:
    relret, retrieved, relevant = _set_counts(features, metric)
    return ratio_or_zero(relret * relret, retrieved * relevant)


@define(
    "set_f",
    description="trec_eval's set F: (x + 1) P R / (x P + R) over the retrieved set; x "
    "weighs recall (not squared).",
    cutoff="none",
    params=(REL, X),
    trec_eval="set_F",
)
def _set_f(features: Features, metric: Metric) -> pl.Expr:
    relret, _, _ = _set_counts(features, metric)
    x = float(metric.get("x"))  # type: ignore[arg-type]
    precision, recall = _set_p(features, metric), _set_recall(features, metric)
    value = (x + 1.0) * precision * recall / (x * precision + recall)
    return pl.when(relret > 0).then(value).otherwise(0.0)


@define(
    "num_nonrel_judged_ret",
    description="Retrieved documents labelled non-relevant (0 <= grade < rel).",
    cutoff="none",
    params=(REL,),
    trec_eval="num_nonrel_judged_ret",
)
def _num_nonrel_judged_ret(features: Features, metric: Metric) -> pl.Expr:
    relret, _, _ = _set_counts(features, metric)
    return judged_retrieved(features, metric).cast(pl.Float64) - relret


@define(
    "relative_p",
    description="Relevant documents in the top k divided by the most there could be: "
    "min(k, relevant labels).",
    cutoff="required",
    params=(REL,),
    trec_eval="relative_P_{k}",
)
def _relative_p(features: Features, metric: Metric) -> pl.Expr:
    relret = relevant_retrieved(features, metric).cast(pl.Float64)
    best = pl.min_horizontal(features.cutoff_value(metric), num_relevant(features, metric))
    return ratio_or_zero(relret, best)
