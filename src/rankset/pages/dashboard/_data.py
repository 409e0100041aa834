"""The data a dashboard embeds, assembled once from frames already computed.

Everything is laid out by column to stay compact: one list of query ids, and for each
(metric, system) the list of per-query values in that order; for each query a local table
of its documents (the union of every system's top ``depth`` and its relevant documents, with
their grades) that the rankings point into by position. Texts are stored once per document.

When the estimated size passes the byte budget, queries are sampled: the biggest wins and
losses of every system against the baseline on the first metric are always kept, the rest
are drawn at random (seeded) until the budget is reached. Means, intervals, tests, curves
and quadrant counts are computed on every query before the sample is drawn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import polars as pl

from rankset.charts import UNCLASSIFIED
from rankset.comparison import COMPARE_COLUMNS, SuiteResult
from rankset.diagnosis.quadrants import QUADRANTS, Diagnosis
from rankset.evaluation import Curves, EvaluationResult
from rankset.experiments import latest_changes
from rankset.experiments._shared import entry_names, in_utc, recorded_settings
from rankset.measures import greater_is_better
from rankset.pages._judges import JudgesView
from rankset.pages.dashboard._judges import judges_data
from rankset.pages.dashboard._suite import suite_data

__all__ = ["FORMAT_VERSION", "Payload", "Sample", "assemble", "choose_queries", "history_data"]

# compare's columns the page embeds: its test is the randomization test, the means are in
# the summary already.
_NOT_SHOWN = ("test", "n_dropped", "mean", "baseline_mean", "relative_delta")
_COMPARE_SHOWN = [column for column in COMPARE_COLUMNS if column not in _NOT_SHOWN]

#: Version of the embedded data's layout (``data.version`` in the page).
FORMAT_VERSION: Final = 1

# Decimals kept in the page: metric values (ties and small differences survive), and the
# diagnosis's PROC and %PROC (only shown).
_VALUE_DECIMALS: Final = 6
_SHOWN_DECIMALS: Final = 4
# Rough JSON cost, in bytes, of one entry of each kind (with its separators).
_BYTES_PER_VALUE: Final = 9
_BYTES_PER_REF: Final = 3
_BYTES_PER_DOC: Final = 6
_BYTES_PER_TEXT: Final = 8


@dataclass(frozen=True)
class Sample:
    """Which queries the page holds.

    Attributes
    ----------
    query_ids
        The kept queries, sorted.
    n_total
        Queries evaluated.
    n_extremes
        Kept because they are among the biggest wins or losses.
    estimated_bytes
        Estimated size of the kept queries' data.
    """

    query_ids: list[str]
    n_total: int
    n_extremes: int
    estimated_bytes: int

    @property
    def sampled(self) -> bool:
        """Whether some queries were left out."""
        return len(self.query_ids) < self.n_total


@dataclass(frozen=True)
class Payload:
    """The embedded data (JSON-ready) and the sample it holds."""

    data: dict[str, Any]
    sample: Sample


def _values_table(result: EvaluationResult, metrics: Sequence[str]) -> pl.DataFrame:
    """``query_id, metric, system, value`` of the shown metrics, NaN as null."""
    return result.per_query.filter(pl.col("metric").is_in(list(metrics))).select(
        "query_id", "metric", "system", pl.col("value").fill_nan(None)
    )


def choose_queries(
    result: EvaluationResult,
    metrics: Sequence[str],
    baseline: str,
    query_bytes: pl.DataFrame,
    *,
    max_bytes: int,
    extremes: int,
    seed: int,
) -> Sample:
    """Pick the queries that fit ``max_bytes`` (all of them when they fit).

    ``query_bytes`` holds ``query_id, bytes``: each query's estimated share of the data.
    The ``extremes`` biggest wins and losses of each system against ``baseline`` on the
    first metric come first (the biggest of every system, then the second biggest...),
    then the others in a seeded random order. The extremes too stop at the budget, but
    the biggest win and loss of every system are always kept.
    """
    sizes = query_bytes.sort("query_id")
    total = int(sizes["bytes"].sum())
    ids = sizes["query_id"].to_list()
    if total <= max_bytes or not ids:
        return Sample(ids, len(ids), 0, total)
    kept: dict[str, None] = {}
    ranked: list[list[str]] = []
    if metrics and baseline:
        sign = 1.0 if greater_is_better(metrics[0]) else -1.0
        values = _values_table(result, metrics[:1])
        base = values.filter(pl.col("system") == baseline).select("query_id", base="value")
        diffs = (
            values.filter(pl.col("system") != baseline)
            .join(base, on="query_id")
            .with_columns(diff=sign * (pl.col("value") - pl.col("base")))
            .drop_nulls("diff")
            .filter(pl.col("diff") != 0)
        )
        for _, group in diffs.group_by("system", maintain_order=True):
            ordered = group.sort("diff", "query_id")
            for frame in (ordered.head(extremes), ordered.reverse().head(extremes)):
                ranked.append(frame["query_id"].to_list())
    for depth in range(extremes):  # the biggest of every system first, then the next
        kept.update(dict.fromkeys(found[depth] for found in ranked if depth < len(found)))
    always = len(dict.fromkeys(found[0] for found in ranked if found))
    rng = np.random.default_rng(seed)
    rest = [ids[i] for i in rng.permutation(len(ids)) if ids[i] not in kept]
    order = [*kept, *rest]
    cost = dict(zip(ids, sizes["bytes"].to_list(), strict=True))
    chosen: list[str] = []
    used = 0
    for position, query_id in enumerate(order):
        size = int(cost[query_id])
        if used + size > max_bytes and position >= always:
            break
        chosen.append(query_id)
        used += size
    return Sample(sorted(chosen), len(ids), min(len(chosen), len(kept)), used)


def _estimate_bytes(
    queries: pl.DataFrame,
    docs: pl.DataFrame,
    texts: pl.DataFrame | None,
    query_texts: pl.DataFrame | None,
    n_systems: int,
    n_metrics: int,
) -> pl.DataFrame:
    """Each query's estimated share of the embedded JSON: ``query_id, bytes``."""
    per_doc = pl.col("doc_id").str.len_bytes() + _BYTES_PER_DOC
    if texts is not None:
        docs = docs.join(
            texts.select(doc_id="id", text_bytes=pl.col("text").str.len_bytes()),
            on="doc_id",
            how="left",
        )
        per_doc = per_doc + (
            pl.col("text_bytes") + pl.col("doc_id").str.len_bytes() + _BYTES_PER_TEXT
        ).fill_null(0)
    per_query = docs.group_by("query_id").agg(doc_bytes=per_doc.sum(), refs=pl.col("n_refs").sum())
    fixed = n_systems * (n_metrics + 3) * _BYTES_PER_VALUE
    frame = queries.join(per_query, on="query_id", how="left").with_columns(
        bytes=(
            pl.col("query_id").str.len_bytes()
            + fixed
            + pl.col("doc_bytes").fill_null(0)
            + pl.col("refs").fill_null(0) * _BYTES_PER_REF
        )
    )
    if query_texts is not None:
        frame = frame.join(
            query_texts.select(query_id="id", text_bytes=pl.col("text").str.len_bytes()),
            on="query_id",
            how="left",
        ).with_columns(pl.col("bytes") + pl.col("text_bytes").fill_null(0))
    return frame.select("query_id", pl.col("bytes").cast(pl.Int64))


