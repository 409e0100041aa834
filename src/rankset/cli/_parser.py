"""The command line's parser: one subcommand per library verb, one function per subcommand.

The options the subcommands share are declared once, in :mod:`rankset.cli._options`,
whose docstring states the spelling rule (``-m/--metric``, ``-k/--k``, ``--k-max``,
``--quiet``, ...). Abbreviated long options are refused (``allow_abbrev=False``), so adding
an option never makes a user's abbreviation ambiguous.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rankset._typing import Correction, Norm, Test, choices_of
from rankset.cli._experiments import add_gate, add_history, add_log
from rankset.cli._judges import add_judges
from rankset.cli._options import (
    add_buckets,
    add_cutoff,
    add_cutoff_range,
    add_evaluation_options,
    add_inputs,
    add_max_depth,
    add_metrics,
    add_names,
    add_output,
    add_quiet,
    add_resampling,
    add_testing,
    cutoff_list,
    hidden_alias,
)
from rankset.cli._pages import add_dashboard
from rankset.cli._suite import add_suite_option
from rankset.cli._trec_eval_help import add_trec_eval_entry
from rankset.evaluation import DEFAULT_METRICS

__all__ = ["build_parser"]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Return the parser of every subcommand but ``trec_eval`` and ``sample_eval`` (own ones).

    ``command``, one of :data:`SUBCOMMANDS`' names, builds that subcommand's parser
    alone: what a command line naming it first parses, the same way, without building
    the others' (about 5 ms of a run's start). Anything else builds them all.
    """
    parser = argparse.ArgumentParser(
        prog="rankset",
        description="Evaluate retrieval runs: trec_eval-exact metrics on Polars.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    add_quiet(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    adders = [SUBCOMMANDS[command]] if command in SUBCOMMANDS else SUBCOMMANDS.values()
    for add in adders:
        subparser = add(commands)
        # Also after the command (`rankset evaluate ... --quiet`); unset there, the top's stays.
        add_quiet(subparser, default=argparse.SUPPRESS)
    add_trec_eval_entry(commands)  # listed only: main() runs trec_eval before argparse
    commands.add_parser(  # likewise: main() runs sample_eval with the script's arguments
        "sample_eval",
        help="NIST's sample_eval.pl on sampled qrels, byte for byte: [-q] QRELS RUN",
        add_help=False,
    )
    return parser


def _subcommand(commands: Any, name: str, **settings: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, allow_abbrev=False, **settings)
    return parser


def _add_evaluate(commands: Any) -> argparse.ArgumentParser:
    evaluate = _subcommand(
        commands,
        "evaluate",
        help="score runs against labels",
        description="Score one or more runs against labels (qrels) and print a summary.",
    )
    add_evaluation_options(
        evaluate, runs_help="run files (TREC, JSONL, Parquet, ...)", runs_optional=True
    )
    add_metrics(evaluate, " ".join(DEFAULT_METRICS))
    add_suite_option(evaluate)
    cutoffs = evaluate.add_argument_group("cutoffs")
    add_cutoff(cutoffs, default=None, help="cutoff for @k metrics")
    cutoffs.add_argument(
        "--ks",
        type=cutoff_list,
        metavar="K,K,...",
        help="compute every metric without a fixed cutoff at each of these (e.g. 1,5,10,20) "
        "and print one row per system and k",
    )
    text = evaluate.add_argument_group("runs of text chunks")
    text.add_argument(
        "--gold",
        metavar="FILE",
        help="runs of text chunks: gold texts per query (query_id, text[, gold_id, grade]; "
        "Parquet/CSV/JSONL); each chunk takes the id of the gold text it matches",
    )
    text.add_argument(
        "--match",
        choices=("exact", "normalized", "contained", "json-escaped"),
        default="exact",
        help="how a chunk matches a gold text with --gold (default exact)",
    )
    add_output(evaluate, per_query="write per-query values", json="print the summary as JSON")
    return evaluate


def _add_curves(commands: Any) -> argparse.ArgumentParser:
    curves = _subcommand(
        commands,
        "curves",
        help="metric-vs-k curves",
        description="Mean (with bootstrap CI) of each measure at every cutoff 1..K.",
    )
    add_evaluation_options(curves, runs_help="run files")
    add_metrics(curves, "ndcg precision recall")
    add_cutoff_range(
        curves.add_argument_group("cutoffs"), help="largest cutoff (default 20)", k_alias=True
    )
    add_output(
        curves,
        out="write the curves (means and CIs at every k)",
        per_query="write per-query values at every k",
        json="print the curves as JSON",
    )
    return curves


def _add_compare(commands: Any) -> argparse.ArgumentParser:
    compare = _subcommand(
        commands,
        "compare",
        help="paired significance tests against a baseline",
        description="Compare every system with a baseline, query by query: mean delta with "
        "a paired bootstrap CI, paired tests with multiple-testing correction, wins/ties/losses.",
    )
    add_evaluation_options(compare, runs_help="run files")
    add_metrics(compare, " ".join(DEFAULT_METRICS))
    add_cutoff(compare, default=None, help="cutoff for @k metrics")
    tests = compare.add_argument_group("tests")
    tests.add_argument(
        "--baseline",
        metavar="NAME",
        help="baseline system (with --all-pairs: compare every other system with it only)",
    )
    tests.add_argument(
        "--all-pairs",
        action="store_true",
        help="compare every pair of systems, each pair once, with a paired effect size",
    )
    tests.add_argument(
        "--test",
        dest="tests",
        action="append",
        choices=[*choices_of(Test), "randomized-tukey"],
        help="test, repeatable: randomization, t, wilcoxon (paired; default all three, "
        "randomization alone without scipy or with --all-pairs), tukey, randomized-tukey "
        "(family-wise over every system); t, wilcoxon and tukey need scipy",
    )
    tests.add_argument(
        "--correction",
        choices=(*choices_of(Correction), "none"),
        default="holm",
        help="multiple-testing correction over all rows of a test (default holm)",
    )
    tests.add_argument(
        "--alpha", type=float, default=0.05, help="significance level (default 0.05)"
    )
    add_resampling(compare, 10000)
    add_output(compare, out="write the comparison", json="print the comparison as JSON")
    _add_paper_table_options(compare.add_argument_group("paper table"))
    return compare


def _add_paper_table_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--format",
        dest="table_format",
        choices=("latex", "markdown"),
        help="print a table for a paper instead: systems by metrics, best in bold, "
        "significance as superscript letters (--all-pairs) or daggers (against --baseline)",
    )
    group.add_argument(
        "--decimals", type=int, default=4, metavar="N", help="digits in --format (default 4)"
    )
    group.add_argument("--percent", action="store_true", help="--format on a 0-100 scale")


