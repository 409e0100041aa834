"""Ranking stability: whether the order of the systems holds under another label set.

:func:`ranking_stability` evaluates the same runs under several label sets (human labels,
an LLM judge's, a shallow pool, a binarised copy...) with :func:`rankset.evaluate`, ranks
the systems by their mean under each, and compares every ranking with the reference
one (the first label set): Kendall's tau-b, tau_AP (Yilmaz, Aslam and Robertson, SIGIR
2008: errors near the top weigh more) and rank-biased overlap (Webber, Moffat and Zobel,
TOIS 2010; the extrapolated form for two complete rankings of the same systems), the
systems whose rank changes, and whether the top system stays on top.

Ranks follow the mean, best first (for a lower-is-better metric such as ``harm``, the
lowest first); equal means share the lower rank in the ``rank`` column, and tau_AP and
RBO, which need strict orders, break such ties by system name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankset._format import REPR_ROWS, ReprTable, counted, format_value, html_repr, text_repr
from rankset.errors import ParameterError
from rankset.evaluation import EvaluateOptions, evaluate_with
from rankset.measures import greater_is_better, parse_metric

__all__ = ["RankingStability", "kendall_tau_b", "ranking_stability", "rbo", "tau_ap"]


@dataclass(frozen=True)
class RankingStability:
    """The outcome of :func:`ranking_stability`.

    Attributes
    ----------
    ranks : polars.DataFrame
        ``labels, system, mean, ci_low, ci_high, rank``: every system under every label set,
        the label sets in the order given, the systems best first.
    correlations : polars.DataFrame
        One row per label set other than the reference: ``labels, n_systems,
        kendall_tau_b, tau_ap, rbo, n_rank_changes, top_reference, top, top_stays,
        top_mean, top_ci_low, top_ci_high``; ``top_*`` describe the reference's top
        system under these labels.
    reference : str
        The label set the others are compared with.
    metric : str
        The metric that ranks the systems (its canonical name).
    """

    ranks: pl.DataFrame
    correlations: pl.DataFrame
    reference: str
    metric: str = ""

    def _repr_blocks(self) -> tuple[str, ReprTable, ReprTable]:
        """Return the title, the correlations with the reference, each system's ranks."""
        labels = self.ranks["labels"].unique(maintain_order=True).to_list()
        systems = self.ranks["system"].unique(maintain_order=True).to_list()
        title = (
            f"RankingStability: {counted(len(systems), 'system')} by {self.metric or 'mean'} "
            f"under {counted(len(labels), 'label set')} (reference: {self.reference})"
        )
        key = ["labels", "kendall_tau_b", "tau_ap", "rbo", "n_rank_changes", "top", "top_stays"]
        first = [c for c in key if c in self.correlations.columns]
        shown = self.correlations.select(
            *first, *(c for c in self.correlations.columns if c not in first)
        )
        correlations = ReprTable(
            shown.columns, shown.head(REPR_ROWS).rows(), n_rows=shown.height, row_noun="label sets"
        )
        cells = {
            (row["labels"], row["system"]): f"{row['rank']} ({format_value(row['mean'])})"
            for row in self.ranks.iter_rows(named=True)
        }
        ranks = ReprTable(
            ["system", *labels],
            [[system, *(cells.get((name, system)) for name in labels)] for system in systems],
            n_rows=len(systems),
            row_noun="systems",
            column_noun="label sets",
            caption="rank (mean) under each label set:",
        )
        return title, correlations, ranks

    def __repr__(self) -> str:
        return text_repr(*self._repr_blocks())

    def _repr_html_(self) -> str:
        return html_repr(*self._repr_blocks())


