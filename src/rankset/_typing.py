"""Every option vocabulary of rankset as one ``Literal`` alias, and the input types.

Validation, the CLI's ``choices=`` and the docs read these aliases (``choices_of``), so
a vocabulary is spelled once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Literal, TypeAlias, get_args

if TYPE_CHECKING:
    import pandas
    import polars as pl
    import pyarrow

__all__ = [
    "Change",
    "ChartFormat",
    "Correction",
    "CutoffRule",
    "DuplicatePolicy",
    "Engine",
    "InputFormat",
    "IntoLabels",
    "IntoRun",
    "Kind",
    "MatchMode",
    "MissingPolicy",
    "OrderPolicy",
    "PassEngine",
    "Quadrant",
    "ScorePrecision",
    "Source",
    "Test",
    "WriteFormat",
    "choices_of",
]

#: Formats a reader knows (``format=None`` sniffs the content).
InputFormat: TypeAlias = Literal[
    "trec",
    "samples",
    "rag-gs",
    "dataset-json",
    "parquet",
    "csv",
    "tsv",
    "ranx",
    "frame",
    "records-jsonl",
    "msmarco",
]
#: What a parsed input is expected to hold.
Kind: TypeAlias = Literal["auto", "run", "labels"]

#: ``progress(done, total, what)``: ``done`` of ``total`` parts of a long job are done;
#: ``what`` names the parts or the work under way (:mod:`rankset.stats` has the helpers).
Progress: TypeAlias = Callable[[int, int, str], None]
#: Formats the writers produce.
WriteFormat: TypeAlias = Literal["trec", "parquet", "csv"]
#: Which queries are scored: those in run and labels, or every labelled one.
MissingPolicy: TypeAlias = Literal["skip", "zero"]
#: How a ranking is ordered: by score when present, always by score, or by rank.
OrderPolicy: TypeAlias = Literal["auto", "score", "rank"]
#: What a document twice in one ranking does: an error; its best copy is kept; or every
#: copy keeps its place, the first as the document and the later ones as non-relevant.
DuplicatePolicy: TypeAlias = Literal["error", "keep_best", "in_place"]
#: A dataset file's own rules (a relevant document per query, every one graded): broken
#: ones raise, or each file says in one warning how many it read anyway.
DatasetChecks: TypeAlias = Literal["error", "warn"]
#: Scores as trec_eval 10.0 keeps them (doubles), or as 9.0.8 and pytrec_eval do (floats).
ScorePrecision: TypeAlias = Literal["float64", "float32"]
#: The Polars engine of the pass over the runs, or a Dask cluster.
Engine: TypeAlias = Literal["auto", "streaming", "in-memory", "gpu", "dask"]
#: The Polars engine that runs the pass once ``"auto"`` is resolved.
PassEngine: TypeAlias = Literal["streaming", "in-memory", "gpu"]
#: Whether a measure needs a cutoff.
CutoffRule: TypeAlias = Literal["required", "optional", "none"]
#: Significance tests: three paired tests, then two family-wise over every system.
Test: TypeAlias = Literal["randomization", "t", "wilcoxon", "tukey", "randomized_tukey"]
#: Multiple-testing corrections (``None`` for none).
Correction: TypeAlias = Literal["holm", "bonferroni", "bh"]
#: The diagnostic matrix's four classes of a query.
Quadrant: TypeAlias = Literal["healthy", "retrieval miss", "reranking miss", "both"]
#: How a query changed between two runs.
Change: TypeAlias = Literal[
    "coverage regression", "ordering regression", "mixed", "unchanged", "improved"
]
#: How chunk texts are matched to gold texts.
MatchMode: TypeAlias = Literal["exact", "normalized", "contained", "json_escaped"]
#: Formats a chart is saved as.
ChartFormat: TypeAlias = Literal["html", "png", "svg", "json"]
#: Score normalisations of fusion (per run and query, before a score-based method).
Norm: TypeAlias = Literal[
    "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", "none"
]

#: Anything an input can be read from: a path or glob, a stream, a Polars, pandas or
#: pyarrow frame, or a ranx-style ``{query: {doc: value}}`` mapping.
Source: TypeAlias = (
    "str | os.PathLike[str] | IO[bytes] | IO[str] | pl.DataFrame | pl.LazyFrame"
    " | pandas.DataFrame | pyarrow.Table | Mapping[str, Mapping[str, float]]"
)
#: What a run argument accepts: a source, or a sequence of sources (one per system).
IntoRun: TypeAlias = "Source | Sequence[Source]"
#: What a labels argument accepts.
IntoLabels: TypeAlias = "Source"


def choices_of(alias: Any) -> tuple[str, ...]:
    """Return the strings a ``Literal`` alias admits, in declaration order.

    Examples
    --------
    >>> choices_of(MissingPolicy)
    ('skip', 'zero')
    """
    return tuple(get_args(alias))
