"""The options the subcommands share, declared once so each is spelled the same everywhere.

The rule, for every subcommand but ``rankset trec_eval`` (which keeps trec_eval's own
flags exactly):

* inputs: the runs are positional (``RUN ...``), the labels ``--qrels LABELS``;
* metrics: ``-m/--metric METRIC``, repeatable where a command measures several (evaluate,
  compare, curves, report) and naming the one metric where a command uses one (stability,
  fuse);
* one cutoff: ``-k/--k K``; a range of cutoffs 1..N: ``--k-max N`` (curves; the pages:
  ``--depth N``); a list of cutoffs: ``--ks K,K,...`` (evaluate). In ``fuse``, ``--k`` is the fusion
  method's parameter ``k`` (RRF's constant), as in :func:`rankset.fuse`;
* no progress display: ``--quiet``, before or after the subcommand;
* outputs: ``--out FILE`` (the command's result), ``--per-query TABLE`` (per-query
  values), ``--json`` (stdout as JSON); a table is written as its name says (Parquet,
  CSV, JSON lines, JSON), ``-`` is CSV on stdout (:mod:`rankset.cli._files`);
* the rest of the evaluation options (``--relevance-level/-l``, ``--scale``,
  ``--duplicates``, ``--order``, ``--max-depth/-M``, ``--judged-only/-J``,
  ``--ignore-identical-ids``, ``--engine``, ``--buckets``, ...) are the names of
  :class:`~rankset.evaluation.EvaluateOptions`' fields with ``-`` for ``_``; the
  one-letter forms are trec_eval's.

Older spellings stay accepted, without a line in ``--help`` (:func:`hidden_alias`):
``--labels`` for ``--qrels``, ``-q`` for ``--quiet``, ``--keep-best-duplicate`` for
``--duplicates keep-best``, ``-k/--k`` for ``curves --k-max``, ``--depth`` for
``fuse --max-depth``. Abbreviated long options are not accepted (``--k`` used to be an
ambiguous prefix of ``--k-max`` and ``--keep-best-duplicate``).

Vocabularies come from :mod:`rankset._typing` and defaults from
:class:`~rankset.evaluation.EvaluateOptions`, so the CLI spells neither again.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Final

from rankset._typing import (
    DatasetChecks,
    Engine,
    MissingPolicy,
    OrderPolicy,
    ScorePrecision,
    choices_of,
)
from rankset.errors import ParameterError
from rankset.evaluation import EvaluateOptions

__all__ = [
    "add_buckets",
    "add_cutoff",
    "add_cutoff_range",
    "add_evaluation_options",
    "add_inputs",
    "add_max_depth",
    "add_metrics",
    "add_names",
    "add_output",
    "add_quiet",
    "add_resampling",
    "add_testing",
    "correction_of",
    "cutoff_list",
    "expand_official",
    "hidden_alias",
]

# The library's defaults, which the options below show and keep.
_DEFAULTS = EvaluateOptions()

Parser = argparse.ArgumentParser | argparse._ArgumentGroup


def hidden_alias(parser: Parser, *flags: str, dest: str, **settings: Any) -> None:
    """Accept ``flags`` as an older spelling of the option stored at ``dest``; no help line.

    Its default is left out, so the visible option's default stands.
    """
    parser.add_argument(
        *flags, dest=dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **settings
    )


def add_quiet(parser: Parser, *, default: Any = False) -> None:
    """``--quiet`` (and the hidden ``-q``): no progress display."""
    settings: dict[str, Any] = {"action": "store_true"}
    parser.add_argument(
        "--quiet", default=default, help="no progress display on stderr", **settings
    )
    hidden_alias(parser, "-q", dest="quiet", **settings)


def add_inputs(
    parser: argparse.ArgumentParser,
    *,
    runs_help: str,
    labels_help: str = "labels file; optional when the runs carry labels (JSONL samples)",
    repeat_labels: bool = False,
    runs_optional: bool = False,
) -> None:
    """``RUN ...`` and ``--qrels LABELS`` (repeatable with ``repeat_labels``).

    With ``runs_optional`` the runs may come from elsewhere (``dashboard --store``).
    """
    group = parser.add_argument_group("inputs")
    group.add_argument("runs", nargs="*" if runs_optional else "+", metavar="RUN", help=runs_help)
    settings: dict[str, Any] = {
        "metavar": "LABELS",
        "action": "append" if repeat_labels else "store",
    }
    group.add_argument("--qrels", dest="labels", help=labels_help, **settings)
    hidden_alias(group, "--labels", dest="labels", **settings)


def add_names(parser: Parser) -> None:
    """``--name NAME``, once per run."""
    parser.add_argument(
        "--name",
        dest="names",
        action="append",
        metavar="NAME",
        help="system name for each run, in order (repeat once per run)",
    )


def add_max_depth(parser: Parser, help: str) -> None:
    """``--max-depth/-M N``: the first N documents of each ranking (trec_eval's ``-M``)."""
    parser.add_argument("--max-depth", "-M", type=int, metavar="N", help=help)


def add_buckets(parser: Parser, *, default: int | None, help: str) -> None:
    """``--buckets N``: the queries in N hash buckets, one at a time."""
    parser.add_argument("--buckets", type=int, default=default, metavar="N", help=help)


def add_metrics(parser: argparse.ArgumentParser, default: str, *, one: str = "") -> None:
    """``-m/--metric METRIC``: repeatable, or with ``one`` (its help) the command's one metric."""
    group = parser.add_argument_group("metrics")
    if one:
        group.add_argument(
            "-m", "--metric", default=default, metavar="METRIC", help=f"{one} (default {default})"
        )
        return
    group.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        metavar="METRIC",
        help=f"metric name, repeatable (default: {default}); 'official': the official "
        "measures of the --qrels collection (irds:dl19-passage: nDCG@10, RR(rel=2), "
        "AP(rel=2))",
    )