def _add_diagnose(commands: Any) -> argparse.ArgumentParser:
    diagnose = _subcommand(
        commands,
        "diagnose",
        help="retrieval vs reranking diagnosis",
        description="Classify each query by PROC@K and %PROC@K (retrieval miss, reranking "
        "miss, healthy, both) and, with --baseline, list ordering and coverage regressions.",
    )
    add_evaluation_options(diagnose, runs_help="run files")
    quadrants = diagnose.add_argument_group("quadrants")
    add_cutoff(quadrants, default=10, help="cutoff (default 10)")
    quadrants.add_argument(
        "--proc-threshold", type=float, default=0.5, metavar="T", help="default 0.5"
    )
    quadrants.add_argument(
        "--pct-proc-threshold", type=float, default=0.5, metavar="T", help="default 0.5"
    )
    quadrants.add_argument(
        "--baseline",
        metavar="NAME",
        help="also compare recall@k and ndcg@k of every other system with this one",
    )
    add_output(
        diagnose,
        per_query="write the per-query quadrants",
        json="print the diagnosis as JSON",
    )
    return diagnose


def _add_report(commands: Any) -> argparse.ArgumentParser:
    report = _subcommand(
        commands,
        "report",
        help="a self-contained HTML report",
        description="Write one static HTML file: summary with CIs, comparison with "
        "significance, metric-vs-k curves, the diagnostic matrix and the worst queries.",
    )
    add_evaluation_options(
        report,
        runs_help="run files",
        labels_help="labels file; repeat it to add other label sets of the same pairs (an "
        "LLM judge's), compared with the first in a 'Label sets' section",
    )
    add_metrics(report, " ".join(DEFAULT_METRICS))
    page = report.add_argument_group("page")
    page.add_argument("--baseline", metavar="NAME", help="baseline system of the comparison")
    add_cutoff(page, default=10, help="diagnosis cutoff (default 10)")
    page.add_argument(
        "--depth",
        type=int,
        default=20,
        metavar="N",
        help="the curves go from k = 1 to N (default 20)",
    )
    hidden_alias(page, "--k-max", dest="depth", type=int)
    page.add_argument("--title", default="rankset report", help="the page title")
    page.add_argument(
        "--fused",
        metavar="NAME",
        help="the system name of a fused run among the runs: adds what fusion changed",
    )
    page.add_argument(
        "--store",
        metavar="DIR",
        help="an experiment store (rankset log): adds the history of its logged means",
    )
    add_testing(report)
    add_output(report, out="the HTML file to write", out_metavar="REPORT.html", out_required=True)
    return report


