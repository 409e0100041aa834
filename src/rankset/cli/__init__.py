"""The ``rankset`` command line: a thin layer over the library, one subcommand per verb.

Machine outputs are stable contracts: ``evaluate --json`` prints the summary as a JSON list
of objects with keys ``system, metric, mean, n_queries, n_na``; ``--per-query`` writes
Parquet with at least ``system, query_id, metric, value``. Diagnostics (dropped queries)
go to stderr so stdout stays machine-readable. Bad input exits with status 2 and a
one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from rankset._version import __version__
from rankset.cli import _commands, _parser
from rankset.errors import ParameterError, RanksetError

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "main"]

#: Exit status of success.
EXIT_OK = _commands.EXIT_OK
#: Exit status of bad input (and of a usage error).
EXIT_BAD_INPUT = 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser.build_parser()
    args = parser.parse_args(argv)
    if args.version:
        print(__version__)
        return EXIT_OK
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT

    try:
        _refuse_overwriting_inputs(args)
        if getattr(args, "dask", None) is None:
            return _commands.COMMANDS[args.command](args)
        if args.engine != "auto":
            msg = (
                "--dask runs the pass on the cluster's workers; it cannot be combined "
                f"with --engine {args.engine}."
            )
            raise ParameterError(msg)
        from rankset.cluster import connect

        with connect(args.dask) as client:
            args.client = client
            return _commands.COMMANDS[args.command](args)
    except (RanksetError, OSError) as error:
        print(f"rankset: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _refuse_overwriting_inputs(args: argparse.Namespace) -> None:
    """Refuse an output path that is one of the call's inputs (it would be replaced)."""
    inputs = list(getattr(args, "runs", None) or [])
    inputs += [getattr(args, name, None) for name in ("labels", "pool", "answers")]
    outputs = [getattr(args, name, None) for name in ("per_query", "out")]
    for output in outputs:
        if output is None or not os.path.exists(output):
            continue
        for source in inputs:
            if source is not None and os.path.exists(source) and os.path.samefile(output, source):
                msg = f"{output} is an input of this command: writing there would replace it."
                raise ParameterError(msg)
