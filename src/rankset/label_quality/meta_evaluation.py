"""Meta-evaluation of judges: how far a judge's leaderboard agrees with the humans'.

The TREC AutoJudge track scores a judge (an LLM that labels relevance, or any other
source of labels) by how well the leaderboard of the systems under its labels agrees
with the leaderboard under human labels. :func:`meta_evaluate` computes the correlations
of ``autojudge-evaluate meta-evaluate`` (the track's tool) with the same names and
values (:data:`CORRELATIONS`), and adds what that tool lacks: a bootstrap interval over
topics for each correlation, the two leaderboards side by side, and the topics where the
judge and the humans disagree most.

The correlations (see :func:`correlation`): ``kendall`` (tau-b), ``pearson``,
``spearman``, ``tauap_b`` (tie-aware AP correlation, symmetric), ``tau_gap`` (Gao and
Oard's gap-sensitive correlation: the truth's gaps, the judge's order) and
``kendall@10`` (kendall on the truth's ten best systems).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from rankset._format import REPR_ROWS, ReprTable, counted, html_repr, text_repr
from rankset._validation import check_fraction, check_int
from rankset.errors import ParameterError
from rankset.label_quality._boards import (
    AGGREGATE,
    Board,
    MissingPolicy,
    PairScores,
    check_topic_grid,
)
from rankset.label_quality._correlations import batched_correlation, parse_correlation
from rankset.label_quality._meta_frames import leaderboard_frame, topic_frames

__all__ = ["CORRELATIONS", "MetaEvaluation", "correlation", "meta_evaluate"]

#: The correlations :func:`meta_evaluate` computes by default (autojudge-evaluate's).
CORRELATIONS: tuple[str, ...] = (
    "kendall",
    "pearson",
    "spearman",
    "tauap_b",
    "tau_gap",
    "kendall@10",
)
_KEY = ("judge", "truth_metric", "metric")
_MISSING = ("error", "warn", "skip", "default")


@dataclass(frozen=True)
class MetaEvaluation:
    """The outcome of :func:`meta_evaluate`.

    Attributes
    ----------
    correlations : polars.DataFrame
        ``judge, truth_metric, metric, correlation, value, ci_low, ci_high, n_systems,
        n_topics``: one row per judge, metric pair and correlation; the interval is the
        bootstrap's over topics (NaN without per-topic values or without draws).
    leaderboards : polars.DataFrame
        ``judge, truth_metric, metric, system, truth_mean, judge_mean, truth_rank,
        judge_rank``: both boards side by side (ranks: 1 is best, equal means share the
        lower rank), best by the truth first.
    topics : polars.DataFrame
        ``judge, truth_metric, metric, query_id, kendall, n_systems``: Kendall's tau-b of
        the systems' values on each topic, where the judge and the humans disagree most
        first (NaN, where undefined, last).
    per_topic : polars.DataFrame or None
        With ``per_topic=True``: ``judge, truth_metric, metric, query_id, correlation,
        value``, each correlation of each topic's ranking of the systems.
    confidence : float
        The level of the intervals.
    n_bootstrap : int
        The topic draws behind them.
    """

    correlations: pl.DataFrame
    leaderboards: pl.DataFrame
    topics: pl.DataFrame
    per_topic: pl.DataFrame | None = None
    confidence: float = 0.95
    n_bootstrap: int = 1000

    def to_dicts(self) -> list[dict[str, Any]]:
        """One JSON-ready object per judge and metric pair: each correlation and interval.

        ``{"judge", "truth_metric", "metric", "<correlation>": value,
        "<correlation>_ci": [low, high], "n_systems", "n_topics"}``; NaN becomes None.
        """
        out: dict[tuple[str, str, str], dict[str, Any]] = {}
        for row in self.correlations.iter_rows(named=True):
            key = (row["judge"], row["truth_metric"], row["metric"])
            record = out.setdefault(
                key,
                dict(zip(_KEY, key, strict=True))
                | {"n_systems": row["n_systems"], "n_topics": row["n_topics"]},
            )
            name = row["correlation"]
            record[name] = _plain(row["value"])
            record[f"{name}_ci"] = [_plain(row["ci_low"]), _plain(row["ci_high"])]
        return list(out.values())

    def table(self) -> pl.DataFrame:
        """Return the correlations wide: one row per judge and metric pair, one column each."""
        return self.correlations.pivot(
            on="correlation", index=list(_KEY), values="value", maintain_order=True
        )

    def _repr_blocks(self) -> tuple[str, ReprTable, ReprTable]:
        wide = self.table()
        judges = wide["judge"].unique(maintain_order=True).to_list()
        title = (
            f"MetaEvaluation: {counted(len(judges), 'judge')}, "
            f"{counted(wide.height, 'metric pair')}, {self.confidence:.0%} intervals "
            f"over topics ({self.n_bootstrap:,} draws)"
        )
        values = ReprTable(
            wide.columns,
            wide.head(REPR_ROWS).rows(),
            keys=3,
            n_rows=wide.height,
            row_noun="metric pairs",
            column_noun="correlations",
        )
        shown = self.correlations.select(*_KEY, "correlation", "value", "ci_low", "ci_high")
        intervals = ReprTable(
            shown.columns,
            shown.head(REPR_ROWS).rows(),
            keys=4,
            n_rows=shown.height,
            caption="each correlation with its bootstrap interval:",
        )
        return title, values, intervals

    def __repr__(self) -> str:
        return text_repr(*self._repr_blocks())

    def _repr_html_(self) -> str:
        return html_repr(*self._repr_blocks())


def _plain(value: float | None) -> float | None:
    return None if value is None or np.isnan(value) else float(value)


def correlation(truth: Sequence[float], judged: Sequence[float], method: str) -> float:
    """Return the correlation ``method`` between the truth's and a judge's scores of systems.

    Parameters
    ----------
    truth, judged
        The two scores of each system, in the same order (three systems or more). The
        order matters only to break ties: ``tau_gap`` breaks the judge's by position,
        ``@K`` the truth's at the cutoff.
    method
        ``kendall`` (tau-b), ``pearson``, ``spearman`` (average ranks), ``tauap_b``,
        ``tau_gap``, or one of them followed by ``@K`` (the truth's best K systems only).

    Returns
    -------
    float
        NaN where undefined: a constant score vector for kendall, pearson and spearman;
        no pair with a truth gap for tau_gap (tauap_b is 0.0 when every system ties).

    Examples
    --------
    >>> round(correlation([0.3, 0.2, 0.1], [0.5, 0.6, 0.4], "kendall"), 4)
    0.3333
    >>> round(correlation([0.3, 0.2, 0.1], [0.5, 0.6, 0.4], "tauap_b"), 4)
    0.0
    >>> correlation([0.1, 0.1, 0.1], [0.5, 0.6, 0.4], "tau_gap")
    nan
    """
    base, top_k = parse_correlation(method)
    t, j = [float(v) for v in truth], [float(v) for v in judged]
    if len(t) != len(j) or len(t) < 3:
        msg = (
            "correlation() needs two score lists of the same length, three or more; got "
            f"{len(t)} and {len(j)}."
        )
        raise ParameterError(msg)
    if top_k is not None:
        kept = sorted(sorted(range(len(t)), key=lambda i: t[i], reverse=True)[:top_k])
        t, j = [t[i] for i in kept], [j[i] for i in kept]
    return float(batched_correlation(base, np.array([t]), np.array([j]))[0])


def meta_evaluate(
    truth: Any,
    judges: Any,
    *,
    runs: Any = None,
    metrics: str | Iterable[str] | None = None,
    truth_metrics: str | Iterable[str] | None = None,
    pairs: str = "same",
    correlations: Iterable[str] = CORRELATIONS,
    on_missing: MissingPolicy = "error",
    only_shared_topics: bool = False,
    topics: Iterable[str] | None = None,
    only_shared_runs: bool = False,
    drop_aggregate: bool | str = False,
    format: str = "ir_measures",
    truth_format: str | None = None,
    header: bool = False,
    per_topic: bool = False,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    **evaluate_options: Any,
) -> MetaEvaluation:
    """Correlate each judge's leaderboard with the truth's, as autojudge-evaluate does.

    Parameters
    ----------
    truth
        The human side. With ``runs``: labels, as :func:`rankset.evaluate` takes them,
        or the :class:`~rankset.evaluation.EvaluationResult` of the same runs under them
        (its per-query values are used, not computed again). Without: a leaderboard, a
        frame with ``system, query_id, metric, value`` (as
        :func:`rankset.io.read_leaderboard` returns) or a file or folder in
        ``truth_format``.
    judges
        ``{name: labels or leaderboard}``, or a single one (named ``"judge"``).
    runs
        The runs to evaluate under every label set (one pass per label set); None when
        ``truth`` and ``judges`` are leaderboards.
    metrics
        The judges' metrics. With ``runs``, any metric :func:`rankset.evaluate` knows
        (default ``ndcg@10``); with leaderboards, their measure names (default: every
        measure of each judge's board).
    truth_metrics
        The truth's metrics. With ``pairs="same"`` (default), the truth's metric of the
        same name as each judge metric, or, given, the truth metric at the same position;
        with ``pairs="all"``, every truth metric (default: all of the truth's) against
        every judge metric, as autojudge-evaluate pairs them.
    correlations
        Names among ``kendall``, ``pearson``, ``spearman``, ``tauap_b``, ``tau_gap``, each
        optionally with ``@K`` (default :data:`CORRELATIONS`). As in autojudge-evaluate,
        asking for one ``@K`` restricts every correlation of the call to the systems both
        boards rank, and ``@K`` keeps the truth's best K (equal means: the first named).
    on_missing
        A system (or a topic of a board's system) missing on one side: ``"error"``,
        ``"warn"`` (then as ``"skip"``), ``"skip"`` (the systems both rank) or
        ``"default"`` (0.0 for a system the judge lacks).
    only_shared_topics, topics
        Keep the truth's topics that a judge has too, or the topics given; the means are
        then recomputed from the per-topic values.
    only_shared_runs
        Keep the systems both boards rank.
    drop_aggregate
        Recompute the means from the per-topic values instead of reading the boards'
        ``all`` rows: ``True`` (both sides), ``"truth"`` or ``"judges"``.
    format, truth_format, header
        How leaderboard files are read (:func:`rankset.io.read_leaderboard`); the truth's
        format defaults to ``format``.
    per_topic
        Also correlate the systems' values topic by topic (``per_topic`` frame).
    n_bootstrap, confidence, seed
        The bootstrap over topics: the topics are drawn with replacement (the same draws
        for every judge and metric), both boards' means recomputed, the correlation
        recomputed; the percentile interval at ``confidence``. ``n_bootstrap=0``: none.
    **evaluate_options
        With ``runs``: passed to :func:`rankset.evaluate` (``relevance_level=``...).

    Returns
    -------
    MetaEvaluation

    Examples
    --------
    Four systems; the judge swaps the two in the middle:

    >>> import polars as pl
    >>> rows = [(s, q, "ndcg@10", v) for s, q, v in [
    ...     ("a", "1", .9), ("a", "2", .7), ("b", "1", .6), ("b", "2", .6),
    ...     ("c", "1", .5), ("c", "2", .3), ("d", "1", .1), ("d", "2", .2)]]
    >>> schema = ["system", "query_id", "metric", "value"]
    >>> truth = pl.DataFrame(rows, schema=schema, orient="row")
    >>> judge = truth.with_columns(
    ...     value=pl.when(pl.col("system") == "b").then(0.3).otherwise(pl.col("value")))
    >>> result = meta_evaluate(truth, {"llm": judge}, correlations=["kendall"], seed=1)
    >>> result.correlations.select("judge", "correlation", "value", "n_systems").row(0)
    ('llm', 'kendall', 0.6666666666666669, 4)
    """
    methods = _check(correlations, on_missing, pairs, drop_aggregate, n_bootstrap, confidence)
    named = _named_judges(judges)
    sides = _Sides.read(
        truth, named, runs, metrics, truth_metrics, format, truth_format, header, evaluate_options
    )
    if runs is None:
        check_topic_grid(sides.truth, "truth", on_missing)
        for name, frame in sides.judges.items():
            check_topic_grid(frame, name, on_missing)
    kept = _kept_topics(sides, topics, only_shared_topics)
    recompute_truth = drop_aggregate in (True, "truth")
    recompute_judges = drop_aggregate in (True, "judges")
    truth_board = Board.of("truth", sides.truth, topics=kept, recompute=recompute_truth)
    boards = {
        name: Board.of(name, frame, topics=kept, recompute=recompute_judges)
        for name, frame in sides.judges.items()
    }
    shared = only_shared_runs or any("@" in m for m in methods)
    pair_scores = [
        PairScores.of(truth_board, board, tm, m, shared=shared, on_missing=on_missing)
        for name, board in boards.items()
        for tm, m in _pairs(sides, truth_board, board, pairs)
    ]
    universe = sorted(truth_board.topics.union(*(b.topics for b in boards.values())))
    counts = _draws(len(universe), n_bootstrap, seed)
    rows = []
    for scores in pair_scores:
        n_topics = truth_board.per_topic.filter(pl.col("metric") == scores.truth_metric)
        resampled = scores.resampled(truth_board, boards[scores.judge], universe, counts)
        for method in methods:
            value, n_systems = scores.value(method)
            low, high = _interval(resampled.correlation(method), confidence)
            rows.append(
                (
                    scores.judge,
                    scores.truth_metric,
                    scores.metric,
                    method,
                    value,
                    low,
                    high,
                    n_systems,
                    n_topics["query_id"].n_unique(),
                )
            )
    topic_frame, per_topic_frame = topic_frames(
        truth_board,
        boards,
        sides,
        pair_scores,
        methods,
        kept,
        shared=shared,
        on_missing=on_missing,
        per_topic=per_topic,
    )
    return MetaEvaluation(
        correlations=pl.DataFrame(rows, schema=_CORRELATION_SCHEMA, orient="row"),
        leaderboards=leaderboard_frame(pair_scores),
        topics=topic_frame,
        per_topic=per_topic_frame,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
    )


_CORRELATION_SCHEMA = {
    "judge": pl.String,
    "truth_metric": pl.String,
    "metric": pl.String,
    "correlation": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "n_systems": pl.Int64,
    "n_topics": pl.Int64,
}


def _check(
    correlations: Iterable[str],
    on_missing: str,
    pairs: str,
    drop_aggregate: bool | str,
    n_bootstrap: int,
    confidence: float,
) -> list[str]:
    methods = [correlations] if isinstance(correlations, str) else list(correlations)
    if not methods:
        raise ParameterError("meta_evaluate() needs one correlation or more.")
    for method in methods:
        parse_correlation(method)
    for name, value, allowed in (
        ("on_missing", on_missing, _MISSING),
        ("pairs", pairs, ("same", "all")),
        ("drop_aggregate", drop_aggregate, (False, True, "truth", "judges")),
    ):
        if value not in allowed:
            shown = ", ".join(repr(a) for a in allowed)
            msg = f"The {name!r} parameter must be one of {shown}. Got {value!r} instead."
            raise ParameterError(msg)
    check_int("n_bootstrap", n_bootstrap, 0)
    check_fraction("confidence", confidence)
    return methods


def _named_judges(judges: Any) -> dict[str, Any]:
    """``{name: judge}``; a lone label set or leaderboard is named ``"judge"``."""
    if isinstance(judges, Mapping) and not _is_label_mapping(judges):
        if not judges:
            raise ParameterError("meta_evaluate() needs one judge or more.")
        return {str(name): judge for name, judge in judges.items()}
    return {"judge": judges}


def _is_label_mapping(value: Mapping[Any, Any]) -> bool:
    """Whether a mapping is one ranx-style label set ``{query: {doc: grade}}``."""
    return any(
        isinstance(inner, Mapping)
        and any(isinstance(grade, (int, float)) for grade in inner.values())
        for inner in value.values()
    )


@dataclass(frozen=True)
class _Sides:
    """Both sides as leaderboard frames, and the metrics asked of each."""

    truth: pl.DataFrame
    judges: dict[str, pl.DataFrame]
    metrics: list[str] | None
    truth_metrics: list[str] | None

    @classmethod
    def read(
        cls,
        truth: Any,
        judges: dict[str, Any],
        runs: Any,
        metrics: str | Iterable[str] | None,
        truth_metrics: str | Iterable[str] | None,
        format: str,
        truth_format: str | None,
        header: bool,
        evaluate_options: dict[str, Any],
    ) -> _Sides:
        asked = _names(metrics)
        truth_asked = _names(truth_metrics)
        if runs is None:
            if evaluate_options:
                named = ", ".join(sorted(evaluate_options))
                msg = f"Evaluation options ({named}) apply to runs; no runs were given."
                raise ParameterError(msg)
            from rankset.io import read_leaderboard

            board = read_leaderboard(truth, truth_format or format, header=header)
            boards = {n: read_leaderboard(j, format, header=header) for n, j in judges.items()}
            return cls(board, boards, asked, truth_asked)
        from rankset.evaluation import EvaluateOptions, EvaluationResult, evaluate_with
        from rankset.measures import parse_metric

        asked = [parse_metric(m).name for m in asked or ["ndcg@10"]]
        truth_asked = None if truth_asked is None else [parse_metric(m).name for m in truth_asked]
        options = EvaluateOptions.from_kwargs(evaluate_options, "meta_evaluate")
        every = list(dict.fromkeys([*asked, *(truth_asked or [])]))

        def board_of(labels: Any) -> pl.DataFrame:
            if isinstance(labels, EvaluationResult):  # the runs, evaluated already
                result = labels
            else:
                result = evaluate_with(runs, labels, every, options, confidence=None)
            frame = result.per_query.filter(pl.col("metric").is_in(every))
            frame = frame.select("system", "query_id", "metric", "value")
            return frame.drop_nulls("value").filter(pl.col("value").is_not_nan())

        return cls(board_of(truth), {n: board_of(j) for n, j in judges.items()}, asked, truth_asked)


def _names(metrics: str | Iterable[str] | None) -> list[str] | None:
    if metrics is None:
        return None
    names = [metrics] if isinstance(metrics, str) else [str(m) for m in metrics]
    return names or None


def _pairs(sides: _Sides, truth: Board, judge: Board, pairs: str) -> list[tuple[str, str]]:
    """Return the (truth metric, judge metric) pairs of one judge."""
    judged = sides.metrics or sorted(judge.means)
    if pairs == "all":
        return [(tm, m) for tm in sides.truth_metrics or sorted(truth.means) for m in judged]
    if sides.truth_metrics is None:
        return [(m, m) for m in judged]
    if len(sides.truth_metrics) != len(judged):
        msg = (
            "With pairs='same', 'truth_metrics' pairs with 'metrics' by position: give as "
            f"many ({len(sides.truth_metrics)} truth metrics, {len(judged)} metrics)."
        )
        raise ParameterError(msg)
    return list(zip(sides.truth_metrics, judged, strict=True))


def _kept_topics(
    sides: _Sides, topics: Iterable[str] | None, only_shared_topics: bool
) -> set[str] | None:
    """Return the topics a call keeps; None keeps them all and the boards' own means."""
    if topics is not None:
        return {str(t) for t in ([topics] if isinstance(topics, str) else topics)}
    if not only_shared_topics:
        return None

    def of(frame: pl.DataFrame) -> set[str]:
        return set(frame.filter(pl.col("query_id") != AGGREGATE)["query_id"].to_list())

    return of(sides.truth).intersection(set().union(*(of(f) for f in sides.judges.values())))


def _draws(n_topics: int, n_bootstrap: int, seed: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """How often each topic is drawn in each bootstrap sample: ``(n_bootstrap, n_topics)``."""
    if n_topics == 0 or n_bootstrap == 0:
        return np.zeros((n_bootstrap, n_topics), dtype=np.int64)
    picks = np.random.default_rng(seed).integers(0, n_topics, size=(n_bootstrap, n_topics))
    counts = np.zeros((n_bootstrap, n_topics), dtype=np.int64)
    np.add.at(counts, (np.arange(n_bootstrap)[:, None], picks), 1)
    return counts


def _interval(draws: np.ndarray[Any, Any], confidence: float) -> tuple[float, float]:
    finite = draws[np.isfinite(draws)]
    if finite.size == 0:
        return float("nan"), float("nan")
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(finite, [tail, 100.0 - tail])
    return float(low), float(high)
