"""``rankset report`` and ``rankset dashboard``: the two pages of one analysis.

Thin wrappers over :func:`rankset.report` and :func:`rankset.dashboard`: the runs, labels
and evaluation options as every evaluating subcommand spells them, the tests and
resampling as ``rankset compare`` spells them, plus each page's own inputs and its one
output file.
"""

from __future__ import annotations

import argparse
from typing import Any

from rankset.cli._options import (
    add_cutoff,
    add_evaluation_options,
    add_metrics,
    add_output,
    add_testing,
    correction_of,
)
from rankset.cli._output import progress
from rankset.errors import ParameterError
from rankset.evaluation import DEFAULT_METRICS

__all__ = ["PAGE_COMMANDS", "add_dashboard"]


def add_dashboard(commands: Any) -> argparse.ArgumentParser:
    """``rankset dashboard RUN ... [--qrels LABELS] [--texts F] [--queries F] --out F``."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "dashboard",
        allow_abbrev=False,
        help="an offline HTML page to explore systems, queries and rankings",
        description="Write one self-contained HTML file (no network): systems x metrics "
        "with CIs and significance against a baseline, curves, the diagnostic matrix, "
        "every query's values, and two systems' top k side by side. The view is kept in "
        "the URL fragment (#query=ID&a=SYSTEM&b=SYSTEM&metric=NAME&k=K). Without --qrels "
        "the page contrasts the rankings alone (overlap, Jaccard, RBO, tau_AP per query, "
        "least similar first).",
    )
    add_evaluation_options(
        parser,
        runs_help="run files (TREC, JSONL, Parquet, ...); none with --store",
        labels_help="labels file; repeat it to add other label sets of the same pairs (an "
        "LLM judge's), judged against the first in a Judges view",
        runs_optional=True,
    )
    add_metrics(parser, " ".join(DEFAULT_METRICS))
    page = parser.add_argument_group("page")
    add_cutoff(page, default=10, help="the cutoff of the diagnosis and the side-by-side view")
    page.add_argument(
        "--depth",
        type=int,
        default=20,
        metavar="N",
        help="documents kept per system and query (default 20; the k slider's range)",
    )
    page.add_argument("--baseline", metavar="NAME", help="the system the others are compared with")
    page.add_argument(
        "--texts",
        metavar="FILE",
        help="document texts: TSV, JSON lines, a JSON array or Parquet with doc_id and text, "
        "or rank_llm/pyserini candidate lists ([{query, hits: [{docid, content}]}])",
    )
    page.add_argument(
        "--snippet",
        type=int,
        default=300,
        metavar="N",
        help="characters of each document text shown (default 300)",
    )
    page.add_argument(
        "--queries",
        metavar="FILE",
        help="query texts: TSV, JSON lines, a JSON array or Parquet with query_id and text, "
        "rank_llm/pyserini candidate lists (their queries), or irds:<id> (a dataset's "
        "queries through ir_datasets); by default, with --qrels irds:<id>, that dataset's "
        "queries when ir_datasets has them cached",
    )
    page.add_argument("--title", default="rankset dashboard", help="the page's title")
    stored = parser.add_argument_group("from an experiment store")
    stored.add_argument(
        "--store",
        metavar="DIR",
        help="show the runs of the store's entries (named TAG:SYSTEM, or TAG@SHORTID:SYSTEM "
        "when a tag repeats), beside any RUN given (--name names those), "
        "and a History view of its logged means (the store is only read)",
    )
    stored.add_argument(
        "--entry",
        action="append",
        metavar="ID",
        help="with --store: only this entry (an id, a unique prefix, its short id or "
        "TAG@SHORTID), repeatable",
    )
    page.add_argument(
        "--max-mb",
        type=float,
        default=20.0,
        metavar="MB",
        help="size budget of the file; beyond it queries are sampled, keeping the biggest "
        "wins and losses, and the page says so (default 20)",
    )
    add_testing(parser)
    add_output(
        parser, out="the HTML file to write", out_metavar="DASHBOARD.html", out_required=True
    )
    return parser


def _dashboard(args: argparse.Namespace) -> int:
    from rankset.cli._commands import named_label_sets, option_values
    from rankset.pages.dashboard import dashboard

    runs, labels, store = _inputs(args)  # a folder that is no store fails here
    options = option_values(args)  # after _inputs, which names the runs beside a store
    label_sets = named_label_sets(args)
    if label_sets:
        options["label_sets"] = dict(list(label_sets.items())[1:])
    with progress(args) as step:
        step(f"building the dashboard of {len(runs)} run(s)")
        board = dashboard(
            runs,
            labels,
            texts=args.texts,
            queries=args.queries,
            snippet=args.snippet,
            baseline=args.baseline,
            metrics=args.metrics or None,
            k=args.k,
            depth=args.depth,
            title=args.title,
            max_bytes=int(args.max_mb * 1_000_000),
            n_resamples=args.n_resamples,
            test=args.test,
            correction=correction_of(args),
            alpha=args.alpha,
            seed=args.seed,
            progress=step.count,
            history=store,
            **options,
        )
        path = board.save(args.out)
    shown = f"{board.n_queries:,} queries"
    if board.sampled:
        shown = f"{board.n_queries:,} of {board.n_queries_total:,} queries (sampled)"
    print(f"wrote {path}: {len(board.systems)} systems, {shown}, {board.size / 1e6:.1f} MB")
    return 0


def _report(args: argparse.Namespace) -> int:
    from rankset.cli._commands import named_label_sets, option_values
    from rankset.pages.report import report

    options = option_values(args)
    label_sets = named_label_sets(args)
    if label_sets:
        options["label_sets"] = dict(list(label_sets.items())[1:])
    with progress(args) as step:
        page = report(
            args.runs,
            args.labels,
            metrics=args.metrics or None,
            baseline=args.baseline,
            k=args.k,
            depth=args.depth,
            out=args.out,
            title=args.title,
            fused=args.fused,
            n_resamples=args.n_resamples,
            test=args.test,
            correction=correction_of(args),
            alpha=args.alpha,
            seed=args.seed,
            progress=step.count,
            history=args.store,
            **options,
        )
    print(page.path)
    return 0


def _inputs(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """Return the runs (by name, with those of ``--store``), the labels, and the store."""
    from pathlib import Path

    if args.store is None:
        if args.entry:
            msg = "--entry names an entry of a store: give --store DIR too."
            raise ParameterError(msg)
        if not args.runs:
            msg = "Give the runs to show (RUN ...) or an experiment store (--store DIR)."
            raise ParameterError(msg)
        return args.runs, args.labels, None
    from rankset.experiments import Store

    store = Store(args.store, create=False)
    runs, labels = store.sources(args.entry)
    # runs given beside the store: named by --name (one per run given), else by file stem
    names = args.names or [Path(path).stem for path in args.runs]
    if len(names) != len(args.runs):
        msg = (
            f"--name names the runs given on the line: {len(args.runs)} run(s), "
            f"{len(names)} name(s) (the store's entries are named TAG:SYSTEM)."
        )
        raise ParameterError(msg)
    for name, path in zip(names, args.runs, strict=True):
        if name in runs:
            msg = f"The run {path} would be named {name!r}, as a store entry is: rename it."
            raise ParameterError(msg)
        runs[name] = path
    args.names = None  # the runs are named now
    if args.labels is not None:
        labels = args.labels
    elif labels is None:
        msg = (
            "The store's entries were not all judged by one labels file still on disk: "
            "give --qrels LABELS."
        )
        raise ParameterError(msg)
    return runs, labels, store


#: The pages' subcommands, by name.
PAGE_COMMANDS = {"dashboard": _dashboard, "report": _report}
