"""Many small runs in one call, and prepared calls that read only their run's labels.

The references are independent of the paths under test: each run evaluated on its own
(the one-run path, which reads every label), pytrec_eval, and numpy's bootstrap called
once per system.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.errors import InputFormatError
from rankset.evaluation import Evaluator
from rankset.stats.paired import bootstrap_column_mean_cis

METRICS = ["ndcg@10", "ap", "rr", "recall@100", "precision@10"]
TREC = {"ndcg@10": "ndcg_cut_10", "ap": "map", "rr": "recip_rank"}
TREC |= {"recall@100": "recall_100", "precision@10": "P_10"}


def _labels(rng: random.Random, queries: int) -> dict[str, dict[str, int]]:
    labels = {}
    for q in range(queries):
        graded = {f"d{rng.randrange(60)}": rng.randrange(0, 4) for _ in range(12)}
        graded[f"d{rng.randrange(60)}"] = 3
        labels[f"q{q}"] = graded
    return labels


def _runs(rng: random.Random, systems: int, queries: int) -> dict[str, dict[str, Any]]:
    """Runs named out of alphabetical order, with ties, unlabelled and repeated queries."""
    runs = {}
    for i in range(systems):
        # one labelled query at least (a run without one is refused), maybe others
        picked = [f"q{rng.randrange(queries)}"]
        picked += [f"q{rng.randrange(queries + 3)}" for _ in range(rng.randrange(3))]
        runs[f"s{systems - i:03d}"] = {
            query: {f"d{d}": rng.randrange(8) / 4 for d in range(rng.randrange(1, 40))}
            for query in picked
        }
    return runs


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_a_mapping_of_runs_gives_each_run_s_own_result(seed: int, missing: str) -> None:
    rng = random.Random(seed)
    labels, runs = _labels(rng, 12), _runs(rng, 9, 12)
    together = rankset.evaluate(runs, labels, METRICS, missing=missing, seed=3)
    assert together.summary["system"].unique(maintain_order=True).to_list() == list(runs)
    for name, run in runs.items():
        alone = rankset.evaluate(run, labels, METRICS, missing=missing, seed=3, names=[name])
        assert_frame_equal(
            together.per_query.filter(pl.col("system") == name), alone.per_query, check_exact=True
        )
        assert_frame_equal(
            together.summary.filter(pl.col("system") == name), alone.summary, check_exact=True
        )
        assert_frame_equal(
            together.query_counts.filter(pl.col("system") == name),
            alone.query_counts,
            check_exact=True,
        )


def test_the_prepared_evaluator_takes_a_mapping_of_runs_as_pytrec_eval_does() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(5)
    labels, runs = _labels(rng, 30), _runs(rng, 40, 30)
    evaluator = Evaluator(labels, METRICS)
    got = evaluator.values(runs)
    assert list(got) == list(runs)
    measures = {"ndcg_cut.10", "map", "recip_rank", "recall.100", "P.10"}
    reference = pytrec_eval.RelevanceEvaluator(labels, measures)
    for name, run in runs.items():
        assert got[name] == evaluator.values(run)
        want = reference.evaluate(run)
        assert got[name] == {
            query: {metric: want[query][TREC[metric]] for metric in METRICS} for query in want
        }
    summary = evaluator.evaluate(runs, confidence=None).summary
    assert summary["system"].unique(maintain_order=True).to_list() == list(runs)


def test_runs_of_another_shape_are_read_one_by_one_and_named_as_before() -> None:
    labels = {"q1": {"d1": 1}, "1": {"d1": 1}}
    # an integer query id, an empty run: each run read on its own, the naming rule kept
    mixed = rankset.evaluate({"b": {1: {"d1": 1.0}}, "a": {"q1": {"d1": 1.0}}}, labels, ["rr"])
    assert mixed.summary["system"].unique(maintain_order=True).to_list() == ["b", "a"]
    with pytest.raises(InputFormatError, match=r"score 'x' is not a number"):
        rankset.evaluate({"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d1": "x"}}}, labels, ["rr"])
    renamed = rankset.evaluate(
        {"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d2": 1.0}}}, labels, ["rr"], names=["y", "x"]
    )
    assert renamed.summary["system"].to_list() == ["y", "x"]
    assert renamed.summary["mean"].to_list() == [1.0, 0.0]


def test_a_prepared_call_joins_only_its_run_s_queries() -> None:
    rng = random.Random(9)
    labels = _labels(rng, 50)
    evaluator = Evaluator(labels, METRICS)
    fused = evaluator._prepared.fused  # type: ignore[union-attr]
    assert fused is not None
    rows, stats, queries = fused.for_queries(("q7", "q40", "unlabelled", "q3"))
    assert sorted(rows["query_id"].unique()) == ["q3", "q40", "q7"]
    assert rows.height == sum(len(labels[q]) for q in ("q3", "q40", "q7"))
    assert sorted(stats["query_id"]) == ["q3", "q40", "q7"]
    assert sorted(queries.explode()) == ["q3", "q40", "q7"]
    one = fused.for_queries(("q12",))[0]
    assert set(one["doc_id"]) == set(labels["q12"])
    # the values equal those of an evaluator holding these queries' labels only
    run = {q: {f"d{d}": rng.randrange(5) / 4 for d in range(60)} for q in ("q7", "q40", "zz")}
    alone = Evaluator({q: labels[q] for q in ("q7", "q40")}, METRICS)
    assert evaluator.values(run) == alone.values(run)


def test_summaries_of_many_systems_have_each_system_s_own_intervals() -> None:
    rng = np.random.default_rng(4)
    rows = []
    for system, n_queries in (("c", 5), ("a", 1), ("b", 7), ("d", 1)):
        for metric in ("ap", "rr"):
            for q in range(n_queries):
                value = None if (system, q) == ("b", 2) else float(rng.integers(0, 5)) / 4
                rows.append((system, metric, f"q{q}", value))
    tidy = pl.DataFrame(rows, schema=["system", "metric", "query_id", "value"], orient="row")
    from rankset.evaluation._summary import summarise_means

    summary = summarise_means(tidy, ["metric"], n_resamples=200, seed=1)
    for system in ("c", "a", "b", "d"):
        own = tidy.filter(pl.col("system") == system)
        matrix = np.array(
            [own.filter(pl.col("metric") == m)["value"].to_numpy() for m in ("ap", "rr")]
        ).T
        want = bootstrap_column_mean_cis(matrix, n_resamples=200, seed=1)
        got = summary.filter(pl.col("system") == system).select("ci_low", "ci_high").to_numpy()
        np.testing.assert_array_equal(got, want)


def test_one_query_s_interval_is_its_value_without_resampling() -> None:
    matrix = np.array([[0.25, np.nan, 1.0]])
    assert bootstrap_column_mean_cis(matrix, n_resamples=50).tolist()[0] == [0.25, 0.25]
    assert np.isnan(bootstrap_column_mean_cis(matrix)[1]).all()
    # the same as the general path gives a query repeated (every resample is its value)
    twice = np.repeat(matrix, 2, axis=0)
    np.testing.assert_array_equal(
        bootstrap_column_mean_cis(matrix), bootstrap_column_mean_cis(twice)
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_one_shot_call_equals_the_evaluation_over_every_label(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rankset.evaluation import _evaluate

    rng = random.Random(seed)
    labels: dict[str, dict[str, int]] = _labels(rng, 40)
    labels["q5"] = {"d1": -1, "d2": -1}  # judged, nothing relevant
    labels["q6"] = {}  # a query without labels
    run = {f"q{q}": {f"d{d}": rng.randrange(6) / 5 for d in range(30)} for q in range(3, 12)}
    run["unlabelled"] = {"d1": 1.0}
    metrics = [*METRICS, "success@5", "P@5"]
    got = rankset.evaluate(run, labels, metrics, seed=2)
    monkeypatch.setattr(_evaluate, "evaluate_run_queries", lambda *a, **k: None)
    want = rankset.evaluate(run, labels, metrics, seed=2)
    assert_frame_equal(got.per_query, want.per_query, check_exact=True)
    assert_frame_equal(got.summary, want.summary, check_exact=True)
    assert_frame_equal(got.query_counts, want.query_counts, check_exact=True)
    assert got.config == want.config


def test_a_one_shot_call_reads_only_its_run_s_labels() -> None:
    # a grade no evaluation takes, in a query the run does not answer: not read
    labels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": "high"}}
    result = rankset.evaluate({"q1": {"d1": 0.5, "d2": 0.9}}, labels, ["rr"], confidence=None)
    assert result.summary["mean"].to_list() == [0.5]
    assert result.query_counts["n_label_queries_without_run"].to_list() == [1]
    # the same grade in an answered query is refused, naming it
    with pytest.raises(InputFormatError, match="'high' is not a number"):
        rankset.evaluate({"q2": {"d1": 0.5}}, labels, ["rr"], confidence=None)


def test_a_prepared_call_still_refuses_a_bad_query_id_and_takes_an_unusual_one() -> None:
    from rankset.errors import SchemaError

    labels = {"q1 ": {"d1": 1}, "q\u00a0": {"d1": 1}, "q1": {"d1": 1}}
    evaluator = Evaluator({"q1": {"d1": 1}, "q\u00a0": {"d1": 1}}, ["rr"])
    with pytest.raises(SchemaError, match="leading or trailing space"):
        evaluator.values({"q1 ": {"d1": 1.0}})
    # a no-break space is a usable id (only the general kernel's rules decide)
    assert evaluator.values({"q\u00a0": {"d2": 1.0, "d1": 0.5}}) == {"q\u00a0": {"rr": 0.5}}
    assert rankset.evaluate({"q1": {"d1": 1.0}}, labels, ["rr"], confidence=None).summary[
        "mean"
    ].to_list() == [1.0]


def test_a_frame_run_is_joined_with_its_queries_labels_when_labels_are_many() -> None:
    rng = random.Random(11)
    labels = _labels(rng, 600)  # about 7,000 label rows: past the slicing threshold
    evaluator = Evaluator(labels, METRICS)
    fused = evaluator._prepared.fused  # type: ignore[union-attr]
    assert fused is not None
    assert fused.labels.height >= 5_000
    rows = [(q, f"d{d}", rng.randrange(5) / 4) for q in ("q17", "q599", "zz") for d in range(50)]
    frame = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    run = evaluator._prepared.with_runs(frame, None)  # type: ignore[union-attr]
    assert run is not None
    assert sorted(fused._run_queries(run.runs.inputs[0]) or ()) == ["q17", "q599", "zz"]
    alone = Evaluator({q: labels[q] for q in ("q17", "q599")}, METRICS)
    assert evaluator.values(frame) == alone.values(frame)
    assert evaluator.evaluate(frame, seed=1).summary.equals(alone.evaluate(frame, seed=1).summary)


def _frame(run: dict[str, dict[str, float]]) -> pl.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")


def test_a_mapping_of_frames_gives_each_frame_s_own_result() -> None:
    rng = random.Random(21)
    labels, runs = _labels(rng, 15), _runs(rng, 8, 15)
    frames = {name: _frame(run) for name, run in runs.items()}
    together = rankset.evaluate(frames, labels, METRICS, seed=4)
    assert together.summary["system"].unique(maintain_order=True).to_list() == list(frames)
    for name, frame in frames.items():
        alone = rankset.evaluate(frame, labels, METRICS, seed=4, names=[name])
        mine = pl.col("system") == name
        assert_frame_equal(together.per_query.filter(mine), alone.per_query, check_exact=True)
        assert_frame_equal(together.summary.filter(mine), alone.summary, check_exact=True)
    evaluator = Evaluator(labels, METRICS)
    assert evaluator.values(frames) == {name: evaluator.values(f) for name, f in frames.items()}
    # frames of different shapes, or naming their own systems, are read one by one
    tagged = {"a": frames[next(iter(frames))].with_columns(tag=pl.lit("t1")), **frames}
    mixed = rankset.evaluate(tagged, labels, ["rr"], confidence=None)
    assert mixed.summary["system"].to_list() == list(tagged)


def test_rankings_numbered_by_the_reader_keep_empty_and_repeated_queries() -> None:
    # The mapping's reader numbers each (system, query) ranking; an empty ranking has no
    # rows (a gap in the numbers) and the same query in two systems is two rankings.
    labels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}, "q3": {"d1": 1}}
    runs = {
        "b": {"q1": {}, "q2": {"d3": 0.5, "d1": 0.5}, "q3": {"d1": 0.1, "d9": 0.2}},
        "a": {"q2": {"d1": 1.0, "d3": 1.0}, "q1": {"d2": 0.3, "d1": 0.3, "d4": 0.9}},
        "c": {"q3": {"x": 1.0}},
    }
    together = Evaluator(labels, METRICS).values(runs)
    for name, run in runs.items():
        assert together[name] == Evaluator(labels, METRICS).values(run)
    # by hand: in "a", q1 ranks d4, d2, d1 (the tie goes to the larger id): rr 1/2
    assert together["a"]["q1"]["rr"] == 0.5
    assert together["b"]["q2"]["rr"] == 1.0  # d3 before d1 on the tie
    assert set(together["b"]) == {"q2", "q3"}
