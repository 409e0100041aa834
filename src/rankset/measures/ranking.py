"""Classic IR measures: one function and one :func:`~rankset.measures.define` call each.

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

The features the measures share (relevant retrieved within k, DCG, ideal DCG...) are the
functions of the first half; each registers its columns on the
:class:`~rankset.measures.Features` it is given, under a name that encodes its
parameters.

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

import math

import polars as pl

from rankset.measures._features import (
    GROUP,
    Features,
    level_key,
    log2_of_positions,
    ratio_or_zero,
    sequential_sum,
)
from rankset.measures._gains import GAINS, GainMap, gain_map, gains_key, mapped_gain
from rankset.measures._registry import Metric, ParamSpec, define

__all__ = [
    "BETA",
    "REL",
    "bpref_sum",
    "discount_row",
    "discounted_gain",
    "first_relevant_position",
    "gain_row",
    "ideal_discounted_gain",
    "ideal_label_columns",
    "judged_retrieved",
    "judged_row",
    "nonrelevant_above_row",
    "num_nonrelevant_label_stat",
    "num_relevant",
    "num_relevant_label_stat",
    "num_relevant_on_rows",
    "precision_sum",
    "relevant_retrieved",
    "relevant_row",
    "relevant_so_far_row",
    "relevant_within_r",
]

REL = ParamSpec(
    "rel",
    float,
    None,
    minimum=None,
    description="relevance level for this metric (default: the evaluation's relevance_level)",
)
BETA = ParamSpec("beta", float, 1.0, minimum=0.0, description="weight of recall over precision")


# --- row features ----------------------------------------------------------------------


def relevant_row(features: Features, level: float) -> str:
    """Row column: the document is relevant at ``level`` (grade >= level)."""
    name = f"_rel_{level_key(level)}"
    return features.row_column(name, (pl.col("grade") >= level).fill_null(False))


def judged_row(features: Features) -> str:
    """Row column: the document has a label of grade >= 0 (judged)."""
    # Negative grades mean "in the pool but unjudged" (trec_eval); null = not in labels.
    return features.row_column("_judged", (pl.col("grade") >= 0).fill_null(False))


def relevant_so_far_row(features: Features, level: float) -> str:
    """Row column: relevant documents at or above this position."""
    rel = relevant_row(features, level)
    name = f"_cumrel_{level_key(level)}"
    return features.row_column(
        name, pl.col(rel).cast(pl.UInt32).cum_sum().over(GROUP, order_by="pos")
    )


def nonrelevant_above_row(features: Features, level: float) -> str:
    """Row column: judged non-relevant documents at or above this position."""
    rel = relevant_row(features, level)
    judged = judged_row(features)
    name = f"_nonrel_above_{level_key(level)}"
    judged_nonrel = (pl.col(judged) & ~pl.col(rel)).cast(pl.UInt32)
    return features.row_column(name, judged_nonrel.cum_sum().over(GROUP, order_by="pos"))


def gain_row(features: Features, *, exponential: bool = False, gains: GainMap | None = None) -> str:
    """Row column: the gain, grade (or 2^grade - 1, or mapped); 0 for unlabelled, negative."""
    name = ("_gain_exp" if exponential else "_gain_lin") + gains_key(gains)
    positive = mapped_gain(pl.col("grade"), gains)
    gain = (pl.lit(2.0).pow(positive) - 1.0) if exponential else positive
    return features.row_column(name, gain)


def discount_row(features: Features) -> str:
    """Row column: the DCG discount log2(position + 1)."""
    return features.row_column("_discount", log2_of_positions("pos"))


# --- label features --------------------------------------------------------------------


def num_relevant_label_stat(features: Features, level: float) -> str:
    """Label statistic: the query's relevant labels (grade >= level); returns its name."""
    name = f"_nrel_{level_key(level)}"
    features.label_aggregate(name, (pl.col("grade") >= level).sum().cast(pl.Float64))
    return name


def num_nonrelevant_label_stat(features: Features, level: float) -> str:
    """Label statistic: the query's judged non-relevant labels (0 <= grade < level)."""
    name = f"_nnonrel_{level_key(level)}"
    grade = pl.col("grade")
    features.label_aggregate(name, ((grade >= 0) & (grade < level)).sum().cast(pl.Float64))
    return name


