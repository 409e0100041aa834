"""Time each stage of ``rankset.evaluate`` on a Parquet run beside a bare Polars join.

    python benchmarks/generate.py --size large --ties trec_eval,shuffled \
        --out /tmp/rankset-bench/large
    python benchmarks/floor.py --data /tmp/rankset-bench/large --run run-shuffled [--repeats 3]

The floor: an evaluation must at least read the run's ``query_id, doc_id, score`` and
join them to the labels, so ``bare_join`` is ``pl.scan_parquet(run).select(...).join(
pl.scan_parquet(qrels), on=[query_id, doc_id]).collect()``. ``rankset`` is
``rankset.evaluate(run, qrels, [ndcg@10, ap, rr, recall@100, precision@10],
confidence=None)`` with its per-query frame built. Both run in this one process,
alternated (bare, read, rankset, then the reverse, ...) after one unmeasured warm-up of
each; the report gives medians of wall and CPU time (the process's, every thread's:
steadier than wall on a shared machine), their ratios to the bare join, and the median
of the per-repeat ratios.

Each rankset call is split into stages by wrapping the functions that do them (the
wrappers add microseconds):

- plan: reading the files' schemas and planning the labels (``plan_evaluation_inputs``);
- pass: the one streaming collect over the run: the read and each row's checks; for a
  run in no order (the packed numbering) the ids, key and document id of every row and
  the labels, joined to nothing; for the other numberings the join to the labels too
  (``collect_frames``);
- rank: numbering and naming the rankings from the query ids' hashes, the packed
  integers' sort, the labelled rows' positions (``_with_rankings`` and ``_resolve`` in
  the pass); a large run's labelled rows are found on the checker thread meanwhile
  (the rank stage asks for them after the sort);
- checks: the wait for the checker thread, which runs beside the numbering for large
  runs, in this order: the keys' finite range, a run in no order's document ids'
  checks (``refuse_bad_packed_ids``), its labelled rows (the pair hashes written over
  the query hashes behind the numbering, the bitmap over them, the join to the labels)
  and the duplicate check's sort of the pair hashes (``_Measured.maybe_duplicates``);
  a large run's labels are checked and summarised on a third thread meanwhile;
- measure: the rest of the kernel: the five measures over the labelled rows, their
  per-query aggregates (and, for a small run, the labels' checks and statistics);
- aggregate: the rest of the call: the pass's counts read back, the result's per-query
  frame, query counts and means.

``read`` (the three columns collected, no join) is timed beside them, alternated too.

Values: the per-query values of a seeded sample of queries (``--sample``, default 500)
are compared with pytrec_eval's on the same rows read into dicts; the script exits 1
unless every one is equal to the last bit.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

import rankset
from rankset.evaluation import _evaluate, _kernel, _pass

METRICS: list[tuple[str, str, str]] = [
    ("ndcg@10", "ndcg_cut.10", "ndcg_cut_10"),
    ("ap", "map", "map"),
    ("rr", "recip_rank", "recip_rank"),
    ("recall@100", "recall.100", "recall_100"),
    ("precision@10", "P.10", "P_10"),
]
STAGES = ["plan", "pass", "rank", "checks", "measure", "aggregate"]


class Stages:
    """Wrap the functions behind each stage; accumulate their wall time per call."""

    def __init__(self) -> None:
        self.times: dict[str, float] = defaultdict(float)

    def wrap(self, owner: Any, name: str, stage: str) -> None:
        original = getattr(owner, name, None)
        if original is None:  # an older rankset (PYTHONPATH=<worktree>/src): not split
            return
        times = self.times

        def timed(*args: Any, **kwargs: Any) -> Any:
            start, cpu = time.perf_counter(), time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                times[stage] += time.perf_counter() - start
                times[f"{stage} cpu"] += time.process_time() - cpu

        setattr(owner, name, timed)

    def wrap_property(self, owner: type, name: str, stage: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        times = self.times

        def timed(instance: Any) -> Any:
            start, cpu = time.perf_counter(), time.process_time()
            try:
                return original.fget(instance)
            finally:
                times[stage] += time.perf_counter() - start
                times[f"{stage} cpu"] += time.process_time() - cpu

        setattr(owner, name, property(timed))


def install(stages: Stages) -> None:
    # the names each caller looks up at call time
    stages.wrap(_evaluate, "plan_evaluation_inputs", "plan")
    stages.wrap(_pass, "collect_frames", "pass")
    stages.wrap(_pass, "_with_rankings", "rank")
    stages.wrap(_pass, "_resolve", "rank")
    stages.wrap_property(_pass._Measured, "maybe_duplicates", "checks")
    stages.wrap(_pass, "refuse_bad_packed_ids", "checks")
    stages.wrap(_kernel, "measure_pass", "_measure_pass")
    stages.wrap(_evaluate, "measure_queries", "_measure_queries")


def columns(run: Path) -> pl.LazyFrame:
    return pl.scan_parquet(run).select(
        pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String), "score"
    )


def read(run: Path, qrels: Path) -> int:
    return columns(run).collect().height


def bare_join(run: Path, qrels: Path) -> int:
    labels = pl.scan_parquet(qrels).with_columns(
        pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String)
    )
    return columns(run).join(labels, on=["query_id", "doc_id"]).collect().height


def evaluate(run: Path, qrels: Path) -> pl.DataFrame:
    result = rankset.evaluate(run, qrels, [m[0] for m in METRICS], confidence=None)
    return result.per_query


def timed(call: Callable[[], Any]) -> tuple[float, float, Any]:
    start, cpu = time.perf_counter(), time.process_time()
    out = call()
    return time.perf_counter() - start, time.process_time() - cpu, out


def check_values(
    run: Path, qrels: Path, per_query: pl.DataFrame, sample: int, seed: int
) -> dict[str, Any]:
    """Compare a sample of queries' values with pytrec_eval's, bit for bit."""
    import pytrec_eval

    queries = per_query["query_id"].unique().sort().to_list()
    chosen = sorted(random.Random(seed).sample(queries, min(sample, len(queries))))
    rows = columns(run).filter(pl.col("query_id").is_in(chosen)).collect()
    labels = pl.scan_parquet(qrels).filter(pl.col("query_id").cast(pl.String).is_in(chosen))
    run_dict: dict[str, dict[str, float]] = defaultdict(dict)
    for qid, doc, score in rows.iter_rows():
        run_dict[qid][doc] = score
    qrels_dict: dict[str, dict[str, int]] = defaultdict(dict)
    for qid, doc, grade in labels.collect().select("query_id", "doc_id", "grade").iter_rows():
        qrels_dict[str(qid)][str(doc)] = int(grade)
    evaluator = pytrec_eval.RelevanceEvaluator(dict(qrels_dict), {m[1] for m in METRICS})
    expected = evaluator.evaluate(dict(run_dict))
    ours = {
        (qid, metric): value
        for qid, metric, value in per_query.filter(pl.col("query_id").is_in(chosen))
        .select("query_id", "metric", "value")
        .iter_rows()
    }
    compared = unequal = 0
    largest = 0.0
    for qid, values in expected.items():
        for name, _, key in METRICS:
            compared += 1
            got = ours.get((qid, name))
            if got is None or got != values[key]:
                unequal += 1
                largest = max(largest, abs((got or 0.0) - values[key]))
    return {"queries": len(chosen), "values": compared, "unequal": unequal, "max_abs_diff": largest}


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--run", default="run-shuffled", help="the run's file stem in --data")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample", type=int, default=500, help="queries checked (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    run, qrels = args.data / f"{args.run}.parquet", args.data / "qrels.parquet"

    stages = Stages()
    install(stages)
    bare_join(run, qrels)  # warm-up: page cache, Polars' thread pool
    per_query = evaluate(run, qrels)
    times: dict[str, list[float]] = defaultdict(list)
    ratios = []
    for repeat in range(args.repeats):
        order = ["bare_join", "read", "rankset"]
        for tool in order if repeat % 2 == 0 else order[::-1]:
            if tool == "rankset":
                stages.times.clear()
                seconds, cpu, per_query = timed(lambda: evaluate(run, qrels))
                split = dict(stages.times)
                for unit, total in (("", seconds), (" cpu", cpu)):
                    split["measure" + unit] = split.pop("_measure_queries" + unit) - split.pop(
                        "_measure_pass" + unit
                    )
                    split["aggregate" + unit] = total - sum(
                        split.get(name + unit, 0.0) for name in STAGES if name != "aggregate"
                    )
                    for name in STAGES:
                        times[name + unit].append(split.get(name + unit, 0.0))
            else:
                seconds, cpu, _ = timed(lambda t=tool: globals()[t](run, qrels))
            times[tool].append(seconds)
            times[tool + " cpu"].append(cpu)
        ratios.append(times["rankset"][-1] / times["bare_join"][-1])
        print(
            f"repeat {repeat + 1}: bare join {times['bare_join'][-1]:.3f} s, rankset "
            f"{times['rankset'][-1]:.3f} s ({ratios[-1]:.2f}x)",
            flush=True,
        )
    rows = pl.scan_parquet(run).select(pl.len()).collect().item()
    report: dict[str, Any] = {
        "run": str(run),
        "rows": rows,
        "repeats": args.repeats,
        "medians": {name: median(values) for name, values in times.items()},
        "ratio_of_medians": median(times["rankset"]) / median(times["bare_join"]),
        "median_pair_ratio": median(ratios),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "polars": pl.__version__,
    }
    if args.sample:
        report["values"] = check_values(run, qrels, per_query, args.sample, args.seed)
    print(markdown(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2))
    values = report.get("values")
    return 1 if values and values["unequal"] else 0


def markdown(report: dict[str, Any]) -> str:
    medians = report["medians"]
    bare = medians["bare_join"]
    lines = [
        f"`{report['run']}`: {report['rows']:,} rows, {report['repeats']} repeat(s), "
        f"medians; Polars {report['polars']}, peak RSS {report['peak_rss_mb']:,.0f} MB.",
        "",
        "| step | wall s | ÷ bare join | CPU s | ÷ bare join |",
        "|---|---:|---:|---:|---:|",
    ]
    bare_cpu = medians["bare_join cpu"]
    for name in ["bare_join", "read", "rankset", *STAGES]:
        label = f"rankset: {name}" if name in STAGES else name
        wall, cpu = medians[name], medians[f"{name} cpu"]
        lines.append(
            f"| {label} | {wall:.3f} | {wall / bare:.2f} | {cpu:.3f} | {cpu / bare_cpu:.2f} |"
        )
    lines.append(
        f"\nrankset ÷ bare join: {report['ratio_of_medians']:.2f} (ratio of medians), "
        f"{report['median_pair_ratio']:.2f} (median of pairs)."
    )
    if "values" in report:
        v = report["values"]
        lines.append(
            f"Values: {v['values']:,} per-query values of {v['queries']} queries compared with "
            f"pytrec_eval's: {v['unequal']} unequal (largest difference {v['max_abs_diff']:g})."
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
