"""The same systems over several collections: per collection, macro mean, ranks, Borda.

:func:`evaluate_suite` runs one :func:`rankset.evaluate` per collection and sets the
summaries side by side (:attr:`SuiteResult.per_collection`), then aggregates each
(system, metric) over the collections (:attr:`SuiteResult.aggregate`):

- ``macro_mean``: the mean of the collection means (every collection weighs the same);
- ``mean_rank``: the mean over collections of the system's rank in each (1 = best, ties
  share the average rank; lower is better for ``harm``, ``unj``...:
  :func:`rankset.comparison.higher_is_better`);
- ``borda``: per collection a system gets ``n_systems - rank`` points, summed;
- ``ci_low, ci_high`` and ``rank_low, rank_high``: percentile bootstrap intervals of the
  macro mean and of the mean rank, resampling the collections with replacement;
- ``ci_low_queries, ci_high_queries``: the interval of the macro mean when the queries are
  resampled within each collection (the collections held fixed).

Ranks, Borda points and the aggregate use the systems with a mean in every collection
(for that metric); a system missing from a collection keeps its rows in
:attr:`SuiteResult.per_collection`, is listed in :attr:`SuiteResult.missing`, gets
``n_collections`` below the suite's and null aggregates, and is warned about.

:mod:`rankset.comparison.suite_files` reads the collections of a ``SUITE.toml`` file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset._format import ReprTable, counted, html_repr, listing, text_repr
from rankset._validation import check_fraction, check_int, warn_user
from rankset.comparison._inputs import higher_is_better
from rankset.errors import ParameterError, RanksetWarning
from rankset.evaluation import DEFAULT_METRICS, EvaluationResult, evaluate

if TYPE_CHECKING:  # numpy loads with the first suite, not with rankset.comparison
    import numpy as np

__all__ = [
    "AGGREGATE_COLUMNS",
    "SuiteResult",
    "average_ranks",
    "check_suite",
    "evaluate_suite",
]

#: Columns of :attr:`SuiteResult.aggregate`, in order.
AGGREGATE_COLUMNS = (
    "system", "metric", "n_collections", "macro_mean", "ci_low", "ci_high", "ci_low_queries",
    "ci_high_queries", "mean_rank", "rank_low", "rank_high", "borda",
)  # fmt: skip
_AGGREGATE_SCHEMA = {
    "system": pl.String,
    "metric": pl.String,
    "n_collections": pl.UInt32,
    **{name: pl.Float64 for name in AGGREGATE_COLUMNS[3:]},
}
_DECIMALS = 12  # means equal to this many decimals tie (sums in another order differ by ulps)


@dataclass(frozen=True)
class SuiteResult:
    """The outcome of :func:`evaluate_suite`.

    Attributes
    ----------
    per_collection
        ``collection`` then every column of each collection's summary (``system, metric,
        mean, ci_low, ci_high, n_queries, n_na``), then ``rank`` and ``borda_points``
        within the collection (null for a system not in every collection).
    aggregate
        One row per (system, metric), the columns :data:`AGGREGATE_COLUMNS`; within each
        metric the best mean rank first.
    results
        The :class:`~rankset.EvaluationResult` of each collection.
    missing
        ``collection, system``: the systems of the suite a collection did not evaluate.
    config
        Collections, metrics and the bootstrap settings.
    """

    per_collection: pl.DataFrame
    aggregate: pl.DataFrame
    results: dict[str, EvaluationResult]
    missing: pl.DataFrame
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def collections(self) -> list[str]:
        """Collection names in the order given."""
        return list(self.results)

    @property
    def metrics(self) -> list[str]:
        """Canonical metric names, in the order asked for."""
        return list(self.config.get("metrics", []))

    def _repr_blocks(self) -> tuple[str, list[str | ReprTable]]:
        """Return the title, the collections, what is missing, a table per metric."""
        n = [
            f"{c} ({counted(r.per_query['query_id'].n_unique(), 'query', 'queries')})"
            for c, r in self.results.items()
        ]
        systems, metrics = self.per_collection["system"].n_unique(), len(self.metrics)
        title = f"SuiteResult: {counted(systems, 'system')} × {counted(metrics, 'metric')}"
        blocks: list[str | ReprTable] = [f"{counted(len(n), 'collection')}: {listing(n, 60)}"]
        if self.missing.height:
            absent = "; ".join(
                f"{system} not in {', '.join(group['collection'].to_list())}"
                for (system,), group in self.missing.group_by("system", maintain_order=True)
            )
            blocks.append(f"missing: {absent}")
        header = ["system", "macro_mean", "mean_rank", "borda", "CI (collections)"]
        for metric in self.metrics:
            cells = [
                [r["system"], _num(r["macro_mean"]), _num(r["mean_rank"], 2), _num(r["borda"], 1),
                 _pair(r["ci_low"], r["ci_high"]), _pair(r["ci_low_queries"], r["ci_high_queries"]),
                 _pair(r["rank_low"], r["rank_high"], 2)]
                for r in self.aggregate.filter(pl.col("metric") == metric).iter_rows(named=True)
            ]  # fmt: skip
            last = metric == self.metrics[-1]
            table = ReprTable([*header, "CI (queries)", "rank CI"], cells, caption=f"{metric}:")
            blocks.append(replace(table, row_noun="systems", name_hidden=last))
        if self.config.get("confidence") is not None:
            blocks.append(f"({self.config['confidence']:.0%} percentile bootstrap intervals)")
        return title, blocks

    def __repr__(self) -> str:
        title, blocks = self._repr_blocks()
        return text_repr(title, *blocks)

    def _repr_html_(self) -> str:
        title, blocks = self._repr_blocks()
        return html_repr(title, *blocks)


def _num(value: float | None, decimals: int = 4) -> str:
    return "-" if value is None or value != value else f"{value:.{decimals}f}"


def _pair(low: float | None, high: float | None, decimals: int = 4) -> str:
    if low is None or high is None:
        return "-"
    return f"[{_num(low, decimals)}, {_num(high, decimals)}]"


def check_suite(suite: object) -> SuiteResult:
    """Return ``suite`` if it is a :class:`~rankset.comparison.SuiteResult`, else raise.

    Examples
    --------
    >>> check_suite({"dl19": None})
    Traceback (most recent call last):
    rankset.errors.ParameterError: The 'suite' parameter must be a SuiteResult (...
    """
    if not isinstance(suite, SuiteResult):
        msg = (
            "The 'suite' parameter must be a SuiteResult (what rankset.evaluate_suite "
            f"returns). Got {type(suite).__name__} instead."
        )
        raise ParameterError(msg)
    return suite


def evaluate_suite(
    collections: Mapping[str, tuple[Any, Any]],
    metrics: Any = DEFAULT_METRICS,
    *,
    seed: int = 0,
    n_resamples: int = 1000,
    confidence: float | None = 0.95,
    **evaluate_options: Any,
) -> SuiteResult:
    """Evaluate the same systems over several collections and aggregate across them.

    Parameters
    ----------
    collections
        ``{collection_name: (runs, qrels)}``, each pair in any form :func:`rankset.evaluate`
        accepts. Systems are named as :func:`rankset.evaluate` names them, so a system is
        matched across collections by name: pass ``{system_name: run}`` mappings when file
        names differ between collections (``bm25.dl19.trec``, ``bm25.dl20.trec``).
    metrics
        The metrics, as for :func:`rankset.evaluate`.
    seed, n_resamples, confidence
        The bootstrap settings, passed to every :func:`rankset.evaluate` call too (so each
        collection's summary equals a separate call's). ``confidence=None``: no intervals.
    **evaluate_options
        Any other keyword argument of :func:`rankset.evaluate` (``k``,
        ``relevance_level``, ``missing``...), the same for every collection.

    Returns
    -------
    SuiteResult

    Raises
    ------
    ParameterError
        For fewer than one collection, a pair that is not ``(runs, qrels)``, or
        bootstrap settings out of range.

    Examples
    --------
    >>> runs = {"a": {"q1": {"d1": 2.0, "d2": 1.0}}, "b": {"q1": {"d2": 2.0, "d1": 1.0}}}
    >>> suite = evaluate_suite(
    ...     {"one": (runs, {"q1": {"d1": 1}}), "two": (runs, {"q1": {"d2": 1}})},
    ...     ["rr"], confidence=None,
    ... )
    >>> suite.aggregate.select("system", "macro_mean", "mean_rank", "borda").rows()
    [('a', 0.75, 1.5, 1.0), ('b', 0.75, 1.5, 1.0)]
    """
    import numpy as np

    for name in ("metrics", "labels", "runs"):
        if name in evaluate_options:
            msg = f"evaluate_suite() takes no {name!r} option: the collections give it."
            raise ParameterError(msg)
    check_int("n_resamples", n_resamples, 1)
    check_int("seed", seed, 0)
    if confidence is not None:
        check_fraction("confidence", confidence)
    pairs = _check_collections(collections)
    results = {
        name: evaluate(
            runs,
            labels,
            metrics,
            seed=seed,
            n_resamples=n_resamples,
            confidence=confidence,
            **evaluate_options,
        )
        for name, (runs, labels) in pairs.items()
    }
    names = list(results)
    chosen = list(results[names[0]].metrics)
    systems: list[str] = []
    for result in results.values():
        systems += [s for s in result.systems if s not in systems]
    missing = pl.DataFrame(
        [(c, s) for c in names for s in systems if s not in results[c].systems],
        schema={"collection": pl.String, "system": pl.String},
        orient="row",
    )
    if missing.height:
        absent = ", ".join(f"{s} from {c}" for c, s in missing.iter_rows())
        warn_user(
            f"Some systems are missing from some collections ({absent}): they get no "
            "rank, Borda points or aggregate. Systems are matched by name; name runs with "
            "a {name: run} mapping when file names differ between collections.",
            RanksetWarning,
        )
    per_collection = pl.concat(
        [
            results[c].summary.select(pl.lit(c, dtype=pl.String).alias("collection"), pl.all())
            for c in names
        ],
        how="vertical_relaxed",
    )
    seeds = np.random.SeedSequence(seed).spawn(len(chosen))
    ranks, aggregates = [], []
    for metric, metric_seed in zip(chosen, seeds, strict=True):
        rank_rows, aggregate = _aggregate_metric(
            results,
            systems,
            metric,
            rng=np.random.default_rng(metric_seed),
            n_resamples=n_resamples,
            confidence=confidence,
        )
        ranks.append(rank_rows)
        aggregates.append(aggregate)
    per_collection = per_collection.join(
        pl.concat(ranks), on=["collection", "system", "metric"], how="left", maintain_order="left"
    )
    config = {
        "collections": names,
        "metrics": chosen,
        "systems": systems,
        "seed": seed,
        "n_resamples": n_resamples,
        "confidence": confidence,
        "evaluate_options": {k: repr(v) for k, v in evaluate_options.items()},
    }
    return SuiteResult(per_collection, pl.concat(aggregates), results, missing, config)


def _check_collections(collections: Any) -> dict[str, tuple[Any, Any]]:
    if not isinstance(collections, Mapping) or not collections:
        msg = (
            "The 'collections' parameter must be a non-empty {name: (runs, qrels)} mapping. "
            f"Got {type(collections).__name__ if collections else 'an empty one'} instead."
        )
        raise ParameterError(msg)
    pairs: dict[str, tuple[Any, Any]] = {}
    for name, pair in collections.items():
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            msg = (
                f"The collection {name!r} must be a (runs, qrels) pair. "
                f"Got {type(pair).__name__} instead."
            )
            raise ParameterError(msg)
        pairs[str(name)] = (pair[0], pair[1])
    return pairs


def average_ranks(values: np.ndarray[Any, Any], *, greater_is_better: bool) -> np.ndarray[Any, Any]:
    """Rank along the last axis, 1 = best, ties sharing their average rank (NaN stays NaN).

    Examples
    --------
    >>> import numpy as np
    >>> average_ranks(np.array([0.5, 0.7, 0.5]), greater_is_better=True).tolist()
    [2.5, 1.0, 2.5]
    >>> average_ranks(np.array([[3.0, 1.0]]), greater_is_better=False).tolist()
    [[2.0, 1.0]]
    """
    import numpy as np

    x = np.round(values if greater_is_better else -values, _DECIMALS)
    better = (x[..., None, :] > x[..., :, None]).sum(axis=-1)
    equal = (x[..., None, :] == x[..., :, None]).sum(axis=-1)
    ranks = 1.0 + better + (equal - 1) / 2.0
    return np.where(np.isnan(x), np.nan, ranks)


def _aggregate_metric(
    results: dict[str, EvaluationResult],
    systems: list[str],
    metric: str,
    *,
    rng: np.random.Generator,
    n_resamples: int,
    confidence: float | None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Return the per-collection ranks and the aggregate rows of one metric."""
    import numpy as np

    names = list(results)
    means = np.full((len(names), len(systems)), np.nan)
    for i, name in enumerate(names):
        summary = results[name].summary.filter(pl.col("metric") == metric)
        found = dict(zip(summary["system"].to_list(), summary["mean"].to_list(), strict=True))
        for j, system in enumerate(systems):
            value = found.get(system)
            means[i, j] = np.nan if value is None else value
    present = (~np.isnan(means)).sum(axis=0)
    complete = [j for j in range(len(systems)) if present[j] == len(names)]
    kept = [systems[j] for j in complete]
    greater = higher_is_better(metric)
    m = means[:, complete]  # collections × complete systems
    ranks = average_ranks(m, greater_is_better=greater)
    points = len(kept) - ranks
    rank_rows = pl.DataFrame(
        {
            "collection": [c for c in names for _ in kept],
            "system": kept * len(names),
            "metric": metric,
            "rank": ranks.reshape(-1),
            "borda_points": points.reshape(-1),
        },
        schema={"collection": pl.String, "system": pl.String, "metric": pl.String,
                "rank": pl.Float64, "borda_points": pl.Float64},
    )  # fmt: skip
    s = len(kept)
    intervals = np.full((6, s), np.nan)
    if confidence is not None and s:
        tails = [(1 - confidence) / 2, (1 + confidence) / 2]
        # over collections: B × C indices, the macro mean and the mean rank of each resample
        picks = rng.integers(0, len(names), size=(n_resamples, len(names)))
        intervals[0:2] = np.quantile(m[picks].mean(axis=1), tails, axis=0)
        intervals[4:6] = np.quantile(ranks[picks].mean(axis=1), tails, axis=0)
        # over queries within each collection, the collections fixed
        macro = np.zeros((n_resamples, s))
        for name in names:
            macro += _resampled_means(results[name], kept, metric, rng, n_resamples)
        macro /= len(names)
        intervals[2:4] = np.nanquantile(macro, tails, axis=0)
    rows: dict[str, list[Any]] = {column: [] for column in AGGREGATE_COLUMNS}
    for j, system in enumerate(systems):
        position = kept.index(system) if system in kept else None
        values: list[float | None] = [None] * 9
        if position is not None:
            values = [
                float(m[:, position].mean()),
                *(_or_none(intervals[r, position]) for r in range(4)),
                float(ranks[:, position].mean()),
                *(_or_none(intervals[r, position]) for r in (4, 5)),
                float(points[:, position].sum()),
            ]
        for column, value in zip(
            AGGREGATE_COLUMNS, [system, metric, int(present[j]), *values], strict=True
        ):
            rows[column].append(value)
    # best mean rank first; then the better macro mean, then the name
    signed = pl.col("macro_mean") * (-1.0 if greater else 1.0)
    aggregate = pl.DataFrame(rows, schema=_AGGREGATE_SCHEMA).sort(
        [pl.col("mean_rank"), signed, pl.col("system")], nulls_last=True, maintain_order=True
    )
    return rank_rows, aggregate


def _or_none(value: float) -> float | None:
    import numpy as np

    return None if np.isnan(value) else float(value)


def _resampled_means(
    result: EvaluationResult,
    systems: list[str],
    metric: str,
    rng: np.random.Generator,
    n_resamples: int,
) -> np.ndarray[Any, Any]:
    """Return ``n_resamples × systems`` means of one collection over resampled queries.

    A resample counts how often it draws each query (a multinomial row); a system's mean
    is its count-weighted mean over the queries where its value is not NA, as the summary
    skips NA. One matrix product per collection, no loop over resamples.
    """
    import numpy as np

    wide = (
        result.per_query.filter(pl.col("metric") == metric)
        .pivot(on="system", index="query_id", values="value", on_columns=systems)
        .select(systems)
    )
    values = wide.cast(pl.Float64).fill_nan(None).to_numpy().astype(np.float64)
    n = values.shape[0]
    if n == 0:
        return np.full((n_resamples, len(systems)), np.nan)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)
    defined = ~np.isnan(values)
    totals = counts @ np.where(defined, values, 0.0)
    weights = counts @ defined.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: np.ndarray[Any, Any] = totals / weights
    return out