def expand_official(args: argparse.Namespace) -> None:
    """Replace ``-m official`` by the official measures of the ``--qrels`` collection.

    The collection is the one the labels name (``irds:dl19-passage``, or a qrels file
    named as pyserini names it): :func:`rankset.io.official_measures`. A command that
    takes one metric gets the collection's only one, or an error listing them.
    """
    from rankset.io._shared import with_official_measures

    if not hasattr(args, "labels"):
        return
    many = getattr(args, "metrics", None)
    if many:
        args.metrics = with_official_measures(many, args.labels)
    one = getattr(args, "metric", None)
    if isinstance(one, str):
        measures = with_official_measures([one], args.labels)
        if len(measures) > 1:
            msg = (
                f"-m official names {len(measures)} measures for these labels "
                f"({', '.join(map(str, measures))}); this command uses one: name it "
                f"(-m {measures[0]})."
            )
            raise ParameterError(msg)
        args.metric = measures[0]


def add_cutoff(parser: Parser, *, default: int | None, help: str) -> None:
    """``-k/--k K``: the one cutoff."""
    parser.add_argument("-k", "--k", dest="k", type=int, default=default, metavar="K", help=help)


def add_cutoff_range(parser: Parser, *, help: str, k_alias: bool = False) -> None:
    """``--k-max N``: cutoffs 1..N; with ``k_alias``, ``-k/--k`` too (hidden)."""
    parser.add_argument("--k-max", type=int, default=20, metavar="N", help=help)
    if k_alias:  # a command with no single cutoff: --k is what its user means by --k-max
        hidden_alias(parser, "-k", "--k", dest="k_max", type=int)


def cutoff_list(text: str) -> list[int]:
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


#: The metavar of a table output; its help then names the formats (rankset.cli._files).
TABLE: Final = "TABLE"
_TABLE_FORMATS_HELP: Final = " (.parquet, .csv, .jsonl or .json, as named; - for CSV on stdout)"


def add_output(
    parser: argparse.ArgumentParser,
    *,
    json: str | None = None,
    out: str | None = None,
    out_metavar: str = TABLE,
    out_required: bool = False,
    per_query: str | None = None,
) -> None:
    """``--out FILE``, ``--per-query TABLE``, ``--json``: those given a help text.

    A table output's help says which formats its name may ask for.
    """
    group = parser.add_argument_group("output")
    if out is not None:
        if out_metavar == TABLE:
            out += _TABLE_FORMATS_HELP
        group.add_argument("--out", required=out_required, metavar=out_metavar, help=out)
    if per_query is not None:
        group.add_argument("--per-query", metavar=TABLE, help=per_query + _TABLE_FORMATS_HELP)
    if json is not None:
        group.add_argument("--json", action="store_true", help=json)


