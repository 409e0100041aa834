"""The leaderboards of a meta-evaluation: means, system alignment, bootstrap matrices.

A board is one side's ``system, query_id, metric, value`` frame (rows with the topic
``all`` are aggregates). Its means are the aggregate rows, or, when topics are filtered
or the aggregates dropped (or a metric has none), the mean of the per-topic rows, as
:func:`statistics.mean` computes it. Systems keep the order in which the board first
names them: the truth's top K keeps, among equal means, the system named first.
"""

from __future__ import annotations

import statistics
import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from rankset.errors import ParameterError, RanksetWarning
from rankset.label_quality._correlations import (
    batched_correlation,
    parse_correlation,
    top_k_columns,
)

__all__ = ["AGGREGATE", "Board", "MissingPolicy", "PairScores", "Resampled", "check_topic_grid"]

MissingPolicy = Literal["error", "warn", "skip", "default"]
#: The topic of the aggregate rows.
AGGREGATE = "all"
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Board:
    """One side's leaderboard as a call uses it: filtered topics, means, systems."""

    name: str
    per_topic: pl.DataFrame  # system, query_id, metric, value; no aggregate rows
    means: dict[str, dict[str, float]]  # metric -> system -> mean, in board order
    systems: tuple[str, ...]  # every system with a row in effect, in board order

    @classmethod
    def of(
        cls, name: str, frame: pl.DataFrame, *, topics: Collection[str] | None, recompute: bool
    ) -> Board:
        """Prepare ``frame``: keep ``topics`` (None: all), recompute the means if asked."""
        per_topic = frame.filter(pl.col("query_id") != AGGREGATE)
        if topics is not None:
            per_topic = per_topic.filter(pl.col("query_id").is_in(list(topics)))
        means = _means(per_topic)
        if recompute or topics is not None:
            in_effect = per_topic
        else:
            in_effect = frame
            given = frame.filter(pl.col("query_id") == AGGREGATE)
            for (metric,), rows in given.group_by("metric", maintain_order=True):
                means[str(metric)] = {}
                for system, value in rows.select("system", "value").iter_rows():
                    means[str(metric)][system] = value  # the last row wins, the first place stays
        systems = tuple(in_effect["system"].unique(maintain_order=True).to_list())
        return cls(name, per_topic, means, systems)

    @property
    def topics(self) -> set[str]:
        """The topics of the per-topic rows."""
        return set(self.per_topic["query_id"].unique().to_list())

    def ranking(self, metric: str) -> dict[str, float]:
        """``system -> mean`` of ``metric``, in board order; refuse a metric it lacks."""
        if metric not in self.means:
            known = ", ".join(sorted(self.means)) or "none"
            msg = f"The leaderboard {self.name!r} has no metric {metric!r} (it has: {known})."
            raise ParameterError(msg)
        return self.means[metric]

    def matrix(self, metric: str, systems: Sequence[str], topics: Sequence[str]) -> FloatArray:
        """``systems x topics`` per-topic values of ``metric`` (NaN where there is none)."""
        out = np.full((len(systems), len(topics)), np.nan)
        rows = (
            self.per_topic.filter(
                pl.col("metric") == metric,
                pl.col("system").is_in(list(systems)),
                pl.col("query_id").is_in(list(topics)),
            )
            .unique(["system", "query_id"], keep="last", maintain_order=True)
            .select(
                pl.col("system").replace_strict(list(systems), range(len(systems))),
                pl.col("query_id").replace_strict(list(topics), range(len(topics))),
                "value",
            )
        )
        out[rows["system"].to_numpy(), rows["query_id"].to_numpy()] = rows["value"].to_numpy()
        return out


def _means(per_topic: pl.DataFrame) -> dict[str, dict[str, float]]:
    """``metric -> system -> statistics.mean`` of the per-topic rows, in board order."""
    values: dict[str, dict[str, list[float]]] = {}
    for system, metric, value in per_topic.select("system", "metric", "value").iter_rows():
        values.setdefault(metric, {}).setdefault(system, []).append(value)
    return {
        metric: {system: statistics.mean(v) for system, v in by_system.items()}
        for metric, by_system in values.items()
    }


def check_topic_grid(frame: pl.DataFrame, name: str, on_missing: MissingPolicy) -> None:
    """Under ``error`` or ``warn``, every system of a board must have the same topics."""
    if on_missing not in ("error", "warn"):
        return
    per_topic = frame.filter(pl.col("query_id") != AGGREGATE)
    topics = per_topic.group_by("system").agg(pl.col("query_id").unique())
    every = set(per_topic["query_id"].unique().to_list())
    lacking = sorted(
        (system, sorted(every - set(have)))
        for system, have in topics.iter_rows()
        if set(have) != every
    )
    if not lacking:
        return
    shown = "; ".join(f"{system} lacks {', '.join(t)}" for system, t in lacking[:5])
    msg = (
        f"In the leaderboard {name!r}, {len(lacking)} system(s) lack topics the others have "
        f"({shown}); pass on_missing='skip' or 'default' to go on."
    )
    _missing(msg, on_missing)


def _missing(msg: str, on_missing: MissingPolicy) -> None:
    if on_missing == "error":
        raise ParameterError(msg)
    if on_missing == "warn":
        warnings.warn(msg, RanksetWarning, stacklevel=4)


