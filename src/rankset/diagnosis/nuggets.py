"""Diagnosis with nuggets: which facts a system's top K misses, and why.

The passage-level diagnosis (:func:`rankset.diagnose`) asks whether good passages were
lost by the retriever or by the reranker. :func:`nugget_misses` asks the same of facts:
for each query a system answered and each nugget its top K does not fully support,

- ``"not retrieved"``: no passage of the whole ranking supports it (a retrieval miss at
  the fact level: no reordering can fix it);
- ``"below k"``: a passage further down the ranking supports it (a ranking miss: the fact
  was in the candidates, the top K left it out), with the best position that does.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from rankset._validation import check_int
from rankset.evaluation import numbered_runs
from rankset.io import read_nuggets

__all__ = ["MISS_KINDS", "nugget_misses"]

#: Why a nugget is missing from a top K.
MISS_KINDS = ("not retrieved", "below k")


def nugget_misses(
    runs: Any,
    nuggets: Any,
    k: int = 10,
    *,
    vital_only: bool = True,
    names: list[str] | None = None,
) -> pl.DataFrame:
    """List, per system and query, the nuggets the top K does not fully support.

    Parameters
    ----------
    runs
        The runs, as :func:`rankset.evaluate` takes them.
    nuggets
        Nugget labels (:func:`rankset.io.read_nuggets` reads them).
    k
        The cutoff.
    vital_only
        Only vital nuggets (default), else every nugget.
    names
        System names, as for :func:`rankset.evaluate`.

    Returns
    -------
    polars.DataFrame
        ``system, query_id, nugget_id, importance, miss, best_pos, n_supporting``: ``miss``
        is ``"not retrieved"`` or ``"below k"``; ``best_pos`` the first position of a
        fully supporting passage in the system's ranking (null when none);
        ``n_supporting`` the passages of the nugget labels that fully support it (0: no
        passage anywhere does). Only queries the system ranked and the nugget labels
        cover; systems in the order given, then query and nugget ids.

    Examples
    --------
    >>> nuggets = pl.DataFrame(
    ...     {"query_id": "q", "nugget_id": ["n1", "n2", "n3"], "doc_id": ["a", "c", "z"],
    ...      "support": "support", "importance": "vital"}
    ... )
    >>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    >>> nugget_misses(run, nuggets, k=2).select("nugget_id", "miss", "best_pos").rows()
    [('n2', 'below k', 3), ('n3', 'not retrieved', None)]
    """
    k = check_int("k", k, 1)
    labels = read_nuggets(nuggets)
    if vital_only:
        labels = labels.filter(pl.col("vital"))
    ranked = numbered_runs(runs, names=names).select("system", "query_id", "doc_id", "pos")
    systems = ranked["system"].unique(maintain_order=True).to_list()
    full = labels.filter(pl.col("support") >= 1.0)
    best = (
        ranked.join(full.select("query_id", "doc_id", "nugget_id"), on=["query_id", "doc_id"])
        .group_by("system", "query_id", "nugget_id")
        .agg(best_pos=pl.col("pos").min())
    )
    per_nugget = labels.group_by("query_id", "nugget_id").agg(
        pl.col("importance").first(),
        n_supporting=(pl.col("support") >= 1.0).sum().cast(pl.UInt32),
    )
    answered = ranked.select("system", "query_id").unique()
    order = {system: i for i, system in enumerate(systems)}
    return (
        answered.join(per_nugget, on="query_id")
        .join(best, on=["system", "query_id", "nugget_id"], how="left")
        .filter(pl.col("best_pos").is_null() | (pl.col("best_pos") > k))
        .with_columns(
            miss=pl.when(pl.col("best_pos").is_null())
            .then(pl.lit(MISS_KINDS[0]))
            .otherwise(pl.lit(MISS_KINDS[1])),
            _order=pl.col("system").replace_strict(order, return_dtype=pl.Int64),
        )
        .sort("_order", "query_id", "nugget_id")
        .select(
            "system",
            "query_id",
            "nugget_id",
            "importance",
            "miss",
            pl.col("best_pos").cast(pl.Int64),
            "n_supporting",
        )
    )
