"""The checks of the pass over the runs: what is counted in every row, and the refusals.

Every numbering of :mod:`rankset.evaluation._pass` counts the same problems in the same
pass (ids, scores, infinite scores, a scanned file's layout) and collects a hash of each
row for the duplicate check; after the pass the counts are read back here, and a run
with a problem is refused with its first offending row named. The ids' problems are
counted from their bytes here too: the packed pass's document ids, the labels' ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from rankset._validation import warn_user
from rankset.errors import RanksetWarning, SchemaError
from rankset.evaluation._runs import RunPart, Runs, TextScanRejected
from rankset.io._shared import count_problems, id_problems, number_problems, score_problems
from rankset.measures._shared import GROUP
from rankset.schema._rules import raise_on_bad_rows

__all__ = [
    "LABELS_SCANNED_FROM",
    "LAYOUT_KEPT",
    "N_INF",
    "N_ROWS",
    "doc_id_problem_counts",
    "id_problem_counts",
    "label_problem_row",
    "ordering_word",
    "refuse_bad_rows",
    "refuse_counted_problems",
    "refuse_shared_rankings",
    "row_check_counts",
    "row_checks",
    "row_hash",
    "row_problems",
    "scan_columns",
]

LAYOUT_KEPT = "_layout_kept"
N_ROWS = "_n_rows"
N_INF = "_n_infinite_scores"
#: Label rows from which :func:`label_problem_row` pays: below, the masks cost little
#: and numpy is not imported (a small evaluation's command loads none).
LABELS_SCANNED_FROM = 100_000
# The row checks' count of rows without a score: the first of score_problems.
_NO_SCORE = next(iter(score_problems()))
# Seeds of the row hash that counts distinct (system, query, document) triples.
_HASH_SEEDS = (71, 1_013, 20_011)


def row_hash(one_system: bool) -> pl.Expr:
    hashed = pl.col("query_id").hash(_HASH_SEEDS[0]) ^ pl.col("doc_id").hash(_HASH_SEEDS[1])
    if not one_system:
        hashed = hashed ^ pl.col("system").hash(_HASH_SEEDS[2])
    return hashed


def ordering_word(part: RunPart) -> str:
    """Name the column a run is ordered by: ``score`` or ``rank``."""
    return "score" if part.has_scores else "rank"


def row_problems(part: RunPart, ordering_column: str, *, ids: bool = True) -> dict[str, pl.Expr]:
    """Return the problems looked for in every row: the doc id's, a NaN score.

    Query ids are checked on the rankings after the pass (one row per ranking); doc ids
    only when the reader has not checked them (a text scan over its strings is the
    costly part of these checks), and not with ``ids=False``: the packed numbering
    collects every document id and counts their problems afterwards
    (:func:`doc_id_problem_counts`).
    """
    ids_ = {} if part.rows_checked or not ids else id_problems("doc_id")
    if part.has_scores:  # ±inf are ordered scores; NaN is refused
        return {**ids_, **score_problems(ordering_column)}
    return {**ids_, **number_problems(ordering_column, ordering_word(part))}


def row_check_counts(part: RunPart, ordering_column: str, *, ids: bool = True) -> list[pl.Expr]:
    problems = row_problems(part, ordering_column, ids=ids)
    checks = [pl.len().alias(N_ROWS), *count_problems(problems)]
    if part.has_scores:
        checks.append(pl.col(ordering_column).cast(pl.Float64).is_infinite().sum().alias(N_INF))
    if part.scan is not None:
        # The scan's assumptions: every field of every line read, and one tag. Lines
        # starting with '#' are looked for in the rankings' query ids after the pass.
        checks.append(part.scan.layout_kept().alias(LAYOUT_KEPT))
    return checks


def row_checks(runs: Runs, part: RunPart) -> pl.LazyFrame:
    """One row of counts, each zero when a run held in memory passes one of the checks.

    What the pass counts in every row (ids, scores, infinite scores too) and, unless
    the reader rules them out, rows whose ``(query_id, doc_id)`` hash repeats (a
    document twice in a ranking, or a hash collision): all zero means the pass would
    find nothing to refuse, warn about or look at again.
    """
    if part.scan is not None:
        msg = "row_checks() checks a run held in memory, not a scanned file."
        raise ValueError(msg)
    cast, _ = runs.cast(part, None)
    checks = [
        check
        for check in row_check_counts(part, ordering_word(part))
        if check.meta.output_name() != N_ROWS
    ]
    if not part.unique_docs:
        repeats = pl.len() - row_hash(part.name is not None).n_unique()
        checks.append(repeats.alias("repeated row hashes"))
    return cast.select(checks)


def scan_columns(part: RunPart) -> list[str]:
    """Return the columns a scanned file's checks need besides the numbered ones."""
    if part.scan is None:
        return []
    return list(part.scan.CHECKED_FIELDS)


