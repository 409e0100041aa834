"""The frames of a meta-evaluation beside the correlations: both boards, topic by topic."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Protocol

import numpy as np
import polars as pl

from rankset.errors import ParameterError
from rankset.label_quality._boards import Board, MissingPolicy, PairScores
from rankset.label_quality._correlations import batched_correlation

__all__ = ["leaderboard_frame", "topic_frames"]


class _Frames(Protocol):
    """The two sides' leaderboard frames (meta_evaluation's ``_Sides``)."""

    @property
    def truth(self) -> pl.DataFrame: ...

    @property
    def judges(self) -> dict[str, pl.DataFrame]: ...


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
    truth_board: Board,
    boards: dict[str, Board],
    sides: _Frames,
    pairs: Sequence[PairScores],
    methods: Sequence[str],
    kept: Collection[str] | None,
    *,
    shared: bool,
    on_missing: MissingPolicy,
    per_topic: bool,
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """Return the ``topics`` frame (each topic's kendall, worst first) and ``per_topic``.

    The topics frame reads the call's boards (their per-topic rows: ``kept`` applied);
    ``per_topic`` rebuilds a board per topic from the ``sides``' frames, as
    autojudge-evaluate's ``evaluate_per_topic`` does.
    """
    rows = []
    for scores in pairs:
        rows += _topic_kendalls(truth_board, boards[scores.judge], scores)
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
    return topics, _per_topic(sides.truth, sides.judges, pairs, methods, kept, shared, on_missing)


def _topic_kendalls(
    truth: Board, judge: Board, scores: PairScores
) -> list[tuple[str, str, str, str, float | None, int]]:
    """Kendall's tau-b of the systems both boards score on each topic they share.

    The topics are laid out as a topics x systems matrix per side; the topics that share
    one set of systems (usually all of them) are correlated in one batched call.
    """
    t = _values(truth, scores.truth_metric, "truth")
    j = _values(judge, scores.metric, "judged")
    topics = sorted(set(t["query_id"].to_list()) & set(j["query_id"].to_list()))
    both = t.join(j, on=["system", "query_id"], how="inner")
    key = (scores.judge, scores.truth_metric, scores.metric)
    found: dict[str, tuple[float | None, int]] = {}
    if both.height:
        systems = sorted(both["system"].unique().to_list())
        wide = [
            both.pivot(on="system", index="query_id", values=side, sort_columns=True)
            for side in ("truth", "judged")
        ]
        names = wide[0]["query_id"].to_list()
        a, b = (w.select(systems).to_numpy().astype(np.float64) for w in wide)
        present = ~np.isnan(a)
        patterns, group = np.unique(present, axis=0, return_inverse=True)
        for number, pattern in enumerate(patterns):
            rows = np.flatnonzero(group.ravel() == number)
            values = np.full(len(rows), math.nan)
            if pattern.sum() >= 3:
                values = batched_correlation("kendall", a[rows][:, pattern], b[rows][:, pattern])
            for row, value in zip(rows.tolist(), values.tolist(), strict=True):
                found[names[row]] = (None if math.isnan(value) else value, int(pattern.sum()))
    return [(*key, topic, *found.get(topic, (None, 0))) for topic in topics]


def _values(board: Board, metric: str, name: str) -> pl.DataFrame:
    """``system, query_id, <name>``: a board's per-topic values of ``metric`` (last wins)."""
    rows = board.per_topic.filter(pl.col("metric") == metric)
    rows = rows.unique(["system", "query_id"], keep="last", maintain_order=True)
    return rows.select("system", "query_id", pl.col("value").alias(name))


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
