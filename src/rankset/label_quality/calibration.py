"""Calibration of a judge against the humans: a monotone map to the expected human gain.

An LLM judge's grades are not on the humans' scale even when the numbers look alike: an
UMBRELA "3" is a human 3 only part of the time, an EXAM grade runs 0-5, a probability is
not a grade at all. On the pairs that carry both a human and a judge label,
:func:`calibrate` fits the isotonic regression of the human grade on the judge's score
(pool-adjacent-violators over the score's levels, optionally weighted, e.g. by inverse
inclusion probabilities when the pairs were not drawn uniformly). The fitted value at a
score is the expected human gain of a pair with that score, never decreasing as the score
grows. :meth:`Calibration.apply` replaces every judge grade by that expected gain, so the
measures read the judge on the humans' scale.

The judge's score is its grade, its expected grade under per-grade probabilities
(``expected_grade``, as :func:`rankset.io.read_judgments` writes it), or the mean of
several judges' grades for the same pair.

A fit is judged by what it does to the measures (see :func:`calibration_effects`): the
bias of the systems' means against the humans', and the order of the systems. Rounding the
fitted gains back to grades to compute a kappa throws away what the fit is for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from rankset._format import ReprTable, counted, html_repr, text_repr
from rankset.errors import ParameterError, SchemaError
from rankset.label_quality._pool import PAIR, judge_frame

__all__ = ["Calibration", "calibrate", "calibration_effects", "isotonic_fit"]


def isotonic_fit(levels: Any, means: Any, weights: Any) -> np.ndarray:
    """Return the weighted isotonic (non-decreasing) fit of ``means`` over sorted ``levels``.

    Pool adjacent violators: neighbouring levels whose means decrease are merged into
    one block with their weighted mean, until the blocks' means never decrease.

    Parameters
    ----------
    levels
        The distinct score levels, increasing.
    means
        The mean response at each level.
    weights
        The weight of each level (a count of pairs, or a sum of weights); positive.

    Returns
    -------
    numpy.ndarray
        The fitted value at each level.

    Examples
    --------
    >>> isotonic_fit([0, 1, 2], [0.2, 0.6, 0.4], [1, 1, 1]).tolist()
    [0.2, 0.5, 0.5]
    """
    values = np.asarray(means, dtype=np.float64)
    mass = np.asarray(weights, dtype=np.float64)
    if len(np.asarray(levels)) != len(values) or len(values) != len(mass):
        raise ParameterError("levels, means and weights must have the same length")
    block_mean: list[float] = []
    block_mass: list[float] = []
    block_size: list[int] = []
    for value, weight in zip(values.tolist(), mass.tolist(), strict=True):
        block_mean.append(value)
        block_mass.append(weight)
        block_size.append(1)
        while len(block_mean) > 1 and block_mean[-2] > block_mean[-1]:
            total = block_mass[-2] + block_mass[-1]
            merged = (block_mean[-2] * block_mass[-2] + block_mean[-1] * block_mass[-1]) / total
            block_mean[-2:] = [merged]
            block_mass[-2:] = [total]
            block_size[-2:] = [block_size[-2] + block_size[-1]]
    return np.repeat(np.asarray(block_mean), block_size)


@dataclass(frozen=True)
class Calibration:
    """The outcome of :func:`calibrate`.

    Attributes
    ----------
    table : polars.DataFrame
        The reliability table, one row per level of the judge's score, increasing:
        ``score, n`` (pairs), ``weight`` (their total weight), ``human_mean`` (the
        weighted mean human grade at that score) and ``fitted`` (the isotonic fit: the
        expected human gain of a pair with that score).
    score : str
        The judge's column the fit reads (``grade``, ``expected_grade``...).
    n_pairs : int
        The pairs with both labels the fit used.
    n_judge_only : int
        The judge's pairs without a human label (where the fit is applied).
    """

    table: pl.DataFrame
    score: str
    n_pairs: int
    n_judge_only: int = 0

    def expected_gain(self, scores: Any) -> np.ndarray:
        """Return the fitted expected human gain at each score.

        Between two fitted levels the gain is interpolated linearly; below the lowest
        and above the highest it is the end level's.

        Examples
        --------
        >>> human = {"q": {"a": 0, "b": 1, "c": 2, "d": 3}}
        >>> judge = {"q": {"a": 0, "b": 0, "c": 2, "d": 2}}
        >>> calibrate(judge, human).expected_gain([0, 1, 2]).tolist()
        [0.5, 1.5, 2.5]
        """
        levels = self.table["score"].to_numpy()
        fitted = self.table["fitted"].to_numpy()
        gains: np.ndarray = np.interp(np.asarray(scores, dtype=np.float64), levels, fitted)
        return gains

    def apply(self, labels: Any) -> pl.DataFrame:
        """Return ``labels`` with each grade replaced by the fitted expected human gain.

        The judge's own score is kept as ``judge_score``, so the result is labels that
        :func:`rankset.evaluate` scores (gains need not be whole numbers).

        Examples
        --------
        >>> human = {"q": {"a": 0, "b": 1, "c": 2, "d": 3}}
        >>> judge = {"q": {"a": 0, "b": 0, "c": 2, "d": 2}}
        >>> calibrate(judge, human).apply(judge)["grade"].to_list()
        [0.5, 0.5, 2.5, 2.5]
        """
        frame = judge_frame(labels, "labels")
        column = _score_column(frame, self.score)
        scored = _per_pair_score(frame, column)
        gains = self.expected_gain(scored["score"].to_numpy())
        return scored.select(
            *PAIR,
            grade=pl.Series(gains, dtype=pl.Float64),
            judge_score=pl.col("score"),
        )

    def _blocks(self) -> tuple[str, ReprTable]:
        rows = [
            (f"{s:g}", n, f"{h:.4f}", f"{f:.4f}")
            for s, n, h, f in self.table.select("score", "n", "human_mean", "fitted").rows()
        ]
        title = (
            f"Calibration of the judge's {self.score} on "
            f"{counted(self.n_pairs, 'pair')} with a human label"
        )
        table = ReprTable(("score", "pairs", "human mean", "fitted"), rows, keys=1)
        return title, table

    def __repr__(self) -> str:
        return text_repr(*self._blocks())

    def _repr_html_(self) -> str:
        return html_repr(*self._blocks())


def calibrate(
    judge_labels: Any,
    human_labels: Any,
    *,
    score: str | None = None,
    weights: Any = None,
) -> Calibration:
    """Fit the judge's score to the expected human gain, monotone, on the shared pairs.

    Parameters
    ----------
    judge_labels
        The judge's labels: a frame with ``query_id, doc_id`` and ``grade`` (and maybe
        ``expected_grade`` or ``prob_*`` columns, several rows per pair for several
        judges), or anything :func:`rankset.io.read` reads as labels.
    human_labels
        The human labels of some (or all) of the same pairs.
    score
        The judge's column to fit on; by default ``expected_grade`` when present, else
        ``grade``. Several rows of a pair (several judges or samples) are averaged.
    weights
        Optional per-pair weights: a frame ``query_id, doc_id, weight`` (inverse
        inclusion probabilities, say, for pairs drawn by a non-uniform plan).

    Returns
    -------
    Calibration

    Raises
    ------
    SchemaError
        No pair carries both labels.

    Examples
    --------
    The judge's 2 is a human 2 half the time and a 3 the other half:

    >>> human = {"q": {"a": 0, "b": 1, "c": 2, "d": 3}}
    >>> judge = {"q": {"a": 0, "b": 0, "c": 2, "d": 2}}
    >>> calibrate(judge, human).table.select("score", "n", "fitted").rows()
    [(0.0, 2, 0.5), (2.0, 2, 2.5)]
    """
    judge = judge_frame(judge_labels, "judge labels")
    column = _score_column(judge, score)
    scored = _per_pair_score(judge, column)
    human = (
        judge_frame(human_labels, "human labels")
        .group_by(PAIR)
        .agg(human=pl.col("grade").mean())
        .with_columns(pl.col("human").clip(lower_bound=0.0))
    )
    shared = scored.join(human, on=PAIR, how="inner")
    if weights is None:
        shared = shared.with_columns(weight=pl.lit(1.0))
    else:
        given = _weights_frame(weights)
        shared = shared.join(given, on=PAIR, how="left").with_columns(
            pl.col("weight").fill_null(0.0)
        )
        shared = shared.filter(pl.col("weight") > 0)
    if shared.height == 0:
        msg = (
            "calibrate: no pair carries both a judge and a human label; "
            "expected the human labels to cover some of the judge's (query_id, doc_id) pairs"
        )
        raise SchemaError(msg)
    levels = (
        shared.group_by("score")
        .agg(
            n=pl.len().cast(pl.Int64),
            weight=pl.col("weight").sum(),
            human_mean=(pl.col("human") * pl.col("weight")).sum() / pl.col("weight").sum(),
        )
        .sort("score")
    )
    fitted = isotonic_fit(levels["score"], levels["human_mean"], levels["weight"])
    table = levels.with_columns(fitted=pl.Series(fitted, dtype=pl.Float64))
    return Calibration(
        table=table,
        score=column,
        n_pairs=shared.height,
        n_judge_only=scored.height - shared.height,
    )


def calibration_effects(
    runs: Any,
    judge_labels: Any,
    human_labels: Any,
    calibration: Calibration,
    metric: str = "ndcg@10",
    **evaluate_options: Any,
) -> pl.DataFrame:
    """Compare the systems' means under the raw and the calibrated judge with the humans'.

    Parameters
    ----------
    runs
        The runs, as :func:`rankset.evaluate` takes them.
    judge_labels, human_labels
        As for :func:`calibrate`.
    calibration
        The fit to apply to the judge's labels.
    metric
        The measure the systems are compared on.
    **evaluate_options
        Passed to :func:`rankset.evaluate`.

    Returns
    -------
    polars.DataFrame
        One row per system: ``system, human, judge, calibrated`` (the means) and
        ``judge_bias``, ``calibrated_bias`` (minus the human mean).

    Examples
    --------
    >>> runs = {"s": {"q": {"a": 2.0, "b": 1.0}}}
    >>> human = {"q": {"a": 1, "b": 0}}
    >>> judge = {"q": {"a": 3, "b": 3}}
    >>> fit = calibrate(judge, human)
    >>> effects = calibration_effects(runs, judge, human, fit, "dcg@2")
    >>> [round(value, 4) for value in effects.row(0)[1:]]  # 1; 3 + 3/log2(3); 0.5 + 0.5/log2(3)
    [1.0, 4.8928, 0.8155, 3.8928, -0.1845]
    """
    from rankset.evaluation import evaluate

    calibrated = calibration.apply(judge_labels).select(*PAIR, "grade")
    judge = judge_frame(judge_labels, "judge labels").group_by(PAIR).agg(pl.col("grade").mean())
    means = {}
    for name, labels in (("human", human_labels), ("judge", judge), ("calibrated", calibrated)):
        summary = evaluate(runs, labels, metrics=[metric], **evaluate_options).summary
        means[name] = summary.select("system", pl.col("mean").alias(name))
    return (
        means["human"]
        .join(means["judge"], on="system", how="left", maintain_order="left")
        .join(means["calibrated"], on="system", how="left", maintain_order="left")
        .with_columns(
            judge_bias=pl.col("judge") - pl.col("human"),
            calibrated_bias=pl.col("calibrated") - pl.col("human"),
        )
    )


def _score_column(frame: pl.DataFrame, score: str | None) -> str:
    if score is None:
        return "expected_grade" if "expected_grade" in frame.columns else "grade"
    if score not in frame.columns:
        msg = f"score={score!r}: no such column in the judge labels; they have {frame.columns}"
        raise ParameterError(msg)
    return score


def _per_pair_score(frame: pl.DataFrame, column: str) -> pl.DataFrame:
    """One row per pair, its score the mean over the pair's rows (judges or samples)."""
    return (
        frame.filter(pl.col(column).is_not_null())
        .group_by(PAIR, maintain_order=True)
        .agg(score=pl.col(column).cast(pl.Float64).mean())
    )


def _weights_frame(weights: Any) -> pl.DataFrame:
    if isinstance(weights, pl.LazyFrame):
        weights = weights.collect()
    if not isinstance(weights, pl.DataFrame) or not {*PAIR, "weight"} <= set(weights.columns):
        msg = "weights: expected a frame with query_id, doc_id and weight"
        raise ParameterError(msg)
    return weights.select(
        pl.col("query_id").cast(pl.String),
        pl.col("doc_id").cast(pl.String),
        pl.col("weight").cast(pl.Float64),
    )
