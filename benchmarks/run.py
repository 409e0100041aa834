"""Time rankset against pytrec_eval and ranx (and ir-measures), whole processes, A B A B.

    python benchmarks/run.py --data /tmp/rankset-bench/small [--repeats 3]
        [--tools rankset,pytrec_eval,ranx] [--ties ascending,random,trec_eval] [--json OUT]

Every measurement is one whole process run under ``/usr/bin/time``: interpreter start-up,
imports, reading ``run.trec`` and ``qrels.txt`` (TREC text, as each tool's users read it),
computing ndcg@10, AP, RR, recall@100 and P@10 per query and their means, and writing the
per-query values to a file. One unmeasured warm-up pass runs first (page cache, numba's
on-disk cache), then each repeat runs every tool once, the order reversed on every other
repeat. For each tool the report gives the medians of CPU (user + system), wall and peak
RSS, and for each rankset variant the medians of the per-repeat ratios rankset / tool.

Each tie order that ``generate.py`` wrote is measured in turn (``--ties``; by default every
one present, realistic orders first): ``run-ascending.*`` (ties by ascending document id,
as Anserini writes them), ``run-random.*`` (ties in a random order) and ``run.*`` (ties in
trec_eval's order, the one order a run can be numbered in without counting); ``--ties
shuffled`` measures ``run-shuffled.*`` (every row in a random order), when
``generate.py --ties ...,shuffled`` wrote it. Every tool reads the same file in a round,
and each order gets its own tables and checks.

rankset is timed twice: ``rankset evaluate`` (the CLI, which prints the means and writes
the per-query values; since issue 49 it draws no bootstrap interval, as it shows none)
and ``rankset.evaluate(..., confidence=None)`` from a short script. ``--trees
before=/tmp/old/src,...`` times the CLI of other source trees too (``git archive COMMIT
src | tar -x -C /tmp/old``), as tools ``rankset@before``... in the same A B A B loop,
each run with that tree first on ``PYTHONPATH``: before and after a change, under the
same load. The report gives the load average at the start and at the end.
``floor`` is just ``pl.read_csv`` of the TREC run in a fresh process, ``floor_parquet``
the Parquet run's three columns read and joined to the labels (``rankset_parquet`` is
compared with it).

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _ties import tie_orders_option

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
# Targets (issue 22): ratio rankset / tool at or below these, for every tie order.
TARGETS: dict[tuple[str, str], float] = {
    ("cpu", "pytrec_eval"): 0.35,
    ("wall", "ranx"): 0.15,
    ("mem", "pytrec_eval"): 0.8,
    ("wall", "floor_parquet"): 1.3,
    ("cpu", "curve_single_k"): 2.0,
    ("wall", "curve_single_k"): 2.0,
}
VARIANT_TARGETS: dict[tuple[str, str, str], float] = {}
TIME = "/usr/bin/time"
# Byte-code caching on, as users have it: pip compiles installed packages, and an editable
# install writes rankset's own .pyc files on the warm-up pass (with
# PYTHONDONTWRITEBYTECODE=1 every rankset process would compile its modules, about 50 ms).
MEASURED_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
#: Tie orders in the order they are reported: the realistic ones first.
REPORTED_ORDERS = ("ascending", "random", "trec_eval")


def run_file(data: Path, ties: str, suffix: str) -> Path:
    """Return the run written by ``generate.py`` with tie order ``ties`` (``.trec``...)."""
    return data / (f"run{suffix}" if ties == "trec_eval" else f"run-{ties}{suffix}")


# --------------------------------------------------------------------------- workers


def work_rankset_api(data: Path, ties: str, out: Path) -> None:
    import rankset

    result = rankset.evaluate(
        run_file(data, ties, ".trec"), data / "qrels.txt", RANKSET_METRICS, confidence=None
    )
    result.to_parquet(out)
    print(result.summary)


def work_rankset_parquet(data: Path, ties: str, out: Path) -> None:
    import rankset

    result = rankset.evaluate(
        run_file(data, ties, ".parquet"),
        data / "qrels.parquet",
        RANKSET_METRICS,
        confidence=None,
    )
    result.to_parquet(out)
    print(result.summary)


def work_curve_single_k(data: Path, ties: str, out: Path) -> None:
    import rankset

    metrics = ["ndcg@10", "precision@10", "recall@10"]
    result = rankset.evaluate(run_file(data, ties, ".parquet"), data / "qrels.parquet", metrics)
    out.write_text(json.dumps(result.summary.to_dicts()))


def work_curve_k1_100(data: Path, ties: str, out: Path) -> None:
    import rankset

    measures = ["ndcg", "precision", "recall"]
    run = run_file(data, ties, ".parquet")
    result = rankset.curves(run, data / "qrels.parquet", measures, 100)
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


def work_pytrec_eval(data: Path, ties: str, out: Path) -> None:
    import pytrec_eval

    run = read_trec_run(run_file(data, ties, ".trec"))
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


def work_ranx(data: Path, ties: str, out: Path) -> None:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(str(data / "qrels.txt"), kind="trec")
    run = Run.from_file(str(run_file(data, ties, ".trec")), kind="trec")
    means = evaluate(qrels, run, [m[3] for m in METRICS])
    per_query = {
        name: {qid: float(v) for qid, v in run.scores[key].items()}
        for name, _, _, key, _ in METRICS
    }
    out.write_text(json.dumps(per_query))
    print(means)


def work_ir_measures(data: Path, ties: str, out: Path) -> None:
    import ir_measures

    measures = [ir_measures.parse_measure(m[4]) for m in METRICS]
    names = {str(measure): m[0] for measure, m in zip(measures, METRICS, strict=True)}
    qrels = ir_measures.read_trec_qrels(str(data / "qrels.txt"))
    run = ir_measures.read_trec_run(str(run_file(data, ties, ".trec")))
    per_query: dict[str, dict[str, float]] = {name: {} for name in names.values()}
    for metric in ir_measures.iter_calc(measures, qrels, run):
        per_query[names[str(metric.measure)]][metric.query_id] = float(metric.value)
    out.write_text(json.dumps(per_query))
    for name, values in per_query.items():
        print(name, sum(values.values()) / len(values))


def work_floor(data: Path, ties: str, out: Path) -> None:
    import polars as pl

    frame = pl.read_csv(
        run_file(data, ties, ".trec"),
        separator=" ",
        has_header=False,
        new_columns=["query_id", "q0", "doc_id", "rank", "score", "tag"],
        schema_overrides={"query_id": pl.String, "doc_id": pl.String},
    )
    out.write_text(str(frame.height))


def work_floor_parquet(data: Path, ties: str, out: Path) -> None:
    import polars as pl

    run = pl.scan_parquet(run_file(data, ties, ".parquet")).select(
        pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String), "score"
    )
    labels = pl.scan_parquet(data / "qrels.parquet").with_columns(
        pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String)
    )
    joined = run.join(labels, on=["query_id", "doc_id"]).collect()
    out.write_text(str(joined.height))


WORKERS: dict[str, Callable[[Path, str, Path], None]] = {
    "rankset_api": work_rankset_api,
    "rankset_parquet": work_rankset_parquet,
    "curve_single_k": work_curve_single_k,
    "curve_k1_100": work_curve_k1_100,
    "pytrec_eval": work_pytrec_eval,
    "ranx": work_ranx,
    "ir_measures": work_ir_measures,
    "floor": work_floor,
    "floor_parquet": work_floor_parquet,
}


# --------------------------------------------------------------------------- driver


#: The source trees of ``--trees``, by name: the CLI of each is timed as ``rankset@NAME``.
TREES: dict[str, Path] = {}


def command(tool: str, data: Path, ties: str, out: Path) -> list[str]:
    if tool == "rankset" or tool.startswith("rankset@"):
        exe = shutil.which("rankset") or str(Path(sys.executable).with_name("rankset"))
        metrics = [arg for name in RANKSET_METRICS for arg in ("-m", name)]
        return [
            exe,
            "evaluate",
            str(run_file(data, ties, ".trec")),
            "--qrels",
            str(data / "qrels.txt"),
            *metrics,
            "--per-query",
            str(out),
            "--json",
        ]
    script = str(Path(__file__).resolve())
    return [
        sys.executable,
        script,
        "--worker",
        tool,
        "--data",
        str(data),
        "--ties",
        ties,
        "--out",
        str(out),
    ]


def output_name(tool: str, ties: str) -> str:
    suffix = ".parquet" if tool.startswith("rankset") else ".json"
    return f"{tool}-{ties}{suffix}"


def measure(tool: str, data: Path, ties: str, work: Path, timeout: float) -> dict[str, float]:
    out = work / output_name(tool, ties)
    stats = work / f"{tool}-{ties}.time"
    cmd = [TIME, "-f", "%e %U %S %M", "-o", str(stats), *command(tool, data, ties, out)]
    done = subprocess.run(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=timeout,
        check=False,
        env=environment(tool),
    )
    if done.returncode != 0:
        raise RuntimeError(f"{tool} failed ({done.returncode}):\n{done.stderr.decode()[-2000:]}")
    wall, user, system, rss_kb = stats.read_text().split()[-4:]
    return {"cpu": float(user) + float(system), "wall": float(wall), "mem": float(rss_kb) / 1024}


def environment(tool: str) -> dict[str, str]:
    """The measured processes' environment; a tree's CLI finds that tree first."""
    if not tool.startswith("rankset@"):
        return MEASURED_ENV
    paths = [str(TREES[tool.removeprefix("rankset@")]), MEASURED_ENV.get("PYTHONPATH", "")]
    return {**MEASURED_ENV, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def parse_trees(text: str) -> dict[str, Path]:
    """Parse ``--trees``: ``NAME=SRC`` pairs, comma-separated (SRC holds ``rankset/``)."""
    trees: dict[str, Path] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, folder = item.partition("=")
        path = Path(folder).resolve()
        if not sep or not name or not (path / "rankset" / "__init__.py").is_file():
            raise argparse.ArgumentTypeError(f"{item!r}: expected NAME=SRC, SRC/rankset a package")
        trees[name] = path
    return trees


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


TIE_WORDS = {
    "ascending": "ties by ascending document id (as Anserini writes them)",
    "random": "ties in a random order",
    "trec_eval": "ties in trec_eval's order (document id descending)",
    "shuffled": "every row in a random order (rankings interleaved, scores in no order)",
}


def markdown(results: dict[str, Any]) -> str:
    lines = [
        f"Workload `{results['data']}`: {results['workload']}; "
        f"{results['repeats']} repeat(s), A B A B, medians; load average (1, 5, 15 min) "
        + " at the start, ".join(
            ", ".join(f"{v:.1f}" for v in results["load"][when]) for when in ("start", "end")
        )
        + " at the end.",
    ]
    for ties, section in results["orders"].items():
        lines += ["", f"#### {TIE_WORDS[ties]}: `{run_file(Path('.'), ties, '.trec')}`", ""]
        lines += markdown_section(section)
    info = results["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    lines += [
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['ram_gb']} GB RAM, "
        f"{info['os']}; {versions}.",
    ]
    return "\n".join(lines)


def markdown_section(section: dict[str, Any]) -> list[str]:
    timings: dict[str, list[dict[str, float]]] = section["timings"]
    lines = ["| tool | CPU s | wall s | peak MB |", "|---|---:|---:|---:|"]
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
    for variant, others in section["ratios"].items():
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
    for other, report in section["correctness"].items():
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
    return lines


def workload(data: Path, ties: str) -> str:
    queries: set[str] = set()
    lines = 0
    with run_file(data, ties, ".trec").open() as run:
        for line in run:
            lines += 1
            queries.add(line.split(" ", 1)[0])
    with (data / "qrels.txt").open() as qrels:
        labels = sum(1 for _ in qrels)
    return f"{len(queries):,} queries, {lines:,} run lines, {labels:,} labels"


def correctness_of(tools: list[str], work: Path, ties: str) -> dict[str, Any]:
    correctness: dict[str, Any] = {}
    if "rankset" not in tools:
        return correctness
    ours = load_per_query("rankset", work / output_name("rankset", ties))
    for tree in (t for t in tools if t.startswith("rankset@")):
        correctness[f"rankset ({tree})"] = check(
            ours, load_per_query(tree, work / output_name(tree, ties))
        )
    if "rankset_api" in tools:
        api = load_per_query("rankset_api", work / output_name("rankset_api", ties))
        correctness["rankset (Python API)"] = check(ours, api)
    if "rankset_parquet" in tools:
        from_parquet = load_per_query(
            "rankset_parquet", work / output_name("rankset_parquet", ties)
        )
        correctness["rankset (Parquet in)"] = check(ours, from_parquet)
    for other in ("pytrec_eval", "ranx", "ir_measures"):
        if other in tools:
            theirs = load_per_query(other, work / output_name(other, ties))
            correctness[other] = check(ours, theirs)
    return correctness


def ratios_of(
    tools: list[str], timings: dict[str, list[dict[str, float]]]
) -> dict[str, dict[str, dict[str, float]]]:
    ratios: dict[str, dict[str, dict[str, float]]] = {}
    variants = [t for t in tools if t in VARIANTS or t.startswith("rankset@")]
    comparisons = [(v, [t for t in COMPARED if t in tools]) for v in variants]
    if "floor_parquet" in tools and "rankset_parquet" in tools:
        comparisons.append(("rankset_parquet", ["floor_parquet"]))
    if all(t in tools for t in CURVES):
        comparisons.append((CURVES[1], [CURVES[0]]))
    for variant, others in comparisons:
        ratios.setdefault(variant, {})
        for other in others:
            pairs = list(zip(timings[variant], timings[other], strict=True))
            ratios[variant][other] = {
                key: median([a[key] / b[key] for a, b in pairs if b[key] > 0])
                for key in ("cpu", "wall", "mem")
            }
    return ratios


def drive(args: argparse.Namespace) -> dict[str, Any]:
    if not Path(TIME).exists():
        raise SystemExit(f"{TIME} (GNU time) is needed to measure peak memory")
    data: Path = args.data.resolve()
    requested = [t.strip() for t in args.tools.split(",") if t.strip()]
    tools = list(VARIANTS) if "rankset" in requested else []
    tools += CURVES if "curves" in requested else []
    tools += [f"rankset@{name}" for name in TREES] if "rankset" in requested else []
    tools += [t for t in requested if t not in ("rankset", "curves", *VARIANTS, *CURVES)]
    if args.floor:
        tools += [floor for floor in ("floor", "floor_parquet") if floor not in tools]
    skipped = [t for t in tools if not available(t)]
    for tool in skipped:
        print(f"skipping {tool}: not importable", file=sys.stderr)
    tools = [t for t in tools if t not in skipped]
    orders = [ties for ties in args.ties if run_file(data, ties, ".trec").exists()]
    missing = [ties for ties in args.ties if ties not in orders]
    if missing:
        print(f"skipping tie orders {', '.join(missing)}: no run file", file=sys.stderr)
    if not orders:
        raise SystemExit(f"{data}: no run file of the tie orders {', '.join(args.ties)}")

    timings: dict[str, dict[str, list[dict[str, float]]]] = {
        ties: {t: [] for t in tools} for ties in orders
    }
    sections: dict[str, Any] = {}
    load_at_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rankset-bench-") as tmp:
        work = Path(tmp)
        if not args.no_warmup:
            for tool in tools:
                print(f"warm-up {tool}", file=sys.stderr, flush=True)
                measure(tool, data, orders[0], work, args.timeout)
        for repeat in range(args.repeats):
            for ties in orders:
                for tool in tools if repeat % 2 == 0 else tools[::-1]:
                    start = time.perf_counter()
                    row = measure(tool, data, ties, work, args.timeout)
                    timings[ties][tool].append(row)
                    print(
                        f"repeat {repeat + 1} {ties} {tool}: cpu {row['cpu']:.2f} s, wall "
                        f"{row['wall']:.2f} s, peak {row['mem']:.0f} MB "
                        f"({time.perf_counter() - start:.1f} s)",
                        file=sys.stderr,
                        flush=True,
                    )
        for ties in orders:
            sections[ties] = {
                "timings": timings[ties],
                "ratios": ratios_of(tools, timings[ties]),
                "correctness": correctness_of(tools, work, ties),
            }
    return {
        "data": str(args.data),
        "workload": workload(data, orders[0]),
        "repeats": args.repeats,
        "tools": tools,
        "skipped": skipped,
        "orders": sections,
        "machine": machine(),
        "load": {"start": load_at_start, "end": os.getloadavg()},
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
    parser.add_argument(
        "--ties",
        type=tie_orders_option,
        default=REPORTED_ORDERS,
        help="tie orders to measure, comma-separated, in this order (default: "
        "ascending,random,trec_eval; those without a run file are skipped)",
    )
    parser.add_argument(
        "--trees",
        type=parse_trees,
        default={},
        help="NAME=SRC,...: also time the CLI of each source tree (rankset@NAME), e.g. "
        "before=/tmp/before/src from `git archive COMMIT src | tar -x -C /tmp/before`",
    )
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        WORKERS[args.worker](args.data, args.ties[0], args.out)
        return 0
    TREES.update(args.trees)
    results = drive(args)
    text = markdown(results)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({**results, "markdown": text}, indent=2))
    failures = sum(
        row["over_1e-9"] + row["only_rankset"] + row["only_other"]
        for section in results["orders"].values()
        for other, rows in section["correctness"].items()
        if other != "ranx" and other != "ir_measures"
        for row in rows.values()
    )
    if failures:
        print(f"\n{failures} per-query value(s) differ from pytrec_eval", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
