"""Planning an evaluation: inputs read, metrics resolved to features, lazy frames.

An :class:`EvaluationPlan` is everything an evaluation settles before it measures: the
runs (lazy), the labels, each metric's value expression over the measure features, the
optional pool and answers, and the options. It is picklable, so one plan is sent to
every cluster worker (:mod:`rankset.evaluation.cluster`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankset._typing import Engine, PassEngine
from rankset._validation import warn_user
from rankset.errors import ParameterError, RanksetWarning
from rankset.evaluation._inputs import (
    RunInput,
    assign_system_names,
    cut_runs,
    read_cutoffs,
    read_labels,
    read_runs,
)
from rankset.evaluation._nugget_inputs import labels_from_nuggets, nugget_stats, nugget_values
from rankset.evaluation._options import EvaluateOptions, resolve_engine
from rankset.evaluation._pass import with_first_rows_orders
from rankset.evaluation._rag_inputs import Pools, answer_positions, pool_tier_counts, read_answers
from rankset.evaluation._runs import Runs
from rankset.evaluation.textmatch import TextMatch
from rankset.io import ParsedInput, read_nuggets
from rankset.measures import Features, Metric
from rankset.measures._shared import needs_grade_scale
from rankset.measures.nuggets import NUGGET_MEASURES
from rankset.measures.scales import infer_scale, resolve_scale
from rankset.schema import normalize_labels

__all__ = ["EvaluationPlan", "plan_evaluation_inputs", "plan_labels", "with_runs"]

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

    def value_columns(self) -> list[pl.Expr]:
        """Each metric's value as a ``Float64`` column named by the metric, as asked."""
        return [self.values[m.name].cast(pl.Float64).alias(m.name) for m in self.metrics]

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
            "ignore_identical_ids": options.ignore_identical_ids,
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
    """Read the inputs and plan the evaluation.

    ``scan_text``: plan on assumptions the pass over the runs verifies (it raises
    :class:`~rankset.evaluation._runs.TextScanRejected` when one breaks): plain TREC
    files scanned lazily, and a score on every row of a Parquet run.
    """
    runs, labels, options, text_match = _unwrap_text_match(runs, labels, options)
    inputs = read_runs(runs, options.names, scan_text=scan_text)
    engine = engine_for(options.engine, inputs)
    run_frame = assign_system_names(
        inputs,
        order=options.order,
        duplicates=options.duplicates,
        engine=engine,
        score_precision=options.score_precision,
        # the pass counts missing scores over the rows it keeps: all of them, uncut
        assume_scores=scan_text
        and not options.ignore_identical_ids
        and options.max_depth is None
        and not options.judged_only,
    )
    nugget_frame = _read_nuggets_if_used(options, metrics, labels)
    label_input, label_frame = _read_label_frame(labels, inputs, options, nugget_frame)
    options, level = _with_relevance_level(options, label_input)
    cutoff_frame = read_cutoffs(options.cutoffs, inputs, label_input)
    if options.ignore_identical_ids:  # before the cuts: max_depth counts what is left
        run_frame = run_frame.drop_identical_ids()
    run_frame, ranked_queries = cut_runs(
        run_frame, label_frame, max_depth=options.max_depth, judged_only=options.judged_only
    )
    features, values = _built(
        _plan_features(options, level, label_frame, metrics, label_input.source, label_input.scale),
        metrics,
    )
    buckets = options.buckets
    if buckets is None:
        buckets = run_frame.dataset_buckets()  # a partitioned dataset brings its own
    if buckets is not None or engine == "dask":  # one pass per bucket: look once, here
        run_frame = with_first_rows_orders(run_frame)
    rag = _rag_inputs(
        features, options, metrics, inputs, label_input, label_frame, run_frame, nugget_frame
    )
    return EvaluationPlan(
        metrics=metrics,
        values=values,
        features=features,
        runs=run_frame,
        labels=label_frame,
        label_source=label_input.source,
        cutoffs=cutoff_frame,
        pools=rag.pools,
        answers=rag.answers,
        answer_positions=rag.answer_positions,
        nugget_values=rag.nugget_values,
        nugget_stats=rag.nugget_stats,
        text_match=text_match,
        dataset_labels=_dataset_labels(label_input),
        options=options.replace(**_INPUT_OPTIONS, engine=engine, buckets=buckets),
        engine=engine,
        buckets=buckets,
        client=options.client,
        ranked_queries=ranked_queries,
    )


