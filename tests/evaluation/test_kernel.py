"""The engine-agnostic kernel (rankset.evaluation.cluster without Dask): plan, measure, finish.

What a Ray or Spark job does, done here in one process: partitions measured one by one
(by bucket, or from tables co-partitioned by hand) and finished, must equal
:func:`rankset.evaluate` exactly; partitions that do not hold whole queries, or miss a
bucket, are refused.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from tests._support.pytrec_reference import pytrec_values_in_process

import rankset
from rankset.evaluation import bucket_of
from rankset.evaluation.cluster import finish, measure_bucket, measure_tables, plan_evaluation
from rankset.testing import assert_results_equal

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
QRELS = SAMPLE / "qrels.txt"
RUNS = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]
METRICS = ["ndcg@10", "ap", "rr", "recall@100", "bpref", "ra_nwg@5", "proc@10", "harm@5"]
OPTIONS = {"scale": "trec_dl", "missing": "zero", "pool": SAMPLE / "bm25.trec"}


def _expected() -> rankset.EvaluationResult:
    return rankset.evaluate(RUNS, QRELS, METRICS, **OPTIONS)


def test_buckets_measured_one_by_one_equal_evaluate() -> None:
    plan = plan_evaluation(RUNS, QRELS, METRICS, buckets=6, **OPTIONS)
    parts = [measure_bucket(plan, bucket) for bucket in reversed(range(6))]
    result = finish(plan, parts)
    expected = _expected()
    assert result.per_query.height == expected.per_query.height > 0
    assert_results_equal(result, expected)
    assert result.query_counts.equals(expected.query_counts)


def _split(frame: pl.DataFrame, buckets: int) -> dict[int, pl.DataFrame]:
    keyed = frame.with_columns(_b=bucket_of(pl.col("query_id"), buckets))
    return {b: keyed.filter(pl.col("_b") == b).drop("_b") for b in range(buckets)}


def test_tables_co_partitioned_by_hand_equal_evaluate() -> None:
    """As Spark's cogroup would hand them over: Arrow tables of whole queries."""
    runs = pl.concat(
        [
            rankset.io.scan_run(path).collect().with_columns(system=pl.lit(path.stem))
            for path in RUNS
        ]
    )
    labels = rankset.io.scan_labels(QRELS).collect()
    pool = rankset.io.scan_run(SAMPLE / "bm25.trec").collect()
    plan = plan_evaluation(RUNS, QRELS, METRICS, **OPTIONS)
    run_parts, label_parts, pool_parts = _split(runs, 4), _split(labels, 4), _split(pool, 4)
    parts = [
        measure_tables(
            plan,
            run_parts[b].to_arrow(),
            label_parts[b].to_arrow(),
            pool=pool_parts[b].to_arrow(),
        )
        for b in range(4)
    ]
    result = finish(plan, parts)
    assert_results_equal(result, _expected())


def test_a_missing_or_repeated_bucket_is_refused() -> None:
    plan = plan_evaluation(RUNS, QRELS, ["ap"], buckets=3)
    parts = [measure_bucket(plan, bucket) for bucket in range(3)]
    with pytest.raises(rankset.ClusterError, match=r"missing: \[1\]"):
        finish(plan, [parts[0], parts[2]])
    with pytest.raises(rankset.ClusterError, match=r"measured twice: \[2\]"):
        finish(plan, [*parts, parts[2]])
    with pytest.raises(rankset.ClusterError, match="No partition"):
        finish(plan, [])


def test_a_query_split_between_tables_is_refused() -> None:
    runs = rankset.io.scan_run(RUNS[0]).collect()
    labels = rankset.io.scan_labels(QRELS).collect()
    plan = plan_evaluation(RUNS[0], QRELS, ["ap"])
    cut = runs.filter(pl.col("query_id") == runs["query_id"][0]).height // 2
    halves = [runs.head(cut), runs.tail(runs.height - cut)]  # the first query cut in two
    parts = []
    for half in halves:
        queries = half["query_id"].unique().implode()
        parts.append(measure_tables(plan, half, labels.filter(pl.col("query_id").is_in(queries))))
    with pytest.raises(rankset.ClusterError, match="more than one partition"):
        finish(plan, parts)


def test_kernel_parameter_errors() -> None:
    plan = plan_evaluation(RUNS[0], QRELS, ["ap", "proc@5"], pool=RUNS[0], scale="trec_dl")
    run = rankset.io.scan_run(RUNS[0]).collect()
    labels = rankset.io.scan_labels(QRELS).collect()
    with pytest.raises(rankset.ParameterError, match="'system' column"):
        measure_tables(plan, run.drop("system"), labels, pool=run)
    with pytest.raises(rankset.ParameterError, match="has a pool"):
        measure_tables(plan, run, labels)
    with pytest.raises(rankset.ParameterError, match="buckets=N"):
        measure_bucket(plan, 0)
    bucketed = plan_evaluation(RUNS[0], QRELS, ["ap"], buckets=2)
    with pytest.raises(rankset.ParameterError, match=r"0\.\.1"):
        measure_bucket(bucketed, 2)
    with pytest.raises(rankset.ParameterError, match="another engine"):
        plan_evaluation(RUNS[0], QRELS, ["ap"], engine="dask")
    with pytest.raises(rankset.ParameterError, match="unexpected option"):
        plan_evaluation(RUNS[0], QRELS, ["ap"], confidence=0.9)