def _column_lists(
    frame: pl.DataFrame, query_ids: list[str], key: str, names: Sequence[str], value: str
) -> list[list[Any]]:
    """For each name in ``names``: the ``value`` of each query (in ``query_ids`` order)."""
    order = pl.DataFrame({"query_id": query_ids}, schema={"query_id": pl.String})
    wide = frame.pivot(on=key, index="query_id", values=value, on_columns=list(names))
    aligned = order.join(wide, on="query_id", how="left", maintain_order="left")
    return [aligned[name].to_list() for name in names]


def _as_ints_if_whole(values: pl.Series) -> pl.Series:
    finite = values.drop_nulls()
    if finite.len() and (finite == finite.round(0)).all():
        return values.cast(pl.Int64)
    return values


def assemble(
    result: EvaluationResult,
    *,
    metrics: Sequence[str],
    baseline: str,
    top: pl.DataFrame,
    labels: pl.DataFrame,
    texts: pl.DataFrame | None,
    query_texts: pl.DataFrame | None,
    comparisons: Mapping[str, pl.DataFrame],
    curves: Curves | None,
    curve_of: Mapping[str, str | None],
    diagnosis: Diagnosis | None,
    k: int,
    depth: int,
    max_bytes: int,
    extremes: int,
    seed: int,
    page: Mapping[str, Any],
    history: pl.DataFrame | None = None,
    suite: SuiteResult | None = None,
    judges: JudgesView | None = None,
    all_positions: pl.DataFrame | None = None,
    systems: Sequence[str] | None = None,
) -> Payload:
    """Build the page's data from computed results.

    ``history`` is an experiment store's (:meth:`rankset.experiments.Store.history`),
    ``suite`` a suite of collections (:func:`rankset.pages.dashboard._suite.suite_data`),
    ``judges`` the judges view (:func:`rankset.pages.dashboard._judges.judges_data`).
    ``top`` holds ``system, query_id, doc_id, pos`` (the first ``depth`` positions),
    ``labels`` ``query_id, doc_id, grade``, ``texts`` and ``query_texts`` ``id, text``
    (already cut to snippets). ``all_positions`` (``system, query_id, doc_id, pos`` at full
    depth) gives ``deep_ranks``: where each system ranks the shown documents it holds
    below ``depth``. ``curve_of`` names the curve of each shown metric (or None);
    ``page`` holds the page's own fields (title, notes, options), copied in as they are.
    ``systems`` default to the result's; without metrics (no labels) they and the
    queries are those of ``top``.
    """
    queried = result.per_query if metrics else top
    systems = list(systems if systems is not None else result.systems)
    all_queries = pl.DataFrame(
        {"query_id": queried["query_id"].unique().sort()}, schema={"query_id": pl.String}
    )
    level = result.config.get("relevance_level")
    level = 1.0 if level is None else float(level)
    system_rank = pl.col("system").replace_strict(
        {name: i for i, name in enumerate(systems)}, default=None, return_dtype=pl.Int64
    )
    # planned, not collected: 100 systems x 10,000 queries x top 20 is 20 million rows,
    # read twice below (every query's size, then the kept queries' rankings) and held never
    every_top = (
        top.lazy()
        .join(all_queries.lazy(), on="query_id", how="semi")
        .with_columns(_system=system_rank)
        .drop_nulls("_system")
    )
    relevant = labels.join(all_queries, on="query_id", how="semi").filter(pl.col("grade") >= level)
    # each query's documents once, with how many rankings point to them: enough for its
    # size; their order (the local table) is built for the kept queries only
    distinct = (
        pl.concat(
            [
                every_top.select("query_id", "doc_id", ref=pl.lit(1, pl.Int64)),
                relevant.lazy().select("query_id", "doc_id", ref=pl.lit(0, pl.Int64)),
            ]
        )
        .group_by("query_id", "doc_id")
        .agg(n_refs=pl.col("ref").sum())
        .collect(engine="streaming")  # in batches: no copy of the 20 million rows
    )
    sizes = _estimate_bytes(all_queries, distinct, texts, query_texts, len(systems), len(metrics))
    del distinct
    # what does not grow with the queries kept (the summary, the tests, the curves...)
    # comes out of the budget first, so the file keeps to it
    shared: dict[str, Any] = {
        "summary": _records(
            result.summary.filter(pl.col("metric").is_in(list(metrics))),
            ["system", "metric", "mean", "ci_low", "ci_high", "n_queries", "n_na"],
        ),
        "compare": {name: _records(frame, _COMPARE_SHOWN) for name, frame in comparisons.items()},
        "curves": None
        if curves is None
        else _records(curves.summary, ["system", "metric", "k", "mean", "ci_low", "ci_high"]),
        "history": None if history is None else history_data(history, metrics),
        "suite": None if suite is None else suite_data(suite, metrics),
        "judges": None if judges is None else judges_data(judges),
    }
    shared_bytes = len(json.dumps(shared, separators=(",", ":"), ensure_ascii=False, default=str))
    sample = choose_queries(
        result,
        metrics,
        baseline,
        sizes,
        max_bytes=max(max_bytes - shared_bytes, 0),
        extremes=extremes,
        seed=seed,
    )
    ids = sample.query_ids
    kept = pl.DataFrame({"query_id": ids}, schema={"query_id": pl.String})
    top = every_top.join(kept.lazy(), on="query_id", how="semi").collect()
    relevant = relevant.join(kept, on="query_id", how="semi")
    docs = (
        pl.concat(
            [
                top.sort("query_id", "_system", "pos").select("query_id", "doc_id"),
                relevant.sort(
                    "query_id", "grade", "doc_id", descending=[False, True, False]
                ).select("query_id", "doc_id"),
            ]
        )
        .unique(["query_id", "doc_id"], keep="first", maintain_order=True)
        .with_columns(idx=pl.int_range(pl.len(), dtype=pl.Int64).over("query_id"))
        .join(labels.select("query_id", "doc_id", "grade"), on=["query_id", "doc_id"], how="left")
        .sort("query_id", "idx")
    )
    grouped = kept.join(
        docs.with_columns(grade=_as_ints_if_whole(docs["grade"]))
        .group_by("query_id", maintain_order=True)
        .agg("doc_id", "grade"),
        on="query_id",
        how="left",
        maintain_order="left",
    )
    positions = (
        top.join(docs.select("query_id", "doc_id", "idx"), on=["query_id", "doc_id"])
        .sort("system", "query_id", "pos")
        .group_by("system", "query_id", maintain_order=True)
        .agg("idx")
    )
    rankings = [
        [row or [] for row in column]
        for column in _column_lists(positions, ids, "system", systems, "idx")
    ]
    values = _values_table(result, metrics).join(kept, on="query_id", how="semi")
    per_metric = [
        _column_lists(
            values.filter(pl.col("metric") == metric).with_columns(
                pl.col("value").round(_VALUE_DECIMALS)
            ),
            ids,
            "system",
            systems,
            "value",
        )
        for metric in metrics
    ]
    data: dict[str, Any] = {
        "version": FORMAT_VERSION,
        **page,
        "systems": systems,
        "metrics": list(metrics),
        "greater": [greater_is_better(metric) for metric in metrics],
        "curve_of": [curve_of.get(metric) for metric in metrics],
        "baseline": baseline,
        "k": k,
        "depth": depth,
        "relevance_level": level,
        "n_queries_total": sample.n_total,
        "sample": {
            "sampled": sample.sampled,
            "n_extremes": sample.n_extremes,
            "max_bytes": max_bytes,
        },
        "queries": ids,
        "query_text": _aligned_texts(query_texts, ids),
        "values": per_metric,
        "doc_ids": [row or [] for row in grouped["doc_id"].to_list()],
        "grades": [row or [] for row in grouped["grade"].to_list()],
        "rankings": rankings,
        "texts": _doc_texts(texts, docs),
        "summary": shared["summary"],
        "compare": shared["compare"],
        "curves": shared["curves"],
        "diagnosis": None if diagnosis is None else _diagnosis(diagnosis, systems, ids),
        "history": shared["history"],
        "suite": shared["suite"],
        "judges": shared["judges"],
        "deep_ranks": None
        if all_positions is None
        else _deep_ranks(all_positions, docs, depth, ids, systems),
    }
    return Payload(data=data, sample=sample)


