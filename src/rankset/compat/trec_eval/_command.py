"""The drop-in's command: options in, trec_eval's lines out (the package doc says how)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator, Sequence
from typing import Literal, TextIO

import polars as pl

from rankset.compat.trec_eval._inputs import check_label_format, read_inputs
from rankset.compat.trec_eval._judgment_groups import judgment_group_values
from rankset.compat.trec_eval._options import (
    MEASURE_TABLE,
    PREFS,
    PREFS_PREFIX,
    Column,
    Measure,
    Options,
    TrecEvalError,
    parse_command_line,
    plan_columns,
)
from rankset.compat.trec_eval._output import (
    NO_RELSTRINGS,
    OTHER_FORMATS,
    means,
    per_query_texts,
    ranked_head,
    relstring_length,
    relstrings,
    summary_lines,
)
from rankset.compat.trec_eval._results import finite_order
from rankset.compat.trec_eval._zscores import as_z_columns, as_zscores, read_zscores
from rankset.errors import RanksetError, SchemaError

__all__ = [
    "MEASURE_TABLE",
    "STAND_IN_DOCUMENT",
    "TrecEvalError",
    "evaluate",
    "main",
    "prepare_run",
    "query_values",
]

#: The document of trec_eval.c's stand-in ranking for a query -c adds.
STAND_IN_DOCUMENT = "ceci_nest_pas_un_docno"


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


def prepare_run(run: pl.DataFrame, labels: pl.DataFrame, options: Options) -> pl.DataFrame:
    """Apply -M (top N in trec_eval's order) then -J (judged documents only)."""
    run = run.select("query_id", "doc_id", "score").with_columns(system=pl.lit("run"))
    if options.max_depth is not None:
        # -M 0 keeps a document per query, as Polars' head(0) of a group did before
        run = ranked_head(run, max(options.max_depth, 1))
    if options.judged_only:
        judged = labels.filter(pl.col("grade") >= 0).select("query_id", "doc_id")
        run = run.join(judged, on=["query_id", "doc_id"], how="semi")
    return run


def evaluate(options: Options, out: TextIO) -> list[str]:
    """Print trec_eval's output for ``options`` to ``out``; return the warnings."""
    planned, unsupported = plan_columns(options)
    _refuse_debug_traces(planned, options)
    warnings = [
        f"rankset trec_eval: {name} is not computed by rankset yet; its lines are left out"
        for name in unsupported
    ]
    labels, run, groups, preferences = read_inputs(options)
    # read after the qrels and the run, before anything is computed, as trec_eval does
    zscores = (
        read_zscores(options.zscores, options.version) if options.zscores is not None else None
    )
    check_label_format(planned, options)
    planned, reordered = _without_reordered_gains(planned, labels)
    warnings += [
        f"rankset trec_eval: {name} is left out: trec_eval sorts gains by (int) (a - b), "
        "so gains less than 1 apart keep an arbitrary order in its ideal ranking"
        for name in reordered
    ]
    v9 = options.version == "9.0.8"
    if v9:  # 9.0.8 keeps scores as floats: values that differ beyond them tie
        run = run.with_columns(pl.col("score").cast(pl.Float32).cast(pl.Float64))
    run = finite_order(run)  # ±inf (or a double past 9.0.8's float) ranked, as trec_eval does
    # byte order of the ids, as trec_eval's strcmp (and Polars' string sort)
    label_queries = labels["query_id"].unique().sort().to_list()
    answered = set(run["query_id"].unique().to_list())
    # -D N.QID evaluates that query alone (the averages of -c still count every query)
    walk = [q for q in label_queries if options.debug_query in (None, q)]
    missing = [query for query in walk if query not in answered]
    if v9:
        # 9.0.8 walks the run's queries and skips those without labels; -c only changes
        # the averages (over every labelled query, the missing ones adding 0).
        stop_at, added = None, []
        scored = [q for q in walk if q in answered]
    else:
        # 10.0 walks the labelled queries: one without results stops it unless -c, which
        # gives it a stand-in ranking.
        stop_at = missing[0] if missing and not options.complete else None
        added = missing if options.complete else []
        scored = walk if options.complete else [q for q in walk if q in answered]
    if not (scored if v9 else walk):
        raise TrecEvalError("trec_eval: No queries with both results and relevance info", 7)
    n_queries = len(label_queries) if options.complete else len(scored)
    first = (scored if v9 else walk)[0]
    if first != stop_at:
        _refuse_unlevelled_first_query(planned, labels, first, options)
    run = _with_stand_ins(run, added)
    cut = prepare_run(run, labels, options)  # the ranking -M and -J leave, made once
    strings = NO_RELSTRINGS  # made now, so that the run is let go before the lines are
    if options.per_query and any(m.kind == "relstring" for m, _ in planned):
        strings = relstrings(cut, labels, relstring_length(options), set(added))
    measured, empty = _measured(labels, cut, planned, options, scored)
    jg: pl.DataFrame | None = None
    found: pl.DataFrame | None = None
    if groups is not None:
        jg = judgment_group_values(groups, cut, planned, options, scored)
    if preferences is not None:  # their own ranking: ties by doc id ascending, -M
        evaluated = walk[: walk.index(stop_at)] if stop_at else scored
        try:
            found = _preference_columns(preferences, run, planned, options, evaluated)
        except TrecEvalError:
            # trec_eval prints a query's lines once it is scored: those before the one
            # that fails come out before the error
            done, found = _before_failure(preferences, run, planned, options, evaluated)
            if options.per_query and done:
                out.writelines(per_query_texts(done, planned, found, NO_RELSTRINGS))
            raise
    del run, cut  # 7 million rows of an MS MARCO run: not held while the lines are made
    values = _as_trec_eval_prints(measured, planned, set(added), empty, labels, options)
    del measured
    if jg is not None:
        values = pl.concat([values, jg]).sort("query_id", maintain_order=True)
    if found is not None:
        values = pl.concat([values, found])
    if zscores is not None:
        values = as_zscores(values, planned, zscores)
    summaries = means(values, planned, n_queries)
    if zscores is not None:
        planned = as_z_columns(planned)
    if options.per_query:
        # 10.0 goes through the labelled queries in order and stops at the first unanswered
        printed = walk[: walk.index(stop_at)] if stop_at else scored
        out.writelines(per_query_texts(printed, planned, values, strings))
    if stop_at is not None:
        raise TrecEvalError(f"trec_eval: result qid '{stop_at}' not found in qrels", 4)
    if options.summary:
        tag = _last_run_tag(options.run)
        lines: list[str] = []
        for measure, columns in planned:
            lines += summary_lines(measure, columns, tag, n_queries, summaries, labels, options)
        out.write("".join(lines))
    return warnings


def _without_reordered_gains(
    planned: list[tuple[Measure, list[Column]]], labels: pl.DataFrame
) -> tuple[list[tuple[Measure, list[Column]]], list[str]]:
    """Drop the gain-map measures whose ideal ranking trec_eval would not sort by gain.

    trec_eval's ``comp_rel_gain`` compares two gains as ``(int) (a - b)``: gains that
    differ by less than 1 compare equal, and its ideal ranking keeps them in table order.
    rankset sorts by gain; rather than print a different number, such measures are left
    out (and named). Gains all equal or at least 1 apart sort the same either way.
    """
    from rankset.measures import parse_metric
    from rankset.measures._shared import gain_map

    top = labels["grade"].max()
    levels = range(int(top) + 1) if isinstance(top, int | float) and top >= 0 else range(0)
    kept, dropped = [], []
    for measure, columns in planned:
        metric = columns[0].metric if columns else None
        gains = gain_map(parse_metric(metric)) if metric and "gains=" in metric else None
        if gains is not None:
            mapping = {float(level): float(level) for level in levels} | dict(gains)
            values = sorted(set(mapping.values()))
            if any(0 < b - a < 1 for a, b in itertools.pairwise(values)):
                dropped.append(columns[0].printed)
                continue
        kept.append((measure, columns))
    return kept, dropped


def query_values(
    labels: pl.DataFrame,
    cut: pl.DataFrame,
    planned: list[tuple[Measure, list[Column]]],
    options: Options,
    scored: list[str],
    added: set[str],
) -> pl.DataFrame:
    """Return ``query_id, metric, value`` of the ``scored`` queries, as trec_eval has them.

    ``cut`` is the ranking -M and -J leave (:func:`prepare_run`). A scored query it lacks
    (-J removed every document, or an empty ranking was passed in Python) is scored as
    an empty ranking, as trec_eval scores it: a stand-in document that ``judged_only``
    removes. ``added`` are the queries 10.0's -c gave a stand-in ranking.
    """
    values, empty = _measured(labels, cut, planned, options, scored)
    return _as_trec_eval_prints(values, planned, added, empty, labels, options)


def _measured(
    labels: pl.DataFrame,
    cut: pl.DataFrame,
    planned: list[tuple[Measure, list[Column]]],
    options: Options,
    scored: list[str],
) -> tuple[pl.DataFrame, set[str]]:
    """Return rankset's values of the ``scored`` queries, and those ``cut`` ranks nothing for.

    The values are not yet trec_eval's prints (:func:`_as_trec_eval_prints`), so that
    the caller can let the run go first.
    """
    from rankset.evaluation import evaluate as evaluate_runs

    present = set(cut["query_id"].unique().to_list())
    ranked = [query for query in scored if query in present]
    empty = [query for query in scored if query not in present]
    metrics = sorted(
        {
            column.metric
            for _, columns in planned
            for column in columns
            if column.metric and not column.metric.startswith(OTHER_FORMATS)
        }
    )
    # A run of several shares takes the streaming engine, which "auto" gives runs of more
    # than a million rows: on shares of 500,000 rows of an MS MARCO run it took about
    # 1.5 s of CPU in all, the in-memory engine about 2.3 s.
    engine: Literal["streaming", "auto"] = "streaming" if cut.height > _PART_ROWS else "auto"
    jobs: Iterator[tuple[pl.DataFrame, list[str], bool]] = (
        (frame, queries, False) for frame, queries in _shares(cut, ranked, labels.height)
    )
    if empty:
        jobs = itertools.chain(jobs, [(_with_stand_ins(cut.clear(), empty), empty, True)])
    parts = [pl.DataFrame(schema=_VALUES)]
    for frame, queries, judged_only in jobs if metrics else []:
        try:
            result = evaluate_runs(
                frame.select("query_id", "doc_id", "score"),
                labels.filter(pl.col("query_id").is_in(queries)),
                metrics,
                relevance_level=options.level,
                judged_only=judged_only,
                score_precision="float32" if options.version == "9.0.8" else "float64",
                confidence=None,
                engine=engine if not judged_only else "auto",
            )
        except SchemaError:
            # the evaluation found them; say it as trec_eval does, of the whole run
            _refuse_duplicates(cut if not judged_only else frame)
            raise
        del frame  # a share filtered out of the run is a copy: one at a time
        parts.append(result.per_query.select("query_id", "metric", "value"))
    return pl.concat(parts), set(empty)


_VALUES = {"query_id": pl.String, "metric": pl.String, "value": pl.Float64}
#: About how many run rows one evaluation call of :func:`query_values` measures.
_PART_ROWS = 500_000
#: About how many labels one evaluation call measures at most (a share holds fewer
#: queries where the labels are many beside the run's rows, as -J leaves them).
_PART_LABELS = 50_000


def _shares(
    cut: pl.DataFrame, ranked: list[str], label_rows: int = 0
) -> Iterator[tuple[pl.DataFrame, list[str]]]:
    """Split ``cut`` into shares of about :data:`_PART_ROWS` rows of whole ``ranked`` queries.

    Each query's values do not depend on the others', so a large run is measured a
    share at a time and the pass holds a share's rows. With ``label_rows`` labels, there
    are at least ``label_rows / _PART_LABELS`` shares: measures over the labels (ideal
    rankings, bpref's pairs) held about 2 kB a label with all_trec's 97 measures, 430 MB
    in one call of the 27,000 rows -M 100 -J left of an MS MARCO run. When every query's rows are
    together (as runs are written), a share is a slice of ``cut`` at a query's first
    row, which copies nothing; otherwise (or where a slice holds a query not in
    ``ranked``) the share's rows are filtered out of it.

    Examples
    --------
    >>> cut = pl.DataFrame({"query_id": ["a", "a", "b", "c"], "doc_id": ["1", "2", "1", "1"]})
    >>> [(share.height, queries) for share, queries in _shares(cut, ["a", "b", "c"])]
    [(4, ['a', 'b', 'c'])]
    """
    if not ranked:
        return
    count = max(-(-cut.height // _PART_ROWS), -(-label_rows // _PART_LABELS), 1)
    rows = -(-cut.height // count)  # a share's rows, at most _PART_ROWS
    if count == 1:
        yield cut, ranked
        return
    runs = cut.get_column("query_id").rle().struct.unnest()  # one row per block of a query
    ids = runs["value"].to_list()
    if len(set(ids)) != len(ids):  # a query's rows in two places
        bounds = [share * len(ranked) // count for share in range(count + 1)]
        for start, end in itertools.pairwise(bounds):
            if queries := ranked[start:end]:
                yield cut.filter(pl.col("query_id").is_in(queries)), queries
        return
    offsets = [*itertools.accumulate(runs["len"].to_list(), initial=0)]
    wanted, first = set(ranked), 0
    for index in range(1, len(ids) + 1):
        if offsets[index] - offsets[first] < rows and index < len(ids):
            continue
        queries = [query for query in ids[first:index] if query in wanted]
        share = cut.slice(offsets[first], offsets[index] - offsets[first])
        if len(queries) < index - first:
            share = share.filter(pl.col("query_id").is_in(queries))
        if queries:
            yield share, queries
        del share  # not held while the next share is made
        first = index


def _preference_columns(
    preferences: pl.DataFrame,
    run: pl.DataFrame,
    planned: list[tuple[Measure, list[Column]]],
    options: Options,
    queries: list[str],
) -> pl.DataFrame:
    """Return ``query_id, metric, value`` of the preference measures asked, for ``queries``."""
    asked = [measure.name for measure, _ in planned if measure.kind.startswith("prefs")]
    if not asked or not queries:
        return pl.DataFrame(schema=_VALUES)
    # numpy only for the preference measures
    from rankset.compat.trec_eval._prefs import preference_values

    values = preference_values(
        preferences.filter(pl.col("query_id").is_in(queries)),
        run.select("query_id", "doc_id", "score"),
        asked,
        max_depth=options.max_depth,
    )
    metric = (pl.lit(PREFS_PREFIX) + pl.col("measure")).alias("metric")
    return pl.DataFrame(values.select("query_id", metric, "value"))


def _before_failure(
    preferences: pl.DataFrame,
    run: pl.DataFrame,
    planned: list[tuple[Measure, list[Column]]],
    options: Options,
    queries: list[str],
) -> tuple[list[str], pl.DataFrame]:
    """Return the queries scored before the first that fails, and their values.

    Only on the way to an error: each query is scored alone, in order, until one fails.
    """
    done, parts = [], [pl.DataFrame(schema=_VALUES)]
    for query in queries:
        try:
            parts.append(_preference_columns(preferences, run, planned, options, [query]))
        except TrecEvalError:
            break
        done.append(query)
    return done, pl.concat(parts)


def _with_stand_ins(run: pl.DataFrame, added: list[str]) -> pl.DataFrame:
    """Give each query -c adds trec_eval.c's stand-in ranking: one unlabelled document."""
    if not added:
        return run
    stand_ins = pl.DataFrame(
        {"query_id": added, "doc_id": STAND_IN_DOCUMENT, "score": 1.0},
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
    )
    return pl.concat([run.select("query_id", "doc_id", "score"), stand_ins])


def _as_trec_eval_prints(
    values: pl.DataFrame,
    planned: list[tuple[Measure, list[Column]]],
    added: set[str],
    empty: set[str],
    labels: pl.DataFrame,
    options: Options,
) -> pl.DataFrame:
    """Apply 10.0's corrections to the per-query values, then sort them in query order.

    For a query -c added, 10.0 zeroes num_ret, unj and the values printed exactly as
    ``utility`` and ``rbp_resid`` (its stand-in document leaves the rest as they are).
    An empty ranking (-J can leave one) divides 0 by 0 in interpolated precision at a
    cutoff of 0.
    """
    from rankset.measures import parse_metric

    columns = [
        column
        for _, cs in planned
        for column in cs
        if column.metric and not column.metric.startswith(OTHER_FORMATS)
    ]
    reset = [
        c.metric
        for c in columns
        if c.printed in ("num_ret", "utility", "rbp_resid") or c.printed.startswith("unj")
    ]
    query = pl.col("query_id")
    zeroed = query.is_in(list(added)) & pl.col("metric").is_in(reset)
    undefined = pl.lit(False)
    if empty:  # only -J (or an empty ranking passed in Python) leaves one
        relevant = labels.group_by("query_id").agg(
            _relevant=(pl.col("grade") >= options.level).sum().cast(pl.Float64)
        )
        values = values.join(relevant, on="query_id", how="left")
        for column in columns:
            metric = parse_metric(str(column.metric))
            if metric.measure not in ("iprec_at_recall", "iprec_avg"):
                continue
            recall = float(metric.get("recall") or 0.0) if metric.spec.has_param("recall") else 0.0
            count = pl.col("_relevant").fill_null(0.0)
            if metric.get("rounding") == "v9":
                cutoff = (pl.lit(recall) * count + 0.9).floor()
            else:
                cutoff = (pl.lit(recall) * count).round(0, mode="half_away_from_zero")
            at_zero = (pl.col("metric") == metric.name) & (cutoff == 0)
            undefined = undefined | (query.is_in(list(empty)) & at_zero)
    value = pl.when(zeroed).then(0.0).when(undefined).then(float("nan"))
    return (
        values.with_columns(value=value.otherwise(pl.col("value")))
        .select("query_id", "metric", "value")
        .sort("query_id", maintain_order=True)
    )


#: The measures whose debug traces trec_eval prints at each -D level and above.
_DEBUG_TRACES = {
    1: frozenset({"binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "rbp"}),
    2: frozenset({"gm_bpref"}),
    3: frozenset(PREFS),
}


def _refuse_debug_traces(planned: list[tuple[Measure, list[Column]]], options: Options) -> None:
    """-D N above 0 adds trec_eval's debug lines to some measures: refuse rather than differ."""
    traced = {
        name
        for level, names in _DEBUG_TRACES.items()
        if options.debug_level >= level
        for name in names
    }
    for measure, _ in planned:
        if measure.name in traced:
            msg = (
                f"rankset trec_eval: -D {options.debug_level} makes trec_eval print its debug "
                f"trace of {measure.name}, which rankset does not reproduce (use -D 0)"
            )
            raise TrecEvalError(msg, 1)


def _refuse_unlevelled_first_query(
    planned: list[tuple[Measure, list[Column]]],
    labels: pl.DataFrame,
    query: str,
    options: Options,
) -> None:
    """Stop as trec_eval stops when the first query it scores has no grade of 0 or more.

    ``form_res_rels.c`` keeps one array of counts per grade level across queries and
    sizes it by the query's highest grade plus one; ``te_chk_and_malloc`` returns the
    array it holds for a size of 0 or less, which before any query grew it is NULL: the
    first measure of the qrels format fails (status 4) before a line is printed. Later
    queries reuse the array the first one made, so only the first query can fail.
    """
    if options.rel_format != "qrels":
        return
    top = labels.filter(pl.col("query_id") == query)["grade"].max()
    if not isinstance(top, int | float) or top >= 0:
        return
    for measure, _ in planned:
        if measure.kind not in ("runid", "num_q"):
            raise TrecEvalError(f"trec_eval: Can't calculate measure '{measure.name}'", 4)


def _refuse_duplicates(run: pl.DataFrame) -> None:
    duplicated = run.filter(pl.struct("query_id", "doc_id").is_duplicated())
    if duplicated.height:
        doc = duplicated["doc_id"][0]
        raise TrecEvalError(f"trec_eval.form_res_qrels: duplicate docs {doc}", 4)


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