@pytest.mark.parametrize("highest", [None, 5])
def test_short_rankings_read_the_discount_without_python(
    monkeypatch: pytest.MonkeyPatch, highest: int | None
) -> None:
    """Positions below the log2 table's size are read by Polars, with pytrec_eval's values."""
    import random

    from rankset.evaluation import Evaluator
    from rankset.evaluation import _kernel as kernel

    pytrec_eval = pytest.importorskip("pytrec_eval")
    if highest is not None:  # rankings reach past the bound: the Python discount stays
        monkeypatch.setattr(kernel, "POSITIONS_BELOW", highest)
    udf_in_plan: list[bool] = []
    original = kernel._run_rows

    def spied(*args: object, **options: bool) -> pl.LazyFrame:
        rows = original(*args, **options)  # type: ignore[arg-type]
        udf_in_plan.append("python_udf" in rows.explain())
        return rows

    monkeypatch.setattr(kernel, "_run_rows", spied)
    rng = random.Random(5)
    labels = {f"q{q}": {f"d{d}": rng.randrange(4) for d in range(0, 30, 3)} for q in range(4)}
    runs = {
        f"r{i}": {f"q{i % 4}": {f"d{d}": round(rng.random(), 1) for d in range(30)}}
        for i in range(8)
    }
    # duplicates="keep_best": the general kernel measures them (not the fused plan)
    got = Evaluator(labels, ["ndcg@10", "ndcg"], duplicates="keep_best").values(runs)
    reference = pytrec_eval.RelevanceEvaluator(labels, {"ndcg_cut.10", "ndcg"})
    for name, run in runs.items():
        want = reference.evaluate(run)
        assert got[name] == {
            q: {"ndcg@10": want[q]["ndcg_cut_10"], "ndcg": want[q]["ndcg"]} for q in want
        }
    assert udf_in_plan == [highest is not None]


def test_labels_are_put_in_byte_order_of_query_then_document() -> None:
    # The labels' canonical order (one struct key) is Python's order of the ids'
    # UTF-8 bytes, query first: prefixes, empty strings, accents, other planes.
    import random

    # The query ids are flagged sorted: Polars' own order of them must be that order.
    from rankset.evaluation._kernel_labels import in_label_order

    rng = random.Random(3)
    alphabet = ["a", "b", "A", "é", "中", "\U0001f600", " ", "aa", "", "0"]

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(5)))

    for _ in range(50):
        pairs = list({(text(), text()) for _ in range(rng.randrange(1, 200))})
        frame = pl.DataFrame(pairs, schema=["query_id", "doc_id"], orient="row")
        ordered = in_label_order(frame.lazy()).collect(engine="in-memory")
        in_bytes = sorted(pairs, key=lambda pair: (pair[0].encode(), pair[1].encode()))
        assert ordered.rows() == in_bytes
        assert ordered["query_id"].flags["SORTED_ASC"]
        assert ordered["query_id"].to_list() == frame["query_id"].sort().to_list()
        eager = in_label_order(frame)
        assert eager.equals(ordered)
        assert eager["query_id"].flags["SORTED_ASC"]


def test_rankings_of_two_systems_for_one_query_are_aggregated_apart() -> None:
    # The labelled rows are grouped by each ranking's run of rows (in rank order): the
    # system's last ranking and the next system's first share their query id here.
    run = pl.DataFrame(
        {
            "system": ["a", "a", "a", "a", "b", "b"],
            "query_id": ["q1", "q1", "q2", "q2", "q2", "q2"],
            "doc_id": ["d1", "d2", "d3", "d4", "d4", "d3"],
            "score": [3.0, 2.0, 3.0, 2.0, 3.0, 2.0],
        }
    )
    labels = {"q1": {"d2": 1}, "q2": {"d3": 1, "d5": 1}}
    result = rankset.evaluate(run, labels, ["rr", "recall@2", "num_ret"], confidence=None)
    values = {
        (system, query, metric): value
        for system, query, metric, value in result.per_query.select(
            "system", "query_id", "metric", "value"
        ).iter_rows()
    }
    # by hand: a ranks q1's relevant d2 second and q2's d3 first; b ranks d3 second
    assert values == {
        ("a", "q1", "rr"): 0.5,
        ("a", "q1", "recall@2"): 1.0,
        ("a", "q1", "num_ret"): 2.0,
        ("a", "q2", "rr"): 1.0,
        ("a", "q2", "recall@2"): 0.5,
        ("a", "q2", "num_ret"): 2.0,
        ("b", "q2", "rr"): 0.5,
        ("b", "q2", "recall@2"): 0.5,
        ("b", "q2", "num_ret"): 2.0,
    }


