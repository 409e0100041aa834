"""What fusion fixed: each query's quadrant in an input run against the fused run."""

from __future__ import annotations

import polars as pl

from rankset._validation import did_you_mean
from rankset.diagnosis.quadrants import QUADRANTS, Diagnosis
from rankset.errors import ParameterError

__all__ = ["fusion_changes"]


def fusion_changes(diagnosis: Diagnosis, fused: str = "fused") -> pl.DataFrame:
    """Count, per input run, the queries that moved between quadrants in the fused run.

    Parameters
    ----------
    diagnosis
        :func:`rankset.diagnose` of the input runs and the fused run together.
    fused
        The fused run's system name.

    Returns
    -------
    polars.DataFrame
        ``system, before, after, n_queries, query_ids``: one row per (input system,
        quadrant there, quadrant in the fused run) that occurs, moves first (then by the
        quadrants' order); ``null`` is unclassified. ``before == after`` rows count the
        queries fusion left where they were.

    Examples
    --------
    >>> import rankset
    >>> bm25 = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 2.0, "d": 1.0}}
    >>> dense = {"q1": {"b": 2.0, "a": 1.0}, "q2": {"e": 2.0, "c": 1.0}}
    >>> labels = {"q1": {"b": 3, "a": 0}, "q2": {"e": 3, "c": 1, "d": 0}}
    >>> fused = rankset.fuse([bm25, dense], "rrf")
    >>> runs = {"bm25": bm25, "dense": dense, "fused": fused}
    >>> diagnosis = rankset.diagnose(runs, labels, k=1, scale="trec_dl")
    >>> changes = fusion_changes(diagnosis).filter(pl.col("system") == "bm25")
    >>> changes.select("before", "after", "n_queries").rows()
    [('retrieval miss', 'reranking miss', 1), ('reranking miss', 'healthy', 1)]

    bm25 ranks the grade-0 ``a`` first on q1 but retrieved ``b`` (a reranking miss); the
    fused run puts ``b`` first (healthy). On q2 bm25 never retrieved ``e`` (a retrieval
    miss); the fused pool has it but ranks ``c`` first (a reranking miss).
    """
    frame = diagnosis.per_query.select("system", "query_id", "quadrant")
    systems = frame["system"].unique(maintain_order=True).to_list()
    if fused not in systems:
        msg = f"The diagnosis has no system {fused!r} (systems: {', '.join(systems)})."
        raise ParameterError(msg + did_you_mean(fused, systems))
    after = frame.filter(pl.col("system") == fused).select(
        "query_id", pl.col("quadrant").alias("after")
    )
    before = frame.filter(pl.col("system") != fused).rename({"quadrant": "before"})
    order = {quadrant: position for position, quadrant in enumerate(QUADRANTS)}
    rank = len(QUADRANTS)  # unclassified last

    def position(column: str) -> pl.Expr:
        return pl.col(column).replace_strict(order, default=rank, return_dtype=pl.Int64)

    moved = ~pl.col("before").eq_missing(pl.col("after"))
    return (
        before.join(after, on="query_id", how="inner")
        .group_by("system", "before", "after")
        .agg(
            n_queries=pl.len().cast(pl.Int64),
            query_ids=pl.col("query_id").sort(),
        )
        .sort(
            [pl.col("system"), moved, position("before"), position("after")],
            descending=[False, True, False, False],
        )
    )
