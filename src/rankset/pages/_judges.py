"""The judges view of both pages: each other label set judged against the reference labels.

When an analysis has ``label_sets`` (an LLM judge's labels beside the human ones, which
are the truth), both pages show, per judge: the two leaderboards side by side, their
correlations as autojudge-evaluate names them with a bootstrap interval over topics
(:func:`rankset.label_quality.meta_evaluate`), the topics where the judge and the humans
disagree most, and the judge's calibration (:func:`rankset.label_quality.calibration.
calibrate`) where its labels share pairs with the humans'. :func:`judges_view` shapes
those results once, so the report and the dashboard show the same rows.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from rankset.errors import RanksetWarning, SchemaError
from rankset.evaluation import EvaluateOptions, EvaluationResult

if TYPE_CHECKING:
    from rankset.label_quality import MetaEvaluation
    from rankset.label_quality.calibration import Calibration
    from rankset.pages._resampling import Resampling

__all__ = [
    "DISAGREEMENTS",
    "MIN_SYSTEMS",
    "SHOWN_CORRELATIONS",
    "JudgesView",
    "calibrations",
    "judges_view",
    "meta_evaluation",
]

#: The correlations both pages show, in this order (autojudge-evaluate's names).
SHOWN_CORRELATIONS: Final = ("kendall", "pearson", "spearman", "tauap_b", "tau_gap", "kendall@10")
#: The topics listed per judge and metric where the judge and the humans disagree most.
DISAGREEMENTS: Final = 10
#: The systems a correlation of leaderboards needs.
MIN_SYSTEMS: Final = 3


def meta_evaluation(
    runs: Any,
    labels: Any,
    label_sets: Mapping[str, Any] | None,
    result: EvaluationResult,
    options: EvaluateOptions,
    policy: Resampling,
) -> MetaEvaluation | None:
    """Meta-evaluate each label set against ``labels`` on the shown metrics.

    None without label sets, or with fewer than :data:`MIN_SYSTEMS` systems. The
    bootstrap over topics draws ``policy.n_resamples`` times with the policy's seed.
    """
    if not label_sets or labels is None or not result.metrics:
        return None
    if len(result.systems) < MIN_SYSTEMS:
        return None
    from rankset.label_quality import meta_evaluate

    with warnings.catch_warnings():  # the evaluation said them already, in the notes
        warnings.simplefilter("ignore", RanksetWarning)
        return meta_evaluate(
            result,  # the analysis's own evaluation under the labels: the truth's board
            dict(label_sets),
            runs=runs,
            metrics=list(result.metrics),
            correlations=SHOWN_CORRELATIONS,
            on_missing="skip",
            n_bootstrap=policy.n_resamples,
            seed=policy.seed,
            **options.as_kwargs(),
        )


def calibrations(labels: Any, label_sets: Mapping[str, Any] | None) -> dict[str, Calibration]:
    """Calibrate each label set on the human ``labels``, where they share pairs."""
    if not label_sets or labels is None:
        return {}
    from rankset.label_quality.calibration import calibrate

    fits = {}
    for name, judged in label_sets.items():
        try:
            fits[name] = calibrate(judged, labels)
        except SchemaError:  # no pair carries both labels
            continue
    return fits


@dataclass(frozen=True)
class JudgesView:
    """What both pages show of the judges, shaped once.

    Attributes
    ----------
    reference
        The name of the human labels (the truth).
    judges
        The other label sets, in the order given.
    metrics
        The metrics meta-evaluated (the shown ones), in order.
    correlations
        ``judge, metric, correlation, value, ci_low, ci_high, n_systems, n_topics``: the
        :data:`SHOWN_CORRELATIONS` of each judge and metric (the same metric on both
        sides), as :func:`~rankset.label_quality.meta_evaluate` returned them.
    leaderboards
        ``judge, metric, system, truth_mean, judge_mean, truth_rank, judge_rank,
        rank_change`` (``truth_rank - judge_rank``: positive, the judge ranks the system
        higher), best by the humans first.
    topics
        ``judge, metric, query_id, kendall, n_systems``: per judge and metric, the
        :data:`DISAGREEMENTS` topics whose systems the judge orders least like the humans
        (lowest Kendall's tau-b of the systems' values on the topic; undefined ones left
        out).
    calibration
        ``judge, score, n, human_mean, fitted``: each calibrated judge's reliability table.
    uncalibrated
        The judges that share no (query, document) pair with the reference.
    n_bootstrap, confidence
        The topic draws behind the intervals, and their level.
    note
        Why there are no correlations (fewer than three systems), or None.
    """

    reference: str
    judges: tuple[str, ...]
    metrics: tuple[str, ...]
    correlations: pl.DataFrame
    leaderboards: pl.DataFrame
    topics: pl.DataFrame
    calibration: pl.DataFrame
    uncalibrated: tuple[str, ...]
    n_bootstrap: int
    confidence: float
    note: str | None


_CORRELATION_SCHEMA: Final = {
    "judge": pl.String,
    "metric": pl.String,
    "correlation": pl.String,
    "value": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "n_systems": pl.Int64,
    "n_topics": pl.Int64,
}
_BOARD_SCHEMA: Final = {
    "judge": pl.String,
    "metric": pl.String,
    "system": pl.String,
    "truth_mean": pl.Float64,
    "judge_mean": pl.Float64,
    "truth_rank": pl.Int64,
    "judge_rank": pl.Int64,
    "rank_change": pl.Int64,
}
_TOPIC_SCHEMA: Final = {
    "judge": pl.String,
    "metric": pl.String,
    "query_id": pl.String,
    "kendall": pl.Float64,
    "n_systems": pl.Int64,
}
_CALIBRATION_SCHEMA: Final = {
    "judge": pl.String,
    "score": pl.Float64,
    "n": pl.Int64,
    "human_mean": pl.Float64,
    "fitted": pl.Float64,
}


def judges_view(
    reference: str,
    label_sets: Mapping[str, Any] | None,
    metrics: tuple[str, ...],
    n_systems: int,
    meta: MetaEvaluation | None,
    fits: Mapping[str, Calibration],
    *,
    n_bootstrap: int,
) -> JudgesView | None:
    """Shape the meta-evaluation and the calibrations for the pages (None without judges)."""
    if not label_sets:
        return None
    judges = tuple(str(name) for name in label_sets)
    note = None
    if meta is None:
        note = (
            f"A correlation of leaderboards needs {MIN_SYSTEMS} systems or more; this "
            f"analysis has {n_systems}: no leaderboards or correlations."
        )
        correlations = pl.DataFrame(schema=_CORRELATION_SCHEMA)
        boards = pl.DataFrame(schema=_BOARD_SCHEMA)
        topics = pl.DataFrame(schema=_TOPIC_SCHEMA)
        confidence = 0.95
    else:
        same = pl.col("truth_metric") == pl.col("metric")
        order = {name: i for i, name in enumerate(SHOWN_CORRELATIONS)}
        correlations = (
            meta.correlations.filter(same, pl.col("correlation").is_in(list(SHOWN_CORRELATIONS)))
            .sort(
                pl.col("judge").replace_strict(_order(judges), default=len(judges)),
                pl.col("metric").replace_strict(_order(metrics), default=len(metrics)),
                pl.col("correlation").replace_strict(order, default=len(order)),
                maintain_order=True,
            )
            .select(list(_CORRELATION_SCHEMA))
        )
        boards = (
            meta.leaderboards.filter(same)
            .with_columns(rank_change=pl.col("truth_rank") - pl.col("judge_rank"))
            .select(list(_BOARD_SCHEMA))
            .cast(_BOARD_SCHEMA)  # type: ignore[arg-type]
        )
        topics = (
            meta.topics.filter(same, pl.col("kendall").is_not_null(), ~pl.col("kendall").is_nan())
            .group_by("judge", "metric", maintain_order=True)
            .head(DISAGREEMENTS)
            .select(list(_TOPIC_SCHEMA))
        )
        n_bootstrap = meta.n_bootstrap
        confidence = meta.confidence
    tables = [
        fit.table.select(
            pl.lit(name).alias("judge"),
            pl.col("score").cast(pl.Float64),
            pl.col("n").cast(pl.Int64),
            pl.col("human_mean").cast(pl.Float64),
            pl.col("fitted").cast(pl.Float64),
        )
        for name, fit in fits.items()
    ]
    calibration = pl.concat(tables) if tables else pl.DataFrame(schema=_CALIBRATION_SCHEMA)
    return JudgesView(
        reference=reference,
        judges=judges,
        metrics=metrics,
        correlations=correlations,
        leaderboards=boards,
        topics=topics,
        calibration=calibration,
        uncalibrated=tuple(name for name in judges if name not in fits),
        n_bootstrap=n_bootstrap,
        confidence=confidence,
        note=note,
    )


def _order(names: tuple[str, ...]) -> dict[str, int]:
    return {name: i for i, name in enumerate(names)}
