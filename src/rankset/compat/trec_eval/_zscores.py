"""trec_eval's -Z: per-query values as z scores against a file of means and deviations."""

from __future__ import annotations

import polars as pl

from rankset.compat.trec_eval._options import (
    Column,
    Measure,
    TrecEvalError,
    atof,
    read_file_bytes,
)

__all__ = ["MISSING_ZSCORE", "as_z_columns", "as_zscores", "read_zscores"]


#: What -Z prints for a value whose query or measure its file lacks.
MISSING_ZSCORE = -1000000.0


def read_zscores(path: str, version: str = "10.0") -> pl.DataFrame:
    """Read a -Z file: ``query measure mean stddev`` lines, as trec_eval's get_zscores.

    Every line needs the four fields (a fifth, or a blank line, is malformed); the mean
    and the standard deviation are read as C's ``atof`` reads them (0 where no number
    starts the field). 9.0.8 names its prefs reader when the file cannot be read.
    """
    data = read_file_bytes(path)
    if not data:
        reader = "get_prefs" if version == "9.0.8" else "get_zscores"
        raise TrecEvalError(f"trec_eval.{reader}: Cannot read zscores file '{path}'", 255)
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    rows = []
    for number, line in enumerate(lines, start=1):
        fields = line.split()  # C's isspace
        if len(fields) != 4:
            raise TrecEvalError(f"trec_eval.get_zscores: Malformed line {number}", 255)
        query, name = (field.decode("utf-8", "replace") for field in fields[:2])
        rows.append((query, name, atof(fields[2]), atof(fields[3])))
    return pl.DataFrame(
        rows, schema=["query_id", "printed", "_mean", "_stddev"], orient="row"
    ).unique(["query_id", "printed"], keep="last")


def as_zscores(
    values: pl.DataFrame, planned: list[tuple[Measure, list[Column]]], zscores: pl.DataFrame
) -> pl.DataFrame:
    """Replace each per-query value by its z score (-Z), before anything is summed.

    ``(value - mean) / stddev``; with a standard deviation of 0, 0 if the value is the
    mean; :data:`MISSING_ZSCORE` where that fails or the file lacks the query or the
    measure (every value of a query the file lacks).
    """
    printed = pl.DataFrame(
        [(c.metric, c.printed) for _, cs in planned for c in cs if c.metric],
        schema={"metric": pl.String, "printed": pl.String},
        orient="row",
    ).unique("metric", keep="first")
    _refuse_lookups_past_the_end(values, printed, zscores)
    known = zscores.select("query_id").unique().with_columns(_known=pl.lit(True))
    joined = (
        values.join(printed, on="metric", how="left", maintain_order="left")
        .join(zscores, on=["query_id", "printed"], how="left", maintain_order="left")
        .join(known, on="query_id", how="left", maintain_order="left")
    )
    value, mean, stddev = pl.col("value"), pl.col("_mean"), pl.col("_stddev")
    z = (
        pl.when(pl.col("_known").is_null() | mean.is_null())
        .then(MISSING_ZSCORE)
        .when(stddev != 0)
        .then((value - mean) / stddev)
        .when(value == mean)
        .then(0.0)
        .otherwise(MISSING_ZSCORE)
    )
    return joined.select("query_id", "metric", z.alias("value"))


def as_z_columns(
    planned: list[tuple[Measure, list[Column]]],
) -> list[tuple[Measure, list[Column]]]:
    """Columns as -Z prints them: ``Z`` before the padded name, every value ``%6.4f``."""
    return [
        (
            measure,
            columns
            if measure.kind in ("runid", "relstring")
            else [Column(f"Z{c.printed:<22}", c.metric, "double") for c in columns],
        )
        for measure, columns in planned
    ]


def _refuse_lookups_past_the_end(
    values: pl.DataFrame, printed: pl.DataFrame, zscores: pl.DataFrame
) -> None:
    """Refuse a lookup trec_eval cannot make: a name after the last one it searches.

    trec_eval's binary searches start one past the end of the table (``end = n``): a query
    id the file lacks that sorts after every query id in it, or a measure a query lacks
    that sorts after the query's last measure, is compared with memory past the table
    (a crash, or another query's line). Other names the file lacks print -1000000.
    """
    wanted = values.join(printed, on="metric", how="left").select("query_id", "printed")
    last_query = zscores["query_id"].sort().to_list()[-1]
    last_names = zscores.group_by("query_id").agg(_last=pl.col("printed").sort().last())
    beyond = (
        wanted.join(last_names, on="query_id", how="left")
        .join(
            zscores.select("query_id", "printed", _present=pl.lit(True)),
            on=["query_id", "printed"],
            how="left",
        )
        .filter(
            pl.col("_present").is_null()
            & (
                (pl.col("_last").is_null() & (pl.col("query_id") > last_query))
                | (pl.col("_last").is_not_null() & (pl.col("printed") > pl.col("_last")))
            )
        )
    )
    if beyond.height:
        query, name = beyond.row(0)[:2]
        msg = (
            f"rankset trec_eval: -Z: no line for query '{query}' and measure '{name}', "
            "which trec_eval's lookup then reads past its table for (undefined: it may "
            "crash); give every query and measure asked a line"
        )
        raise TrecEvalError(msg, 1)
