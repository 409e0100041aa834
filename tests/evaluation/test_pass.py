"""The pass over the runs: the ordered, tied, packed and ranked plans, and TREC scans.

What is checked here:

* the plans (ordered, tied, packed, ranked) give every labelled row the position of a
  plain-Python reference (trec_eval's order: score descending, ties by document id
  descending) and every ranking its length, on random runs with ties, several systems
  in one frame, and the rows in trec_eval's order, with ties ascending or shuffled,
  shuffled whole, or in order except for one swap;
* the ordered plan is the one taken for a run in order (also bucket by bucket), the
  tied plan for rankings sorted by score with ties in another order (Anserini's
  ascending ids, the sample's bm25 run), the packed plan at once for a run in no order
  (``test_packed.py`` checks it further); a run that only starts in order, a ranking
  split over two blocks, a NaN after a number or ties out of order later in the file
  are measured again by the plan their rows allow, with the reference's positions;
  ranks beyond 2**53 keep their integer order;
* duplicates are found by either plan (adjacent or far apart), a hash collision
  without a duplicate changes nothing, and a ranking shared by two inputs is refused;
* a plain TREC file is scanned lazily (its parse is part of the pass) and gives the
  values of the file read whole (CRLF and BOM files too); a file that breaks the
  scan's assumptions, in its first 128 kB or after them, is read whole, with the same
  values, names and errors as a whole read; text files beside a partitioned dataset
  are read whole from the start.
"""

from __future__ import annotations

import dataclasses
import gzip
import random
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import rankset
from rankset import io as rio
from rankset.errors import RanksetWarning, SchemaError
from rankset.evaluation import EvaluateOptions
from rankset.evaluation import _evaluate as executors
from rankset.evaluation import _kernel as kernel
from rankset.evaluation import _packed_pass as packed_pass
from rankset.evaluation import _pass as run_pass
from rankset.evaluation._evaluate import plan_and_measure
from rankset.evaluation._inputs import assign_system_names, read_runs
from rankset.evaluation._pass import measure_pass
from rankset.evaluation._plan import plan_evaluation_inputs
from rankset.evaluation._runs import Runs, TextScanRejected, bucket_of
from rankset.io._shared import scan_trec_run
from rankset.measures import parse_metrics
from rankset.measures._shared import GROUP
from rankset.schema import normalize_labels

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
METRICS = ["ndcg@10", "ap", "rr", "recall@100", "P@5", "bpref", "num_ret"]

Row = tuple[str, str, str, float]  # system, query, doc, score


# --- an independent reference --------------------------------------------------------


def reference_positions(rows: list[Row]) -> dict[tuple[str, str, str], int]:
    """Position of each (system, query, doc): trec_eval's order, computed in plain Python."""
    rankings: dict[tuple[str, str], list[tuple[float, str]]] = {}
    for system, query, doc, score in rows:
        rankings.setdefault((system, query), []).append((score, doc))
    positions = {}
    for (system, query), docs in rankings.items():
        # score descending, then doc id descending in byte order
        ordered = sorted(docs, key=lambda pair: (pair[0], pair[1].encode()), reverse=True)
        for position, (_, doc) in enumerate(ordered, start=1):
            positions[(system, query, doc)] = position
    return positions


def reference_lengths(rows: list[Row]) -> dict[tuple[str, str], int]:
    lengths: dict[tuple[str, str], int] = {}
    for system, query, _, _ in rows:
        lengths[(system, query)] = lengths.get((system, query), 0) + 1
    return lengths


def in_trec_eval_order(rows: list[Row]) -> list[Row]:
    return sorted(rows, key=lambda r: (r[0], r[1], -r[3], _Descending(r[2].encode())))


@dataclasses.dataclass(frozen=True)
class _Descending:
    value: bytes

    def __lt__(self, other: _Descending) -> bool:
        return self.value > other.value


# --- helpers -------------------------------------------------------------------------


def _runs(source: Any, **options: Any) -> Runs:
    inputs = read_runs(source, None, scan_text=options.pop("scan_text", False))
    return assign_system_names(
        inputs,
        order=options.get("order", "auto"),
        duplicates=options.get("duplicates", "error"),
        engine="streaming",
    )


def _frame(rows: list[Row]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema=["system", "query_id", "doc_id", "score"], orient="row"
    ).with_columns(pl.col("score").cast(pl.Float64))