def num_relevant_on_rows(features: Features, level: float) -> pl.Expr:
    """Return the query's relevant labels at ``level`` as a column visible on run rows."""
    name = num_relevant_label_stat(features, level)
    features.share_with_rows(name)
    return pl.col(name)


def num_relevant(features: Features, metric: Metric) -> pl.Expr:
    """Count the relevant labels of the query (grade >= level)."""
    return pl.col(num_relevant_label_stat(features, features.level(metric)))


def ideal_label_columns(
    features: Features, *, exponential: bool = False, gains: GainMap | None = None
) -> tuple[str, str, str]:
    """Label row columns of the ideal ranking: gain, ideal position and discount (names)."""
    kind = ("exp" if exponential else "lin") + gains_key(gains)
    positive = mapped_gain(pl.col("grade"), gains, ideal=True)
    gain = (pl.lit(2.0).pow(positive) - 1.0) if exponential else positive
    gain_name = features.label_row_column(f"_igain_{kind}", gain)
    position = features.label_row_column(
        f"_ipos{gains_key(gains)}", positive.rank("ordinal", descending=True).over("query_id")
    )
    discount = log2_of_positions(position)
    return gain_name, position, features.label_row_column(f"_idiscount{gains_key(gains)}", discount)


def ideal_discounted_gain(
    features: Features, metric: Metric, *, exponential: bool = False
) -> pl.Expr:
    """DCG of the ideal ranking of all the query's labels, within the cutoff."""
    gains = gain_map(metric)
    gain, position, discount = ideal_label_columns(features, exponential=exponential, gains=gains)
    kind = ("exp" if exponential else "lin") + gains_key(gains)
    name = f"_idcg_{kind}_{features.cutoff_key(metric)}"
    contribution = pl.col(gain) / pl.col(discount)
    return features.label_sum_within_cutoff(name, contribution, metric, position=position)


# --- per-(system, query) features ------------------------------------------------------


def relevant_retrieved(features: Features, metric: Metric) -> pl.Expr:
    """Count the relevant documents within the metric's cutoff."""
    level = features.level(metric)
    rel = relevant_row(features, level)
    name = f"_relret_{level_key(level)}_{features.cutoff_key(metric)}"
    return features.aggregate_within_cutoff(name, pl.col(rel), metric)


def judged_retrieved(features: Features, metric: Metric) -> pl.Expr:
    """Count the judged documents (grade >= 0) within the metric's cutoff."""
    judged = judged_row(features)
    name = f"_judgedret_{features.cutoff_key(metric)}"
    return features.aggregate_within_cutoff(name, pl.col(judged), metric)


def first_relevant_position(features: Features, metric: Metric) -> pl.Expr:
    """Return the first relevant position within the cutoff (null if none)."""
    level = features.level(metric)
    rel = relevant_row(features, level)
    name = f"_firstrel_{level_key(level)}_{features.cutoff_key(metric)}"
    first = pl.when(pl.col(rel)).then(pl.col("pos"))
    return features.aggregate_within_cutoff(name, first, metric, reducer="min")


def precision_sum(features: Features, metric: Metric) -> pl.Expr:
    """Sum of precision at each relevant position within the cutoff (AP numerator)."""
    level = features.level(metric)
    rel = relevant_row(features, level)
    cumrel = relevant_so_far_row(features, level)
    name = f"_precsum_{level_key(level)}_{features.cutoff_key(metric)}"
    precision_here = pl.col(cumrel).cast(pl.Float64) / pl.col("pos").cast(pl.Float64)
    contribution = pl.when(pl.col(rel)).then(precision_here).otherwise(0.0)
    return features.aggregate_within_cutoff(name, contribution, metric)


def discounted_gain(features: Features, metric: Metric, *, exponential: bool = False) -> pl.Expr:
    """DCG within the cutoff: gain / log2(position + 1), linear or 2^g - 1 gains."""
    gains = gain_map(metric)
    gain = gain_row(features, exponential=exponential, gains=gains)
    kind = ("exp" if exponential else "lin") + gains_key(gains)
    name = f"_dcg_{kind}_{features.cutoff_key(metric)}"
    discount = discount_row(features)
    return features.aggregate_within_cutoff(name, pl.col(gain) / pl.col(discount), metric)


