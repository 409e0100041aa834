"""Time rankset against pytrec_eval and ranx (and ir-measures), whole processes, A B A B.

    python benchmarks/run.py --data /tmp/rankset-bench/small [--repeats 3]
        [--tools rankset,pytrec_eval,ranx] [--json OUT]

Every measurement is one whole process run under ``/usr/bin/time``: interpreter start-up,
imports, reading ``run.trec`` and ``qrels.txt`` (TREC text, as each tool's users read it),
computing ndcg@10, AP, RR, recall@100 and P@10 per query and their means, and writing the
per-query values to a file. One unmeasured warm-up pass runs first (page cache, numba's
on-disk cache), then each repeat runs every tool once, the order reversed on every other
repeat. For each tool the report gives the medians of CPU (user + system), wall and peak
RSS, and for each rankset variant the medians of the per-repeat ratios rankset / tool.

rankset is timed twice: ``rankset evaluate`` (the CLI; its summary carries bootstrap
confidence intervals) and ``rankset.evaluate(..., confidence=None)`` from a short script.
``floor`` is just ``pl.read_csv`` of the TREC run in a fresh process.

Correctness: every per-query value of rankset is compared to pytrec_eval's (must agree to
1e-9) and to ranx's (definitions may differ: the largest difference per metric is reported).

This module is also the worker: ``run.py --worker TOOL --data DIR --out FILE`` is what gets
timed, and it imports only what that tool needs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# One column per metric: rankset name, pytrec_eval measure (request, result key), ranx name,
# ir-measures name.
METRICS: list[tuple[str, str, str, str, str]] = [
    ("ndcg@10", "ndcg_cut.10", "ndcg_cut_10", "ndcg@10", "nDCG@10"),
    ("ap", "map", "map", "map", "AP"),
    ("rr", "recip_rank", "recip_rank", "mrr", "RR"),
    ("recall@100", "recall.100", "recall_100", "recall@100", "R@100"),
    ("precision@10", "P.10", "P_10", "precision@10", "P@10"),
]
RANKSET_METRICS = [m[0] for m in METRICS]
COMPARED = ["pytrec_eval", "ranx", "ir_measures", "floor"]
VARIANTS = ["rankset", "rankset_api", "rankset_parquet"]
CURVES = ["curve_single_k", "curve_k1_100"]  # the `curves` tool group
# The issue's targets: ratio rankset / tool at or below these (per variant when given).
TARGETS: dict[tuple[str, str], float] = {
    ("cpu", "pytrec_eval"): 0.35,
    ("wall", "ranx"): 0.15,
    ("mem", "pytrec_eval"): 1.0,
    ("wall", "floor"): 1.5,
    ("cpu", "curve_single_k"): 2.0,
    ("wall", "curve_single_k"): 2.0,
}
VARIANT_TARGETS: dict[tuple[str, str, str], float] = {
    ("rankset_parquet", "cpu", "pytrec_eval"): 0.15,
}
TIME = "/usr/bin/time"


# --------------------------------------------------------------------------- workers


def work_rankset_api(data: Path, out: Path) -> None:
    import rankset

    result = rankset.evaluate(
        data / "run.trec", data / "qrels.txt", RANKSET_METRICS, confidence=None
    )
    result.to_parquet(out)
    print(result.summary)


def work_rankset_parquet(data: Path, out: Path) -> None:
    import rankset

    result = rankset.evaluate(
        data / "run.parquet", data / "qrels.parquet", RANKSET_METRICS, confidence=None
    )
    result.to_parquet(out)
    print(result.summary)


def work_curve_single_k(data: Path, out: Path) -> None:
    import rankset

    metrics = ["ndcg@10", "precision@10", "recall@10"]
    result = rankset.evaluate(data / "run.parquet", data / "qrels.parquet", metrics)
    out.write_text(json.dumps(result.summary.to_dicts()))


def work_curve_k1_100(data: Path, out: Path) -> None:
    import rankset

    measures = ["ndcg", "precision", "recall"]
    result = rankset.curves(data / "run.parquet", data / "qrels.parquet", measures, 100)
    out.write_text(json.dumps(result.summary.to_dicts()))


def read_trec_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    with path.open() as lines:
        for line in lines:
            qid, _, doc, _, score, _ = line.split()
            run.setdefault(qid, {})[doc] = float(score)
    return run


def read_trec_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open() as lines:
        for line in lines:
            qid, _, doc, grade = line.split()
            qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels


def work_pytrec_eval(data: Path, out: Path) -> None:
    import pytrec_eval

    run = read_trec_run(data / "run.trec")
    qrels = read_trec_qrels(data / "qrels.txt")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {m[1] for m in METRICS})
    results = evaluator.evaluate(run)
    per_query = {
        name: {qid: values[key] for qid, values in results.items()}
        for name, _, key, _, _ in METRICS
    }
    out.write_text(json.dumps(per_query))
    for name, values in per_query.items():
        print(name, sum(values.values()) / len(values))


def work_ranx(data: Path, out: Path) -> None:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(str(data / "qrels.txt"), kind="trec")
    run = Run.from_file(str(data / "run.trec"), kind="trec")
    means = evaluate(qrels, run, [m[3] for m in METRICS])
    per_query = {
        name: {qid: float(v) for qid, v in run.scores[key].items()}
        for name, _, _, key, _ in METRICS
    }
    out.write_text(json.dumps(per_query))
    print(means)


def work_ir_measures(data: Path, out: Path) -> None:
    import ir_measures

    measures = [ir_measures.parse_measure(m[4]) for m in METRICS]
    names = {str(measure): m[0] for measure, m in zip(measures, METRICS, strict=True)}
    qrels = ir_measures.read_trec_qrels(str(data / "qrels.txt"))
    run = ir_measures.read_trec_run(str(data / "run.trec"))
    per_query: dict[str, dict[str, float]] = {name: {} for name in names.values()}
    for metric in ir_measures.iter_calc(measures, qrels, run):
        per_query[names[str(metric.measure)]][metric.query_id] = float(metric.value)
    out.write_text(json.dumps(per_query))
    for name, values in per_query.items():
        print(name, sum(values.values()) / len(values))


def work_floor(data: Path, out: Path) -> None:
    import polars as pl

    frame = pl.read_csv(
        data / "run.trec",
        separator=" ",
        has_header=False,
        new_columns=["query_id", "q0", "doc_id", "rank", "score", "tag"],
        schema_overrides={"query_id": pl.String, "doc_id": pl.String},
    )
    out.write_text(str(frame.height))


WORKERS = {
    "rankset_api": work_rankset_api,
    "rankset_parquet": work_rankset_parquet,
    "curve_single_k": work_curve_single_k,
    "curve_k1_100": work_curve_k1_100,
    "pytrec_eval": work_pytrec_eval,
    "ranx": work_ranx,
    "ir_measures": work_ir_measures,
    "floor": work_floor,
}


# --------------------------------------------------------------------------- driver


def command(tool: str, data: Path, out: Path) -> list[str]:
    if tool == "rankset":
        exe = shutil.which("rankset") or str(Path(sys.executable).with_name("rankset"))
        metrics = [arg for name in RANKSET_METRICS for arg in ("-m", name)]
        return [
            exe,
            "evaluate",
            str(data / "run.trec"),
            "--qrels",
            str(data / "qrels.txt"),
            *metrics,
            "--per-query",
            str(out),
            "--json",
        ]
    script = str(Path(__file__).resolve())
    return [sys.executable, script, "--worker", tool, "--data", str(data), "--out", str(out)]


def output_name(tool: str) -> str:
    return f"{tool}.parquet" if tool.startswith("rankset") else f"{tool}.json"


def measure(tool: str, data: Path, work: Path, timeout: float) -> dict[str, float]:
    out = work / output_name(tool)
    stats = work / f"{tool}.time"
    cmd = [TIME, "-f", "%e %U %S %M", "-o", str(stats), *command(tool, data, out)]
    done = subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{tool} failed ({done.returncode}):\n{done.stderr.decode()[-2000:]}")
    wall, user, system, rss_kb = stats.read_text().split()[-4:]
    return {"cpu": float(user) + float(system), "wall": float(wall), "mem": float(rss_kb) / 1024}


def available(tool: str) -> bool:
    module = {"pytrec_eval": "pytrec_eval", "ranx": "ranx", "ir_measures": "ir_measures"}
    if tool not in module:
        return True
    probe = [sys.executable, "-c", f"import {module[tool]}"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def machine() -> dict[str, Any]:
    import polars as pl

    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    versions = {"python": platform.python_version(), "polars": pl.__version__}
    for name in ("rankset", "pytrec_eval", "ranx", "ir_measures"):
        try:
            from importlib.metadata import version

            dist = {"pytrec_eval": "pytrec-eval-terrier", "ir_measures": "ir-measures"}
            versions[name] = version(dist.get(name, name))
        except Exception:
            continue
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "ram_gb": round(ram_gb, 1),
        "os": platform.platform(),
        "versions": versions,
    }


def load_per_query(tool: str, path: Path) -> dict[str, dict[str, float]]:
    if tool.startswith("rankset"):
        import polars as pl

        frame = pl.read_parquet(path)
        values: dict[str, dict[str, float]] = {name: {} for name in RANKSET_METRICS}
        for metric, qid, value in frame.select("metric", "query_id", "value").iter_rows():
            values[metric][qid] = value
        return values
    loaded: dict[str, dict[str, float]] = json.loads(path.read_text())
    return loaded


def check(
    ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]]
) -> dict[str, dict[str, Any]]:
    report: dict[str, dict[str, Any]] = {}
    for metric in RANKSET_METRICS:
        a, b = ours.get(metric, {}), theirs.get(metric, {})
        common = a.keys() & b.keys()
        diffs = [abs(a[q] - b[q]) for q in common]
        report[metric] = {
            "compared": len(common),
            "only_rankset": len(a.keys() - b.keys()),
            "only_other": len(b.keys() - a.keys()),
            "over_1e-9": sum(d > 1e-9 for d in diffs),
            "max_abs_diff": max(diffs, default=0.0),
            "mean_rankset": sum(a.values()) / len(a) if a else float("nan"),
            "mean_other": sum(b.values()) / len(b) if b else float("nan"),
        }
    return report


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def markdown(results: dict[str, Any]) -> str:
    timings: dict[str, list[dict[str, float]]] = results["timings"]
    lines = [
        f"Workload `{results['data']}`: {results['workload']}; "
        f"{results['repeats']} repeat(s), A B A B, medians.",
        "",
        "| tool | CPU s | wall s | peak MB |",
        "|---|---:|---:|---:|",
    ]
    for tool, runs in timings.items():
        cpu = median([r["cpu"] for r in runs])
        wall = median([r["wall"] for r in runs])
        mem = median([r["mem"] for r in runs])
        lines.append(f"| {tool} | {cpu:.2f} | {wall:.2f} | {mem:.0f} |")
    lines += [
        "",
        "| ratio (median of pairs) | CPU | wall | peak memory |",
        "|---|---:|---:|---:|",
    ]
    for variant, others in results["ratios"].items():
        for other, ratio in others.items():
            cells = []
            for key in ("cpu", "wall", "mem"):
                cell = f"{ratio[key]:.2f}"
                target = VARIANT_TARGETS.get((variant, key, other), TARGETS.get((key, other)))
                if target is not None:
                    verdict = "met" if ratio[key] <= target else "not met"
                    cell += f" (target ≤ {target:g}: {verdict})"
                cells.append(cell)
            lines.append(f"| {variant} / {other} | " + " | ".join(cells) + " |")
    for other, report in results["correctness"].items():
        lines += [
            "",
            f"Correctness, rankset vs {other} (per-query values):",
            "",
            "| metric | compared | > 1e-9 | max abs diff | mean rankset | mean other |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for metric, row in report.items():
            extra = ""
            if row["only_rankset"] or row["only_other"]:
                extra = f" (only rankset {row['only_rankset']}, only other {row['only_other']})"
            lines.append(
                f"| {metric} | {row['compared']}{extra} | {row['over_1e-9']} | "
                f"{row['max_abs_diff']:.3g} | {row['mean_rankset']:.6f} | "
                f"{row['mean_other']:.6f} |"
            )
    info = results["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    lines += [
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['ram_gb']} GB RAM, "
        f"{info['os']}; {versions}.",
    ]
    return "\n".join(lines)


def workload(data: Path) -> str:
    queries: set[str] = set()
    lines = 0
    with (data / "run.trec").open() as run:
        for line in run:
            lines += 1
            queries.add(line.split(" ", 1)[0])
    with (data / "qrels.txt").open() as qrels:
        labels = sum(1 for _ in qrels)
    return f"{len(queries):,} queries, {lines:,} run lines, {labels:,} labels"


def drive(args: argparse.Namespace) -> dict[str, Any]:
    if not Path(TIME).exists():
        raise SystemExit(f"{TIME} (GNU time) is needed to measure peak memory")
    data: Path = args.data.resolve()
    requested = [t.strip() for t in args.tools.split(",") if t.strip()]
    tools = list(VARIANTS) if "rankset" in requested else []
    tools += CURVES if "curves" in requested else []
    tools += [t for t in requested if t not in ("rankset", "curves", *VARIANTS, *CURVES)]
    if args.floor and "floor" not in tools:
        tools.append("floor")
    skipped = [t for t in tools if not available(t)]
    for tool in skipped:
        print(f"skipping {tool}: not importable", file=sys.stderr)
    tools = [t for t in tools if t not in skipped]

    timings: dict[str, list[dict[str, float]]] = {t: [] for t in tools}
    with tempfile.TemporaryDirectory(prefix="rankset-bench-") as tmp:
        work = Path(tmp)
        if not args.no_warmup:
            for tool in tools:
                print(f"warm-up {tool}", file=sys.stderr, flush=True)
                measure(tool, data, work, args.timeout)
        for repeat in range(args.repeats):
            order = tools if repeat % 2 == 0 else tools[::-1]
            for tool in order:
                start = time.perf_counter()
                row = measure(tool, data, work, args.timeout)
                timings[tool].append(row)
                print(
                    f"repeat {repeat + 1} {tool}: cpu {row['cpu']:.2f} s, wall "
                    f"{row['wall']:.2f} s, peak {row['mem']:.0f} MB "
                    f"({time.perf_counter() - start:.1f} s)",
                    file=sys.stderr,
                    flush=True,
                )
        correctness: dict[str, Any] = {}
        if "rankset" in tools:
            ours = load_per_query("rankset", work / output_name("rankset"))
            if "rankset_api" in tools:
                api = load_per_query("rankset_api", work / output_name("rankset_api"))
                correctness["rankset (Python API)"] = check(ours, api)
            if "rankset_parquet" in tools:
                from_parquet = load_per_query("rankset_parquet", work / "rankset_parquet.parquet")
                correctness["rankset (Parquet in)"] = check(ours, from_parquet)
            for other in ("pytrec_eval", "ranx", "ir_measures"):
                if other in tools:
                    correctness[other] = check(ours, load_per_query(other, work / f"{other}.json"))

    ratios: dict[str, dict[str, dict[str, float]]] = {}
    comparisons = [(v, [t for t in COMPARED if t in tools]) for v in VARIANTS if v in tools]
    if all(t in tools for t in CURVES):
        comparisons.append((CURVES[1], [CURVES[0]]))
    for variant, others in comparisons:
        ratios[variant] = {}
        for other in others:
            pairs = list(zip(timings[variant], timings[other], strict=True))
            ratios[variant][other] = {
                key: median([a[key] / b[key] for a, b in pairs if b[key] > 0])
                for key in ("cpu", "wall", "mem")
            }
    return {
        "data": str(args.data),
        "workload": workload(data),
        "repeats": args.repeats,
        "tools": tools,
        "skipped": skipped,
        "timings": timings,
        "ratios": ratios,
        "correctness": correctness,
        "machine": machine(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="folder made by generate.py")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--tools",
        default="rankset,pytrec_eval,ranx,ir_measures",
        help="comma-separated: rankset (CLI, Python API, Parquet in), curves (k=1..100 "
        "against one k), pytrec_eval, ranx, ir_measures (tools not installed are skipped)",
    )
    parser.add_argument("--no-floor", dest="floor", action="store_false", help="skip floor")
    parser.add_argument("--no-warmup", action="store_true", help="skip the warm-up pass")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per process")
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        WORKERS[args.worker](args.data, args.out)
        return 0
    results = drive(args)
    text = markdown(results)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({**results, "markdown": text}, indent=2))
    failures = sum(
        row["over_1e-9"] + row["only_rankset"] + row["only_other"]
        for other in ("pytrec_eval", "rankset (Python API)", "rankset (Parquet in)")
        for row in results["correctness"].get(other, {}).values()
    )
    if failures:
        print(f"\n{failures} per-query value(s) differ from pytrec_eval", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
