"""The reader of bucket-partitioned Parquet datasets written by :func:`rankset.partition`.

A dataset is a folder with a manifest and Hive-partitioned Parquet files::

    DIR/rankset-partition.json          what was written (buckets, systems, sources)
    DIR/run/bucket=B/part-0.parquet     system, query_id, doc_id, score and/or rank [, text]
    DIR/labels/bucket=B/part-0.parquet  query_id, doc_id, grade

The writer lives with the evaluation layer, which it needs; the manifest's name,
format and version are defined here so that writer and reader share them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import polars as pl

from rankset.errors import InputFormatError

__all__ = ["MANIFEST", "MANIFEST_FORMAT", "MANIFEST_VERSION", "read_partitioned"]

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