def refuse_bad_rows(
    runs: Runs,
    part: RunPart,
    bucket: tuple[int, int] | None,
    frames: Sequence[pl.DataFrame],
    *,
    ids: bool = True,
) -> None:
    """Refuse rows with unusable ids or a non-finite score, naming the first of them.

    ``frames`` are either numbering's: the second has one row per ranking (its query
    ids are checked there), the third the row checks' counts (without the document
    ids' with ``ids=False``: :func:`refuse_counted_problems` is given those afterwards). A
    scanned TREC file is read again instead, for its general parser to name the line.

    Raises
    ------
    TextScanRejected
        When a run assumed to have a score on every row has a row without one
        (:attr:`~rankset.evaluation._runs.RunPart.scores_assumed`), before any warning.
    """
    _, rankings, checks, *_ = frames
    checked = checks.row(0, named=True)  # a row read as it is, no query run on it
    if part.scores_assumed and checked.get(_NO_SCORE):
        # Planned as if every row had a score: the exact plan says what to do instead
        # (order by rank when none has one, or name the rows without one).
        raise TextScanRejected(f"{part.source}: {checked[_NO_SCORE]} row(s) have no score")
    if checked.get(N_INF):
        warn_user(
            f"{part.source}: {checked[N_INF]} score(s) are infinite; they are ranked as "
            "+inf (first) or -inf (last), as trec_eval, pytrec_eval and ranx rank them.",
            RanksetWarning,
        )
    counts = {problem: checked[problem] for problem in row_problems(part, "_", ids=ids)}
    refuse_counted_problems(runs, part, bucket, rankings, counts)


def refuse_counted_problems(
    runs: Runs,
    part: RunPart,
    bucket: tuple[int, int] | None,
    rankings: pl.DataFrame,
    row_counts: dict[str, int],
) -> None:
    """Refuse a run when its rankings' query ids or ``row_counts`` count any problem.

    ``row_counts`` are the pass's row checks (:func:`refuse_bad_rows`) or the problems
    :func:`doc_id_problem_counts` found in the document ids; the error names the
    first bad row.
    """
    query_problems = id_problems("query_id")
    counts = {**rankings.select(count_problems(query_problems)).row(0, named=True), **row_counts}
    if not any(counts.values()):
        return
    if part.scan is not None:
        raise TextScanRejected(f"{part.source}: a line has an unusable id or score")
    word = ordering_word(part)
    frame, _ = runs.cast(part, bucket)
    raise_on_bad_rows(
        frame.select("query_id", "doc_id", word),
        {**query_problems, **row_problems(part, word)},
        None,
        source=part.source,
        what="run",
        advice=(
            "every run row needs a query id and a document id (non-empty, without control "
            "characters or surrounding spaces) and "
            + (
                "a score that is a number (±inf rank first or last)."
                if word == "score"
                else "a finite rank."
            )
        ),
        number_rows=bucket is None and part.dataset_buckets is None,
    )


def doc_id_problem_counts(doc_ids: pl.Series) -> dict[str, int]:
    r"""Count the rows of each of :func:`~rankset.io._shared.id_problems`' problems.

    The same counts as those masks give, from the strings' bytes (numpy over the Arrow
    buffers): a control character is a byte below 32 or 127 (UTF-8 encodes no other
    character with those bytes), a leading or trailing space a first or last byte of 32.
    Run beside the packed numbering, on the document ids its pass collected: a byte scan
    costs a fraction of a contains-any over every row inside the pass.

    Examples
    --------
    >>> ids = pl.Series(["d1", "", "d\x00", " d", None, "dé"])
    >>> list(doc_id_problem_counts(ids).values())
    [1, 1, 1, 1]
    """
    return id_problem_counts(doc_ids, "doc_id")


