"""Labels and queries by name: ``irds:<ir_datasets id>`` and pyserini's short names.

``irds:msmarco-passage/trec-dl-2019/judged`` reads the dataset's qrels (and, for the
dashboard, its queries) through the optional ``ir_datasets`` package (``pip install
"rankset[irds]"``), imported only then. ir_datasets keeps its files under
``IR_DATASETS_HOME`` (default ``~/.ir_datasets``) and downloads what is missing;
offline, a missing file is an :class:`~rankset.errors.InputFormatError` naming the
dataset, that folder and how to fetch it on a machine with network. ``irds:dl19-passage``
and the other names of :data:`~rankset.io._irds_catalog.SHORT_NAMES` (pyserini's) stand
for their ir_datasets ids.

The dataset's documented relevance definitions (``qrels_defs``) choose the labels' grade
scale where they call for a preset (:func:`~rankset.io._irds_catalog.dataset_scale`), and
its documented official measures answer ``-m official`` (:func:`official_measures`).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, TypeVar

import polars as pl

from rankset._dependencies import import_optional
from rankset._typing import Kind
from rankset._validation import did_you_mean
from rankset.errors import InputFormatError, ParameterError
from rankset.io._irds_catalog import (
    SHORT_NAMES,
    dataset_of,
    dataset_scale,
    resolve_irds_id,
    table_measures,
)
from rankset.io._parsed import LABELS_SCHEMA, ParsedInput

__all__ = [
    "irds_grade_definitions",
    "official_measures",
    "read_irds",
    "read_irds_queries",
]

_QUERIES_SCHEMA = {"query_id": pl.String, "text": pl.String}


def read_irds(source: str, kind: Kind) -> ParsedInput:
    """Read the qrels of the ir_datasets dataset ``source`` names, as labels."""
    if kind == "run":
        msg = f"{source}: an ir_datasets id names labels (qrels), not a run"
        raise InputFormatError(msg)
    dataset_id = resolve_irds_id(source)
    dataset = _load(_import(source), dataset_id, source)
    if not dataset.has_qrels():
        raise InputFormatError(f"{source}: the ir_datasets dataset {dataset_id!r} has no qrels")
    query_ids: list[str] = []
    doc_ids: list[str] = []
    grades: list[float] = []
    try:
        with _quiet():
            for qrel in dataset.qrels_iter():
                query_ids.append(str(qrel.query_id))
                doc_ids.append(str(qrel.doc_id))
                grades.append(float(qrel.relevance))
    except Exception as exc:
        raise InputFormatError(_unavailable(source, dataset_id, "qrels", exc)) from None
    labels = pl.DataFrame(
        {"query_id": query_ids, "doc_id": doc_ids, "grade": grades}, schema=LABELS_SCHEMA
    )
    stem = dataset_id.replace("/", "-")
    return ParsedInput(
        source,
        stem,
        "trec",
        labels=labels.lazy(),
        rows_in_memory=labels.height,
        scale=dataset_scale(dataset_id, _definitions(dataset)),
    )


def read_irds_queries(source: str, *, download: bool = True) -> pl.DataFrame:
    """Read the queries of the ir_datasets dataset ``source`` names: ``query_id, text``.

    The text is the query's default text in ir_datasets (its ``text``; the title of TREC
    topics). With ``download=False`` only files already in ir_datasets' cache are read:
    a dataset whose queries would have to be downloaded raises instead.

    Parameters
    ----------
    source
        ``irds:<ir_datasets id>`` or ``irds:<short name>`` (``irds:dl19-passage``).
    download
        Whether ir_datasets may download the queries when they are not in its cache.

    Returns
    -------
    polars.DataFrame
        ``query_id`` and ``text`` (String), in the dataset's order.

    Raises
    ------
    InputFormatError
        The dataset is unknown or has no queries, or they are not in the cache and
        cannot (or, with ``download=False``, may not) be downloaded; the message names
        the dataset and ``IR_DATASETS_HOME``.
    MissingDependencyError
        ir_datasets is not installed.

    Examples
    --------
    >>> read_irds_queries("irds:dl19-passage").columns  # doctest: +SKIP
    ['query_id', 'text']
    """
    dataset_id = resolve_irds_id(source)
    dataset = _load(_import(source), dataset_id, source)
    if not dataset.has_queries():
        raise InputFormatError(f"{source}: the ir_datasets dataset {dataset_id!r} has no queries")
    query_ids: list[str] = []
    texts: list[str] = []
    guard = contextlib.nullcontext() if download else _no_downloads()
    try:
        with _quiet(), guard:
            for query in dataset.queries_iter():
                query_ids.append(str(query.query_id))
                texts.append(_query_text(query))
    except Exception as exc:
        raise InputFormatError(_unavailable(source, dataset_id, "queries", exc)) from None
    return pl.DataFrame({"query_id": query_ids, "text": texts}, schema=_QUERIES_SCHEMA)


def irds_grade_definitions(source: str) -> dict[int, str]:
    """Return the grades the ir_datasets dataset documents, with what each means.

    ir_datasets' ``qrels_defs()``: read from the package, without the qrels (no download).
    Empty when the dataset documents none (BEIR's).

    Raises
    ------
    InputFormatError
        The dataset is unknown.
    MissingDependencyError
        ir_datasets is not installed.

    Examples
    --------
    >>> irds_grade_definitions("irds:dl19-passage")[1]  # doctest: +SKIP
    'Related: The passage seems related to the query but does not answer it.'
    """
    dataset_id = resolve_irds_id(source)
    return _definitions(_load(_import(source), dataset_id, source))


def official_measures(source: object) -> tuple[str, ...]:
    """Return the official measures of the collection a labels source stands for.

    The names are ir_measures' (``nDCG@10``, ``RR(rel=2)``), which every metric
    argument of rankset accepts. ``source`` is ``irds:<id>``, ``irds:<short name>``, or a
    qrels file named as pyserini or NIST name it (``qrels.dl19-passage.txt``,
    ``2019qrels-pass.txt``). The measures ir_datasets documents for the dataset come
    first; where it documents none, or is not installed, rankset's table
    (:data:`~rankset.io._irds_catalog.OFFICIAL_MEASURES`, by id prefix).

    Raises
    ------
    ParameterError
        ``source`` names no known collection, or the collection has no official measures.

    Examples
    --------
    >>> official_measures("irds:msmarco-passage-dev-subset")
    ('RR@10',)
    >>> official_measures("qrels.beir-v1.0.0-scifact.test.txt")
    ('nDCG@10', 'R@100')
    """
    dataset_id = dataset_of(source)
    if dataset_id is None:
        msg = (
            f"'official' names the official measures of a known collection, and the labels "
            f"{_shown(source)} are not one: give them as irds:<ir_datasets id> (--qrels "
            "irds:msmarco-passage/trec-dl-2019/judged, irds:dl19-passage) or in a file "
            "named as pyserini names it (qrels.dl19-passage.txt), or name the measures "
            "(-m ndcg@10)."
        )
        raise ParameterError(msg)
    measures = _documented_measures(dataset_id) or table_measures(dataset_id)
    if not measures:
        msg = (
            f"{_shown(source)}: neither ir_datasets' documentation nor rankset's table "
            f"lists official measures for {dataset_id!r}; name the measures (-m ndcg@10)."
        )
        raise ParameterError(msg)
    return measures


#: The metric name that stands for the official measures of the labels' collection.
OFFICIAL = "official"
_Name = TypeVar("_Name")


def with_official_measures(names: Iterable[_Name], labels: object) -> list[_Name | str]:
    """Replace each ``"official"`` in ``names`` by :func:`official_measures` of ``labels``.

    The other names are kept as given; ``labels`` are looked up only when ``"official"``
    is among the names (any case).

    Examples
    --------
    >>> with_official_measures(["P_10", "official"], "irds:msmarco-passage-dev-subset")
    ['P_10', 'RR@10']
    >>> with_official_measures(["ap"], None)
    ['ap']
    """
    given: list[_Name | str] = list(names)
    if not any(_is_official(name) for name in given):
        return given
    measures = official_measures(labels)
    return [chosen for name in given for chosen in (measures if _is_official(name) else (name,))]


def _is_official(name: object) -> bool:
    return isinstance(name, str) and name.strip().lower() == OFFICIAL


def _shown(source: object) -> str:
    return repr(os.fspath(source)) if isinstance(source, str | os.PathLike) else "given"


def _import(source: str) -> ModuleType:
    return import_optional(
        "ir_datasets", extra="irds", purpose=f"Reading {source} (an ir_datasets id)"
    )


def _load(ir_datasets: Any, dataset_id: str, source: str) -> Any:
    try:
        with _quiet():
            return ir_datasets.load(dataset_id)
    except KeyError:
        known = list(ir_datasets.registry)
        hint = did_you_mean(dataset_id, [*known, *SHORT_NAMES])
        msg = f"{source}: ir_datasets knows no dataset {dataset_id!r}{hint}"
        raise InputFormatError(msg) from None


def _definitions(dataset: Any) -> dict[int, str]:
    if not dataset.has_qrels():
        return {}
    return {int(grade): str(text) for grade, text in (dataset.qrels_defs() or {}).items()}


def _documented_measures(dataset_id: str) -> tuple[str, ...]:
    """Return the official measures ir_datasets documents for the dataset, or ()."""
    try:
        ir_datasets = importlib.import_module("ir_datasets")
    except ImportError:
        return ()
    try:
        with _quiet():
            documentation = ir_datasets.load(dataset_id).documentation()
    except KeyError:
        return ()
    return tuple(str(name) for name in documentation.get("official_measures") or ())


def _query_text(query: Any) -> str:
    default_text: Callable[[], str] | None = getattr(query, "default_text", None)
    return str(default_text() if default_text is not None else query.text)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Hold back ir_datasets' download chatter (INFO/WARNING logs); errors still raise.

    Its loggers are per module, set to INFO and not propagating, so only the global
    switch quiets them; it is restored after.
    """
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)


