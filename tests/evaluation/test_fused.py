"""One run in memory measured in one collect: the general kernel's result, or it.

``Evaluator.values``, ``Evaluator.evaluate`` and ``rankset.evaluate`` (one dict or frame)
take the one-collect path. It must give exactly what the general path gives (the
whole-plan evaluation, :func:`_general`: the reference here), and hand every run it has
something to say about (bad ids or scores, duplicates, several systems, no labelled
query) to the general kernel, whose errors and warnings are the ones users know.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset import io as rio
from rankset.errors import ParameterError, RanksetWarning, SchemaError
from rankset.evaluation import Evaluator, _prepared
from rankset.evaluation._evaluate import evaluate_with, plan_and_measure
from rankset.evaluation._options import EvaluateOptions
from rankset.evaluation._prepared import result_of
from rankset.measures import parse_metrics

from .test_evaluator import _classic_metrics


class _KernelCalls:
    """Counts the runs the general kernel measured for Evaluator.values."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        general = _prepared.measure_queries

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return general(*args, **kwargs)

        monkeypatch.setattr(_prepared, "measure_queries", counted)


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> _KernelCalls:
    return _KernelCalls(monkeypatch)


def _ties(seed: int, queries: int = 30) -> tuple[dict[str, Any], dict[str, Any]]:
    """Scores in tenths (many ties); label queries without a ranking and the reverse;
    rankings whose documents carry no label."""
    rng = random.Random(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        qid = f"q{q:02d}"
        if q % 6 != 2:
            depth = rng.randrange(1, 50)
            run[qid] = {f"d{rng.randrange(70)}": rng.randrange(8) / 10 for _ in range(depth)}
        if q % 9 != 4:
            graded = {f"d{rng.randrange(70)}": rng.randrange(-1, 4) for _ in range(12)}
            graded[f"d{rng.randrange(70)}"] = 2
            qrels[qid] = graded
    run["q29"] = {"unjudged1": 0.5, "unjudged2": 0.5}  # a ranking without labelled rows
    return run, qrels


def _general(
    run: Any, qrels: Any, metrics: list[str], *, confidence: float | None = 0.95, **options: Any
) -> rankset.EvaluationResult:
    """The whole plan's evaluation (the general kernel, not counted by ``kernel``).

    Planned and measured as any input that is not one run in memory is:
    :func:`evaluate_with` itself would take the prepared path these tests compare.
    """
    parsed = EvaluateOptions.from_kwargs(options, "evaluate")
    plan, collected = plan_and_measure(run, qrels, parse_metrics(metrics), parsed)
    return result_of(plan, collected, confidence=confidence, n_resamples=1000, seed=0)


def _reference(run: Any, qrels: Any, metrics: list[str], **options: Any) -> dict[str, Any]:
    wide = _general(run, qrels, metrics, confidence=None, **options).wide()
    return {
        row["query_id"]: {name: row[name] for name in metrics}
        for row in wide.sort("query_id").iter_rows(named=True)
    }


def _frame(run: dict[str, dict[str, float]]) -> pl.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_every_classic_metric_in_one_collect(kernel: _KernelCalls, seed: int, missing: str) -> None:
    run, qrels = _ties(seed)
    metrics = _classic_metrics()
    evaluator = Evaluator(qrels, metrics, missing=missing, scale="trec_dl")
    want = _reference(run, qrels, metrics, missing=missing, scale="trec_dl")
    got = evaluator.values(run)
    assert kernel.count == 0
    assert list(got) == list(want)
    assert got == want  # exact: NaN-free floats compare bit for bit here
    assert all(
        not isinstance(v, float) or not math.isnan(v) for q in got.values() for v in q.values()
    )


# Options that shape the plan ("per-query": a cutoff for each labelled query).
PLAN_SHAPING = {
    "level-k": {"relevance_level": 2, "k": 3},
    "float32": {"score_precision": "float32"},
    "cutoffs": {"cutoffs": "per-query"},
    "order-score": {"order": "score"},
}


@pytest.mark.parametrize("options", PLAN_SHAPING.values(), ids=PLAN_SHAPING.keys())
def test_options_that_shape_the_plan_keep_the_values(
    kernel: _KernelCalls, options: dict[str, Any]
) -> None:
    run, qrels = _ties(2)
    if options.get("cutoffs") == "per-query":
        options = {"cutoffs": {q: 1 + i % 5 for i, q in enumerate(sorted(qrels))}}
    metrics = ["ndcg@k", "recall@k", "precision@k", "ap", "rr", "bpref", "rprec"]
    evaluator = Evaluator(qrels, metrics, **options)
    assert evaluator.values(run) == _reference(run, qrels, metrics, **options)
    assert kernel.count == 0


def test_float32_ties_go_to_the_larger_document_id(kernel: _KernelCalls) -> None:
    # 3.0000001 and 3.0 are equal as float32: "d2" > "d1" ranks first, as in pytrec_eval
    run = {"q": {"d1": 3.0000001, "d2": 3.0}}
    qrels = {"q": {"d2": 1}}
    evaluator = Evaluator(qrels, ["rr"], score_precision="float32")
    assert evaluator.values(run) == {"q": {"rr": 1.0}}
    assert Evaluator(qrels, ["rr"]).values(run) == {"q": {"rr": 0.5}}
    assert kernel.count == 0


def test_frames_in_any_order_and_ranks_only(kernel: _KernelCalls) -> None:
    run, qrels = _ties(3)
    metrics = ["ndcg@10", "ap", "rr", "recall@20"]
    want = _reference(run, qrels, metrics)
    evaluator = Evaluator(qrels, metrics)
    frame = _frame(run)
    assert evaluator.values(frame.sample(fraction=1.0, shuffle=True, seed=7)) == want
    assert evaluator.values(frame.to_pandas()) == want
    assert evaluator.values(frame.with_columns(system=pl.lit("bm25"))) == want
    ranked = frame.with_columns(
        rank=pl.struct("score", "doc_id").rank("ordinal", descending=True).over("query_id")
    ).drop("score")
    assert evaluator.values(ranked) == want
    assert kernel.count == 0


def test_runs_with_something_to_say_go_to_the_general_kernel(kernel: _KernelCalls) -> None:
    run, qrels = _ties(4)
    evaluator = Evaluator(qrels, ["ap", "ndcg@10"])
    frame = _frame(run)

    with pytest.raises(SchemaError, match="NaN"):
        evaluator.values({"q00": {"d1": float("nan"), "d2": 1.0}})
    duplicated = pl.concat([frame, frame.head(1)])
    with pytest.raises(SchemaError, match=r"more than once|twice|duplicate"):
        evaluator.values(duplicated)
    with pytest.raises(SchemaError, match=r"query_id|query id"):
        evaluator.values(frame.with_columns(query_id=pl.lit(" q00")))
    with pytest.raises(ParameterError, match="one system"):
        evaluator.values(
            frame.with_columns(
                system=pl.Series(["a", "b"] * (frame.height // 2) + ["a"] * (frame.height % 2))
            )
        )
    with pytest.raises(SchemaError, match="No query in common"):
        evaluator.values({"zz": {"d": 1.0}})
    assert kernel.count == 5

    infinite = {q: dict(docs) for q, docs in run.items()}
    infinite["q00"]["d_inf"] = float("inf")
    with pytest.warns(RanksetWarning, match="infinite"):
        got = evaluator.values(infinite)
    assert kernel.count == 6
    with pytest.warns(RanksetWarning, match="infinite"):
        assert got == _reference(infinite, qrels, ["ap", "ndcg@10"])


def test_options_that_count_or_drop_rows_take_the_general_kernel(kernel: _KernelCalls) -> None:
    run, qrels = _ties(5)
    metrics = ["ap", "rr"]
    for options in (
        {"duplicates": "keep_best"},
        {"ignore_identical_ids": True},
        {"engine": "streaming"},
    ):
        evaluator = Evaluator(qrels, metrics, **options)
        before = kernel.count
        assert evaluator.values(run) == _reference(run, qrels, metrics, **options)
        assert kernel.count == before + 1, options


def test_pandas_frame_with_a_system_column_of_two_systems_is_refused(kernel: _KernelCalls) -> None:
    qrels = {"q": {"d": 1}}
    frame = pd.DataFrame(
        {"system": ["a", "b"], "query_id": ["q", "q"], "doc_id": ["d", "d"], "score": [1.0, 1.0]}
    )
    with pytest.raises(ParameterError, match="one system"):
        Evaluator(qrels, ["rr"]).values(frame)
    assert kernel.count == 1


def _assert_same_result(got: rankset.EvaluationResult, want: rankset.EvaluationResult) -> None:
    assert_frame_equal(got.per_query, want.per_query, check_exact=True)
    assert_frame_equal(got.summary, want.summary, check_exact=True)
    assert_frame_equal(got.query_counts, want.query_counts, check_exact=True)
    assert got.config == want.config


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_evaluate_in_one_collect_is_rankset_evaluate(kernel: _KernelCalls, missing: str) -> None:
    # _ties has run queries without labels and labelled queries without a ranking
    run, qrels = _ties(4)
    metrics = [*_classic_metrics(), "gm_map"]
    evaluator = Evaluator(qrels, metrics, missing=missing, scale="trec_dl")
    got = evaluator.evaluate(run)  # with the bootstrap intervals
    assert kernel.count == 0
    want = _general(run, qrels, metrics, missing=missing, scale="trec_dl")
    _assert_same_result(got, want)
    counts = got.query_counts.row(0, named=True)
    run_only, label_only = set(run) - set(qrels), set(qrels) - set(run)
    assert (counts["n_run_queries_without_labels"], counts["n_label_queries_without_run"]) == (
        len(run_only),
        len(label_only),
    )
    assert counts["n_scored"] == (len(qrels) if missing == "zero" else len(set(run) & set(qrels)))


def test_evaluate_in_one_collect_names_and_cutoffs(kernel: _KernelCalls) -> None:
    run, qrels = _ties(5)
    cutoffs = {q: 1 + i % 4 for i, q in enumerate(sorted(qrels))}
    metrics = ["ndcg", "precision", "ap", "rr"]
    evaluator = Evaluator(qrels, metrics, cutoffs=cutoffs)
    frame = _frame(run).with_columns(system=pl.lit("bm25"))
    for runs, names in [(run, ["mine"]), (frame, None), (frame.to_pandas(), None)]:
        got = evaluator.evaluate(runs, names=names, confidence=None)
        want = _general(runs, qrels, metrics, cutoffs=cutoffs, names=names, confidence=None)
        _assert_same_result(got, want)
        assert got.systems == (["mine"] if names else ["bm25"])
    assert kernel.count == 0


def test_evaluate_hands_two_systems_to_the_general_kernel(kernel: _KernelCalls) -> None:
    run, qrels = _ties(6)
    frame = pl.concat(
        [_frame(run).with_columns(system=pl.lit(name)) for name in ("a", "b")], how="vertical"
    )
    got = Evaluator(qrels, ["ap", "ndcg@10"]).evaluate(frame)
    assert kernel.count == 1
    _assert_same_result(got, _general(frame, qrels, ["ap", "ndcg@10"]))
    assert got.systems == ["a", "b"]


def test_rankset_evaluate_takes_one_collect_for_one_run_in_memory(kernel: _KernelCalls) -> None:
    run, qrels = _ties(7)
    metrics = ["ndcg@10", "ap", "rr", "recall@20", "precision@5"]
    frame = _frame(run)
    for given in (run, frame, frame.to_pandas(), frame.to_arrow()):
        got = rankset.evaluate(given, qrels, metrics, scale="trec_dl")
        assert kernel.count == 0
        _assert_same_result(got, _general(given, qrels, metrics, scale="trec_dl"))
    # a run with a NaN score: the general kernel, and its error
    bad = {**run, "q00": {"d1": math.nan}}
    with pytest.raises(SchemaError, match="NaN"):
        rankset.evaluate(bad, qrels, metrics, scale="trec_dl")
    assert kernel.count == 1


def test_evaluate_with_takes_the_same_one_collect(kernel: _KernelCalls) -> None:
    # the door the command line, the pages and the analyses use: the same fused path
    run, qrels = _ties(9)
    metrics = ["ndcg@10", "ap", "rr"]
    options = EvaluateOptions(scale="trec_dl", names=["mine"])
    for given in (run, _frame(run)):
        got = evaluate_with(given, qrels, metrics, options, confidence=None)
        assert kernel.count == 0
        want = _general(given, qrels, metrics, scale="trec_dl", names=["mine"], confidence=None)
        _assert_same_result(got, want)
        assert got.systems == ["mine"]


def test_rankset_evaluate_plans_other_inputs_whole(kernel: _KernelCalls) -> None:
    run, qrels = _ties(8)
    metrics = ["ap", "ndcg@10"]
    want = _general(run, qrels, metrics, scale="trec_dl")
    # two systems in one frame: the prepared labels, the general kernel
    frame = pl.concat(
        [_frame(run).with_columns(system=pl.lit(name)) for name in ("a", "b")], how="vertical"
    )
    two = rankset.evaluate(frame, qrels, metrics, scale="trec_dl")
    assert kernel.count == 1
    _assert_same_result(two, _general(frame, qrels, metrics, scale="trec_dl"))
    # several runs, a lazy frame: planned whole, as before (the kernel is not counted)
    several = rankset.evaluate({"a": run, "b": run}, qrels, metrics, scale="trec_dl")
    lazy = rankset.evaluate(_frame(run).lazy(), qrels, metrics, scale="trec_dl")
    assert kernel.count == 1
    assert_frame_equal(lazy.per_query, want.per_query, check_exact=True)
    assert several.systems == ["a", "b"]


@pytest.mark.parametrize(
    "second",
    [("q", "d2", math.nan), ("q", "", 1.0), ("q", "d1", 2.0)],
    ids=["nan-grade", "empty-doc-id", "labelled-twice"],
)
def test_labels_prepared_at_once_raise_the_whole_plans_error(second: tuple[Any, ...]) -> None:
    labels = pl.DataFrame(
        [("q", "d1", 1.0), second], schema=["query_id", "doc_id", "grade"], orient="row"
    )
    run = {"q": {"d1": 1.0, "d2": 0.5}}
    with pytest.raises(SchemaError) as whole:
        _general(run, labels, ["ap"])
    for prepare in (lambda: Evaluator(labels, ["ap"]), lambda: rankset.evaluate(run, labels, "ap")):
        with pytest.raises(SchemaError) as prepared:
            prepare()
        assert str(prepared.value) == str(whole.value)


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_a_large_dict_is_ranked_by_its_ranking_numbers(kernel: _KernelCalls, missing: str) -> None:
    # past 2,000 rows the dict reader numbers each row's ranking, which the plan ranks by
    run, qrels = _ties(9, queries=240)
    run["q005"] = {}  # an empty ranking leaves a gap in the numbers
    assert sum(map(len, run.values())) > 2_000
    read = rio.read(run, kind="run")
    numbers = read.ranking_numbers
    assert numbers is not None
    assert numbers.is_sorted()
    assert read.run is not None
    assert numbers.len() == read.run.collect().height
    metrics = _classic_metrics()
    evaluator = Evaluator(qrels, metrics, missing=missing, scale="trec_dl")
    got = evaluator.values(run)
    assert kernel.count == 0
    assert got == _reference(run, qrels, metrics, missing=missing, scale="trec_dl")
    assert got.keys() == {q for q in qrels if missing == "zero" or run.get(q)}


@pytest.mark.parametrize("checked", [True, False], ids=["checked-in-python", "checked-by-polars"])
def test_fused_tables_collected_with_the_labels_are_the_ones_built_after(checked: bool) -> None:
    # A prepared evaluation collects the fused plan's label tables in the labels' own
    # query (without the optimizer for few checked rows): they must be the tables and
    # statistics built on the prepared labels in queries of their own.
    from functools import partial

    from rankset.evaluation._fused import FusedPlan
    from rankset.evaluation._kernel_labels import prepare_labels
    from rankset.evaluation._plan import plan_labels

    _, qrels = _ties(4)
    qrels = {query: dict(reversed(docs.items())) for query, docs in reversed(qrels.items())}
    # bpref and rprec join label statistics to the rows; no grade scale (tiers)
    metrics = parse_metrics(["ap", "ndcg@10", "rr", "recall@100", "P@10", "bpref", "rprec"])
    options = EvaluateOptions.from_kwargs({}, "evaluate")
    plan = plan_labels(qrels, metrics, options)
    assert plan is not None
    rows = sum(map(len, qrels.values())) if checked else None
    also = partial(FusedPlan.planned_labels, plan)
    labels, tables = prepare_labels(plan, checked_rows=rows, also=also)
    assert tables is not None  # collected with the labels
    alone, none = prepare_labels(plan)  # the labels in a query of their own
    assert none is None
    assert_frame_equal(labels.frame, alone.frame, check_exact=True)
    # statistics come from a group-by: in any order of queries
    assert_frame_equal(
        labels.stats.sort("query_id"), alone.stats.sort("query_id"), check_exact=True
    )
    fused, after = FusedPlan.prepare(plan, labels, tables), FusedPlan.prepare(plan, alone)
    assert fused is not None
    assert after is not None
    assert_frame_equal(fused.labels, after.labels, check_exact=True)
    assert fused.spans == after.spans
    assert len(after.spans) == len(qrels)
    assert fused.stats_rows.keys() == after.stats_rows.keys()
    for query, row in fused.stats_rows.items():
        assert fused.stats.row(row) == after.stats.row(after.stats_rows[query])