def plan_labels(
    labels: Any, metrics: list[Metric], options: EvaluateOptions
) -> EvaluationPlan | None:
    """Plan the evaluation of runs yet to come: labels, metrics and options settled.

    The steps of :func:`plan_evaluation_inputs` that do not read a run; the plan has no
    runs (:func:`with_runs` gives it some). None when the metrics or options need
    something from the runs to plan (answers, pools, nuggets, cut rankings, buckets,
    labels carried by the runs, another engine than this machine's).
    """
    engine = resolve_engine(options.engine)  # "auto" is settled with each run
    run_side = (options.pool, options.answers, options.nuggets, options.max_depth)
    if (
        labels is None
        or any(value is not None for value in run_side)
        or options.judged_only
        or options.buckets is not None
        or engine not in ("streaming", "in-memory")
        or isinstance(labels, TextMatch)
    ):
        return None
    label_input, label_frame = _read_label_frame(labels, [], options, None)
    if label_input.buckets is not None:
        return None
    options, level = _with_relevance_level(options, label_input)
    cutoff_frame = read_cutoffs(options.cutoffs, [], label_input)
    features, values = _built(
        _plan_features(options, level, label_frame, metrics, label_input.source, label_input.scale),
        metrics,
    )
    if features.containment_modes or features.nugget_columns:
        return None
    return EvaluationPlan(
        metrics=metrics,
        values=values,
        features=features,
        runs=Runs(
            inputs=[],
            order=options.order,
            duplicates=options.duplicates,
            score_precision=options.score_precision,
        ),
        labels=label_frame,
        label_source=label_input.source,
        cutoffs=cutoff_frame,
        pools=None,
        answers=None,
        answer_positions=None,
        nugget_values=None,
        nugget_stats=None,
        text_match=None,
        options=options.replace(**_INPUT_OPTIONS, buckets=None),
        engine=engine,
        buckets=None,
    )


def with_runs(plan: EvaluationPlan, runs: Any, names: Any = None) -> EvaluationPlan | None:
    """Return a :func:`plan_labels` plan with these runs read and named.

    None when a run brings what the plan was settled without (cutoffs, answers or
    labels of its own, a partitioned dataset's buckets): such runs are planned whole.
    """
    if isinstance(runs, TextMatch):
        return None
    inputs = read_runs(runs, names)
    if any(
        item.parsed.buckets is not None
        or item.parsed.cutoffs is not None
        or item.parsed.answers is not None
        or item.parsed.relevance_level is not None
        for item in inputs
    ):
        return None
    options = plan.options
    engine = engine_for(options.engine, inputs)
    run_frame = assign_system_names(
        inputs,
        order=options.order,
        duplicates=options.duplicates,
        engine=engine,
        score_precision=options.score_precision,
    )
    if options.ignore_identical_ids:
        run_frame = run_frame.drop_identical_ids()
    return dataclasses.replace(
        plan, runs=run_frame, engine=engine, options=options.replace(engine=engine)
    )


#: Runs of at most this many rows in all, held in memory, take the in-memory engine
#: under ``engine="auto"``: its fixed cost is lower, and nothing is to be streamed.
SMALL_RUN_ROWS = 1_000_000


def engine_for(engine: Engine, inputs: list[RunInput]) -> PassEngine | Literal["dask"]:
    """Return the engine of the pass: ``engine`` resolved, ``"auto"`` by the runs' size.

    ``"auto"`` is the in-memory engine when every run is given in memory (a
    ``{qid: {doc: score}}`` dict, a Polars, pandas or pyarrow frame) with
    :data:`SMALL_RUN_ROWS` rows in all, else the streaming engine. The values do not
    depend on the engine.
    """
    resolved = resolve_engine(engine)
    if engine != "auto":
        return resolved
    rows = 0
    for item in inputs:
        if item.parsed.rows_in_memory is None:
            return resolved
        rows += item.parsed.rows_in_memory
    return "in-memory" if rows <= SMALL_RUN_ROWS else resolved


def _built(features: Features, metrics: list[Metric]) -> tuple[Features, dict[str, pl.Expr]]:
    """Build the metrics' value expressions, filling ``features`` with what they need.

    The same metrics on the same parameters (level, scale, pool depth) build the same
    expressions, so they are built once and kept (the last :data:`_KEPT` sets): a loop of
    small evaluations does not rebuild them on every call. Each call gets its own copy.
    """
    # A measure is defined once, so a metric's name stands for its expressions.
    key = (tuple(metrics), features.relevance_level, features.scale, features.pool_depth)
    kept = _built_before.get(key)
    if kept is None:
        values = {metric.name: metric.spec.build(features, metric) for metric in metrics}
        kept = (features.copy(), values)
        if len(_built_before) >= _KEPT:
            _built_before.pop(next(iter(_built_before)), None)
        _built_before[key] = kept
    return kept[0].copy(), dict(kept[1])


#: How many sets of metrics :func:`_built` keeps.
_KEPT = 32
_built_before: dict[tuple[Any, ...], tuple[Features, dict[str, pl.Expr]]] = {}


@dataclass(frozen=True)
class _RagInputs:
    """The inputs of the RAG measures: pools, answers and nuggets, as the plan holds them."""

    pools: Pools | None
    answers: pl.LazyFrame | None
    answer_positions: pl.LazyFrame | None
    nugget_values: pl.LazyFrame | None
    nugget_stats: pl.LazyFrame | None


