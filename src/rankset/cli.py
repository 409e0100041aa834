"""The ``rankset`` command line: a thin layer over the library, one subcommand per verb.

Machine outputs are stable contracts: ``evaluate --json`` prints the summary as a JSON list
of objects with keys ``system, metric, mean, n_queries, n_na``; ``--per-query`` writes
Parquet with at least ``system, query_id, metric, value``. Diagnostics (dropped queries)
go to stderr so stdout stays machine-readable. Bad input exits with status 2 and a
one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from rankset.evaluation import EvaluationResult

__all__ = ["main"]

EXIT_OK = 0
EXIT_BAD_INPUT = 2
# Cutoffs shown in the terminal table of `rankset curves` (all of them go to --json/--out).
_SHOWN_KS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)


def _add_input_options(parser: argparse.ArgumentParser, *, runs_help: str) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN", help=runs_help)
    parser.add_argument(
        "--qrels",
        "--labels",
        dest="labels",
        metavar="LABELS",
        help="labels file; optional when the runs carry labels (JSONL samples)",
    )
    parser.add_argument(
        "--relevance-level",
        "-l",
        type=float,
        default=1,
        metavar="N",
        help="grade at or above which binary metrics count a document relevant (default 1)",
    )
    parser.add_argument(
        "--missing",
        choices=("skip", "zero"),
        default="skip",
        help="queries in the labels but not the run: skip (default) or score as empty",
    )
    parser.add_argument(
        "--order",
        choices=("auto", "score", "rank"),
        default="auto",
        help="order rankings by score (ties: doc id descending) or by the rank column",
    )
    parser.add_argument(
        "--keep-best-duplicate",
        action="store_true",
        help="keep the best-ranked copy of a duplicated document instead of failing",
    )
    parser.add_argument(
        "--name",
        dest="names",
        action="append",
        metavar="NAME",
        help="system name for each run, in order (repeat once per run)",
    )
    parser.add_argument(
        "--scale",
        default=None,
        metavar="NAME",
        help="grade scale of the RAG metrics: rag5 (default, grades 1-5), trec_dl (0-3), "
        "binary (0-1)",
    )
    parser.add_argument(
        "--pool",
        metavar="POOL",
        help="candidate run used as the pool of proc@k for every system "
        "(default: each system's own retrieved list)",
    )
    parser.add_argument(
        "--pool-depth",
        type=int,
        metavar="N",
        help="keep only the first N documents of each pool (e.g. the reranked depth)",
    )
    parser.add_argument(
        "--engine",
        choices=("auto", "streaming", "in-memory", "gpu"),
        default="auto",
        help="Polars engine for the pass over the runs (default auto = streaming; gpu needs "
        "cudf-polars, else it warns and streams)",
    )
    parser.add_argument(
        "--buckets",
        type=int,
        metavar="N",
        help="larger-than-memory mode: read the runs in N passes, each over the queries of "
        "one hash bucket (same values, about N times less memory)",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="evaluate on a Dask cluster, one task per bucket of queries: a scheduler "
        "address (tcp://host:8786) or local:N for N local worker processes (needs "
        "rankset[dask]; same values as one machine)",
    )
    parser.add_argument(
        "--answers",
        metavar="FILE",
        help="acceptable answers for containment@k: 'query_id<TAB>answer' lines or JSONL",
    )


def _add_metric_option(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help=f"metric name, repeatable (default: {default})",
    )


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankset",
        description="Evaluate retrieval runs: trec_eval-exact metrics on Polars.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress display on stderr")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    evaluate = commands.add_parser(
        "evaluate",
        help="score runs against labels",
        description="Score one or more runs against labels (qrels) and print a summary.",
    )
    _add_input_options(evaluate, runs_help="run files (TREC, JSONL, Parquet, ...)")
    _add_metric_option(evaluate, "ndcg@10 ap rr recall@100 precision@10")
    evaluate.add_argument("--k", type=int, default=None, help="cutoff for @k metrics")
    evaluate.add_argument(
        "--per-query", metavar="OUT.parquet", help="write per-query values to Parquet"
    )
    evaluate.add_argument("--json", action="store_true", help="print the summary as JSON")

    curves = commands.add_parser(
        "curves",
        help="metric-vs-k curves",
        description="Mean (with bootstrap CI) of each measure at every cutoff 1..K.",
    )
    _add_input_options(curves, runs_help="run files")
    _add_metric_option(curves, "ndcg precision recall")
    curves.add_argument("--k-max", type=int, default=20, metavar="N", help="largest cutoff")
    curves.add_argument("--out", metavar="FILE.parquet", help="write the curves to Parquet")
    curves.add_argument(
        "--per-query", metavar="OUT.parquet", help="write per-query values at every k"
    )
    curves.add_argument("--json", action="store_true", help="print the curves as JSON")

    compare = commands.add_parser(
        "compare",
        help="paired significance tests against a baseline",
        description="Compare every system with a baseline, query by query: mean delta with "
        "a paired bootstrap CI, paired tests with multiple-testing correction, wins/ties/losses.",
    )
    _add_input_options(compare, runs_help="run files")
    _add_metric_option(compare, "ndcg@10 ap rr recall@100 precision@10")
    compare.add_argument("--k", type=int, default=None, help="cutoff for @k metrics")
    compare.add_argument("--baseline", required=True, metavar="NAME", help="baseline system")
    compare.add_argument(
        "--test",
        dest="tests",
        action="append",
        choices=("randomization", "t", "wilcoxon"),
        help="paired test, repeatable (default: all three; t and wilcoxon need scipy)",
    )
    compare.add_argument(
        "--correction",
        choices=("holm", "bonferroni", "bh", "none"),
        default="holm",
        help="multiple-testing correction over all rows of a test (default holm)",
    )
    compare.add_argument("--alpha", type=float, default=0.05, help="significance level")
    compare.add_argument("--n-resamples", type=int, default=10000, metavar="N")
    compare.add_argument("--seed", type=int, default=0)
    compare.add_argument("--out", metavar="FILE.parquet", help="write the comparison to Parquet")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON")

    diagnose = commands.add_parser(
        "diagnose",
        help="retrieval vs reranking diagnosis",
        description="Classify each query by PROC@K and %PROC@K (retrieval miss, reranking "
        "miss, healthy, both) and, with --baseline, list ordering and coverage regressions.",
    )
    _add_input_options(diagnose, runs_help="run files")
    diagnose.add_argument("-k", "--k", dest="k", type=int, default=10, help="cutoff (default 10)")
    diagnose.add_argument(
        "--proc-threshold", type=float, default=0.5, metavar="T", help="default 0.5"
    )
    diagnose.add_argument(
        "--pct-proc-threshold", type=float, default=0.5, metavar="T", help="default 0.5"
    )
    diagnose.add_argument(
        "--baseline",
        metavar="NAME",
        help="also compare recall@k and ndcg@k of every other system with this one",
    )
    diagnose.add_argument(
        "--per-query", metavar="OUT.parquet", help="write the per-query quadrants to Parquet"
    )
    diagnose.add_argument("--json", action="store_true", help="print the diagnosis as JSON")

    report = commands.add_parser(
        "report",
        help="a self-contained HTML report",
        description="Write one static HTML file: summary with CIs, comparison with "
        "significance, metric-vs-k curves, the diagnostic matrix and the worst queries.",
    )
    _add_input_options(report, runs_help="run files")
    _add_metric_option(report, "ndcg@10 ap recall@100 ra_nwg@10 proc@10 pct_proc@10")
    report.add_argument("--baseline", metavar="NAME", help="baseline system of the comparison")
    report.add_argument("-k", "--k", dest="k", type=int, default=10, help="diagnosis cutoff")
    report.add_argument("--k-max", type=int, default=20, metavar="N", help="largest curve k")
    report.add_argument("--title", default="rankset report")
    report.add_argument("--out", required=True, metavar="REPORT.html", help="output file")

    partition = commands.add_parser(
        "partition",
        help="write runs and labels as bucket-partitioned Parquet",
        description="Split runs and labels by hashed query id into N buckets of Parquet "
        "files, once; evaluating the folder then reads one bucket at a time "
        "(larger-than-memory mode) without re-reading everything per bucket.",
    )
    partition.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    partition.add_argument("--qrels", "--labels", dest="labels", help="labels file")
    partition.add_argument("--name", dest="names", action="append", metavar="NAME")
    partition.add_argument("--buckets", type=int, default=16, metavar="N", help="(default 16)")
    partition.add_argument("--out", required=True, metavar="DIR", help="new dataset folder")

    commands.add_parser("measures", help="list the available measures")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from rankset import __version__

        print(__version__)
        return EXIT_OK
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT

    from rankset.errors import ParameterError, RanksetError

    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "evaluate": _evaluate,
        "compare": _compare,
        "curves": _curves,
        "diagnose": _diagnose,
        "report": _report,
        "measures": _measures,
        "partition": _partition,
    }
    try:
        if getattr(args, "dask", None) is None:
            return handlers[args.command](args)
        if args.engine != "auto":
            msg = (
                "--dask runs the pass on the cluster's workers; it cannot be combined "
                f"with --engine {args.engine}."
            )
            raise ParameterError(msg)
        from rankset.cluster import connect

        with connect(args.dask) as client:
            args.client = client
            return handlers[args.command](args)
    except (RanksetError, OSError) as error:
        print(f"rankset: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


@contextlib.contextmanager
def _progress(args: argparse.Namespace) -> Iterator[Callable[[str], None]]:
    """Yield ``step(text)`` that shows what is being done, on stderr.

    Shown only when stderr is a terminal, ``--quiet`` is not given and ``rich`` is
    installed (``pip install "rankset[progress]"``); otherwise every step is a no-op, so
    stdout and redirected stderr stay clean.
    """
    if args.quiet or not sys.stderr.isatty():
        yield lambda text: None
        return
    try:
        from rich.console import Console
    except ImportError:
        yield lambda text: None
        return
    console = Console(stderr=True)
    with console.status("starting") as status:
        yield lambda text: status.update(text)


def _evaluation_options(args: argparse.Namespace) -> dict[str, Any]:
    options = {
        "relevance_level": _number(args.relevance_level),
        "missing": args.missing,
        "order": args.order,
        "duplicates": "keep_best" if args.keep_best_duplicate else "error",
        "names": args.names,
        "pool": args.pool,
        "pool_depth": args.pool_depth,
        "answers": args.answers,
        "engine": args.engine,
        "buckets": args.buckets,
    }
    if getattr(args, "client", None) is not None:
        options.update(engine="dask", client=args.client)
    if args.scale is not None:  # else the library default (rag5), or a report's fallback
        options["scale"] = args.scale
    return options


def _evaluate(args: argparse.Namespace) -> int:
    from rankset.evaluation import DEFAULT_METRICS, evaluate

    with _progress(args) as step:
        step(f"evaluating {len(args.runs)} run(s)")
        result = evaluate(
            args.runs,
            args.labels,
            args.metrics or DEFAULT_METRICS,
            k=args.k,
            **_evaluation_options(args),
        )
    _report_dropped(result.query_counts)
    if args.per_query:
        result.to_parquet(args.per_query)
    if args.json:
        print(json.dumps(_summary_records(result), indent=2))
    else:
        print(_format_table(result))
    return EXIT_OK


def _curves(args: argparse.Namespace) -> int:
    from rankset.cutoff_curves import curves

    with _progress(args) as step:
        step(f"curves at k = 1..{args.k_max}")
        result = curves(
            args.runs,
            args.labels,
            args.metrics or ("ndcg", "precision", "recall"),
            ks=args.k_max,
            **_evaluation_options(args),
        )
    if args.out:
        result.to_parquet(args.out)
    if args.per_query:
        result.to_parquet(args.per_query, per_query=True)
    if args.json:
        print(json.dumps(_records(result.summary), indent=2))
    else:
        print(_format_curves(result.summary))
    return EXIT_OK


def _compare(args: argparse.Namespace) -> int:
    from rankset.comparison import compare
    from rankset.evaluation import DEFAULT_METRICS, evaluate
    from rankset.io import write_parquet

    with _progress(args) as step:
        step(f"evaluating {len(args.runs)} run(s)")
        result = evaluate(
            args.runs,
            args.labels,
            args.metrics or DEFAULT_METRICS,
            k=args.k,
            confidence=None,
            **_evaluation_options(args),
        )
        step(f"paired tests, {args.n_resamples} resamples")
        table = compare(
            result,
            baseline=args.baseline,
            tests=args.tests or ("randomization", "t", "wilcoxon"),
            correction=None if args.correction == "none" else args.correction,
            alpha=args.alpha,
            seed=args.seed,
            n_resamples=args.n_resamples,
        )
    _report_dropped(result.query_counts)
    if args.out:
        config = {**result.config, "baseline": args.baseline, "correction": args.correction}
        write_parquet(table, args.out, config=config)
    if args.json:
        print(json.dumps(_records(table), indent=2))
        return EXIT_OK
    rows = [
        [
            row["system"],
            row["metric"],
            row["test"],
            str(row["n_queries"]),
            _format_mean(row["mean"]),
            _format_signed(row["delta"]),
            f"[{_format_signed(row['ci_low'])}, {_format_signed(row['ci_high'])}]",
            _format_p(row["p_adj"]) + (" *" if row["reject"] else "  "),
            f"{row['wins']}/{row['ties']}/{row['losses']}",
        ]
        for row in table.iter_rows(named=True)
    ]
    header = ["system", "metric", "test", "queries", "mean", "delta", "95% CI", "p_adj", "W/T/L"]
    print(f"Against {args.baseline}; * = significant at {args.alpha} after {args.correction}.")
    print(_render_table(header, rows))
    return EXIT_OK


def _report(args: argparse.Namespace) -> int:
    from rankset.report import DEFAULT_REPORT_METRICS, report

    options = _evaluation_options(args)
    with _progress(args) as step:
        step("evaluating, comparing, curves, diagnosis")
        path = report(
            args.runs,
            args.labels,
            metrics=args.metrics or DEFAULT_REPORT_METRICS,
            baseline=args.baseline,
            k=args.k,
            k_max=args.k_max,
            out=args.out,
            title=args.title,
            **options,
        )
    print(path)
    return EXIT_OK


def _format_signed(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "NA"
    return f"{value:+.4f}"


def _format_p(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "NA"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def _diagnose(args: argparse.Namespace) -> int:
    from rankset.diagnosis import diagnose, regression_counts, regressions
    from rankset.evaluation import evaluate
    from rankset.io import write_parquet

    k = args.k
    metrics = [f"ra_nwg@{k}", f"proc@{k}", f"pct_proc@{k}"]
    if args.baseline:
        metrics += [f"recall@{k}", f"ndcg@{k}"]
    with _progress(args) as step:
        step(f"evaluating {len(args.runs)} run(s)")
        result = evaluate(
            args.runs, args.labels, metrics, confidence=None, **_evaluation_options(args)
        )
    _report_dropped(result.query_counts)
    diagnosis = diagnose(
        result,
        k=k,
        proc_threshold=args.proc_threshold,
        pct_proc_threshold=args.pct_proc_threshold,
    )
    changes = {}
    if args.baseline:
        for system in result.systems:
            if system != args.baseline:
                frame = regressions(result, args.baseline, system, k=k)
                changes[system] = regression_counts(frame)
    if args.per_query:
        write_parquet(diagnosis.per_query, args.per_query, config=result.config)
    if args.json:
        output = {
            "k": k,
            "thresholds": diagnosis.thresholds,
            "counts": _records(diagnosis.counts),
            "queries": _records(diagnosis.per_query),
        }
        if args.baseline:
            output["baseline"] = args.baseline
            output["regressions"] = {system: _records(counts) for system, counts in changes.items()}
        print(json.dumps(output, indent=2))
        return EXIT_OK
    wide = diagnosis.wide()
    print(
        f"Quadrants at k={k} (proc >= {args.proc_threshold}, pct_proc >= "
        f"{args.pct_proc_threshold}), queries per system:"
    )
    print(_render_table(wide.columns, [[str(v) for v in row] for row in wide.rows()]))
    for system, counts in changes.items():
        print(f"\n{system} vs {args.baseline} (recall@{k}, ndcg@{k}):")
        rows = [
            [
                row["change"],
                str(row["n_queries"]),
                " ".join(row["query_ids"][:8]) + (" ..." if len(row["query_ids"]) > 8 else ""),
            ]
            for row in counts.iter_rows(named=True)
        ]
        print(_render_table(["change", "queries", "query ids"], rows))
    return EXIT_OK


def _number(value: float) -> float:
    return int(value) if float(value).is_integer() else value


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return [{key: _clean(v) for key, v in row.items()} for row in frame.iter_rows(named=True)]


def _summary_records(result: EvaluationResult) -> list[dict[str, Any]]:
    columns = ["system", "metric", "mean", "n_queries", "n_na"]
    return _records(result.summary.select(columns))


def _render_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]

    def render(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest])

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([render(header), rule, *(render(row) for row in rows)])


def _format_table(result: EvaluationResult) -> str:
    metrics = result.metrics
    means = {(r["system"], r["metric"]): r["mean"] for r in result.summary.iter_rows(named=True)}
    counts = {r["system"]: r["n_scored"] for r in result.query_counts.iter_rows(named=True)}
    rows = [
        [
            system,
            str(counts[system]),
            *(_format_mean(means.get((system, metric))) for metric in metrics),
        ]
        for system in sorted(counts)
    ]
    return _render_table(["system", "queries", *metrics], rows)


def _format_curves(summary: pl.DataFrame) -> str:
    ks = sorted(set(summary["k"].to_list()))
    shown = [k for k in ks if k in _SHOWN_KS or k == ks[-1]]
    means = {(r["system"], r["metric"], r["k"]): r["mean"] for r in summary.iter_rows(named=True)}
    pairs = summary.select("system", "metric").unique(maintain_order=True).rows()
    rows = [
        [system, metric, *(_format_mean(means.get((system, metric, k))) for k in shown)]
        for system, metric in pairs
    ]
    return _render_table(["system", "metric", *(f"@{k}" for k in shown)], rows)


def _format_mean(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "NA"
    return f"{value:.4f}"


def _report_dropped(query_counts: pl.DataFrame) -> None:
    for row in query_counts.iter_rows(named=True):
        notes = []
        if row["n_run_queries_without_labels"]:
            notes.append(f"{row['n_run_queries_without_labels']} run queries have no labels")
        if row["n_label_queries_without_run"]:
            fate = "scored as empty" if row["missing_policy"] == "zero" else "skipped"
            notes.append(
                f"{row['n_label_queries_without_run']} labelled queries not in the run ({fate})"
            )
        if notes:
            print(f"rankset: {row['system']}: {'; '.join(notes)}", file=sys.stderr)


def _partition(args: argparse.Namespace) -> int:
    from rankset.partitioned import partition

    with _progress(args) as step:
        step(f"partitioning {len(args.runs)} run(s) into {args.buckets} buckets")
        out = partition(args.runs, args.labels, args.out, buckets=args.buckets, names=args.names)
    print(f"wrote {out} ({args.buckets} buckets); evaluate it with: rankset evaluate {out}")
    return EXIT_OK


def _measures(args: argparse.Namespace) -> int:
    del args
    from rankset.registry import available_measures

    for name, spec in sorted(available_measures().items()):
        cutoff = {"required": "@k", "optional": "[@k]", "none": ""}[spec.cutoff]
        print(f"{name + cutoff:<20} {spec.description}")
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
