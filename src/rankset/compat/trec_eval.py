r"""``rankset trec_eval``: trec_eval 10.0's command line and output, byte for byte.

The options, measure names, ``.params`` syntax, output lines, exit codes and error text
of trec_eval 10.0 (``trec_eval.c``, ``meas_print_*.c``), over one rankset evaluation:

* ``-q`` per-query lines, ``-n`` no summary, ``-c`` average over every labelled query
  (10.0 prints the added queries' lines too), ``-l N`` relevance level, ``-M N`` only the
  top N of each ranking, ``-J`` judged documents only, ``-N N`` collection size (utility),
  ``-m name[.params]`` (several; ``official``, ``all_trec`` and ``set`` name groups);
* lines ``%-22s\\t%s\\t%6.4f`` (counts ``%ld``; ``runid`` is the last line's tag), measures
  in trec_eval's table order, queries in byte order of their ids;
* a labelled query without results stops 10.0 with status 4 unless ``-c`` (10.0's
  behaviour; 9.0.8 skipped it); unreadable files exit 2, bad options 1, duplicates 4.

Measures of trec_eval's table rankset does not compute yet (``G``, ``ndcg_rel``,
``Rndcg``, ``ideal_dcg``, gain maps, the preference and ``qrels_jg`` families) are named
on stderr and left out of the output, never guessed.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import polars as pl

from rankset.compat._trec_eval_options import (
    MEASURE_TABLE,
    Column,
    Measure,
    Options,
    TrecEvalError,
    parse_command_line,
    plan_columns,
)
from rankset.errors import RanksetError

__all__ = ["MEASURE_TABLE", "TrecEvalError", "evaluate", "main"]


def _last_run_tag(path: str) -> str:
    """Return the tag (sixth field) of the run file's last content line, as trec_eval keeps it."""
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        end = handle.tell()
        block = b""
        position = end
        while position > 0:
            step = min(65536, position)
            position -= step
            handle.seek(position)
            block = handle.read(step) + block
            lines = [
                line
                for line in block.replace(b"\r", b"\n").split(b"\n")
                if line.strip() and not line.lstrip().startswith(b"#")
            ]
            if len(lines) > 1 or (lines and position == 0):
                fields = lines[-1].split()
                return fields[5].decode("utf-8", "replace") if len(fields) > 5 else ""
    return ""


def _read_inputs(options: Options) -> tuple[pl.DataFrame, pl.DataFrame]:
    from rankset.io import scan_labels, scan_run

    for path, what in ((options.qrels, "qrels"), (options.run, "results")):
        if not Path(path).is_file():
            reader = "get_qrels" if what == "qrels" else "get_results"
            msg = (
                f"trec_eval.{reader}: Cannot read {what} file '{path}'\n"
                f"trec_eval: Quit in file '{path}'"
            )
            raise TrecEvalError(msg, 2)
    try:
        labels = scan_labels(options.qrels).collect()
    except RanksetError as error:
        raise TrecEvalError(f"{error}\ntrec_eval: Quit in file '{options.qrels}'", 2) from None
    try:
        run = scan_run(options.run).collect()
    except RanksetError as error:
        raise TrecEvalError(f"{error}\ntrec_eval: Quit in file '{options.run}'", 2) from None
    return labels, run


def _prepare_run(run: pl.DataFrame, labels: pl.DataFrame, options: Options) -> pl.DataFrame:
    """Apply -M (top N in trec_eval's order) then -J (judged documents only)."""
    run = run.select("query_id", "doc_id", "score").with_columns(system=pl.lit("run"))
    if options.max_depth is not None:
        run = (
            run.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
            .group_by("query_id", maintain_order=True)
            .head(max(options.max_depth, 0))
        )
    if options.judged_only:
        judged = labels.filter(pl.col("grade") >= 0).select("query_id", "doc_id")
        run = run.join(judged, on=["query_id", "doc_id"], how="semi")
    return run


