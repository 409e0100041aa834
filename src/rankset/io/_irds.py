"""Labels by name: ``irds:<ir_datasets id>`` and pyserini's short names.

``irds:msmarco-passage/trec-dl-2019/judged`` reads the dataset's qrels through the
optional ``ir_datasets`` package (``pip install "rankset[irds]"``), imported only
then. ir_datasets keeps its files under ``IR_DATASETS_HOME`` (default
``~/.ir_datasets``) and downloads what is missing; offline, a missing file is an
:class:`~rankset.errors.InputFormatError` naming the dataset, that folder and how to
fetch it on a machine with network. ``irds:dl19-passage`` and the other names of
:data:`SHORT_NAMES` (pyserini's) stand for their ir_datasets ids.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import polars as pl

from rankset._dependencies import import_optional
from rankset._typing import Kind
from rankset._validation import did_you_mean
from rankset.errors import InputFormatError
from rankset.io._parsed import LABELS_SCHEMA, ParsedInput

__all__ = ["IRDS_PREFIX", "SHORT_NAMES", "is_irds", "read_irds", "resolve_irds_id"]

IRDS_PREFIX: Final = "irds:"

_DL: Final = {
    "dl19-passage": "msmarco-passage/trec-dl-2019/judged",
    "dl20-passage": "msmarco-passage/trec-dl-2020/judged",
    "dl19-doc": "msmarco-document/trec-dl-2019/judged",
    "dl20-doc": "msmarco-document/trec-dl-2020/judged",
    "dl21-passage": "msmarco-passage-v2/trec-dl-2021/judged",
    "dl22-passage": "msmarco-passage-v2/trec-dl-2022/judged",
    "dl23-passage": "msmarco-passage-v2/trec-dl-2023/judged",
    "dl21-doc": "msmarco-document-v2/trec-dl-2021/judged",
    "dl22-doc": "msmarco-document-v2/trec-dl-2022/judged",
    "dl23-doc": "msmarco-document-v2/trec-dl-2023/judged",
    "msmarco-passage-dev-subset": "msmarco-passage/dev/small",
    "msmarco-doc-dev": "msmarco-document/dev",
}
# BEIR's test qrels: ir_datasets names a /test subset where the collection has several
# splits, and the collection itself where test is its only split.
_BEIR_SPLIT_TEST: Final = (
    "dbpedia-entity",
    "fever",
    "fiqa",
    "hotpotqa",
    "nfcorpus",
    "quora",
    "scifact",
)
_BEIR_TEST_ONLY: Final = ("arguana", "climate-fever", "nq", "scidocs", "trec-covid")
_CQADUPSTACK: Final = (
    "android", "english", "gaming", "gis", "mathematica", "physics", "programmers",
    "stats", "tex", "unix", "webmasters", "wordpress",
)  # fmt: skip
#: pyserini's names for common qrels -> ir_datasets ids (``irds:dl19-passage``).
SHORT_NAMES: Final[Mapping[str, str]] = {
    **_DL,
    **{f"beir-v1.0.0-{name}-test": f"beir/{name}/test" for name in _BEIR_SPLIT_TEST},
    **{f"beir-v1.0.0-{name}-test": f"beir/{name}" for name in _BEIR_TEST_ONLY},
    "beir-v1.0.0-webis-touche2020-test": "beir/webis-touche2020/v2",
    **{f"beir-v1.0.0-cqadupstack-{n}-test": f"beir/cqadupstack/{n}" for n in _CQADUPSTACK},
}


def is_irds(source: object) -> bool:
    """Whether ``source`` names an ir_datasets dataset (``irds:...``).

    Examples
    --------
    >>> is_irds("irds:dl19-passage"), is_irds("qrels.txt")
    (True, False)
    """
    return isinstance(source, str) and source.startswith(IRDS_PREFIX)


def resolve_irds_id(source: str) -> str:
    """Return the ir_datasets id an ``irds:`` source names (short names resolved).

    Examples
    --------
    >>> resolve_irds_id("irds:dl19-passage")
    'msmarco-passage/trec-dl-2019/judged'
    >>> resolve_irds_id("irds:beir-v1.0.0-scifact-test"), resolve_irds_id("irds:beir/nq")
    ('beir/scifact/test', 'beir/nq')
    """
    name = source.removeprefix(IRDS_PREFIX).strip()
    return SHORT_NAMES.get(name, name)


def read_irds(source: str, kind: Kind) -> ParsedInput:
    """Read the qrels of the ir_datasets dataset ``source`` names, as labels."""
    if kind == "run":
        msg = f"{source}: an ir_datasets id names labels (qrels), not a run"
        raise InputFormatError(msg)
    dataset_id = resolve_irds_id(source)
    ir_datasets = import_optional(
        "ir_datasets", extra="irds", purpose=f"Reading {source} (an ir_datasets id)"
    )
    dataset = _load(ir_datasets, dataset_id, source)
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
        raise InputFormatError(_unavailable(source, dataset_id, exc)) from None
    labels = pl.DataFrame(
        {"query_id": query_ids, "doc_id": doc_ids, "grade": grades}, schema=LABELS_SCHEMA
    )
    stem = dataset_id.replace("/", "-")
    return ParsedInput(source, stem, "trec", labels=labels.lazy(), rows_in_memory=labels.height)


def _load(ir_datasets: Any, dataset_id: str, source: str) -> Any:
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        known = list(ir_datasets.registry)
        hint = did_you_mean(dataset_id, [*known, *SHORT_NAMES])
        msg = f"{source}: ir_datasets knows no dataset {dataset_id!r}{hint}"
        raise InputFormatError(msg) from None


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


def _unavailable(source: str, dataset_id: str, exc: BaseException) -> str:
    home = Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets")
    # ir_datasets' RuntimeError('All download sources failed', [...]) says it first.
    first = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    reason = (first.strip() or type(exc).__name__).splitlines()[0][:200]
    return (
        f"{source}: the qrels of ir_datasets dataset {dataset_id!r} are not in its cache "
        f"(IR_DATASETS_HOME={home}) and cannot be downloaded here ({reason}). On a "
        f'machine with network run: python -c "import ir_datasets; '
        f"list(ir_datasets.load('{dataset_id}').qrels_iter())\" and copy the folder "
        f"{dataset_id.split('/')[0]}/ of its ~/.ir_datasets (or IR_DATASETS_HOME) into "
        f"{home}"
    )