def ranking_stability(
    runs: Any,
    label_sets: Mapping[str, Any],
    metric: str = "ndcg@10",
    *,
    rbo_p: float = 0.9,
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    **evaluate_options: Any,
) -> RankingStability:
    """Rank the systems under each label set and compare the rankings with the first's.

    Parameters
    ----------
    runs
        The runs, as :func:`rankset.evaluate` takes them (two systems or more).
    label_sets
        ``{name: labels}``, two or more; the first is the reference.
    metric
        The metric that ranks the systems (any measure :func:`rankset.evaluate` knows).
    rbo_p
        RBO's persistence, in (0, 1): the weight of depth d is proportional to p^(d-1).
    confidence, n_resamples, seed
        The bootstrap intervals of the means, as in :func:`rankset.evaluate`.
    **evaluate_options
        Passed to :func:`rankset.evaluate` for every label set (``scale=``, ``missing=``...).

    Returns
    -------
    RankingStability

    Examples
    --------
    Under the second label set, ``a``'s only relevant document is ``y``:

    >>> runs = {"a": {"q": {"x": 2.0, "y": 1.0}}, "b": {"q": {"y": 2.0, "x": 1.0}}}
    >>> labels = {"human": {"q": {"x": 1}}, "judge": {"q": {"y": 1}}}
    >>> result = ranking_stability(runs, labels, "rr", confidence=None)
    >>> result.correlations.select("labels", "kendall_tau_b", "top", "top_stays").row(0)
    ('judge', -1.0, 'b', False)
    """
    _check_arguments(label_sets, rbo_p)
    name = parse_metric(metric).name
    greater = greater_is_better(name)
    options = EvaluateOptions.from_kwargs(evaluate_options, "ranking_stability")
    means = _means(
        runs, label_sets, name, options, confidence=confidence, n_resamples=n_resamples, seed=seed
    )
    names = [str(n) for n in label_sets]
    ranks = _ranks(means, names, greater)
    reference = _Reference.of(means, ranks, names[0], greater)
    rows = [
        _compared(other, means, ranks, reference, greater=greater, rbo_p=rbo_p)
        for other in names[1:]
    ]
    correlations = pl.DataFrame(rows, schema=_CORRELATION_SCHEMA)
    return RankingStability(
        ranks=ranks, correlations=correlations, reference=reference.name, metric=name
    )


_CORRELATION_SCHEMA = {
    "labels": pl.String,
    "n_systems": pl.Int64,
    "kendall_tau_b": pl.Float64,
    "tau_ap": pl.Float64,
    "rbo": pl.Float64,
    "n_rank_changes": pl.Int64,
    "top_reference": pl.String,
    "top": pl.String,
    "top_stays": pl.Boolean,
    "top_mean": pl.Float64,
    "top_ci_low": pl.Float64,
    "top_ci_high": pl.Float64,
}


def _check_arguments(label_sets: object, rbo_p: float) -> None:
    """Refuse fewer than two label sets, and an RBO persistence outside (0, 1)."""
    if not isinstance(label_sets, Mapping) or len(label_sets) < 2:
        msg = "ranking_stability() needs a mapping of two label sets or more, {name: labels}."
        raise ParameterError(msg)
    if not 0.0 < rbo_p < 1.0:
        msg = f"The 'rbo_p' parameter must lie in (0, 1). Got {rbo_p!r} instead."
        raise ParameterError(msg)


def _means(
    runs: Any,
    label_sets: Mapping[str, Any],
    metric: str,
    options: EvaluateOptions,
    *,
    confidence: float | None,
    n_resamples: int,
    seed: int,
) -> pl.DataFrame:
    """Evaluate the runs under each label set: ``labels, system, mean, ci_low, ci_high``."""
    frames = []
    for labels_name, labels in label_sets.items():
        result = evaluate_with(
            runs,
            labels,
            [metric],
            options,
            confidence=confidence,
            n_resamples=n_resamples,
            seed=seed,
        )
        frames.append(
            result.summary.select(
                pl.lit(str(labels_name)).alias("labels"), "system", "mean", "ci_low", "ci_high"
            )
        )
    return pl.concat(frames)


def _ranks(means: pl.DataFrame, names: list[str], greater: bool) -> pl.DataFrame:
    """Rank the systems under each label set (competition ranks), in the order given."""
    sign = -1.0 if greater else 1.0
    given = {labels_name: position for position, labels_name in enumerate(names)}
    return means.with_columns(
        rank=(pl.col("mean") * sign).rank("min").over("labels").cast(pl.Int64)
    ).sort(
        pl.col("labels").replace_strict(given, return_dtype=pl.Int64),
        "rank",
        "system",
        maintain_order=True,
    )


@dataclass(frozen=True)
class _Reference:
    """The reference label set's ranking: what every other label set is compared with."""

    name: str
    systems: list[str]
    scores: dict[str, Any]  # the mean of each system
    order: list[str]
    rank: dict[str, int]

    @classmethod
    def of(cls, means: pl.DataFrame, ranks: pl.DataFrame, name: str, greater: bool) -> _Reference:
        """Return the ranking under the label set ``name``; two systems or more."""
        base = means.filter(pl.col("labels") == name)
        systems = base["system"].to_list()
        if len(systems) < 2:
            msg = "ranking_stability() needs two systems or more to rank."
            raise ParameterError(msg)
        scores = dict(base.select("system", "mean").iter_rows())
        return cls(name, systems, scores, _order(scores, greater), _rank_of(ranks, name))