def _deep_ranks(
    positions: pl.DataFrame,
    docs: pl.DataFrame,
    depth: int,
    ids: list[str],
    systems: Sequence[str],
) -> list[list[list[int]]] | None:
    """Per system and query, ``[doc index, rank, ...]`` of shown documents below ``depth``.

    None when no ranking goes deeper than ``depth`` (nothing to add).
    """
    deeper = positions.filter(pl.col("pos") > depth)
    if deeper.is_empty():
        return None
    pairs = (
        deeper.join(docs.select("query_id", "doc_id", "idx"), on=["query_id", "doc_id"])
        .sort("system", "query_id", "idx")
        .with_columns(pairs=pl.concat_list("idx", pl.col("pos").cast(pl.Int64)))
        .group_by("system", "query_id", maintain_order=True)
        .agg(pl.col("pairs").explode())
    )
    return [
        [row or [] for row in column]
        for column in _column_lists(pairs, ids, "system", systems, "pairs")
    ]


def history_data(history: pl.DataFrame, metrics: Sequence[str]) -> dict[str, Any]:
    """Return the History view's data: the logged means of ``metrics``, the last changes.

    ``rows`` are the history's rows of the shown metrics (time as an ISO string in UTC,
    to the millisecond), ``latest`` is :func:`rankset.experiments.latest_changes`
    (``last_time`` to the minute); ``entries``, ``when`` and ``held`` (every metric the
    store holds) say what it covers.

    Examples
    --------
    >>> from datetime import datetime, UTC
    >>> history = pl.DataFrame({
    ...     "entry_id": ["e1", "e2"], "time": [datetime(2026, 1, 1, tzinfo=UTC),
    ...     datetime(2026, 1, 2, 9, 30, tzinfo=UTC)], "system": ["bm25", "bm25"],
    ...     "metric": ["ap", "ap"], "mean": [0.5, 0.625]})
    >>> data = history_data(history, ["ndcg@10", "ap"])
    >>> data["metrics"], data["when"], data["rows"][1]["time"]
    (['ap'], '2026-01-01 to 2026-01-02', '2026-01-02T09:30:00.000Z')
    >>> data["latest"][0]["last_time"], data["latest"][0]["change"]
    ('2026-01-02 09:30', 0.125)
    """
    held = [str(m) for m in history["metric"].unique(maintain_order=True).to_list()]
    shown = [m for m in metrics if m in held]
    history = entry_names(in_utc(history))
    days = history["time"].dt.strftime("%Y-%m-%d").unique().sort().to_list()
    rows = history.filter(pl.col("metric").is_in(shown)).with_columns(
        pl.col("time").dt.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
    )
    names = dict(history.select("entry_id", "entry").unique().iter_rows())
    latest = latest_changes(history, shown).with_columns(
        pl.col("last_time").dt.strftime("%Y-%m-%d %H:%M"),
        pl.col("last_entry").replace(names),  # as the chart names it
    )
    return {
        "entries": history["entry_id"].n_unique(),
        "when": "" if not days else days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}",
        "held": held,
        "metrics": shown,
        "rows": _records(
            rows,
            [
                *("entry_id", "time", "tag", "system", "metric", "mean", "ci_low", "ci_high"),
                *("entry", "previous", "p_step"),  # the page's name, the step's test
            ],
        ),
        "latest": _records(latest, list(latest.columns)),
        "recorded": recorded_settings(history),
    }


