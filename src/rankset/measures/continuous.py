"""Measures of real-valued gains: eRAG's continuous labels and generalized precision.

eRAG (Salemi and Zamani, SIGIR 2024) labels each retrieved document with the downstream
score (exact match, F1, ROUGE...) of the answer the generator writes from that document
alone, a number in 0..1. These measures take the label ``grade`` itself as the gain, as
nDCG does: unlabelled documents and negative grades (in the pool, unjudged) gain 0. None
of them binarises with ``relevance_level``.

``mean_gain@k``
    The mean gain of the top k: ``Σ gain over the top k / k`` (Kekäläinen and Järvelin's
    generalized precision, JASIST 2002). It divides by k even when fewer than k documents
    were retrieved, as ``precision@k`` does; without a cutoff it divides by the number of
    documents retrieved. eRAG's ``P_k`` (and ``P``) on continuous labels; on 0/1 labels
    it equals ``precision@k``.
``max_gain@k``
    The largest gain in the top k, 0 when none is positive; without a cutoff, over the
    whole ranking. eRAG's ``success_k`` (and ``success``) on continuous labels; on 0/1
    labels it equals ``hit@k``.
``gain_recall@k``
    The gain of the top k over the gain of all the query's labels (Kekäläinen and
    Järvelin's generalized recall); 0 when no label has a positive gain. On 0/1 labels
    it equals ``recall@k``.

:func:`erag_metric` spells eRAG's metric names (pytrec_eval's) as rankset's.

Examples
--------
>>> import rankset
>>> labels = {"q": {"d0": 0.0, "d1": 0.5, "d2": 1.0}}
>>> run = {"q": {"d0": 3.0, "d1": 2.0, "d2": 1.0}}
>>> metrics = ["mean_gain@2", "max_gain@2", "gain_recall@2", "mean_gain"]
>>> res = rankset.evaluate(run, labels, metrics, confidence=None)
>>> [(m, round(v, 4)) for m, v in res.per_query.select("metric", "value").rows()]
[('mean_gain@2', 0.25), ('max_gain@2', 0.5), ('gain_recall@2', 0.3333), ('mean_gain', 0.5)]

The top 2 gain 0 and 0.5: their mean is 0.25, their largest 0.5, and a third of the
query's gain 1.5; the whole ranking's mean gain is 1.5 / 3.
"""

from __future__ import annotations

import re

import polars as pl

from rankset.errors import UnknownMetricError
from rankset.measures._features import Features, ratio_or_zero, sequential_sum
from rankset.measures._registry import Metric, define
from rankset.measures.ranking import gain_row

__all__ = ["erag_metric"]

_CUTOFF_SUFFIX = re.compile(r"_(\d+)")
# eRAG's own measures on continuous labels, by their pytrec_eval names.
_ERAG_CONTINUOUS = {"p": "mean_gain", "success": "max_gain"}


def erag_metric(name: str, *, continuous: bool = True) -> str:
    """Spell one of eRAG's ``retrieval_metrics`` names as the rankset metric it computes.

    eRAG names metrics as pytrec_eval does. On labels that are all 0 or 1 it hands them
    to pytrec_eval, whose names rankset reads as they are (``P_10`` is ``precision@10``).
    On continuous labels it computes ``P`` and ``success`` itself, as the mean and the
    largest downstream score of the top k: ``mean_gain@k`` and ``max_gain@k`` here. A
    name without a cutoff means the whole ranking, as in eRAG.

    Parameters
    ----------
    name
        eRAG's (pytrec_eval's) metric name: ``"P_10"``, ``"success_1"``, ``"P"``...
    continuous
        Whether the labels are continuous (any score other than 0 or 1), when eRAG
        computes only ``P`` and ``success``.

    Raises
    ------
    UnknownMetricError
        With ``continuous``, a name other than ``P`` and ``success`` (eRAG refuses them
        too): the message names the measures of real-valued gains to use instead.

    Examples
    --------
    >>> erag_metric("P_10"), erag_metric("success"), erag_metric("P_10", continuous=False)
    ('mean_gain@10', 'max_gain', 'P_10')
    """
    if not continuous:
        return name
    base, cutoff = name, ""
    if "_" in name:
        base, _, rest = name.partition("_")
        if _CUTOFF_SUFFIX.fullmatch(f"_{rest}") is None:
            base = name
        else:
            cutoff = f"@{int(rest)}"
    measure = _ERAG_CONTINUOUS.get(base.lower())
    if measure is None:
        msg = (
            f"eRAG computes only P and success on continuous labels, not {name!r}; "
            "rankset's measures of real-valued gains include mean_gain, max_gain, "
            "gain_recall, ndcg, dcg and rbp."
        )
        raise UnknownMetricError(msg)
    return measure + cutoff


def _gain_sum(features: Features, metric: Metric) -> pl.Expr:
    gain = gain_row(features)
    name = f"_gain_sum_{features.cutoff_key(metric)}"
    return features.aggregate_within_cutoff(name, pl.col(gain), metric)


@define(
    "mean_gain",
    description="Generalized precision (Kekäläinen and Järvelin 2002): the gains (grade, 0 "
    "when unlabelled or negative) of the top k summed and divided by k, or by the documents "
    "retrieved without a cutoff (eRAG's P on continuous labels).",
    cutoff="optional",
    aliases=("generalized_precision",),
)
def _mean_gain(features: Features, metric: Metric) -> pl.Expr:
    total = _gain_sum(features, metric)
    if metric.k is None:
        return ratio_or_zero(total, features.num_ret().cast(pl.Float64))
    return total / features.cutoff_value(metric)


@define(
    "max_gain",
    description="The largest gain (grade, 0 when unlabelled or negative) in the top k, 0 "
    "when none is positive (eRAG's success on continuous labels).",
    cutoff="optional",
)
def _max_gain(features: Features, metric: Metric) -> pl.Expr:
    gain = gain_row(features)
    name = f"_gain_max_{features.cutoff_key(metric)}"
    # A minimum of the negated gains: the features reduce by sum or min.
    lowest = features.aggregate_within_cutoff(name, -pl.col(gain), metric, reducer="min")
    return (-lowest).fill_null(0.0)


@define(
    "gain_recall",
    description="Generalized recall (Kekäläinen and Järvelin 2002): the gains of the top k "
    "over the gains of all the query's labels, 0 when none is positive.",
    cutoff="optional",
    aliases=("generalized_recall",),
)
def _gain_recall(features: Features, metric: Metric) -> pl.Expr:
    grade = pl.col("grade")
    positive = pl.when(grade > 0).then(grade).otherwise(0.0).sort(descending=True)
    total = features.label_aggregate("_gain_total_lin", sequential_sum(positive))
    return ratio_or_zero(_gain_sum(features, metric), total)
