r"""RAG set metrics: what an LLM's K prompt slots hold, order inside them ignored.

A RAG generator reads the top-K passages as one set. These metrics ask how much of the
query's best evidence that set holds, where the headroom is, and how much junk came along:

``ra_nwg@k``
    Rarity-aware normalised weighted gain: the weight of the top-K set over the weight of
    the best K labelled passages of the query (the global oracle). 1.0 = as good as an
    omniscient selection.
``proc@k``
    Pool-restricted oracle ceiling: the best K-subset of the *pool* (by default everything
    the system retrieved; or a separate candidates run, e.g. a reranker's first stage) over
    the global oracle. Low PROC = a retrieval miss; no reranking can fix it.
``pct_proc@k`` (``%proc@k``)
    ra_nwg ÷ proc: how much of the pool's potential the top-K selection realised. Low
    %PROC with high PROC = a reranking miss.
``n_recall_4plus@k``, ``n_recall_5@k``
    Tier ≥ 4 (resp. tier 5) passages in the top K over min(K, such passages labelled).
``precision_4plus@k``
    Tier ≥ 4 passages in the top K over K.
``harm@k``
    Labelled tier ≤ 2 passages (weak, distractors) in the top K over K; ``harm(max_tier=1)``
    counts distractors (tier 1) only, the stricter rubric; ``harm(unjudged=1)`` also counts
    unlabelled ones. Read it beside ``judged@k``.
``containment@k``
    1 if any acceptable answer string occurs in the text of a top-K passage
    (``match=exact`` substring by default, ``casefold``, or ``whitespace``-normalised).

Grades map to tiers 5..1 through a scale (:mod:`rankset.measures.scales`). Per query, with N
labelled passages and n_g of tier g: p_g = n_g / N, r_g = b_g / p_g^alpha with base
utilities b = (1, 0.5, 0.1, 0, 0) for tiers 5..1 (r_g = 0 when n_g = 0); weights
w5 = 1, w4 = min(r4 / r5, cap4), w3 = min(r3 / r5, cap3), w2 = w1 = 0; a query without a
tier-5 passage uses w4 = fallback4, w3 = fallback3. Unlabelled passages weigh 0.

NA (null), never a silent 0: ra_nwg and proc when the oracle sum is 0 (or the query has no
labels), pct_proc when proc is 0 or NA, n_recall when no passage of the tier is labelled,
containment when the query has no answer.

Because the weights depend on the tier only, every sum of "the K largest weights" has a
closed form over the five tier counts, so the whole family costs a few counts per
(system, query) in the same group-by as the classic metrics.

Examples
--------
The worked example of the set-based evaluation write-up: labelled tiers
[5, 4, 4, 3, 3, 3, 2, 1], and a top 4 holding tiers [4, 3, 3, 3].

>>> import rankset
>>> labels = {"q": {"a": 5, "b": 4, "c": 4, "d": 3, "e": 3, "f": 3, "g": 2, "h": 1}}
>>> run = {"q": {"b": 4.0, "d": 3.0, "e": 2.0, "f": 1.0}}
>>> res = rankset.evaluate(run, labels, ["ra_nwg@4", "proc@4", "n_recall_4plus@4"])
>>> res.per_query.select("metric", pl.col("value").round(4))
shape: (3, 2)
┌──────────────────┬────────┐
│ metric           ┆ value  │
│ ---              ┆ ---    │
│ str              ┆ f64    │
╞══════════════════╪════════╡
│ ra_nwg@4         ┆ 0.2283 │
│ proc@4           ┆ 0.2283 │
│ n_recall_4plus@4 ┆ 0.3333 │
└──────────────────┴────────┘
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from rankset.measures._features import Features
from rankset.measures._registry import Metric, ParamSpec, define
from rankset.measures.scales import TIERS

__all__ = [
    "BASE_UTILITY",
    "WEIGHTED_TIERS",
    "best_k_weight",
    "first_containing_position",
    "num_answers",
    "pool_tier_counts",
    "tier_count",
    "tier_counts",
    "tier_weights",
    "tiers_in_top",
    "untiered_in_top",
]

BASE_UTILITY = {5: 1.0, 4: 0.5, 3: 0.1, 2: 0.0, 1: 0.0}
WEIGHTED_TIERS = (5, 4, 3)  # tiers 2 and 1 always weigh 0

_WEIGHT_PARAMS = (
    ParamSpec("alpha", float, 1.0, minimum=0.0, description="rarity exponent (0: no rarity)"),
    ParamSpec("cap4", float, 1.0, minimum=0.0, description="upper bound of the tier-4 weight"),
    ParamSpec("cap3", float, 0.25, minimum=0.0, description="upper bound of the tier-3 weight"),
    ParamSpec("fallback4", float, 1.0, minimum=0.0, description="tier-4 weight, no tier 5"),
    ParamSpec("fallback3", float, 0.2, minimum=0.0, description="tier-3 weight, no tier 5"),
)
_UNJUDGED = ParamSpec(
    "unjudged", int, 0, description="1: count unlabelled passages as harmful", choices=(0, 1)
)
_HARM_TIERS = ParamSpec(
    "max_tier",
    int,
    2,
    description="harmful tiers: 2 counts tiers 1-2 (weak and distractors), 1 distractors only",
    choices=(1, 2),
)
_MATCH = ParamSpec(
    "match",
    str,
    "exact",
    description="answer matching: exact, casefold or whitespace",
    choices=("exact", "casefold", "whitespace"),
)


# --- tier features ---------------------------------------------------------------------


def _tier(features: Features, grade: pl.Expr) -> pl.Expr:
    features.uses_tiers = True
    # Negative grades are "in the pool but unjudged": no tier, whatever the scale says.
    return pl.when(grade >= 0).then(features.scale.tier_expr(grade))


def _tier_row(features: Features) -> str:
    return features.row_column("_tier", _tier(features, pl.col("grade")))


def tier_count(features: Features, tier: int) -> pl.Expr:
    """Count the query's labels of ``tier`` (negative grades excluded)."""
    features.label_row_column("_tier", _tier(features, pl.col("grade")))
    name = f"_ntier_{tier}"
    return features.label_aggregate(name, (pl.col("_tier") == tier).sum().cast(pl.Float64))


