r"""Sampled qrels: NIST's labels of a stratified sample of the pool.

Collections judged by stratified sampling (TREC Terabyte, Million Query, Clinical
Decision Support, Precision Medicine, TRECVID) publish qrels with a fourth field, the
stratum of the pool each document was drawn from, and ``-1`` for a document that was
pooled but not sampled: ``topic iter doc stratum rel``, whitespace-separated. NIST's
``sample_eval.pl`` reads them; :mod:`rankset.measures.sampled` computes its measures.

The grade of a ``-1`` row is -1, so a negative grade keeps meaning "in the pool, not
judged" (trec_eval's rule, which :func:`rankset.measures.incomplete` follows).

Examples
--------
>>> import io
>>> text = "401 0 d1 1 2\n401 0 d2 1 -1\n401 0 d3 2 0\n"
>>> read_sampled_qrels(io.StringIO(text)).rows()
[('401', 'd1', 2.0, '1'), ('401', 'd2', -1.0, '1'), ('401', 'd3', 0.0, '2')]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import polars as pl

from rankset.errors import InputFormatError
from rankset.io._parsed import MAX_SHOWN_LINE
from rankset.io._sources import read_bytes, split_lines, stream_bytes

__all__ = ["SAMPLED_QRELS_SCHEMA", "read_sampled_qrels"]

#: The columns and dtypes of sampled qrels as :func:`read_sampled_qrels` returns them.
SAMPLED_QRELS_SCHEMA: Final = pl.Schema(
    {"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64, "stratum": pl.String}
)
_FIELDS: Final = ("query_id", "iteration", "doc_id", "stratum", "rel")
_BLANK: Final = r"[ \t\f\v\r]"
_FIELD: Final = r"([^ \t\f\v\r]+)"
_LINE: Final = f"^{_BLANK}*" + f"{_BLANK}+".join([_FIELD] * len(_FIELDS)) + f"{_BLANK}*$"


def read_sampled_qrels(source: Any, *, relabel: Mapping[str, str] | None = None) -> pl.DataFrame:
    r"""Read sampled qrels ``topic iter doc stratum rel`` into labels with a stratum.

    Parameters
    ----------
    source
        A path (gzip is detected from the content) or a text or binary file object.
    relabel
        Grade text -> grade text, applied to the ``rel`` field before it is read as a
        number (``sample_eval.pl -G``'s gain mapping, whose keys and values are text).

    Returns
    -------
    polars.DataFrame
        ``query_id, doc_id, grade, stratum`` (:data:`SAMPLED_QRELS_SCHEMA`), in file
        order. Blank lines and lines starting with ``#`` are skipped.

    Raises
    ------
    InputFormatError
        A line without exactly five fields, or a grade that is not a finite number; the
        message names the file and the line.

    Examples
    --------
    >>> import io
    >>> read_sampled_qrels(io.StringIO("7 0 d1 s 1\n"), relabel={"1": "3"}).rows()
    [('7', 'd1', 3.0, 's')]
    >>> read_sampled_qrels(io.StringIO("7 0 d1 1\n"))
    Traceback (most recent call last):
    ...
    rankset.errors.InputFormatError: <stream>, line 1: expected 5 fields ...
    """
    name, data = _source_bytes(source)
    lines = split_lines(data, name).filter(
        pl.col("line").is_not_null() & ~pl.col("line").str.contains(f"^{_BLANK}*(#|$)")
    )
    fields = lines.with_columns(pl.col("line").str.extract_groups(_LINE).alias("_fields"))
    fields = fields.unnest("_fields").rename({str(i + 1): field for i, field in enumerate(_FIELDS)})
    bad = fields.filter(pl.col("query_id").is_null()).head(1)
    if bad.height:
        lineno, line = bad.row(0)[:2]
        count = len(line.split())
        msg = (
            f"{name}, line {lineno}: expected 5 fields (topic iter doc stratum rel, sampled "
            f"qrels), found {count}: {line[:MAX_SHOWN_LINE]!r}"
        )
        raise InputFormatError(msg)
    rel = pl.col("rel")
    if relabel:
        rel = rel.replace(dict(relabel))
    read = fields.with_columns(rel.alias("rel")).with_columns(
        pl.col("rel").cast(pl.Float64, strict=False).alias("grade")
    )
    unusable = read.filter(~pl.col("grade").is_finite().fill_null(False)).head(1)
    if unusable.height:
        row = unusable.row(0, named=True)
        msg = (
            f"{name}, line {row['lineno']}: the grade {row['rel']!r} is not a finite number "
            f"(sampled qrels: topic iter doc stratum rel): {row['line'][:MAX_SHOWN_LINE]!r}"
        )
        raise InputFormatError(msg)
    return read.select(SAMPLED_QRELS_SCHEMA.names())


def _source_bytes(source: Any) -> tuple[str, bytes]:
    if isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        return name, read_bytes(Path(source), name)
    if hasattr(source, "read"):
        return "<stream>", stream_bytes(source, "<stream>")
    msg = f"cannot read sampled qrels from a {type(source).__name__}: expected a path or a file"
    raise InputFormatError(msg)
