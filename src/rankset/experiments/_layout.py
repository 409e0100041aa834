"""The store on disk: its format file, its tables' schemas, and the atomic entry write.

One logged entry is one folder, ``entries/<entry id>/``, holding one Parquet file per
table (``runs``, ``summary``, ``per_query``, ``query_counts``). A writer fills the folder
under ``.tmp/`` and renames it into ``entries/`` when every file is written and synced:
a rename of a folder within one file system is atomic on POSIX, so a reader sees the
whole entry or none of it, without any lock. Entry ids carry the UTC time to the
microsecond and 32 random bits, so writers never pick the same folder; a writer killed
mid-write leaves a folder under ``.tmp/``, which readers never look at and
:meth:`Store.clean` removes.

The format version is in ``store.json``. Tables only ever gain columns: a reader of
version ``n`` reads every version up to ``n``, reading a column an older writer did not
write as null; a store of a newer version than the reader knows is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import polars as pl

from rankset._version import __version__
from rankset.errors import InputFormatError

__all__ = [
    "ENTRIES",
    "FORMAT_FILE",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "SCHEMAS",
    "TABLES",
    "TMP",
    "check_format",
    "entry_files",
    "entry_labels",
    "entry_named",
    "new_entry_id",
    "remove_stale",
    "short_id",
    "write_entry",
    "write_format",
]

#: The format this rankset writes and the newest it reads.
FORMAT_VERSION: Final = 1
FORMAT_NAME: Final = "rankset-store"
FORMAT_FILE: Final = "store.json"
ENTRIES: Final = "entries"
TMP: Final = ".tmp"
#: The tables of the store; each entry writes ``<table>.parquet`` in its folder. ``costs``
#: (each system's mean, p50 and p95 per cost column; empty when the evaluation had no
#: costs) came later: an entry an older rankset wrote has no such file and reads as none.
TABLES: Final = ("runs", "summary", "per_query", "query_counts", "costs")

_TIME = pl.Datetime("us", "UTC")
SCHEMAS: Final[dict[str, dict[str, pl.DataType]]] = {
    "runs": {
        "entry_id": pl.String(),
        "time": _TIME,
        "tag": pl.String(),
        "system": pl.String(),
        "run_hash": pl.String(),
        "labels_hash": pl.String(),
        "run_source": pl.String(),
        "labels_source": pl.String(),
        "values_hash": pl.String(),
        "content_key": pl.String(),
        "metrics": pl.String(),
        "options": pl.String(),
        "rankset_version": pl.String(),
        "git_commit": pl.String(),
        "meta": pl.String(),
    },
    "summary": {
        "entry_id": pl.String(),
        "system": pl.String(),
        "metric": pl.String(),
        "mean": pl.Float64(),
        "ci_low": pl.Float64(),
        "ci_high": pl.Float64(),
        "n_queries": pl.UInt32(),
        "n_na": pl.UInt32(),
    },
    "per_query": {
        "entry_id": pl.String(),
        "system": pl.String(),
        "query_id": pl.String(),
        "metric": pl.String(),
        "measure": pl.String(),
        "k": pl.Int64(),
        "value": pl.Float64(),
    },
    "query_counts": {
        "entry_id": pl.String(),
        "system": pl.String(),
        "n_scored": pl.Int64(),
        "n_run_queries_without_labels": pl.Int64(),
        "n_label_queries_without_run": pl.Int64(),
        "missing_policy": pl.String(),
    },
    "costs": {
        "entry_id": pl.String(),
        "system": pl.String(),
        "cost": pl.String(),
        "mean": pl.Float64(),
        "p50": pl.Float64(),
        "p95": pl.Float64(),
        "n_queries": pl.Int64(),
    },
}


def new_entry_id(now: datetime) -> str:
    """Return a new entry id: the UTC time, sortable as text, and 32 random bits.

    Examples
    --------
    >>> new_entry_id(datetime(2025, 1, 2, 3, 4, 5, 6, tzinfo=UTC))[:23]
    '20250102T030405.000006Z'
    """
    return f"{now.astimezone(UTC):%Y%m%dT%H%M%S.%fZ}-{uuid.uuid4().hex[:8]}"


def short_id(entry_id: str) -> str:
    """Return an entry id's random part, its last 8 hex digits.

    Examples
    --------
    >>> short_id("20250102T030405.000006Z-1a2b3c4d")
    '1a2b3c4d'
    """
    return entry_id.rsplit("-", 1)[-1]


def entry_labels(entries: Sequence[tuple[str, str | None]]) -> dict[str, str]:
    """Name each ``(entry id, tag)`` for a page: its tag, ``tag@short id`` or ``short id``.

    A tag names its entry when no other entry shown has it; a repeated tag takes the
    entry's short id after ``@``; no tag, the short id alone (the whole id where two
    entries share a short id).

    Examples
    --------
    >>> named = entry_labels([("T1Z-aaaa0001", "main"), ("T2Z-bbbb0002", "main"),
    ...                       ("T3Z-cccc0003", "v2"), ("T4Z-dddd0004", None)])
    >>> list(named.values())
    ['main@aaaa0001', 'main@bbbb0002', 'v2', 'dddd0004']
    """
    tags = [tag for _, tag in entries]
    shorts = [short_id(entry) for entry, _ in entries]
    labels = {}
    for entry, tag in entries:
        short = short_id(entry) if shorts.count(short_id(entry)) == 1 else entry
        if tag is None:
            labels[entry] = short
        else:
            labels[entry] = tag if tags.count(tag) == 1 else f"{tag}@{short}"
    return labels


def entry_named(name: str, entry_id: str, tag: str | None) -> bool:
    """Whether ``name`` is the entry's short id or ``tag@short id`` (as pages name it).

    Examples
    --------
    >>> entry_named("main@1a2b3c4d", "T1Z-1a2b3c4d", "main")
    True
    >>> entry_named("1a2b3c4d", "T1Z-1a2b3c4d", None)
    True
    >>> entry_named("v2@1a2b3c4d", "T1Z-1a2b3c4d", "main")
    False
    """
    wanted_tag, at, short = name.rpartition("@")
    if at:
        return short_id(entry_id) == short and tag == wanted_tag
    return short_id(entry_id) == name


def write_format(root: Path) -> None:
    """Write ``store.json`` unless a writer did already (first one wins, atomically)."""
    target = root / FORMAT_FILE
    if target.exists():
        return
    content = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "created": datetime.now(UTC).isoformat(),
        "created_by": f"rankset {__version__}",
        "read_with": "polars.read_parquet('<store>/entries/*/<table>.parquet')",
    }
    tmp = root / f".{FORMAT_FILE}.{uuid.uuid4().hex}"
    tmp.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    try:
        # link fails when the name exists: two creators cannot overwrite each other
        os.link(tmp, target)
    except FileExistsError:
        pass
    finally:
        tmp.unlink()


def check_format(root: Path) -> dict[str, Any]:
    """Read ``store.json`` and refuse a store this rankset cannot read."""
    path = root / FORMAT_FILE
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        msg = (
            f"{root} is not a rankset store: it has no {FORMAT_FILE}. Open it with "
            "Store(path) to create one, or check the path."
        )
        raise InputFormatError(msg) from None
    except json.JSONDecodeError as error:
        msg = f"{path} is not valid JSON ({error}); the store's format cannot be read."
        raise InputFormatError(msg) from None
    version = content.get("format_version") if isinstance(content, dict) else None
    if not isinstance(content, dict) or content.get("format") != FORMAT_NAME:
        msg = f'{path} does not describe a rankset store (no "format": "{FORMAT_NAME}").'
        raise InputFormatError(msg)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        msg = f"{path} has no valid format_version (got {version!r})."
        raise InputFormatError(msg)
    if version > FORMAT_VERSION:
        msg = (
            f"The store {root} has format version {version}, written by "
            f"{content.get('created_by', 'a newer rankset')}; this rankset ({__version__}) "
            f"reads format versions up to {FORMAT_VERSION}. Upgrade rankset to read it."
        )
        raise InputFormatError(msg)
    return content


def write_entry(root: Path, entry_id: str, tables: Mapping[str, pl.DataFrame]) -> Path:
    """Write one entry's tables into a temporary folder, then rename it into place."""
    tmp_root = root / TMP
    tmp_root.mkdir(parents=True, exist_ok=True)
    (root / ENTRIES).mkdir(parents=True, exist_ok=True)
    folder = tmp_root / f"{entry_id}.{os.getpid()}"
    folder.mkdir()
    try:
        for name in TABLES:
            path = folder / f"{name}.parquet"
            tables[name].select(list(SCHEMAS[name])).write_parquet(path)
            _fsync(path)
        _fsync(folder)
        target = root / ENTRIES / entry_id
        # the one step that publishes the entry: atomic, and it fails if the name is taken
        os.rename(folder, target)
        _fsync(root / ENTRIES)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return target


def entry_files(root: Path, table: str) -> list[Path]:
    """Return the table's file of every published entry, in entry id (time) order."""
    folder = root / ENTRIES
    if not folder.is_dir():
        return []
    return sorted(
        path for path in folder.glob(f"*/{table}.parquet") if not path.parent.name.startswith(".")
    )


def remove_stale(root: Path, older_than: float) -> list[Path]:
    """Remove the temporary folders of writes started over ``older_than`` seconds ago."""
    tmp_root = root / TMP
    if not tmp_root.is_dir():
        return []
    removed = []
    cutoff = time.time() - older_than
    for folder in sorted(tmp_root.iterdir()):
        with contextlib.suppress(FileNotFoundError):
            if folder.stat().st_mtime <= cutoff:
                if folder.is_dir():
                    shutil.rmtree(folder, ignore_errors=True)
                else:
                    folder.unlink()
                removed.append(folder)
    return removed


def _fsync(path: Path) -> None:
    # durability across a power cut; a killed process needs only the rename
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