def tier_counts(features: Features) -> dict[int, pl.Expr]:
    """Count the query's labels of every tier, ``{tier: expr}``."""
    return {tier: tier_count(features, tier) for tier in TIERS}


def tiers_in_top(features: Features, metric: Metric, lowest: int, highest: int = 5) -> pl.Expr:
    """Count documents within the cutoff whose tier is in ``lowest..highest``."""
    tier = pl.col(_tier_row(features))
    name = f"_top_tier_{lowest}_{highest}_{features.cutoff_key(metric)}"
    contribution = tier.is_between(lowest, highest).fill_null(False)
    return features.aggregate_within_cutoff(name, contribution, metric)


def untiered_in_top(features: Features, metric: Metric) -> pl.Expr:
    """Count documents within the cutoff that have no tier (unlabelled or negative).

    Those are the documents within the cutoff, ``min(k, retrieved)``, less the tiered
    ones: unlabelled rows are not in the joined frame.
    """
    cutoff = features.cutoff(metric)
    retrieved = features.num_ret()
    within = retrieved if cutoff is None else pl.min_horizontal(cutoff, retrieved)
    tiered = tiers_in_top(features, metric, min(TIERS), max(TIERS))
    return within.cast(pl.Float64) - tiered


def pool_tier_counts(features: Features) -> dict[int, pl.Expr]:
    """Count the pool's documents of every tier.

    By default the pool of a (system, query) is everything the system retrieved for
    the query, or its first ``pool_depth`` documents; evaluation replaces these columns
    when a separate pool run is given.
    """
    tier = pl.col(_tier_row(features))
    depth = features.pool_depth
    in_pool = pl.lit(True) if depth is None else pl.col("pos") <= depth
    return {
        t: features.aggregate(
            f"_pool_tier_{t}", ((tier == t) & in_pool).fill_null(False).sum().cast(pl.Float64)
        )
        for t in TIERS
    }


