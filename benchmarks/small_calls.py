"""Many small calls: a prepared evaluator in a loop, many runs in one call, one-shot calls.

    python benchmarks/small_calls.py [--label-queries 1000] [--runs 1000] [--rounds 7]

The shapes of a training loop, a per-query reward or a sweep over configurations, timed
in one process beside pytrec_eval (issue 49): labels of ``--label-queries`` queries x 30
judged documents (grades 0-3), runs of 1 query x 100 documents (scores in hundredths,
so with ties), five measures (nDCG@10, AP, RR, R@100, P@10).

- prepared, labels of N queries: ``Evaluator.values(run)`` against pytrec_eval's
  ``evaluator.evaluate(run)``, both built once;
- prepared, labels of 1 query: the same, both built on the run's query only;
- many runs in one call: ``Evaluator.values({name: run, ...})`` against a loop of
  pytrec_eval's prepared ``evaluator.evaluate(run)``; the same runs as Polars frames
  (``Evaluator.values({name: frame, ...})``) against the same loop over the dicts;
  ``rankset.evaluate({...}, confidence=None)``, which reads the labels too, against
  pytrec_eval's build and loop;
- one-shot: ``rankset.evaluate(run, labels, confidence=None)`` against
  ``RelevanceEvaluator(labels, measures).evaluate(run)``; and 20 runs of 5 queries
  given by name, against labels of ``--wide-label-queries`` queries (the cost follows
  the runs' queries, not the label table), against pytrec_eval's build and 20 calls.

Each figure is the median wall time over ``--rounds`` rounds (a round of the small calls
times ``--calls`` calls and divides), tools alternated within a round. Every value of
rankset is compared with pytrec_eval's (exit 1 on any difference).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import polars as pl
import pytrec_eval

import rankset
from rankset.evaluation import Evaluator

METRICS = ["ndcg@10", "ap", "rr", "recall@100", "precision@10"]
TREC = dict(zip(METRICS, ["ndcg_cut_10", "map", "recip_rank", "recall_100", "P_10"], strict=True))
TREC_MEASURES = {"ndcg_cut.10", "map", "recip_rank", "recall.100", "P.10"}


def _data(label_queries: int, runs: int, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    rng = random.Random(seed)
    labels: dict[str, dict[str, int]] = {}
    for q in range(label_queries):
        graded = {f"d{rng.randrange(300)}": rng.randrange(4) for _ in range(30)}
        graded[f"d{rng.randrange(100)}"] = 3
        labels[f"q{q}"] = graded
    many = {
        f"run{i}": {f"q{i % label_queries}": {f"d{d}": round(rng.random(), 2) for d in range(100)}}
        for i in range(runs)
    }
    return labels, many


def _frame(run: dict[str, dict[str, float]]) -> pl.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")


def _wide(label_queries: int, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Labels of many queries; 20 runs of 5 of them (1 x 100 each)."""
    labels, _ = _data(label_queries, 0, seed)
    rng = random.Random(seed + 1)
    runs = {
        f"run{i}": {
            f"q{rng.randrange(label_queries)}": {
                f"d{d}": round(rng.random(), 2) for d in range(100)
            }
            for _ in range(5)
        }
        for i in range(20)
    }
    return labels, runs


def _built_and_looped(labels: dict[str, Any], runs: dict[str, Any]) -> list[Any]:
    evaluator = pytrec_eval.RelevanceEvaluator(labels, TREC_MEASURES)
    return [evaluator.evaluate(run) for run in runs.values()]