def _labels(labelled: list[tuple[str, str, int]]) -> pl.LazyFrame:
    schema = {"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64}
    frame = pl.DataFrame(labelled, schema=schema, orient="row")
    return frame.with_columns(pl.col("grade").cast(pl.Float64)).lazy()


def _measured(runs: Runs, labels: pl.LazyFrame) -> tuple[dict[Any, int], dict[Any, int]]:
    hits, counts, _ = measure_pass(runs, labels, None, "streaming", (), list)
    positions = {(s, q, d): p for s, q, d, p in hits.select(*GROUP, "doc_id", "pos").rows()}
    lengths = {(s, q): int(n) for s, q, n in counts.rows()}
    return positions, lengths


def _guessed(runs: Runs) -> list[str]:
    """The numbering each part's first rows suggest (looked at when a pass needs it)."""
    assert all(part.row_order is None for part in runs.inputs)  # not looked at yet
    return [run_pass.first_rows_order(runs, part) for part in runs.inputs]


def _measured_like_the_reference(rows: list[Row], guessed: str, every: int) -> None:
    """Measure ``rows`` (every ``every``-th row labelled): the reference's positions and lengths.

    ``guessed`` is the order the first rows show, the numbering tried first.
    """
    runs = _runs(_frame(rows))
    assert _guessed(runs) == [guessed]
    labels = _labels([(q, d, 1) for _, q, d, _ in rows[::every]])
    positions, lengths = _measured(runs, labels)
    assert positions == {k: v for k, v in reference_positions(rows).items() if k in positions}
    assert len(positions) == len(rows[::every])
    assert lengths == reference_lengths(rows)


def _graded_labels(rows: list[Row]) -> pl.DataFrame:
    """A label on each of ``rows``, grades 0 to 3 in turn."""
    return pl.DataFrame(
        [(q, d, i % 4) for i, (_, q, d, _) in enumerate(rows)],
        schema=["query_id", "doc_id", "grade"],
        orient="row",
    )


@pytest.fixture(autouse=True)
def _whole_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep ``rankset.evaluate`` of one frame on the pass these tests observe.

    One run in memory is otherwise measured in one collect (:mod:`_fused`, its own
    tests), which takes none of the three plans.
    """
    monkeypatch.setattr(executors, "_one_run_in_memory", lambda runs: False)


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record which plan measured each run part: ordered, ties (ordered by key) or ranked."""
    taken: list[str] = []
    ordered, ranked = run_pass.ordered_pass_frames, run_pass.ranked_pass_frames
    packed = run_pass.packed_pass_frames

    def spy_ordered(*args: Any, **kwargs: Any) -> Any:
        taken.append("ties" if kwargs.get("ties") else "ordered")
        return ordered(*args, **kwargs)

    def spy_ranked(*args: Any, **kwargs: Any) -> Any:
        taken.append("ranked")
        return ranked(*args, **kwargs)

    def spy_packed(*args: Any, **kwargs: Any) -> Any:
        taken.append("packed")
        return packed(*args, **kwargs)

    monkeypatch.setattr(run_pass, "ordered_pass_frames", spy_ordered)
    monkeypatch.setattr(run_pass, "ranked_pass_frames", spy_ranked)
    monkeypatch.setattr(run_pass, "packed_pass_frames", spy_packed)
    return taken


# --- both plans against the reference -------------------------------------------------

_rows = st.lists(
    st.tuples(
        st.sampled_from(["sysA", "sysB"]),
        st.sampled_from(["q1", "q2", "q10", "Q3"]),
        st.sampled_from(["d1", "d2", "d10", "D9", "é", "d3", "x"]),
        st.sampled_from([0.0, 0.5, 1.0, 1.5, -2.0]),  # few values: many ties
    ),
    min_size=1,
    max_size=60,
    unique_by=lambda row: row[:3],
)


@settings(max_examples=120, deadline=None)
@given(
    rows=_rows,
    seed=st.integers(0, 10_000),
    arrangement=st.sampled_from(
        ["ordered", "ties-ascending", "ties-shuffled", "shuffled", "one-swap"]
    ),
)
def test_every_plan_matches_the_reference(rows: list[Row], seed: int, arrangement: str) -> None:
    rng = random.Random(seed)
    arranged = in_trec_eval_order(rows)
    if arrangement == "ties-ascending":
        arranged = sorted(rows, key=lambda r: (r[0], r[1], -r[3], r[2].encode()))
    elif arrangement == "ties-shuffled":
        rng.shuffle(arranged)
        arranged.sort(key=lambda r: (r[0], r[1], -r[3]))  # stable: ties stay shuffled
    elif arrangement == "shuffled":
        rng.shuffle(arranged)
    elif arrangement == "one-swap" and len(arranged) > 2:
        i = rng.randrange(len(arranged) - 1)
        arranged[i], arranged[i + 1] = arranged[i + 1], arranged[i]
    labelled = sorted({(q, d) for _, q, d, _ in rows})
    labels = _labels([(q, d, rng.randrange(4)) for q, d in labelled if rng.random() < 0.6])
    judged = set(labels.collect().select("query_id", "doc_id").rows())
    expected_hits = {
        key: pos for key, pos in reference_positions(rows).items() if key[1:] in judged
    }
    runs = _runs(_frame(arranged))
    # every guess (the pass checks it), and the rank over each ranking ("any" is packed)
    for row_order in ("trec_eval", "by_key", "any", "ranked"):
        forced = dataclasses.replace(
            runs, inputs=[dataclasses.replace(p, row_order=row_order) for p in runs.inputs]
        )
        positions, lengths = _measured(forced, labels)
        assert positions == expected_hits
        assert lengths == reference_lengths(rows)


def test_a_run_in_order_takes_the_ordered_plan(plans: list[str]) -> None:
    runs = _runs(SAMPLE / "rerank.trec")
    assert _guessed(runs) == ["trec_eval"]
    labels = rio.scan_labels(SAMPLE / "qrels.txt")
    measure_pass(runs, normalize_labels(labels), None, "streaming", (), list)
    assert plans == ["ordered"]


def test_a_run_with_ascending_ties_takes_the_tied_plan(plans: list[str]) -> None:
    runs = _runs(SAMPLE / "bm25.trec")  # ties listed in ascending document order
    assert _guessed(runs) == ["by_key"]
    labels = normalize_labels(rio.scan_labels(SAMPLE / "qrels.txt"))
    hits, counts, _ = measure_pass(runs, labels, None, "streaming", (), list)
    assert plans == ["ties"]
    ranked = dataclasses.replace(
        runs, inputs=[dataclasses.replace(runs.inputs[0], row_order="any")]
    )
    again, again_counts, _ = measure_pass(ranked, labels, None, "streaming", (), list)
    assert plans == ["ties", "packed"]
    assert_frame_equal(hits.sort([*GROUP, "doc_id"]), again.sort([*GROUP, "doc_id"]))
    assert_frame_equal(counts.sort(list(GROUP)), again_counts.sort(list(GROUP)))


def test_a_run_in_no_order_from_its_first_rows_is_ranked_at_once(plans: list[str]) -> None:
    rows = [("s", f"q{q}", f"d{d}", float(d % 7)) for q in range(3) for d in range(20)]
    random.Random(3).shuffle(rows)
    runs = _runs(_frame(rows))
    assert _guessed(runs) == ["any"]
    labels = _labels([(q, d, 1) for _, q, d, _ in rows[::3]])
    positions, _ = _measured(runs, labels)
    assert plans == ["packed"]
    assert positions == {k: v for k, v in reference_positions(rows).items() if k in positions}
    assert len(positions) == len(rows[::3])


def test_interleaved_rankings_are_ranked_at_once(plans: list[str]) -> None:
    # Shuffled lines rarely put two rows of a query side by side: every row starts a
    # block, and each block alone looks in order. The rankings met again within the
    # first rows say otherwise, before a whole pass is spent on the ordered plan.
    rows = [("s", f"q{q:03d}", f"d{d}", float(d % 3)) for d in range(4) for q in range(300)]
    runs = _runs(_frame(rows))
    assert _guessed(runs) == ["any"]
    labels = _labels([(q, d, 1) for _, q, d, _ in rows[::5]])
    positions, lengths = _measured(runs, labels)
    assert plans == ["packed"]
    assert positions == {k: v for k, v in reference_positions(rows).items() if k in positions}
    assert len(positions) == len(rows[::5])
    assert lengths == reference_lengths(rows)


def _late_disorder_rows() -> list[Row]:
    rows = [("s", f"q{q:04d}", f"d{d:03d}", float(100 - d)) for q in range(30) for d in range(50)]
    # 1,500 rows in order, then the last ranking's two best documents swapped
    rows[-50], rows[-49] = rows[-49], rows[-50]
    return rows


def test_a_run_that_only_starts_in_order_is_measured_again_ranked(plans: list[str]) -> None:
    # the first 1,000 rows are in order
    _measured_like_the_reference(_late_disorder_rows(), "trec_eval", every=7)
    assert plans == ["ordered", "packed"]


def test_a_ranking_split_within_the_first_rows_is_ranked_at_once(plans: list[str]) -> None:
    rows = [
        ("s", "q1", "a", 3.0),
        ("s", "q1", "b", 2.0),
        ("s", "q2", "x", 1.0),
        ("s", "q1", "c", 1.0),  # q1 again: each block in order, the ranking split
    ]
    runs = _runs(_frame(rows))
    labels = _labels([("q1", "c", 1), ("q2", "x", 1)])
    positions, lengths = _measured(runs, labels)
    assert plans == ["packed"]
    assert positions == {("s", "q1", "c"): 3, ("s", "q2", "x"): 1}
    assert lengths == {("s", "q1"): 3, ("s", "q2"): 1}


def test_a_ranking_split_after_the_first_rows_is_measured_again_ranked(
    plans: list[str],
) -> None:
    # PEEK_ROWS rows of rankings in order, then the first ranking's last document.
    rows = [
        ("s", f"q{q:04d}", f"d{d:02d}", float(50 - d))
        for q in range(run_pass.PEEK_ROWS // 50 + 1)
        for d in range(50)
    ]
    rows.append(("s", "q0000", "d50", 0.0))
    runs = _runs(_frame(rows))
    assert _guessed(runs) == ["trec_eval"]
    labels = _labels([("q0000", "d50", 1), ("q0001", "d03", 1)])
    positions, lengths = _measured(runs, labels)
    assert plans == ["ordered", "packed"]
    assert positions == {("s", "q0000", "d50"): 51, ("s", "q0001", "d03"): 4}
    assert lengths[("s", "q0000")] == 51


def _tied_rows(ascending: bool) -> list[Row]:
    """30 rankings of 50 documents, five to a score, ties ascending or in trec_eval's order."""
    rows = [
        ("s", f"q{q:04d}", f"d{d:03d}", float(10 - d // 5)) for q in range(30) for d in range(50)
    ]
    return sorted(
        rows, key=lambda r: (r[1], -r[3], r[2] if ascending else _Descending(r[2].encode()))
    )


def test_a_run_measured_by_bucket_has_its_first_rows_looked_at_once(
    monkeypatch: pytest.MonkeyPatch, plans: list[str]
) -> None:
    looked: list[str] = []
    original = run_pass.first_rows_order

    def counted(runs: Runs, part: Any) -> Any:
        looked.append(part.source)
        return original(runs, part)

    monkeypatch.setattr(run_pass, "first_rows_order", counted)
    frame = _frame(_tied_rows(ascending=True))  # 1,500 rows: more than the peek
    labels = _graded_labels(_tied_rows(ascending=True)[::3])
    rankset.evaluate(frame, labels, METRICS, confidence=None, buckets=5)
    assert looked == ["<polars.DataFrame>"]
    assert plans == ["ties"] * 5  # every bucket took the numbering the one look chose
    looked.clear()
    rankset.evaluate(frame, labels, METRICS, confidence=None)  # one pass: it looks there
    assert looked == ["<polars.DataFrame>"]


def test_ties_out_of_order_late_in_a_run_are_counted_again(plans: list[str]) -> None:
    rows = _tied_rows(ascending=False)
    rows[-3], rows[-2] = rows[-2], rows[-3]  # the last ranking: two tied documents swapped
    _measured_like_the_reference(rows, "trec_eval", every=4)
    assert plans == ["ordered", "ties"]


def test_a_run_that_only_starts_in_key_order_is_measured_again_ranked(plans: list[str]) -> None:
    rows = _tied_rows(ascending=True)
    rows[-50], rows[-1] = rows[-1], rows[-50]  # the last ranking's best and worst swapped
    _measured_like_the_reference(rows, "by_key", every=4)
    assert plans == ["ties", "packed"]


def test_buckets_number_runs_with_ascending_ties_like_one_pass(plans: list[str]) -> None:
    rows = _tied_rows(ascending=True)
    frame = _frame(rows)
    labels = _graded_labels(rows[::3])
    whole = rankset.evaluate(frame, labels, METRICS, confidence=None).per_query
    reference = rankset.evaluate(
        frame.sample(fraction=1.0, shuffle=True, seed=5), labels, METRICS, confidence=None
    ).per_query  # shuffled whole: ranked
    assert plans == ["ties", "packed"]
    assert_frame_equal(whole, reference, check_exact=True)
    for buckets in (2, 7):
        plans.clear()
        by_bucket = rankset.evaluate(frame, labels, METRICS, confidence=None, buckets=buckets)
        assert_frame_equal(by_bucket.per_query, whole, check_exact=True)
        assert plans == ["ties"] * buckets


@pytest.mark.parametrize(
    ("rows", "expected_plans"),
    [
        ([("s", "q", "b", 2.0), ("s", "q", "a", 1.0)], ["ordered"]),
        ([("s", "q", "a", 1.0), ("s", "q", "b", 1.0)], ["ordered", "ties"]),  # ascending tie
    ],
    ids=["in-order", "ascending-tie"],
)
def test_either_plan_numbers_what_the_other_does(
    rows: list[Row], expected_plans: list[str], plans: list[str]
) -> None:
    runs = _runs(_frame(rows))
    forced = dataclasses.replace(
        runs, inputs=[dataclasses.replace(runs.inputs[0], row_order="trec_eval")]
    )
    labels = _labels([("q", doc, 1) for _, _, doc, _ in rows])
    hits, counts, _ = measure_pass(forced, labels, None, "streaming", (), list)
    assert plans == expected_plans
    ranked = dataclasses.replace(
        runs, inputs=[dataclasses.replace(runs.inputs[0], row_order="any")]
    )
    again, _, _ = measure_pass(ranked, labels, None, "streaming", (), list)
    assert_frame_equal(hits.sort("doc_id"), again.sort("doc_id"))
    assert hits.sort("pos")["doc_id"].to_list() == ["b", "a"]  # the larger id first
    assert counts["_num_ret"].to_list() == [2.0]


def _one_bad_score(score: float, row_order: str, where: int) -> Runs:
    rows: list[Row] = [("s", "q", "a", 2.0), ("s", "q", "b", 1.0)]
    rows[where] = (*rows[where][:3], score)
    runs = _runs(_frame(rows))
    return dataclasses.replace(
        runs, inputs=[dataclasses.replace(runs.inputs[0], row_order=row_order)]
    )


@pytest.mark.parametrize("row_order", ["trec_eval", "by_key", "any"])
@pytest.mark.parametrize("where", [0, 1])
def test_every_plan_refuses_a_nan_score(row_order: str, where: int) -> None:
    # NaN used to rank first, silently (RR 1.0 where pytrec_eval gives 0.5).
    runs = _one_bad_score(float("nan"), row_order, where)
    labels = _labels([("q", "b", 1)])
    with pytest.raises(SchemaError, match=r"1 run row\(s\) have a score that is NaN"):
        measure_pass(runs, labels, None, "streaming", (), list)


@pytest.mark.parametrize(
    ("doc_id", "problem"),
    [
        ("", "an empty doc_id"),
        ("c\x00", "a doc_id with a control character"),
        ("c\x7f", "a doc_id with a control character"),
        ("\tc", "a doc_id with a control character"),
        (" c", "a doc_id with a leading or trailing space"),
        ("cé ", "a doc_id with a leading or trailing space"),
    ],
)
@pytest.mark.parametrize("row_order", ["trec_eval", "by_key", "any"])
@pytest.mark.parametrize("meanwhile", [False, True])
def test_every_plan_refuses_a_bad_doc_id_on_an_unlabelled_row(
    doc_id: str, problem: str, row_order: str, meanwhile: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The packed numbering counts the ids' problems after its pass (on the checker
    # thread for a large run: ``meanwhile``), the others inside it.
    if meanwhile:
        monkeypatch.setattr(packed_pass, "CHECKED_MEANWHILE", 1)
    rows: list[Row] = [("s", "q", "a", 3.0), ("s", "q", "b", 2.0), ("s", "q", doc_id, 1.0)]
    runs = _runs(_frame(rows))
    runs = dataclasses.replace(
        runs, inputs=[dataclasses.replace(runs.inputs[0], row_order=row_order)]
    )
    with pytest.raises(SchemaError, match=rf"1 run row\(s\) have {problem}.*row 3"):
        measure_pass(runs, _labels([("q", "b", 1)]), None, "streaming", (), list)


@pytest.mark.parametrize("score", [float("inf"), float("-inf")])
@pytest.mark.parametrize("row_order", ["trec_eval", "by_key", "any"])
@pytest.mark.parametrize("where", [0, 1])
def test_every_plan_ranks_an_infinite_score_and_says_so(
    score: float, row_order: str, where: int
) -> None:
    runs = _one_bad_score(score, row_order, where)
    labels = _labels([("q", "b", 1)])
    with pytest.warns(RanksetWarning, match=r"1 score\(s\) are infinite"):
        measure_pass(runs, labels, None, "streaming", (), list)


def test_buckets_number_ordered_runs_like_one_pass(plans: list[str]) -> None:
    rows = _late_disorder_rows()
    rows[-50], rows[-49] = rows[-49], rows[-50]  # back in order
    frame = _frame(rows)
    labels = _graded_labels(rows[::5])
    whole = rankset.evaluate(frame, labels, METRICS, confidence=None).per_query
    for buckets in (2, 7):
        plans.clear()
        by_bucket = rankset.evaluate(frame, labels, METRICS, confidence=None, buckets=buckets)
        assert_frame_equal(by_bucket.per_query, whole, check_exact=True)
        assert plans == ["ordered"] * buckets


def test_ranks_beyond_float_precision_keep_their_integer_order(plans: list[str]) -> None:
    big = 2**53  # as floats, big and big + 1 are equal: the tie would go to "b"
    run = pl.DataFrame(
        {"system": "s", "query_id": "q", "doc_id": ["b", "a"], "rank": [big + 1, big]}
    )
    runs = _runs(run, order="rank")
    assert _guessed(runs) == ["any"]  # rank big comes first
    forced = dataclasses.replace(
        runs, inputs=[dataclasses.replace(runs.inputs[0], row_order="by_key")]
    )
    labels = _labels([("q", "a", 1), ("q", "b", 1)])
    positions, _ = _measured(forced, labels)
    assert plans == ["ties", "packed"]  # the pass's own check refuses the order too
    assert positions == {("s", "q", "a"): 1, ("s", "q", "b"): 2}


# --- duplicates and shared rankings --------------------------------------------------


@pytest.mark.parametrize("row_order", ["trec_eval", "by_key", "any"])
@pytest.mark.parametrize(
    "rows",
    [
        [("s", "q", "a", 3.0), ("s", "q", "b", 2.0), ("s", "q", "a", 1.0)],  # far apart
        [("s", "q", "b", 2.0), ("s", "q", "a", 1.0), ("s", "q", "a", 1.0)],  # neighbours
    ],
    ids=["far-apart", "neighbours"],
)
def test_duplicates_are_found_by_every_plan(rows: list[Row], row_order: str) -> None:
    runs = _runs(_frame(rows))
    forced = dataclasses.replace(
        runs, inputs=[dataclasses.replace(runs.inputs[0], row_order=row_order)]
    )
    with pytest.raises(SchemaError, match=r"duplicate documents.*doc 'a' \(2 times\)"):
        measure_pass(forced, _labels([("q", "a", 1)]), None, "streaming", (), list)


def test_a_hash_collision_without_a_duplicate_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = rankset.evaluate(SAMPLE / "rerank.trec", SAMPLE / "qrels.txt", METRICS).per_query
    every_row_seven = (pl.col("doc_id").str.len_bytes() * 0 + 7).cast(pl.UInt64)
    monkeypatch.setattr(run_pass, "row_hash", lambda one_system: every_row_seven)
    collided = rankset.evaluate(SAMPLE / "rerank.trec", SAMPLE / "qrels.txt", METRICS)
    assert_frame_equal(collided.per_query, expected, check_exact=True)


def test_a_ranking_in_two_inputs_is_refused() -> None:
    first = _frame([("s", "q1", "a", 1.0), ("t", "q1", "a", 1.0)])
    second = _frame([("s", "q1", "b", 1.0), ("u", "q2", "b", 1.0)])
    with pytest.raises(SchemaError, match=r"System 's' has a ranking for query 'q1' in more"):
        rankset.evaluate([first, second], _labels([("q1", "a", 1)]).collect(), ["ap"])


# --- lazily scanned TREC files ---------------------------------------------------------


def _evaluate_both_ways(path: Path, labels: Path) -> tuple[Any, pl.DataFrame, pl.DataFrame]:
    """Return the plan evaluate settled on, its values, and the values of a whole read."""
    metrics = parse_metrics(METRICS)
    options = EvaluateOptions()
    prepared, scanned = plan_and_measure(path, labels, metrics, options)
    read_whole = plan_evaluation_inputs(path, labels, metrics, options)
    return prepared, scanned.scored, executors.measure(read_whole).scored


def test_a_plain_file_is_scanned_lazily_and_gives_the_whole_read_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rejected: list[str] = []
    original = executors.plan_evaluation_inputs

    def spy(*args: Any, **kwargs: Any) -> Any:
        prepared = original(*args, **kwargs)
        if kwargs.get("scan_text"):
            assert all(part.scan is not None for part in prepared.runs.inputs)
        else:
            rejected.append("read whole")
        return prepared

    monkeypatch.setattr(executors, "plan_evaluation_inputs", spy)
    for run in ("bm25.trec", "rerank.trec"):  # the ranked and the ordered plan
        _, scanned = plan_and_measure(
            SAMPLE / run, SAMPLE / "qrels.txt", parse_metrics(METRICS), EvaluateOptions()
        )
        assert rejected == []
        read_whole = original(
            SAMPLE / run, SAMPLE / "qrels.txt", parse_metrics(METRICS), EvaluateOptions()
        )
        assert_frame_equal(scanned.scored, executors.measure(read_whole).scored, check_exact=True)


def _plain_lines(n_queries: int = 60, depth: int = 100) -> list[str]:
    # 6,000 lines, about 160 kB: more than the 128 kB whose lines are parsed up front
    return [
        f"q{q} Q0 d{d:04d} {d + 1} {depth - d}.5 tagA"
        for q in range(n_queries)
        for d in range(depth)
    ]


def _plain_file(path: Path, line: int | None = None, old: str = "", new: str = "") -> Path:
    """Write :func:`_plain_lines` to ``path``, with ``old`` replaced by ``new`` on ``line``."""
    lines = _plain_lines()
    if line is not None:
        lines[line] = lines[line].replace(old, new)
    path.write_text("\n".join(lines) + "\n")
    return path


_CHANGES = {
    "plain": lambda lines, at: lines,
    "comment": lambda lines, at: [*lines[:at], "# Q0 x 1 1.0 comment", *lines[at:]],
    "blank-line": lambda lines, at: [*lines[:at], "", *lines[at:]],
    "two-spaces": lambda lines, at: [
        *lines[:at],
        lines[at].replace(" Q0 ", " Q0  "),
        *lines[at + 1 :],
    ],
    "second-tag": lambda lines, at: [
        *lines[:at],
        lines[at].replace("tagA", "tagB"),
        *lines[at + 1 :],
    ],
    # trec_eval ignores fields after the tag; so do the CSV reader and the parser
    "seventh-field": lambda lines, at: [*lines[:at], lines[at] + " extra", *lines[at + 1 :]],
    "tabs": lambda lines, at: [*lines[:at], "\t".join(lines[at].split()), *lines[at + 1 :]],
}


@pytest.mark.parametrize("at", [900, 5_500], ids=["in-the-first-lines", "after-them"])
@pytest.mark.parametrize("change", sorted(_CHANGES))
def test_a_file_that_breaks_the_scan_is_read_whole(
    change: str, at: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _CHANGES[change](_plain_lines(), at)
    path = tmp_path / "late.trec"
    path.write_text("\n".join(lines) + "\n")
    labels = tmp_path / "qrels.txt"
    labels.write_text(
        "".join(f"q{q} 0 d{d:04d} {d % 3}\n" for q in range(60) for d in range(0, 100, 9))
    )
    rejections: list[str] = []
    measure = run_pass.measure_pass

    def spy(*args: Any, **kwargs: Any) -> Any:
        try:
            return measure(*args, **kwargs)
        except TextScanRejected as rejection:
            rejections.append(str(rejection))
            raise

    monkeypatch.setattr(kernel, "measure_pass", spy)
    prepared, scanned, read_whole = _evaluate_both_ways(path, labels)
    kept_to_the_layout = change in ("plain", "seventh-field")
    assert (prepared.runs.inputs[0].scan is not None) == kept_to_the_layout
    if at > 5_000:  # past the lines parsed up front: the pass itself found it
        assert len(rejections) == (0 if kept_to_the_layout else 1)
    assert_frame_equal(scanned, read_whole, check_exact=True)


@pytest.mark.parametrize(("newline", "bom"), [("\r\n", ""), ("\n", "\ufeff"), ("\r\n", "\ufeff")])
def test_crlf_and_bom_files_are_scanned_like_plain_ones(
    newline: str, bom: str, tmp_path: Path
) -> None:
    path = tmp_path / "windows.trec"
    path.write_bytes((bom + newline.join(_plain_lines()) + newline).encode())
    labels = tmp_path / "qrels.txt"
    labels.write_text("".join(f"q{q} 0 d{d:04d} {d % 3}\n" for q in range(60) for d in range(7)))
    prepared, scanned, read_whole = _evaluate_both_ways(path, labels)
    assert prepared.runs.inputs[0].scan is not None
    assert_frame_equal(scanned, read_whole, check_exact=True)


def test_a_line_without_its_q0_field_is_an_error_naming_it(tmp_path: Path) -> None:
    path = _plain_file(tmp_path / "short.trec", 900, " Q0 ", "  ")  # five fields, one of them empty
    with pytest.raises(rankset.InputFormatError, match=r"short\.trec, line 901\b"):
        rankset.evaluate(path, _labels([("q0", "d0001", 1)]).collect(), ["ap"])


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (" Q0 ", "  ", "line 5501: expected 6 whitespace-separated fields"),  # empty Q0
        (" d0", " d\x0b0", None),  # a vertical tab splits the id: 'd', rank 0, score 1
        (" d0", " d\r0", None),  # so does a lone CR
        (" d0", " d\x010", "line 5501: a doc_id with a control character"),
    ],
    ids=["empty-q0", "vertical-tab", "carriage-return", "control-character"],
)
def test_past_the_first_128_kb_the_scan_reads_as_the_gzip_does(
    tmp_path: Path, old: str, new: str, message: str | None
) -> None:
    # The scan used to check these in the first 128 kB only: the plain file was read
    # (the Q0 field skipped, the id whole) where its gzip went to the general parser.
    path = _plain_file(tmp_path / "run.trec", 5_500, old, new)
    compressed = tmp_path / "run.trec.gz"
    compressed.write_bytes(gzip.compress(path.read_bytes()))
    labels = _labels([("q55", "d0000", 1), ("q55", "d", 1)]).collect()
    outcomes = []
    for source in (path, compressed):
        try:
            result = rankset.evaluate(source, labels, ["rr", "num_ret"], confidence=None)
            outcomes.append(result.per_query.filter(pl.col("query_id") == "q55")["value"])
        except rankset.InputFormatError as error:
            outcomes.append(str(error).replace(str(source), "<file>"))
    if message is None:
        # the general parser's reading: 'd' has score 1 (the last of 100), no 'd0000'
        assert [list(outcome) for outcome in outcomes] == [[0.01, 100.0]] * 2
    else:
        assert outcomes[0] == outcomes[1]
        assert message in outcomes[0]


def test_a_later_second_tag_does_not_make_two_files_share_a_name(tmp_path: Path) -> None:
    for folder, later_tag in (("a", "y"), ("b", "x")):
        (tmp_path / folder).mkdir()
        lines = [line.replace("tagA", "x") for line in _plain_lines(n_queries=80)]
        lines[7_500] = lines[7_500].replace(" x", f" {later_tag}")  # past the first 128 kB
        (tmp_path / folder / "run.trec").write_text("\n".join(lines) + "\n")
    labels = _labels([("q0", "d0001", 1)]).collect()
    runs = [tmp_path / "a" / "run.trec", tmp_path / "b" / "run.trec"]
    result = rankset.evaluate(runs, labels, ["ap"])
    # a/run.trec has two tags (named after its file), b/run.trec one: as when read whole
    assert sorted(result.systems) == ["run", "x"]


def test_text_files_beside_a_partitioned_dataset_are_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = tmp_path / "dataset"
    rankset.partition(SAMPLE / "bm25.trec", SAMPLE / "qrels.txt", dataset, buckets=3)
    scanned: list[str] = []
    measure = run_pass.measure_pass

    def spy(runs: Runs, *args: Any, **kwargs: Any) -> Any:
        scanned.extend(part.source for part in runs.inputs if part.scan is not None)
        return measure(runs, *args, **kwargs)

    monkeypatch.setattr(kernel, "measure_pass", spy)
    result = rankset.evaluate({"bm25": dataset, "rerank": SAMPLE / "rerank.trec"}, None, ["ap"])
    assert scanned == []
    whole = rankset.evaluate(
        {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"},
        SAMPLE / "qrels.txt",
        ["ap"],
    )
    assert_frame_equal(result.per_query, whole.per_query, check_exact=True)


@pytest.mark.parametrize("line", [1_100, 5_500])
def test_a_second_tag_names_the_system_after_the_file(line: int, tmp_path: Path) -> None:
    path = _plain_file(tmp_path / "mixed.trec", line, "tagA", "tagB")
    result = rankset.evaluate(path, _labels([("q0", "d0001", 1)]).collect(), ["ap"])
    assert result.systems == ["mixed"]  # as when read whole: two tags, the file's stem


def test_a_second_tag_on_a_dropped_copy_still_names_the_system_after_the_file(
    tmp_path: Path,
) -> None:
    lines = _plain_lines()
    lines.append("q0 Q0 d0000 9999 -5.0 tagB")  # a worse copy, dropped by keep_best
    path = tmp_path / "copies.trec"
    path.write_text("\n".join(lines) + "\n")
    labels = _labels([("q0", "d0000", 1)]).collect()
    result = rankset.evaluate(path, labels, ["ap"], duplicates="keep_best")
    assert result.systems == ["copies"]  # two tags in the file, as when read whole
    assert result.per_query["value"].to_list() == [1.0]


@pytest.mark.parametrize("line", [1_100, 5_500])
def test_a_bad_number_names_its_line(line: int, tmp_path: Path) -> None:
    path = _plain_file(tmp_path / "bad.trec", line, ".5 tagA", ".5x tagA")
    with pytest.raises(rankset.InputFormatError, match=rf"bad\.trec, line {line + 1}\b"):
        rankset.evaluate(path, _labels([("q0", "d0001", 1)]).collect(), ["ap"])


def test_text_files_are_scanned_only_where_a_scan_pays(tmp_path: Path) -> None:
    path = SAMPLE / "bm25.trec"
    assert scan_trec_run(path) is not None
    assert scan_trec_run(str(path)) is not None
    assert scan_trec_run(SAMPLE / "qrels.txt") is None  # four fields
    gz = tmp_path / "run.trec.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert scan_trec_run(gz) is None
    assert scan_trec_run(pl.DataFrame()) is None
    assert scan_trec_run(tmp_path) is None


def test_more_buckets_than_queries_measures_only_the_occupied_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # --buckets 4096 on the 40-query sample used to pass over 4,096 buckets (20 s).
    measured: list[tuple[int, int] | None] = []
    measure_queries = executors.measure_queries

    def counting(plan: Any, bucket: tuple[int, int] | None, **kwargs: Any) -> Any:
        measured.append(bucket)
        return measure_queries(plan, bucket, **kwargs)

    monkeypatch.setattr(executors, "measure_queries", counting)
    run, qrels = SAMPLE / "bm25.trec", SAMPLE / "qrels.txt"
    metrics = [*METRICS, "set_P", "set_relative_P"]
    whole = rankset.evaluate(run, qrels, metrics, confidence=None).per_query
    bucketed = rankset.evaluate(run, qrels, metrics, confidence=None, buckets=4096).per_query
    assert_frame_equal(bucketed, whole, check_exact=True)
    buckets = [bucket for bucket in measured if bucket is not None]
    assert 0 < len(buckets) <= 40  # at most one bucket per query
    assert len(set(buckets)) == len(buckets)
    queries = whole["query_id"].unique()
    expected = set(pl.select(bucket_of(pl.lit(queries), 4096)).to_series().to_list())
    assert {bucket for bucket, _ in buckets} == expected
