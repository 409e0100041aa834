"""``fuse``: combine runs into one run, lazily, over whole runs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

from rankset._typing import IntoLabels, IntoRun
from rankset._validation import check_choice, check_float, did_you_mean
from rankset.errors import ParameterError, SchemaError
from rankset.fusion._methods import (
    ALIASES,
    METHODS,
    NORMS,
    FusionMethod,
    Norm,
    fused_scores,
    normalised,
)
from rankset.fusion._trained import trained_terms
from rankset.io import scan_run
from rankset.schema import normalize_run

__all__ = [
    "check_parameters",
    "check_weights",
    "fuse",
    "fused_rows",
    "long_rows",
    "prepared_rows",
    "resolve_method",
]


def fuse(
    runs: Sequence[IntoRun] | Mapping[str, IntoRun],
    method: str = "rrf",
    *,
    norm: Norm | None = None,
    weights: Sequence[float] | None = None,
    name: str = "fused",
    depth: int | None = None,
    labels: IntoLabels | None = None,
    train_queries: Iterable[str] | None = None,
    relevance_level: float = 1,
    **params: float,
) -> pl.LazyFrame:
    """Fuse several runs into one: ``system, query_id, doc_id, score, rank`` (lazy).

    Parameters
    ----------
    runs
        Two runs or more, in any form :func:`rankset.scan_run` reads (paths, frames,
        ranx-style dicts), as a list or a ``{name: run}`` dict. A run holding several
        systems counts as one list per query.
    method
        ``rrf`` (default; ``k=60``), ``isr``, ``log_isr``, ``logn_isr`` (``sigma=0.01``),
        ``rbc`` (``phi``), ``borda`` on positions; ``combsum``, ``combmnz``,
        ``combgmnz`` (``gamma``), ``combanz``, ``combmax``, ``combmin``, ``combmed``,
        ``wsum``, ``wmnz``, ``mixed`` on normalised scores. ranx's names (``sum``,
        ``mnz``, ``bordafuse``...) are accepted.
    norm
        Normalisation of the scores for the score-based methods: ``min-max`` (their
        default), ``max``, ``sum``, ``zmuv``, ``rank``, ``borda`` or ``none``. The
        position-based methods take no normalisation.
    weights
        One weight per run (``wsum``, ``wmnz``, ``mixed``, ``rrf``, ``rbc``, ``borda``);
        by default 1 each.
    name
        The fused run's system name.
    depth
        Keep the first ``depth`` documents of each input ranking (all by default).
    labels, train_queries, relevance_level
        For the methods trained on labelled queries (``posfuse``, ``probfuse``
        (``segments``), ``segfuse``, ``slidefuse`` (``w``), ``mapfuse``, ``bayesfuse``):
        the labels, the queries to train on (all labelled ones by default) and the grade
        from which a document is relevant. The fused run covers every query.
    **params
        The method's parameters (``k``, ``gamma``, ``phi``, ``sigma``).

    Returns
    -------
    polars.LazyFrame
        Every document of any input ranking, with its fused score and its rank under
        the evaluation's ordering rule (score descending, ties by doc id descending);
        ``.collect()`` it, pass it to :func:`rankset.evaluate`, or write it with
        :func:`rankset.write_run`.

    Examples
    --------
    >>> import rankset
    >>> bm25 = {"q1": {"a": 12.0, "b": 9.5, "c": 3.1}}
    >>> dense = {"q1": {"c": 0.91, "a": 0.88, "d": 0.20}}
    >>> fused = rankset.fuse([bm25, dense], "rrf", k=60).collect()
    >>> fused.select("doc_id", "rank").rows()
    [('a', 1), ('c', 2), ('b', 3), ('d', 4)]
    >>> rankset.fuse([bm25, dense], "combsum").collect()["score"].round(4).to_list()
    [1.9577, 1.0, 0.7191, 0.0]
    """
    fusion = resolve_method(method)
    items = list(runs.items()) if isinstance(runs, Mapping) else [(None, r) for r in runs]
    if len(items) < 2:
        msg = f"fuse() needs two runs or more; got {len(items)}."
        raise ParameterError(msg)
    settled = check_parameters(fusion, params)
    if norm is not None:
        check_choice("norm", norm, NORMS)
        if not fusion.uses_scores:
            msg = f"{fusion.name} fuses positions, not scores: leave norm out."
            raise ParameterError(msg)
    chosen_norm: Norm = norm or "min-max"
    weight_values = check_weights(weights, len(items), fusion)
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        msg = f"The 'depth' parameter must be an int >= 1. Got {depth!r} instead."
        raise ParameterError(msg)

    rows = prepared_rows(
        long_rows([source for _, source in items], weight_values, depth), fusion, chosen_norm
    )
    if fusion.trained:
        rows = trained_terms(
            rows,
            fusion.name,
            settled,
            labels,
            train_queries=train_queries,
            relevance_level=check_float("relevance_level", relevance_level),
            n_runs=len(items),
        )
    elif labels is not None or train_queries is not None:
        msg = f"{fusion.name} is not trained: leave labels and train_queries out."
        raise ParameterError(msg)
    literals = {key: pl.lit(value, dtype=pl.Float64) for key, value in settled.items()}
    return fused_rows(rows, fusion, literals, name=name)


def long_rows(
    sources: Sequence[IntoRun], weights: Sequence[float], depth: int | None
) -> pl.LazyFrame:
    """Every run's rows: ``run, weight, query_id, doc_id, score, pos``."""
    return pl.concat(
        [
            _ranked(source, index, weight, depth)
            for index, (source, weight) in enumerate(zip(sources, weights, strict=True))
        ],
        how="vertical",
    )