def _unwrap_text_match(
    runs: Any, labels: Any, options: EvaluateOptions
) -> tuple[Any, Any, EvaluateOptions, pl.DataFrame | None]:
    """Return the runs, labels and options a :class:`TextMatch` stands for, and its report.

    Any other ``runs`` is returned as given, with no report.
    """
    if not isinstance(runs, TextMatch):
        return runs, labels, options, None
    if labels is not None:
        msg = "A TextMatch carries its own labels (the gold items): leave labels= out."
        raise ParameterError(msg)
    # The match numbered each ranking; that numbering is the order to evaluate.
    return runs.run, runs.labels, options.replace(order="rank"), runs.report


def _read_nuggets_if_used(
    options: EvaluateOptions, metrics: list[Metric], labels: Any
) -> pl.DataFrame | None:
    """Read ``nuggets=`` only when used: for nugget measures, or for the labels they imply."""
    asks_nuggets = any(metric.spec.name in NUGGET_MEASURES for metric in metrics)
    if options.nuggets is not None and (asks_nuggets or labels is None):
        return read_nuggets(options.nuggets)
    return None


def _read_label_frame(
    labels: Any,
    inputs: list[RunInput],
    options: EvaluateOptions,
    nugget_frame: pl.DataFrame | None,
) -> tuple[ParsedInput, pl.LazyFrame]:
    """Read the labels (given, implied by the nuggets, or carried by the runs), normalised.

    Raises
    ------
    ParameterError
        When there are no labels at all.
    """
    if labels is None and nugget_frame is not None:
        labels = labels_from_nuggets(nugget_frame)  # 1: supports a nugget fully
    label_input = read_labels(labels, inputs, options.dataset_checks)
    if label_input is None or label_input.labels is None:
        msg = (
            "No labels: pass labels= (CLI --qrels) or use runs that carry their own labels "
            "(JSONL samples with expected_output)."
        )
        raise ParameterError(msg)
    return label_input, normalize_labels(label_input.labels, source=label_input.source)


def _with_relevance_level(
    options: EvaluateOptions, label_input: ParsedInput
) -> tuple[EvaluateOptions, float]:
    """Return the options with a relevance level, and that level.

    The level given, else rankset's level of 1, unless the labels imply another
    (samples' gain maps).
    """
    level = options.relevance_level
    if level is None:
        level = 1 if label_input.relevance_level is None else label_input.relevance_level
        options = options.replace(relevance_level=level)
    return options, level


def _plan_features(
    options: EvaluateOptions,
    level: float,
    labels: pl.LazyFrame,
    metrics: list[Metric],
    source: str,
    documented: str | None = None,
) -> Features:
    """Return the features the metrics are measured with (the scale chosen if ``auto``).

    ``auto`` takes the scale the labels' source documents (ir_datasets' relevance
    definitions), else the one their grades fit.
    """
    scale = options.scale
    if isinstance(scale, str) and scale == "auto":
        scale = documented or _scale_from_labels(labels, metrics, source)
    return Features(
        relevance_level=float(level),
        scale=resolve_scale(scale),
        pool_depth=options.pool_depth,
    )


def _rag_inputs(
    features: Features,
    options: EvaluateOptions,
    metrics: list[Metric],
    inputs: list[RunInput],
    label_input: ParsedInput,
    labels: pl.LazyFrame,
    runs: Runs,
    nugget_frame: pl.DataFrame | None,
) -> _RagInputs:
    """Read and plan what the RAG measures asked for need: answers, pools and nuggets.

    Raises
    ------
    ParameterError
        When nugget measures are asked for without nugget labels.
    """
    answers = (
        read_answers(options.answers, inputs, label_input) if features.containment_modes else None
    )
    if features.nugget_columns and nugget_frame is None:
        asked = [m.name for m in metrics if m.spec.name in NUGGET_MEASURES]
        msg = (
            f"{', '.join(asked)} need nugget labels: pass nuggets= (CLI --nuggets FILE), a "
            "frame or file with query_id, nugget_id, doc_id, support and importance."
        )
        raise ParameterError(msg)
    pools = pool_tier_counts(
        features,
        options.pool,
        labels,
        order=options.order,
        depth=options.pool_depth,
        score_precision=options.score_precision,
    )
    positions = answer_positions(features, runs, answers) if answers is not None else None
    nuggets = nugget_frame if features.nugget_columns else None
    return _RagInputs(
        pools=pools,
        answers=answers,
        answer_positions=positions,
        nugget_values=nugget_values(features, runs, nuggets) if nuggets is not None else None,
        nugget_stats=nugget_stats(features, nuggets).lazy() if nuggets is not None else None,
    )


def _dataset_labels(label_input: ParsedInput) -> tuple[pl.LazyFrame, int] | None:
    """Return a partitioned dataset's labels with their bucket column, and its bucket count."""
    labels = label_input.labels
    if label_input.buckets is None or labels is None:
        return None
    if "bucket" not in labels.collect_schema().names():
        return None
    return labels, label_input.buckets


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
