"""Infinite scores as trec_eval reads them: ``inf``, ``-Infinity``, ``1e400`` are ordered.

trec_eval reads a run's score with C's ``atof`` (``get_trec_results.c``): ``inf``,
``-inf``, ``+Infinity`` (any case) and numbers past the double range (``1e400``) are
infinities, which its ``qsort`` orders like any other value: ``+inf`` first, ``-inf``
last, ties among them broken by document id as for every tie. rankset's readers refuse
them (an evaluation wants finite scores); the drop-in then reads the file as
trec_eval does (:func:`read_results_with_infinities`) and, before anything is computed,
puts each score's rank within its query in its place (:func:`finite_order`), which
orders and ties every ranking as the scores did.

A NaN score stays refused: trec_eval's comparison of NaN with anything is false, and
the order ``qsort`` then leaves depends on where the NaN lands in its merge.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from rankset.compat.trec_eval._options import atof

__all__ = ["finite_order", "read_results_with_infinities"]

_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "system": pl.String}


def read_results_with_infinities(path: str) -> pl.DataFrame | None:
    r"""Read a run as ``get_trec_results.c`` does, or return None.

    A data line is six or more blank-separated fields (``qid iter docno rank sim tag``;
    the rest is ignored); a line whose first non-blank character is ``#`` is a comment.
    The score is ``atof`` of the fifth field. None unless every line is such a line,
    at least one score is infinite and none is NaN: the caller then keeps the error
    of rankset's reader, which says what is wrong.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> _ = path.write_text("q1 Q0 a 1 inf t\nq1 Q0 b 2 -1e400 t\nq1 Q0 c 3 2 t\n")
    >>> read_results_with_infinities(str(path))["score"].to_list()
    [inf, -inf, 2.0]
    """
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    rows: list[tuple[str, str, float, str]] = []
    for line in data.split(b"\n"):
        fields = line.split()  # C's isspace in the C locale: the same six blanks
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < 6:
            return None
        score = atof(fields[4])
        if math.isnan(score):
            return None
        try:
            texts = [fields[i].decode("utf-8") for i in (0, 2, 5)]
        except UnicodeDecodeError:
            return None
        rows.append((texts[0], texts[1], score, texts[2]))
    if not any(math.isinf(score) for _, _, score, _ in rows):
        return None
    return pl.DataFrame(rows, schema=_SCHEMA, orient="row")


def finite_order(run: pl.DataFrame) -> pl.DataFrame:
    """Replace the scores by their dense rank within each query when one is infinite.

    Equal scores get equal ranks and a higher score a higher rank, so every ranking,
    tie and cut (``-M``) stays what the scores made it; the ranks are small integers,
    exact in a double and in 9.0.8's float.

    Examples
    --------
    >>> scores = [1.5, -math.inf, math.inf, 1.5]
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "b", "c", "d"], "score": scores})
    >>> finite_order(run)["score"].to_list()
    [2.0, 1.0, 3.0, 2.0]
    """
    if run.height == 0 or bool(run["score"].is_finite().all()):
        return run
    rank = pl.col("score").rank("dense").over("query_id").cast(pl.Float64)
    return run.with_columns(score=rank)