# --- answer features (containment) -----------------------------------------------------


def first_containing_position(features: Features, mode: str) -> pl.Expr:
    """Return the first position whose text contains an answer (null if none).

    Computed by a separate aggregation over (run text × answers) that the evaluation
    joins in, for every mode in :attr:`Features.containment_modes`.
    """
    features.containment_modes.add(mode)
    return features.external(f"_first_answer_{mode}", empty=None)


def num_answers() -> pl.Expr:
    """Count the acceptable answers of the query (0 when it has none)."""
    return pl.col("_n_answers").fill_null(0)


# --- weights ---------------------------------------------------------------------------


def tier_weights(features: Features, metric: Metric) -> dict[int, pl.Expr]:
    """Return the rarity-aware weight of tiers 5, 4, 3 of each query as expressions."""
    counts = tier_counts(features)
    alpha = float(metric.get("alpha"))  # type: ignore[arg-type]
    total = sum(counts.values(), start=pl.lit(0.0))

    def rarity(tier: int) -> pl.Expr:
        share = counts[tier] / total
        return pl.when(counts[tier] > 0).then(BASE_UTILITY[tier] / share.pow(alpha)).otherwise(0.0)

    has_five = counts[5] > 0
    w4 = pl.min_horizontal(rarity(4) / rarity(5), pl.lit(float(metric.get("cap4"))))  # type: ignore[arg-type]
    w3 = pl.min_horizontal(rarity(3) / rarity(5), pl.lit(float(metric.get("cap3"))))  # type: ignore[arg-type]
    return {
        5: pl.lit(1.0),
        4: pl.when(has_five).then(w4).otherwise(float(metric.get("fallback4"))),  # type: ignore[arg-type]
        3: pl.when(has_five).then(w3).otherwise(float(metric.get("fallback3"))),  # type: ignore[arg-type]
    }


def best_k_weight(
    counts: Mapping[int, pl.Expr], weights: Mapping[int, pl.Expr], k: pl.Expr
) -> pl.Expr:
    """Sum of the K largest weights of a set holding ``counts[t]`` items of tier t.

    Items are taken greedily by weight; a tier gets ``clip(K - items ranked above it, 0,
    count)`` slots, where items of other tiers rank above when their weight is larger, or
    equal and their tier higher (so ties are counted once).
    """
    total = pl.lit(0.0)
    for tier in WEIGHTED_TIERS:
        above = pl.lit(0.0)
        for other in WEIGHTED_TIERS:
            if other == tier:
                continue
            outranks = (weights[other] > weights[tier]) | (
                (weights[other] == weights[tier]) & pl.lit(other > tier)
            )
            above = above + pl.when(outranks).then(counts[other]).otherwise(0.0)
        slots = (k.cast(pl.Float64) - above).clip(0.0, None)
        total = total + weights[tier] * pl.min_horizontal(slots, counts[tier])
    return total


def _observed_and_oracle(features: Features, metric: Metric) -> tuple[pl.Expr, pl.Expr]:
    weights = tier_weights(features, metric)
    top = {tier: tiers_in_top(features, metric, tier, tier) for tier in WEIGHTED_TIERS}
    observed = sum((weights[t] * top[t] for t in WEIGHTED_TIERS), start=pl.lit(0.0))
    oracle = best_k_weight(tier_counts(features), weights, features.cutoff_value(metric))
    return observed, oracle


