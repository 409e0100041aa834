r"""How ``rankset trec_eval`` prints: per-query lines, summaries, relstrings.

trec_eval's formats (``meas_print_single.c``, ``meas_print_final.c``): ``%-22s\t%s\t%6.4f``
lines, counts as ``%ld``, summaries summed (counts) or averaged in query order.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import polars as pl

from rankset.compat.trec_eval._options import (
    JG_PREFIX,
    PREFS_PREFIX,
    Column,
    Measure,
    Options,
    atof,
)

__all__ = [
    "NO_RELSTRINGS",
    "OTHER_FORMATS",
    "means",
    "per_query_texts",
    "relstring_length",
    "relstrings",
    "summary_lines",
    "top_candidates",
]

#: About how many -q lines :func:`per_query_texts` makes at once.
_LINES_AT_ONCE = 100_000

#: Rows of the run that :func:`top_candidates` looks at at once.
_SLICE = 1 << 20

#: Metric prefixes of the columns other label formats compute (not rankset metrics).
OTHER_FORMATS = (JG_PREFIX, PREFS_PREFIX)


def ranked_head(run: pl.DataFrame, depth: int) -> pl.DataFrame:
    """Return each query's first ``depth`` (>= 1) rows in trec_eval's order.

    Score descending, ties by document id descending; only the candidates
    :func:`top_candidates` keeps are sorted.
    """
    return (
        top_candidates(run, depth)
        .sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        .group_by("query_id", maintain_order=True)
        .head(depth)
    )


def relstrings(
    run: pl.DataFrame, labels: pl.DataFrame, length: int, added: set[str]
) -> pl.DataFrame:
    """trec_eval's relstring: a character per top document (grade, '-' unlabelled, ...)."""
    if length <= 0:  # trec_eval prints an empty string (Polars' head(0) keeps a row)
        run = run.clear()
    ranked = ranked_head(run, max(length, 1)).join(
        labels.select("query_id", "doc_id", "grade"),
        on=["query_id", "doc_id"],
        how="left",
    )
    grade = pl.col("grade")
    char = (
        pl.when(grade.is_null())
        .then(pl.lit("-"))
        .when(grade > 9)
        .then(pl.lit(">"))
        .when(grade >= 0)
        .then(grade.cast(pl.Int64).cast(pl.String))
        .otherwise(pl.lit("."))
    )
    # the join keeps the left order within each query
    strings = (
        ranked.with_columns(char=char)
        .group_by("query_id", maintain_order=True)
        .agg(relstring=pl.col("char").str.join(""))
    )
    # 10.0 clears the string of a query -c added
    return strings.with_columns(
        relstring=pl.when(pl.col("query_id").is_in(list(added)))
        .then(pl.lit(""))
        .otherwise(pl.col("relstring"))
    )


def top_candidates(run: pl.DataFrame, depth: int) -> pl.DataFrame:
    """Return the rows of ``run`` that can be among their query's top ``depth`` (>= 1).

    Those scored at least the ``depth``-th best score of their block of lines of one
    query (ties at that score kept, for the doc ids), a slice of the run at a time: a
    query whose lines are in several blocks or slices keeps its top in their tops.
    Numbering the blocks (rle_id) is cheaper than grouping on the ids, and a slice holds
    little at once; sorting what is left is cheap.

    Examples
    --------
    >>> run = pl.DataFrame({"query_id": ["a", "a", "a", "b", "a"],
    ...                     "doc_id": ["1", "2", "3", "4", "5"],
    ...                     "score": [3.0, 1.0, 2.0, 1.0, 0.5]})
    >>> top_candidates(run, 1)["doc_id"].to_list()  # a's first block, b, a's second
    ['1', '4', '5']
    """
    score = pl.col("score")
    top = score >= score.top_k(depth).min().over(pl.col("query_id").rle_id())
    candidates = [run.slice(start, _SLICE).filter(top) for start in range(0, run.height, _SLICE)]
    return pl.concat([run.clear(), *candidates])


