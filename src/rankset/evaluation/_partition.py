"""Writing runs and labels as a bucket-partitioned Parquet dataset, once.

:func:`rankset.evaluate` with ``buckets=N`` reads the runs N times, each time keeping
the queries of one hash bucket. :func:`partition` does that split once and writes it to
disk (``rankset.io._shared.write_partitioned`` owns the layout and the manifest), so later
evaluations read only each bucket's files. Any reader of rankset takes the folder as a
run source that carries its labels (``rankset.evaluate(DIR)``, ``rankset evaluate
DIR``); the bucket count comes from the dataset. The files are Hive-partitioned
Parquet, readable by any tool (``pl.scan_parquet(DIR / "run")``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset._typing import IntoLabels, IntoRun
from rankset._validation import MAX_BUCKETS, check_int
from rankset.errors import ParameterError
from rankset.evaluation._inputs import assign_system_names, read_labels, read_runs
from rankset.evaluation._runs import bucket_of
from rankset.io._shared import write_partitioned
from rankset.schema import normalize_labels

if TYPE_CHECKING:
    from rankset.stats import Progress

__all__ = ["partition"]

_RUN_COLUMNS = ("system", "query_id", "doc_id", "score", "rank", "text")


def partition(
    runs: IntoRun | Mapping[str, IntoRun],
    labels: IntoLabels | None = None,
    out: str | os.PathLike[str] = "partitioned",
    *,
    buckets: int = 16,
    names: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> Path:
    """Write runs and labels as a bucket-partitioned Parquet dataset, atomically.

    Parameters
    ----------
    runs, labels, names
        As for :func:`rankset.evaluate` (any source; system names follow the same rule).
    out
        The dataset directory; it must not exist yet (or be empty).
    buckets
        Number of buckets; a query's rows all go to bucket
        :func:`rankset.evaluation.bucket_of` of its id.
    progress
        Called with ``(buckets written, buckets, "buckets")``, from 0 to ``buckets``
        (each bucket is a pass over the inputs): see :data:`rankset.stats.Progress`.

    Returns
    -------
    pathlib.Path
        ``out``.

    Examples
    --------
    >>> import rankset, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "ds"
    >>> run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
    >>> labels = {"q1": {"b": 1}, "q2": {"c": 1}}
    >>> rankset.partition(run, labels, folder, buckets=2).name
    'ds'
    >>> rankset.evaluate(folder, metrics=["rr"]).summary["mean"].item()
    0.75
    """
    check_int("buckets", buckets, 1, MAX_BUCKETS)
    target = Path(out)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        msg = f"{target}: already exists and is not an empty directory; choose a new one."
        raise ParameterError(msg)
    inputs = read_runs(runs, names)
    named = assign_system_names(inputs, order="auto", duplicates="error", engine="streaming")
    label_input = read_labels(labels, inputs)
    if label_input is None or label_input.labels is None:
        msg = "No labels: pass labels= (CLI --qrels) or use runs that carry their own labels."
        raise ParameterError(msg)
    label_frame = normalize_labels(label_input.labels, source=label_input.source)
    run_frame = pl.concat(
        [
            part.frame.select(c for c in _RUN_COLUMNS if c in part.frame.collect_schema().names())
            for part in named.inputs
        ],
        how="diagonal_relaxed",
    )

    return write_partitioned(
        target,
        run_frame,
        label_frame,
        bucket_of(pl.col("query_id"), buckets),
        buckets=buckets,
        description={
            "runs": named.sources,
            "profile": _dataset_profile(named.inputs),
            "labels": label_input.source,
            "polars_version": pl.__version__,
        },
        progress=progress,
    )


def _dataset_profile(parts: Sequence[Any]) -> dict[str, Any]:
    """Profile of the written run (as :func:`rankset.schema.run_profile` gives it).

    Every row of the dataset has its system name, so the tags are the two first names
    of all inputs; stored so that evaluating the dataset needs no pass to find them.
    """
    tags: set[str] = set()
    for part in parts:
        if part.name is not None:
            tags.add(part.name)
        else:  # a multi-system frame: its names come from its column
            names = part.frame.select(pl.col("system").unique().sort().head(2)).collect()
            tags.update(names["system"].drop_nulls().to_list())
    return {
        "tags": sorted(tags)[:2],
        "n_scores": sum(part.profile["n_scores"] for part in parts),
        "n_rows": sum(part.profile["n_rows"] for part in parts),
    }
