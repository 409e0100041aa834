"""The command line's parser: one subcommand per library verb.

Vocabularies come from :mod:`rankset._typing` and defaults from
:class:`~rankset.evaluation.EvaluateOptions`, so the CLI spells neither again.
"""

from __future__ import annotations

import argparse
from typing import Any

from rankset._typing import (
    Correction,
    DatasetChecks,
    Engine,
    MissingPolicy,
    OrderPolicy,
    ScorePrecision,
    Test,
    choices_of,
)
from rankset.evaluation import EvaluateOptions
from rankset.fusion import NORMS

__all__ = ["build_parser"]

_QUIET_HELP = "no progress display on stderr"

# The library's defaults, which the options below show and keep.
_DEFAULTS = EvaluateOptions()


def _add_input_options(
    parser: argparse.ArgumentParser, *, runs_help: str, labels_help: str | None = None
) -> None:
    """Add the inputs and evaluation options; with ``labels_help``, ``--qrels`` repeats."""
    parser.add_argument("runs", nargs="+", metavar="RUN", help=runs_help)
    parser.add_argument(
        "--qrels",
        "--labels",
        dest="labels",
        metavar="LABELS",
        action="append" if labels_help else "store",
        help=labels_help or "labels file; optional when the runs carry labels (JSONL samples)",
    )
    parser.add_argument(
        "--relevance-level",
        "-l",
        type=float,
        default=_DEFAULTS.relevance_level,
        metavar="N",
        help="grade at or above which binary metrics count a document relevant "
        "(default 1; sample files whose expected_output maps ids to gains: any gain > 0)",
    )
    parser.add_argument(
        "--missing",
        choices=choices_of(MissingPolicy),
        default=_DEFAULTS.missing,
        help="queries in the labels but not the run: skip (default) or score as empty",
    )
    parser.add_argument(
        "--order",
        choices=choices_of(OrderPolicy),
        default=_DEFAULTS.order,
        help="order rankings by score (ties: doc id descending) or by the rank column",
    )
    parser.add_argument(
        "--score-precision",
        choices=choices_of(ScorePrecision),
        default=_DEFAULTS.score_precision,
        help="float64 (default): scores as trec_eval 10.0 reads them; float32: rounded as "
        "trec_eval 9.0.8 and pytrec_eval store them, so near-equal scores tie",
    )
    parser.add_argument(
        "--dataset-checks",
        choices=choices_of(DatasetChecks),
        default=_DEFAULTS.dataset_checks,
        help="labels in dataset JSON that break its rules (a query without relevant "
        "documents, an ungraded one): error (default), or warn and read on",
    )
    parser.add_argument(
        "--keep-best-duplicate",
        action="store_true",
        help="keep the best-ranked copy of a duplicated document instead of failing",
    )
    parser.add_argument(
        "--duplicates",
        choices=("error", "keep-best", "in-place"),
        help="a document twice in one ranking: error (default), keep-best (its best copy), "
        "or in-place (every copy keeps its slot, later copies count as non-relevant)",
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
        help="grade scale of the RAG metrics: rag5 (grades 1-5), trec_dl (0-3), binary "
        "(0-1); by default rag5, or the preset the labels fit (said on stderr)",
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
        "--max-depth",
        "-M",
        type=int,
        metavar="N",
        help="keep only the first N documents of each ranking (trec_eval's -M)",
    )
    parser.add_argument(
        "--judged-only",
        "-J",
        action="store_true",
        help="drop retrieved documents without a label of grade >= 0 first (trec_eval's -J)",
    )
    parser.add_argument(
        "--engine",
        choices=[engine for engine in choices_of(Engine) if engine != "dask"],  # see --dask
        default=_DEFAULTS.engine,
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
    parser.add_argument(
        "--nuggets",
        metavar="FILE",
        help="nugget labels for nugget_coverage@k, alpha_ndcg@k...: Parquet/CSV/JSONL with "
        "query_id, nugget_id, doc_id, support, importance, or nuggetizer's assignment JSONL "
        "(without --qrels, the labels they imply)",
    )
    parser.add_argument(
        "--subtopics",
        metavar="FILE",
        help="subtopic labels (TREC diversity qrels: 'query subtopic doc grade' lines) for "
        "the intent-aware measures (alpha_ndcg@k, err_ia@k, nrbp, map_ia, p_ia@k, "
        "subtopic_recall@k); a grade >= --relevance-level is relevant",
    )


def _cutoff_list(text: str) -> list[int]:
    """Parse ``1,5,10,20`` (argparse type)."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        msg = f"expected cutoffs separated by commas, like 1,5,10,20; got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not values or min(values) < 1:
        msg = f"expected cutoffs >= 1, like 1,5,10,20; got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return values


def _add_metric_option(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help=f"metric name, repeatable (default: {default})",
    )


def _add_resampling_options(
    parser: argparse.ArgumentParser, resamples: int, *, stated: str = ""
) -> None:
    parser.add_argument(
        "--n-resamples",
        type=int,
        default=resamples,
        metavar="N",
        help=f"bootstrap resamples and randomization-test permutations{stated} "
        f"(default {resamples})",
    )
    parser.add_argument("--seed", type=int, default=0, help="resampling seed (default 0)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankset",
        description="Evaluate retrieval runs: trec_eval-exact metrics on Polars.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--quiet", "-q", action="store_true", help=_QUIET_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_commands(commands)
    for command in commands.choices.values():
        # Also after the command (`rankset evaluate ... -q`); unset there, the top's stays.
        command.add_argument(
            "--quiet", "-q", action="store_true", default=argparse.SUPPRESS, help=_QUIET_HELP
        )
    return parser


def _add_commands(commands: Any) -> None:

    evaluate = commands.add_parser(
        "evaluate",
        help="score runs against labels",
        description="Score one or more runs against labels (qrels) and print a summary.",
    )
    _add_input_options(evaluate, runs_help="run files (TREC, JSONL, Parquet, ...)")
    _add_metric_option(evaluate, "ndcg@10 ap rr recall@100 precision@10")
    evaluate.add_argument("--k", type=int, default=None, help="cutoff for @k metrics")
    evaluate.add_argument(
        "--gold",
        metavar="FILE",
        help="runs of text chunks: gold texts per query (query_id, text[, gold_id, grade]; "
        "Parquet/CSV/JSONL); each chunk takes the id of the gold text it matches",
    )
    evaluate.add_argument(
        "--match",
        choices=("exact", "normalized", "contained", "json-escaped"),
        default="exact",
        help="how a chunk matches a gold text with --gold (default exact)",
    )
    evaluate.add_argument(
        "--ks",
        type=_cutoff_list,
        metavar="K,K,...",
        help="compute every metric without a fixed cutoff at each of these (e.g. 1,5,10,20) "
        "and print one row per system and k",
    )
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
    compare.add_argument(
        "--baseline",
        metavar="NAME",
        help="baseline system (with --all-pairs: compare every other system with it only)",
    )
    compare.add_argument(
        "--all-pairs",
        action="store_true",
        help="compare every pair of systems, each pair once, with a paired effect size",
    )
    compare.add_argument(
        "--test",
        dest="tests",
        action="append",
        choices=[*choices_of(Test), "randomized-tukey"],
        help="test, repeatable: randomization, t, wilcoxon (paired; default all three, or "
        "randomization with --all-pairs), tukey, randomized-tukey (family-wise over every "
        "system); t, wilcoxon and tukey need scipy",
    )
    compare.add_argument(
        "--correction",
        choices=(*choices_of(Correction), "none"),
        default="holm",
        help="multiple-testing correction over all rows of a test (default holm)",
    )
    compare.add_argument(
        "--alpha", type=float, default=0.05, help="significance level (default 0.05)"
    )
    _add_resampling_options(compare, 10000)
    compare.add_argument("--out", metavar="FILE.parquet", help="write the comparison to Parquet")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON")
    compare.add_argument(
        "--format",
        dest="table_format",
        choices=("latex", "markdown"),
        help="print a table for a paper instead: systems by metrics, best in bold, "
        "significance as superscript letters (--all-pairs) or daggers (against --baseline)",
    )
    compare.add_argument(
        "--decimals", type=int, default=4, metavar="N", help="digits in --format (default 4)"
    )
    compare.add_argument("--percent", action="store_true", help="--format on a 0-100 scale")

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
    _add_input_options(
        report,
        runs_help="run files",
        labels_help="labels file; repeat it to add other label sets of the same pairs (an "
        "LLM judge's), compared with the first in a 'Label sets' section",
    )
    _add_metric_option(report, "ndcg@10 ap recall@100 ra_nwg@10 proc@10 pct_proc@10")
    report.add_argument("--baseline", metavar="NAME", help="baseline system of the comparison")
    report.add_argument("-k", "--k", dest="k", type=int, default=10, help="diagnosis cutoff")
    report.add_argument("--k-max", type=int, default=20, metavar="N", help="largest curve k")
    report.add_argument("--title", default="rankset report", help="the page title")
    _add_resampling_options(report, 2000, stated=", stated in the page")
    report.add_argument(
        "--fused",
        metavar="NAME",
        help="the system name of a fused run among the runs: adds what fusion changed",
    )
    report.add_argument("--out", required=True, metavar="REPORT.html", help="output file")

    fuse = commands.add_parser(
        "fuse",
        help="combine runs (RRF, CombSUM, ...) into one run",
        description="Fuse runs into one run and write it (TREC text, or Parquet/CSV by "
        "extension); with --optimize, search a grid of settings on training queries first.",
    )
    fuse.add_argument("runs", nargs="+", metavar="RUN", help="two run files or more")
    fuse.add_argument("--method", default="rrf", help="fusion method (default rrf)")
    fuse.add_argument("--norm", choices=NORMS, help="score normalisation (score-based methods)")
    fuse.add_argument("--weights", type=float, nargs="+", metavar="W", help="one per run")
    for parameter in ("k", "gamma", "phi", "sigma", "segments", "w"):
        fuse.add_argument(f"--{parameter}", type=float, help=f"the method's {parameter}")
    fuse.add_argument("--depth", type=int, metavar="N", help="fuse each run's first N documents")
    fuse.add_argument("--name", default="fused", help="system name of the fused run")
    fuse.add_argument(
        "--buckets",
        type=int,
        default=1,
        metavar="N",
        help="fuse the queries in N hash buckets, one at a time (same output, less memory)",
    )
    fuse.add_argument("--out", required=True, metavar="FUSED", help="output run file")
    fuse.add_argument("--optimize", action="store_true", help="search the grid first")
    fuse.add_argument("--qrels", "--labels", dest="labels", metavar="LABELS")
    fuse.add_argument("--metric", default="ndcg@10", help="metric to optimise (ndcg@10)")
    fuse.add_argument("--train-queries", metavar="FILE", help="query ids to tune on, one per line")
    fuse.add_argument(
        "--grid",
        action="append",
        metavar="KEY=V1,V2",
        help="values to try for a setting, e.g. k=10,60,100 (repeatable)",
    )
    fuse.add_argument("--json", action="store_true", help="print the search table as JSON")

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

    agreement = commands.add_parser(
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
    agreement.add_argument(
        "--out", metavar="FILE.parquet", help="write the intervals (judge, statistic, ...)"
    )
    agreement.add_argument("--json", action="store_true", help="print the table as JSON")
    _add_resampling_options(agreement, 1000)

    stability = commands.add_parser(
        "stability",
        help="does the order of the systems hold under other labels?",
        description="Rank the systems by their mean metric under each label set and compare "
        "every order with the first label set's: Kendall's tau-b, tau_AP, rank-biased "
        "overlap, rank changes, and whether the top system stays on top. Label sets are "
        "named after their files.",
    )
    _add_input_options(
        stability,
        runs_help="run files (two systems or more)",
        labels_help="labels file, twice or more: the first is the reference",
    )
    stability.add_argument(
        "-m", "--metric", default="ndcg@10", help="the metric that ranks the systems (ndcg@10)"
    )
    stability.add_argument(
        "--rbo-p", type=float, default=0.9, metavar="P", help="RBO persistence (default 0.9)"
    )
    stability.add_argument("--json", action="store_true", help="print both tables as JSON")
    _add_resampling_options(stability, 1000)

    measures = commands.add_parser("measures", help="list the available measures")
    measures.add_argument(
        "--markdown",
        action="store_true",
        help="print the full reference table (docs/measures.md) as Markdown",
    )
