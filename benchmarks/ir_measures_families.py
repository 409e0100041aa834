"""Time ir_measures' C/W/L and intent-aware families against rankset on the same inputs.

    python benchmarks/ir_measures_families.py [--queries 200] [--depth 1000] [--repeats 3]

A seeded synthetic collection: per query, ``depth`` retrieved documents with untied
scores, 150 of them graded 0-3 (the C/W/L inputs), and 4 subtopics each judged on 150 of
them (0-2, the intent-aware inputs, as ``Qrel.iteration``). For each family, ir_measures
(cwl_eval and pyndeval behind it) and ``rankset.evaluate`` compute the same measures from
the same in-memory data (rankset's frames are built once, outside the timing, as
ir_measures' namedtuples are); the script prints wall and CPU seconds (best of
``--repeats``), the ratio, and the largest difference of the means. Not a test: numbers
depend on the machine.
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable
from typing import Any

import polars as pl

import rankset

CWL = {
    "SDCG(max_rel=3)@10": "sdcg(max_rel=3)@10",
    "BPM(max_rel=3)@10": "bpm(max_rel=3)@10",
    "NERR8(max_rel=3)@10": "nerr8(max_rel=3)@10",
    "NERR9(max_rel=3)@10": "nerr9(max_rel=3)@10",
    "NERR10(max_rel=3)": "nerr10(max_rel=3)",
    "NERR11(max_rel=3)": "nerr11(max_rel=3)",
    "INST(max_rel=3)": "inst(max_rel=3)",
    "INSQ(max_rel=3)": "insq(max_rel=3)",
}
DIVERSITY = {
    "alpha_nDCG@20": "alpha_ndcg@20",
    "ERR_IA@20": "err_ia@20",
    "nERR_IA@20": "nerr_ia@20",
    "NRBP": "nrbp",
    "nNRBP": "nnrbp",
    "AP_IA": "map_ia",
    "P_IA@20": "p_ia@20",
    "StRecall@20": "subtopic_recall@20",
}


def collection(n_queries: int, depth: int, seed: int = 0) -> dict[str, list[tuple[Any, ...]]]:
    rng = random.Random(seed)
    run, graded, subtopics = [], [], []
    for q in range(n_queries):
        query = f"q{q}"
        docs = [f"d{i}" for i in range(depth)]
        run += [(query, doc, rng.random()) for doc in docs]
        graded += [(query, doc, rng.choice([0, 0, 1, 2, 3])) for doc in rng.sample(docs, 150)]
        for subtopic in range(4):
            judged = rng.sample(docs, 150)
            subtopics += [(query, doc, rng.choice([0, 0, 1, 2]), str(subtopic)) for doc in judged]
    return {"run": run, "graded": graded, "subtopics": subtopics}


def best_of(repeats: int, call: Callable[[], Any]) -> tuple[float, float, Any]:
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import ir_measures

    data = collection(args.queries, args.depth)
    scored = [ir_measures.ScoredDoc(*row) for row in data["run"]]
    run = pl.DataFrame(data["run"], schema=["query_id", "doc_id", "score"], orient="row")
    families: dict[str, tuple[dict[str, str], list[Any], Callable[[list[str]], Any]]] = {}
    graded = pl.DataFrame(data["graded"], schema=["query_id", "doc_id", "grade"], orient="row")
    families["C/W/L (cwl_eval)"] = (
        CWL,
        [ir_measures.Qrel(*row) for row in data["graded"]],
        lambda names: rankset.evaluate(run, graded, names, confidence=None),
    )
    subtopics = pl.DataFrame(
        data["subtopics"], schema=["query_id", "doc_id", "grade", "subtopic"], orient="row"
    )
    families["intent-aware (pyndeval)"] = (
        DIVERSITY,
        [ir_measures.Qrel(*row) for row in data["subtopics"]],
        lambda names: rankset.evaluate(
            run, None, names, nuggets=rankset.read_subtopics(subtopics), confidence=None
        ),
    )
    print(f"{args.queries} queries x {args.depth} documents, best of {args.repeats}")
    print("| family | ir_measures wall / CPU s | rankset wall / CPU s | CPU ratio | max |Δ mean| |")
    print("|---|---:|---:|---:|---:|")
    for family, (names, qrels, ours) in families.items():
        parsed = [ir_measures.parse_measure(name) for name in names]
        theirs_call = functools.partial(ir_measures.calc_aggregate, parsed, qrels, scored)
        their_wall, their_cpu, theirs = best_of(args.repeats, theirs_call)
        ours_call = functools.partial(ours, list(names.values()))
        our_wall, our_cpu, result = best_of(args.repeats, ours_call)
        means = dict(zip(result.summary["metric"], result.summary["mean"], strict=True))
        gap = max(abs(theirs[p] - means[names[str(p)]]) for p in parsed)
        print(
            f"| {family} | {their_wall:.2f} / {their_cpu:.2f} | {our_wall:.2f} / {our_cpu:.2f} "
            f"| {our_cpu / their_cpu:.2f}x | {gap:.1e} |"
        )


if __name__ == "__main__":
    main()
