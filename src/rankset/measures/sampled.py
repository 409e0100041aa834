r"""Measures estimated from a stratified sample of the pool: NIST's ``sample_eval.pl``.

Collections judged by sampling (Yilmaz, Kanoulas and Aslam, "A simple and efficient
sampling method for estimating AP and NDCG", SIGIR 2008) label each pooled document with
its stratum and judge a random sample of every stratum; a grade of -1 means pooled, not
sampled (:func:`rankset.io.read_sampled_qrels` reads such qrels; labels without a
``stratum`` column are one stratum). These measures are ``sample_eval.pl``'s (NIST's
version of 10 Oct 2011), each per query, on the top 1000 documents of a ranking (the
script's ``maxResultSize``); a document is relevant when its grade is above 0 and sampled
when it is 0 or more. For a stratum ``s`` of a query, ``D_s`` is its pooled documents,
``S_s`` the sampled ones and ``R_s`` the sampled relevant ones; above a position,
``d_s``, ``n_s`` and ``r_s`` count the pooled, sampled and relevant documents of ``s``
retrieved, and ``d = Σ d_s`` is the pooled documents retrieved.

* ``inum_rel``: estimated relevant documents, ``R̂ = Σ_s R_s D_s / S_s`` (strata with
  ``S_s > 0``);
* ``inum_rel_ret``: estimated relevant documents retrieved,
  ``N = Σ_s d_s (r_s + 10⁻⁵) / (n_s + 3·10⁻⁵)`` over the whole ranking;
* ``infp@k``: inferred precision, ``N`` within the top ``k`` over ``k`` (the script's
  ``iP10``, ``iP50``, ``iP1000``);
* ``xinfap``: extended inferred AP. At a relevant document at rank ``k``, the precision
  ``1/k + (d/k) Σ_s (d_s/d)(r_s + 10⁻⁵)/(n_s + 3·10⁻⁵)`` (counts above it); ``SAP_s``
  sums it over the relevant documents of stratum ``s``, and
  ``xinfAP = Σ_s (R_s D_s / S_s) / R̂ · SAP_s / R_s`` (the script's ``infAP``);
* ``infndcg``: inferred nDCG. Each relevant document adds ``grade / log2(rank + 1)``
  (``log(rank + 1) / log(2)``)
  to its stratum's gain ``G_s``; ``DCG = Σ_s (d_s/d) G_s / n_s`` and
  ``infNDCG = d · DCG / IDCG``, where the ideal ranking holds, per grade ``g``,
  ``round(Σ_s R_{s,g} D_s / S_s)`` documents, the grades in the order of their
  decimal text, descending (the script sorts them as text: ``"2"`` before ``"10"``),
  with at least one document of each such grade past rank 1000;
* ``infiprec_at_recall(recall=r)``: inferred interpolated precision at recall ``r``, one
  of 0, 0.1, ..., 1 (the script's ``iprec@rec``). The estimated precision at rank ``i``
  is ``N_i / i``; walking up from the last rank with the levels from 1 down, a level
  ``r`` with ``r R̂`` at most ``N`` takes the best precision at or below the first rank
  (from the bottom) whose ``N_i`` is under ``r R̂`` and below the rank the previous level
  took; a level with ``r R̂`` above ``N`` gets 0, and a level no rank reaches gets the
  best precision anywhere.

Every sum over strata runs in the strata's text order, from 0, and every operation in the
script's order (``0.00003``, not ``3 * 0.00001``; a division by a per-query number divides
by a column, where Polars would multiply by a scalar's reciprocal), so the values have the
script's bits and print as it prints them (``rankset sample_eval`` is the byte-for-byte
drop-in; its estimates meet exact ties, as ``N_i`` equal to ``r R̂``). The sums at every
rank, which ``xinfap`` and ``infiprec_at_recall`` read, are computed for all rows at once,
stratum number by stratum number (:func:`_stratum_sums`).

Examples
--------
Two strata: ``a`` fully judged, ``b`` with one of its two documents sampled (``R̂ = 1 · 3/3
+ 1 · 2/1 = 3``). The relevant ``d3`` (stratum ``b``) at rank 2 has a non-relevant document
above it: precision about 1/2; so has ``d1`` (stratum ``a``) at rank 4, with two judged
documents above it, one relevant: ``1/4 + 2/4 · 1/2``. xinfAP is ``1/3 · 1/2 + 2/3 · 1/2``.

>>> import rankset
>>> labels = pl.DataFrame({
...     "query_id": ["q"] * 5,
...     "doc_id": ["d1", "d2", "d3", "d4", "d5"],
...     "grade": [2.0, 0.0, 1.0, -1.0, 0.0],
...     "stratum": ["a", "a", "b", "b", "a"],
... })
>>> run = {"q": {"d2": 5.0, "d3": 4.0, "x": 3.0, "d1": 2.0, "d4": 1.0}}
>>> names = ["inum_rel", "inum_rel_ret", "infp@10", "xinfap", "infndcg"]
>>> res = rankset.evaluate(run, labels, names, confidence=None)
>>> dict(res.per_query.select("metric", pl.col("value").round(4)).rows())
{'inum_rel': 3.0, 'inum_rel_ret': 3.0, 'infp@10': 0.3, 'xinfap': 0.5, 'infndcg': 0.6781}
"""