def _aligned_texts(texts: pl.DataFrame | None, ids: list[str]) -> list[str | None] | None:
    if texts is None:
        return None
    order = pl.DataFrame({"id": ids}, schema={"id": pl.String})
    return order.join(texts, on="id", how="left", maintain_order="left")["text"].to_list()


def _doc_texts(texts: pl.DataFrame | None, docs: pl.DataFrame) -> dict[str, str] | None:
    if texts is None:
        return None
    shown = texts.join(docs.select(id="doc_id").unique(), on="id", how="semi").sort("id")
    return dict(zip(shown["id"].to_list(), shown["text"].to_list(), strict=True))


def _records(frame: pl.DataFrame, columns: Sequence[str]) -> list[dict[str, Any]]:
    present = [name for name in columns if name in frame.columns]
    floats = [name for name in present if frame.schema[name].is_float()]
    return frame.select(present).with_columns(pl.col(floats).fill_nan(None)).to_dicts()


def _diagnosis(diagnosis: Diagnosis, systems: list[str], ids: list[str]) -> dict[str, Any]:
    per_query = diagnosis.per_query.with_columns(
        quadrant=pl.col("quadrant").replace_strict(
            {name: i for i, name in enumerate(QUADRANTS)}, default=None, return_dtype=pl.Int64
        ),
        proc=pl.col("proc").fill_nan(None).round(_SHOWN_DECIMALS),
        pct_proc=pl.col("pct_proc").fill_nan(None).round(_SHOWN_DECIMALS),
    )
    k = diagnosis.per_query["k"].drop_nulls()
    return {
        "k": int(k[0]) if k.len() else None,
        "quadrants": list(QUADRANTS),
        "thresholds": dict(diagnosis.thresholds),
        "counts": _records(
            # the unclassifiable queries get a column of their own when there are any
            diagnosis.counts.with_columns(pl.col("quadrant").fill_null(UNCLASSIFIED)).filter(
                (pl.col("quadrant") != UNCLASSIFIED) | (pl.col("n_queries") > 0)
            ),
            ["system", "quadrant", "n_queries", "share"],
        ),
        "quadrant": _column_lists(per_query, ids, "system", systems, "quadrant"),
        "proc": _column_lists(per_query, ids, "system", systems, "proc"),
        "pct_proc": _column_lists(per_query, ids, "system", systems, "pct_proc"),
    }