def prepared_rows(
    rows: pl.LazyFrame, fusion: FusionMethod, norm: Norm, by: Sequence[str] = ()
) -> pl.LazyFrame:
    """Add what ``fusion`` reads: the normalised ``value``, or Borda's points.

    ``by`` names columns that split the rows further (optimize_fusion's configuration).
    """
    if fusion.name == "borda":
        return _with_borda_points(rows, by)
    if norm == "borda" and fusion.uses_scores:
        return _borda_normalised(rows, by)
    if fusion.uses_scores:
        return rows.with_columns(normalised(norm))
    return rows


def fused_rows(
    rows: pl.LazyFrame,
    fusion: FusionMethod,
    params: Mapping[str, pl.Expr],
    *,
    name: str | pl.Expr = "fused",
    by: Sequence[str] = (),
    ranked: bool = True,
) -> pl.LazyFrame:
    """Fuse prepared rows per (*by, query, doc); rank by score, ties by doc id descending.

    ``ranked=False`` leaves the rows unsorted and without ``rank`` (the evaluation orders
    them by score with the same tie rule).
    """
    lists = [*by, "query_id"]
    fused = fused_scores(rows, fusion, params, [*lists, "doc_id"])
    system = pl.lit(name, dtype=pl.String) if isinstance(name, str) else name
    if not ranked:
        return fused.select(system.alias("system"), "query_id", "doc_id", "score")
    return (
        fused.sort([*lists, "score", "doc_id"], descending=[False] * len(lists) + [True, True])
        .with_columns(
            system.alias("system"),
            pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(lists).alias("rank"),
        )
        .select("system", "query_id", "doc_id", "score", "rank")
    )


def resolve_method(method: str) -> FusionMethod:
    """Return the fusion method called ``method`` (or one of ranx's names for it)."""
    key = ALIASES.get(str(method).lower(), str(method).lower())
    if key not in METHODS:
        names = [*METHODS, *ALIASES]
        msg = f"Unknown fusion method {method!r}; known: {', '.join(METHODS)}."
        raise ParameterError(msg + did_you_mean(str(method), names))
    return METHODS[key]


