"""Planning an evaluation: inputs read, metrics resolved to features, lazy frames.

An :class:`EvaluationPlan` is everything an evaluation settles before it measures: the
runs (lazy), the labels, each metric's value expression over the measure features, the
optional pool and answers, and the options. It is picklable, so one plan is sent to
every cluster worker (:mod:`rankset.evaluation.cluster`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankset._typing import PassEngine
from rankset._validation import warn_user
from rankset.errors import ParameterError, RanksetWarning
from rankset.evaluation._inputs import (
    assign_system_names,
    cut_runs,
    read_cutoffs,
    read_labels,
    read_runs,
)
from rankset.evaluation._nugget_inputs import labels_from_nuggets, nugget_stats, nugget_values
from rankset.evaluation._options import EvaluateOptions, resolve_engine
from rankset.evaluation._rag_inputs import Pools, answer_positions, pool_tier_counts, read_answers
from rankset.evaluation._runs import Runs
from rankset.evaluation.textmatch import TextMatch
from rankset.io import read_nuggets
from rankset.measures import Features, Metric, needs_grade_scale
from rankset.measures.nuggets import NUGGET_MEASURES
from rankset.measures.scales import infer_scale, resolve_scale
from rankset.schema import normalize_labels

__all__ = ["EvaluationPlan", "plan_evaluation_inputs"]

# Options that carry inputs: the plan holds them read, so its options drop them.
_INPUT_OPTIONS = {
    "cutoffs": None,
    "names": None,
    "pool": None,
    "answers": None,
    "nuggets": None,
    "client": None,
}


@dataclass(frozen=True)
class EvaluationPlan:
    """Everything an evaluation settles before measuring: inputs, metrics, lazy frames.

    Attributes
    ----------
    metrics
        The metrics, parsed, in the order asked.
    values
        Each metric's value expression (by canonical name) over the measure features.
    features
        The columns the metrics need (:class:`rankset.measures.Features`).
    options
        The evaluation's options, less the inputs they carried (read into the fields
        below); ``engine`` and ``buckets`` are the resolved ones.
    """

    metrics: list[Metric]
    values: dict[str, pl.Expr]
    features: Features
    runs: Runs
    labels: pl.LazyFrame
    label_source: str
    cutoffs: pl.LazyFrame | None
    pools: Pools | None
    answers: pl.LazyFrame | None
    answer_positions: pl.LazyFrame | None
    nugget_values: pl.LazyFrame | None
    nugget_stats: pl.LazyFrame | None
    text_match: pl.DataFrame | None
    options: EvaluateOptions
    engine: PassEngine | Literal["dask"]
    buckets: int | None
    # A partitioned dataset's labels with their bucket column, and its bucket count.
    dataset_labels: tuple[pl.LazyFrame, int] | None = None
    client: Any = None  # the Dask client of engine="dask" (never sent to the workers)
    # With judged_only: the (system, query_id) pairs ranked before the cut.
    ranked_queries: pl.DataFrame | None = None

    def config(self) -> dict[str, Any]:
        """Return the settings recorded in a result's ``config`` (and exported files)."""
        options = self.options
        return {
            "metrics": [m.name for m in self.metrics],
            "relevance_level": options.relevance_level,
            "missing": options.missing,
            "k": options.k,
            "default_k": options.default_k,
            "order": options.order,
            "duplicates": options.duplicates,
            "score_precision": options.score_precision,
            "pool_depth": options.pool_depth,
            "max_depth": options.max_depth,
            "judged_only": options.judged_only,
            "engine": self.engine,
            "buckets": self.buckets,
        }