def add_resampling(parser: argparse.ArgumentParser, resamples: int, *, stated: str = "") -> None:
    """``--n-resamples N`` and ``--seed S``."""
    group = parser.add_argument_group("resampling")
    group.add_argument(
        "--n-resamples",
        type=int,
        default=resamples,
        metavar="N",
        help=f"bootstrap resamples and randomization-test permutations{stated} "
        f"(default {resamples})",
    )
    group.add_argument("--seed", type=int, default=0, help="resampling seed (default 0)")


def add_testing(
    parser: argparse.ArgumentParser,
    *,
    tests: Sequence[str] = ("randomization", "t", "wilcoxon"),
    resamples: int | None = None,
    alpha: bool = True,
) -> None:
    """``--test``, ``--correction``, ``--alpha``, ``--n-resamples`` and ``--seed``.

    The options of every command that tests one system against another (the pages, the
    gate), spelled as ``rankset compare`` spells them. ``resamples`` None: the pages'
    policy (10,000, more for the randomization test when the comparisons need them).
    """
    group = parser.add_argument_group("tests and resampling")
    group.add_argument(
        "--test",
        choices=tests,
        default="randomization",
        help=f"the paired test: {', '.join(tests)} (default randomization; t and "
        "wilcoxon need scipy)",
    )
    group.add_argument(
        "--correction",
        choices=("holm", "bonferroni", "bh", "none"),
        default="holm",
        help="multiple-testing correction over the compared rows (default holm)",
    )
    if alpha:
        group.add_argument(
            "--alpha", type=float, default=0.05, help="significance level (default 0.05)"
        )
    default = (
        "10000, more for the randomization test when the comparisons need them"
        if resamples is None
        else f"{resamples}"
    )
    group.add_argument(
        "--n-resamples",
        type=int,
        default=resamples,
        metavar="N",
        help=f"bootstrap resamples and randomization-test permutations (default {default})",
    )
    group.add_argument("--seed", type=int, default=0, help="resampling seed (default 0)")


def correction_of(args: argparse.Namespace) -> Any:
    """``--correction`` as the library takes it (``none``: None)."""
    return None if args.correction == "none" else args.correction


def add_evaluation_options(
    parser: argparse.ArgumentParser,
    *,
    runs_help: str,
    labels_help: str | None = None,
    runs_optional: bool = False,
) -> None:
    """Add the inputs and every option of :class:`EvaluateOptions` the CLI sets.

    With ``labels_help``, ``--qrels`` repeats (label sets: the first is the reference).
    """
    if labels_help is None:
        add_inputs(parser, runs_help=runs_help, runs_optional=runs_optional)
    else:
        add_inputs(
            parser,
            runs_help=runs_help,
            labels_help=labels_help,
            repeat_labels=True,
            runs_optional=runs_optional,
        )
    add_names(parser.add_argument_group("names"))
    parser.add_argument(
        "--costs",
        metavar="FILE",
        help="per-query costs: [system,] query_id and any of latency_ms, tokens_in, "
        "tokens_out, cost (CSV, TSV, Parquet or JSONL); summarised per system",
    )
    _add_label_options(parser.add_argument_group("labels"))
    _add_ranking_options(parser.add_argument_group("rankings"))
    _add_engine_options(parser.add_argument_group("engine"))