def _ratio_or_na(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(None)


# --- the measures ----------------------------------------------------------------------

_ORACLE_NA = "the query's best K labelled passages weigh 0 (or it has no labels)"


@define(
    "ra_nwg",
    description="Weight of the top-K set over the weight of the best K labelled passages (0..1).",
    cutoff="required",
    params=_WEIGHT_PARAMS,
    aliases=("ra-nwg", "ranwg"),
    na_rule=_ORACLE_NA,
)
def _ra_nwg(features: Features, metric: Metric) -> pl.Expr:
    observed, oracle = _observed_and_oracle(features, metric)
    return _ratio_or_na(observed, oracle)


@define(
    "proc",
    description="Best K-subset of the pool over the best K labelled passages: the retrieval "
    "ceiling.",
    cutoff="required",
    params=_WEIGHT_PARAMS,
    na_rule=_ORACLE_NA,
)
def _proc(features: Features, metric: Metric) -> pl.Expr:
    weights = tier_weights(features, metric)
    oracle = best_k_weight(tier_counts(features), weights, features.cutoff_value(metric))
    pool_best = best_k_weight(pool_tier_counts(features), weights, features.cutoff_value(metric))
    return _ratio_or_na(pool_best, oracle)


@define(
    "pct_proc",
    description="ra_nwg / proc: how much of the pool's potential the top-K selection realised.",
    cutoff="required",
    params=_WEIGHT_PARAMS,
    aliases=("%proc",),
    # With the default pool (what the system retrieved) an unanswered query's proc is 0.
    empty_value=None,
    na_rule="proc is 0 or NA",
)
def _pct_proc(features: Features, metric: Metric) -> pl.Expr:
    return _ratio_or_na(_ra_nwg(features, metric), _proc(features, metric))


def _n_recall(features: Features, metric: Metric, lowest: int) -> pl.Expr:
    labelled = sum((tier_count(features, t) for t in range(lowest, 6)), start=pl.lit(0.0))
    denominator = pl.min_horizontal(features.cutoff_value(metric), labelled)
    return _ratio_or_na(tiers_in_top(features, metric, lowest), denominator)


@define(
    "n_recall_4plus",
    description="Tier >= 4 passages in the top K over min(K, tier >= 4 passages labelled).",
    cutoff="required",
    aliases=("n-recall4+", "nrecall4+"),
    na_rule="no tier >= 4 passage is labelled",
)
def _n_recall_4plus(features: Features, metric: Metric) -> pl.Expr:
    return _n_recall(features, metric, 4)


@define(
    "n_recall_5",
    description="Tier-5 passages in the top K over min(K, tier-5 passages labelled).",
    cutoff="required",
    aliases=("n-recall5", "nrecall5"),
    na_rule="no tier-5 passage is labelled",
)
def _n_recall_5(features: Features, metric: Metric) -> pl.Expr:
    return _n_recall(features, metric, 5)


@define(
    "precision_4plus",
    description="Tier >= 4 passages in the top K over K.",
    cutoff="required",
    aliases=("precision4+",),
)
def _precision_4plus(features: Features, metric: Metric) -> pl.Expr:
    return tiers_in_top(features, metric, 4) / features.cutoff_value(metric)


@define(
    "harm",
    description="Labelled tier <= 2 passages (weak, distractors) in the top K over K; lower "
    "is better.",
    cutoff="required",
    params=(_UNJUDGED, _HARM_TIERS),
    greater_is_better=False,
)
def _harm(features: Features, metric: Metric) -> pl.Expr:
    harmful = tiers_in_top(features, metric, 1, int(metric.get("max_tier")))  # type: ignore[arg-type]
    if metric.get("unjudged"):
        harmful = harmful + untiered_in_top(features, metric)
    return harmful / features.cutoff_value(metric)


@define(
    "containment",
    description="1 if an acceptable answer string occurs in the text of a top-K passage.",
    cutoff="required",
    params=(_MATCH,),
    aliases=("answer-containment", "answer_containment"),
    na_rule="the query has no acceptable answer",
)
def _containment(features: Features, metric: Metric) -> pl.Expr:
    first = first_containing_position(features, str(metric.get("match")))
    cutoff = features.cutoff_value(metric)
    found = (first <= cutoff).fill_null(False).cast(pl.Float64)
    return pl.when(num_answers() > 0).then(found).otherwise(None)
