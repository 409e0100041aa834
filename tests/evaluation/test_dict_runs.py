"""Plain dict runs ranked in Python against prepared labels (``_fused_mapping``).

A ``{query: {doc: score}}`` run is ranked and joined with its labels in Python, and only
the measures run in Polars. The references are independent of that path: the whole
plan's evaluation of the same run (the general kernel, ``test_fused._reference``) and
pytrec_eval. Every test also checks which path measured the run, so a change that
quietly sends every run elsewhere fails here.
"""

from __future__ import annotations

import contextlib
import math
import random
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.errors import InputFormatError, SchemaError
from rankset.evaluation import Evaluator, _fused_mapping
from rankset.measures import log2_of_positions
from rankset.measures._shared import with_positions_below

from .test_evaluator import _classic_metrics
from .test_fused import _general, _reference, _ties

METRICS = ["ndcg@10", "ap", "rr", "recall@100", "precision@10"]
TREC = {"ndcg@10": "ndcg_cut_10", "ap": "map", "rr": "recip_rank"}
TREC |= {"recall@100": "recall_100", "precision@10": "P_10"}


class _Taken:
    """Counts the dict runs the Python-ranked path measured, and those it declined."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.taken = 0
        self.declined = 0
        measure = _fused_mapping.MappingPlan.measure

        def counted(plan: Any, run: Any, system: str, *tables: Any) -> Any:
            found = measure(plan, run, system, *tables)
            if found is None:
                self.declined += 1
            else:
                self.taken += 1
            return found

        monkeypatch.setattr(_fused_mapping.MappingPlan, "measure", counted)


@pytest.fixture
def path(monkeypatch: pytest.MonkeyPatch) -> _Taken:
    return _Taken(monkeypatch)


def _one_query_runs(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [{query: docs} for query, docs in run.items()]


@pytest.mark.parametrize("seed", [0, 1])
def test_every_classic_metric_equals_the_general_kernel(path: _Taken, seed: int) -> None:
    run, qrels = _ties(seed)
    metrics = _classic_metrics()
    evaluator = Evaluator(qrels, metrics, scale="trec_dl")
    # The whole run (grouped by query) and each query alone (one group, selected).
    parts = [run, *(part for part in _one_query_runs(run)[:10] if set(part) <= set(qrels))]
    for part in parts:
        want = _reference(part, qrels, metrics, scale="trec_dl")
        assert evaluator.values(part) == want
    assert path.taken == len(parts) > 5
    assert path.declined == 0


def test_values_equal_pytrec_eval_on_ties_signed_zeros_integers_and_non_ascii(
    path: _Taken,
) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(7)
    names = ["d", "é", "ü", "中", "ß", "Ω"]  # byte order differs from a naive one
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, Any]] = {}
    for q in range(25):
        qid = f"q{q}"
        docs = [f"{rng.choice(names)}{rng.randrange(40)}" for _ in range(60)]
        qrels[qid] = {doc: rng.randrange(0, 4) for doc in docs[:20]}
        scores: list[Any] = [0.0, -0.0, 1, 2, 0.5, -1, 1.0, 2.0]  # ints tie with floats
        run[qid] = {doc: rng.choice(scores) for doc in docs}
    evaluator = Evaluator(qrels, METRICS)
    measures = {"ndcg_cut.10", "map", "recip_rank", "recall.100", "P.10"}
    # pytrec_eval reads scores as doubles: give it the same numbers as floats
    floats = {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()}
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(floats)
    for query in run:
        got = evaluator.values({query: run[query]})
        assert got == {query: {m: want[query][TREC[m]] for m in METRICS}}
    assert evaluator.values(run) == {q: {m: want[q][TREC[m]] for m in METRICS} for q in want}
    assert path.taken == len(run) + 1


def test_query_counts_and_rankings_without_labelled_documents(path: _Taken) -> None:
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}, "q3": {"x": 1}}
    run = {
        "q1": {"a": 0.5, "z": 0.9},  # a at position 2
        "q2": {"y": 1.0},  # answered, nothing labelled retrieved
        "q9": {"a": 1.0},  # no labels: counted, not scored
        "q4": {},  # no rows: not answered
    }
    result = rankset.evaluate(run, qrels, ["rr", "recall@10", "ndcg@10"], confidence=None)
    general = _general(run, qrels, ["rr", "recall@10", "ndcg@10"], confidence=None)
    assert_frame_equal(result.per_query, general.per_query, check_exact=True)
    assert_frame_equal(result.query_counts, general.query_counts, check_exact=True)
    wide = result.wide().sort("query_id")
    assert wide["rr"].to_list() == [0.5, 0.0]  # by hand: q1 first relevant at 2, q2 none
    assert wide["recall@10"].to_list() == [0.5, 0.0]
    assert path.taken == 1


def test_rankset_evaluate_of_one_dict_is_the_general_result(path: _Taken) -> None:
    run, qrels = _ties(3)
    got = rankset.evaluate(run, qrels, METRICS, names=["bm25"])
    want = _general(run, qrels, METRICS, names=["bm25"])
    for frame in ("per_query", "summary", "query_counts"):
        assert_frame_equal(getattr(got, frame), getattr(want, frame), check_exact=True)
    assert got.config["systems"] == ["bm25"]
    assert path.taken == 1


@pytest.mark.parametrize(
    ("docs", "error"),
    [
        ({"a": float("nan")}, SchemaError),
        ({"a": float("inf"), "b": 1.0}, None),
        ({"a": True}, InputFormatError),
        ({"a": np.float64(0.5), "b": 1.0}, None),
        ({"": 1.0}, SchemaError),
        ({"a ": 1.0}, SchemaError),
        ({"a\tb": 1.0}, SchemaError),
        ({"a": 2**53 + 1, "b": 2**53}, None),
    ],
    ids=["nan", "inf", "bool", "numpy", "empty-id", "trailing-space", "tab", "huge-int"],
)
def test_runs_with_anything_unusual_take_the_other_paths(
    path: _Taken, docs: dict[str, Any], error: type[Exception] | None
) -> None:
    qrels = {"q1": {"a": 1, "b": 0}}
    evaluator = Evaluator(qrels, ["rr", "ap"])
    run = {"q1": docs}
    if error is not None:
        with pytest.raises(error):
            evaluator.values(run)
    else:
        # warnings (an infinite score) are the general path's to give
        infinite = any(isinstance(s, float) and math.isinf(s) for s in docs.values())
        with pytest.warns() if infinite else contextlib.nullcontext():
            assert evaluator.values(run) == _reference(run, qrels, ["rr", "ap"])
    assert path.taken == 0


def test_options_the_python_ranking_does_not_cover_are_declined(path: _Taken) -> None:
    run, qrels = _ties(4)
    for options in ({"score_precision": "float32"}, {"missing": "zero"}):
        evaluator = Evaluator(qrels, METRICS, **options)
        assert evaluator._prepared is not None
        assert evaluator._prepared.fused is not None
        assert evaluator._prepared.fused.mappings is None
        assert evaluator.values(run) == _reference(run, qrels, METRICS, **options)
    assert path.taken == 0


def test_deep_rankings_keep_log2_from_python(path: _Taken, monkeypatch: pytest.MonkeyPatch) -> None:
    # Rankings as deep as the table's bound read log2 through the Python function.
    monkeypatch.setattr(_fused_mapping, "POSITIONS_BELOW", 4)
    run, qrels = _ties(5)
    evaluator = Evaluator(qrels, ["ndcg@10", "ndcg"])
    assert evaluator.values(run) == _reference(run, qrels, ["ndcg@10", "ndcg"])
    assert path.taken == 1


def test_positions_read_from_the_table_equal_math_log2() -> None:
    positions = pl.concat(
        [pl.Series("pos", range(1, 3000)), pl.Series("pos", [1, 2**20 - 1, 7])],
        rechunk=False,
    )
    frame = pl.DataFrame(positions)
    columns = {"_discount": log2_of_positions("pos").alias("_discount")}
    got = frame.select(*with_positions_below(columns, 2**20 - 1).values())["_discount"].to_list()
    assert got == [math.log2(p + 1) for p in positions.to_list()]
    # Any other expression is kept as it is.
    other = {"_x": (pl.col("pos") * 2).alias("_x")}
    assert with_positions_below(other, 10)["_x"].meta.eq(other["_x"])


@pytest.mark.parametrize(
    "bad",
    [{"": 1}, {"d1 ": 1}, {"d1": float("nan")}, {"d1": True}, {"d1": "2"}, {"d1": np.int64(1)}],
    ids=["empty-id", "trailing-space", "nan", "bool", "text", "numpy"],
)
def test_one_shot_labels_of_the_run_s_queries_are_checked(bad: dict[Any, Any]) -> None:
    labels: dict[str, dict[Any, Any]] = {f"q{i}": {"d1": 1, "d2": 0} for i in range(5)}
    labels["q1"] = {**bad, "d2": 1}
    run = {"q1": {"d1": 0.5, "d2": 0.4}}
    if type(bad.get("d1")) is np.int64:  # a numpy grade is a grade, checked by Polars
        general = _general(run, labels, ["rr"], confidence=None)
        got = rankset.evaluate(run, labels, ["rr"], confidence=None)
        assert_frame_equal(got.per_query, general.per_query, check_exact=True)
        return
    with pytest.raises((SchemaError, InputFormatError)):
        rankset.evaluate(run, labels, ["rr"], confidence=None)


def test_the_labels_kept_by_document_stay_bounded(
    path: _Taken, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_fused_mapping, "_KEPT_QUERIES", 3)
    run, qrels = _ties(6)
    evaluator = Evaluator(qrels, METRICS)
    for query in sorted(set(run) & set(qrels)):
        one = {query: run[query]}
        assert evaluator.values(one) == _reference(one, qrels, METRICS)
    assert evaluator._prepared is not None
    assert evaluator._prepared.fused is not None
    mappings = evaluator._prepared.fused.mappings
    assert mappings is not None
    assert len(mappings.doc_rows) == 3
    assert path.taken > 3
