"""The prepared Evaluator: exactly rankset.evaluate's result, labels read once."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.errors import ParameterError, SchemaError
from rankset.evaluation import Evaluator

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
# Measures that read nuggets or answer text: planned from the runs (checked apart).
RUN_SIDE = {"containment"}


def _classic_metrics() -> list[str]:
    from rankset.measures.nuggets import NUGGET_MEASURES

    names = []
    for measure, spec in sorted(rankset.available_measures().items()):
        if measure in RUN_SIDE or measure in NUGGET_MEASURES:
            continue
        names.append(measure if spec.cutoff == "none" else f"{measure}@10")
        if spec.cutoff == "optional":
            names.append(measure)
    return names


def _random_data(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Runs with many ties (scores in tenths), labels graded -1..3, queries missing each way."""
    rng = random.Random(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(40):
        qid = f"q{q:02d}"
        if q % 7 != 3:  # some label queries without a ranking
            depth = rng.randrange(1, 60)
            run[qid] = {f"d{rng.randrange(80)}": rng.randrange(10) / 10 for _ in range(depth)}
        if q % 11 != 5:  # some ranked queries without labels
            graded = {f"d{rng.randrange(80)}": rng.randrange(-1, 4) for _ in range(15)}
            graded[f"d{rng.randrange(80)}"] = 2
            qrels[qid] = graded
    return run, qrels


def _assert_same(got: rankset.EvaluationResult, want: rankset.EvaluationResult) -> None:
    assert_frame_equal(got.per_query, want.per_query, check_exact=True)
    assert_frame_equal(got.summary, want.summary, check_exact=True)
    assert_frame_equal(got.query_counts, want.query_counts, check_exact=True)
    assert got.config == want.config


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_values_are_those_of_evaluate_on_random_data_with_ties(seed: int, missing: str) -> None:
    run, qrels = _random_data(seed)
    metrics = _classic_metrics()
    evaluator = Evaluator(qrels, metrics, missing=missing, scale="trec_dl")
    options: dict[str, Any] = {"missing": missing, "scale": "trec_dl"}
    for _ in range(2):  # the prepared labels serve every call alike
        want = rankset.evaluate(run, qrels, metrics, confidence=None, **options)
        _assert_same(evaluator.evaluate(run, confidence=None), want)
    want = rankset.evaluate(run, qrels, metrics, **options)
    _assert_same(evaluator.evaluate(run), want)
    values = evaluator.values(run)
    wide = want.wide().sort("query_id")
    assert list(values) == wide["query_id"].to_list()
    for row in wide.iter_rows(named=True):
        assert values[row["query_id"]] == {name: row[name] for name in metrics}


def test_several_runs_from_files_and_frames() -> None:
    runs = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
    metrics = ["ndcg@10", "ap", "rr", "recall@100", "precision@10", "bpref"]
    evaluator = Evaluator(SAMPLE / "qrels.txt", metrics)
    _assert_same(evaluator.evaluate(runs), rankset.evaluate(runs, SAMPLE / "qrels.txt", metrics))
    frame = rankset.io.read(SAMPLE / "bm25.trec", kind="run").run
    assert frame is not None
    _assert_same(
        evaluator.evaluate(frame.collect(), names=["b"]),
        rankset.evaluate(frame.collect(), SAMPLE / "qrels.txt", metrics, names=["b"]),
    )


def test_options_read_from_runs_are_planned_whole() -> None:
    run, qrels = _random_data(3)
    options: dict[str, Any] = {"max_depth": 5, "judged_only": True}
    evaluator = Evaluator(qrels, ["ap", "ndcg@10"], **options)
    assert "prepared=False" in repr(evaluator)
    want = rankset.evaluate(run, qrels, ["ap", "ndcg@10"], **options)
    _assert_same(evaluator.evaluate(run), want)
    assert Evaluator(qrels, ["ap"]).metrics == ["ap"]
    assert "prepared=True" in repr(Evaluator(qrels, ["ap"]))


def test_labels_are_checked_once_when_built() -> None:
    labels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "d"], "grade": [1, 2]})
    with pytest.raises(SchemaError, match=r"more than once|duplicate"):
        Evaluator(labels, ["ap"])


def test_values_take_one_system() -> None:
    run, qrels = _random_data(4)
    evaluator = Evaluator(qrels, ["rr"])
    two_systems = pl.concat(
        [
            pl.DataFrame(
                [(name, q, d, s) for q, docs in run.items() for d, s in docs.items()],
                schema=["system", "query_id", "doc_id", "score"],
                orient="row",
            )
            for name in ("a", "b")
        ]
    )
    with pytest.raises(ParameterError, match="one system"):
        evaluator.values(two_systems)
    with pytest.raises(SchemaError, match="No query in common"):
        evaluator.values({"zz": {"d": 1.0}})
    # missing="zero" scores every labelled query, but a run answering none is refused too
    with pytest.raises(SchemaError, match="No query in common"):
        Evaluator(qrels, ["rr"], missing="zero").values({"zz": {"d": 1.0}})


def test_auto_takes_the_in_memory_engine_for_small_dicts() -> None:
    run, qrels = _random_data(5)
    metrics = ["ap", "ndcg@10", "rr"]
    auto = rankset.evaluate(run, qrels, metrics, confidence=None)
    assert auto.config["engine"] == "in-memory"
    streaming = rankset.evaluate(run, qrels, metrics, confidence=None, engine="streaming")
    assert streaming.config["engine"] == "streaming"
    assert_frame_equal(auto.per_query, streaming.per_query, check_exact=True)
    on_file = rankset.evaluate(SAMPLE / "bm25.trec", SAMPLE / "qrels.txt", metrics)
    assert on_file.config["engine"] == "streaming"


def test_per_query_cutoffs_and_levels_are_prepared_with_the_labels() -> None:
    run, qrels = _random_data(6)
    cutoffs = {query: 1 + i % 7 for i, query in enumerate(sorted(qrels))}
    options: dict[str, Any] = {"cutoffs": cutoffs, "relevance_level": 2, "k": 3}
    metrics = ["recall@k", "precision@k", "ndcg@k", "ap", "hit@5"]
    evaluator = Evaluator(qrels, metrics, **options)
    assert "prepared=True" in repr(evaluator)
    want = rankset.evaluate(run, qrels, metrics, confidence=None, **options)
    _assert_same(evaluator.evaluate(run, confidence=None), want)
