"""The judged pool as arrays, and the DCG family scored on them, for the budget tools.

Pair ``i`` of a :class:`Pool` is a row of its ``pairs`` frame; ``discounts[s, i]`` is
``1/log2(pos + 1)`` when pair ``i`` sits at position ``pos`` of system ``s``'s top ``k``.
A vector of gains (one per pair) then gives every system's DCG@k per query in one product,
and nDCG@k over the ideal DCG of the same gains: trec_eval's ``ndcg_cut``, as
:func:`rankset.evaluate` computes it on labels with those grades.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from rankset import io as rio
from rankset.errors import ParameterError, SchemaError
from rankset.schema import normalize_labels

PAIR = ["query_id", "doc_id"]


def judge_frame(labels: Any, what: str) -> pl.DataFrame:
    """Return labels as an eager frame with ``query_id, doc_id, grade`` and extra columns."""
    if isinstance(labels, pl.LazyFrame):
        labels = labels.collect()
    if isinstance(labels, pl.DataFrame) and {"query_id", "doc_id", "grade"} <= set(labels.columns):
        return labels.with_columns(
            pl.col("query_id").cast(pl.String),
            pl.col("doc_id").cast(pl.String),
            pl.col("grade").cast(pl.Float64),
        )
    parsed = rio.read(labels, kind="labels")
    if parsed.labels is None:
        msg = f"{parsed.source}: no {what} found; expected query_id, doc_id, grade."
        raise SchemaError(msg)
    return normalize_labels(parsed.labels, source=parsed.source).collect()


@dataclass(frozen=True)
class Pool:
    """The pool as arrays: pair ``i`` is ``pairs[i]``; ``discounts`` is systems x pairs."""

    pairs: pl.DataFrame  # query_id, doc_id, judge (the judge's grade), human (maybe null)
    query: np.ndarray  # query index of each pair
    n_queries: int
    judge: np.ndarray
    systems: list[str]
    discounts: np.ndarray  # discounts[s, i]: 1/log2(pos + 1) if pair i is in s's top k
    answered: np.ndarray  # answered[s, q]: system s retrieved for query q
    cumulative: bool  # ndcg (True) or dcg (False)
    k: int


def metric_cutoff(metric: str) -> tuple[bool, int]:
    """Return whether ``metric`` is nDCG (else DCG) and its cutoff, read by the registry.

    Any spelling :func:`rankset.measures.parse_metric` knows works (``ndcg_cut_10``,
    ``NDCG@10``); the budget tools score trec_eval's linear-gain nDCG@k and DCG@k.
    """
    from rankset.measures import parse_metric

    parsed = parse_metric(metric)
    if parsed.measure not in {"ndcg", "dcg"} or not isinstance(parsed.k, int):
        msg = f"metric={metric!r}: the budget tools score ndcg@k and dcg@k; expected e.g. 'ndcg@10'"
        raise ParameterError(msg)
    return parsed.measure == "ndcg", parsed.k


def build_pool(
    runs: Any | None, judge: pl.DataFrame, human: pl.DataFrame | None, metric: str
) -> Pool:
    """Lay out the judge's pairs (sorted by query and document) and the runs' top ``k``.

    Without runs the pool has no systems: enough to draw plans that ignore the runs.
    """
    from rankset.evaluation import numbered_runs

    normalised, k = metric_cutoff(metric)
    pairs = judge.group_by(PAIR, maintain_order=True).agg(judge=pl.col("grade").mean())
    if human is not None:
        truth = human.group_by(PAIR).agg(human=pl.col("grade").max())
        pairs = pairs.join(truth, on=PAIR, how="left", maintain_order="left")
    pairs = pairs.sort(PAIR).with_row_index("pair")
    queries = pairs["query_id"].unique(maintain_order=True)
    query_index = pl.DataFrame({"query_id": queries, "q": np.arange(len(queries))})
    pairs = pairs.join(query_index, on="query_id", maintain_order="left")
    empty = {"system": pl.String, "query_id": pl.String, "doc_id": pl.String, "pos": pl.Int64}
    numbered = numbered_runs(runs) if runs is not None else pl.DataFrame(schema=empty)
    systems = numbered["system"].unique(maintain_order=True).to_list()
    system_index = pl.DataFrame(
        {"system": systems, "s": np.arange(len(systems))},
        schema_overrides={"system": pl.String, "s": pl.Int64},
    )
    top = (
        numbered.filter(pl.col("pos") <= k)
        .join(system_index, on="system")
        .join(pairs.select(*PAIR, "pair"), on=PAIR, how="inner")
    )
    discounts = np.zeros((len(systems), pairs.height))
    rows = top["s"].to_numpy()
    columns = top["pair"].to_numpy()
    discounts[rows, columns] = 1.0 / np.log2(top["pos"].to_numpy() + 1.0)
    answered_rows = (
        numbered.select("system", "query_id")
        .unique()
        .join(system_index, on="system")
        .join(query_index, on="query_id")
    )
    answered = np.zeros((len(systems), len(queries)), dtype=bool)
    answered[answered_rows["s"].to_numpy(), answered_rows["q"].to_numpy()] = True
    return Pool(
        pairs=pairs,
        query=pairs["q"].to_numpy(),
        n_queries=len(queries),
        judge=pairs["judge"].to_numpy().astype(np.float64),
        systems=systems,
        discounts=discounts,
        answered=answered,
        cumulative=normalised,
        k=k,
    )


def ideal_dcg(pool: Pool, gains: np.ndarray) -> np.ndarray:
    """Return the ideal DCG@k of each query under ``gains`` (negative gains count as 0)."""
    gains = np.maximum(gains, 0.0)
    order = np.lexsort((-gains, pool.query))
    starts = np.searchsorted(pool.query[order], np.arange(pool.n_queries))
    position = np.arange(len(order)) - starts[pool.query[order]]
    weight = np.where(position < pool.k, 1.0 / np.log2(np.minimum(position, pool.k) + 2.0), 0.0)
    return np.bincount(pool.query[order], weights=gains[order] * weight, minlength=pool.n_queries)


def per_query(pool: Pool, values: np.ndarray) -> np.ndarray:
    """Sum ``values[s, i]`` over each query's pairs: systems x queries.

    The pairs are sorted by query, so each query's pairs are one run of columns.
    """
    if values.shape[0] == 0 or values.shape[1] == 0:
        return np.zeros((values.shape[0], pool.n_queries))
    starts = np.searchsorted(pool.query, np.arange(pool.n_queries))
    sums: np.ndarray = np.add.reduceat(values, starts, axis=1)
    return sums


def system_means(pool: Pool, gains: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """Return each system's mean over the queries it answered; ``gains`` may be negative."""
    dcg = per_query(pool, pool.discounts * gains)
    if pool.cumulative:
        dcg = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
    counted = np.maximum(pool.answered.sum(1), 1)
    means: np.ndarray = np.where(pool.answered, dcg, 0.0).sum(1) / counted
    return means
