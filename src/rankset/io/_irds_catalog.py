"""What rankset knows of the standard collections without reading them.

Three small tables, each documented in ``docs/collections.md``:

* :data:`SHORT_NAMES`: pyserini's names (``dl19-passage``) -> ir_datasets ids;
* :data:`OFFICIAL_MEASURES`: the measures a collection is reported with, by id prefix,
  for ``-m official`` where ir_datasets documents none (or is not installed);
* the grade scale a collection's relevance definitions call for (:func:`dataset_scale`).

A qrels file named as pyserini/Anserini (``qrels.dl19-passage.txt``) or NIST
(``2019qrels-pass.txt``) name it stands for its collection too (:func:`dataset_of`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Final

__all__ = [
    "IRDS_PREFIX",
    "OFFICIAL_MEASURES",
    "SHORT_NAMES",
    "dataset_of",
    "dataset_scale",
    "is_irds",
    "resolve_irds_id",
    "table_measures",
]

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
# NIST's file names for the TREC DL qrels.
_NIST_FILES: Final = {
    "2019qrels-pass.txt": "msmarco-passage/trec-dl-2019/judged",
    "2020qrels-pass.txt": "msmarco-passage/trec-dl-2020/judged",
    "2019qrels-docs.txt": "msmarco-document/trec-dl-2019/judged",
    "2020qrels-docs.txt": "msmarco-document/trec-dl-2020/judged",
}

_DL_PASSAGE: Final = ("nDCG@10", "RR(rel=2)", "AP(rel=2)")
_DL_DOCUMENT: Final = ("nDCG@10", "RR", "MAP")
_DL21_PASSAGE: Final = ("AP@100", "nDCG@10", "P(rel=2)@10", "RR(rel=2)")
_DL21_DOCUMENT: Final = ("AP@100", "nDCG@10", "P@10", "RR(rel=2)")
#: Official measures (ir_measures names) by ir_datasets id or id prefix; the longest
#: prefix wins. The MS MARCO and TREC DL 2019-2021 rows copy ir_datasets 0.6.3's
#: documentation (so a qrels file named after a short name gets them without the
#: package); ir_datasets lists none for DL 2022 and 2023, which take the 2021 lists,
#: nor for BEIR, which takes the paper's nDCG@10 and Recall@100 (Thakur et al., 2021).
OFFICIAL_MEASURES: Final[Mapping[str, tuple[str, ...]]] = {
    "msmarco-passage/trec-dl-2019": _DL_PASSAGE,
    "msmarco-passage/trec-dl-2020": _DL_PASSAGE,
    "msmarco-passage/dev": ("RR@10",),
    "msmarco-document/trec-dl-2019": _DL_DOCUMENT,
    "msmarco-document/trec-dl-2020": _DL_DOCUMENT,
    "msmarco-document/dev": ("RR@10",),
    "msmarco-passage-v2/trec-dl-2021": _DL21_PASSAGE,
    "msmarco-passage-v2/trec-dl-2022": _DL21_PASSAGE,
    "msmarco-passage-v2/trec-dl-2023": _DL21_PASSAGE,
    "msmarco-document-v2/trec-dl-2021": _DL21_DOCUMENT,
    "msmarco-document-v2/trec-dl-2022": _DL21_DOCUMENT,
    "msmarco-document-v2/trec-dl-2023": _DL21_DOCUMENT,
    "beir": ("nDCG@10", "R@100"),
}
# TREC DL's four grades (0 irrelevant, 1 related, 2 highly, 3 perfectly relevant).
_TREC_DL_IDS: Final = re.compile(r"^msmarco-(passage|document)(-v2)?/trec-dl-")


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


def dataset_of(source: object) -> str | None:
    """Return the ir_datasets id a labels source stands for, or None.

    ``irds:<id>`` and ``irds:<short name>``; a qrels file named as pyserini/Anserini
    (``qrels.<short name>.txt``, ``.gz`` or not; ``qrels.beir-v1.0.0-scifact.test.txt``)
    or NIST (``2019qrels-pass.txt``) name the DL and BEIR qrels.

    Examples
    --------
    >>> dataset_of("irds:dl20-passage"), dataset_of("data/qrels.dl19-passage.txt.gz")
    ('msmarco-passage/trec-dl-2020/judged', 'msmarco-passage/trec-dl-2019/judged')
    >>> dataset_of("qrels.beir-v1.0.0-scifact.test.txt"), dataset_of("qrels.txt")
    ('beir/scifact/test', None)
    """
    if is_irds(source):
        return resolve_irds_id(str(source))
    if not isinstance(source, str | os.PathLike):
        return None
    name = PurePath(os.fspath(source)).name.lower().removesuffix(".gz")
    if name in _NIST_FILES:
        return _NIST_FILES[name]
    if not (name.startswith("qrels.") and name.endswith(".txt")):
        return None
    stem = name.removeprefix("qrels.").removesuffix(".txt")
    head, dot, split = stem.rpartition(".")  # Anserini: qrels.beir-v1.0.0-fiqa.test.txt
    return SHORT_NAMES.get(stem) or (SHORT_NAMES.get(f"{head}-{split}") if dot else None)


def table_measures(dataset_id: str) -> tuple[str, ...]:
    """Return :data:`OFFICIAL_MEASURES`' row for ``dataset_id`` (longest prefix), or ``()``.

    Examples
    --------
    >>> table_measures("msmarco-passage/dev/small"), table_measures("beir/scifact/test")
    (('RR@10',), ('nDCG@10', 'R@100'))
    >>> table_measures("antique/test")
    ()
    """
    matches = [
        prefix
        for prefix in OFFICIAL_MEASURES
        if dataset_id == prefix or dataset_id.startswith(prefix + "/")
    ]
    return OFFICIAL_MEASURES[max(matches, key=len)] if matches else ()


def dataset_scale(dataset_id: str, definitions: Mapping[int, str]) -> str | None:
    """Return the grade scale (a preset name) a dataset's relevance definitions call for.

    TREC DL's collections (0 irrelevant .. 3 perfectly relevant) are ``trec_dl``; a
    dataset whose documented grades are 0 and 1, or 1 alone (MS MARCO dev: "labeled by
    crowd worker as relevant"), is ``binary``; any other is None (the labels choose).

    Examples
    --------
    >>> dataset_scale("msmarco-passage/trec-dl-2019/judged", {0: "", 1: "", 2: "", 3: ""})
    'trec_dl'
    >>> dataset_scale("msmarco-passage/dev/small", {1: "relevant"})
    'binary'
    >>> dataset_scale("beir/trec-covid", {}) is None
    True
    """
    if _TREC_DL_IDS.match(dataset_id):
        return "trec_dl"
    if definitions and set(definitions) <= {0, 1}:
        return "binary"
    return None