def check_parameters(fusion: FusionMethod, given: Mapping[str, Any]) -> dict[str, float]:
    """Return the method's parameters, defaults filled in; refuse unknown or bad ones."""
    unknown = sorted(set(given) - set(fusion.params))
    if unknown:
        known = ", ".join(fusion.params) or "none"
        msg = f"{fusion.name} takes no parameter {', '.join(map(repr, unknown))} (its: {known})."
        raise ParameterError(msg)
    settled = {}
    for key, default in fusion.params.items():
        value = given.get(key, default)
        if value is None:
            msg = f"{fusion.name} needs the parameter {key!r}."
            raise ParameterError(msg)
        settled[key] = check_float(key, value)
    if "phi" in settled and not 0 <= settled["phi"] < 1:
        msg = f"The 'phi' parameter must be a float in [0, 1). Got {settled['phi']!r} instead."
        raise ParameterError(msg)
    if "k" in settled and settled["k"] < 0:
        msg = f"The 'k' parameter must be a float >= 0. Got {settled['k']!r} instead."
        raise ParameterError(msg)
    return settled


def check_weights(
    weights: Sequence[float] | None, n_runs: int, fusion: FusionMethod
) -> list[float]:
    """Return one weight per run (1 each by default); refuse a wrong count."""
    if weights is None:
        if fusion.name in ("wsum", "wmnz", "mixed"):
            msg = f"{fusion.name} needs weights=, one per run ({n_runs})."
            raise ParameterError(msg)
        return [1.0] * n_runs
    values = list(weights)
    if len(values) != n_runs:
        msg = f"The 'weights' parameter must give one weight per run ({n_runs}). Got {values!r}."
        raise ParameterError(msg)
    return [check_float("weights", value) for value in values]


def _ranked(source: IntoRun, index: int, weight: float, depth: int | None) -> pl.LazyFrame:
    """One run's rows with their positions under the evaluation's ordering rule."""
    run = scan_run(source)
    if "system" not in run.collect_schema().names():
        run = run.with_columns(system=pl.lit("run", dtype=pl.String))
    numbered = normalize_run(run, source=f"run {index + 1}", duplicates="keep_best")
    names = numbered.collect_schema().names()
    if "score" not in names:
        msg = f"run {index + 1} has no scores; fusion needs scores (or uses positions)."
        raise SchemaError(msg)
    if depth is not None:
        numbered = numbered.filter(pl.col("pos") <= depth)
    return numbered.select(
        pl.lit(index, dtype=pl.Int32).alias("run"),
        pl.lit(weight, dtype=pl.Float64).alias("weight"),
        pl.col("query_id"),
        pl.col("doc_id"),
        pl.col("score").cast(pl.Float64),
        pl.col("pos"),
    )


def _with_borda_points(rows: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    per_query = [*by, "query_id"]
    n_candidates = pl.col("doc_id").n_unique().over(per_query).cast(pl.Float64)
    n_listed = pl.len().over(*per_query, "run").cast(pl.Float64)
    missing = (pl.col("_n_candidates") - n_listed + 1.0) / 2.0
    with_missing = rows.with_columns(_n_candidates=n_candidates).with_columns(
        _missing_points=missing
    )
    lists = with_missing.group_by(*per_query, "run").agg(
        (pl.col("weight").first() * pl.col("_missing_points").first()).alias("_m")
    )
    totals = lists.group_by(per_query).agg(pl.col("_m").sum().alias("_all_missing_points"))
    return with_missing.join(totals, on=per_query, how="left")


def _borda_normalised(rows: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """Borda normalisation as ranx does it: every candidate in every run, 1 - (pos - 1) / N."""
    per_query = [*by, "query_id"]
    candidates = rows.select(*per_query, "doc_id").unique()
    n_candidates = candidates.group_by(per_query).agg(_n=pl.len().cast(pl.Float64))
    lengths = rows.group_by(*per_query, "run", "weight").agg(_len=pl.len().cast(pl.Float64))
    grid = lengths.join(candidates, on=per_query).join(n_candidates, on=per_query)
    full = grid.join(
        rows.select(*per_query, "run", "doc_id", "pos"),
        on=[*per_query, "run", "doc_id"],
        how="left",
    )
    value = (
        pl.when(pl.col("pos").is_not_null())
        .then(1.0 - (pl.col("pos").cast(pl.Float64) - 1.0) / pl.col("_n"))
        .otherwise(0.5 - (pl.col("_len") - 1.0) / (2.0 * pl.col("_n")))
    )
    # Every run is in the grid: a document's count is the number of runs.
    return full.select(*by, "run", "weight", "query_id", "doc_id", "pos", value.alias("value"))
