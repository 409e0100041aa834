"""Metric-vs-k curves: every cutoff of the k-metrics from one pass over the rankings.

Evaluating ``ndcg@1``, ``ndcg@2``, ..., ``ndcg@100`` one by one would scan the run a hundred
times. Every cutoff-dependent quantity rankset computes is a sum (or a minimum) of a per-row
contribution over the first k positions, so a cumulative sum along each ranking holds its
value at every k at once; the values at k = 1..K are then read off those cumulative columns
(at position min(k, documents retrieved)), and the usual metric formulas apply with the
cutoff taken from a ``k`` column. The ideal DCG is accumulated the same way over the ideal
ranking of the labels. The result equals :func:`rankset.evaluate` at each k.

Examples
--------
>>> import rankset
>>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
>>> curves = rankset.curves(run, {"q": {"b": 1, "c": 1}}, ["precision", "recall"], ks=3)
>>> means = curves.summary.select("metric", "k", pl.col("mean").round(4))
>>> means.rows()  # doctest: +NORMALIZE_WHITESPACE
[('precision', 1, 0.0), ('precision', 2, 0.5), ('precision', 3, 0.6667),
 ('recall', 1, 0.0), ('recall', 2, 0.5), ('recall', 3, 1.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from rankset._format import ReprTable, counted, html_repr, listing, text_repr
from rankset._typing import IntoLabels, IntoRun
from rankset._validation import MAX_INT, check_resampling
from rankset.errors import ParameterError
from rankset.evaluation._evaluate import plan_and_measure
from rankset.evaluation._kernel import Collected
from rankset.evaluation._options import EvaluateOptions
from rankset.evaluation._summary import summarise_means
from rankset.io import write_parquet
from rankset.measures import PER_QUERY, Metric, parse_metrics
from rankset.measures._shared import GROUP, NUM_RET, QUERY_K

__all__ = ["Curves", "curves"]

_INFINITY = float("inf")
# The cutoffs a repr shows when there are more than _SHOWN_CUTOFFS (and the last one).
_SHOWN_CUTOFFS = 6
_ROUND_CUTOFFS = frozenset({1, 3, 5, 10, 20, 50, 100, 1000})
_NUM_RET = Metric("num_ret")


@dataclass(frozen=True)
class Curves:
    """Metric-vs-k curves.

    Attributes
    ----------
    per_query
        ``system, query_id, metric, measure, k, value`` for every k (null = NA).
    summary
        ``system, metric, measure, k, mean, ci_low, ci_high, n_queries, n_na``: the mean
        over queries with a bootstrap confidence interval.
    config
        The evaluation settings.
    """

    per_query: pl.DataFrame
    summary: pl.DataFrame
    config: dict[str, Any] = field(default_factory=dict)

    def wide(self) -> pl.DataFrame:
        """Return the means with one column per cutoff, a row per (system, metric)."""
        return self.summary.pivot(on="k", index=["system", "metric"], values="mean")

    def _repr_blocks(self) -> tuple[str, ReprTable, str]:
        """Return the title, the means at a few cutoffs per (system, metric), a note."""
        ks = self.summary["k"].unique().sort().to_list()
        pairs = self.summary.select("system", "metric").unique(maintain_order=True).rows()
        systems = list(dict.fromkeys(system for system, _ in pairs))
        metrics = list(dict.fromkeys(metric for _, metric in pairs))
        queries = max([int(n) for n in self.summary["n_queries"].to_list() if n is not None] or [0])
        if ks and ks == list(range(ks[0], ks[-1] + 1)) and len(ks) > 1:
            at = f"k = {ks[0]}..{ks[-1]}"
        else:
            at = f"k = {listing([str(k) for k in ks], 24)}"
        title = (
            f"Curves: {counted(len(systems), 'system')} × {counted(len(metrics), 'metric')}"
            f" at {at} over {counted(queries, 'query', 'queries')}"
        )
        # A few cutoffs: every one when there are few, else the round ones and the last.
        shown = ks if len(ks) <= _SHOWN_CUTOFFS else [k for k in ks if k in _ROUND_CUTOFFS]
        shown = sorted({*shown, *ks[-1:]})
        means = {
            (system, metric, k): mean
            for system, metric, k, mean in self.summary.select(
                "system", "metric", "k", "mean"
            ).rows()
        }
        rows = [
            [system, metric, *(means.get((system, metric, k)) for k in shown)]
            for system, metric in pairs
        ]
        hidden = len(ks) - len(shown)
        table = ReprTable(
            ["system", "metric", *(f"@{k}" for k in shown)],
            rows,
            keys=2,
            n_rows=len(pairs),
            column_noun="cutoffs",
        )
        note = f"(means at {len(shown)} of {len(ks)} cutoffs; .wide() and .summary have all)"
        return title, table, note if hidden else "(means; .summary has the intervals)"

    def __repr__(self) -> str:
        return text_repr(*self._repr_blocks())

    def _repr_html_(self) -> str:
        return html_repr(*self._repr_blocks())

    def to_parquet(self, path: str | Path, *, per_query: bool = False) -> Path:
        """Write the summary (or the per-query values) to Parquet, atomically, with config."""
        frame = self.per_query if per_query else self.summary
        return write_parquet(frame, path, config=self.config)


def curves(
    runs: IntoRun | Mapping[str, IntoRun],
    labels: IntoLabels | None = None,
    measures: str | Iterable[str] = ("ndcg", "precision", "recall"),
    ks: int | Iterable[int] = 20,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    keep_per_query: bool = True,
    **options: Any,
) -> Curves:
    """Compute measures at every cutoff in ``ks`` in one pass.

    Parameters
    ----------
    runs, labels
        As for :func:`rankset.evaluate`.
    measures
        Measures that take a cutoff (``ndcg``, ``precision``, ``recall``, ``ap``, ``rr``,
        ``hit``, ``ra_nwg``, ...), with parameters if any (``P(rel=2)``); a cutoff written
        in the name is ignored.
    ks
        The cutoffs: an int K means 1..K.
    confidence, n_resamples, seed
        Bootstrap confidence interval of each mean (seeded, deterministic).
    keep_per_query
        Keep every per-query value (``Curves.per_query``); ``False`` keeps the summary
        only, so memory grows with one system's values instead of every system's
        (:func:`rankset.pages.report` at scale).
    **options
        Passed to :func:`rankset.evaluate` (``relevance_level``, ``missing``, ``scale``,
        ``pool``, ``names``, ``engine``, ``buckets``, ...); per-query cutoffs do not apply.

    Returns
    -------
    Curves
    """
    check_resampling(confidence, n_resamples, seed)
    cutoffs = _check_ks(ks)
    metrics = _curve_metrics(measures)
    if "cutoffs" in options or "k" in options:
        msg = "curves() takes its cutoffs from ks=; 'cutoffs' and 'k' do not apply."
        raise ParameterError(msg)
    settled = EvaluateOptions.from_kwargs(
        options, "curves", excluded=("k", "cutoffs", "default_k")
    ).replace(default_k=max(cutoffs))
    plan, collected = plan_and_measure(runs, labels, [*metrics, _NUM_RET], settled, keep_rows=True)
    features = plan.features
    k_max = max(cutoffs)
    # Running sums (or minima) at each labelled position, per ranking; and over each
    # query's ideal ordering of its labels.
    cumulative = collected.rows.filter(pl.col("pos") <= k_max).select(
        *GROUP,
        "pos",
        *(
            _accumulate(contribution, reducer, GROUP, "pos").alias(name)
            for name, (contribution, reducer) in features.cumulative.items()
        ),
    )
    frames = [cumulative]
    if features.label_cumulative:
        frames.append(
            collected.label_rows.filter(pl.col("_ipos") <= k_max).select(
                "query_id",
                "_ipos",
                *(
                    _accumulate(contribution, "sum", ("query_id",), "_ipos").alias(name)
                    for name, contribution in features.label_cumulative.items()
                ),
            )
        )
    names = ["cumulative", "label_cumulative"][: len(frames)]
    collected.extra.update(zip(names, pl.collect_all(frames, engine="in-memory"), strict=True))
    label_cumulative = list(features.label_cumulative)
    systems = [str(system) for system in collected.config["systems"]]  # as the runs were given
    coded = _Coded.of(collected, systems, list(features.cumulative), label_cumulative, k_max)
    # Every system and cutoff in one pass over batches of about _BATCH_ROWS (system,
    # query, cutoff) rows: as many systems as fit in a batch (10 of 10,000 queries at
    # k = 1..20), and a system whose table at every k alone is larger (7,000 queries x
    # 1,000 cutoffs: 1.3 GB) has its cutoffs in batches. Each system's bootstrap draws
    # the same resamples in every batch (they depend on the seed and the number of
    # queries only): the values and means are the same, the interval bounds the same
    # up to the last bit of a matrix product over fewer columns.
    batches = _system_batches(coded.heights, cutoffs)
    summaries, kept = [], []
    for members, batch in batches:
        frame = _at_every_k(coded, members, batch, features.cumulative, label_cumulative)
        values = _tidy_curves(frame, coded, metrics, plan.values, keep_ids=keep_per_query)
        del frame
        summaries.append(
            summarise_means(
                values,
                ["metric", "measure", "k"],
                confidence=confidence,
                n_resamples=n_resamples,
                seed=seed,
            )
        )
        if keep_per_query:
            kept.append(values)
        del values
    # Back to one block per (system, metric), k ascending, queries in order (a stable
    # sort: the enums sort by their order of definition, the systems' and metrics').
    split = len(batches) > len({members for members, _ in batches})  # a system's cutoffs
    summary = _in_curve_order(summaries, split)
    per_query = _in_curve_order(kept, split) if kept else pl.DataFrame(schema=_PER_QUERY_SCHEMA)
    config = {**collected.config, "metrics": [_curve_name(m) for m in metrics], "ks": cutoffs}
    return Curves(per_query=per_query, summary=summary, config=config)


_PER_QUERY_SCHEMA = pl.Schema(
    {
        "system": pl.String,
        "query_id": pl.String,
        "metric": pl.String,
        "measure": pl.String,
        "k": pl.Int64,
        "value": pl.Float64,
    }
)


#: The most cutoffs one curve call computes (each is a column per query and metric).
MAX_CUTOFFS = 100_000
#: About how many (query, cutoff) rows of one system's aggregations are held at once.
_BATCH_ROWS = 2_000_000


def _batches(cutoffs: list[int], size: int) -> list[list[int]]:
    """``cutoffs`` in consecutive batches of ``size`` (at least one each)."""
    size = max(1, size)
    return [cutoffs[start : start + size] for start in range(0, len(cutoffs), size)]


def _in_curve_order(pieces: list[pl.DataFrame], split: bool) -> pl.DataFrame:
    """Concatenate the batches' pieces; sort by system, metric and k if a system was split.

    The system and metric are enums shared by every piece (the systems in the order
    they were given, the metrics in the order asked); the sort is stable, so each block
    keeps its query order. The system, metric and measure come back as strings.
    """
    stacked = pl.concat(pieces)
    if split:  # a system's cutoffs came in batches
        stacked = stacked.sort("system", "metric", "k", maintain_order=True)
    return _as_strings(stacked)


def _as_strings(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col("system", "metric", "measure").cast(pl.String))


def _check_ks(ks: int | Iterable[int]) -> list[int]:
    if isinstance(ks, int) and not isinstance(ks, bool) and ks > MAX_CUTOFFS:
        msg = (
            f"The 'ks' parameter asks for {ks:,} cutoffs; at most {MAX_CUTOFFS:,} are computed "
            "at once (pass a list of the cutoffs you need)."
        )
        raise ParameterError(msg)
    values = list(range(1, ks + 1)) if isinstance(ks, int) else list(ks)
    if not values or any(
        isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_INT for k in values
    ):
        msg = (
            f"The 'ks' parameter must be an int >= 1 or a list of ints in [1, {MAX_INT}]. "
            f"Got {ks!r} instead."
        )
        raise ParameterError(msg)
    if len(set(values)) > MAX_CUTOFFS:
        msg = f"The 'ks' parameter lists more than {MAX_CUTOFFS:,} cutoffs."
        raise ParameterError(msg)
    return sorted(set(values))


def _curve_metrics(measures: str | Iterable[str]) -> list[Metric]:
    metrics = []
    for metric in parse_metrics(measures):
        if metric.spec.cutoff == "none":
            msg = f"{metric.measure} has no cutoff, so it has no curve; use rankset.evaluate."
            raise ParameterError(msg)
        metrics.append(Metric(metric.measure, PER_QUERY, metric.params))
    return list(dict.fromkeys(metrics))


def _accumulate(
    contribution: pl.Expr, reducer: str, partition: Sequence[str], order: str
) -> pl.Expr:
    if reducer == "min":
        running = contribution.fill_null(_INFINITY).cum_min().over(partition, order_by=order)
        return pl.when(running < _INFINITY).then(running)
    return contribution.cum_sum().over(partition, order_by=order)


@dataclass(frozen=True)
class _Coded:
    """The measured frames with integer codes for the systems and queries.

    ``_s`` numbers the systems in the order given, ``_q`` the queries in ``query_id``
    order (so a sort by ``_q`` is a sort by id): the joins and sorts of every system's
    table at every cutoff run on integers instead of strings.
    """

    systems: pl.Series  # an enum of the systems, in code order
    queries: pl.Series  # the query ids, in code order
    scored: pl.DataFrame  # _s, _q and the aggregations that do not run, by (_s, _q)
    running: pl.DataFrame  # _key and the running values, by _key (see key())
    stats: pl.DataFrame  # _q and the label statistics that do not run
    stats_row: pl.Series  # each query's row in stats (null: not labelled), by _q
    label_running: pl.DataFrame | None  # _q, _ipos and the ideal running values
    heights: list[int]  # the rankings of each system
    k_max: int

    @classmethod
    def of(
        cls,
        collected: Collected,
        systems: list[str],
        cumulative: list[str],
        label_cumulative: list[str],
        k_max: int,
    ) -> _Coded:
        ids = pl.concat(
            [
                collected.scored["query_id"].cast(pl.String),
                collected.stats["query_id"].cast(pl.String),
            ]
        )
        queries = ids.unique().sort()
        codes = {
            "_s": pl.col("system").cast(pl.String).cast(pl.Enum(systems)).to_physical(),
            "_q": pl.col("query_id").cast(pl.String).cast(pl.Enum(queries)).to_physical(),
        }
        scored = (
            collected.scored.lazy()
            .drop(cumulative)
            .with_columns(**codes)
            .drop(*GROUP)
            .sort("_s", "_q")
            .collect(engine="in-memory")
        )
        n_queries = max(1, queries.len())
        # Each ranking's running values start with a row at position 0 (nothing yet:
        # 0 for sums, null for minima), so the value at k of every ranking is the last
        # row at or before its key (system, query, min(k, documents retrieved)).
        start = scored.select("_s", "_q", pos=pl.lit(0, dtype=pl.Int64))
        running = (
            pl.concat(
                [
                    start.lazy(),
                    collected.extra["cumulative"].lazy().with_columns(**codes).drop(*GROUP),
                ],
                how="diagonal_relaxed",
            )
            .select(
                _key(pl.col("_s"), pl.col("_q"), pl.col("pos"), n_queries, k_max).alias("_key"),
                *cumulative,
            )
            .sort("_key")
            .collect(engine="in-memory")
        )
        sums = [name for name in cumulative if name in collected.extra["cumulative"].columns]
        del sums
        stats = collected.stats.drop(label_cumulative).with_columns(_q=codes["_q"]).drop("query_id")
        label_running = None
        if label_cumulative:
            label_running = (
                collected.extra["label_cumulative"].with_columns(_q=codes["_q"]).drop("query_id")
            )
        stats_row = pl.Series("_row", [None] * queries.len(), dtype=pl.Int64).scatter(
            stats["_q"], pl.int_range(stats.height, eager=True)
        )
        heights = scored["_s"].value_counts().sort("_s")
        count = dict(zip(heights["_s"].to_list(), heights["count"].to_list(), strict=True))
        return cls(
            systems=pl.Series("system", systems, dtype=pl.Enum(systems)),
            queries=queries.rename("query_id"),
            scored=scored,
            running=running,
            stats=stats,
            stats_row=stats_row,
            label_running=label_running,
            heights=[count.get(number, 0) for number in range(len(systems))],
            k_max=k_max,
        )


def _key(system: pl.Expr, query: pl.Expr, pos: pl.Expr, n_queries: int, k_max: int) -> pl.Expr:
    """One integer per (system, query, position <= k_max), in that order."""
    return (system.cast(pl.Int64) * n_queries + query.cast(pl.Int64)) * (k_max + 1) + pos.cast(
        pl.Int64
    )


def _system_batches(
    heights: list[int], cutoffs: list[int]
) -> list[tuple[tuple[int, ...], list[int]]]:
    """Consecutive systems (codes) and cutoffs, about :data:`_BATCH_ROWS` rows a batch."""
    batches: list[tuple[tuple[int, ...], list[int]]] = []
    members: list[int] = []
    rows = 0
    for system, height in enumerate(heights):
        size = height * len(cutoffs)
        if members and rows + size > _BATCH_ROWS:
            batches.append((tuple(members), cutoffs))
            members, rows = [], 0
        if size > _BATCH_ROWS:  # alone, its cutoffs in batches
            batches.extend(((system,), batch) for batch in _batches(cutoffs, _BATCH_ROWS // height))
            continue
        members.append(system)
        rows += size
    if members:
        batches.append((tuple(members), cutoffs))
    return batches


def _at_every_k(
    coded: _Coded,
    members: tuple[int, ...],
    cutoffs: list[int],
    cumulative: dict[str, tuple[pl.Expr, str]],
    label_cumulative: list[str],
) -> pl.DataFrame:
    """Return consecutive systems' aggregations at every cutoff, by ``_s``, ``k``, ``_q``.

    The rankings' rows are planned lazily and collected once, so the engine holds fewer
    copies of a table of systems x queries x cutoffs rows; the label statistics are
    gathered by position, and the rows put in order by one integer key.
    """
    ks = pl.DataFrame(
        {"k": cutoffs, "_ki": range(len(cutoffs))}, schema={"k": pl.Int64, "_ki": pl.Int64}
    )
    n_queries = max(1, coded.queries.len())
    # The value at k is the running value at the last labelled document at or above
    # position k (a ranking shorter than k keeps its value at its last document); none
    # there: the row at position 0, 0 for sums, null for minima. The rows come in
    # (system, query, k) order, so by _key already.
    pos = pl.min_horizontal(pl.col("k"), pl.col(NUM_RET)).cast(pl.Int64)
    runs = (
        coded.scored.lazy()
        .filter(pl.col("_s").is_between(members[0], members[-1]))
        .join(ks.lazy(), how="cross", maintain_order="left_right")
        .with_columns(_key=_key(pl.col("_s"), pl.col("_q"), pos, n_queries, coded.k_max))
        .join_asof(coded.running.lazy(), on="_key", strategy="backward", check_sortedness=False)
        .drop("_key")
        .with_columns(
            pl.col(name).fill_null(0.0)
            for name, (_, reducer) in cumulative.items()
            if reducer == "sum"
        )
        .collect(engine="in-memory")
    )
    # Each labelled query's statistics at every cutoff (its ideal DCG at k...), a row
    # per (labelled query, cutoff) in that order, gathered for each row of the rankings.
    stats = coded.stats.join(ks, how="cross", maintain_order="left_right")
    if coded.label_running is not None:
        stats = (
            stats.with_columns(_ipos=pl.min_horizontal(pl.col("k"), pl.col("_n_labels")))
            .join(coded.label_running, on=["_q", "_ipos"], how="left", maintain_order="left")
            .with_columns(pl.col(name).fill_null(0.0) for name in label_cumulative)
        )
    labelled = coded.stats_row.gather(runs["_q"])
    at = (labelled * len(cutoffs) + runs["_ki"]).cast(pl.UInt32)
    gathered = stats.drop("_q", "k", "_ki").select(pl.all().gather(pl.lit(at)))
    order = (runs["_s"].cast(pl.Int64) * len(cutoffs) + runs["_ki"]) * n_queries + runs["_q"]
    return (
        pl.concat([runs.drop("_ki"), gathered], how="horizontal")
        .with_columns(pl.col("k").alias(QUERY_K))
        .sort(order)
    )


def _curve_name(metric: Metric) -> str:
    return Metric(metric.measure, None, metric.params).name


def _tidy_curves(
    frame: pl.DataFrame,
    coded: _Coded,
    metrics: list[Metric],
    values: dict[str, pl.Expr],
    *,
    keep_ids: bool,
) -> pl.DataFrame:
    """Return the systems' values, tidy: by system, metric (in ``metrics`` order), k, query.

    The system, metric and measure are enums (4 bytes a row); ``keep_ids=False`` leaves
    out the query ids, which only the per-query table needs (``frame`` is by system, k
    and query).
    """
    names = list(dict.fromkeys(_curve_name(metric) for metric in metrics))
    measures = list(dict.fromkeys(metric.measure for metric in metrics))
    columns = [coded.systems.gather(frame["_s"])]
    if keep_ids:
        columns.append(coded.queries.gather(frame["_q"]))
    pieces = [
        pl.DataFrame(columns).with_columns(
            pl.lit(_curve_name(metric), dtype=pl.Enum(names)).alias("metric"),
            pl.lit(metric.measure, dtype=pl.Enum(measures)).alias("measure"),
            frame["k"],
            frame.select(values[metric.name].cast(pl.Float64).alias("value")).to_series(),
        )
        for metric in metrics
    ]
    tidy = pl.concat(pieces)  # by metric, system, k, query
    if frame["_s"].n_unique() > 1:  # a block per system, its metrics in turn
        tidy = tidy.sort("system", maintain_order=True)
    return tidy
