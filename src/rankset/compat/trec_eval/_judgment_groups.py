"""trec_eval's judgment groups (``-R qrels_jg``): ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``.

A ``qrels_jg`` file is a qrels file whose second field names a judgment group: several
independent sets of judgements of one query (say, one per assessor). Each measure is
rankset's own (``ap``, ``precision@k``, ``rprec_mult``) computed on every (query, group)
as if the group were a query, the run ranked once for all of them (score descending,
ties by doc id descending, ``-M``); ``-J`` keeps, per group, the documents that group
judged. A query's value is the sum over its groups, divided by their number when there
are several (trec_eval's ``form_res_rels_jg.c`` and ``m_*_avgjg.c``): one evaluation over
(query, group) keys, then one group-by per query.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from rankset.compat.trec_eval._options import (
    JG_PREFIX,
    Column,
    Measure,
    Options,
    TrecEvalError,
    atol,
    read_label_fields,
)

__all__ = ["judgment_group_values", "read_qrels_jg"]

#: Joins a query and a group into one evaluation key (only joined, never split).
_JOIN = " ⟨judgment group⟩ "


def read_qrels_jg(path: str, version: str) -> pl.DataFrame:
    """Read a ``qrels_jg`` file: ``query group doc grade`` lines, as trec_eval's reader.

    Exactly 4 fields per line (a blank line is malformed); 10.0 skips a line starting with
    ``#`` (one in a row), 9.0.8 reads it as data; the grade is C's ``atol``; a (query,
    group, doc) given twice stops the reading. Errors carry trec_eval's text and status 2.
    """
    fields = read_label_fields(path, reader="get_qrels_jg", what="qrels", width=4, version=version)
    rows = [
        (*(field.decode("utf-8", "replace") for field in line[:3]), atol(line[3].decode()))
        for line in fields
    ]
    frame = pl.DataFrame(
        rows,
        schema={"query_id": pl.String, "jg": pl.String, "doc_id": pl.String, "grade": pl.Int64},
        orient="row",
    )
    twice = frame.filter(pl.struct("query_id", "jg", "doc_id").is_duplicated())
    if twice.height:
        doc = twice.sort("query_id", "jg", "doc_id")["doc_id"][0]
        msg = f"trec_eval.get_qrels: duplicate docs {doc}\ntrec_eval: Quit in file '{path}'"
        raise TrecEvalError(msg, 2)
    return frame.with_columns(pl.col("grade").cast(pl.Float64))


def judgment_group_values(
    groups: pl.DataFrame,
    cut: pl.DataFrame,
    planned: Sequence[tuple[Measure, Sequence[Column]]],
    options: Options,
    scored: Sequence[str],
) -> pl.DataFrame:
    """Return ``query_id, metric, value`` of the judgment-group columns of ``planned``.

    ``groups`` is :func:`read_qrels_jg`'s frame, ``cut`` the ranking after ``-M`` (and
    before ``-J``, which applies per group), ``scored`` the queries trec_eval evaluates.
    """
    from rankset.evaluation import evaluate

    metrics = sorted(
        {
            column.metric
            for _, columns in planned
            for column in columns
            if column.metric and column.metric.startswith(JG_PREFIX)
        }
    )
    empty = pl.DataFrame(schema={"query_id": pl.String, "metric": pl.String, "value": pl.Float64})
    if not metrics or not scored:
        return empty
    wanted = groups.filter(pl.col("query_id").is_in(list(scored)))
    key = pl.concat_str("query_id", pl.lit(_JOIN), "jg").alias("query_id")
    pairs = wanted.select("query_id", "jg").unique().with_columns(_key=key)
    labels = wanted.with_columns(key).select("query_id", "doc_id", "grade")
    run = cut.join(pairs, on="query_id").select(pl.col("_key").alias("query_id"), "doc_id", "score")
    inner = [metric.removeprefix(JG_PREFIX) for metric in metrics]
    parts = [empty]
    if run.height:
        result = evaluate(
            run,
            labels,
            inner,
            relevance_level=options.level,
            judged_only=options.judged_only,
            score_precision="float32" if options.version == "9.0.8" else "float64",
            missing="zero",
            confidence=None,
        )
        parts.append(result.per_query.select("query_id", "metric", "value"))
    per_group = (
        pairs.join(pl.DataFrame({"metric": inner}), how="cross")
        .join(pl.concat(parts).rename({"query_id": "_key"}), on=["_key", "metric"], how="left")
        .with_columns(pl.col("value").fill_null(0.0))
        .sort("query_id", "jg", "metric")
    )
    return (
        per_group.group_by("query_id", "metric", maintain_order=True)
        .agg(total=pl.col("value").cum_sum().last(), groups=pl.len())
        .select(
            "query_id",
            (pl.lit(JG_PREFIX) + pl.col("metric")).alias("metric"),
            pl.when(pl.col("groups") > 1)
            .then(pl.col("total") / pl.col("groups").cast(pl.Float64))
            .otherwise(pl.col("total"))
            .alias("value"),
        )
    )