class _NotCachedError(RuntimeError):
    """A download that ``download=False`` held back."""


@contextlib.contextmanager
def _no_downloads() -> Iterator[None]:
    """Make every remote download of ir_datasets fail, so only its cache is read.

    ir_datasets (0.5-0.6) fetches through the ``stream`` method of three classes of
    ``ir_datasets.util.download``; they raise while this context lasts. Files already
    under ``IR_DATASETS_HOME`` are read as usual.
    """
    download = importlib.import_module("ir_datasets.util.download")

    def refuse(self: object) -> None:
        raise _NotCachedError("not in the cache, and downloads were not allowed")

    names = ("RequestsDownload", "GoogleDriveDownload", "GoogleCloudBucketStream")
    classes = [getattr(download, name) for name in names if hasattr(download, name)]
    saved = [cls.__dict__["stream"] for cls in classes]
    for cls in classes:
        cls.stream = refuse
    try:
        yield
    finally:
        for cls, stream in zip(classes, saved, strict=True):
            cls.stream = stream


def _unavailable(
    source: str, dataset_id: str, what: Literal["qrels", "queries"], exc: BaseException
) -> str:
    home = Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets")
    # ir_datasets' RuntimeError('All download sources failed', [...]) says it first.
    first = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    reason = (first.strip() or type(exc).__name__).splitlines()[0][:200]
    iterate = "qrels_iter" if what == "qrels" else "queries_iter"
    return (
        f"{source}: the {what} of ir_datasets dataset {dataset_id!r} are not in its cache "
        f"(IR_DATASETS_HOME={home}) and cannot be downloaded here ({reason}). On a "
        f'machine with network run: python -c "import ir_datasets; '
        f"list(ir_datasets.load('{dataset_id}').{iterate}())\" and copy the folder "
        f"{dataset_id.split('/')[0]}/ of its ~/.ir_datasets (or IR_DATASETS_HOME) into "
        f"{home}"
    )
