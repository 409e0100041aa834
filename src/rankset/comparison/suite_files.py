"""Suites written down: the collections of a ``SUITE.toml`` file, read and evaluated.

:func:`suite_from_toml` reads the collections (each one's runs and qrels, paths relative
to the file); :func:`evaluate_suite_toml` reads and evaluates them with
:func:`rankset.comparison.evaluate_suite`.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rankset._validation import did_you_mean
from rankset.comparison.suites import SuiteResult, evaluate_suite
from rankset.errors import ParameterError

__all__ = ["evaluate_suite_toml", "suite_from_toml"]

_TOP_KEYS = ("collections", "metrics")
_COLLECTION_KEYS = ("qrels", "runs")


def suite_from_toml(
    source: str | os.PathLike[str] | Mapping[str, Any],
    *,
    base: str | os.PathLike[str] | None = None,
) -> dict[str, tuple[list[str] | dict[str, str], str]]:
    """Read the collections of a suite file: ``{collection: (runs, qrels)}``.

    The file (or its parsed dict) has a ``[collections.<name>]`` table per collection,
    each with ``qrels`` (a path) and ``runs`` (a list of paths, named as
    :func:`rankset.evaluate` names them, or a ``{system = path}`` table: the way to match
    systems whose file names differ between collections), and optionally top-level
    ``metrics``. Relative paths are read from the file's folder (for a dict: from
    ``base``, by default the working directory); URLs and ``irds:`` ids pass unchanged.

    Raises
    ------
    ParameterError
        Naming the file and the key of anything malformed: TOML syntax, an unknown key,
        a missing ``qrels`` or ``runs``, a value of the wrong type, a file that does not
        exist.

    Examples
    --------
    >>> suite_from_toml(
    ...     {"collections": {"dl19": {"qrels": "irds:msmarco-passage/trec-dl-2019",
    ...                               "runs": {"bm25": "https://example.org/bm25"}}}}
    ... )
    {'dl19': ({'bm25': 'https://example.org/bm25'}, 'irds:msmarco-passage/trec-dl-2019')}
    """
    return _collections_of(*_read_toml(source, base))


def _collections_of(
    where: str, table: dict[str, Any], folder: Path
) -> dict[str, tuple[list[str] | dict[str, str], str]]:
    _check_keys(table, _TOP_KEYS, where, "")
    if "metrics" in table:
        _metrics_of(table, where)
    collections = table.get("collections")
    if not isinstance(collections, dict) or not collections:
        msg = (
            f"{where}: 'collections' must hold at least one [collections.<name>] table "
            "with 'qrels' and 'runs'."
        )
        raise ParameterError(msg)
    out: dict[str, tuple[list[str] | dict[str, str], str]] = {}
    for name, entry in collections.items():
        key = f"collections.{name}"
        if not isinstance(entry, dict):
            msg = f"{where}: '{key}' must be a table with 'qrels' and 'runs'."
            raise ParameterError(msg)
        _check_keys(entry, _COLLECTION_KEYS, where, key)
        for needed in _COLLECTION_KEYS:
            if needed not in entry:
                msg = f"{where}: '{key}' has no '{needed}'."
                raise ParameterError(msg)
        qrels = _path(entry["qrels"], folder, where, f"{key}.qrels")
        raw = entry["runs"]
        runs: list[str] | dict[str, str]
        if isinstance(raw, list) and raw:
            runs = [_path(p, folder, where, f"{key}.runs[{i}]") for i, p in enumerate(raw)]
        elif isinstance(raw, dict) and raw:
            runs = {str(s): _path(p, folder, where, f"{key}.runs.{s}") for s, p in raw.items()}
        else:
            msg = (
                f"{where}: '{key}.runs' must be a non-empty list of paths or a "
                f"{{system = path}} table. Got {_kind(raw)} instead."
            )
            raise ParameterError(msg)
        out[str(name)] = (runs, qrels)
    return out


def evaluate_suite_toml(
    source: str | os.PathLike[str] | Mapping[str, Any],
    metrics: Any = None,
    *,
    base: str | os.PathLike[str] | None = None,
    **options: Any,
) -> SuiteResult:
    """Read a suite file (:func:`suite_from_toml`) and evaluate it (:func:`evaluate_suite`).

    ``metrics`` overrides the file's ``metrics``; one of the two must give them. Other
    keyword arguments go to :func:`evaluate_suite` (``seed``, ``k``...).
    """
    where, table, folder = _read_toml(source, base)
    collections = _collections_of(where, table, folder)
    if metrics is None:
        if "metrics" not in table:
            msg = f"{where}: no 'metrics' in the file and none given (metrics=..., -m)."
            raise ParameterError(msg)
        metrics = _metrics_of(table, where)
    return evaluate_suite(collections, metrics, **options)


def _folder(source: Any, base: str | os.PathLike[str] | None) -> Path:
    if isinstance(source, Mapping):
        return Path(base) if base is not None else Path.cwd()
    return Path(source).parent


def _read_toml(
    source: str | os.PathLike[str] | Mapping[str, Any], base: str | os.PathLike[str] | None
) -> tuple[str, dict[str, Any], Path]:
    """Return the name errors give the source, its table and the folder paths start from."""
    if isinstance(source, Mapping):
        return "the suite", dict(source), _folder(source, base)
    if not isinstance(source, str | os.PathLike):
        msg = (
            "The suite must be a path to a TOML file or its parsed dict. "
            f"Got {type(source).__name__} instead."
        )
        raise ParameterError(msg)
    path = Path(source)
    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle)
    except FileNotFoundError:
        msg = f"{path}: the suite file does not exist."
        raise ParameterError(msg) from None
    except tomllib.TOMLDecodeError as error:
        msg = f"{path}: not valid TOML: {error}."
        raise ParameterError(msg) from None
    return str(path), table, _folder(path, base)


def _check_keys(table: Mapping[str, Any], allowed: Sequence[str], where: str, key: str) -> None:
    for name in table:
        if name not in allowed:
            place = f"'{key}.{name}'" if key else f"'{name}'"
            msg = f"{where}: unknown key {place} (known: {', '.join(allowed)})."
            raise ParameterError(msg + did_you_mean(str(name), allowed))


def _metrics_of(table: Mapping[str, Any], where: str) -> list[str]:
    raw = table["metrics"]
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw or not all(isinstance(m, str) for m in raw):
        msg = f"{where}: 'metrics' must be a non-empty list of metric names. Got {_kind(raw)}."
        raise ParameterError(msg)
    return list(raw)


def _path(value: Any, folder: Path, where: str, key: str) -> str:
    if not isinstance(value, str) or not value:
        msg = f"{where}: '{key}' must be a path string. Got {_kind(value)} instead."
        raise ParameterError(msg)
    if "://" in value or value.startswith("irds:"):
        return value
    path = Path(value).expanduser()
    if not path.is_absolute():
        path = folder / path
    if not path.exists():
        msg = f"{where}: '{key}' names {path}, which does not exist."
        raise ParameterError(msg)
    return str(path)


def _kind(value: Any) -> str:
    if isinstance(value, list | dict | str) and not value:
        return f"an empty {type(value).__name__}"
    return f"{type(value).__name__} {value!r}"[:80]
