r"""How ``rankset trec_eval`` prints: per-query lines, summaries, relstrings.

trec_eval's formats (``meas_print_single.c``, ``meas_print_final.c``): ``%-22s\t%s\t%6.4f``
lines, counts as ``%ld``, summaries summed (counts) or averaged in query order.
"""

from __future__ import annotations

import math

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
    "per_query_text",
    "relstring_length",
    "relstrings",
    "summary_lines",
]

#: Metric prefixes of the columns other label formats compute (not rankset metrics).
OTHER_FORMATS = (JG_PREFIX, PREFS_PREFIX)


def relstrings(
    run: pl.DataFrame, labels: pl.DataFrame, length: int, added: set[str]
) -> pl.DataFrame:
    """trec_eval's relstring: a character per top document (grade, '-' unlabelled, ...)."""
    if length <= 0:  # trec_eval prints an empty string (Polars' head(0) keeps a row)
        run = run.clear()
    ranked = (
        run.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        .group_by("query_id", maintain_order=True)
        .head(max(length, 1))
        .join(
            labels.select("query_id", "doc_id", "grade"),
            on=["query_id", "doc_id"],
            how="left",
        )
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
    import numpy as np

    from rankset.measures import geometric_metrics
    from rankset.measures.ranking import MIN_GEO_MEAN

    counts = {c.metric for _, cs in planned for c in cs if c.metric and c.kind == "long"}
    names = values["metric"].unique().to_list()
    geometric = set(geometric_metrics([n for n in names if not n.startswith(OTHER_FORMATS)]))
    summaries: dict[str, float] = {}
    groups = values.select("metric", "value").partition_by(
        "metric", maintain_order=True, as_dict=True
    )
    for (metric,), group in groups.items():
        column = group["value"].to_numpy().astype(np.float64, copy=False)
        # add.accumulate is a plain loop: its last element is the C loop's sum
        total = float(np.add.accumulate(column)[-1]) if column.size else 0.0
        name = str(metric)
        if name in counts:
            summaries[name] = total
        elif name in geometric:
            absent = float(n_queries - column.size)
            total += absent * math.log(MIN_GEO_MEAN)
            summaries[name] = math.exp(total / n_queries) if n_queries else total
        else:
            summaries[name] = total / n_queries if n_queries else total
    return summaries


def relstring_length(options: Options) -> int:
    params = (options.measures or {}).get("relstring", "")
    return int(atof(params)) if params else 10


def per_query_text(
    queries: list[str],
    planned: list[tuple[Measure, list[Column]]],
    values: pl.DataFrame,
    relstrings: pl.DataFrame,
) -> str:
    """Return the -q lines: for each query in order, each printed value in table order."""
    rows = [
        (column.printed, column.metric, measure.kind == "relstring", column.kind)
        for measure, columns in planned
        if measure.kind not in ("runid", "num_q", "geometric")
        for column in columns
    ]
    if not rows or not queries:
        return ""
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
    grid = (
        pl.DataFrame({"query_id": queries}, schema={"query_id": pl.String})
        .join(table, how="cross")
        .join(values, on=["query_id", "metric"], how="left", maintain_order="left")
        .join(relstrings, on="query_id", how="left", maintain_order="left")
    )
    texts = [
        f"'{relstring or ''}'" if is_relstring else _value_text(value or 0.0, kind)
        for is_relstring, value, kind, relstring in grid.select(
            "is_relstring", "value", "kind", "relstring"
        ).iter_rows()
    ]
    lines = grid.select(
        pl.concat_str(
            [pl.col("printed").str.pad_end(22), pl.col("query_id"), pl.Series(texts)],
            separator="\t",
        )
    ).to_series()
    return "\n".join(lines.to_list()) + "\n"


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
