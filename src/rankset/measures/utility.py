"""Utility-weighted set measures: passages that help, and passages that mislead.

These read the label ``grade`` as a **signed utility** of the passage for the generator:
positive when it helps (its utility), negative when it misleads (minus its distracting
effect), 0 when it does neither. Give them a utility label set (an LLM's per-passage
utility and distraction scores, or eRAG's downstream scores); with such labels a negative
value is a utility, not trec_eval's "in the pool but unjudged". Unlabelled passages count
as 0.

``signed_gain@k``
    Mean signed utility of the top K: the sum over the top K divided by K. With utilities
    1 (useful) / 0 / -1 (harmful) it is the share of useful passages minus the share of
    harmful ones; with 0 / -1 it is ``-harm@k``.
``udcg@k``
    The utility- and distraction-aware score of Trappolini et al. (2025) as their released
    code computes it: ``sigmoid(mean over the top K of w(p) * u(p))`` with ``w = 1`` for a
    relevant passage and ``w = -1/3`` for any other, ``u`` its utility or distracting
    effect (here: a positive label is a relevant passage of utility ``u``; a negative label
    ``-u`` a distractor of effect ``u``). The mean is over the passages retrieved within
    K. The released code applies no positional discount (the abstract mentions one); this
    is the code's version. NA when the system retrieved nothing for the query.
``ragas_context_precision@k``
    ragas' context precision: precision at each relevant position within K, summed, over
    the number of relevant passages *retrieved* within K (not all relevant labels, as AP
    divides); 0 when none is retrieved. Relevance is ``grade >= rel`` as for AP, on any
    labels.

Examples
--------
>>> import rankset
>>> labels = {"q": {"a": 1.0, "b": -0.6, "c": 0.5}}
>>> run = {"q": {"a": 3.0, "b": 2.0, "x": 1.0}}
>>> res = rankset.evaluate(run, labels, ["signed_gain@3", "udcg@3", "ragas_context_precision@3"])
>>> [(m, round(v, 4)) for m, v in res.per_query.select("metric", "value").rows()]
[('signed_gain@3', 0.1333), ('udcg@3', 0.5663), ('ragas_context_precision@3', 1.0)]

The top 3 hold utilities 1, -0.6 and 0 (``x`` is unlabelled): their mean is 0.4 / 3;
``udcg`` weighs the distractor by -1/3: sigmoid((1 - 0.2 + 0) / 3); the only relevant
passage retrieved (``a``) is first, so ragas' precision is 1, where AP would divide by the
two relevant labels.
"""

from __future__ import annotations

import polars as pl

from rankset.measures._features import Features, ratio_or_zero
from rankset.measures._registry import Metric, define
from rankset.measures.ranking import REL, precision_sum, relevant_retrieved

__all__: list[str] = []

#: The weight of a distracting passage's effect in UDCG (the authors' code).
DISTRACTOR_WEIGHT = -1.0 / 3.0


def _utility_sum(features: Features, metric: Metric) -> pl.Expr:
    utility = pl.col("grade").fill_null(0.0)
    name = f"_utility_{features.cutoff_key(metric)}"
    return features.aggregate_within_cutoff(name, utility, metric)


def _weighted_utility_sum(features: Features, metric: Metric) -> pl.Expr:
    utility = pl.col("grade").fill_null(0.0)
    weighted = pl.when(utility > 0).then(utility).otherwise(utility * -DISTRACTOR_WEIGHT)
    name = f"_udcg_terms_{features.cutoff_key(metric)}"
    return features.aggregate_within_cutoff(name, weighted, metric)


@define(
    "signed_gain",
    description="Mean signed utility of the top K (labels as utilities; unlabelled = 0).",
    cutoff="required",
)
def _signed_gain(features: Features, metric: Metric) -> pl.Expr:
    return _utility_sum(features, metric) / features.cutoff_value(metric)


@define(
    "udcg",
    description="sigmoid(mean over the top K of utility, distractors weighted -1/3), as in "
    "the UDCG authors' code (no positional discount).",
    cutoff="required",
    empty_value=None,
    na_rule="the system retrieved nothing for the query",
)
def _udcg(features: Features, metric: Metric) -> pl.Expr:
    retrieved = pl.min_horizontal(features.num_ret(), features.cutoff_value(metric))
    mean = _weighted_utility_sum(features, metric) / retrieved
    return pl.when(retrieved > 0).then(1.0 / (1.0 + (-mean).exp())).otherwise(None)


@define(
    "ragas_context_precision",
    description="ragas' context precision: AP within K over the relevant passages retrieved "
    "within K (not all relevant labels).",
    cutoff="required",
    params=(REL,),
)
def _ragas_context_precision(features: Features, metric: Metric) -> pl.Expr:
    return ratio_or_zero(precision_sum(features, metric), relevant_retrieved(features, metric))
