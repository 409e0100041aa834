"""The subcommands: each reads its arguments, calls one library verb, prints the result."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rankset.cli._files import write_table, writes_stdout
from rankset.cli._output import (
    dump_json,
    format_curves,
    format_table,
    frame_text,
    number,
    progress,
    records,
    render_table,
    report_dropped,
    summary_records,
)
from rankset.errors import ParameterError
from rankset.evaluation import EvaluateOptions

if TYPE_CHECKING:
    import polars as pl

    from rankset.fusion import FusionSearch

__all__ = ["COMMANDS", "EXIT_OK", "evaluate_runs"]

EXIT_OK = 0


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    """Return the evaluation options the command line sets, as keyword arguments.

    The library verbs that take ``**options`` (curves, report, stability) get these;
    the others get :func:`_evaluation_options`, the one object built from them.
    """
    options: dict[str, Any] = {
        "relevance_level": (None if args.relevance_level is None else number(args.relevance_level)),
        "missing": args.missing,
        "order": args.order,
        "score_precision": args.score_precision,
        "dataset_checks": args.dataset_checks,
        "duplicates": (args.duplicates or "error").replace("-", "_"),
        "names": args.names,
        "pool": args.pool,
        "pool_depth": args.pool_depth,
        "max_depth": args.max_depth,
        "judged_only": args.judged_only,
        "ignore_identical_ids": args.ignore_identical_ids,
        "answers": args.answers,
        "nuggets": args.nuggets,
        "engine": args.engine,
        "buckets": args.buckets,
        "costs": getattr(args, "costs", None),
    }
    if getattr(args, "subtopics", None) is not None:
        if args.nuggets is not None:
            msg = "--subtopics and --nuggets both give nugget labels; pass one of them."
            raise ParameterError(msg)
        level = options["relevance_level"]
        level = 1.0 if level is None else level  # 0 is a level, not "unset"
        from rankset.io import read_subtopics

        options["nuggets"] = read_subtopics(args.subtopics, relevance_level=level)
    if getattr(args, "client", None) is not None:
        options.update(engine="dask", client=args.client)
    if args.scale is not None:  # else the library default (rag5), or a report's fallback
        options["scale"] = args.scale
    return options


def _evaluation_options(args: argparse.Namespace, **more: Any) -> EvaluateOptions:
    """Build the options of an evaluation once, checked before any input is read."""
    return EvaluateOptions(**option_values(args), **more)


def evaluate_runs(args: argparse.Namespace) -> int:
    """``rankset evaluate RUN ...``: the runs named on the line (``--suite``: cli._suite)."""
    from rankset.evaluation import DEFAULT_METRICS, evaluate_with

    options = _evaluation_options(args, k=args.k)
    metrics = args.metrics or DEFAULT_METRICS
    runs, labels = args.runs, args.labels
    if args.gold:
        runs, labels = _matched_chunks(args), None
    with progress(args) as step:
        step(f"evaluating {len(args.runs)} run(s)")
        # no interval is printed or written (the table and --json give the means, and
        # --per-query the values): none is drawn, nor numpy imported for it
        result = evaluate_with(
            runs, labels, metrics, options, ks=args.ks, confidence=None, progress=step.count
        )
    report_dropped(result.query_counts)
    if args.per_query:
        write_table(result.per_query, args.per_query, config=result.config)
    if writes_stdout(args):
        return EXIT_OK
    if args.json:
        print(dump_json(summary_records(result)))
    elif args.ks:
        print(frame_text(result.by_k()))
    else:
        print(format_table(result))
    if result.costs is not None and not args.json:
        print("\ncosts (mean, p50, p95 over the scored queries):")
        print(frame_text(result.costs))
    return EXIT_OK


def _matched_chunks(args: argparse.Namespace) -> Any:
    """Match the runs of text chunks to the gold texts of --gold (``rankset.match_text``)."""
    import polars as pl

    from rankset.errors import ParameterError
    from rankset.evaluation.textmatch import match_text
    from rankset.io._shared import read_text_table

    if args.labels is not None:
        raise ParameterError("--gold gives the labels (the gold texts): leave --qrels out.")
    chunks = pl.concat(
        [read_text_table(path, ("system", "query_id", "text")) for path in args.runs],
        how="diagonal_relaxed",
    )
    gold = read_text_table(args.gold)
    matched = match_text(chunks, gold, mode=args.match.replace("-", "_"))
    for row in matched.report.iter_rows(named=True):
        print(
            f"rankset: {row['system']}: {row['n_matched']} of {row['n_chunks']} chunks "
            f"matched a gold text ({row['n_duplicate']} repeats, {row['n_unmatched']} none)",
            file=sys.stderr,
        )
    return matched


def _curves(args: argparse.Namespace) -> int:
    from rankset.evaluation.cutoff_curves import curves

    with progress(args) as step:
        step(f"curves at k = 1..{args.k_max}")
        result = curves(
            args.runs,
            args.labels,
            args.metrics or ("ndcg", "precision", "recall"),
            ks=args.k_max,
            keep_per_query=bool(args.per_query),  # queries x cutoffs rows: only when asked
            **option_values(args),
        )
    if args.out:
        write_table(result.summary, args.out, config=result.config)
    if args.per_query:
        write_table(result.per_query, args.per_query, config=result.config)
    if writes_stdout(args):
        return EXIT_OK
    if args.json:
        print(dump_json(records(result.summary)))
    else:
        print(format_curves(result.summary))
    return EXIT_OK


def _compare(args: argparse.Namespace) -> int:
    from rankset.comparison.pairwise import compare
    from rankset.errors import ParameterError
    from rankset.evaluation import DEFAULT_METRICS, evaluate_with
    from rankset.measures import parse_metrics

    if not args.all_pairs and not args.baseline:
        raise ParameterError("rankset compare needs --baseline NAME, or --all-pairs.")
    tests = [test.replace("-", "_") for test in args.tests or ()]
    if not tests:
        tests = ["randomization"] if args.all_pairs else _default_pair_tests()
    correction = None if args.correction == "none" else args.correction
    options = _evaluation_options(args, k=args.k)
    metrics = parse_metrics(args.metrics or DEFAULT_METRICS)
    with progress(args) as step:
        step(f"evaluating {len(args.runs)} run(s)")
        result = evaluate_with(args.runs, args.labels, metrics, options, confidence=None)
        step(f"tests, {args.n_resamples} resamples")
        settings = {
            "tests": tests,
            "correction": correction,
            "alpha": args.alpha,
            "seed": args.seed,
            "n_resamples": args.n_resamples,
        }
        if args.all_pairs:
            from rankset.comparison.all_pairs import compare_all

            baselines = [args.baseline] if args.baseline else None
            table = compare_all(result, baselines=baselines, **settings)
        else:  # counted: the resamples drawn, with an ETA
            table = compare(result, baseline=args.baseline, progress=step.count, **settings)
    report_dropped(result.query_counts)
    if args.out:
        config = {**result.config, "baseline": args.baseline, "correction": args.correction}
        write_table(table, args.out, config=config)
    if writes_stdout(args):
        return EXIT_OK
    if args.table_format:
        from rankset.comparison.paper_tables import comparison_table

        print(
            comparison_table(
                table,
                format=args.table_format,
                decimals=args.decimals,
                percent=args.percent,
                baseline=args.baseline or "baseline",
            ),
            end="",
        )
        return EXIT_OK
    if args.json:
        print(dump_json(records(table)))
        return EXIT_OK
    _print_comparison(table, args)
    return EXIT_OK


def _default_pair_tests() -> list[str]:
    """Randomization, t and Wilcoxon; randomization alone, said on stderr, without scipy.

    The core install then compares with the test that needs nothing more.
    """
    import importlib

    try:
        importlib.import_module("scipy")
    except ImportError:
        print(
            'rankset: the t and Wilcoxon tests need scipy (pip install "rankset[stats]"): '
            "comparing with the randomization test only.",
            file=sys.stderr,
        )
        return ["randomization"]
    return ["randomization", "t", "wilcoxon"]


def _print_comparison(table: pl.DataFrame, args: argparse.Namespace) -> None:
    """Print the comparison as a terminal table, one row per (system, metric, test)."""
    from rankset._format import format_p, format_value

    pairs = "baseline" in table.columns
    rows = [
        [
            row["system"],
            *([row["baseline"]] if pairs else []),
            row["metric"],
            row["test"],
            str(row["n_queries"]),
            format_value(row["mean"]),
            format_value(row["delta"], signed=True),
            _percent(row["relative_delta"]),
            f"[{format_value(row['ci_low'], signed=True)}, "
            f"{format_value(row['ci_high'], signed=True)}]",
            *([format_value(row["effect_size"], signed=True)] if pairs else []),
            format_p(row["p_adj"]) + (" *" if row["reject"] else "  "),
            f"{row['wins']}/{row['ties']}/{row['losses']}",
        ]
        for row in table.iter_rows(named=True)
    ]
    header = ["system", *(["baseline"] if pairs else []), "metric", "test", "queries", "mean"]
    header += ["delta", "rel.", "95% CI", *(["d"] if pairs else []), "p_adj", "W/T/L"]
    against = "each pair" if pairs and not args.baseline else args.baseline
    print(
        f"Against {against}; * = significant at {args.alpha} after {args.correction} "
        "(tukey tests: family-wise already)."
    )
    print(render_table(header, rows))


def _percent(value: float | None) -> str:
    """Format a relative change as evaluation services show it: +14.0%."""
    return "NA" if value is None else f"{100 * value:+.1f}%"


def _diagnose(args: argparse.Namespace) -> int:
    from rankset.diagnosis.quadrants import diagnose, regression_counts, regressions
    from rankset.evaluation import evaluate_with

    options = _evaluation_options(args)
    k = args.k
    metrics = [f"ra_nwg@{k}", f"proc@{k}", f"pct_proc@{k}"]
    if args.baseline:
        metrics += [f"recall@{k}", f"ndcg@{k}"]
    with progress(args) as step:
        step(f"evaluating {len(args.runs)} run(s)")
        result = evaluate_with(args.runs, args.labels, metrics, options, confidence=None)
    report_dropped(result.query_counts)
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
        write_table(diagnosis.per_query, args.per_query, config=result.config)
    if writes_stdout(args):
        return EXIT_OK
    if args.json:
        output = {
            "k": k,
            "thresholds": diagnosis.thresholds,
            "counts": records(diagnosis.counts),
            "queries": records(diagnosis.per_query),
        }
        if args.baseline:
            output["baseline"] = args.baseline
            output["regressions"] = {system: records(counts) for system, counts in changes.items()}
        print(dump_json(output))
        return EXIT_OK
    wide = diagnosis.wide()
    print(
        f"Quadrants at k={k} (proc >= {args.proc_threshold}, pct_proc >= "
        f"{args.pct_proc_threshold}), queries per system:"
    )
    print(render_table(wide.columns, [[str(v) for v in row] for row in wide.rows()]))
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
        print(render_table(["change", "queries", "query ids"], rows))
    return EXIT_OK


def _fuse(args: argparse.Namespace) -> int:
    from rankset.errors import ParameterError
    from rankset.fusion import optimize_fusion, resolve_method, write_fused

    params = {
        key: getattr(args, key)
        for key in ("k", "gamma", "phi", "sigma", "segments", "w")
        if getattr(args, key) is not None
    }
    settings: dict[str, Any] = {"method": args.method, **params}
    if args.norm is not None:
        settings["norm"] = args.norm
    if args.weights is not None:
        settings["weights"] = args.weights
    train = None
    if args.train_queries is not None:
        with open(args.train_queries, encoding="utf-8") as handle:
            train = [line.strip() for line in handle if line.strip()]
    if args.optimize:
        if args.labels is None:
            raise ParameterError("--optimize needs --qrels LABELS.")
        with progress(args) as step:
            step("fusing and evaluating every configuration")
            search = optimize_fusion(
                args.runs,
                args.labels,
                args.method,
                args.metric,
                grid=_grid(args.grid or []),
                train_queries=train,
                norm=args.norm,
            )
        settings = search.best
        _print_search(search, json_output=args.json)
    method = settings.pop("method")
    if resolve_method(method).trained:
        settings.update(labels=args.labels, train_queries=train)
    with progress(args) as step:
        step(f"fusing {len(args.runs)} runs with {method}")
        write_fused(
            args.runs,
            args.out,
            method,
            buckets=args.buckets,
            name=args.name,
            depth=args.max_depth,
            **settings,
        )
    print(args.out, file=sys.stderr)
    return EXIT_OK


def _print_search(search: FusionSearch, *, json_output: bool) -> None:
    """Print the best fusion settings and the table of every configuration tried."""
    if json_output:
        print(dump_json({"best": search.best, "table": records(search.table)}))
        return
    from rankset._format import format_value

    print(f"best on {search.metric}: {json.dumps(search.best)}")
    rows = [
        [row["settings"], format_value(row["train"]), format_value(row["test"])]
        for row in search.table.iter_rows(named=True)
    ]
    print(render_table(["settings", "train", "test"], rows))


def _grid(specs: list[str]) -> dict[str, list[Any]]:
    from rankset.errors import ParameterError

    grid: dict[str, list[Any]] = {}
    for spec in specs:
        key, sep, values = spec.partition("=")
        if not sep or not values:
            msg = f"--grid takes KEY=V1,V2,...; got {spec!r}."
            raise ParameterError(msg)
        if key == "weights":  # weights=0.5:0.5,0.7:0.3
            grid[key] = [[float(w) for w in item.split(":")] for item in values.split(",")]
        elif key == "norm":
            grid[key] = values.split(",")
        else:
            try:
                grid[key] = [float(value) for value in values.split(",")]
            except ValueError:
                msg = f"--grid {key}= takes numbers; got {values!r}."
                raise ParameterError(msg) from None
    return grid


def _partition(args: argparse.Namespace) -> int:
    from rankset.evaluation import partition

    with progress(args) as step:
        step(f"partitioning {len(args.runs)} run(s) into {args.buckets} buckets")
        out = partition(
            args.runs,
            args.labels,
            args.out,
            buckets=args.buckets,
            names=args.names,
            progress=step.count,
        )
    print(f"wrote {out} ({args.buckets} buckets); evaluate it with: rankset evaluate {out}")
    return EXIT_OK


def _agreement(args: argparse.Namespace) -> int:
    import polars as pl

    from rankset.label_quality.assessors import agreement

    with progress(args) as step:
        step(f"comparing {len(args.judges)} judge(s) with {args.labels}")
        result = agreement(
            args.labels,
            list(args.judges),
            out_of_scale="drop" if args.drop_out_of_scale else "error",
            confidence=0.95 if args.out else None,  # the intervals only go to --out
            n_resamples=args.n_resamples,
            seed=args.seed,
        )
    table = result.table
    if args.out:
        config = {"reference": args.labels, "judges": list(args.judges), "grades": result.grades}
        write_table(result.intervals, args.out, config=config)
    if writes_stdout(args):
        return EXIT_OK
    if args.json:
        print(dump_json(records(table)))
        return EXIT_OK
    from rankset._format import format_value

    statistics = [c for c in table.columns if c.startswith(("kappa", "alpha"))]
    header = ["judge", "pairs", *statistics]
    rows = [
        [row["judge"], str(row["n_pairs"]), *(format_value(row[s]) for s in statistics)]
        for row in table.iter_rows(named=True)
    ]
    print(render_table(header, rows))
    dropped = table.filter(
        (pl.col("n_reference_only") > 0)
        | (pl.col("n_judge_only") > 0)
        | (pl.col("n_out_of_scale") > 0)
    )
    for row in dropped.iter_rows(named=True):
        parts = [
            f"{row[column]} {what}"
            for column, what in (
                ("n_reference_only", "reference pair(s) it did not grade"),
                ("n_judge_only", "pair(s) not in the reference"),
                ("n_out_of_scale", "out-of-scale grade(s) left out"),
            )
            if row[column]
        ]
        print(f"rankset: {row['judge']}: " + ", ".join(parts), file=sys.stderr)
    return EXIT_OK


def named_label_sets(args: argparse.Namespace) -> dict[str, str]:
    """Name the reference and the other label sets after their files (labelsN on a clash)."""
    from pathlib import Path

    from rankset.io._shared import display_stem

    others = list(getattr(args, "label_sets", None) or [])
    if not others:
        return {}
    paths = [args.labels, *others]
    names = [display_stem(Path(path)) for path in paths]
    if len(set(names)) != len(names):
        names = [names[0], *(f"labels{i}" for i in range(2, len(paths) + 1))]
        if names[0] in names[1:]:
            names[0] = "labels1"
    return dict(zip(names, paths, strict=True))


def _stability(args: argparse.Namespace) -> int:
    from rankset.errors import ParameterError
    from rankset.label_quality.rank_stability import ranking_stability

    label_sets = named_label_sets(args)
    if not label_sets:
        msg = "rankset stability needs --qrels twice or more: the reference, then other labels."
        raise ParameterError(msg)
    options = option_values(args)
    with progress(args) as step:
        step(f"ranking {len(args.runs)} run(s) under {len(label_sets)} label sets")
        result = ranking_stability(
            args.runs,
            label_sets,
            args.metric,
            rbo_p=args.rbo_p,
            n_resamples=args.n_resamples,
            seed=args.seed,
            **options,
        )
    if args.json:
        output = {
            "metric": result.metric,
            "reference": result.reference,
            "correlations": records(result.correlations),
            "ranks": records(result.ranks),
        }
        print(dump_json(output))
        return EXIT_OK
    print(f"{result.metric}: each label set's order of the systems against {result.reference}'s")
    print(frame_text(result.correlations.drop("n_systems", "top_reference")))
    print()
    print(frame_text(result.ranks))
    return EXIT_OK


def _measures(args: argparse.Namespace) -> int:
    from rankset.measures import available_measures, measure_table

    if args.markdown:
        print(measure_table(), end="")
        return EXIT_OK
    for name, spec in sorted(available_measures().items()):
        cutoff = {"required": "@k", "optional": "[@k]", "none": ""}[spec.cutoff]
        print(f"{name + cutoff:<20} {spec.description}")
        others = spec.accepted_names()[1:]
        if others:  # the aliases and other tools' names, which parse to the same measure
            print(f"{'':<20} also: {', '.join(others)}")
    return EXIT_OK


#: The subcommands, by name: each takes the parsed arguments, returns the exit status.
#: ``evaluate`` is not here: :mod:`rankset.cli._suite` routes it (``--suite``, or the
#: runs on the line through :func:`evaluate_runs`).
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "compare": _compare,
    "curves": _curves,
    "diagnose": _diagnose,
    "measures": _measures,
    "partition": _partition,
    "fuse": _fuse,
    "agreement": _agreement,
    "stability": _stability,
}
