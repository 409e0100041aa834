"""trec_eval's -Z: per-query values as z scores against a file of means and deviations."""

from __future__ import annotations

import polars as pl

from rankset.compat._trec_eval_options import (
    Column,
    Measure,
    TrecEvalError,
    atof,
    read_file_bytes,
)

__all__ = ["MISSING_ZSCORE", "as_z_columns", "as_zscores", "read_zscores"]


#: What -Z prints for a value whose query or measure its file lacks.
MISSING_ZSCORE = -1000000.0


def read_zscores(path: str) -> pl.DataFrame:
    """Read a -Z file: ``query measure mean stddev`` lines, as trec_eval's get_zscores.

    Every line needs the four fields (a fifth, or a blank line, is malformed); the mean
    and the standard deviation are read as C's ``atof`` reads them (0 where no number
    starts the field).
    """
    data = read_file_bytes(path)
    if not data:
        msg = f"trec_eval.get_zscores: Cannot read zscores file '{path}'"
        raise TrecEvalError(msg, 255)
    rows = []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        fields = line.split()
        if len(fields) != 4:
            raise TrecEvalError(f"trec_eval.get_zscores: Malformed line {number}", 255)
        rows.append((fields[0], fields[1], atof(fields[2]), atof(fields[3])))
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