def _relstrings(
    run: pl.DataFrame, labels: pl.DataFrame, length: int
) -> dict[str, str]:  # pragma: no cover - exercised through the parity tests
    ranked = (
        run.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        .group_by("query_id", maintain_order=True)
        .head(length)
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
    joined = ranked.with_columns(char=char).group_by("query_id", maintain_order=True)
    return dict(joined.agg(pl.col("char").str.join("")).iter_rows())


def evaluate(options: Options, out: TextIO) -> list[str]:
    """Print trec_eval's output for ``options`` to ``out``; return the warnings."""
    from rankset.evaluation import evaluate as evaluate_runs

    planned, unsupported = plan_columns(options)
    warnings = [
        f"rankset trec_eval: {name} is not computed by rankset yet; its lines are left out"
        for name in unsupported
    ]
    labels, run = _read_inputs(options)
    answered = set(run["query_id"].unique().to_list())  # trec_eval's queries: before -M/-J
    run = _prepare_run(run, labels, options)
    duplicated = run.filter(pl.struct("query_id", "doc_id").is_duplicated())
    if duplicated.height:
        doc = duplicated["doc_id"][0]
        raise TrecEvalError(f"trec_eval.form_res_qrels: duplicate docs {doc}", 4)
    label_queries = sorted(labels["query_id"].unique().to_list(), key=_c_order)
    run_queries = answered
    # a ranking -J empties is still an answered query (of 0 documents), as in trec_eval
    kept = set(run["query_id"].unique().to_list())
    emptied = (answered - kept) & set(label_queries)
    if not label_queries:
        raise TrecEvalError("trec_eval: No queries with both results and relevance info", 7)
    missing = [query for query in label_queries if query not in run_queries]
    stop_at = None if options.complete or not missing else missing[0]
    metrics = sorted(
        {column.metric for _, columns in planned for column in columns if column.metric}
    )
    values: dict[tuple[str, str], float] = {}
    means: dict[str, float] = {}
    if metrics and run_queries & set(label_queries):
        result = evaluate_runs(
            run,
            labels,
            metrics,
            relevance_level=options.level,
            missing="zero" if options.complete or emptied else "skip",
            confidence=None,
        )
        for _, query, metric, value in result.per_query.select(
            "system", "query_id", "metric", "value"
        ).iter_rows():
            values[metric, query] = value
    scored = label_queries if options.complete else [q for q in label_queries if q in run_queries]
    canonical = _canonical_names(metrics)
    if options.judged_only:  # 10.0 divides 0 by 0 for each ranking left empty under -J
        _empty_ranking_nans(values, set(scored) - kept, labels, options.level)
    _bogus_utility(values, planned, set(scored) - answered, canonical, labels, options)
    means = _means(values, scored, canonical)
    relstrings = (
        _relstrings(run, labels, _relstring_length(options))
        if any(m.kind == "relstring" for m, _ in planned)
        else {}
    )
    lines: list[str] = []
    if options.per_query:
        for query in label_queries:
            if query == stop_at:
                break
            if query not in run_queries and not options.complete:
                continue
            for measure, columns in planned:
                lines += _query_lines(
                    measure, columns, query, values, canonical, relstrings, query in run_queries
                )
    if stop_at is not None:
        out.write("".join(lines))
        raise TrecEvalError(f"trec_eval: result qid '{stop_at}' not found in qrels", 4)
    if options.summary:
        tag = _last_run_tag(options.run)
        for measure, columns in planned:
            lines += _summary_lines(
                measure, columns, tag, scored, values, means, canonical, labels, options
            )
    out.write("".join(lines))
    return warnings


def _bogus_utility(
    values: dict[tuple[str, str], float],
    planned: list[tuple[Measure, list[Column]]],
    added: set[str],
    canonical: dict[str, str],
    labels: pl.DataFrame,
    options: Options,
) -> None:
    """Set utility and rbp_resid of the queries -c added, as 10.0 computes them.

    10.0 scores such a query on a stand-in ranking of one unlabelled document, then
    zeroes the value named exactly "utility"; with parameters the stand-in counts (one
    non-relevant document retrieved) unless -J removed it.
    """
    from rankset.measures import parse_metric

    if not added:
        return
    for measure, columns_of in planned:
        column = columns_of[0]
        if measure.name == "rbp_resid" and column.printed != "rbp_resid" and column.metric:
            # 10.0 zeroes only the exact name; one unjudged document gives p + (1 - p)
            p = float(parse_metric(column.metric).get("p"))  # type: ignore[arg-type]
            for query in added:
                value = 0.0 if options.judged_only else p + (1 - p) * 1.0
                values[canonical[column.metric], query] = value
    columns = [c for m, cs in planned if m.name == "utility" for c in cs if c.metric]
    if not columns:
        return
    relevant = dict(
        labels.group_by("query_id").agg((pl.col("grade") >= options.level).sum()).iter_rows()
    )
    for column in columns:
        assert column.metric is not None
        metric = parse_metric(column.metric)
        names = ("a", "b", "c", "d", "n_docs")
        a, b, c, d, n_docs = (float(metric.get(name)) for name in names)  # type: ignore[arg-type]
        retrieved = 0.0 if options.judged_only else 1.0
        for query in added:
            if column.printed == "utility":
                value = 0.0
            else:
                rel = float(relevant.get(query, 0))
                value = a * 0.0 + b * (retrieved - 0.0) + c * (rel - 0.0)
                value += d * (n_docs + 0.0 - retrieved - rel)
            values[canonical[column.metric], query] = value


def _empty_ranking_nans(
    values: dict[tuple[str, str], float], emptied: set[str], labels: pl.DataFrame, level: int
) -> None:
    """trec_eval's 0/0 for an empty ranking under -J: interpolated precision at cutoff 0."""
    if not emptied:
        return
    relevant = dict(
        labels.filter(pl.col("query_id").is_in(list(emptied)))
        .group_by("query_id")
        .agg((pl.col("grade") >= level).sum())
        .iter_rows()
    )
    for metric, query in list(values):
        if query not in emptied:
            continue
        if metric == "iprec_avg":
            values[metric, query] = math.nan
        elif metric.startswith("iprec_at_recall"):
            recall = float(metric.partition("recall=")[2].rstrip(")") or 0.0)
            cutoff = math.floor(recall * relevant.get(query, 0) + 0.5)
            if cutoff == 0:
                values[metric, query] = math.nan


def _means(
    values: dict[tuple[str, str], float], scored: list[str], canonical: dict[str, str]
) -> dict[str, float]:
    """trec_eval's averages: values added in query order, then divided (or exp'd)."""
    from rankset.measures import geometric_metrics

    geometric = set(geometric_metrics(list(canonical.values())))
    means = {}
    for metric in set(canonical.values()):
        total = 0.0
        for query in scored:
            total += values.get((metric, query), 0.0)
        mean = total / len(scored) if scored else 0.0
        means[metric] = math.exp(mean) if metric in geometric else mean
    return means


def _c_order(text: str) -> bytes:
    return text.encode("utf-8")


def _canonical_names(metrics: list[str]) -> dict[str, str]:
    from rankset.measures import parse_metric

    return {name: parse_metric(name).name for name in metrics}


def _relstring_length(options: Options) -> int:
    params = (options.measures or {}).get("relstring", "")
    return int(float(params)) if params else 10


def _value(values: dict[tuple[str, str], float], metric: str, query: str) -> float:
    return values.get((metric, query), 0.0)


def _query_lines(
    measure: Measure,
    columns: list[Column],
    query: str,
    values: dict[tuple[str, str], float],
    canonical: dict[str, str],
    relstrings: dict[str, str],
    answered: bool,
) -> list[str]:
    if measure.kind in ("runid", "num_q", "geometric"):
        return []
    if measure.kind == "relstring":
        return [f"{columns[0].printed:<22}\t{query}\t'{relstrings.get(query, '')}'\n"]
    lines = []
    for column in columns:
        assert column.metric is not None
        value = _value(values, canonical[column.metric], query)
        lines.append(_line(column.printed, query, value, column.kind))
    return lines


def _summary_lines(
    measure: Measure,
    columns: list[Column],
    tag: str,
    scored: list[str],
    values: dict[tuple[str, str], float],
    means: dict[str, float],
    canonical: dict[str, str],
    labels: pl.DataFrame,
    options: Options,
) -> list[str]:
    if measure.kind == "runid":
        return [f"{'runid':<22}\tall\t{tag}\n"]
    if measure.kind == "num_q":
        return [f"{'num_q':<22}\tall\t{len(scored)}\n"]
    if measure.kind == "relstring":
        return []
    lines = []
    for column in columns:
        assert column.metric is not None
        metric = canonical[column.metric]
        if column.kind == "long":
            if measure.name == "num_rel" and options.complete:
                total = float(labels.filter(pl.col("grade") > 0).height)
            else:
                total = sum(_value(values, metric, query) for query in scored)
            lines.append(_line(column.printed, "all", total, "long"))
        else:
            lines.append(_line(column.printed, "all", means.get(metric, 0.0), "double"))
    return lines


def _line(name: str, query: str, value: float, kind: str) -> str:
    if kind == "long":
        return f"{name:<22}\t{query}\t{int(value)}\n"
    if math.isnan(value):
        return f"{name:<22}\t{query}\t{'-nan':>6}\n"  # glibc's printf of 0.0 / 0.0
    return f"{name:<22}\t{query}\t{value:6.4f}\n"


def main(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``trec_eval`` with ``argv`` (its arguments); return its exit status.

    Examples
    --------
    The same two lines as trec_eval 10.0 prints on these files:

    >>> import io
    >>> buffer = io.StringIO()
    >>> main(["-m", "map", "-m", "P.1", "data/sample/qrels.txt", "data/sample/bm25.trec"],
    ...      out=buffer)
    0
    >>> print(buffer.getvalue(), end="")  # doctest: +NORMALIZE_WHITESPACE
    map                   	all	0.2957
    P_1                   	all	0.7500
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        options = parse_command_line(argv)
        for warning in evaluate(options, out):
            err.write(warning + "\n")
    except TrecEvalError as error:
        out.flush()
        err.write(f"{error}\n")
        return error.status
    except (RanksetError, pl.exceptions.PolarsError, OSError) as error:
        err.write(f"trec_eval: {error}\n")
        return 2
    return 0
