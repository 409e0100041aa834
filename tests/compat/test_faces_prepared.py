"""The faces' evaluators prepare the labels once and give each run a fresh call's values."""

from __future__ import annotations

import random
from typing import Any

import pytest

import rankset.compat.ir_measures as ir_measures
from rankset.compat import pytrec_eval
from rankset.evaluation import _prepared


def _data(seed: int) -> tuple[dict[str, dict[str, int]], list[dict[str, dict[str, float]]]]:
    rng = random.Random(seed)
    qrels = {
        f"q{q}": {f"d{rng.randrange(12)}": rng.choice([-1, 0, 1, 2, 3]) for _ in range(6)}
        for q in range(5)
    }
    runs = [
        {
            f"q{rng.randrange(7)}": {
                f"d{rng.randrange(15)}": rng.choice([1.0, 2.0, 3.0, 3.0000001, rng.random()])
                for _ in range(rng.randrange(9))
            }
            for _ in range(rng.randrange(1, 7))
        }
        for _ in range(4)
    ]
    return qrels, runs


@pytest.fixture
def prepared_labels(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the evaluators' label preparations."""
    calls = [0]
    original = _prepared.prepare_labels

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(_prepared, "prepare_labels", counting)
    return calls


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("level", "judged_only"), [(1, False), (2, False), (1, True)])
def test_a_reused_pytrec_eval_evaluator_equals_a_fresh_one(
    seed: int, level: int, judged_only: bool
) -> None:
    qrels, runs = _data(seed)
    runs.append({query: {} for query in qrels})  # empty rankings: scored as trec_eval does
    measures = {"all_trec"} if seed % 2 else {"map", "ndcg_cut.5,10", "P", "recall.3", "bpref"}
    reused = pytrec_eval.RelevanceEvaluator(qrels, measures, level, judged_only)
    for run in runs:
        fresh = pytrec_eval.RelevanceEvaluator(qrels, measures, level, judged_only)
        assert repr(reused.evaluate(run)) == repr(fresh.evaluate(run))


def test_the_pytrec_eval_face_reads_its_labels_once(prepared_labels: list[int]) -> None:
    qrels, runs = _data(0)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5"})
    for run in runs:
        evaluator.evaluate(run)
    assert prepared_labels[0] == 1


@pytest.mark.parametrize("seed", range(6))
def test_a_reused_ir_measures_evaluator_equals_a_fresh_call(seed: int) -> None:
    qrels, runs = _data(seed)
    measures = [
        ir_measures.nDCG @ 10,
        ir_measures.AP(rel=2),
        ir_measures.RR,
        ir_measures.Judged @ 5,
        ir_measures.P(judged_only=True) @ 3,
        ir_measures.NumQ,
        ir_measures.ERR @ 5,
    ]
    # a run that repeats a document: ir_measures keeps its best-placed copy
    query, docs = next(iter(qrels.items()))
    repeated: list[Any] = [ir_measures.ScoredDoc(query, doc, 2.0) for doc in docs]
    repeated += [ir_measures.ScoredDoc(query, doc, -1.0) for doc in list(docs)[:2]]
    evaluator = ir_measures.evaluator(measures, qrels)
    for run in [runs[0], repeated, *runs[1:]]:
        assert list(evaluator.iter_calc(run)) == list(ir_measures.iter_calc(measures, qrels, run))
        assert evaluator.calc_aggregate(run) == ir_measures.calc_aggregate(measures, qrels, run)


def test_the_ir_measures_evaluator_reads_its_labels_once(prepared_labels: list[int]) -> None:
    qrels, runs = _data(1)
    evaluator = ir_measures.evaluator([ir_measures.nDCG @ 10, ir_measures.AP], qrels)
    for run in runs:
        evaluator.calc_aggregate(run)
    assert prepared_labels[0] == 1
