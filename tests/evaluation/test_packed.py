"""The packed numbering of a run in no order: one sorted 64-bit integer per row.

What is checked here:

* the key's code never rises with the key, for any doubles (signed zeros, infinities,
  subnormals, the largest magnitudes) and any width, and equal keys share a code;
* shuffled runs get trec_eval's positions (score descending, ties by document id
  descending in byte order) from the packed numbering, against a plain-Python
  reference, with tie-heavy scores, signed zeros, infinities, huge and tiny scores,
  non-ASCII and numeric-looking ids and several systems in one frame; also when the
  code has one bit, so that most code groups hold unequal keys the exact step puts in
  order, when the rankings' hashes mostly share their table's slots or collide (the
  ids' rank numbers them then), and when tied groups' ends are searched for after 0,
  1 or 8 steps; a run whose numbers leave no bit for the code is ranked instead;
* shuffled Parquet and TREC files take the packed numbering and give pytrec_eval's
  values (trec_eval's C code), doubles and ``score_precision="float32"`` alike; a
  missing query id is refused as before;
* with few distinct document ids and a code that gives every distinct key its own, the
  ids' ranks in the packed integers put each ranking in trec_eval's order with no tie
  group put in order afterwards (ties, signed zeros, non-ASCII ids); keys the code
  cannot tell apart keep that step; many dict runs numbered by their reader skip the
  first rows' look and give pytrec_eval's values.
"""

from __future__ import annotations

import dataclasses
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankset
from _support.pytrec_reference import PytrecEvalWorker, reference
from rankset.errors import SchemaError
from rankset.evaluation import Evaluator
from rankset.evaluation import _evaluate as executors
from rankset.evaluation import _packed as packed
from rankset.evaluation import _packed_hits as packed_hits
from rankset.evaluation import _packed_pass as packed_pass
from rankset.evaluation import _packed_rankings as packed_rankings
from rankset.evaluation import _pass as run_pass
from rankset.evaluation._inputs import assign_system_names, read_runs
from rankset.evaluation._pass import measure_pass
from rankset.evaluation._runs import Runs
from rankset.measures._shared import GROUP

Row = tuple[str, str, str, float]  # system, query, doc, score

# Infinite scores are ranked and said so; the warning is tested in test_pass.py.
pytestmark = pytest.mark.filterwarnings(r"ignore:.*score\(s\) are infinite")

# Scores trec_eval orders like any others: ties, signed zeros, both infinities, the
# smallest subnormal, the largest doubles and numbers a float32 cannot hold.
SCORES = (-math.inf, -1.7976931348623157e308, -1.0, -0.0, 0.0, 5e-324, 0.5, 1.5, 1e300, math.inf)
# Byte order: "10" < "9", "Z" < "e" < "z" < "ß" < "é" < "日本" in UTF-8.
DOC_IDS = ("1", "10", "9", "Z", "e", "z", "é", "ß", "日本", "x1")


def reference_positions(rows: list[Row]) -> dict[tuple[str, str, str], int]:
    """Position of each (system, query, doc): trec_eval's order, in plain Python."""
    rankings: dict[tuple[str, str], list[tuple[float, bytes, str]]] = {}
    for system, query, doc, score in rows:
        rankings.setdefault((system, query), []).append((score, doc.encode(), doc))
    positions = {}
    for (system, query), docs in rankings.items():
        # -0.0 == 0.0 in the sort key as in trec_eval: ties broken by the id's bytes
        ordered = sorted(docs, key=lambda entry: (entry[0], entry[1]), reverse=True)
        for position, (_, _, doc) in enumerate(ordered, start=1):
            positions[(system, query, doc)] = position
    return positions