def means(
    values: pl.DataFrame, planned: list[tuple[Measure, list[Column]]], n_queries: int
) -> dict[str, float]:
    """trec_eval's summaries: counts summed, the rest added in query order and divided.

    ``values`` are in query order (trec_eval's: byte order of the ids, in 10.0 and 9.0.8
    alike). Each metric's values are added one by one in that order, in double, as
    ``te_acc_meas_s`` does, then divided by the number of queries averaged over, as
    ``te_calc_avg_meas_s`` does: with 9.0.8's -c, every labelled query, the ones without
    results adding 0 (log(0.00001) to a geometric mean). The addition and the division
    are done here, one metric at a time, so a mean depends only on its own values:
    Polars may add a group in blocks or divide by a constant through its reciprocal,
    which moves the last bit and, on a 4th-decimal tie, the printed digit.
    """
    from rankset.measures._shared import geometric_metrics
    from rankset.measures.ranking import MIN_GEO_MEAN

    counts = {c.metric for _, cs in planned for c in cs if c.metric and c.kind == "long"}
    # cum_sum adds one value after another: its last element is the C loop's sum
    totals = values.group_by("metric", maintain_order=True).agg(
        total=pl.col("value").cast(pl.Float64).fill_null(math.nan).cum_sum().last(),
        size=pl.len(),
    )
    names = [str(n) for n in totals["metric"] if not str(n).startswith(OTHER_FORMATS)]
    geometric = set(geometric_metrics(names))
    summaries: dict[str, float] = {}
    for metric, total, size in totals.iter_rows():
        name = str(metric)
        if name in counts:
            summaries[name] = total
        elif name in geometric:
            absent = float(n_queries - size)
            total += absent * math.log(MIN_GEO_MEAN)
            summaries[name] = math.exp(total / n_queries) if n_queries else total
        else:
            summaries[name] = total / n_queries if n_queries else total
    return summaries


def relstring_length(options: Options) -> int:
    params = (options.measures or {}).get("relstring", "")
    return int(atof(params)) if params else 10