def plan_evaluation_inputs(
    runs: Any,
    labels: Any,
    metrics: list[Metric],
    options: EvaluateOptions,
    *,
    scan_text: bool = False,
) -> EvaluationPlan:
    """Read the inputs and plan the evaluation; ``scan_text``: scan plain TREC files."""
    engine = resolve_engine(options.engine)
    order = options.order
    text_match = None
    if isinstance(runs, TextMatch):
        if labels is not None:
            msg = "A TextMatch carries its own labels (the gold items): leave labels= out."
            raise ParameterError(msg)
        # The match numbered each ranking; that numbering is the order to evaluate.
        text_match, runs, labels, order = runs.report, runs.run, runs.labels, "rank"
        options = options.replace(order=order)

    inputs = read_runs(runs, options.names, scan_text=scan_text)
    run_frame = assign_system_names(
        inputs,
        order=order,
        duplicates=options.duplicates,
        engine=engine,
        score_precision=options.score_precision,
    )
    # Read only when used: for nugget measures, or for the labels they imply.
    asks_nuggets = any(metric.spec.name in NUGGET_MEASURES for metric in metrics)
    nugget_frame = None
    if options.nuggets is not None and (asks_nuggets or labels is None):
        nugget_frame = read_nuggets(options.nuggets)
    if labels is None and nugget_frame is not None:
        labels = labels_from_nuggets(nugget_frame)  # 1: supports a nugget fully
    label_input = read_labels(labels, inputs, options.dataset_checks)
    label_source = label_input.source if label_input is not None else "labels"
    if label_input is None or label_input.labels is None:
        msg = (
            "No labels: pass labels= (CLI --qrels) or use runs that carry their own labels "
            "(JSONL samples with expected_output)."
        )
        raise ParameterError(msg)
    label_frame = normalize_labels(label_input.labels, source=label_source)
    level = options.relevance_level
    if level is None:
        # rankset's level of 1, unless the labels imply another (samples' gain maps).
        level = 1 if label_input.relevance_level is None else label_input.relevance_level
        options = options.replace(relevance_level=level)
    cutoff_frame = read_cutoffs(options.cutoffs, inputs, label_input)
    run_frame, ranked_queries = cut_runs(
        run_frame, label_frame, max_depth=options.max_depth, judged_only=options.judged_only
    )

    scale = options.scale
    if isinstance(scale, str) and scale == "auto":
        scale = _scale_from_labels(label_frame, metrics, label_source)
    features = Features(
        relevance_level=float(level),
        scale=resolve_scale(scale),
        pool_depth=options.pool_depth,
    )
    values = {metric.name: metric.spec.build(features, metric) for metric in metrics}

    buckets = options.buckets
    if buckets is None:
        buckets = run_frame.dataset_buckets()  # a partitioned dataset brings its own
    answer_frame = (
        read_answers(options.answers, inputs, label_input) if features.containment_modes else None
    )
    if features.nugget_columns and nugget_frame is None:
        asked = [m.name for m in metrics if m.spec.name in NUGGET_MEASURES]
        msg = (
            f"{', '.join(asked)} need nugget labels: pass nuggets= (CLI --nuggets FILE), a "
            "frame or file with query_id, nugget_id, doc_id, support and importance."
        )
        raise ParameterError(msg)
    return EvaluationPlan(
        metrics=metrics,
        values=values,
        features=features,
        runs=run_frame,
        labels=label_frame,
        label_source=label_source,
        cutoffs=cutoff_frame,
        pools=pool_tier_counts(
            features,
            options.pool,
            label_frame,
            order=order,
            depth=options.pool_depth,
            score_precision=options.score_precision,
        ),
        answers=answer_frame,
        answer_positions=(
            answer_positions(features, run_frame, answer_frame)
            if answer_frame is not None
            else None
        ),
        nugget_values=(
            nugget_values(features, run_frame, nugget_frame)
            if nugget_frame is not None and features.nugget_columns
            else None
        ),
        nugget_stats=(
            nugget_stats(features, nugget_frame).lazy()
            if nugget_frame is not None and features.nugget_columns
            else None
        ),
        text_match=text_match,
        dataset_labels=(
            (label_input.labels, label_input.buckets)
            if label_input.buckets is not None
            and "bucket" in label_input.labels.collect_schema().names()
            else None
        ),
        options=options.replace(**_INPUT_OPTIONS, engine=engine, buckets=buckets),
        engine=engine,
        buckets=buckets,
        client=options.client,
        ranked_queries=ranked_queries,
    )


def _scale_from_labels(labels: pl.LazyFrame, metrics: list[Metric], source: str) -> str:
    """Choose the grade scale from the labels' grades when none is given.

    Only metrics that map grades to tiers read it; without one, ``rag5`` is kept and the
    labels are not read here. A label set that fits ``rag5`` keeps it; one graded 0-1 or
    0-3 gets ``binary`` or ``trec_dl``, said in a warning (the configuration names it too).
    """
    if not any(needs_grade_scale(metric) for metric in metrics):
        return "rag5"
    grades = labels.select(pl.col("grade").unique()).collect(engine="in-memory")["grade"]
    chosen = infer_scale(grades)
    if chosen is None:
        return "rag5"  # the kernel's check names the grades outside it
    if chosen != "rag5":
        shown = ", ".join(f"{grade:g}" for grade in grades.filter(grades >= 0).sort())
        warn_user(
            f"{source}: grades {shown} do not fit the default scale rag5 (1-5); using "
            f"scale={chosen!r} ({resolve_scale(chosen).describe()}). Pass scale= (CLI "
            "--scale) to choose another.",
            RanksetWarning,
        )
    return chosen
