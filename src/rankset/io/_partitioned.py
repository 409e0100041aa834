"""Bucket-partitioned Parquet datasets: their files, their writer and their reader.

A dataset is a folder with a manifest and Hive-partitioned Parquet files::

    DIR/rankset-partition.json          what was written (buckets, systems, sources)
    DIR/run/bucket=B/part-0.parquet     system, query_id, doc_id, score and/or rank [, text]
    DIR/labels/bucket=B/part-0.parquet  query_id, doc_id, grade

:func:`rankset.partition` decides what goes in (system names, labels, each query's
bucket) and hands the frames to :func:`write_partitioned`; the file layout, the manifest
and the atomic rename live here, beside the reader.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Final

import polars as pl

from rankset._typing import Progress
from rankset.errors import InputFormatError, ParameterError

__all__ = [
    "MANIFEST",
    "MANIFEST_FORMAT",
    "MANIFEST_VERSION",
    "read_partitioned",
    "write_partitioned",
]

#: The file that marks a directory as a rankset partitioned dataset.
MANIFEST: Final = "rankset-partition.json"
#: The manifest's ``format`` field.
MANIFEST_FORMAT: Final = "rankset-partition"
#: The manifest's ``version`` field: the layout this reader knows.
MANIFEST_VERSION: Final = 1


def read_partitioned(
    folder: Path, name: str
) -> tuple[pl.LazyFrame, pl.LazyFrame, int, dict[str, Any] | None]:
    """Scan a dataset written by :func:`rankset.partition`: ``(run, labels, buckets, profile)``.

    Both frames keep their ``bucket`` column (from the folder names), which the
    evaluation filters on, so each bucket's pass opens only that bucket's files. The
    profile is None when the manifest holds no valid one; the run is then profiled when
    evaluated.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> manifest = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "buckets": 0}
    >>> _ = (folder / MANIFEST).write_text(json.dumps(manifest))
    >>> read_partitioned(folder, "ds")
    Traceback (most recent call last):
    ...
    rankset.errors.InputFormatError: ds: rankset-partition.json gives no valid bucket count (got 0).
    """
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        msg = f"{name}: cannot read the dataset description {MANIFEST} ({exc})"
        raise InputFormatError(msg) from None
    if manifest.get("format") != MANIFEST_FORMAT or manifest.get("version") != MANIFEST_VERSION:
        msg = (
            f"{name}: {MANIFEST} describes format {manifest.get('format')!r} version "
            f"{manifest.get('version')!r}; expected {MANIFEST_FORMAT!r} version "
            f"{MANIFEST_VERSION}."
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
        profile = None
    return run, labels, buckets, profile


def write_partitioned(
    out: str | os.PathLike[str],
    run: pl.LazyFrame,
    labels: pl.LazyFrame,
    bucket: pl.Expr,
    *,
    buckets: int,
    description: dict[str, Any],
    progress: Progress | None = None,
) -> Path:
    """Write ``run`` and ``labels`` as a bucket-partitioned dataset at ``out``, atomically.

    ``bucket`` gives each row's bucket in ``0..buckets - 1`` (from its query id, so a
    query's rows share one); ``description`` goes into the manifest beside the format,
    the version and the bucket count. The dataset is built in a folder beside ``out``
    and renamed into place, so a failure leaves nothing behind. ``progress`` is called
    with ``(buckets written, buckets, "buckets")`` before the first and after each one.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "ds"
    >>> run = pl.LazyFrame({"system": ["s"], "query_id": ["q1"], "doc_id": ["a"],
    ...                     "score": [1.0]})
    >>> labels = pl.LazyFrame({"query_id": ["q1"], "doc_id": ["a"], "grade": [1.0]})
    >>> write_partitioned(out, run, labels, pl.lit(0), buckets=1, description={}).name
    'ds'
    >>> sorted(p.name for p in out.iterdir())
    ['labels', 'rankset-partition.json', 'run']
    """
    target = Path(out)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        msg = f"{target}: already exists and is not an empty directory; choose a new one."
        raise ParameterError(msg)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for number in range(buckets):
            if progress is not None:
                progress(number, buckets, "buckets")
            for name, frame in (("run", run), ("labels", labels)):
                folder = staging / name / f"bucket={number}"
                folder.mkdir(parents=True)
                frame.filter(bucket == number).sink_parquet(folder / "part-0.parquet")
        if progress is not None:
            progress(buckets, buckets, "buckets")
        manifest = {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "buckets": buckets,
            **description,
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        if target.exists():
            target.rmdir()
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target