def relevant_within_r(features: Features, metric: Metric) -> pl.Expr:
    """Relevant documents within the first R positions, R = number relevant (R-prec)."""
    level = features.level(metric)
    rel = relevant_row(features, level)
    num_rel = num_relevant_on_rows(features, level)
    name = f"_relret_{level_key(level)}_r"
    expr = (pl.col(rel) & (pl.col("pos") <= num_rel)).sum().cast(pl.Float64)
    return features.aggregate(name, expr)


def bpref_sum(features: Features, metric: Metric) -> pl.Expr:
    """Sum over relevant retrieved docs of 1 - min(n, R) / min(N, R) (trec_eval bpref).

    ``n`` is the number of judged non-relevant documents ranked above, ``R`` the
    number of relevant and ``N`` of judged non-relevant labels of the query.
    """
    level = features.level(metric)
    rel = relevant_row(features, level)
    above = nonrelevant_above_row(features, level)
    num_rel = num_relevant_label_stat(features, level)
    num_nonrel = num_nonrelevant_label_stat(features, level)
    features.share_with_rows(num_rel, num_nonrel)
    n = pl.col(above).cast(pl.Float64)
    big_r = pl.col(num_rel)
    big_n = pl.col(num_nonrel)
    term = (
        pl.when(n > 0)
        .then(1.0 - pl.min_horizontal(n, big_r) / pl.min_horizontal(big_n, big_r))
        .otherwise(1.0)
    )
    name = f"_bpref_{level_key(level)}"
    return features.aggregate(name, sequential_sum(term.filter(pl.col(rel))))


# --- the measures ----------------------------------------------------------------------


@define(
    "hit",
    description="1 if any relevant document is in the top k, else 0 (success; Hit Rate when "
    "averaged).",
    cutoff="required",
    params=(REL,),
    aliases=("retrieval-hit",),
    trec_eval="success_{k}",
    ir_measures="Success",
    ranx="hit_rate",
)
def _hit(features: Features, metric: Metric) -> pl.Expr:
    return (relevant_retrieved(features, metric) > 0).cast(pl.Float64)


@define(
    "precision",
    description="Relevant documents in the top k divided by k.",
    cutoff="required",
    params=(REL,),
    trec_eval="P_{k}",
    ir_measures="P",
    ranx="precision",
)
def _precision(features: Features, metric: Metric) -> pl.Expr:
    return relevant_retrieved(features, metric) / features.cutoff_value(metric)


@define(
    "recall",
    description="Relevant documents in the top k divided by all relevant labels of the query.",
    cutoff="optional",
    params=(REL,),
    aliases=("retrieval-recall", "retrievalrecall"),
    trec_eval="recall_{k}",
    ir_measures="R",
    ranx="recall",
)
def _recall(features: Features, metric: Metric) -> pl.Expr:
    return ratio_or_zero(relevant_retrieved(features, metric), num_relevant(features, metric))


def _f_measure(features: Features, metric: Metric, beta: float) -> pl.Expr:
    precision = _precision(features, metric)
    recall = _recall(features, metric)
    weight = beta * beta
    denominator = weight * precision + recall
    return ratio_or_zero((1.0 + weight) * precision * recall, denominator)


@define(
    "f1",
    description="Harmonic mean of precision@k and recall@k.",
    cutoff="required",
    params=(REL,),
    ranx="f1",
)
def _f1(features: Features, metric: Metric) -> pl.Expr:
    return _f_measure(features, metric, 1.0)


@define(
    "f2",
    description="F-measure at k weighting recall 4 times as much as precision (beta = 2).",
    cutoff="required",
    params=(REL,),
)
def _f2(features: Features, metric: Metric) -> pl.Expr:
    return _f_measure(features, metric, 2.0)


