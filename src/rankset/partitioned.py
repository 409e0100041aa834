"""Bucket-partitioned Parquet datasets for the larger-than-memory mode.

:func:`rankset.evaluate` with ``buckets=N`` reads the runs N times, each time keeping
the queries of one hash bucket. :func:`partition` does that split once and writes it to
disk, so later evaluations read only each bucket's files::

    DIR/rankset-partition.json        what was written (buckets, systems, sources)
    DIR/run/bucket=B/part-0.parquet   system, query_id, doc_id, score and/or rank [, text]
    DIR/labels/bucket=B/part-0.parquet  query_id, doc_id, grade

Any reader of rankset takes ``DIR`` as a run source that carries its labels (like JSONL
samples): ``rankset.evaluate(DIR)`` or ``rankset evaluate DIR``; the bucket count comes
from the dataset. The files are Hive-partitioned Parquet, readable by any tool
(``pl.scan_parquet(DIR / "run")``).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankset._validation import check_int
from rankset.errors import InputFormatError, ParameterError

__all__ = ["MANIFEST", "partition", "read_partitioned"]

#: The file that marks a directory as a rankset partitioned dataset.
MANIFEST = "rankset-partition.json"
_FORMAT = "rankset-partition"
_VERSION = 1
_RUN_COLUMNS = ("system", "query_id", "doc_id", "score", "rank", "text")


def partition(
    runs: Any,
    labels: Any = None,
    out: str | os.PathLike[str] = "partitioned",
    *,
    buckets: int = 16,
    names: Sequence[str] | None = None,
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
    from rankset.evaluation import _assign_system_names, _read_labels, _read_runs, bucket_of
    from rankset.schema import normalize_labels

    check_int("buckets", buckets, 1)
    target = Path(out)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        msg = f"{target}: already exists and is not an empty directory; choose a new one."
        raise ParameterError(msg)
    inputs = _read_runs(runs, names)
    named = _assign_system_names(inputs, order="auto", duplicates="error", engine="streaming")
    label_input = _read_labels(labels, inputs)
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

    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for bucket in range(buckets):
            for name, frame in (("run", run_frame), ("labels", label_frame)):
                folder = staging / name / f"bucket={bucket}"
                folder.mkdir(parents=True)
                frame.filter(bucket_of(pl.col("query_id"), buckets) == bucket).sink_parquet(
                    folder / "part-0.parquet"
                )
        manifest = {
            "format": _FORMAT,
            "version": _VERSION,
            "buckets": buckets,
            "runs": named.sources,
            "profile": _dataset_profile(named.inputs),
            "labels": label_input.source,
            "polars_version": pl.__version__,
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if target.exists():
            target.rmdir()
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


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


def read_partitioned(
    folder: Path, name: str
) -> tuple[pl.LazyFrame, pl.LazyFrame, int, dict[str, Any] | None]:
    """Scan a dataset written by :func:`partition`: ``(run, labels, buckets, profile)``.

    Both keep their ``bucket`` column (from the folder names), which the evaluation
    filters on, so each bucket's pass opens only that bucket's files.
    """
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        msg = f"{name}: cannot read the dataset description {MANIFEST} ({exc})"
        raise InputFormatError(msg) from None
    if manifest.get("format") != _FORMAT or manifest.get("version") != _VERSION:
        msg = (
            f"{name}: {MANIFEST} describes format {manifest.get('format')!r} version "
            f"{manifest.get('version')!r}; expected {_FORMAT!r} version {_VERSION}."
        )
        raise InputFormatError(msg)
    buckets = manifest.get("buckets")
    if not isinstance(buckets, int) or buckets < 1:
        msg = f"{name}: {MANIFEST} gives no valid bucket count (got {buckets!r})."
        raise InputFormatError(msg)
    hive = {"hive_partitioning": True, "hive_schema": {"bucket": pl.Int64}}
    run = pl.scan_parquet(folder / "run", **hive)  # type: ignore[arg-type]
    labels = pl.scan_parquet(folder / "labels", **hive)  # type: ignore[arg-type]
    profile = manifest.get("profile")
    if not (
        isinstance(profile, dict)
        and isinstance(profile.get("tags"), list)
        and all(isinstance(profile.get(key), int) for key in ("n_scores", "n_rows"))
    ):
        profile = None  # written before profiles were stored: measured when evaluated
    return run, labels, buckets, profile
