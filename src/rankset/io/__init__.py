r"""Read runs, labels, cutoffs and answers from files and objects; write runs and labels.

This package only parses: it turns each supported input into Polars frames with the
canonical column names and dtypes. Ordering, duplicate checks and the choice of scored
queries live in :mod:`rankset.schema`.

As in Polars, ``scan_*`` returns a LazyFrame: :func:`scan_run`, :func:`scan_labels`.
:func:`read` returns every table a source holds (samples carry a run, labels, cutoffs
and answers at once).

Supported inputs
----------------
- TREC text: runs ``qid Q0 docid rank score tag`` and qrels ``qid iter docid grade``
  (the default for any file name without a recognised extension). As in trec_eval,
  fields after a run's tag are ignored, lines whose first non-blank character is ``#``
  are comments, and blank lines are skipped.
- ``samples``: RAG evaluation samples in JSON or JSONL, with ``expected_output``,
  ``actual_output``, ``metadata.k`` and ``expected_answer``.
- ``rag-gs``: a golden set of graded passages, JSONL with ``qid``, ``doc_id`` and
  ``grade_1_5``.
- ``dataset-json``: ``{"queries": [{"query_id", "relevant_documents", "relevance_scores"}]}``.
- ``records-jsonl``: JSONL records with run or label columns.
- Parquet, CSV and TSV tables, a glob or folder of Parquet files, a dataset written by
  :func:`rankset.partition`, and in-memory Polars, pandas and pyarrow frames.
- ``ranx``: mappings ``{query_id: {doc_id: number}}``.
- eRAG's per-document downstream scores ``{query_id: [score, ...]}`` (or JSON Lines), as
  a run and continuous labels: :func:`read_erag`.
- MS MARCO runs ``qid docid rank`` (``format="msmarco"`` forces the layout) and TREC
  2025 RAG qrels ``qid iter docid grade confidence`` (the confidence kept as a column).
- NIST's sampled qrels ``topic iter doc stratum rel`` (``-1``: pooled, not sampled), as
  labels with a ``stratum`` column: :func:`read_sampled_qrels`. A table's ``stratum``
  column is kept with its labels too.
- BEIR/MTEB qrels tables (``query-id``, ``corpus-id``, ``score``), without a mapping.
- URLs (``https://``, ``hf://``, ``s3://``), read as local files are.
- ``irds:<ir_datasets id>`` labels, and the short names of :data:`IRDS_SHORT_NAMES`
  (``irds:dl19-passage``), through the optional ``ir_datasets`` package; the dataset's
  queries (:func:`read_irds_queries`), grade meanings (:func:`irds_grade_definitions`)
  and official measures (:func:`official_measures`, :data:`IRDS_OFFICIAL_MEASURES`).

Gzip compression is detected from the content, whatever the file is called.

Examples
--------
>>> import io
>>> from rankset.io import scan_labels
>>> scan_labels(io.StringIO("301 0 CR93E-1282 1\n")).collect().rows()
[('301', 'CR93E-1282', 1.0)]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankset._typing import InputFormat, Kind, Source, WriteFormat

if TYPE_CHECKING:  # imported on first use: see __getattr__
    from rankset.io._answers import read_answers
    from rankset.io._costs import COST_COLUMNS, IntoCosts, read_costs
    from rankset.io._erag import ERagTables, read_erag
    from rankset.io._irds import irds_grade_definitions, official_measures, read_irds_queries
    from rankset.io._irds_catalog import OFFICIAL_MEASURES as IRDS_OFFICIAL_MEASURES
    from rankset.io._irds_catalog import SHORT_NAMES as IRDS_SHORT_NAMES
    from rankset.io._irds_catalog import resolve_irds_id
    from rankset.io._judgments import read_judgments
    from rankset.io._leaderboards import read_leaderboard
    from rankset.io._nuggets import NUGGET_SCHEMA, read_nuggets, read_subtopics
    from rankset.io._parsed import ParsedInput
    from rankset.io._readers import read, scan_labels, scan_run
    from rankset.io._sampled import SAMPLED_QRELS_SCHEMA, read_sampled_qrels
    from rankset.io._writers import write_labels, write_parquet, write_run

# Each name's module (and its name there), imported when the name is first asked for:
# a command that reads TREC text loads neither the judgments' nor the answers' readers.
_MODULE_OF = {
    "read_answers": ("_answers", "read_answers"),
    "COST_COLUMNS": ("_costs", "COST_COLUMNS"),
    "IntoCosts": ("_costs", "IntoCosts"),
    "read_costs": ("_costs", "read_costs"),
    "ERagTables": ("_erag", "ERagTables"),
    "read_erag": ("_erag", "read_erag"),
    "irds_grade_definitions": ("_irds", "irds_grade_definitions"),
    "official_measures": ("_irds", "official_measures"),
    "read_irds_queries": ("_irds", "read_irds_queries"),
    "IRDS_OFFICIAL_MEASURES": ("_irds_catalog", "OFFICIAL_MEASURES"),
    "IRDS_SHORT_NAMES": ("_irds_catalog", "SHORT_NAMES"),
    "resolve_irds_id": ("_irds_catalog", "resolve_irds_id"),
    "read_judgments": ("_judgments", "read_judgments"),
    "read_leaderboard": ("_leaderboards", "read_leaderboard"),
    "NUGGET_SCHEMA": ("_nuggets", "NUGGET_SCHEMA"),
    "read_nuggets": ("_nuggets", "read_nuggets"),
    "read_subtopics": ("_nuggets", "read_subtopics"),
    "ParsedInput": ("_parsed", "ParsedInput"),
    "read": ("_readers", "read"),
    "scan_labels": ("_readers", "scan_labels"),
    "scan_run": ("_readers", "scan_run"),
    "SAMPLED_QRELS_SCHEMA": ("_sampled", "SAMPLED_QRELS_SCHEMA"),
    "read_sampled_qrels": ("_sampled", "read_sampled_qrels"),
    "write_labels": ("_writers", "write_labels"),
    "write_parquet": ("_writers", "write_parquet"),
    "write_run": ("_writers", "write_run"),
}

__all__ = [
    "COST_COLUMNS",
    "IRDS_OFFICIAL_MEASURES",
    "IRDS_SHORT_NAMES",
    "NUGGET_SCHEMA",
    "SAMPLED_QRELS_SCHEMA",
    "ERagTables",
    "InputFormat",
    "IntoCosts",
    "Kind",
    "ParsedInput",
    "Source",
    "WriteFormat",
    "irds_grade_definitions",
    "official_measures",
    "read",
    "read_answers",
    "read_costs",
    "read_erag",
    "read_irds_queries",
    "read_judgments",
    "read_leaderboard",
    "read_nuggets",
    "read_sampled_qrels",
    "read_subtopics",
    "resolve_irds_id",
    "scan_labels",
    "scan_run",
    "write_labels",
    "write_parquet",
    "write_run",
]


def __getattr__(name: str) -> Any:
    found = _MODULE_OF.get(name)
    if found is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    module, attribute = found
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