@dataclass(frozen=True)
class PairScores:
    """The truth's and a judge's rankings of one (truth metric, metric) pair."""

    judge: str
    truth_metric: str
    metric: str
    truth: dict[str, float]  # board order
    judged: dict[str, float]
    on_missing: MissingPolicy

    @classmethod
    def of(
        cls,
        truth: Board,
        judge: Board,
        truth_metric: str,
        metric: str,
        *,
        shared: bool,
        on_missing: MissingPolicy,
    ) -> PairScores:
        """Both rankings; with ``shared``, only the systems both boards name."""
        t, j = truth.ranking(truth_metric), judge.ranking(metric)
        if shared:
            both = set(truth.systems) & set(judge.systems)
            t = {s: v for s, v in t.items() if s in both}
            j = {s: v for s, v in j.items() if s in both}
        return cls(judge.name, truth_metric, metric, t, j, on_missing)

    def candidates(self, top_k: int | None) -> dict[str, float]:
        """Return the truth's systems a correlation uses: all, or the top ``top_k`` by mean."""
        if top_k is None:
            return self.truth
        ranked = sorted(self.truth.items(), key=lambda item: item[1], reverse=True)
        return dict(ranked[:top_k])

    def aligned(self, top_k: int | None) -> tuple[list[str], list[float], list[float]]:
        """Return the systems (sorted), their truth and judge scores, as ``on_missing`` says."""
        truth = self.candidates(top_k)
        judged = {s: v for s, v in self.judged.items() if top_k is None or s in truth}
        lacking, extra = sorted(set(truth) - set(judged)), sorted(set(judged) - set(truth))
        if lacking or extra:
            msg = (
                f"The judge {self.judge!r} and the truth do not rank the same systems by "
                f"{self.metric} / {self.truth_metric} (missing under the judge: "
                f"{', '.join(lacking) or 'none'}; missing under the truth: "
                f"{', '.join(extra) or 'none'}); pass on_missing='skip' to use the systems "
                "both rank, or 'default' to give the judge's missing systems 0.0."
            )
            _missing(msg, self.on_missing)
        default = self.on_missing == "default"
        systems = sorted(s for s in truth if s in judged or default)
        return systems, [truth[s] for s in systems], [judged.get(s, 0.0) for s in systems]

    def value(self, correlation: str, *, strict: bool = True) -> tuple[float, int]:
        """Return the correlation's value and the number of systems it compares.

        With ``strict``, fewer than three systems is an error; else the value is NaN.
        """
        base, top_k = parse_correlation(correlation)
        systems, truth, judged = self.aligned(top_k)
        if len(systems) < 3:
            if strict:
                msg = (
                    f"The correlation {correlation} of the judge {self.judge!r} by "
                    f"{self.metric} compares {len(systems)} system(s): it needs three or more."
                )
                raise ParameterError(msg)
            return float("nan"), len(systems)
        value = batched_correlation(base, np.array([truth]), np.array([judged]))[0]
        return float(value), len(systems)

    def resampled(
        self,
        truth: Board,
        judge: Board,
        topics: Sequence[str],
        counts: npt.NDArray[np.int64],
    ) -> Resampled:
        """Return both boards' means under each row of topic ``counts`` (topics drawn again).

        The systems are the truth's (those the judge ranks too, unless missing ones
        default to 0.0), the same for every correlation of the pair, so the means are
        drawn once and each correlation reads them.
        """
        default = self.on_missing == "default"
        systems = sorted(s for s in self.truth if s in self.judged or default)
        if len(systems) < 3 or not topics:
            return Resampled(self, systems, None, None, counts.shape[0])
        t = _resampled_means(truth.matrix(self.truth_metric, systems, topics), counts)
        j = _resampled_means(judge.matrix(self.metric, systems, topics), counts)
        if default:
            j[:, [i for i, s in enumerate(systems) if s not in self.judged]] = 0.0
        return Resampled(self, systems, t, j, counts.shape[0])


@dataclass(frozen=True)
class Resampled:
    """A pair's resampled means (``draws x systems``), None with fewer than 3 systems."""

    scores: PairScores
    systems: list[str]
    truth: FloatArray | None
    judged: FloatArray | None
    n_draws: int

    def correlation(self, name: str) -> FloatArray:
        """Return the correlation ``name`` under each draw (NaN when it is undefined)."""
        base, top_k = parse_correlation(name)
        if self.truth is None or self.judged is None:
            return np.full(self.n_draws, np.nan)
        t, j = self.truth, self.judged
        if top_k is not None and top_k < len(self.systems):
            place = {s: i for i, s in enumerate(self.scores.truth)}
            order = np.array([place[s] for s in self.systems], dtype=np.int64)
            columns = top_k_columns(t, top_k, order)
            t = np.take_along_axis(t, columns, axis=1)
            j = np.take_along_axis(j, columns, axis=1)
        return batched_correlation(base, t, j)


def _resampled_means(values: FloatArray, counts: npt.NDArray[np.int64]) -> FloatArray:
    """Each system's mean over the drawn topics it has values for: ``(draws, systems)``."""
    present = ~np.isnan(values)
    weights = counts.astype(np.float64)
    total = weights @ np.where(present, values, 0.0).T
    n = weights @ present.T.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, total / n, np.nan)