def id_problem_counts(ids: pl.Series, column: str) -> dict[str, int]:
    r"""Count ``ids``' rows with each of ``id_problems(column)``'s problems, from their bytes.

    :func:`doc_id_problem_counts` for any id column (the labels' query and document ids).

    Examples
    --------
    >>> list(id_problem_counts(pl.Series(["q1", " q", "q\x7f"]), "query_id").items())[2:]
    [('a query_id with a control character', 1), ('a query_id with a leading or trailing space', 1)]
    """
    import numpy as np

    problems = list(id_problems(column))  # no id, empty, control character, space
    counts = np.zeros(3, dtype=np.int64)  # empty, control character, space
    # chunk by chunk: each one's arrays stay in cache
    for chunk in ids.cast(pl.String).get_chunks():
        array = chunk.to_arrow(compat_level=pl.CompatLevel.oldest())
        for piece in getattr(array, "chunks", [array]):
            if len(piece):
                counts += _id_byte_problems(piece)
    empty, control, spaced = (int(count) for count in counts)
    nulls = ids.null_count()
    return dict(zip(problems, (nulls, empty, control, spaced), strict=True))


def _id_byte_problems(array: Any) -> list[int]:
    """Count one Arrow string array's empty ids, ids with a control byte, spaced ids."""
    import numpy as np
    import pyarrow as pa

    _, offsets_buffer, data_buffer = array.buffers()
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    bounds = np.frombuffer(offsets_buffer, dtype=width)
    bounds = bounds[array.offset : array.offset + len(array) + 1]
    data = np.frombuffer(data_buffer or b"", dtype=np.uint8)
    valid = None if array.null_count == 0 else array.is_valid().to_numpy(zero_copy_only=False)
    filled = bounds[1:] != bounds[:-1]
    if valid is not None:
        filled &= valid
    empty = len(array) - int(np.count_nonzero(filled)) - array.null_count
    used = data[bounds[0] : bounds[-1]]
    control = 0
    if len(used) and (used.min() < 32 or used.max() >= 127):
        bad = (data < 32) | (data == 127)
        seen = np.concatenate([[0], np.cumsum(bad, dtype=np.int64)])
        control = int(np.count_nonzero((seen[bounds[1:]] > seen[bounds[:-1]]) & filled))
    if not len(used):
        return [empty, control, 0]
    top = len(data) - 1  # an empty id's first byte is not read, whatever its offset
    spaced = (data[np.minimum(bounds[:-1], top)] == 32) | (data[bounds[1:] - 1] == 32)
    if empty or valid is not None:
        spaced &= filled
    return [empty, control, int(np.count_nonzero(spaced))]


def refuse_shared_rankings(counts: pl.DataFrame, runs: Runs) -> None:
    shared = counts.filter(pl.struct(GROUP).is_duplicated()).select(GROUP).unique().sort(GROUP)
    if shared.height:
        system, query = shared.row(0)
        msg = (
            f"System {system!r} has a ranking for query {query!r} in more than one run input "
            f"({', '.join(runs.sources)}); give each input its own system name (names=..., "
            "CLI --name) or stack the rows into one input."
        )
        raise SchemaError(msg)


def label_problem_row(labels: pl.DataFrame) -> dict[str, int]:
    """Return :func:`~rankset.schema.label_problem_counts`' row, the ids' from their bytes.

    A byte scan of each id column (:func:`id_problem_counts`) costs about a third of
    the string masks over the labels' rows; the grades' masks count the rest.

    Examples
    --------
    >>> labels = pl.DataFrame({"query_id": ["q1", ""], "doc_id": ["d1", "d 2"],
    ...                        "grade": [1.0, None]})
    >>> [problem for problem, count in label_problem_row(labels).items() if count]
    ['an empty query_id', 'no grade']
    """
    grades = labels.select(count_problems(number_problems("grade", "grade"))).row(0, named=True)
    return {
        **id_problem_counts(labels.get_column("query_id"), "query_id"),
        **id_problem_counts(labels.get_column("doc_id"), "doc_id"),
        **grades,
    }
