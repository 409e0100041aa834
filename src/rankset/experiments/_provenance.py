"""Where an entry came from: hashes of its inputs, the git commit, the user's meta.

A run or labels file is hashed as its bytes (sha256), so renaming or moving it changes
nothing. An object in memory (a frame, a ranx-style dict) is read into rankset's
canonical columns, sorted, and hashed as that table's CSV text: the same rows in any
order, or the same run as a file's frame, hash alike within one kind of input. A name
that is no file (``irds:...``, a URL) is hashed as its text.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rankset.errors import ParameterError
from rankset.io import scan_labels, scan_run

__all__ = [
    "content_key",
    "describe_source",
    "git_commit",
    "hash_source",
    "hash_values",
    "parse_meta",
    "sources_by_system",
]

_CHUNK = 1 << 20


def hash_source(source: object, *, kind: str) -> str | None:
    """Return the sha256 of a run or labels source, or None when it cannot be read.

    Examples
    --------
    >>> a = hash_source({"q1": {"d1": 2.0, "d2": 1.0}}, kind="run")
    >>> a == hash_source({"q1": {"d2": 1.0, "d1": 2.0}}, kind="run")
    True
    >>> len(a)
    64
    """
    if source is None:
        return None
    if isinstance(source, bytes):
        return hashlib.sha256(source).hexdigest()
    if isinstance(source, str | os.PathLike):
        path = Path(os.fspath(source))
        if path.is_file():
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
            return digest.hexdigest()
        return hashlib.sha256(f"name:{os.fspath(source)}".encode()).hexdigest()
    try:
        frame = (scan_run if kind == "run" else scan_labels)(source).collect()
    except (ValueError, TypeError):  # RanksetError is a ValueError
        return None
    return _hash_frame(frame)


def hash_values(per_query: pl.DataFrame) -> str:
    """Return the sha256 of per-query values (a stand-in when a run's input is unknown)."""
    return _hash_frame(per_query.select("query_id", "metric", "value"))


def _hash_frame(frame: pl.DataFrame) -> str:
    columns = sorted(frame.columns)
    canonical = frame.select(columns).sort(columns, nulls_last=True)
    digest = hashlib.sha256(",".join(columns).encode())
    digest.update(canonical.write_csv().encode())
    return digest.hexdigest()


def describe_source(source: object) -> str | None:
    """Return a path as absolute text (a URL as given), or ``<type>`` for an object in memory.

    Examples
    --------
    >>> describe_source("hf://datasets/x/qrels.parquet"), describe_source({})
    ('hf://datasets/x/qrels.parquet', '<builtins.dict>')
    """
    if source is None:
        return None
    if isinstance(source, str | os.PathLike):
        text = os.fspath(source)
        # a local path is kept absolute, so the entry names its file from any folder
        return text if "://" in text else os.path.abspath(text)
    return f"<{type(source).__module__.split('.')[0]}.{type(source).__name__}>"


def sources_by_system(sources: object, systems: Sequence[str]) -> list[object]:
    """Pair each system with its run source; None where the pairing is not clear.

    ``sources`` is what was evaluated (or given as ``run_sources``): a mapping from
    system names, a list in system order, or one run for one system.
    """
    if sources is None:
        return [None] * len(systems)
    if isinstance(sources, Mapping) and set(map(str, sources)) >= set(systems):
        by_name = {str(name): source for name, source in sources.items()}
        return [by_name[system] for system in systems]
    if isinstance(sources, list | tuple):
        if len(sources) == len(systems):
            return list(sources)
        return [None] * len(systems)
    if len(systems) == 1:
        return [sources]
    return [None] * len(systems)


def content_key(parts: Iterable[object]) -> str:
    """Return the sha256 of the JSON of ``parts``: what makes two entries the same."""
    text = json.dumps(list(parts), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def git_commit(cwd: str | os.PathLike[str] | None = None) -> str | None:
    """Return ``git rev-parse HEAD`` of the working directory, or None (never raises)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def parse_meta(meta: Mapping[str, Any] | Sequence[str] | None) -> dict[str, Any]:
    """Return user meta as a dict: from a mapping, or from ``key=value`` strings.

    Values must be JSON (text, numbers, booleans, lists, maps); ``key=value`` strings
    give text values, as the CLI's ``--meta`` does.

    Examples
    --------
    >>> parse_meta(["model=bge-small", "chunk=512"])
    {'model': 'bge-small', 'chunk': '512'}
    >>> parse_meta(["oops"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankset.errors.ParameterError: The 'meta' parameter must hold key=value strings. Got...
    """
    if meta is None:
        return {}
    if isinstance(meta, Mapping):
        out = {str(key): value for key, value in meta.items()}
    elif isinstance(meta, str):
        return parse_meta([meta])
    else:
        out = {}
        for item in meta:
            key, sep, value = str(item).partition("=")
            if not sep or not key:
                msg = f"The 'meta' parameter must hold key=value strings. Got {item!r} instead."
                raise ParameterError(msg)
            out[key.strip()] = value
    try:
        json.dumps(out)
    except (TypeError, ValueError):
        msg = (
            "The 'meta' parameter must hold JSON values (text, numbers, lists, maps). "
            f"Got {out!r} instead."
        )
        raise ParameterError(msg) from None
    return out