from __future__ import annotations

import functools
from typing import Final

import polars as pl

from rankset.errors import ParameterError
from rankset.measures._features import GROUP, Features
from rankset.measures._registry import Metric, ParamSpec, define

__all__ = [
    "MAX_RESULT_SIZE",
    "RECALL_LEVELS",
    "SAMPLE_EVAL_EPSILON",
    "estimated_relevant",
    "ideal_dcg",
]

#: Only this many documents of a ranking count (``sample_eval.pl``'s ``maxResultSize``).
MAX_RESULT_SIZE: Final = 1000
#: The script's smoothing: ``(r + ε) / (n + 3ε)`` estimates a stratum's precision.
SAMPLE_EVAL_EPSILON: Final = 0.00001
# 3ε as the script writes it (0.00003): 3 * 0.00001 is 3.0000000000000004e-05
_THREE_EPSILON: Final = 0.00003
#: The recall levels of ``infiprec_at_recall``; each level's value depends on the ones above.
RECALL_LEVELS: Final = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# Columns of the optional stratum: labels without one are a single stratum.
_STRATUM: Final = pl.coalesce(pl.col("^stratum$"), pl.lit("", dtype=pl.String))
_FAR: Final = 1 << 40  # a rank past any ranking: "no level above took one yet"

RECALL = ParamSpec(
    "recall",
    float,
    0.0,
    minimum=0.0,
    description="recall level: 0, 0.1, ..., 1 (sample_eval's iprec@rec)",
    choices=RECALL_LEVELS,
)


# --- labels: per stratum and per query --------------------------------------------------


def _label_stratum(features: Features) -> str:
    return features.label_row_column("_sx_lstratum", _STRATUM)


def _stratum_counts(features: Features) -> tuple[str, str, str]:
    """Label row columns ``D_s``, ``S_s``, ``R_s`` of each label's stratum (floats)."""
    stratum = _label_stratum(features)
    within = ("query_id", stratum)
    pooled = features.label_row_column("_sx_pooled", pl.len().over(within).cast(pl.Float64))
    sampled = features.label_row_column(
        "_sx_sampled", (pl.col("grade") >= 0).sum().over(within).cast(pl.Float64)
    )
    relevant = features.label_row_column(
        "_sx_relevant", (pl.col("grade") > 0).sum().over(within).cast(pl.Float64)
    )
    return pooled, sampled, relevant


def _per_stratum(features: Features, values: pl.Expr) -> pl.Expr:
    """``values`` of each label stratum (first label of each), in the strata's text order."""
    stratum = pl.col(_label_stratum(features))
    first = stratum.is_first_distinct()
    return values.filter(first).sort_by(stratum.filter(first))


def _estimated_relevant_term(features: Features) -> str:
    """``R_s D_s / S_s`` on each label (0 where nothing of the stratum was sampled)."""
    pooled, sampled, relevant = (pl.col(name) for name in _stratum_counts(features))
    return features.label_row_column(
        "_sx_rel_estimate",
        pl.when(sampled != 0).then(relevant * pooled / sampled).otherwise(0.0),
    )


def _relevant_share(features: Features) -> str:
    """``(R_s D_s / S_s) / R̂`` on each label: its stratum's share of the relevant (or 0).

    ``R̂`` is a column here (a window over the query), not a scalar: Polars divides by a
    scalar by multiplying with its reciprocal, which is not the script's division.
    """
    term = pl.col(_estimated_relevant_term(features))
    total = _per_stratum(features, term).cum_sum().last().over("query_id")
    return features.label_row_column(
        "_sx_rel_share", pl.when(total != 0).then(term / total).otherwise(0.0)
    )