def per_query_texts(
    queries: list[str],
    planned: list[tuple[Measure, list[Column]]],
    values: pl.DataFrame,
    relstrings: pl.DataFrame,
) -> Iterator[str]:
    """Yield the -q lines: for each query in order, each printed value in table order.

    The lines come a few thousand queries at a time (a text each), so that the lines of
    all the queries are not held at once.
    """
    rows = [
        (column.printed, column.metric, measure.kind == "relstring", column.kind)
        for measure, columns in planned
        if measure.kind not in ("runid", "num_q", "geometric")
        for column in columns
    ]
    if not rows or not queries:
        return
    table = pl.DataFrame(
        rows,
        schema={
            "printed": pl.String,
            "metric": pl.String,
            "is_relstring": pl.Boolean,
            "kind": pl.String,
        },
        orient="row",
    )
    cells = _cell_values(queries, table, values)
    step = max(1, _LINES_AT_ONCE // table.height)
    for start in range(0, len(queries), step):
        part = queries[start : start + step]
        grid = (
            pl.DataFrame({"query_id": part}, schema={"query_id": pl.String})
            .join(table, how="cross")  # query by query, each in table order
            .with_columns(value=cells.slice(start * table.height, len(part) * table.height))
            .join(relstrings, on="query_id", how="left", maintain_order="left")
        )
        quoted = pl.concat_str([pl.lit("'"), pl.col("relstring").fill_null(""), pl.lit("'")])
        text = pl.when(pl.col("is_relstring")).then(quoted).otherwise(_value_texts(grid))
        line = pl.concat_str(
            [pl.col("printed").str.pad_end(22), pl.col("query_id"), text], separator="\t"
        )
        yield str(grid.select(line.str.join("\n")).item()) + "\n"


def _cell_values(queries: list[str], table: pl.DataFrame, values: pl.DataFrame) -> pl.Series:
    """Return the value of each (query, table row), query by query; 0 where none is.

    A cell is found by numbers (the query's place times the rows, plus the row's) rather
    than by a join of the grid on two strings; a null value counts as none. A query has
    one value per metric (the evaluation's per-query table, one row each).
    """
    rows = table.height
    places = pl.DataFrame({"query_id": queries}).with_row_index("_query")
    cells = (
        values.lazy()
        .join(places.lazy(), on="query_id")
        .join(table.lazy().select("metric").with_row_index("_row"), on="metric")
        .select(
            (pl.col("_query").cast(pl.Int64) * rows + pl.col("_row")).alias("cell"),
            pl.col("value").fill_null(0.0),
        )
        .collect()
    )
    found = pl.zeros(len(queries) * rows, dtype=pl.Float64, eager=True).alias("value")
    return found.scatter(cells["cell"], cells["value"].cast(pl.Float64))


def _value_texts(grid: pl.DataFrame) -> pl.Series:
    """Return :func:`_value_text` of each ``value`` (null as 0) of ``kind``, vectorized.

    A value prints from its double times 10,000, rounded, when that product is at least
    1e-6 away from a half: below 1e5 it is exact to 1e-7, so its nearest integer is the
    one printf rounds the exact decimal value to. The few others (near a half, 1e5 or
    more, not finite) go through :func:`_value_text`, as every count that is not finite.
    As before, a -0.0 (and a null) prints as 0.
    """
    value = pl.col("value").fill_null(0.0) + 0.0  # -0.0 + 0.0 is 0.0
    count = pl.col("kind") == "long"
    scaled = value.abs() * 10_000.0
    plain = value.is_finite() & pl.when(count).then(value.abs() < 2.0**53).otherwise(
        (value.abs() < 1e5) & ((scaled - scaled.floor() - 0.5).abs() >= 1e-6)
    )
    units = pl.when(plain).then(scaled.round()).otherwise(0.0).cast(pl.Int64)
    fixed = pl.concat_str(
        [
            pl.when(value < 0).then(pl.lit("-")).otherwise(pl.lit("")),
            (units // 10_000).cast(pl.String),
            pl.lit("."),
            # 10000 + the 4 decimals, its leading 1 cut: the decimals zero-padded
            (units % 10_000 + 10_000).cast(pl.String).str.slice(1),
        ]
    )
    whole = pl.when(plain).then(value).otherwise(0.0).cast(pl.Int64)  # truncated, as (long)
    texts, plains = grid.select(
        pl.when(count).then(whole.cast(pl.String)).otherwise(fixed).alias("text"),
        plain.alias("plain"),
    )
    others = (~plains).arg_true()
    if others.len():
        pairs = grid.select("value", "kind")[others].fill_null(0.0).rows()
        texts = texts.scatter(others, [_value_text(v + 0.0, k) for v, k in pairs])
    return texts


def summary_lines(
    measure: Measure,
    columns: list[Column],
    tag: str,
    n_queries: int,
    means: dict[str, float],
    labels: pl.DataFrame,
    options: Options,
) -> list[str]:
    if measure.kind == "runid":
        return [f"{'runid':<22}\tall\t{tag}\n"]
    if measure.kind == "num_q":
        if options.zscores is not None:  # -Z prints every count as a z score
            return [f"Z{'num_q':<22}\tall\t{float(n_queries):6.4f}\n"]
        return [f"{'num_q':<22}\tall\t{n_queries}\n"]
    if measure.kind == "relstring":
        return []
    lines = []
    for column in columns:
        value = means.get(str(column.metric), 0.0)
        if measure.name == "num_rel" and options.complete:
            # 10.0 counts every positive label of the qrels here, whatever -l is
            value = float(labels.filter(pl.col("grade") > 0).height)
        lines.append(_line(column.printed, "all", value, column.kind))
    return lines


def _line(name: str, query: str, value: float, kind: str) -> str:
    return f"{name:<22}\t{query}\t{_value_text(value, kind)}\n"


def _value_text(value: float, kind: str) -> str:
    """Return a value as trec_eval prints it: ``%ld`` for counts, else ``%6.4f``."""
    if kind == "long":
        return str(int(value))
    if math.isnan(value):
        return f"{'-nan':>6}"  # glibc's printf of 0.0 / 0.0
    return f"{value:6.4f}"


NO_RELSTRINGS = pl.DataFrame(schema={"query_id": pl.String, "relstring": pl.String})
