"""rankset.compat.pytrec_eval against pytrec_eval itself, on the same inputs.

The reference is pytrec_eval (pytrec-eval-terrier, a test dependency): the structure
returned by ``evaluate`` (queries, keys in order, values) must be pytrec_eval's, for every
measure of its table that the face supports, asked alone and as nicknames, with and
without a relevance level and ``judged_docs_only_flag``, on generated runs with tied and
near-tied scores, unjudged documents, grades -1 to 3, empty rankings, labelled queries the
run lacks and queries only in the run.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from typing import Any

import pytest

from rankset.compat import pytrec_eval as face

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval is a test dependency")

# pytrec_eval keeps trec_eval's global state between evaluators: in one process, an
# evaluator of G after one of 11pt_avg never returns. Each reference value is computed in
# a fresh interpreter.
_REFERENCE = """
import json, sys, pytrec_eval
qrels, measures, level, judged, run = json.load(sys.stdin)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures), level, judged)
json.dump(evaluator.evaluate(run), sys.stdout)
"""


def _theirs(qrels: Any, measures: set[str], run: Any, level: int = 1, judged: bool = False) -> Any:
    done = subprocess.run(
        [sys.executable, "-c", _REFERENCE],
        input=json.dumps([qrels, sorted(measures), level, judged, run]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


MEASURES = sorted(face.supported_measures)
PARAMETERIZED = [
    "P.1,3,50", "P_7", "recall.2,9", "ndcg_cut.3", "map_cut_4,8", "success.1,2",
    "relative_P.5", "iprec_at_recall.0.13,0.3,0.72", "Rprec_mult.0.5,1.5", "set_F.0.25",
    "relstring.4",
]  # fmt: skip
# pytrec_eval merges a measure's parameters as a set of sorted strings, so utility's four
# coefficients 2,1,0,0 reach trec_eval as 0,1,2 (an error, printed, and 0.0); the face
# passes them as written (tested against the binary in tests/parity).


def _generated(
    seed: int, *, empty_ranking: bool = True
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(14):
        query = f"q{q:02d}"
        docs = [f"d{i}" for i in range(rng.randint(1, 30))]
        if q != 0:  # q00: only in the run
            judged = [*rng.sample(docs, k=rng.randint(1, len(docs))), "never-retrieved"]
            qrels[query] = {doc: rng.choice([-1, 0, 0, 1, 2, 3]) for doc in judged}
        if q == 1:  # q01: only in the labels
            continue
        if q == 2:  # q02: an empty ranking
            if empty_ranking:
                run[query] = {}
            continue
        ties = rng.random() < 0.5
        # near ties: equal as 32-bit floats, as pytrec_eval stores scores
        nudge = [0.0, 1e-9]
        run[query] = {
            doc: float(rng.randint(0, 3)) if ties else round(rng.random(), 2) + rng.choice(nudge)
            for doc in docs
        }
    return qrels, run


#: The query whose ranking is empty. pytrec_eval scores it, but its values there are not
#: trec_eval's nor stable: num_rel is 0 whatever the labels, and 11pt_avg is 0.0 asked
#: alone but nan beside iprec_at_recall. The face gives what trec_eval 9.0.8 prints for a
#: ranking -J emptied (tests/parity/test_trec_eval_command_binary.py); only the keys are
#: compared here.
EMPTY = "q02"


def _assert_same(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]]) -> None:
    assert list(ours) == sorted(theirs)  # the same queries (rankset: in id order)
    for query, values in theirs.items():
        assert list(ours[query]) == list(values), query  # the same keys, in the same order
        if query == EMPTY:
            continue
        for name, value in values.items():
            got = ours[query][name]
            if math.isnan(value):
                assert math.isnan(got), (query, name)
            else:
                assert got == pytest.approx(value, abs=1e-12), (query, name)


@pytest.mark.parametrize("measure", MEASURES + PARAMETERIZED)
def test_each_measure_alone_equals_pytrec_eval(measure: str) -> None:
    for seed in (1, 2):
        qrels, run = _generated(seed)
        theirs = _theirs(qrels, {measure}, run)
        ours = face.RelevanceEvaluator(qrels, {measure}).evaluate(run)
        _assert_same(ours, theirs)


@pytest.mark.parametrize("nickname", ["official", "set", "all_trec"])
@pytest.mark.parametrize(("level", "judged_only"), [(1, False), (2, False), (1, True), (2, True)])
def test_nicknames_levels_and_judged_only_equal_pytrec_eval(
    nickname: str, level: int, judged_only: bool
) -> None:
    # With an empty ranking among the queries, pytrec_eval dies (SIGSEGV) on these sets.
    qrels, run = _generated(3, empty_ranking=False)
    measures = {nickname} if nickname != "all_trec" else set(face.supported_measures)
    theirs = _theirs(qrels, measures, run, level, judged_only)
    ours = face.RelevanceEvaluator(qrels, {nickname}, level, judged_only).evaluate(run)
    _assert_same(ours, theirs)


def test_aggregation_equals_pytrec_eval() -> None:
    qrels, run = _generated(4)
    ours = face.RelevanceEvaluator(qrels, {"map", "gm_map", "num_ret", "P.5"}).evaluate(run)
    for measure in ("map", "gm_map", "num_ret", "P_5"):
        values = [row[measure] for row in ours.values()]
        assert face.compute_aggregated_measure(measure, values) == pytest.approx(
            pytrec_eval.compute_aggregated_measure(measure, values), rel=1e-12
        )


def test_evaluators_do_not_share_state() -> None:
    qrels, run = _generated(5)
    strict = face.RelevanceEvaluator(qrels, {"P.5"}, relevance_level=3)
    lenient = face.RelevanceEvaluator(qrels, {"P.10"}, relevance_level=1)
    first = strict.evaluate(run)
    lenient.evaluate(run)
    assert strict.evaluate(run) == first  # the other evaluator changed nothing
    assert list(next(iter(first.values()))) == ["P_5"]


def test_empty_inputs_and_bad_measures() -> None:
    qrels, _ = _generated(6)
    evaluator = face.RelevanceEvaluator(qrels, {"map"})
    assert (
        evaluator.evaluate({}) == {} == pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate({})
    )
    assert evaluator.evaluate({"nobody": {"d": 1.0}}) == {}
    with pytest.raises(ValueError, match="unsupported measure nosuch"):
        face.RelevanceEvaluator(qrels, {"nosuch"})
    with pytest.raises(ValueError, match="unsupported measure rbp"):  # 10.0 only
        face.RelevanceEvaluator(qrels, {"rbp"})
    # pytrec_eval aborts the interpreter on this one; the face raises.
    with pytest.raises(ValueError, match=r"unsupported measure ndcg\.1=3"):
        face.RelevanceEvaluator(qrels, {"ndcg.1=3"})


def test_empty_rankings_score_as_trec_eval_scores_them() -> None:
    # pytrec_eval itself raises or reports num_rel 0 here; the face gives what trec_eval
    # prints for a ranking -J emptied (tests/compat/test_trec_eval_command.py)
    qrels = {"q1": {"d1": 1, "d2": 0}}
    measures = {"map", "num_ret", "num_rel", "iprec_at_recall.0,0.5"}
    got = face.RelevanceEvaluator(qrels, measures).evaluate({"q1": {}})["q1"]
    assert {k: v for k, v in got.items() if k != "iprec_at_recall_0.00"} == {
        "num_ret": 0.0, "num_rel": 1.0, "map": 0.0, "iprec_at_recall_0.50": 0.0
    }  # fmt: skip
    assert math.isnan(got["iprec_at_recall_0.00"])  # 0 / 0 at a cutoff of 0, as in C
    judged = face.RelevanceEvaluator(qrels, {"map", "num_ret"}, judged_docs_only_flag=True)
    assert judged.evaluate({"q1": {"x": 1.0}}) == {"q1": {"num_ret": 0.0, "map": 0.0}}