def estimated_relevant(features: Features) -> pl.Expr:
    """``R̂``: the query's estimated relevant documents (a label statistic)."""
    term = pl.col(_estimated_relevant_term(features))
    return features.label_aggregate("_sx_num_rel", _per_stratum(features, term).cum_sum().last())


def _grade_text(grade: pl.Expr) -> pl.Expr:
    """Spell a grade as the script's hash key does: ``2`` for 2.0, ``0.5`` for 0.5."""
    whole = grade == grade.round(0)
    return (
        pl.when(whole).then(grade.cast(pl.Int64).cast(pl.String)).otherwise(grade.cast(pl.String))
    )


def ideal_dcg(features: Features) -> pl.Expr:
    """Return the script's ideal DCG: ``round(Σ_s R_{s,g} D_s / S_s)`` documents per grade ``g``.

    Grades are taken in descending text order; a grade's documents run from the rank
    after the previous grade's, and stop past rank 1000 after at least one.
    """
    pooled, sampled, _ = (pl.col(name) for name in _stratum_counts(features))
    stratum = _label_stratum(features)
    grade = pl.col("grade")
    of_grade = ("query_id", stratum, "grade")
    first_of_grade = pl.int_range(pl.len()).over(of_grade) == 0
    grade_term = features.label_row_column(
        "_sx_grade_estimate_term",
        pl.when((grade > 0) & first_of_grade)
        .then(pl.len().over(of_grade).cast(pl.Float64) * pooled / sampled)
        .otherwise(0.0),
    )
    # Σ_s in the strata's text order; the other labels add 0.0, which changes no sum.
    running = pl.col(grade_term).cum_sum().over("query_id", "grade", order_by=stratum)
    estimate = features.label_row_column(
        "_sx_grade_estimate", running.max().over("query_id", "grade")
    )
    grades = grade.filter(grade > 0)
    first = grades.is_first_distinct()
    order = _grade_text(grades.filter(first))
    graded = grades.filter(first).sort_by(order, descending=True)
    count = (
        (pl.col(estimate).filter(grade > 0).filter(first).sort_by(order, descending=True) + 0.5)
        .floor()
        .cast(pl.Int64)
    )
    start = count.cum_sum() - count
    shown = pl.min_horizontal(count, pl.max_horizontal(pl.lit(1), MAX_RESULT_SIZE - start))
    ranks = pl.int_ranges(start + 1, start + 1 + shown).explode()
    gains = graded.repeat_by(shown).explode()
    total = (gains / _perl_log2(ranks + 1)).cum_sum().last()
    return features.label_aggregate("_sx_ideal_dcg", total)


def _perl_log2(values: pl.Expr) -> pl.Expr:
    """``log(x) / log(2)``, the script's discount: natural logs, a true division."""
    floats = values.cast(pl.Float64)
    return floats.log() / (floats * 0.0 + 2.0).log()


# --- run rows: running counts per stratum -----------------------------------------------


def _stratum(features: Features) -> str:
    return features.row_column("_sx_stratum", _STRATUM)


def _top(features: Features) -> str:
    return features.row_column("_sx_top", pl.col("pos") <= MAX_RESULT_SIZE)


def _running_counts(features: Features) -> tuple[str, str, str]:
    """``d_s``, ``n_s``, ``r_s`` of the row's stratum down to and including the row."""
    within = (*GROUP, _stratum(features))
    pooled = features.row_column(
        "_sx_pooled_here", pl.int_range(1, pl.len() + 1).over(within).cast(pl.Float64)
    )
    sampled = features.row_column(
        "_sx_sampled_here", (pl.col("grade") >= 0).cast(pl.Float64).cum_sum().over(within)
    )
    relevant = features.row_column(
        "_sx_relevant_here", (pl.col("grade") > 0).cast(pl.Float64).cum_sum().over(within)
    )
    return pooled, sampled, relevant


def _relevant_estimate(pooled: pl.Expr, sampled: pl.Expr, relevant: pl.Expr) -> pl.Expr:
    """Return a stratum's term of ``N``: ``d_s (r_s + ε) / (n_s + 3ε)``, in the script's order."""
    return pooled * (relevant + SAMPLE_EVAL_EPSILON) / (sampled + _THREE_EPSILON)