@pytest.fixture(autouse=True)
def _whole_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep one frame in memory on the pass (not measured in one collect by _fused)."""
    monkeypatch.setattr(executors, "_one_run_in_memory", lambda runs: False)


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the numbering each pass took: packed or ranked (or ordered)."""
    taken: list[str] = []
    for name, label in (
        ("packed_pass_frames", "packed"),
        ("ranked_pass_frames", "ranked"),
        ("ordered_pass_frames", "ordered"),
    ):
        original = getattr(run_pass, name)

        def spy(*args: Any, _original: Any = original, _label: str = label, **kw: Any) -> Any:
            taken.append(_label)
            return _original(*args, **kw)

        monkeypatch.setattr(run_pass, name, spy)
    return taken


def _runs(frame: pl.DataFrame, **options: Any) -> Runs:
    runs = assign_system_names(
        read_runs(frame, None),
        order="auto",
        duplicates="error",
        engine="streaming",
        **options,
    )
    # the numbering of a run in no order, whatever its first rows look like
    parts = [dataclasses.replace(part, row_order="any") for part in runs.inputs]
    return dataclasses.replace(runs, inputs=parts)


def _positions(rows: list[Row], labelled: list[tuple[str, str]]) -> dict[Any, int]:
    frame = pl.DataFrame(
        rows, schema=["system", "query_id", "doc_id", "score"], orient="row"
    ).with_columns(pl.col("score").cast(pl.Float64))
    labels = pl.LazyFrame(
        {"query_id": [q for q, _ in labelled], "doc_id": [d for _, d in labelled]},
        schema={"query_id": pl.String, "doc_id": pl.String},
    ).with_columns(grade=pl.lit(1.0))
    hits, counts, _ = measure_pass(_runs(frame), labels, None, "streaming", (), list)
    lengths = {(s, q): n for s, q, n in counts.rows()}
    expected_lengths: dict[tuple[str, str], float] = {}
    for system, query, _, _ in rows:
        expected_lengths[system, query] = expected_lengths.get((system, query), 0) + 1
    assert lengths == expected_lengths
    return {(s, q, d): p for s, q, d, p in hits.select(*GROUP, "doc_id", "pos").rows()}


# --- the key's code -------------------------------------------------------------------

_doubles = st.floats(allow_nan=False, allow_subnormal=True, width=64)


@settings(max_examples=300, deadline=None)
@given(
    keys=st.lists(_doubles | st.sampled_from(SCORES), min_size=1, max_size=40),
    bits=st.integers(1, 52),
)
def test_the_code_never_rises_with_the_key(keys: list[float], bits: int) -> None:
    finite = [key for key in keys if math.isfinite(key)]
    low, high = (min(finite), max(finite)) if finite else (None, None)
    ordered = sorted(keys)
    codes = packed.descending_codes(np.array(ordered), low, high, bits).tolist()
    assert all(0 <= code < 2**bits for code in codes)
    for (key, code), (next_key, next_code) in zip(
        zip(ordered, codes, strict=True), zip(ordered[1:], codes[1:], strict=True), strict=False
    ):
        assert next_code <= code, (key, next_key)
        if key == next_key:  # -0.0 == 0.0 too
            assert next_code == code


def test_the_code_tells_apart_what_its_bits_can() -> None:
    keys = np.array([math.inf, 3.0, 2.0, 1.0, 0.0, -0.0, -math.inf])
    assert packed.descending_codes(keys, 0.0, 3.0, 8).tolist() == [0, 0, 85, 170, 255, 255, 255]


# --- positions against the reference -------------------------------------------------

_rows = st.lists(
    st.tuples(
        st.sampled_from(["sysA", "sysB"]),
        st.sampled_from(["q1", "q10", "q9", "Q"]),
        st.sampled_from(DOC_IDS),
        st.sampled_from(SCORES),
    ),
    min_size=1,
    max_size=80,
    unique_by=lambda row: row[:3],
)


def _colliding(query_ids: pl.Expr, _hash: Any = packed_rankings.query_hash) -> pl.Expr:
    """The query ids hashed to 0 or 1: distinct ids share a hash."""
    return _hash(query_ids) % 2