def _per_call(call: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls * 1e3


def _same(got: dict[str, dict[str, float | None]], want: dict[str, dict[str, float]]) -> bool:
    return got == {q: {m: want[q][TREC[m]] for m in METRICS} for q in want}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--label-queries", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--wide-label-queries", type=int, default=10_000)
    args = parser.parse_args()
    labels, runs = _data(args.label_queries, args.runs, args.seed)
    frames = {name: _frame(run) for name, run in runs.items()}
    wide_labels, wide_runs = _wide(args.wide_label_queries, args.seed)
    run = next(iter(runs.values()))
    (query,) = run
    own = {query: labels[query]}
    prepared = Evaluator(labels, METRICS)
    prepared_one = Evaluator(own, METRICS)
    reference = pytrec_eval.RelevanceEvaluator(labels, TREC_MEASURES)
    reference_one = pytrec_eval.RelevanceEvaluator(own, TREC_MEASURES)

    ok = _same(prepared.values(run), reference.evaluate(run))
    ok &= _same(prepared_one.values(run), reference.evaluate(run))
    together = prepared.values(runs)
    ok &= all(_same(together[name], reference.evaluate(r)) for name, r in runs.items())
    ok &= prepared.values(frames) == together
    oneshot = rankset.evaluate(run, labels, METRICS, confidence=None).wide()
    ok &= _same(
        {q: {m: oneshot[m][0] for m in METRICS} for q in oneshot["query_id"]},
        reference.evaluate(run),
    )
    wide_reference = pytrec_eval.RelevanceEvaluator(wide_labels, TREC_MEASURES)
    wide = rankset.evaluate(wide_runs, wide_labels, METRICS, confidence=None).wide()
    for name, wide_run in wide_runs.items():
        mine = wide.filter(system=name)
        got = {row["query_id"]: {m: row[m] for m in METRICS} for row in mine.iter_rows(named=True)}
        ok &= _same(got, wide_reference.evaluate(wide_run))

    calls = args.calls
    timings: dict[str, list[float]] = {}
    rows: list[tuple[str, str, Callable[[], Any], Callable[[], Any], int]] = [
        (
            "prepared, labels of N queries",
            "per call",
            lambda: prepared.values(run),
            lambda: reference.evaluate(run),
            calls,
        ),
        (
            "prepared, labels of 1 query",
            "per call",
            lambda: prepared_one.values(run),
            lambda: reference_one.evaluate(run),
            calls,
        ),
        (
            f"{len(runs)} runs, Evaluator.values(mapping)",
            "per batch",
            lambda: prepared.values(runs),
            lambda: [reference.evaluate(r) for r in runs.values()],
            1,
        ),
        (
            f"{len(runs)} frames, Evaluator.values(mapping)",
            "per batch",
            lambda: prepared.values(frames),
            lambda: [reference.evaluate(r) for r in runs.values()],
            1,
        ),
        (
            f"{len(runs)} runs, rankset.evaluate(mapping) *",
            "per batch",
            lambda: rankset.evaluate(runs, labels, METRICS, confidence=None),
            lambda: _built_and_looped(labels, runs),
            1,
        ),
        (
            "one-shot, labels of N queries",
            "per call",
            lambda: rankset.evaluate(run, labels, METRICS, confidence=None),
            lambda: pytrec_eval.RelevanceEvaluator(labels, TREC_MEASURES).evaluate(run),
            max(1, calls // 10),
        ),
        (
            f"20 x 5 runs, labels of {len(wide_labels)} q *",
            "per call",
            lambda: rankset.evaluate(wide_runs, wide_labels, METRICS, confidence=None),
            lambda: _built_and_looped(wide_labels, wide_runs),
            1,
        ),
    ]
    for name, _, ours, theirs, _n in rows:  # warm up
        ours(), theirs()
        timings[name] = []
        timings[name + "|pytrec_eval"] = []
    for round_ in range(args.rounds):
        for name, _, ours, theirs, n in rows:
            pair = [(name, ours), (name + "|pytrec_eval", theirs)]
            for key, call in pair if round_ % 2 == 0 else reversed(pair):
                timings[key].append(_per_call(call, n))

    print(
        f"labels: {args.label_queries} queries x ~30 judged; runs of 1 x 100; "
        f"{len(runs)} runs in a batch; {args.rounds} rounds; medians in ms"
    )
    print(f"{'call':<44} {'unit':<10} {'rankset':>9} {'pytrec_eval':>12} {'ratio':>7}")
    for name, unit, *_ in rows:
        ours = statistics.median(timings[name])
        theirs = statistics.median(timings[name + "|pytrec_eval"])
        print(f"{name:<44} {unit:<10} {ours:>9.3f} {theirs:>12.3f} {ours / theirs:>7.2f}")
    print("* pytrec_eval: the evaluator built, then a call per run")
    print("values equal to pytrec_eval's:", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