def _rank_of(ranks: pl.DataFrame, labels_name: str) -> dict[str, int]:
    """Return each system's competition rank under one label set (from the ranks frame)."""
    return dict(ranks.filter(pl.col("labels") == labels_name).select("system", "rank").iter_rows())


def _compared(
    other: str,
    means: pl.DataFrame,
    ranks: pl.DataFrame,
    reference: _Reference,
    *,
    greater: bool,
    rbo_p: float,
) -> dict[str, Any]:
    """Return the row of ``correlations`` that compares the label set ``other``."""
    sign = -1.0 if greater else 1.0
    theirs = means.filter(pl.col("labels") == other)
    scores = dict(theirs.select("system", "mean").iter_rows())
    common = [s for s in reference.systems if s in scores]
    order = _order({s: scores[s] for s in common}, greater)
    reference_order = [s for s in reference.order if s in scores]
    other_rank = _rank_of(ranks, other)
    top = reference.order[0]
    top_row = theirs.filter(pl.col("system") == top)
    return {
        "labels": other,
        "n_systems": len(common),
        "kendall_tau_b": kendall_tau_b(
            [sign * reference.scores[s] for s in common], [sign * scores[s] for s in common]
        ),
        "tau_ap": tau_ap(order, reference_order),
        "rbo": rbo(order, reference_order, rbo_p),
        "n_rank_changes": sum(reference.rank[s] != other_rank[s] for s in common),
        "top_reference": top,
        "top": order[0],
        "top_stays": order[0] == top,
        "top_mean": top_row["mean"].item() if top_row.height else None,
        "top_ci_low": top_row["ci_low"].item() if top_row.height else None,
        "top_ci_high": top_row["ci_high"].item() if top_row.height else None,
    }


def _order(scores: Mapping[str, float | None], greater: bool) -> list[str]:
    """Systems best first; equal (or missing) means by system name."""
    worst = float("-inf") if greater else float("inf")

    def key(system: str) -> tuple[float, str]:
        value = scores[system]
        value = worst if value is None else value
        return (-value if greater else value, system)

    return sorted(scores, key=key)


def kendall_tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b of two score lists (ties in either are accounted for).

    Examples
    --------
    >>> kendall_tau_b([1, 2, 3], [1, 2, 3]), kendall_tau_b([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    """
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = ((concordant + discordant + ties_x) * (concordant + discordant + ties_y)) ** 0.5
    return (concordant - discordant) / denominator if denominator else float("nan")


def tau_ap(estimated: list[str], true: list[str]) -> float:
    """AP correlation of a ranking (``estimated``, best first) with the ``true`` one.

    tau_AP = 2 / (N - 1) * sum over i = 2..N of C(i) / (i - 1), minus 1, where C(i) counts
    the items above position i of ``estimated`` that are also above its item in ``true``.

    Examples
    --------
    >>> tau_ap(["a", "b", "c"], ["a", "b", "c"]), tau_ap(["c", "b", "a"], ["a", "b", "c"])
    (1.0, -1.0)
    """
    if sorted(estimated) != sorted(true) or len(true) < 2:
        msg = "tau_ap() needs two rankings of the same two items or more."
        raise ParameterError(msg)
    position = {item: i for i, item in enumerate(true)}
    total = 0.0
    for i in range(1, len(estimated)):
        above = estimated[:i]
        correct = sum(position[item] < position[estimated[i]] for item in above)
        total += correct / i
    return 2.0 * total / (len(estimated) - 1) - 1.0


def rbo(first: list[str], second: list[str], p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of two rankings of the same k items.

    RBO_ext = (X_k / k) p^k + (1 - p) / p * sum over d = 1..k of (X_d / d) p^d, with X_d
    the number of items in both top-d prefixes; 1 for identical rankings.

    Examples
    --------
    >>> rbo(["a", "b", "c"], ["a", "b", "c"])
    1.0
    """
    if len(first) != len(second) or not first:
        msg = "rbo() needs two rankings of the same length (one item or more)."
        raise ParameterError(msg)
    k = len(first)
    seen_first: set[str] = set()
    seen_second: set[str] = set()
    overlap = 0
    total = 0.0
    for depth in range(1, k + 1):
        a, b = first[depth - 1], second[depth - 1]
        overlap += (a in seen_second) + (b in seen_first) + (a == b)
        seen_first.add(a)
        seen_second.add(b)
        total += overlap / depth * p**depth
    return overlap / k * p**k + (1.0 - p) / p * total