def _stratum_term(features: Features) -> str:
    """Register the row's stratum's term of ``N`` down to and including the row."""
    pooled, sampled, relevant = (pl.col(name) for name in _running_counts(features))
    return features.row_column("_sx_term", _relevant_estimate(pooled, sampled, relevant))


def _running_estimate(features: Features) -> tuple[str, str]:
    """Register ``N`` down to each row, and the precision of the strata above it.

    ``N`` sums ``d_s (r_s + ε) / (n_s + 3ε)`` with the row counted; the precision above
    sums ``(d_s / d)(r_s + ε) / (n_s + 3ε)`` over the strata of the ``d`` pooled
    documents above it (0 when there are none). Both in the strata's text order, as the
    script adds them (:func:`_stratum_sums`).
    """
    sums = features.row_column("_sx_stratum_sums", _sums_of(_stratum(features)))
    here = features.row_column("_sx_estimate_here", pl.col(sums).struct.field("here"))
    above = features.row_column("_sx_precision_above", pl.col(sums).struct.field("precision_above"))
    return here, above


_SUMS: Final = pl.Struct({"here": pl.Float64, "precision_above": pl.Float64})


@functools.cache
def _sums_of(stratum: str) -> pl.Expr:
    """One expression per stratum column (cached), so features that share it compare equal."""
    inputs = pl.struct(*GROUP, "pos", "grade", stratum=pl.col(stratum))
    return inputs.map_batches(_stratum_sums, return_dtype=_SUMS)


def _stratum_sums(rows: pl.Series) -> pl.Series:
    """Compute :func:`_running_estimate`'s two sums for every labelled row at once.

    Each ranking's strata are numbered in text order; for each number in turn (a loop
    over strata, not queries), every row's counts of that stratum are carried down from
    the stratum's last row at or above it, and its term is added to the row's sums.
    """
    import numpy as np

    frame = rows.struct.unnest().with_row_index("_row")
    if frame.height == 0:
        return pl.Series(rows.name, [], dtype=_SUMS)
    ranking = ("system", "query_id")
    ordered = frame.sort(*ranking, "pos", maintain_order=True).with_columns(
        (pl.col("stratum").rank("dense").over(ranking) - 1).alias("_number"),
        (pl.int_range(pl.len()).over(ranking) == 0).alias("_start"),
        pl.int_range(pl.len()).over(ranking).cast(pl.Float64).alias("_above"),
        pl.int_range(1, pl.len() + 1).over(*ranking, "stratum").cast(pl.Float64).alias("_d"),
        (pl.col("grade") >= 0).cast(pl.Float64).cum_sum().over(*ranking, "stratum").alias("_n"),
        (pl.col("grade") > 0).cast(pl.Float64).cum_sum().over(*ranking, "stratum").alias("_r"),
    )
    number = ordered["_number"].to_numpy()
    start = ordered["_start"].to_numpy()
    above = ordered["_above"].to_numpy()
    own = {name: ordered[name].to_numpy() for name in ("_d", "_n", "_r")}
    index = np.arange(ordered.height)
    here = np.zeros(ordered.height)
    precision = np.zeros(ordered.height)
    depth = np.where(above > 0, above, 1.0)
    for stratum in range(int(number.max()) + 1):
        mine = number == stratum
        last = np.maximum.accumulate(np.where(mine | start, index, 0))
        carried = mine[last]
        d, n, r = (np.where(carried, own[name][last], 0.0) for name in ("_d", "_n", "_r"))
        here = here + d * (r + SAMPLE_EVAL_EPSILON) / (n + _THREE_EPSILON)
        # the counts above a row are the previous row's, within its ranking
        d, n, r = (np.where(start, 0.0, np.roll(counts, 1)) for counts in (d, n, r))
        share = np.where(above > 0, d / depth, 0.0)
        precision = precision + share * (r + SAMPLE_EVAL_EPSILON) / (n + _THREE_EPSILON)
    sums = pl.DataFrame({"_row": ordered["_row"], "here": here, "precision_above": precision}).sort(
        "_row"
    )
    return sums.select(pl.struct("here", "precision_above").alias(rows.name)).to_series()


