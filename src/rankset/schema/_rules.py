"""The normalisation rules, each stated once, and the steps other packages take them in.

:mod:`rankset.schema` is the face: the canonical run, labels and cutoffs
(:func:`normalize_run`, :func:`normalize_labels`, :func:`normalize_cutoffs`) and the
tie rule (:func:`position_in_ranking`). The evaluation's pass, the fused plan and the
label-quality analyses apply the same rules step by step, on frames they already hold
(the cast, the run profile, the duplicate and row checks, the labels' problem counts):
they import those steps from here, a private module the architecture test allows by
name (``tests/common/test_architecture.py``, ``SHARED_PRIVATE``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import polars as pl

from rankset._typing import DuplicatePolicy, OrderPolicy, ScorePrecision, choices_of
from rankset._validation import check_choice, missing_columns_message
from rankset.errors import ParameterError, SchemaError
from rankset.io._shared import count_problems, id_problems, number_problems

__all__ = [
    "cast_run",
    "check_cutoffs",
    "duplicate_docs",
    "duplicate_labels",
    "label_problem_counts",
    "normalize_cutoffs",
    "normalize_labels",
    "normalize_run",
    "position_in_ranking",
    "raise_on_bad_labels",
    "raise_on_bad_rows",
    "raise_on_duplicate_docs",
    "raise_on_duplicate_labels",
    "repeats_a_pair",
    "run_profile",
    "scores_present",
    "sorted_best_first",
]


_ORDER_POLICIES = choices_of(OrderPolicy)
_DUPLICATE_POLICIES = choices_of(DuplicatePolicy)
_MAX_LISTED = 5

RUN_KEY = ["system", "query_id"]


def _require(frame: pl.LazyFrame, columns: Sequence[str], source: str, what: str) -> set[str]:
    present = set(frame.collect_schema().names())
    missing = [c for c in columns if c not in present]
    if missing:
        msg = missing_columns_message(f"{source}: the {what}", missing, columns, sorted(present))
        raise SchemaError(msg)
    return present


def normalize_run(
    run: pl.LazyFrame,
    *,
    source: str = "run",
    order: OrderPolicy = "auto",
    duplicates: DuplicatePolicy = "error",
    has_scores: bool | None = None,
    score_precision: ScorePrecision = "float64",
) -> pl.LazyFrame:
    """Cast a parsed run to the canonical schema and number each query's ranking.

    Parameters
    ----------
    run
        Columns ``system, query_id, doc_id`` and ``score`` and/or ``rank``.
    source
        Name used in error messages (file path or object kind).
    order
        ``"auto"``: by score when the run has scores, else by rank; ``"score"`` or
        ``"rank"`` force one.
    duplicates
        ``"error"`` (checked by :func:`raise_on_duplicate_docs`), ``"keep_best"``, or
        ``"in_place"``: every copy keeps its position; the best-placed is the document,
        the later ones become ``<doc_id>#copy<n>`` (no label matches them), as chunk-level
        evaluations count a document once but let each chunk of it hold its slot.
    has_scores
        Whether the score column holds values; computed from the data when ``None``.

    Returns
    -------
    polars.LazyFrame
        ``system, query_id, doc_id, pos`` plus the other columns of ``run``.

    Examples
    --------
    >>> run = pl.LazyFrame({"system": "s", "query_id": "q", "doc_id": ["a", "b", "c"],
    ...                     "score": [1.0, 2.0, 1.0]})
    >>> normalize_run(run).sort("pos").collect().select("doc_id", "pos")
    shape: (3, 2)
    ┌────────┬─────┐
    │ doc_id ┆ pos │
    │ ---    ┆ --- │
    │ str    ┆ i64 │
    ╞════════╪═════╡
    │ b      ┆ 1   │
    │ c      ┆ 2   │
    │ a      ┆ 3   │
    └────────┴─────┘
    """
    check_choice("order", order, _ORDER_POLICIES)
    check_choice("duplicates", duplicates, _DUPLICATE_POLICIES)
    run, first = cast_run(
        run, source=source, order=order, has_scores=has_scores, score_precision=score_precision
    )
    if duplicates == "in_place":
        run = run.sort(
            ["system", "query_id", first, "doc_id"], descending=[False, False, True, True]
        )
        copy = pl.int_range(pl.len()).over(["system", "query_id", "doc_id"])
        run = run.with_columns(
            doc_id=pl.when(copy == 0)
            .then(pl.col("doc_id"))
            .otherwise(pl.format("{}#copy{}", "doc_id", copy + 1))
        )
        return run.with_columns(pos=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(RUN_KEY))
    if duplicates == "keep_best":
        run = run.sort(
            ["system", "query_id", first, "doc_id"], descending=[False, False, True, True]
        )
        # Sorted, the first copy of a document is its best-placed one.
        run = run.unique(subset=["system", "query_id", "doc_id"], keep="first", maintain_order=True)
        return run.with_columns(pos=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(RUN_KEY))
    # A rank within each ranking needs no global sort, and the streaming engine runs it
    # natively; equal (score, doc id) pairs only occur with duplicates, an error here.
    return run.with_columns(pos=position_in_ranking(first).over(RUN_KEY).cast(pl.Int64))


def position_in_ranking(key: pl.Expr) -> pl.Expr:
    """Return each row's position (from 1) by ``key`` descending, ties to the larger doc id.

    ``key`` is :func:`cast_run`'s ordering key. The expression ranks the rows it is
    given: call ``.over(...)`` with the columns that tell the rankings apart.

    Examples
    --------
    >>> run = pl.DataFrame({"doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]})
    >>> run.select(pos=position_in_ranking(pl.col("score")))["pos"].to_list()
    [3, 1, 2]
    """
    return pl.struct(key.alias("key"), "doc_id").rank("ordinal", descending=True)


def sorted_best_first(run: pl.LazyFrame, key: pl.Expr, ranking: str) -> pl.LazyFrame:
    """Sort a run by ``ranking``, then each ranking's rows in :func:`position_in_ranking`'s order.

    Each row's position is then its place in its ranking (from 1), without a rank:
    a sort of the rows is quicker than a rank of (key, doc id) over each ranking.

    Examples
    --------
    >>> run = pl.LazyFrame({"q": [1, 1, 1], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]})
    >>> sorted_best_first(run, pl.col("score"), "q").collect()["doc_id"].to_list()
    ['b', 'c', 'a']
    """
    return run.sort(ranking, key, "doc_id", descending=[False, True, True])


def cast_run(
    run: pl.LazyFrame,
    *,
    source: str = "run",
    order: OrderPolicy = "auto",
    has_scores: bool | None = None,
    score_precision: ScorePrecision = "float64",
) -> tuple[pl.LazyFrame, pl.Expr]:
    """Cast a parsed run's columns to the canonical dtypes; return it and its ordering key.

    The key orders a ranking best first when sorted descending: the score, or the
    negated rank when the run is ordered by rank. Ties are broken by ``doc_id``
    descending (byte order), which the key leaves to the caller.

    Scores are doubles, as trec_eval 10.0 reads them. ``score_precision="float32"``
    rounds them to 32-bit floats first, as trec_eval 9.0.8 (and so pytrec_eval) stores
    them: two scores equal in float32 (``3.0000001`` and ``3``) then tie, and the tie
    goes to the larger document id. Scores are finite: the pass over the runs refuses
    NaN and infinite ones (``rankset.io._shared.number_problems``).

    Examples
    --------
    >>> run = pl.LazyFrame({"system": "s", "query_id": "q", "doc_id": ["a"], "rank": [3]})
    >>> cast, key = cast_run(run)
    >>> cast.select(key).collect().item()
    -3
    """
    check_choice("order", order, _ORDER_POLICIES)
    present = _require(run, ["system", "query_id", "doc_id"], source, "run")
    if "score" not in present and "rank" not in present:
        msg = f"{source}: the run has neither a 'score' nor a 'rank' column to order it by."
        raise SchemaError(msg)

    casts = [
        pl.col("system").cast(pl.String),
        pl.col("query_id").cast(pl.String),
        pl.col("doc_id").cast(pl.String),
    ]
    check_choice("score_precision", score_precision, choices_of(ScorePrecision))
    if "score" in present:
        score = pl.col("score")
        if score_precision == "float32":
            score = score.cast(pl.Float32)
        casts.append(score.cast(pl.Float64))
    if "rank" in present:
        casts.append(pl.col("rank").cast(pl.Int64))
    run = run.with_columns(casts)
    by_score = _orders_by_score(run, present, order, has_scores, source)
    # Best first: the highest score (or the lowest rank), ties to the larger doc id.
    return run, pl.col("score") if by_score else -pl.col("rank")


def _orders_by_score(
    run: pl.LazyFrame,
    present: set[str],
    order: OrderPolicy,
    has_scores: bool | None,
    source: str,
) -> bool:
    if order == "rank":
        if "rank" not in present:
            msg = f"{source}: order='rank' was asked for, but the run has no 'rank' column."
            raise SchemaError(msg)
        return False
    if "score" not in present:
        if order == "score":
            msg = f"{source}: order='score' was asked for, but the run has no 'score' column."
            raise SchemaError(msg)
        return False
    if has_scores is None:
        profile = run_profile(run).collect().row(0, named=True)
        has_scores = scores_present(profile["n_scores"], profile["n_rows"], source)
    if not has_scores and order == "score":
        msg = f"{source}: order='score' was asked for, but the run's scores are all missing."
        raise SchemaError(msg)
    if not has_scores and "rank" not in present:
        msg = f"{source}: the run has no scores and no 'rank' column to order it by."
        raise SchemaError(msg)
    return has_scores


def run_profile(
    run: pl.LazyFrame, *, absent: Collection[str] = (), assume_scores: bool = False
) -> pl.LazyFrame:
    """Describe a parsed run in one row: ``tags``, ``n_scores`` and ``n_rows``.

    ``tags`` holds up to two distinct system names; ``n_scores`` counts rows with a score.
    Evaluation collects the profiles of all its runs at once, to name the systems and to
    decide for each run whether it is ordered by score, without a pass per question.
    Columns in ``absent`` are known to be null (its reader filled them): not read.
    ``assume_scores`` leaves ``n_scores`` null (unknown) instead of counting them: a run
    that needs no other column read is then profiled from its file's metadata (a Parquet
    file's row count), and the pass over the runs verifies that every row has a score.

    Examples
    --------
    >>> run = pl.LazyFrame({"query_id": ["q", "q"], "score": [1.0, None]})
    >>> run_profile(run).collect().row(0)
    ([], 1, 2)
    >>> run_profile(run, assume_scores=True).collect().row(0)
    ([], None, 2)
    """
    names = [name for name in run.collect_schema().names() if name not in absent]
    tags = (
        pl.col("system").cast(pl.String).drop_nulls().unique().sort().head(2).implode()
        if "system" in names
        else pl.lit([], dtype=pl.List(pl.String))
    )
    scores = pl.col("score").is_not_null().sum() if "score" in names else pl.lit(0)
    if assume_scores:
        scores = pl.lit(None)
    return run.select(
        tags.alias("tags"),
        scores.cast(pl.Int64).alias("n_scores"),
        pl.len().cast(pl.Int64).alias("n_rows"),
    )


def scores_present(n_scores: int, n_rows: int, source: str) -> bool:
    """Whether a run is ordered by its scores: all rows have one (True) or none (False).

    Raises
    ------
    SchemaError
        When only some rows have a score.
    """
    if 0 < n_scores < n_rows:
        msg = (
            f"{source}: {n_rows - n_scores} of {n_rows} rows have no score; give every "
            "row a score, or order by rank with order='rank'."
        )
        raise SchemaError(msg)
    return n_scores > 0


def duplicate_docs(run: pl.LazyFrame) -> pl.LazyFrame:
    """Find the first few ``(system, query_id, doc_id)`` that occur more than once."""
    return (
        run.group_by(["system", "query_id", "doc_id"])
        .agg(copies=pl.len())
        .filter(pl.col("copies") > 1)
        .sort(["system", "query_id", "doc_id"])
        .head(_MAX_LISTED)
    )


def raise_on_duplicate_docs(offenders: pl.DataFrame, source: str) -> None:
    """Raise :class:`SchemaError` listing ``offenders`` (from :func:`duplicate_docs`)."""
    if offenders.height == 0:
        return
    listed = "; ".join(
        f"system {s!r} query {q!r} doc {d!r} ({n} times)" for s, q, d, n in offenders.iter_rows()
    )
    msg = (
        f"{source}: duplicate documents in a ranking (first offenders: {listed}). trec_eval "
        "refuses such runs too; pass duplicates='keep_best' (CLI --duplicates keep-best) to "
        "keep each document's best-ranked copy, or duplicates='in_place' (CLI --duplicates "
        "in-place) to let every copy keep its slot, later copies counting as non-relevant "
        "(chunks of one document)."
    )
    raise SchemaError(msg)


def normalize_labels(labels: pl.LazyFrame, *, source: str = "labels") -> pl.LazyFrame:
    """Cast parsed labels to ``query_id, doc_id, grade`` (Float64).

    Sampled qrels' ``stratum`` column, when present, is kept (as a string).

    Examples
    --------
    >>> labels = pl.LazyFrame({"query_id": [1], "doc_id": ["d"], "grade": [2]})
    >>> normalize_labels(labels).collect()
    shape: (1, 3)
    ┌──────────┬────────┬───────┐
    │ query_id ┆ doc_id ┆ grade │
    │ ---      ┆ ---    ┆ ---   │
    │ str      ┆ str    ┆ f64   │
    ╞══════════╪════════╪═══════╡
    │ 1        ┆ d      ┆ 2.0   │
    └──────────┴────────┴───────┘
    """
    _require(labels, ["query_id", "doc_id", "grade"], source, "labels")
    # sampled qrels' stratum (rankset.measures.sampled) travels with its label
    stratum = [pl.col("stratum").cast(pl.String)] if "stratum" in labels.collect_schema() else []
    return labels.select(
        pl.col("query_id").cast(pl.String),
        pl.col("doc_id").cast(pl.String),
        pl.col("grade").cast(pl.Float64),
        *stratum,
    )


def raise_on_bad_rows(
    rows: pl.LazyFrame | pl.DataFrame,
    problems: dict[str, pl.Expr],
    counts: dict[str, int] | None,
    *,
    source: str,
    what: str,
    advice: str,
    number_rows: bool = True,
) -> None:
    """Raise :class:`SchemaError` for the first problem counted, naming its first row.

    ``counts`` maps problems (keys of ``problems``) to their row counts, from
    :func:`count_problems`, or is None to count them here. ``rows`` are searched for
    the first offender only when one is counted; ``number_rows`` adds its 1-based
    ``row`` number in ``rows``' order.
    """
    if counts is None:
        counts = rows.lazy().select(count_problems(problems)).collect().row(0, named=True)
    for problem, count in counts.items():
        if not count:
            continue
        numbered = rows.lazy().with_row_index("row", offset=1) if number_rows else rows.lazy()
        first = (
            numbered.filter(problems[problem].fill_null(False))
            .head(1)
            .collect(engine="in-memory")
            .row(0, named=True)
        )
        shown = ", ".join(f"{name} {value!r}" for name, value in first.items())
        msg = f"{source}: {count} {what} row(s) have {problem} (first: {shown}); {advice}"
        raise SchemaError(msg)


def raise_on_bad_labels(
    labels: pl.DataFrame, source: str, counts: dict[str, int] | None = None
) -> None:
    """Refuse label rows without usable ids (:func:`id_problems`) or a finite grade.

    Such rows used to be dropped or scored without a word (NaN metric values); now the
    error names how many rows have the first problem found, and the first of them.
    ``counts``: :func:`label_problem_counts`' row, when the caller has counted them.

    Examples
    --------
    >>> labels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", ""],
    ...                        "grade": [1.0, 2.0]})
    >>> raise_on_bad_labels(labels, "qrels.txt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankset.errors.SchemaError: qrels.txt: 1 label row(s) have an empty doc_id (first: row 2, ...
    """
    if counts is None:
        counts = label_problem_counts(labels.lazy()).collect().row(0, named=True)
    advice = "every label needs a query id, a document id and a finite grade."
    raise_on_bad_rows(
        labels.select("query_id", "doc_id", "grade"),
        _label_problems(),
        counts,
        source=source,
        what="label",
        advice=advice,
    )


def label_problem_counts(labels: pl.LazyFrame) -> pl.LazyFrame:
    """One row counting the label rows with each problem :func:`raise_on_bad_labels` names.

    Examples
    --------
    >>> labels = pl.LazyFrame({"query_id": ["q1"], "doc_id": [""], "grade": [1.0]})
    >>> sum(label_problem_counts(labels).collect().row(0))
    1
    """
    return labels.select(count_problems(_label_problems()))


def _label_problems() -> dict[str, pl.Expr]:
    return {
        **id_problems("query_id"),
        **id_problems("doc_id"),
        **number_problems("grade", "grade"),
    }


def repeats_a_pair(ordered: pl.DataFrame) -> bool:
    """Whether labels in ``(query_id, doc_id)`` order hold a pair twice (two rows in a row).

    A comparison of each row with the one before: a tenth of the cost of counting the
    pairs' distinct hashes. :func:`duplicate_labels` then names them.

    Examples
    --------
    >>> labels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "b"]})
    >>> repeats_a_pair(labels), repeats_a_pair(pl.concat([labels, labels.tail(1)]))
    (False, True)
    """
    same = [pl.col(column) == pl.col(column).shift(1) for column in ("query_id", "doc_id")]
    return bool(ordered.select(pl.all_horizontal(same).any()).item())


def duplicate_labels(labels: pl.LazyFrame) -> pl.LazyFrame:
    """Find the first few ``(query_id, doc_id)`` labelled more than once."""
    return (
        labels.group_by(["query_id", "doc_id"])
        .agg(copies=pl.len(), grades=pl.col("grade").unique().sort())
        .filter(pl.col("copies") > 1)
        .sort(["query_id", "doc_id"])
        .head(_MAX_LISTED)
    )


def raise_on_duplicate_labels(offenders: pl.DataFrame, source: str) -> None:
    """Raise :class:`SchemaError` listing duplicate label rows."""
    if offenders.height == 0:
        return
    listed = "; ".join(
        f"query {q!r} doc {d!r} ({n} rows, grades {[float(g) for g in gs]})"
        for q, d, n, gs in offenders.iter_rows()
    )
    msg = f"{source}: a document is labelled more than once for a query (first: {listed})."
    raise SchemaError(msg)


def normalize_cutoffs(cutoffs: pl.LazyFrame, *, source: str = "cutoffs") -> pl.LazyFrame:
    """Cast a per-query cutoff table to ``query_id, k`` (Int64)."""
    _require(cutoffs, ["query_id", "k"], source, "cutoffs table")
    return cutoffs.select(pl.col("query_id").cast(pl.String), pl.col("k").cast(pl.Int64))


def check_cutoffs(cutoffs: pl.DataFrame, source: str = "cutoffs") -> None:
    """Raise unless every per-query cutoff is >= 1 and each query has one cutoff."""
    bad = cutoffs.filter(pl.col("k").is_null() | (pl.col("k") < 1)).head(_MAX_LISTED)
    if bad.height:
        listed = ", ".join(f"{q!r}: {k}" for q, k in bad.iter_rows())
        msg = f"{source}: per-query cutoff k must be an int >= 1 (got {listed})."
        raise ParameterError(msg)
    repeated = cutoffs.group_by("query_id").agg(n=pl.col("k").n_unique()).filter(pl.col("n") > 1)
    if repeated.height:
        listed = ", ".join(repr(q) for q in repeated["query_id"].head(_MAX_LISTED))
        msg = f"{source}: queries with more than one cutoff: {listed}."
        raise SchemaError(msg)