@define(
    "fbeta",
    description="F-measure at k with recall weighted beta^2 times as much as precision.",
    cutoff="required",
    params=(BETA, REL),
)
def _fbeta(features: Features, metric: Metric) -> pl.Expr:
    return _f_measure(features, metric, float(metric.get("beta")))  # type: ignore[arg-type]


@define(
    "recall_all",
    description="1 if every relevant label of the query is in the top k (0 when there is none).",
    cutoff="required",
    params=(REL,),
    aliases=("retrievalrecallall",),
)
def _recall_all(features: Features, metric: Metric) -> pl.Expr:
    num_rel = num_relevant(features, metric)
    return ((num_rel > 0) & (relevant_retrieved(features, metric) >= num_rel)).cast(pl.Float64)


@define(
    "rr",
    description="1 / position of the first relevant document (within k if given), 0 if none (MRR).",
    cutoff="optional",
    params=(REL,),
    aliases=("retrieval-mrr", "reciprocal_rank"),
    trec_eval="recip_rank",
    ir_measures="RR",
    ranx="mrr",
)
def _rr(features: Features, metric: Metric) -> pl.Expr:
    return (1.0 / first_relevant_position(features, metric)).fill_null(0.0)


@define(
    "ap",
    description="Average precision: precision at each relevant position (within k), summed, "
    "divided by all relevant labels (MAP when averaged).",
    cutoff="optional",
    params=(REL,),
    aliases=("average_precision",),
    trec_eval=("map", "map_cut_{k}"),
    ir_measures="AP",
    ranx="map",
)
def _ap(features: Features, metric: Metric) -> pl.Expr:
    return ratio_or_zero(precision_sum(features, metric), num_relevant(features, metric))


@define(
    "ndcg",
    description="DCG (gain = grade, discount log2(position + 1)) over the ideal DCG of all labels.",
    cutoff="optional",
    params=(GAINS,),
    aliases=("retrieval-ndcg",),
    trec_eval=("ndcg", "ndcg_cut_{k}"),
    ir_measures="nDCG",
    ranx="ndcg",
)
def _ndcg(features: Features, metric: Metric) -> pl.Expr:
    return ratio_or_zero(discounted_gain(features, metric), ideal_discounted_gain(features, metric))


@define(
    "ndcg_exp",
    description="nDCG with exponential gains 2^grade - 1 (Burges et al.).",
    cutoff="optional",
    ranx="ndcg_burges",
)
def _ndcg_exp(features: Features, metric: Metric) -> pl.Expr:
    return ratio_or_zero(
        discounted_gain(features, metric, exponential=True),
        ideal_discounted_gain(features, metric, exponential=True),
    )


@define(
    "dcg",
    description="Discounted cumulative gain with gain = grade and discount log2(position + 1).",
    cutoff="optional",
    params=(GAINS,),
    ranx="dcg",
)
def _dcg(features: Features, metric: Metric) -> pl.Expr:
    return discounted_gain(features, metric)


@define(
    "rprec",
    description="Precision at R, where R is the number of relevant labels of the query.",
    cutoff="none",
    params=(REL,),
    aliases=("r_precision",),
    trec_eval="Rprec",
    ir_measures="Rprec",
    ranx="r-precision",
)
def _rprec(features: Features, metric: Metric) -> pl.Expr:
    return ratio_or_zero(relevant_within_r(features, metric), num_relevant(features, metric))


@define(
    "bpref",
    description="Binary preference: how often relevant documents rank above judged "
    "non-relevant ones.",
    cutoff="none",
    params=(REL,),
    trec_eval="bpref",
    ir_measures="Bpref",
    ranx="bpref",
)
def _bpref(features: Features, metric: Metric) -> pl.Expr:
    return ratio_or_zero(bpref_sum(features, metric), num_relevant(features, metric))


#: trec_eval's floor under a value before its logarithm is taken (MIN_GEO_MEAN).
MIN_GEO_MEAN = 0.00001


def _floored_log(value: pl.Expr) -> pl.Expr:
    """log(max(value, MIN_GEO_MEAN)): a geometric measure's per-query value."""
    return value.clip(MIN_GEO_MEAN, None).log()


