"""The benchmark workloads: one set of rankings written with three tie orders.

``benchmarks/run.py`` times every tool on each tie order and compares their values, so
its verdicts rest on what is checked here, on the ``small`` workload (1,000 x 100):

* the three files hold the same rows (Parquet and TREC text alike), each ranking one
  block with scores never rising and the rank column counting the lines;
* tied documents come in the order named: descending ids (trec_eval's), ascending ids
  (Anserini's), or neither (random);
* rankset gives every tie order the values it gives trec_eval's, bit for bit, and they
  equal pytrec_eval's, which sorts each ranking itself.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset

ROOT = Path(__file__).resolve().parents[2]
ORDERS = ("trec_eval", "ascending", "random")
METRICS = ["ndcg@10", "ap", "rr", "recall@100", "P@10"]


def _benchmark_module(name: str) -> ModuleType:
    """Load a script of benchmarks/ as it runs: its folder first on the import path."""
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", ROOT / "benchmarks" / f"{name}.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("small")
    _benchmark_module("generate").generate("small", out, seed=3)
    return out


def _stem(ties: str) -> str:
    return "run" if ties == "trec_eval" else f"run-{ties}"


def _run(workload: Path, ties: str) -> pl.DataFrame:
    return pl.read_parquet(workload / f"{_stem(ties)}.parquet")


def test_every_tie_order_holds_the_same_rows_in_text_and_parquet(workload: Path) -> None:
    key = ["query_id", "doc_id"]
    expected = _run(workload, "trec_eval").drop("rank").sort(key)
    for ties in ORDERS:
        frame = _run(workload, ties)
        assert_frame_equal(frame.drop("rank").sort(key), expected)
        text = pl.read_csv(
            workload / f"{_stem(ties)}.trec",
            separator=" ",
            has_header=False,
            new_columns=["query_id", "q0", "doc_id", "rank", "score", "tag"],
            schema_overrides={"query_id": pl.String, "doc_id": pl.String},
        )
        assert_frame_equal(text.select(frame.columns), frame)


def test_each_ranking_is_one_block_sorted_by_score_with_ranks_as_written(workload: Path) -> None:
    for ties in ORDERS:
        frame = _run(workload, ties)
        blocks = frame.select((pl.col("query_id") != pl.col("query_id").shift(1)).sum()).item()
        assert blocks == frame["query_id"].n_unique() - 1
        checks = frame.group_by("query_id").agg(
            (pl.col("score").diff() <= 0).all().alias("descending"),
            (pl.col("rank") == pl.int_range(1, pl.len() + 1)).all().alias("ranks"),
        )
        assert checks["descending"].all(), ties
        assert checks["ranks"].all(), ties


def test_ties_come_in_the_order_named(workload: Path) -> None:
    steps = {}  # each row tied with the one before it: does the doc id go up?
    for ties in ORDERS:
        tied = (pl.col("query_id") == pl.col("query_id").shift(1)) & (
            pl.col("score") == pl.col("score").shift(1)
        )
        up = pl.col("doc_id") > pl.col("doc_id").shift(1)
        steps[ties] = _run(workload, ties).select(tied.alias("tied"), up.alias("up")).filter("tied")
        assert steps[ties].height > 1_000, ties  # two-decimal scores: many ties
    assert not steps["trec_eval"]["up"].any()
    assert steps["ascending"]["up"].all()
    share_up = steps["random"]["up"].cast(pl.Float64).mean()
    assert isinstance(share_up, float)
    assert 0.4 < share_up < 0.6


def test_rankset_gives_every_tie_order_the_values_of_trec_evals(workload: Path) -> None:
    def values(ties: str, suffix: str) -> pl.DataFrame:
        labels = workload / ("qrels.txt" if suffix == ".trec" else "qrels.parquet")
        run = workload / f"{_stem(ties)}{suffix}"
        result = rankset.evaluate(run, labels, METRICS, confidence=None)
        return result.per_query.drop("system")

    expected = values("trec_eval", ".trec")
    for ties in ORDERS:
        for suffix in (".trec", ".parquet"):
            assert_frame_equal(values(ties, suffix), expected, check_exact=True)


def test_every_tie_order_equals_pytrec_eval(workload: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    labels = pl.read_parquet(workload / "qrels.parquet")
    qrels: dict[str, dict[str, int]] = {}
    for query, doc, grade in labels.iter_rows():
        qrels.setdefault(query, {})[doc] = int(grade)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank"})
    names = {"ndcg@10": "ndcg_cut_10", "ap": "map", "rr": "recip_rank"}
    for ties in ORDERS:
        frame = _run(workload, ties)
        run: dict[str, dict[str, float]] = {}
        for query, doc, score in frame.select("query_id", "doc_id", "score").iter_rows():
            run.setdefault(query, {})[doc] = score
        theirs = evaluator.evaluate(run)
        ours = rankset.evaluate(frame, labels, list(names), confidence=None).per_query
        assert ours.height == len(names) * len(theirs)
        for metric, query, value in ours.select("metric", "query_id", "value").iter_rows():
            assert value == pytest.approx(theirs[query][names[metric]], abs=1e-12), (ties, metric)


@pytest.fixture(scope="module")
def shuffled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shuffled")
    _benchmark_module("generate").generate("small", out, seed=3, tie_orders=("shuffled",))
    return out


def test_a_shuffled_run_holds_the_rows_in_no_order(workload: Path, shuffled: Path) -> None:
    key = ["query_id", "doc_id"]
    frame = _run(shuffled, "shuffled")
    # the same rows, each keeping its rank in trec_eval's order
    assert_frame_equal(frame.sort(key), _run(workload, "trec_eval").sort(key))
    starts = frame.select((pl.col("query_id") != pl.col("query_id").shift(1)).sum()).item()
    assert starts > frame.height // 2  # rankings interleaved: a new one on most rows
    assert (frame["score"].diff().drop_nulls() > 0).sum() > frame.height // 3


def test_rankset_gives_a_shuffled_run_the_values_of_trec_evals_order(
    workload: Path, shuffled: Path
) -> None:
    expected = rankset.evaluate(
        workload / "run.trec", workload / "qrels.txt", METRICS, confidence=None
    ).per_query.drop("system")
    for suffix, labels in ((".trec", "qrels.txt"), (".parquet", "qrels.parquet")):
        got = rankset.evaluate(
            shuffled / f"run-shuffled{suffix}", shuffled / labels, METRICS, confidence=None
        )
        assert_frame_equal(got.per_query.drop("system"), expected, check_exact=True)