def _add_label_options(group: Parser) -> None:
    """Relevance level, scale, and the labels beside the qrels."""
    group.add_argument(
        "--relevance-level",
        "-l",
        type=float,
        default=_DEFAULTS.relevance_level,
        metavar="N",
        help="grade at or above which binary metrics count a document relevant "
        "(default 1; sample files whose expected_output maps ids to gains: any gain > 0)",
    )
    group.add_argument(
        "--scale",
        default=None,
        metavar="NAME",
        help="grade scale of the RAG metrics: rag5 (grades 1-5), trec_dl (0-3), binary "
        "(0-1); by default rag5, or the preset the labels fit (said on stderr)",
    )
    group.add_argument(
        "--missing",
        choices=choices_of(MissingPolicy),
        default=_DEFAULTS.missing,
        help="queries in the labels but not the run: skip (default) or score as empty",
    )
    group.add_argument(
        "--dataset-checks",
        choices=choices_of(DatasetChecks),
        default=_DEFAULTS.dataset_checks,
        help="labels in dataset JSON that break its rules (a query without relevant "
        "documents, an ungraded one): error (default), or warn and read on",
    )
    group.add_argument(
        "--answers",
        metavar="FILE",
        help="acceptable answers for containment@k: 'query_id<TAB>answer' lines or JSONL",
    )
    group.add_argument(
        "--nuggets",
        metavar="FILE",
        help="nugget labels for nugget_coverage@k, alpha_ndcg@k...: Parquet/CSV/JSONL with "
        "query_id, nugget_id, doc_id, support, importance, or nuggetizer's assignment JSONL "
        "(without --qrels, the labels they imply)",
    )
    group.add_argument(
        "--subtopics",
        metavar="FILE",
        help="subtopic labels (TREC diversity qrels: 'query subtopic doc grade' lines) for "
        "the intent-aware measures (alpha_ndcg@k, err_ia@k, nrbp, map_ia, p_ia@k, "
        "subtopic_recall@k); a grade >= --relevance-level is relevant",
    )


def _add_ranking_options(group: Parser) -> None:
    """Order, duplicates, depth and pool of the rankings."""
    group.add_argument(
        "--order",
        choices=choices_of(OrderPolicy),
        default=_DEFAULTS.order,
        help="order rankings by score (ties: doc id descending) or by the rank column",
    )
    group.add_argument(
        "--score-precision",
        choices=choices_of(ScorePrecision),
        default=_DEFAULTS.score_precision,
        help="float64 (default): scores as trec_eval 10.0 reads them; float32: rounded as "
        "trec_eval 9.0.8 and pytrec_eval store them, so near-equal scores tie",
    )
    group.add_argument(
        "--duplicates",
        choices=("error", "keep-best", "in-place"),
        help="a document twice in one ranking: error (default), keep-best (its best copy), "
        "or in-place (every copy keeps its slot, later copies count as non-relevant)",
    )
    hidden_alias(
        group, "--keep-best-duplicate", dest="duplicates", action="store_const", const="keep-best"
    )
    add_max_depth(group, "keep only the first N documents of each ranking (trec_eval's -M)")
    group.add_argument(
        "--judged-only",
        "-J",
        action="store_true",
        help="drop retrieved documents without a label of grade >= 0 first (trec_eval's -J)",
    )
    group.add_argument(
        "--ignore-identical-ids",
        action="store_true",
        default=_DEFAULTS.ignore_identical_ids,
        help="drop retrieved documents whose id is the query's id before scoring, as BEIR "
        "and MTEB do (ArguAna, Quora); the rows dropped are counted per system",
    )
    group.add_argument(
        "--pool",
        metavar="POOL",
        help="candidate run used as the pool of proc@k for every system "
        "(default: each system's own retrieved list)",
    )
    group.add_argument(
        "--pool-depth",
        type=int,
        metavar="N",
        help="keep only the first N documents of each pool (e.g. the reranked depth)",
    )


def _add_engine_options(group: Parser) -> None:
    """Where and how the pass over the runs runs."""
    group.add_argument(
        "--engine",
        choices=[engine for engine in choices_of(Engine) if engine != "dask"],  # see --dask
        default=_DEFAULTS.engine,
        help="Polars engine for the pass over the runs (default auto = streaming; gpu needs "
        "cudf-polars, else it warns and streams)",
    )
    add_buckets(
        group,
        default=_DEFAULTS.buckets,
        help="larger-than-memory mode: read the runs in N passes, each over the queries of "
        "one hash bucket (same values, about N times less memory)",
    )
    group.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="evaluate on a Dask cluster, one task per bucket of queries: a scheduler "
        "address (tcp://host:8786) or local:N for N local worker processes (needs "
        "rankset[dask]; same values as one machine)",
    )
