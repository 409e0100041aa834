"""Dict runs given by name, measured together in one collect against prepared labels.

``Evaluator.values({name: run})``, ``Evaluator.evaluate`` and ``rankset.evaluate`` of a
mapping of dict runs take the one-collect path for every system at once. It must give
what each run gets on its own from the general kernel (the whole-plan evaluation: the
reference here) and from pytrec_eval, and hand the runs it has something to say about
to the general kernel, whose errors are the ones users know.
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pytest
import pytrec_eval
from polars.testing import assert_frame_equal

import rankset
from rankset.errors import SchemaError
from rankset.evaluation import Evaluator

from .test_fused import PLAN_SHAPING, _general, _KernelCalls, _reference

METRICS = ["ndcg@10", "ap", "rr", "recall@20", "precision@5"]
TREC = {"ndcg@10": "ndcg_cut_10", "ap": "map", "rr": "recip_rank"}
TREC |= {"recall@20": "recall_20", "precision@5": "P_5"}


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> _KernelCalls:
    return _KernelCalls(monkeypatch)


def _labels(rng: random.Random, queries: int) -> dict[str, dict[str, int]]:
    labels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        if q % 7 == 3:
            continue  # a query some runs rank without labels
        graded = {f"d{rng.randrange(40)}": rng.randrange(-1, 4) for _ in range(10)}
        graded[f"d{rng.randrange(40)}"] = 2
        labels[f"q{q:02d}"] = graded
    return labels


def _runs(rng: random.Random, systems: int, queries: int) -> dict[str, dict[str, Any]]:
    """Runs named out of order; scores in quarters (ties), signed zeros and integers."""
    runs: dict[str, dict[str, Any]] = {}
    for i in range(systems):
        picked = ["q00"] + [f"q{rng.randrange(queries):02d}" for _ in range(rng.randrange(4))]
        run: dict[str, Any] = {}
        for query in picked:
            docs: dict[str, Any] = {}
            for d in rng.sample(range(40), rng.randrange(1, 30)):
                kind = rng.randrange(4)
                if kind == 0:
                    docs[f"d{d}"] = rng.choice([0.0, -0.0])
                elif kind == 1:
                    docs[f"d{d}"] = rng.randrange(-2, 3)  # an int, as JSON gives them
                else:
                    docs[f"d{d}"] = rng.randrange(-8, 8) / 4
            run[query] = docs
        runs[f"s{systems - i:02d}"] = run
    return runs


def _pytrec(labels: dict[str, Any], run: dict[str, Any]) -> dict[str, dict[str, float]]:
    graded = {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in labels.items()}
    measures = {"ndcg_cut.10", "map", "recip_rank", "recall.20", "P.5"}
    scored = {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()}
    got = pytrec_eval.RelevanceEvaluator(graded, measures).evaluate(scored)
    return {q: {m: got[q][TREC[m]] for m in METRICS} for q in got}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_run_gets_what_it_gets_alone(kernel: _KernelCalls, seed: int) -> None:
    rng = random.Random(seed)
    labels, runs = _labels(rng, 12), _runs(rng, 9, 12)
    evaluator = Evaluator(labels, METRICS)
    got = evaluator.values(runs)
    assert kernel.count == 0
    assert list(got) == list(runs)
    for name, run in runs.items():
        assert got[name] == _reference(run, labels, METRICS)
        assert got[name] == _pytrec(labels, run)


def test_signed_zeros_tie_and_the_larger_document_id_goes_first(kernel: _KernelCalls) -> None:
    labels = {"q": {"a": 1, "b": 0}}
    runs = {"x": {"q": {"a": 0.0, "b": -0.0}}, "y": {"q": {"a": -0.0, "b": 0.0}}}
    # trec_eval: equal scores, "b" > "a" ranks first, so "a" (relevant) is second
    assert Evaluator(labels, ["rr"]).values(runs) == {
        "x": {"q": {"rr": 0.5}},
        "y": {"q": {"rr": 0.5}},
    }
    assert kernel.count == 0


@pytest.mark.parametrize("seed", [3, 4])
def test_rankset_evaluate_of_dict_runs_is_the_whole_plan_s_result(
    kernel: _KernelCalls, seed: int
) -> None:
    rng = random.Random(seed)
    labels, runs = _labels(rng, 12), _runs(rng, 7, 12)
    runs["s99"] = {"q00": {"d1": 1.0}, "q03": {"d2": 1.0}, "q40": {}}  # unlabelled, empty
    got = rankset.evaluate(runs, labels, METRICS)
    assert kernel.count == 0
    want = _general(runs, labels, METRICS)
    assert_frame_equal(got.per_query, want.per_query)
    assert_frame_equal(got.summary, want.summary)
    assert_frame_equal(got.query_counts, want.query_counts)
    assert got.systems == list(runs)
    assert got.config == want.config
    assert Evaluator(labels, METRICS).evaluate(runs).summary.equals(want.summary)


def test_runs_with_something_to_say_go_to_the_general_kernel(kernel: _KernelCalls) -> None:
    labels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    evaluator = Evaluator(labels, ["rr"])
    good = {"q1": {"d1": 1.0, "d2": 0.5}}
    with pytest.raises(SchemaError, match="NaN"):
        evaluator.values({"a": good, "b": {"q1": {"d1": float("nan")}}})
    with pytest.raises(SchemaError, match=r"doc_id|document id"):
        evaluator.values({"a": good, "b": {"q1": {" d1": 1.0}}})
    with pytest.raises(SchemaError, match=r"query_id|query id"):
        evaluator.values({"a": good, "b": {"q1 ": {"d1": 1.0}}})
    with pytest.raises(SchemaError, match="No query in common"):
        evaluator.values({"a": good, "b": {"q9": {"d1": 1.0}}})
    assert kernel.count == 4
    # a policy that scores every labelled query is the general kernel's
    assert Evaluator(labels, ["rr"], missing="zero").values({"a": good, "b": good}) == {
        name: {"q1": {"rr": 1.0}, "q2": {"rr": 0.0}} for name in ("a", "b")
    }
    assert kernel.count == 5


def test_frames_given_by_name_are_measured_together(kernel: _KernelCalls) -> None:
    rng = random.Random(6)
    labels, runs = _labels(rng, 12), _runs(rng, 6, 12)
    frames = {
        name: pl.DataFrame(
            [(q, d, float(s)) for q, docs in run.items() for d, s in docs.items()],
            schema=["query_id", "doc_id", "score"],
            orient="row",
        ).sample(fraction=1.0, shuffle=True, seed=1)
        for name, run in runs.items()
    }
    got = Evaluator(labels, METRICS).values(frames)
    assert kernel.count == 0
    assert got == {name: _reference(run, labels, METRICS) for name, run in runs.items()}
    frames["s99"] = pl.DataFrame(
        {"query_id": ["q00", "q03", "q03"], "doc_id": ["d1", "d2", "d1"], "score": [1.0, 2.0, 0.0]}
    )  # a query without labels
    want = _general(frames, labels, METRICS, confidence=None)
    for evaluated in (
        rankset.evaluate(frames, labels, METRICS, confidence=None),
        Evaluator(labels, METRICS).evaluate(frames, confidence=None),
    ):
        assert_frame_equal(evaluated.per_query, want.per_query)
        assert_frame_equal(evaluated.query_counts, want.query_counts)
        assert_frame_equal(evaluated.summary, want.summary)
    assert kernel.count == 0


@pytest.mark.parametrize("split", [False, True], ids=["rankings-in-blocks", "a-ranking-split"])
def test_frames_numbered_by_their_blocks_of_ids(
    kernel: _KernelCalls, split: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Frames whose rankings are blocks of rows are numbered by block (from a size these
    # small frames are given). Each system's frame here ends with the query the next
    # one starts with: a block ends where the system changes too. A ranking split over
    # two blocks is numbered by its ids.
    from rankset.evaluation import _fused

    numbered: list[bool] = []
    by_blocks = _fused._numbered_by_blocks

    def spied(part: Any) -> bool:
        numbered.append(by_blocks(part))
        return numbered[-1]

    monkeypatch.setattr(_fused, "_BLOCKS_FROM_ROWS", 1)
    monkeypatch.setattr(_fused, "_numbered_by_blocks", spied)
    rng = random.Random(11)
    labels, runs = _labels(rng, 12), _runs(rng, 4, 12)
    names = sorted(runs)
    frames = {}
    for i, name in enumerate(names):
        queries = sorted(runs[name], reverse=i % 2 == 0)  # q00 last, then q00 first
        rows = [(q, d, float(s)) for q in queries for d, s in runs[name][q].items()]
        if split and i == 0:  # the first ranking's first row moves before the last ranking
            rows.insert([q for q, _, _ in rows].index("q00"), rows.pop(0))
        frames[name] = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    assert frames[names[0]]["query_id"][-1] == frames[names[1]]["query_id"][0] == "q00"
    got = Evaluator(labels, METRICS).values(frames)
    assert kernel.count == 0
    assert got == {name: _reference(run, labels, METRICS) for name, run in runs.items()}
    one = rankset.evaluate(frames[names[0]], labels, METRICS, confidence=None)
    want = _general(frames[names[0]], labels, METRICS, confidence=None)
    assert_frame_equal(one.per_query, want.per_query, check_exact=True)
    assert kernel.count == 0
    assert numbered == [not split, not split]  # the frames by name, then the first alone
    monkeypatch.setattr(_fused, "_BLOCKS_FROM_ROWS", 10**6)  # too few rows: by their ids
    assert Evaluator(labels, METRICS).values(frames) == got
    assert numbered[-1] is False


def test_frames_with_a_bad_query_id_or_a_repeated_document_go_to_the_kernel(
    kernel: _KernelCalls,
) -> None:
    labels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    good = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d2", "d1"], "score": [2.0, 1.0]})
    evaluator = Evaluator(labels, ["rr"])
    with pytest.raises(SchemaError, match=r"query_id|query id"):
        evaluator.values({"a": good, "b": good.with_columns(query_id=pl.lit("q1\t"))})
    with pytest.raises(SchemaError, match=r"more than once|twice|duplicate"):
        evaluator.values({"a": good, "b": pl.concat([good, good.head(1)])})
    assert kernel.count == 2
    # frames of other schemas are read one by one, and measured by the kernel
    other = good.with_columns(pl.col("score").cast(pl.Float32))
    assert evaluator.values({"a": good, "b": other}) == {
        "a": {"q1": {"rr": 0.5}},
        "b": {"q1": {"rr": 0.5}},
    }


@pytest.mark.parametrize("seed", [7, 8])
def test_a_one_shot_call_of_dict_runs_reads_only_their_queries_labels(
    kernel: _KernelCalls, seed: int
) -> None:
    rng = random.Random(seed)
    labels = _labels(rng, 60)
    labels["q50"] = {"d1": -1}  # judged, nothing relevant: counted among the labelled
    labels["q51"] = {}  # no labels
    runs = _runs(rng, 5, 12)
    runs["s99"] = {"q00": {"d1": 1.0}, "q40": {"d2": 2.0}, "nowhere": {"d1": 1.0}}
    got = rankset.evaluate(runs, labels, METRICS)
    assert kernel.count == 0
    want = _general(runs, labels, METRICS)  # every label read, the general kernel
    assert_frame_equal(got.per_query, want.per_query)
    assert_frame_equal(got.summary, want.summary)
    assert_frame_equal(got.query_counts, want.query_counts)
    assert got.config == want.config
    # a grade no evaluation takes, in a query no run answers: not read
    labels["q59"] = {"d1": "high"}  # type: ignore[dict-item]
    again = rankset.evaluate(runs, labels, METRICS)
    assert_frame_equal(again.summary, want.summary)


def test_a_collision_of_pair_hashes_goes_to_the_general_kernel(
    kernel: _KernelCalls, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rankset.evaluation import _fused

    # every pair of a query hashes alike: each run row meets every label of its query
    monkeypatch.setattr(_fused, "_pair_hash", lambda: pl.col("query_id").hash(1))
    rng = random.Random(9)
    labels, runs = _labels(rng, 12), _runs(rng, 4, 12)
    evaluator = Evaluator(labels, METRICS)
    got = evaluator.values(runs)
    assert kernel.count == 1
    assert got == {name: _pytrec(labels, run) for name, run in runs.items()}


@pytest.mark.parametrize(
    "options",
    [*PLAN_SHAPING.values(), {"scale": "trec_dl"}],
    ids=[*PLAN_SHAPING.keys(), "scale"],
)
def test_options_that_shape_the_plan_keep_each_run_s_values(options: dict[str, Any]) -> None:
    rng = random.Random(10)
    labels, runs = _labels(rng, 12), _runs(rng, 5, 12)
    if options.get("cutoffs") == "per-query":
        options = {"cutoffs": {q: 1 + i % 5 for i, q in enumerate(sorted(labels))}}
    metrics = ["ndcg@k", "recall@k", "precision@k", "ap", "rr", "bpref", "rprec"]
    evaluator = Evaluator(labels, metrics, **options)
    got = evaluator.values(runs)
    assert got == {name: _reference(run, labels, metrics, **options) for name, run in runs.items()}
    names = [f"n{i}" for i in range(len(runs))]
    result = evaluator.evaluate(runs, names=names, confidence=None)
    want = _general(runs, labels, metrics, names=names, confidence=None, **options)
    assert_frame_equal(result.per_query, want.per_query)
    assert_frame_equal(result.query_counts, want.query_counts)
    assert result.systems == names
