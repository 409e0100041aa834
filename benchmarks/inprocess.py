"""Time rankset in one Python process beside pytrec_eval, ir_measures and ranx.

    python benchmarks/inprocess.py [--sizes 1x100,100x100,1000x100] [--big] [--json OUT]

Most Python users never touch a file: they call pytrec_eval with dicts inside a training
loop, ir_measures with frames, ranx with dicts. This script times one call of each, in
one process, on the same synthetic data: ``Q`` queries × ``D`` documents per query
(scores rounded to two decimals, so rankings have ties), about 30 labels per query
(grades 0-3, at least one relevant), five measures (nDCG@10, AP, RR, R@100, P@10).

What one call is, per tool (data built outside the timing):

| name | one call |
|---|---|
| ``pytrec_eval`` | ``RelevanceEvaluator(qrels, measures).evaluate(run)`` from dicts |
| ``pytrec_eval_prepared`` | ``evaluator.evaluate(run)``, the evaluator built once |
| ``ir_measures`` | ``list(ir_measures.iter_calc(measures, qrels, run))`` from dicts |
| ``ir_measures_pandas`` | the same from pandas frames |
| ``ranx`` | ``ranx.evaluate(Qrels(qrels), Run(run), metrics)`` from dicts (numba warmed) |
| ``ranx_pandas`` | ``Qrels.from_df``, ``Run.from_df`` and ``evaluate`` from pandas frames |
| ``rankset`` | ``rankset.evaluate(run, qrels, metrics, confidence=None)`` from dicts |
| ``rankset_polars`` | the same from Polars frames |
| ``rankset_pandas`` | the same from pandas frames |
| ``rankset_evaluator`` | ``Evaluator(qrels, metrics).evaluate(run)``, built once (when it exists) |
| ``rankset_values`` | ``evaluator.values(run)``: pytrec_eval's nested dict (when it exists) |
| ``ir_measures_evaluator`` | ``list(evaluator.iter_calc(run))``, the evaluator built once |
| ``face_pytrec_eval`` | ``rankset.compat.pytrec_eval``: as ``pytrec_eval`` |
| ``face_pytrec_eval_prepared`` | the face's evaluator built once, as ``pytrec_eval_prepared`` |
| ``face_ir_measures`` | ``rankset.compat.ir_measures``: as ``ir_measures`` |
| ``face_ir_measures_evaluator`` | the face's evaluator built once, as ``ir_measures_evaluator`` |

Each round calls every tool once, the order reversed on every other round; the report
gives each tool's median wall and CPU time over rounds (CPU: the process's user +
system time, every thread's) and the ratios of the medians to ``pytrec_eval``
(``rankset_evaluator`` and ``rankset_values`` to ``pytrec_eval_prepared``; each
``face_*`` to the original it stands for). Every per-query value of rankset is compared
with pytrec_eval's, and every value of a face with its original's (any difference above
1e-9 makes the script exit 1). ``--big`` adds 10,000 × 1,000 (10 million rows: minutes and
several GB on a small machine).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import rankset

# rankset name, pytrec_eval measure (request, result key), ranx name, ir_measures name.
METRICS: list[tuple[str, str, str, str, str]] = [
    ("ndcg@10", "ndcg_cut.10", "ndcg_cut_10", "ndcg@10", "nDCG@10"),
    ("ap", "map", "map", "map", "AP"),
    ("rr", "recip_rank", "recip_rank", "mrr", "RR"),
    ("recall@100", "recall.100", "recall_100", "recall@100", "R@100"),
    ("precision@10", "P.10", "P_10", "precision@10", "P@10"),
]
RANKSET_METRICS = [m[0] for m in METRICS]
ROUNDS = {1: 51, 100: 21, 1000: 9, 10000: 3}
# The tool each one is compared with.
BASELINE = {
    "rankset_evaluator": "pytrec_eval_prepared",
    "rankset_values": "pytrec_eval_prepared",
    "ir_measures_evaluator": "ir_measures",
    "face_pytrec_eval": "pytrec_eval",
    "face_pytrec_eval_prepared": "pytrec_eval_prepared",
    "face_ir_measures": "ir_measures",
    "face_ir_measures_evaluator": "ir_measures_evaluator",
}


def make_data(queries: int, depth: int, seed: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return a seeded run and qrels as ``{qid: {doc: score}}`` and ``{qid: {doc: grade}}``."""
    rng = random.Random(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        qid = f"q{q}"
        run[qid] = {f"d{q}_{d}": round(rng.random() * 10, 2) for d in range(depth)}
        # about half of the labels on retrieved documents, the rest on others
        labelled = {f"d{q}_{rng.randrange(depth * 2)}": rng.randrange(4) for _ in range(30)}
        labelled[f"d{q}_{rng.randrange(depth)}"] = 3  # at least one relevant, retrieved
        qrels[qid] = labelled
    return run, qrels


def frames(
    run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The same data as Polars frames (``query_id, doc_id, score`` and ``..., grade``)."""
    run_rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    label_rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    return (
        pl.DataFrame(run_rows, schema=["query_id", "doc_id", "score"], orient="row"),
        pl.DataFrame(label_rows, schema=["query_id", "doc_id", "grade"], orient="row"),
    )


def tools(run: dict[str, Any], qrels: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """Return each tool's one call on this data (closures over prepared inputs)."""
    import ir_measures
    import pytrec_eval
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    trec_measures = {m[1] for m in METRICS}
    ranx_metrics = [m[3] for m in METRICS]
    ir_names = [ir_measures.parse_measure(m[4]) for m in METRICS]
    run_pl, qrels_pl = frames(run, qrels)
    run_pd, qrels_pd = run_pl.to_pandas(), qrels_pl.to_pandas()
    ir_run = run_pd.rename(columns={"score": "score"})
    ir_qrels = qrels_pd.rename(columns={"grade": "relevance"})
    prepared = pytrec_eval.RelevanceEvaluator(qrels, trec_measures)
    ir_prepared = ir_measures.evaluator(ir_names, qrels)

    # ranx wants object (not pandas' string) id columns
    ranx_run = run_pd.astype({"query_id": object, "doc_id": object})
    ranx_qrels = qrels_pd.astype({"query_id": object, "doc_id": object})

    def ranx_pandas() -> Any:
        q = Qrels.from_df(ranx_qrels, q_id_col="query_id", doc_id_col="doc_id", score_col="grade")
        r = Run.from_df(ranx_run, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
        return ranx_evaluate(q, r, ranx_metrics)

    calls: dict[str, Callable[[], Any]] = {
        "pytrec_eval": lambda: pytrec_eval.RelevanceEvaluator(qrels, trec_measures).evaluate(run),
        "pytrec_eval_prepared": lambda: prepared.evaluate(run),
        "ir_measures": lambda: list(ir_measures.iter_calc(ir_names, qrels, run)),
        "ir_measures_pandas": lambda: list(ir_measures.iter_calc(ir_names, ir_qrels, ir_run)),
        "ir_measures_evaluator": lambda: list(ir_prepared.iter_calc(run)),
        "ranx": lambda: ranx_evaluate(Qrels(qrels), Run(run), ranx_metrics),
        "ranx_pandas": ranx_pandas,
        "rankset": lambda: rankset.evaluate(run, qrels, RANKSET_METRICS, confidence=None),
        "rankset_polars": lambda: rankset.evaluate(
            run_pl, qrels_pl, RANKSET_METRICS, confidence=None
        ),
        "rankset_pandas": lambda: rankset.evaluate(
            run_pd, qrels_pd, RANKSET_METRICS, confidence=None
        ),
    }
    evaluator_class = getattr(rankset.evaluation, "Evaluator", None)
    if evaluator_class is not None:
        evaluator = evaluator_class(qrels, RANKSET_METRICS)
        calls["rankset_evaluator"] = lambda: evaluator.evaluate(run)
        calls["rankset_values"] = lambda: evaluator.values(run)
    calls |= face_tools(run, qrels)
    return calls


def face_tools(run: dict[str, Any], qrels: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """Return the calls of rankset's pytrec_eval and ir_measures faces (same inputs)."""
    from rankset.compat import ir_measures as face_ir
    from rankset.compat import pytrec_eval as face_trec

    trec_measures = {m[1] for m in METRICS}
    ir_names = [face_ir.parse_measure(m[4]) for m in METRICS]
    prepared = face_trec.RelevanceEvaluator(qrels, trec_measures)
    ir_prepared = face_ir.evaluator(ir_names, qrels)
    return {
        "face_pytrec_eval": lambda: face_trec.RelevanceEvaluator(qrels, trec_measures).evaluate(
            run
        ),
        "face_pytrec_eval_prepared": lambda: prepared.evaluate(run),
        "face_ir_measures": lambda: list(face_ir.iter_calc(ir_names, qrels, run)),
        "face_ir_measures_evaluator": lambda: list(ir_prepared.iter_calc(run)),
    }


def check_values(run: dict[str, Any], qrels: dict[str, Any]) -> float:
    """Return the largest difference between rankset's and pytrec_eval's per-query values."""
    import pytrec_eval

    expected = pytrec_eval.RelevanceEvaluator(qrels, {m[1] for m in METRICS}).evaluate(run)
    wide = rankset.evaluate(run, qrels, RANKSET_METRICS, confidence=None).wide()
    worst = 0.0
    for row in wide.iter_rows(named=True):
        for name, _, key, _, _ in METRICS:
            worst = max(worst, abs(row[name] - expected[row["query_id"]][key]))
    evaluator_class = getattr(rankset.evaluation, "Evaluator", None)
    if evaluator_class is not None:
        got = evaluator_class(qrels, RANKSET_METRICS).values(run)
        for query, values in expected.items():
            for name, _, key, _, _ in METRICS:
                worst = max(worst, abs(got[query][name] - values[key]))
    return max(worst, check_faces(run, qrels, expected))


def check_faces(
    run: dict[str, Any], qrels: dict[str, Any], expected: dict[str, dict[str, float]]
) -> float:
    """Return the largest difference between the faces' values and their originals'."""
    import ir_measures

    from rankset.compat import ir_measures as face_ir
    from rankset.compat import pytrec_eval as face_trec

    got = face_trec.RelevanceEvaluator(qrels, {m[1] for m in METRICS}).evaluate(run)
    worst = 0.0 if got.keys() == expected.keys() else float("inf")
    for query, values in expected.items():
        if got.get(query, {}).keys() != values.keys():
            return float("inf")
        worst = max(worst, *(abs(got[query][key] - value) for key, value in values.items()))
    names = [m[4] for m in METRICS]
    original = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc([ir_measures.parse_measure(n) for n in names], qrels, run)
    }
    face = {
        (m.query_id, str(m.measure)): m.value
        for m in face_ir.iter_calc([face_ir.parse_measure(n) for n in names], qrels, run)
    }
    if face.keys() != original.keys():
        return float("inf")
    return max(worst, *(abs(face[key] - value) for key, value in original.items()))


def time_tools(
    calls: dict[str, Callable[[], Any]], rounds: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Return each call's median wall and CPU seconds over ``rounds`` rounds (A B ... B A ...).

    CPU is the process's user + system time (every thread's) during the call: on a
    machine shared with other work it moves less than the wall time.
    """
    names = list(calls)
    for name in names:  # warm-up: numba's compilation, caches, first imports
        calls[name]()
    walls: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    for i in range(rounds):
        gc.collect()
        for name in names if i % 2 == 0 else reversed(names):
            cpu = time.process_time()
            start = time.perf_counter()
            calls[name]()
            walls[name].append(time.perf_counter() - start)
            cpus[name].append(time.process_time() - cpu)
    return (
        {name: statistics.median(values) for name, values in walls.items()},
        {name: statistics.median(values) for name, values in cpus.items()},
    )


def warm_ranx() -> None:
    """Compile ranx's numba functions before anything is timed."""
    from ranx import Qrels, Run, evaluate

    run, qrels = make_data(3, 10, seed=1)
    evaluate(Qrels(qrels), Run(run), [m[3] for m in METRICS])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1x100,100x100,1000x100", help="QxD,QxD,...")
    parser.add_argument("--big", action="store_true", help="add 10000x1000 (10M rows)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds for every size")
    parser.add_argument("--tools", default=None, help="comma-separated subset of the tools")
    parser.add_argument("--json", type=Path, default=None, help="write the medians here")
    args = parser.parse_args()
    sizes = [tuple(int(n) for n in size.split("x")) for size in args.sizes.split(",")]
    if args.big:
        sizes.append((10000, 1000))
    warnings.filterwarnings("ignore")  # numba's type-safety warnings from ranx
    if args.tools is None or "ranx" in args.tools:
        warm_ranx()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"# commit {commit}, Python {platform.python_version()}, Polars {pl.__version__}")
    report: dict[str, Any] = {"commit": commit, "sizes": {}}
    failed = False
    for queries, depth in sizes:
        run, qrels = make_data(queries, depth)
        worst = check_values(run, qrels)
        failed |= worst > 1e-9
        calls = tools(run, qrels)
        if args.tools:
            wanted = set(args.tools.split(","))
            calls = {name: call for name, call in calls.items() if name in wanted}
        rounds = args.rounds or ROUNDS.get(queries, 3)
        medians, cpu = time_tools(calls, rounds)
        print(f"\n## {queries:,} x {depth:,} ({rounds} rounds; max |diff| {worst:.1e})")
        print("| tool | wall ms | ratio | CPU ms | CPU ratio |")
        print("|---|---:|---:|---:|---:|")
        for name, seconds in medians.items():
            base_name = BASELINE.get(name, "pytrec_eval")
            base, base_cpu = medians.get(base_name), cpu.get(base_name)
            ratio = f"{seconds / base:.2f}x" if base else "-"
            cpu_ratio = f"{cpu[name] / base_cpu:.2f}x" if base_cpu else "-"
            wall_ms, cpu_ms = seconds * 1000, cpu[name] * 1000
            print(f"| {name} | {wall_ms:.3f} | {ratio} | {cpu_ms:.3f} | {cpu_ratio} |")
        report["sizes"][f"{queries}x{depth}"] = {
            "wall_s": medians,
            "cpu_s": cpu,
            "max_diff": worst,
        }
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