def _in_chunks(collect: Any, pieces: int) -> Any:
    """Wrap the pass's collect: every frame it returns comes in ``pieces`` chunks."""

    def collect_in_chunks(*args: Any, **kwargs: Any) -> list[pl.DataFrame]:
        frames = collect(*args, **kwargs)
        out = []
        for frame in frames:
            size = -(-frame.height // pieces) or 1
            parts = [frame.slice(i * size, size) for i in range(pieces)]
            out.append(pl.concat(parts, rechunk=False))
        return out

    return collect_in_chunks


@settings(max_examples=150, deadline=None)
@given(
    rows=_rows,
    seed=st.integers(0, 10_000),
    one_bit=st.booleans(),
    pieces=st.sampled_from([1, 2, 3, 7]),
    hashing=st.sampled_from(["table", "shared slots", "collisions"]),
    group_steps=st.sampled_from([8, 1, 0]),
    meanwhile=st.booleans(),
)
def test_shuffled_runs_get_trec_evals_positions(
    rows: list[Row],
    seed: int,
    one_bit: bool,
    pieces: int,
    hashing: str,
    group_steps: int,
    meanwhile: bool,
) -> None:
    rng = random.Random(seed)
    rng.shuffle(rows)
    labelled = sorted({(q, d) for _, q, d, _ in rows if rng.random() < 0.6})
    expected = {k: v for k, v in reference_positions(rows).items() if k[1:] in set(labelled)}
    with pytest.MonkeyPatch.context() as patch:
        if one_bit:  # codes of one bit: most groups hold unequal keys
            patch.setattr(packed, "_MOST_CODE_BITS", 1)
        if pieces > 1:  # the rows in several chunks, packed on two threads as a large run's
            patch.setattr(run_pass, "collect_frames", _in_chunks(run_pass.collect_frames, pieces))
            patch.setattr(packed, "_PACKED_ON_TWO_THREADS", 1)
        # a tied group's end found row by row, then by a search (0: searched at once)
        patch.setattr(packed, "_GROUP_STEPS", group_steps)
        if meanwhile:  # as a large run: labelled rows, ids and names checked on a thread
            patch.setattr(packed_pass, "CHECKED_MEANWHILE", 1)
            patch.setattr(run_pass, "CHECKED_MEANWHILE", 1)
        if hashing == "shared slots":  # a table of 2 slots: most hashes searched for
            patch.setattr(packed_rankings, "_TABLE_BITS", (1, 1))
        if hashing == "collisions":  # ids of one hash: numbered by their rank instead
            patch.setattr(packed_rankings, "query_hash", _colliding)
            patch.setattr(packed_hits, "query_hash", _colliding)
        assert _positions(rows, labelled) == expected


def test_a_shuffled_run_takes_the_packed_numbering(plans: list[str]) -> None:
    rows = [("s", f"q{q}", f"d{d}", float(d % 7)) for q in range(30) for d in range(40)]
    random.Random(1).shuffle(rows)
    labelled = [(q, d) for _, q, d, _ in rows[::4]]
    assert _positions(rows, labelled) == {
        k: v for k, v in reference_positions(rows).items() if k[1:] in set(labelled)
    }
    assert plans == ["packed"]


def test_numbers_without_room_for_the_code_are_ranked_instead(
    plans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packed, "_MOST_CODE_BITS", 0)
    rows = [("s", "q", f"d{d}", float(d % 3)) for d in range(20)]
    random.Random(2).shuffle(rows)
    labelled = [("q", f"d{d}") for d in range(0, 20, 3)]
    assert _positions(rows, labelled) == {
        k: v for k, v in reference_positions(rows).items() if k[1:] in set(labelled)
    }
    assert plans == ["packed", "ranked"]


def test_a_missing_query_id_is_refused(plans: list[str]) -> None:
    frame = pl.DataFrame(
        {"system": "s", "query_id": ["q", None], "doc_id": ["a", "b"], "score": [1.0, 2.0]}
    )
    labels = pl.LazyFrame({"query_id": ["q"], "doc_id": ["a"], "grade": [1.0]})
    with pytest.raises(SchemaError, match=r"1 run row\(s\) have no query_id"):
        measure_pass(_runs(frame), labels, None, "streaming", (), list)
    assert plans == ["packed"]


# --- files against pytrec_eval --------------------------------------------------------

CUTOFFS = (1, 3, 5, 10)
METRICS = ["ndcg@10", "ap", "rr", "precision@3", "recall@5", "ndcg", "num_ret", "num_rel_ret"]
NAMES = {
    "ndcg@10": "ndcg_cut_10",
    "ap": "map",
    "rr": "recip_rank",
    "precision@3": "P_3",
    "recall@5": "recall_5",
    "ndcg": "ndcg",
    "num_ret": "num_ret",
    "num_rel_ret": "num_rel_ret",
}
# Exact as float32 too (pytrec_eval keeps float32 scores): the two trec_evals agree.
FLOAT32_SCORES = (-math.inf, -1.0, -0.0, 0.0, 2.0**-100, 0.5, 1.5, 2.0, math.inf)


def _shuffled_case(seed: int, scores: tuple[float, ...]) -> tuple[list[Row], dict[str, Any]]:
    rng = random.Random(seed)
    rows: list[Row] = []
    qrels: dict[str, dict[str, int]] = {}
    for q in range(12):
        query = f"{q}" if q % 3 else f"q{q}é"
        docs = rng.sample([*DOC_IDS, *(f"d{i}" for i in range(30))], rng.randint(3, 35))
        rows += [("run", query, doc, rng.choice(scores)) for doc in docs]
        judged = rng.sample(docs, min(len(docs), rng.randint(1, 8)))
        qrels[query] = {doc: rng.choice([0, 1, 1, 2, 3]) for doc in judged}
        qrels[query][rng.choice(docs)] = 1  # a relevant retrieved document
    rng.shuffle(rows)
    return rows, qrels


def _write(rows: list[Row], qrels: dict[str, Any], folder: Path) -> tuple[Path, Path, Path]:
    frame = pl.DataFrame(rows, schema=["system", "query_id", "doc_id", "score"], orient="row")
    parquet = folder / "run.parquet"
    frame.drop("system").write_parquet(parquet)
    text = folder / "run.trec"
    lines = [f"{q} Q0 {d} {i + 1} {s!r} run" for i, (_, q, d, s) in enumerate(rows)]
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    labels = folder / "qrels.txt"
    labels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()),
        encoding="utf-8",
    )
    return parquet, text, labels


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_shuffled_files_equal_pytrec_eval(
    seed: int,
    precision: str,
    tmp_path: Path,
    plans: list[str],
    pytrec_worker: PytrecEvalWorker,
) -> None:
    scores = FLOAT32_SCORES if precision == "float64" else (3.0, 3.0000001, 1.0, 1.00000001)
    rows, qrels = _shuffled_case(seed, scores)
    run = {}
    for _, query, doc, score in rows:
        run.setdefault(query, {})[doc] = score
    expected = reference(pytrec_worker, qrels, run, relevance_level=1, cutoffs=CUTOFFS)
    for path in _write(rows, qrels, tmp_path)[:2]:
        plans.clear()
        result = rankset.evaluate(
            path, tmp_path / "qrels.txt", METRICS, confidence=None, score_precision=precision
        )
        assert plans == ["packed"], path.name
        got = {
            (q, m): v for q, m, v in result.per_query.select("query_id", "metric", "value").rows()
        }
        wrong = [
            (query, metric, got[query, metric], values[NAMES[metric]])
            for query, values in expected.items()
            for metric in METRICS
            if got[query, metric] != values[NAMES[metric]]
        ]
        assert not wrong, (path.name, wrong[:5])


