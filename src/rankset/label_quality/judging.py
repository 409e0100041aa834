"""What to judge next: the unjudged documents in the systems' top k, most influential first.

A pooled collection judges what some systems retrieved; a new system (or a deeper
cutoff) meets documents nobody judged, which every metric scores as not relevant.
:func:`judging_queue` finds them and says how much judging each could move the system
means:

* ``holes``: per system, the share of its top-k documents that are judged (``judged@k``,
  averaged over the labelled queries) and how many are not;
* ``queue``: each unjudged (query, document) in any system's top k, with the systems that
  retrieved it, its best position, and its ``weight``: the sum over those systems of
  1 / log2(position + 1) / (the system's labelled queries). That is how much the
  system's mean DCG@k would rise if the document were judged relevant with gain 1, summed
  over the systems; the queue is sorted by it, heaviest first.

Queries without any label are not evaluated, so their documents are left out; their
number is reported (``n_unlabelled_queries``) rather than silently dropped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rankset import io as rio
from rankset._format import REPR_ROWS, ReprTable, counted, html_repr, text_repr
from rankset._validation import check_int
from rankset.errors import SchemaError
from rankset.evaluation import numbered_runs
from rankset.schema import normalize_labels

__all__ = ["JudgingQueue", "judging_queue"]

# Documents of the queue a repr shows.
_QUEUE_ROWS = 5


@dataclass(frozen=True)
class JudgingQueue:
    """The outcome of :func:`judging_queue`.

    Attributes
    ----------
    holes : polars.DataFrame
        Per system: ``system, k, n_queries, judged_at_k, n_unjudged,
        n_unlabelled_queries``.
    queue : polars.DataFrame
        ``query_id, doc_id, n_systems, best_pos, weight, systems``, heaviest first.
    k : int
        The cutoff.
    """

    holes: pl.DataFrame
    queue: pl.DataFrame
    k: int

    def _repr_blocks(self) -> tuple[str, ReprTable, ReprTable]:
        """Return the title, the holes of each system, and the heaviest of the queue."""
        title = (
            f"JudgingQueue: {counted(self.queue.height, 'unjudged document')} in the top "
            f"{self.k} of {counted(self.holes.height, 'system')}"
        )
        key = ["system", "judged_at_k", "n_unjudged", "n_queries", "n_unlabelled_queries"]
        first = [c for c in key if c in self.holes.columns]
        holes = self.holes.select(*first, *(c for c in self.holes.columns if c not in first))
        heaviest = ["query_id", "doc_id", "weight", "n_systems", "best_pos", "systems"]
        first = [c for c in heaviest if c in self.queue.columns]
        queue = self.queue.select(*first, *(c for c in self.queue.columns if c not in first))
        return (
            title,
            ReprTable(holes.columns, holes.head(REPR_ROWS).rows(), n_rows=holes.height),
            ReprTable(
                queue.columns,
                queue.head(_QUEUE_ROWS).rows(),
                keys=2,
                n_rows=queue.height,
                row_noun="documents",
                caption="heaviest first:" if queue.height else "nothing to judge",
            ),
        )

    def __repr__(self) -> str:
        return text_repr(*self._repr_blocks())

    def _repr_html_(self) -> str:
        return html_repr(*self._repr_blocks())

    def to_parquet(self, path: str | os.PathLike[str]) -> Path:
        """Write the queue to Parquet, atomically (the cutoff in the file's metadata)."""
        return rio.write_parquet(self.queue, path, config={"k": self.k})


def judging_queue(runs: Any, labels: Any, k: int = 10, **run_options: Any) -> JudgingQueue:
    """List the unjudged documents of every system's top ``k``, most influential first.

    Parameters
    ----------
    runs
        The runs, as :func:`rankset.evaluate` takes them.
    labels
        The labels (qrels). A document with any label, a negative grade included, is
        judged.
    k
        The depth looked at.
    **run_options
        ``names``, ``order`` and ``score_precision``, as for :func:`rankset.evaluate`.

    Returns
    -------
    JudgingQueue

    Examples
    --------
    ``y`` is unjudged, at position 1 for ``a`` and 2 for ``b`` (one query each):

    >>> runs = {"a": {"q": {"y": 2.0, "x": 1.0}}, "b": {"q": {"x": 2.0, "y": 1.0}}}
    >>> queue = judging_queue(runs, {"q": {"x": 1}}, k=2)
    >>> queue.queue.select("doc_id", "n_systems", "best_pos").row(0)
    ('y', 2, 1)
    >>> round(queue.queue["weight"].item(), 4)  # 1/log2(2) + 1/log2(3)
    1.6309
    >>> queue.holes.select("system", "judged_at_k").rows()
    [('a', 0.5), ('b', 0.5)]
    """
    k = check_int("k", k, 1)
    numbered = numbered_runs(runs, **run_options)
    parsed = rio.read(labels, kind="labels")
    if parsed.labels is None:
        msg = f"{parsed.source}: no labels found; expected query_id, doc_id, grade."
        raise SchemaError(msg)
    judged = (
        normalize_labels(parsed.labels, source=parsed.source)
        .select("query_id", "doc_id")
        .unique()
        .collect()
    )
    labelled_queries = judged.select("query_id").unique()
    systems = numbered["system"].unique(maintain_order=True).to_list()
    top = (
        numbered.filter(pl.col("pos") <= k)
        .select("system", "query_id", "doc_id", "pos")
        .join(judged.with_columns(_judged=pl.lit(True)), on=["query_id", "doc_id"], how="left")
        .with_columns(pl.col("_judged").fill_null(False))
    )
    unlabelled = (
        top.join(labelled_queries, on="query_id", how="anti")
        .group_by("system")
        .agg(n_unlabelled_queries=pl.col("query_id").n_unique())
    )
    top = top.join(labelled_queries, on="query_id", how="semi")
    per_query = top.group_by("system", "query_id").agg(
        judged_share=pl.col("_judged").sum() / k, n_unjudged=(~pl.col("_judged")).sum()
    )
    order = {system: position for position, system in enumerate(systems)}
    holes = (
        per_query.group_by("system")
        .agg(
            n_queries=pl.len(),
            judged_at_k=pl.col("judged_share").mean(),
            n_unjudged=pl.col("n_unjudged").sum().cast(pl.Int64),
        )
        .join(unlabelled, on="system", how="left")
        .with_columns(
            pl.lit(k, dtype=pl.Int64).alias("k"),
            pl.col("n_unlabelled_queries").fill_null(0).cast(pl.Int64),
            pl.col("n_queries").cast(pl.Int64),
        )
        .sort(pl.col("system").replace_strict(order, return_dtype=pl.Int64))
        .select("system", "k", "n_queries", "judged_at_k", "n_unjudged", "n_unlabelled_queries")
    )
    answered = holes.select("system", "n_queries")
    queue = (
        top.filter(~pl.col("_judged"))
        .join(answered, on="system")
        .with_columns(
            _weight=1.0 / (pl.col("pos") + 1).cast(pl.Float64).log(2) / pl.col("n_queries")
        )
        .group_by("query_id", "doc_id")
        .agg(
            n_systems=pl.len(),
            best_pos=pl.col("pos").min().cast(pl.Int64),
            weight=pl.col("_weight").sum(),
            systems=pl.col("system").sort_by(
                pl.col("system").replace_strict(order, return_dtype=pl.Int64)
            ),
        )
        .sort(["weight", "query_id", "doc_id"], descending=[True, False, False])
    )
    return JudgingQueue(holes=holes, queue=queue, k=k)