@pytest.mark.parametrize("where", ["next-to-it", "far-apart"])
def test_a_pair_labelled_twice_is_refused_wherever_it_is(where: str, tmp_path: Path) -> None:
    lines = [f"q{q} 0 d{d} {d % 3}" for q in range(3) for d in range(20)]
    repeat = "q1 0 d7 2"  # q1's d7 is labelled 1 above: two grades
    at = lines.index("q1 0 d7 1") + 1 if where == "next-to-it" else len(lines)
    lines.insert(at, repeat)
    (tmp_path / "qrels.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "run.trec").write_text(
        "".join(f"q{q} Q0 d{d} {d + 1} {20 - d} r\n" for q in range(3) for d in range(20))
    )
    with pytest.raises(
        rankset.SchemaError,
        match=r"labelled more than once for a query \(first: query 'q1' doc 'd7' \(2 rows, "
        r"grades \[1\.0, 2\.0\]\)\)",
    ):
        rankset.evaluate(tmp_path / "run.trec", tmp_path / "qrels.txt", ["ap"], confidence=None)
    # the same documents for other queries, other documents for the same query: no repeat
    lines.remove(repeat)
    lines += ["q3 0 d7 1", "q1 0 d70 1"]
    (tmp_path / "qrels.txt").write_text("\n".join(lines) + "\n")
    result = rankset.evaluate(tmp_path / "run.trec", tmp_path / "qrels.txt", ["ap"])
    assert result.per_query.height == 3


@pytest.mark.parametrize("scanned_from", [0, 10**9], ids=["bytes", "masks"])
@pytest.mark.parametrize(
    ("query_id", "doc_id", "grade", "problem"),
    [
        ("q1", "d\x01", 1.0, "a doc_id with a control character"),
        (" q1", "d2", 1.0, "a query_id with a leading or trailing space"),
        ("q1", "d2", float("nan"), "a grade that is not a finite number (NaN or infinite)"),
    ],
)
def test_a_bad_label_is_named_whichever_way_the_ids_are_counted(
    query_id: str,
    doc_id: str,
    grade: float,
    problem: str,
    scanned_from: int,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from rankset.evaluation import _kernel_labels as kernel_labels

    monkeypatch.setattr(kernel_labels, "LABELS_SCANNED_FROM", scanned_from)
    labels = pl.DataFrame(
        {"query_id": ["q1", query_id], "doc_id": ["d1", doc_id], "grade": [1.0, grade]}
    )
    (tmp_path / "run.trec").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    with pytest.raises(
        rankset.SchemaError, match=rf"1 label row\(s\) have {re.escape(problem)} \(first: row 2"
    ):
        rankset.evaluate(tmp_path / "run.trec", labels, ["ap"], confidence=None)


@pytest.mark.parametrize("beside", [False, True])
def test_labels_checked_beside_the_numbering_give_the_same_values_and_errors(
    beside: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A large run's labels are checked and summarised on a thread of their own while
    # its rankings are numbered (here any run, the threshold lowered): the values are
    # pytrec_eval's, a bad label is named as before, and a bad run row is still the
    # error raised when the labels are bad too.
    import random
    import threading

    from rankset.evaluation import _kernel as kernel
    from rankset.evaluation import _pass as run_pass

    pytest.importorskip("pytrec_eval")
    on_main: list[bool] = []
    summarised = kernel.labels_beside

    def spy(*args: Any) -> Any:
        on_main.append(threading.current_thread() is threading.main_thread())
        return summarised(*args)

    monkeypatch.setattr(kernel, "labels_beside", spy)
    if beside:
        monkeypatch.setattr(run_pass, "CHECKED_MEANWHILE", 1)
    rng = random.Random(5)
    rows = [(f"q{q}", f"d{d}", float(rng.randrange(6))) for q in range(4) for d in range(30)]
    rng.shuffle(rows)  # in no order: the packed numbering
    run = tmp_path / "run.parquet"
    pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row").write_parquet(run)
    judged = {(f"q{q}", f"d{d}"): rng.randrange(3) for q in range(4) for d in range(0, 30, 3)}
    labels = pl.DataFrame(
        [(q, d, float(g)) for (q, d), g in judged.items()],
        schema=["query_id", "doc_id", "grade"],
        orient="row",
    )
    got = rankset.evaluate(run, labels, ["ndcg@10", "ap"], confidence=None).per_query
    assert on_main == [not beside]
    measures = {"ndcg@10": ("ndcg_cut.10", "ndcg_cut_10"), "ap": ("map", "map")}
    values = {(q, m): v for q, m, v in got.select("query_id", "metric", "value").rows()}
    assert values == pytrec_values_in_process(rows, judged, measures)
    bad_labels = labels.with_columns(pl.col("doc_id").str.replace("^d3$", " d3"))
    with pytest.raises(rankset.SchemaError, match="leading or trailing space"):
        rankset.evaluate(run, bad_labels, ["ap"], confidence=None)
    bad_run = pl.read_parquet(run).with_columns(pl.col("doc_id").str.replace("^d7$", "d\x017"))
    bad_run.write_parquet(run)
    with pytest.raises(rankset.SchemaError, match=r"run row\(s\) have a doc_id with a control"):
        rankset.evaluate(run, bad_labels, ["ap"], confidence=None)