def test_a_hash_collision_in_a_shuffled_run_changes_nothing(
    plans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [("s", f"q{q}", f"d{d}", float(d % 5)) for q in range(5) for d in range(30)]
    random.Random(4).shuffle(rows)
    labelled = [(q, d) for _, q, d, _ in rows[::3]]
    expected = _positions(rows, labelled)
    seven = pl.DataFrame({"_hash": [7, 7]}, schema={"_hash": pl.UInt64})
    monkeypatch.setattr(packed_pass, "row_hashes", lambda rows: seven)  # every hash equal
    assert _positions(rows, labelled) == expected
    assert plans == ["packed", "packed"]


def test_a_duplicate_in_a_shuffled_run_is_refused(plans: list[str]) -> None:
    rows = [("s", "q", f"d{d}", float(d)) for d in range(40)] + [("s", "q", "d7", 0.5)]
    random.Random(5).shuffle(rows)
    with pytest.raises(SchemaError, match=r"duplicate documents.*doc 'd7' \(2 times\)"):
        _positions(rows, [("q", "d7")])
    assert plans == ["packed"]


def test_a_readers_ranking_numbers_number_the_run_as_its_codes_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A large dict's reader numbers each row's ranking (in the dict's order, not the
    # ids'); the packed pass takes those numbers instead of coding the query ids.
    rng = random.Random(7)
    queries = [f"q{q}" for q in rng.sample(range(40), 40)]  # "q10" before "q9" and after
    run = {
        q: {f"d{d}": float(rng.randrange(8)) for d in rng.sample(range(90), 70)} for q in queries
    }
    rows = [("run", q, d, score) for q, docs in run.items() for d, score in docs.items()]
    labelled = sorted({(q, d) for _, q, d, _ in rows if rng.random() < 0.3})
    labels = pl.LazyFrame(
        {"query_id": [q for q, _ in labelled], "doc_id": [d for _, d in labelled]},
        schema={"query_id": pl.String, "doc_id": pl.String},
    ).with_columns(grade=pl.lit(1.0))
    given = packed.packed_rows
    numbered: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        numbered.append(kwargs.get("ranking_numbers") is not None)
        return given(*args, **kwargs)

    monkeypatch.setattr(packed_pass, "packed_rows", spy)
    runs = assign_system_names(
        read_runs(run, None), order="auto", duplicates="error", engine="streaming"
    )
    part = runs.inputs[0]
    assert part.ranking_numbers is not None  # the reader's numbers, past 2,000 rows
    results = []
    for numbers in (part.ranking_numbers, None):
        parts = [dataclasses.replace(part, row_order="any", ranking_numbers=numbers)]
        hits, counts, _ = measure_pass(
            dataclasses.replace(runs, inputs=parts), labels, None, "streaming", (), list
        )
        results.append((hits, counts))
    assert numbered == [True, False]
    (hits, counts), (coded_hits, coded_counts) = results
    assert hits.equals(coded_hits)
    assert counts.equals(coded_counts)
    assert counts["query_id"].to_list() == sorted(queries)  # by name, as the codes give
    expected = {k: v for k, v in reference_positions(rows).items() if k[1:] in set(labelled)}
    assert {(s, q, d): p for s, q, d, p in hits.select(*GROUP, "doc_id", "pos").rows()} == expected


def test_ranking_numbers_over_several_systems_name_each_ranking_by_its_first_row() -> None:
    # As a mapping of runs read into one frame would number them: one block per ranking.
    rng = random.Random(8)
    rows = [
        (system, query, f"d{d}", float(rng.randrange(4)))
        for system in ("sysB", "sysA")
        for query in ("q2", "q10", "q1")
        for d in range(25)
    ]
    labelled = sorted({(q, d) for _, q, d, _ in rows if rng.random() < 0.4})
    frame = pl.DataFrame(
        rows,
        schema=["system", "query_id", "doc_id", "score"],
        orient="row",
        infer_schema_length=None,
    )
    labels = pl.LazyFrame(
        {"query_id": [q for q, _ in labelled], "doc_id": [d for _, d in labelled]},
        schema={"query_id": pl.String, "doc_id": pl.String},
    ).with_columns(grade=pl.lit(1.0))
    runs = _runs(frame)
    numbers = pl.Series(np.repeat(np.arange(6), 25), dtype=pl.UInt32).set_sorted()
    given = [dataclasses.replace(runs.inputs[0], ranking_numbers=numbers)]
    hits, counts, _ = measure_pass(
        dataclasses.replace(runs, inputs=given), labels, None, "streaming", (), list
    )
    coded_hits, coded_counts, _ = measure_pass(runs, labels, None, "streaming", (), list)
    assert hits.equals(coded_hits)
    assert counts.equals(coded_counts)
    assert counts.select(GROUP).rows() == sorted({(s, q) for s, q, _, _ in rows})


def test_a_duplicate_is_refused_in_a_run_its_reader_numbered() -> None:
    rows = [("s", "q", f"d{d}", float(d % 3)) for d in range(30)] + [("s", "r", "d1", 1.0)]
    rows.insert(12, ("s", "q", "d7", 0.5))
    frame = pl.DataFrame(rows, schema=["system", "query_id", "doc_id", "score"], orient="row")
    runs = _runs(frame)
    numbers = pl.Series([0] * 31 + [1], dtype=pl.UInt32).set_sorted()
    given = [dataclasses.replace(runs.inputs[0], ranking_numbers=numbers)]
    labels = pl.LazyFrame({"query_id": ["q"], "doc_id": ["d7"], "grade": [1.0]})
    with pytest.raises(SchemaError, match=r"duplicate documents.*doc 'd7' \(2 times\)"):
        measure_pass(dataclasses.replace(runs, inputs=given), labels, None, "streaming", (), list)


# --- the document ids' ranks in the packed integers (issue 49) ----------------------


@pytest.fixture
def tie_groups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls that put tie groups in order (the step the ranks make needless)."""
    calls: list[int] = []
    original = packed._places_within_groups

    def counted(*args: Any) -> Any:
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(packed, "_places_within_groups", counted)
    return calls


def _shuffled(scores: tuple[float, ...], seed: int) -> tuple[list[Row], list[tuple[str, str]]]:
    rng = random.Random(seed)
    rows = [
        (system, query, doc, rng.choice(scores))
        for system in ("sysB", "sysA")
        for query in ("q1", "q2", "q10")
        for doc in DOC_IDS
    ]
    rng.shuffle(rows)
    labelled = sorted({(q, d) for _, q, d, _ in rows if rng.random() < 0.7})
    return rows, labelled


@pytest.mark.parametrize("seed", range(5))
def test_few_ids_with_exact_codes_need_no_tie_groups(seed: int, tie_groups: list[int]) -> None:
    # hundredths, and both zeros: ties everywhere, every distinct key its own code
    rows, labelled = _shuffled((-0.0, 0.0, 0.25, 0.5, 0.75, -1.0), seed)
    expected = reference_positions(rows)
    got = _positions(rows, labelled)
    assert got == {k: v for k, v in expected.items() if k[1:] in set(labelled)}
    assert tie_groups == []


@pytest.mark.parametrize(
    "scores",
    [
        (0.0, -0.0, 5e-324, 1e300),  # the subnormal shares zero's code
        (1.0, 2.0, math.inf, -math.inf),  # the largest finite key shares infinity's
    ],
)
def test_keys_the_code_cannot_tell_apart_keep_the_tie_groups(
    scores: tuple[float, ...], tie_groups: list[int]
) -> None:
    rows, labelled = _shuffled(scores, 7)
    expected = reference_positions(rows)
    got = _positions(rows, labelled)
    assert got == {k: v for k, v in expected.items() if k[1:] in set(labelled)}
    assert tie_groups != []


def test_codes_are_exact_only_when_each_distinct_key_has_its_own() -> None:
    def exact(keys: list[float], bits: int) -> bool:
        series = pl.Series(keys, dtype=pl.Float64)
        finite = [k for k in keys if math.isfinite(k)]
        low, high = (min(finite), max(finite)) if finite else (None, None)
        return packed._codes_exact(series, low, high, bits)

    assert exact([-0.0, 0.0, 1.0, 0.5], 2)  # the zeros are one key
    assert not exact([0.0, 0.25, 0.5, 0.75, 1.0], 2)  # five keys, four codes
    assert exact([0.0, 0.25, 0.5, 0.75, 1.0], 3)
    assert not exact([1.0, 2.0, math.inf], 52)  # 2.0 and inf: both the best code
    assert not exact([0.0, 5e-324, 1.0], 52)


def test_ids_are_ranked_in_descending_byte_order() -> None:
    ids = pl.Series(["é", "z", "10", "9", "日本", "z", "Z"])
    ranks, hit_ranks, bits = packed._doc_ranks(
        packed.coded_doc_ids(ids), pl.Series(["9", "日本"]), 0
    )
    by_bytes = sorted(set(ids.to_list()), key=str.encode, reverse=True)
    assert ranks.tolist() == [by_bytes.index(d) for d in ids.to_list()]
    assert hit_ranks.tolist() == [by_bytes.index("9"), by_bytes.index("日本")]
    assert bits == 3  # six distinct ids
    assert ranks.dtype == np.uint64


def test_many_dict_runs_skip_the_peek_and_equal_pytrec_eval(
    monkeypatch: pytest.MonkeyPatch, tie_groups: list[int]
) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(49)
    docs = [*DOC_IDS, *(f"d{d}" for d in range(40))]
    labels = {f"q{q}": {d: rng.randrange(4) for d in rng.sample(docs, 15)} for q in range(20)}
    zeros = (-0.0, 0.0)
    runs = {
        f"run{i}": {
            f"q{i % 20}": {
                d: rng.choice(zeros) if rng.random() < 0.2 else round(rng.random(), 1) for d in docs
            }
        }
        for i in range(60)  # 3,000 rows: past the first rows' look
    }
    assert sum(len(d) for run in runs.values() for d in run.values()) > run_pass.PEEK_ROWS

    def no_peek(*args: Any) -> Any:
        raise AssertionError("looked at the first rows of runs their reader numbered")

    monkeypatch.setattr(run_pass, "first_rows_order", no_peek)
    metrics = ["ndcg@10", "ap", "rr", "recall@100", "precision@10"]
    trec = ["ndcg_cut_10", "map", "recip_rank", "recall_100", "P_10"]
    reference = pytrec_eval.RelevanceEvaluator(
        labels, {"ndcg_cut.10", "map", "recip_rank"} | {"recall.100", "P.10"}
    )
    got = Evaluator(labels, metrics).values(runs)
    for name, run in runs.items():
        want = reference.evaluate(run)
        assert got[name] == {
            q: {m: want[q][t] for m, t in zip(metrics, trec, strict=True)} for q in want
        }
    assert tie_groups == []


def test_a_run_of_many_distinct_ids_keeps_the_tie_groups(tie_groups: list[int]) -> None:
    # 6,000 rows, each id once: coding the ids would cost more than the step it saves
    rows = [("s", f"q{q}", f"d{q}-{d}", float(d % 5)) for q in range(30) for d in range(200)]
    random.Random(3).shuffle(rows)
    labelled = [(q, d) for _, q, d, _ in rows[::7]]
    expected = reference_positions(rows)
    assert _positions(rows, labelled) == {
        k: v for k, v in expected.items() if k[1:] in set(labelled)
    }
    assert tie_groups != []


@pytest.mark.parametrize("bad", ["", " d1", "d\x07", "d1 "])
def test_a_bad_id_among_coded_ids_is_refused(bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the ids' problems counted on the distinct ids the packed numbering coded
    coded: list[bool] = []
    original = packed_pass.coded_doc_ids

    def spied(doc_ids: pl.Series) -> pl.Series | None:
        result = original(doc_ids)
        coded.append(result is not None)
        return result

    monkeypatch.setattr(packed_pass, "coded_doc_ids", spied)
    rows = [("s", f"q{q}", f"d{d}", float(d % 3)) for q in range(5) for d in range(20)]
    rows[37] = ("s", "q1", bad, 1.0)
    random.Random(4).shuffle(rows)
    with pytest.raises(SchemaError, match="document id"):
        _positions(rows, [("q1", "d2")])
    assert coded == [True]