def _add_fuse(commands: Any) -> argparse.ArgumentParser:
    fuse = _subcommand(
        commands,
        "fuse",
        help="combine runs (RRF, CombSUM, ...) into one run",
        description="Fuse runs into one run and write it (TREC text, or Parquet/CSV by "
        "extension); with --optimize, search a grid of settings on training queries first.",
    )
    add_inputs(
        fuse,
        runs_help="two run files or more",
        labels_help="labels file, for --optimize and the trained methods",
    )
    method = fuse.add_argument_group("method")
    method.add_argument("--method", default="rrf", help="fusion method (default rrf)")
    method.add_argument(
        "--norm", choices=choices_of(Norm), help="score normalisation (score-based methods)"
    )
    method.add_argument("--weights", type=float, nargs="+", metavar="W", help="one per run")
    for parameter in ("k", "gamma", "phi", "sigma", "segments", "w"):  # rankset.fuse's names
        method.add_argument(f"--{parameter}", type=float, help=f"the method's {parameter}")
    add_max_depth(method, "fuse each run's first N documents")
    hidden_alias(method, "--depth", dest="max_depth", type=int)
    method.add_argument("--name", default="fused", help="system name of the fused run")
    add_buckets(
        method,
        default=1,
        help="fuse the queries in N hash buckets, one at a time (same output, less memory)",
    )
    search = fuse.add_argument_group("search (--optimize)")
    search.add_argument("--optimize", action="store_true", help="search the grid first")
    search.add_argument(
        "--train-queries", metavar="FILE", help="query ids to tune on, one per line"
    )
    search.add_argument(
        "--grid",
        action="append",
        metavar="KEY=V1,V2",
        help="values to try for a setting, e.g. k=10,60,100 (repeatable)",
    )
    add_metrics(fuse, "ndcg@10", one="the metric --optimize maximises")
    add_output(
        fuse,
        out="output run file: TREC text, or .parquet / .csv by its name",
        out_metavar="FUSED",
        out_required=True,
        json="print the search table as JSON",
    )
    return fuse


def _add_partition(commands: Any) -> argparse.ArgumentParser:
    partition = _subcommand(
        commands,
        "partition",
        help="write runs and labels as bucket-partitioned Parquet",
        description="Split runs and labels by hashed query id into N buckets of Parquet "
        "files, once; evaluating the folder then reads one bucket at a time "
        "(larger-than-memory mode) without re-reading everything per bucket.",
    )
    add_inputs(partition, runs_help="run files")
    add_names(partition)
    add_buckets(partition, default=16, help="number of buckets (default 16)")
    add_output(partition, out="new dataset folder", out_metavar="DIR", out_required=True)
    return partition


def _add_agreement(commands: Any) -> argparse.ArgumentParser:
    agreement = _subcommand(
        commands,
        "agreement",
        help="agreement of judges' labels with reference labels (kappa, alpha)",
        description="Join each judge's labels with the reference labels on (query, doc) and "
        "print Cohen's kappa (unweighted, linear, quadratic), kappa binarised at each grade "
        "threshold and Krippendorff's alpha (nominal, ordinal), one row per judge; judges "
        "are named after their files. Bootstrap intervals over queries go to --out.",
    )
    agreement.add_argument("labels", metavar="REFERENCE", help="reference labels (qrels)")
    agreement.add_argument(
        "judges", nargs="+", metavar="JUDGE", help="labels of a judge (qrels), repeatable"
    )
    agreement.add_argument(
        "--drop-out-of-scale",
        action="store_true",
        help="leave out (and count) a judge's grades outside the reference's grades "
        "(default: an error)",
    )
    add_output(
        agreement,
        out="write the intervals (judge, statistic, ...)",
        json="print the table as JSON",
    )
    add_resampling(agreement, 1000)
    return agreement


def _add_stability(commands: Any) -> argparse.ArgumentParser:
    stability = _subcommand(
        commands,
        "stability",
        help="does the order of the systems hold under other labels?",
        description="Rank the systems by their mean metric under each label set and compare "
        "every order with the first label set's: Kendall's tau-b, tau_AP, rank-biased "
        "overlap, rank changes, and whether the top system stays on top. Label sets are "
        "named after their files.",
    )
    add_evaluation_options(
        stability,
        runs_help="run files (two systems or more)",
        labels_help="labels file, twice or more: the first is the reference",
    )
    add_metrics(stability, "ndcg@10", one="the metric that ranks the systems")
    stability.add_argument(
        "--rbo-p", type=float, default=0.9, metavar="P", help="RBO persistence (default 0.9)"
    )
    add_output(stability, json="print both tables as JSON")
    add_resampling(stability, 1000)
    return stability


def _add_measures(commands: Any) -> argparse.ArgumentParser:
    measures = _subcommand(commands, "measures", help="list the available measures")
    measures.add_argument(
        "--markdown",
        action="store_true",
        help="print the full reference table (docs/measures.md) as Markdown",
    )
    return measures


#: Each subcommand's name and the function that adds its parser, in ``--help``'s order.
SUBCOMMANDS: dict[str, Callable[[Any], argparse.ArgumentParser]] = {
    "evaluate": _add_evaluate,
    "curves": _add_curves,
    "compare": _add_compare,
    "diagnose": _add_diagnose,
    "report": _add_report,
    "fuse": _add_fuse,
    "partition": _add_partition,
    "agreement": _add_agreement,
    "stability": _add_stability,
    "measures": _add_measures,
    "log": add_log,
    "history": add_history,
    "gate": add_gate,
    "dashboard": add_dashboard,
    "judges": add_judges,
}