def _over_strata(features: Features, values: pl.Expr, within: pl.Expr) -> pl.Expr:
    """Σ over strata, in text order, of ``values`` at each stratum's last row ``within``."""
    stratum = pl.col(_stratum(features)).filter(within)
    last = stratum.is_last_distinct()
    return values.filter(within).filter(last).sort_by(stratum.filter(last)).cum_sum().last()


def _estimated_relevant_within(features: Features, within: pl.Expr) -> pl.Expr:
    return _over_strata(features, pl.col(_stratum_term(features)), within)


# --- the measures -------------------------------------------------------------------


@define(
    "inum_rel",
    description="Estimated relevant documents of a query, from a stratified sample of its "
    "pool: Σ over strata of sampled relevant × pooled / sampled (sample_eval's inum_rel).",
    cutoff="none",
    empty_value="labels",
)
def _inum_rel(features: Features, metric: Metric) -> pl.Expr:
    return estimated_relevant(features).fill_null(0.0)


@define(
    "inum_rel_ret",
    description="Estimated relevant documents retrieved (top 1000), from a stratified sample "
    "of the pool (sample_eval's inum_rel_ret).",
    cutoff="none",
)
def _inum_rel_ret(features: Features, metric: Metric) -> pl.Expr:
    top = pl.col(_top(features))
    return features.aggregate("_sx_num_rel_ret", _estimated_relevant_within(features, top))


@define(
    "infp",
    description="Inferred precision at k: the estimated relevant documents in the top k "
    "(of at most 1000) over k (sample_eval's iP10, iP50, iP1000).",
    cutoff="required",
)
def _infp(features: Features, metric: Metric) -> pl.Expr:
    within = pl.col(_top(features)) & features.within(metric)
    name = f"_sx_num_rel_ret_{features.cutoff_key(metric)}"
    found = features.aggregate(name, _estimated_relevant_within(features, within))
    return found / features.cutoff_value(metric)


@define(
    "xinfap",
    description="Extended inferred AP (xinfAP): AP estimated from a stratified sample of "
    "the pool, stratum by stratum (sample_eval's infAP).",
    cutoff="none",
)
def _xinfap(features: Features, metric: Metric) -> pl.Expr:
    _, above = _running_estimate(features)
    grade, rank = pl.col("grade"), pl.col("pos").cast(pl.Float64)
    labelled = features.row_column(
        "_labelled_to_here", pl.col("pos").rank("ordinal").over(GROUP).cast(pl.Float64)
    )
    depth = pl.col(labelled) - 1.0
    precision_above = pl.col(above)
    precision = 1.0 / rank + (depth / rank) * precision_above
    summed = features.row_column(
        "_sx_precision_sum",
        pl.when(grade > 0)
        .then(precision)
        .otherwise(0.0)
        .cum_sum()
        .over(*GROUP, _stratum(features)),
    )
    # the labels' strata, their share R_s D_s / S_s / R̂ and R_s, beside each row
    label_strata = {
        "_sx_strata": pl.col(_label_stratum(features)),
        "_sx_strata_shares": pl.col(_relevant_share(features)),
        "_sx_strata_relevant": pl.col(_stratum_counts(features)[2]),
    }
    strata, shares, relevant = (
        features.label_aggregate(name, _per_stratum(features, values))
        for name, values in label_strata.items()
    )
    features.share_with_rows(*label_strata)
    # per retrieved stratum, in text order: SAP_s at its last row, and its label numbers
    top = pl.col(_top(features))
    stratum = pl.col(_stratum(features)).filter(top)
    last = stratum.is_last_distinct()
    retrieved = stratum.filter(last).sort()
    sap = pl.col(summed).filter(top).filter(last).sort_by(stratum.filter(last))
    kept = strata.first().explode().is_in(retrieved.implode())
    share = shares.first().explode().filter(kept)
    r_s = relevant.first().explode().filter(kept)
    within_stratum = pl.when(r_s != 0).then(sap / r_s).otherwise(0.0)
    term = share * within_stratum
    return features.aggregate("_sx_xinfap", term.cum_sum().last())