@define(
    "gm_map",
    description="AP averaged geometrically over queries (GMAP): per query log(max(AP, "
    "0.00001)), the summary exp of their mean.",
    cutoff="none",
    params=(REL,),
    empty_value=math.log(MIN_GEO_MEAN),
    trec_eval="gm_map",
    average="geometric",
)
def _gm_map(features: Features, metric: Metric) -> pl.Expr:
    return _floored_log(_ap(features, metric))


@define(
    "gm_bpref",
    description="bpref averaged geometrically over queries: per query log(max(bpref, "
    "0.00001)), the summary exp of their mean.",
    cutoff="none",
    params=(REL,),
    empty_value=math.log(MIN_GEO_MEAN),
    trec_eval="gm_bpref",
    average="geometric",
)
def _gm_bpref(features: Features, metric: Metric) -> pl.Expr:
    return _floored_log(_bpref(features, metric))


@define(
    "judged",
    description="Fraction of the top k that has a label (grade >= 0); unlabeled documents "
    "count as non-relevant, so read it beside the other metrics.",
    cutoff="required",
    ir_measures="Judged",
)
def _judged(features: Features, metric: Metric) -> pl.Expr:
    return judged_retrieved(features, metric) / features.cutoff_value(metric)


@define(
    "num_ret",
    description="Number of documents retrieved for the query (full depth).",
    cutoff="none",
    trec_eval="num_ret",
    ir_measures="NumRet",
)
def _num_ret(features: Features, metric: Metric) -> pl.Expr:
    del metric
    return features.num_ret()


@define(
    "num_rel",
    description="Number of relevant labels of the query.",
    cutoff="none",
    params=(REL,),
    empty_value="labels",
    trec_eval="num_rel",
    ir_measures="NumRel",
)
def _num_rel(features: Features, metric: Metric) -> pl.Expr:
    return num_relevant(features, metric)


@define(
    "num_rel_ret",
    description="Number of relevant documents retrieved (full depth).",
    cutoff="none",
    params=(REL,),
    trec_eval="num_rel_ret",
    ir_measures="NumRelRet",
    ranx="hits",
)
def _num_rel_ret(features: Features, metric: Metric) -> pl.Expr:
    return relevant_retrieved(features, metric)


# --- nDCG over the retrieved list only ---------------------------------------------------


def _any_ideal(found: pl.Series) -> pl.Series:
    """1 + 1/log2(2) + ... + 1/log2(m) for each count m (0 for m = 0), added in order."""
    table = {}
    for count in found.unique().drop_nulls().to_list():
        total = 0.0
        for position in range(1, int(count) + 1):
            total += 1.0 if position == 1 else 1.0 / math.log2(position)
        table[count] = total
    return found.replace_strict(table, default=None, return_dtype=pl.Float64)


@define(
    "ndcg_any",
    description="nDCG over the retrieved list only: binary gains, position p discounted by "
    "log2(p) (the first by 1), over the same relevances sorted (RAG libraries' NDCGAny).",
    cutoff="required",
    params=(REL,),
    aliases=("retrievalndcgany", "ndcg-any"),
)
def _ndcg_any(features: Features, metric: Metric) -> pl.Expr:
    """Differs from ``ndcg``: the ideal is built from the relevant documents *retrieved*.

    DCG = rel_1 + sum over p >= 2 of rel_p / log2(p); the ideal puts the m relevant
    documents of the top K first. Relevant labels never retrieved do not lower it, and a
    query with none retrieved scores 0.
    """
    level = features.level(metric)
    rel = relevant_row(features, level)
    discount = features.row_column(
        "_any_discount",
        pl.when(pl.col("pos") == 1).then(1.0).otherwise(pl.col("pos").cast(pl.Float64).log(2)),
    )
    name = f"_dcg_any_{level_key(level)}_{features.cutoff_key(metric)}"
    contribution = pl.col(rel).cast(pl.Float64) / pl.col(discount)
    dcg = features.aggregate_within_cutoff(name, contribution, metric)
    found = relevant_retrieved(features, metric)
    ideal = found.map_batches(_any_ideal, return_dtype=pl.Float64, is_elementwise=True)
    return pl.when(found > 0).then(dcg / ideal).otherwise(0.0)
