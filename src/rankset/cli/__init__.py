"""The ``rankset`` command line: a thin layer over the library, one subcommand per verb.

Machine outputs are stable contracts: ``evaluate --json`` prints the summary as a JSON list
of objects with keys ``system, metric, mean, n_queries, n_na``; ``--per-query`` writes a
table with at least ``system, query_id, metric, value``, as its name says (``.parquet``,
``.csv``, ``.jsonl``, ``.json``; ``-``: CSV on stdout). Diagnostics (dropped queries)
go to stderr so stdout stays machine-readable. Bad input exits with status 2 and a
one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

from rankset._version import __version__
from rankset.cli import (
    _commands,
    _experiments,
    _files,
    _judges,
    _options,
    _pages,
    _parser,
    _suite,
    _trec_eval_help,
)
from rankset.errors import ParameterError, RanksetError

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "main"]

#: Exit status of success.
EXIT_OK = _commands.EXIT_OK
#: Exit status of bad input (and of a usage error).
EXIT_BAD_INPUT = 2
_Command = Callable[[argparse.Namespace], int]


def _by_name(*tables: Mapping[str, _Command]) -> dict[str, _Command]:
    """Gather the subcommands' tables; a name in two of them is a mistake, not an override."""
    gathered: dict[str, _Command] = {}
    for table in tables:
        for name, command in table.items():
            if name in gathered:
                msg = f"two subcommands are named {name!r}"
                raise RuntimeError(msg)
            gathered[name] = command
    return gathered


#: Every subcommand but trec_eval, by name: each in one table, ``evaluate`` on its own
#: (its module routes ``--suite`` and the runs on the line).
_COMMANDS = _by_name(
    {"evaluate": _suite.evaluate},
    _commands.COMMANDS,
    _experiments.EXPERIMENT_COMMANDS,
    _pages.PAGE_COMMANDS,
    _judges.JUDGE_COMMANDS,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Called without ``argv``, as the ``rankset`` program is (its script, ``python -m
    rankset``), it lets the collector look for cycles only every
    ``_PROGRAM_GC_THRESHOLD`` new objects rather than every 700 (the modules a command
    imports are objects that live until the exit, walked again and again for nothing),
    and freezes the objects left (:func:`gc.freeze`) before it returns, so that the
    interpreter's exit does not walk them either: the program ends next. A call with
    ``argv`` runs in someone's process and leaves its collector as it was.
    """
    if argv is not None:
        return _main(argv)
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _PROGRAM_GC_THRESHOLD), *thresholds[1:])
    try:
        return _main(argv)
    finally:
        gc.freeze()
        gc.set_threshold(*thresholds)


#: New objects between two of the program's looks for cycles: more than a command on
#: small inputs makes in all (about 66,000 for ``evaluate`` with five measures), so it
#: makes none, while a long command still frees its cycles every so often.
_PROGRAM_GC_THRESHOLD = 100_000


def _main(argv: Sequence[str] | None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["trec_eval"]:  # trec_eval's own option grammar, not argparse's
        if _trec_eval_help.asks_for_help(arguments[1:]):
            print(_trec_eval_help.USAGE, end="")
            return EXIT_OK
        from rankset.compat import trec_eval

        return trec_eval.main(arguments[1:])
    if arguments[:1] == ["sample_eval"]:  # the script's positional arguments, as it reads them
        from rankset.compat import sample_eval

        return sample_eval.main(arguments[1:])
    parser = _parser.build_parser(arguments[0] if arguments else None)  # that one alone
    args = parser.parse_args(arguments)
    if args.version:
        print(__version__)
        return EXIT_OK
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT

    with warnings.catch_warnings():  # restored on return: main() may run in-process
        warnings.showwarning = _show_warning
        return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    """Run the chosen command; a rankset error, OS error or memory error is a message."""
    try:
        _split_label_sets(args)
        _options.expand_official(args)
        _read_standard_input(args)
        _refuse_overwriting_inputs(args)
        _files.check_outputs(args)  # before any work: a bad name costs no evaluation
        if getattr(args, "dask", None) is None:
            return _COMMANDS[args.command](args)
        if args.engine != "auto":
            msg = (
                "--dask runs the pass on the cluster's workers; it cannot be combined "
                f"with --engine {args.engine}."
            )
            raise ParameterError(msg)
        from rankset.evaluation.cluster import connect

        with connect(args.dask) as client:
            args.client = client
            return _COMMANDS[args.command](args)
    except BrokenPipeError:
        # The reader stopped early (`rankset ... --json | head`): not an error. Later
        # writes (the interpreter's flush at exit) go nowhere instead of failing again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except (RanksetError, OSError) as error:
        print(f"rankset: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        msg = (
            "rankset: error: out of memory; measure the queries in parts with --buckets N "
            "(e.g. --buckets 8), or give the inputs as Parquet files, which are scanned."
        )
        print(msg, file=sys.stderr)
        return EXIT_BAD_INPUT


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """Print a warning as the CLI prints errors: ``rankset: warning: ...``, no source line."""
    print(f"rankset: warning: {message}", file=file or sys.stderr)


def _split_label_sets(args: argparse.Namespace) -> None:
    """Where ``--qrels`` repeats (report, stability): the first is the reference."""
    labels = getattr(args, "labels", None)
    if isinstance(labels, list):
        args.labels, args.label_sets = labels[0], labels[1:]


def _read_standard_input(args: argparse.Namespace) -> None:
    """Let ``-`` name standard input, for one run or the labels (``zcat run.gz | ...``)."""
    runs = list(getattr(args, "runs", None) or [])
    labels = getattr(args, "labels", None)
    if runs.count("-") + (labels == "-") > 1:
        raise ParameterError("Only one input can be read from standard input ('-').")
    if "-" in runs:
        args.runs = [sys.stdin.buffer if run == "-" else run for run in runs]
    if labels == "-":
        args.labels = sys.stdin.buffer


def _refuse_overwriting_inputs(args: argparse.Namespace) -> None:
    """Refuse an output path that is one of the call's inputs (it would be replaced)."""
    named = [
        *(getattr(args, "runs", None) or []),
        *(getattr(args, "judges", None) or []),
        *(getattr(args, "label_sets", None) or []),
    ]
    named += [getattr(args, name, None) for name in ("labels", "pool", "answers", "nuggets")]
    inputs = [source for source in named if isinstance(source, str)]  # not standard input
    outputs = [getattr(args, name, None) for name in ("per_query", "out")]
    for output in outputs:
        if output is None or not os.path.exists(output):
            continue
        for source in inputs:
            if os.path.exists(source) and os.path.samefile(output, source):
                msg = f"{output} is an input of this command: writing there would replace it."
                raise ParameterError(msg)