@define(
    "infndcg",
    description="Inferred nDCG from a stratified sample of the pool: each stratum's gains "
    "scaled by its sampling rate, over an estimated ideal ranking (sample_eval's infNDCG).",
    cutoff="none",
)
def _infndcg(features: Features, metric: Metric) -> pl.Expr:
    pooled, sampled, _ = _running_counts(features)
    grade = pl.col("grade")
    discount = _perl_log2(pl.col("pos") + 1)
    gains = features.row_column(
        "_sx_gain",
        pl.when(grade > 0)
        .then(grade / discount)
        .otherwise(0.0)
        .cum_sum()
        .over(*GROUP, _stratum(features)),
    )
    top = pl.col(_top(features))
    depth = features.row_column("_sx_depth", top.sum().over(GROUP).cast(pl.Float64))
    term = pl.when(pl.col(sampled) != 0).then(
        pl.col(pooled) / pl.col(depth) * pl.col(gains) / pl.col(sampled)
    )
    dcg = features.aggregate("_sx_dcg", _over_strata(features, term.otherwise(0.0), top))
    retrieved = features.aggregate("_sx_pooled_retrieved", pl.col(depth).first())
    ideal = ideal_dcg(features).fill_null(0.0)
    return pl.when(ideal != 0).then(retrieved * dcg / ideal).otherwise(0.0)


@define(
    "infiprec_at_recall",
    description="Inferred interpolated precision at a recall level (0, 0.1, ..., 1) of the "
    "estimated relevant documents (sample_eval's iprec@rec).",
    cutoff="none",
    params=(RECALL,),
)
def _infiprec_at_recall(features: Features, metric: Metric) -> pl.Expr:
    recall = float(metric.get("recall"))  # type: ignore[arg-type]
    if recall not in RECALL_LEVELS:  # the ParamSpec's choices hold this already
        msg = f"The 'recall' parameter of {metric.name} must be one of {RECALL_LEVELS}."
        raise ParameterError(msg)
    level = RECALL_LEVELS.index(recall)
    taken = _taken_ranks(features)[level]
    here, _ = _running_estimate(features)
    top = pl.col(_top(features))
    estimate, rank = pl.col(here), pl.col("pos").cast(pl.Float64)
    start = pl.max_horizontal(pl.col(taken), pl.lit(1)).cast(pl.Float64)
    following = pl.col("pos").shift(-1).over(GROUP)
    holds_start = (rank <= start) & (following.is_null() | (following > start))
    precision = (
        pl.when(rank >= start)
        .then(estimate / rank)
        .when(holds_start)
        .then(estimate / start)
        .otherwise(None)
    )
    best = precision.filter(top).max().fill_null(0.0)
    value = pl.when(pl.col(taken).first() >= _FAR).then(0.0).otherwise(best)
    return features.aggregate(f"_sx_iprec_{level}", pl.max_horizontal(value, pl.lit(0.0)))


def _taken_ranks(features: Features) -> list[str]:
    """Row columns: the rank at which each recall level takes its precision (11 levels).

    From level 1 down, level ``i`` takes the last rank, above the rank level ``i + 1``
    took, whose estimate ``N`` is under ``i/10 · R̂`` (0: none, the best precision
    anywhere); a level whose ``i/10 · R̂`` exceeds the ranking's ``N`` takes none
    (:data:`_FAR`).
    """
    here, _ = _running_estimate(features)
    total = estimated_relevant(features)
    features.share_with_rows("_sx_num_rel")
    top = pl.col(_top(features))
    position = pl.col("pos")
    final = pl.col(here).filter(top).last().over(GROUP)
    first = position.filter(top).min().over(GROUP)
    # a ranking's last pooled document ends its segment past any rank a level takes
    segment_end = (position.shift(-1).over(GROUP) - 1).fill_null(_FAR)
    names: list[str] = []
    bound: pl.Expr = pl.lit(_FAR)
    for level in reversed(range(len(RECALL_LEVELS))):
        cut = total * RECALL_LEVELS[level]
        below = top & (pl.col(here) < cut) & (position < bound)
        candidate = pl.when(below).then(pl.min_horizontal(segment_end, bound - 1))
        before_first = pl.when((first > 1) & (cut > 0) & (bound > 1)).then(
            pl.min_horizontal(first - 1, bound - 1)
        )
        reached = pl.max_horizontal(candidate.max().over(GROUP), before_first, pl.lit(0))
        rank = pl.when(cut > final).then(pl.lit(_FAR)).otherwise(reached)
        name = features.row_column(f"_sx_taken_{level}", rank.cast(pl.Int64))
        names.append(name)
        bound = pl.col(name)
    return names[::-1]
