"""``write_fused``: fuse large runs bucket by bucket of queries into one file."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import polars as pl

from rankset._typing import IntoLabels, IntoRun
from rankset._validation import MAX_BUCKETS, check_int
from rankset.evaluation import bucket_of
from rankset.fusion._fuse import fuse
from rankset.fusion._methods import Norm
from rankset.io import scan_run, write_run
from rankset.io._shared import atomic_path

__all__ = ["write_fused"]


def write_fused(
    runs: Sequence[IntoRun] | Mapping[str, IntoRun],
    out: str | os.PathLike[str],
    method: str = "rrf",
    *,
    buckets: int = 1,
    norm: Norm | None = None,
    weights: Sequence[float] | None = None,
    name: str = "fused",
    depth: int | None = None,
    labels: IntoLabels | None = None,
    train_queries: Iterable[str] | None = None,
    **params: float,
) -> Path:
    """Fuse runs (as :func:`rankset.fuse`) and write the fused run, atomically.

    With ``buckets=N`` the queries are fused one hash bucket at a time
    (:func:`rankset.evaluation.bucket_of`), so the fusion holds about 1/N of the rows;
    Parquet inputs are then read one bucket at a time too, while text inputs are parsed
    once. The values do not depend on ``buckets``: every query is fused whole. The
    format follows the extension as for :func:`rankset.write_run` (TREC text by default;
    bucketed output is written as TREC text).

    Examples
    --------
    >>> import pathlib, tempfile, rankset
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "fused.trec"
    >>> runs = [{"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 2.0, "c": 1.0}}]
    >>> rankset.fusion.write_fused(runs, out, "rrf", buckets=2).read_text().split()[:3]
    ['q1', 'Q0', 'b']
    """
    check_int("buckets", buckets, 1, MAX_BUCKETS)
    items = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    options = {
        "norm": norm,
        "weights": weights,
        "name": name,
        "depth": depth,
        "labels": labels,
        "train_queries": None if train_queries is None else list(train_queries),
        **params,
    }
    target = Path(out)
    if buckets == 1:
        write_run(fuse(items, method, **options), target)  # type: ignore[arg-type]
        return target
    frames = [scan_run(source) for source in items]  # parsed once; Parquet stays lazy
    folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        parts = []
        for bucket in range(buckets):
            in_bucket = [
                frame.filter(bucket_of(pl.col("query_id"), buckets) == bucket) for frame in frames
            ]
            part = folder / f"part-{bucket}.trec"
            fused = fuse(in_bucket, method, **options).collect(engine="streaming")  # type: ignore[arg-type]
            write_run(fused, part, format="trec")
            parts.append(part)
        with atomic_path(target) as temporary, temporary.open("wb") as handle:
            for part in parts:
                with part.open("rb") as chunk:
                    shutil.copyfileobj(chunk, handle)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return target
