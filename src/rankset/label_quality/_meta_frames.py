"""The frames of a meta-evaluation beside the correlations: both boards, topic by topic."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

import numpy as np
import polars as pl

from rankset.errors import ParameterError
from rankset.label_quality._boards import Board, MissingPolicy, PairScores
from rankset.label_quality._correlations import batched_correlation

__all__ = ["leaderboard_frame", "topic_frames"]

_KEY_SCHEMA = {"judge": pl.String, "truth_metric": pl.String, "metric": pl.String}


def leaderboard_frame(pairs: Sequence[PairScores]) -> pl.DataFrame:
    """``judge, truth_metric, metric, system, truth_mean, judge_mean, truth_rank, judge_rank``."""
    rows = []
    for scores in pairs:
        systems = list(dict.fromkeys([*scores.truth, *scores.judged]))
        rows += [
            (
                scores.judge,
                scores.truth_metric,
                scores.metric,
                system,
                scores.truth.get(system),
                scores.judged.get(system),
            )
            for system in systems
        ]
    schema = _KEY_SCHEMA | {"system": pl.String, "truth_mean": pl.Float64, "judge_mean": pl.Float64}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    group = list(_KEY_SCHEMA)
    ranked = frame.with_columns(
        truth_rank=pl.col("truth_mean").rank("min", descending=True).over(group).cast(pl.Int64),
        judge_rank=pl.col("judge_mean").rank("min", descending=True).over(group).cast(pl.Int64),
    )
    return (
        ranked.with_row_index("_order")
        .sort(pl.col("_order").first().over(group), "truth_rank", "system", nulls_last=True)
        .drop("_order")
    )


def topic_frames(
    truth: pl.DataFrame,
    judges: dict[str, pl.DataFrame],
    pairs: Sequence[PairScores],
    methods: Sequence[str],
    kept: Collection[str] | None,
    *,
    shared: bool,
    on_missing: MissingPolicy,
    per_topic: bool,
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """Return the ``topics`` frame (each topic's kendall, worst first) and ``per_topic``."""
    truth_board = Board.of("truth", truth, topics=kept, recompute=True)
    rows = []
    for scores in pairs:
        judge_board = Board.of(scores.judge, judges[scores.judge], topics=kept, recompute=True)
        rows += _topic_kendalls(truth_board, judge_board, scores)
    schema = _KEY_SCHEMA | {"query_id": pl.String, "kendall": pl.Float64, "n_systems": pl.Int64}
    topics = pl.DataFrame(rows, schema=schema, orient="row")
    group = list(_KEY_SCHEMA)
    topics = (
        topics.with_row_index("_order")
        .sort(pl.col("_order").first().over(group), "kendall", "query_id", nulls_last=True)
        .drop("_order")
    )
    if not per_topic:
        return topics, None
    return topics, _per_topic(truth, judges, pairs, methods, kept, shared, on_missing)


def _topic_kendalls(
    truth: Board, judge: Board, scores: PairScores
) -> list[tuple[str, str, str, str, float | None, int]]:
    """Kendall's tau-b of the systems both boards score on each topic they share."""
    t = _by_topic(truth, scores.truth_metric)
    j = _by_topic(judge, scores.metric)
    out = []
    for topic in sorted(set(t) & set(j)):
        systems = sorted(set(t[topic]) & set(j[topic]))
        value = math.nan
        if len(systems) >= 3:
            a = np.array([[t[topic][s] for s in systems]])
            b = np.array([[j[topic][s] for s in systems]])
            value = float(batched_correlation("kendall", a, b)[0])
        shown = None if math.isnan(value) else value
        out.append((scores.judge, scores.truth_metric, scores.metric, topic, shown, len(systems)))
    return out


def _by_topic(board: Board, metric: str) -> dict[str, dict[str, float]]:
    values: dict[str, dict[str, float]] = {}
    rows = board.per_topic.filter(pl.col("metric") == metric)
    for system, topic, value in rows.select("system", "query_id", "value").iter_rows():
        values.setdefault(topic, {})[system] = value
    return values


def _per_topic(
    truth: pl.DataFrame,
    judges: dict[str, pl.DataFrame],
    pairs: Sequence[PairScores],
    methods: Sequence[str],
    kept: Collection[str] | None,
    shared: bool,
    on_missing: MissingPolicy,
) -> pl.DataFrame:
    """Each correlation of each topic's ranking, as autojudge's ``evaluate_per_topic``."""
    rows = []
    truth_topics = _topics(truth)
    for name, frame in judges.items():
        topics = sorted(truth_topics & _topics(frame))
        if kept is not None:
            topics = [t for t in topics if t in kept]
        for topic in topics:
            t = Board.of("truth", truth, topics={topic}, recompute=True)
            j = Board.of(name, frame, topics={topic}, recompute=True)
            for scores in (p for p in pairs if p.judge == name):
                try:
                    one = PairScores.of(
                        t,
                        j,
                        scores.truth_metric,
                        scores.metric,
                        shared=shared,
                        on_missing=on_missing,
                    )
                except ParameterError:  # a metric without a value on this topic
                    one = None
                for method in methods:
                    value = math.nan if one is None else one.value(method, strict=False)[0]
                    rows.append((name, scores.truth_metric, scores.metric, topic, method, value))
    schema = _KEY_SCHEMA | {"query_id": pl.String, "correlation": pl.String, "value": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _topics(frame: pl.DataFrame) -> set[str]:
    return set(frame.filter(pl.col("query_id") != "all")["query_id"].unique().to_list())
