"""``rankset evaluate --suite SUITE.toml``: the same systems over several collections.

A thin wrapper over :func:`rankset.comparison.evaluate_suite_toml`: per collection the
summary with each system's rank, then the aggregate over collections (macro mean with
intervals over collections and over queries, mean rank, Borda count).
"""

from __future__ import annotations

import argparse

from rankset.cli._commands import COMMANDS, option_values
from rankset.cli._output import dump_json, frame_text, progress, records
from rankset.errors import ParameterError

__all__ = ["SUITE_COMMANDS", "add_suite_option"]


def add_suite_option(parser: argparse.ArgumentParser) -> None:
    """``--suite SUITE.toml`` on ``evaluate`` (its runs then come from the file)."""
    parser.add_argument(
        "--suite",
        metavar="SUITE.toml",
        help="evaluate the collections of a TOML file ([collections.NAME] qrels, runs) "
        "instead of RUN ...: per collection, then the mean over collections, the mean "
        "rank and a Borda count",
    )


def _evaluate(args: argparse.Namespace) -> int:
    if args.suite is None:
        if not args.runs:
            msg = "Give the runs to evaluate (RUN ...) or a suite of collections (--suite)."
            raise ParameterError(msg)
        return COMMANDS["evaluate"](args)
    if args.runs or args.labels is not None:
        msg = "--suite names each collection's runs and labels: give no RUN nor --qrels."
        raise ParameterError(msg)
    from rankset.comparison import evaluate_suite_toml

    options = option_values(args)
    options.pop("names", None)  # the suite names its systems
    with progress(args) as step:
        step(f"evaluating the suite {args.suite}")
        suite = evaluate_suite_toml(args.suite, args.metrics or None, **options)
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


#: ``evaluate``, which also takes ``--suite``.
SUITE_COMMANDS = {"evaluate": _evaluate}
