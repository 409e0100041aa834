"""``rankset evaluate``: the runs on the line, or ``--suite SUITE.toml``'s collections.

:func:`evaluate` is the subcommand: without ``--suite`` it is
:func:`rankset.cli._commands.evaluate_runs`; with it, the same systems over several
collections.

A thin wrapper over :func:`rankset.comparison.evaluate_suite_toml`: per collection the
summary with each system's rank, then the aggregate over collections (macro mean with
intervals over collections and over queries, mean rank, Borda count). The one evaluation
also feeds the pages: ``--report FILE.html`` writes :func:`rankset.pages.report.suite_report`
(heatmaps, the aggregate, each collection), ``--dashboard FILE.html`` a dashboard of the
first collection's runs with a Collections view of the whole suite.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rankset.cli._commands import evaluate_runs, option_values
from rankset.cli._output import dump_json, frame_text, progress, records
from rankset.errors import ParameterError

__all__ = ["add_suite_option", "evaluate"]


def add_suite_option(parser: argparse.ArgumentParser) -> None:
    """``--suite SUITE.toml`` on ``evaluate`` (its runs then come from the file)."""
    parser.add_argument(
        "--suite",
        metavar="SUITE.toml",
        help="evaluate the collections of a TOML file ([collections.NAME] qrels, runs) "
        "instead of RUN ...: per collection, then the mean over collections, the mean "
        "rank and a Borda count",
    )
    pages = parser.add_argument_group("pages of a suite (with --suite)")
    pages.add_argument(
        "--report",
        metavar="FILE.html",
        help="also write the suite's HTML page: a heatmap of systems × collections per "
        "metric (the rank in each cell), the aggregate table, each collection's means",
    )
    pages.add_argument(
        "--dashboard",
        metavar="FILE.html",
        help="also write a dashboard of the first collection's runs with a Collections "
        "view: the picked metric's heatmap over every collection and the aggregate",
    )


def evaluate(args: argparse.Namespace) -> int:
    """``rankset evaluate``: :func:`evaluate_runs`, or the suite with ``--suite``."""
    pages = [path for path in (args.report, args.dashboard) if path is not None]
    if args.suite is None:
        if pages:
            msg = "--report and --dashboard write the pages of a suite: give --suite SUITE.toml."
            raise ParameterError(msg)
        if not args.runs:
            msg = "Give the runs to evaluate (RUN ...) or a suite of collections (--suite)."
            raise ParameterError(msg)
        return evaluate_runs(args)
    if args.runs or args.labels is not None:
        msg = "--suite names each collection's runs and labels: give no RUN nor --qrels."
        raise ParameterError(msg)
    for path in pages:  # before the work, not after it
        if not Path(path).parent.is_dir():
            msg = f"{path}: the folder {Path(path).parent} does not exist; create it first."
            raise ParameterError(msg)
    from rankset.comparison import evaluate_suite_toml

    options = option_values(args)
    options.pop("names", None)  # the suite names its systems
    with progress(args) as step:
        step(f"evaluating the suite {args.suite}")
        suite = evaluate_suite_toml(args.suite, args.metrics or None, **options)
        if args.report is not None:
            from rankset.pages.report import suite_report

            step(f"writing the suite's page {args.report}")
            _wrote(args, suite_report(suite, out=args.report))
        if args.dashboard is not None:
            step(f"building the dashboard {args.dashboard}")
            _wrote(args, _dashboard(args, suite, options))
    if args.json:
        print(
            dump_json(
                {
                    "per_collection": records(suite.per_collection),
                    "aggregate": records(suite.aggregate),
                }
            )
        )
        return 0
    shown = ["collection", "system", "metric", "mean", "ci_low", "ci_high", "n_queries", "rank"]
    print(frame_text(suite.per_collection.select(shown)))
    print()
    overall = ["system", "metric", "n_collections", "macro_mean", "ci_low", "ci_high"]
    overall += ["mean_rank", "borda"]
    print(frame_text(suite.aggregate.select(overall)))
    return 0


def _dashboard(args: argparse.Namespace, suite: Any, options: dict[str, Any]) -> Path:
    """Write the dashboard of the suite's first collection, with the Collections view."""
    from rankset.comparison import suite_from_toml
    from rankset.pages.dashboard import dashboard

    runs, labels = next(iter(suite_from_toml(args.suite).values()))
    board = dashboard(
        runs,
        labels,
        metrics=suite.metrics,
        title=f"rankset dashboard: {suite.collections[0]} and the suite {Path(args.suite).name}",
        suite=suite,
        progress=False,
        seed=suite.config["seed"],
        n_resamples=suite.config["n_resamples"],
        **options,
    )
    return board.save(args.dashboard)


def _wrote(args: argparse.Namespace, path: Path) -> None:
    """Name a written page on stderr (stdout keeps the tables, or the JSON)."""
    if not args.quiet:
        print(f"wrote {path}", file=sys.stderr)
