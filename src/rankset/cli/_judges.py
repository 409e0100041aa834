"""``rankset judges ...``: how far a judge's labels can stand in for the humans'.

A command group: :func:`add_judges` creates ``judges`` and one parser per subcommand,
each added by its own ``_add_<name>`` function and run by the function that
:data:`_SUBCOMMANDS` names; ``JUDGE_COMMANDS`` routes ``judges`` to the chosen one. A new
subcommand is one ``_add_...`` function, one runner and one entry in each table.

``meta-evaluate`` correlates each judge's leaderboard with the truth's, as
``autojudge-evaluate meta-evaluate`` does (:func:`rankset.label_quality.meta_evaluate`),
from runs and label sets or from leaderboard files. ``simulate`` replays human-budget
plans against complete human labels (:func:`rankset.label_quality.simulate_budget`).
``calibrate`` fits a judge's grades to the expected human gain
(:func:`rankset.label_quality.calibrate`), shows the fit and writes calibrated labels.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rankset.cli._options import add_evaluation_options, add_metrics, add_quiet
from rankset.cli._output import dump_json, render_table
from rankset.errors import ParameterError

__all__ = ["JUDGE_COMMANDS", "add_judges"]

# read_leaderboard's formats (rankset.io), named here for the parser's choices
_FORMATS = ("ir_measures", "trec_eval", "tot", "ranking", "jsonl")
_MISSING = ("error", "warn", "skip", "default")
# rankset.label_quality.PLANS, named here so that building the parser imports no numpy
_PLANS = ("random", "stratified", "uncertainty", "lara", "influence")


def add_judges(commands: Any) -> argparse.ArgumentParser:
    """``rankset judges SUBCOMMAND ...``: the group and each of its subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "judges",
        allow_abbrev=False,
        help="judges (LLM labels...) against human labels: meta-evaluate, simulate, calibrate",
        description="How far a judge's labels can stand in for human labels.",
    )
    subcommands = parser.add_subparsers(dest="judges_command", metavar="SUBCOMMAND")
    subcommands.required = True
    for add in (_add_meta_evaluate, _add_simulate, _add_calibrate):
        add_quiet(add(subcommands), default=argparse.SUPPRESS)
    return parser


def _add_meta_evaluate(subcommands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "meta-evaluate",
        allow_abbrev=False,
        help="correlate each judge's leaderboard with the truth's (autojudge-evaluate's)",
        description="Rank the systems under the truth and under each judge, and correlate "
        "the two leaderboards: kendall, pearson, spearman, tauap_b, tau_gap, kendall@10, "
        "as autojudge-evaluate meta-evaluate names and computes them, each with a "
        "bootstrap interval over topics. Either RUN ... --truth QRELS --judge [NAME=]QRELS "
        "(rankset evaluates the runs under each label set), or --truth-leaderboard F "
        "--judge-leaderboard [NAME=]F (leaderboard files, no runs).",
    )
    add_evaluation_options(
        parser, runs_help="run files, evaluated under every label set", runs_optional=True
    )
    add_metrics(parser, "ndcg@10")
    judges = parser.add_argument_group("judges")
    judges.add_argument("--truth", dest="labels", metavar="QRELS", help="the human labels")
    judges.add_argument(
        "--judge", action="append", metavar="[NAME=]QRELS", help="a judge's labels, repeatable"
    )
    judges.add_argument("--truth-leaderboard", metavar="FILE", help="the truth's leaderboard")
    judges.add_argument(
        "--judge-leaderboard",
        action="append",
        metavar="[NAME=]FILE",
        help="a judge's leaderboard (file or folder), repeatable",
    )
    judges.add_argument("--format", choices=_FORMATS, default="ir_measures",
                        help="the leaderboards' format (default ir_measures)")  # fmt: skip
    judges.add_argument("--truth-format", choices=_FORMATS,
                        help="the truth leaderboard's format (default: --format)")  # fmt: skip
    judges.add_argument("--header", action="store_true", help="skip each file's first line")
    _add_meta_options(parser.add_argument_group("meta-evaluation"))
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per line per judge and metric pair")  # fmt: skip
    return parser


def _add_meta_options(group: Any) -> None:
    group.add_argument("--truth-metric", action="append", metavar="METRIC",
                       help="the truth's metric of each -m (default: the same)")  # fmt: skip
    group.add_argument("--all-pairs", action="store_true",
                       help="every truth metric against every judge metric")  # fmt: skip
    group.add_argument("--correlation", action="append", metavar="C",
                       help="kendall, pearson, spearman, tauap_b, tau_gap or NAME@K, "
                       "repeatable (default: all six)")  # fmt: skip
    group.add_argument("--on-missing", choices=_MISSING, default="error",
                       help="a system missing on one side (default error)")  # fmt: skip
    group.add_argument("--only-shared-topics", action="store_true",
                       help="the truth's topics a judge has too (means recomputed)")  # fmt: skip
    group.add_argument("--topic", action="append", metavar="ID", help="only this topic")
    group.add_argument("--only-shared-runs", action="store_true",
                       help="the systems both leaderboards rank")  # fmt: skip
    group.add_argument("--truth-drop-aggregate", action="store_true",
                       help="recompute the truth's means from its topics")  # fmt: skip
    group.add_argument("--judge-drop-aggregate", action="store_true",
                       help="recompute the judges' means from their topics")  # fmt: skip
    group.add_argument("--per-topic", action="store_true",
                       help="also each topic's correlations")  # fmt: skip
    group.add_argument("--n-bootstrap", type=int, default=1000, metavar="N",
                       help="topic draws of the intervals (default 1000; 0: none)")  # fmt: skip
    group.add_argument("--confidence", type=float, default=0.95,
                       help="the intervals' level (default 0.95)")  # fmt: skip
    group.add_argument("--seed", type=int, default=0, help="resampling seed (default 0)")


def _add_simulate(subcommands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "simulate",
        allow_abbrev=False,
        help="replay human-budget plans against complete human labels",
        description="For each plan and seed, choose the pairs people would judge, reveal "
        "their human grades, and rank the systems on those and the judge's grades "
        "elsewhere: Kendall's tau against the full-human leaderboard (mean and minimum "
        "over the seeds), the coverage of the 95%% intervals of the systems' means, and "
        "their width over intervals from the same human labels alone.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    parser.add_argument("--truth", required=True, metavar="QRELS", help="complete human labels")
    parser.add_argument("--judge", required=True, metavar="QRELS", help="the judge's labels")
    parser.add_argument("-m", "--metric", default="ndcg@10", help="ndcg@k or dcg@k")
    parser.add_argument(
        "--budget",
        default="10%",
        type=_budget,
        help="a share of the pool's pairs (10%%, 0.1) or a count (default 10%%)",
    )
    parser.add_argument("--seeds", type=int, default=20, help="replays per plan (default 20)")
    parser.add_argument(
        "--plan",
        action="append",
        choices=_PLANS,
        metavar="PLAN",
        help=f"a plan to replay, repeatable: {', '.join(_PLANS)} (default all)",
    )
    parser.add_argument("--confidence", type=float, default=0.95,
                        help="the intervals' level (default 0.95)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="one JSON object per plan")
    return parser


def _budget(value: str) -> float | int:
    """``10%`` and ``0.1`` are shares of the pool; ``500`` is a count of pairs."""
    text = value.strip()
    try:
        if text.endswith("%"):
            return float(text[:-1]) / 100
        number = float(text)
    except ValueError:
        msg = f"expected a share (10%, 0.1) or a count of pairs, got {value!r}"
        raise argparse.ArgumentTypeError(msg) from None
    return int(number) if number >= 1 and number.is_integer() else number


def _simulate(args: argparse.Namespace) -> int:
    from rankset.label_quality import simulate_budget

    table = simulate_budget(
        args.runs,
        args.truth,
        args.judge,
        metric=args.metric,
        budget=args.budget,
        seeds=args.seeds,
        plans=args.plan or _PLANS,
        confidence=args.confidence,
    )
    if args.json:
        print("\n".join(json.dumps(row, allow_nan=False) for row in table.to_dicts()))
        return 0
    rows = [[row[0], f"{row[1]:.1f}", *(_number(v) for v in row[2:])] for row in table.rows()]
    print(render_table(table.columns, rows))
    return 0


def _add_calibrate(subcommands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "calibrate",
        allow_abbrev=False,
        help="fit a judge's grades to the expected human gain (isotonic)",
        description="On the pairs with both labels, fit the human grade on the judge's "
        "score, monotone; print the reliability table, and with runs the systems' "
        "means under the humans, the raw judge and the calibrated judge; --out writes "
        "the judge's labels with the fitted gains.",
    )
    parser.add_argument("runs", nargs="*", metavar="RUN", help="run files (optional)")
    parser.add_argument("--truth", required=True, metavar="QRELS", help="the human labels")
    parser.add_argument("--judge", required=True, metavar="QRELS", help="the judge's labels")
    parser.add_argument("--score", help="the judge's column to fit (default: expected_grade "
                        "when read, else the grade)")  # fmt: skip
    parser.add_argument("-m", "--metric", default="ndcg@10",
                        help="the measure of the means (default ndcg@10)")  # fmt: skip
    parser.add_argument("--out", metavar="FILE", help="write the calibrated labels here")
    parser.add_argument("--json", action="store_true", help="the table (and means) as JSON")
    return parser


def _calibrate(args: argparse.Namespace) -> int:
    from rankset.io import read_judgments, write_labels
    from rankset.label_quality import calibrate, calibration_effects

    judge = read_judgments(args.judge, aggregate=None)
    fit = calibrate(judge, args.truth, score=args.score)
    effects = (
        calibration_effects(args.runs, judge, args.truth, fit, args.metric) if args.runs else None
    )
    if args.out:
        write_labels(fit.apply(judge).select("query_id", "doc_id", "grade"), args.out)
    if args.json:
        document: dict[str, Any] = {
            "score": fit.score,
            "n_pairs": fit.n_pairs,
            "n_judge_only": fit.n_judge_only,
            "table": fit.table.to_dicts(),
        }
        if effects is not None:
            document["means"] = effects.to_dicts()
        print(dump_json(document))
        return 0
    rows = [
        [f"{score:g}", str(n), _number(human), _number(fitted)]
        for score, n, human, fitted in fit.table.select("score", "n", "human_mean", "fitted").rows()
    ]
    text = render_table([fit.score, "pairs", "human_mean", "fitted"], rows)
    if effects is not None:
        means = [[row[0], *(_number(v) for v in row[1:])] for row in effects.rows()]
        text += "\n\n" + render_table(effects.columns, means)
    print(text)
    return 0


def _named(values: list[str] | None, flag: str) -> dict[str, str]:
    """``[NAME=]PATH`` values as ``{name: path}``; a name defaults to the file's stem.

    The stem is the one the readers name runs and label sets by (``display_stem``).
    """
    from rankset.io._shared import display_stem

    named: dict[str, str] = {}
    for value in values or []:
        name, equals, path = value.partition("=")
        if not equals:
            path = value
            name = display_stem(Path(value))
        if not name or name in named:
            msg = f"{flag} {value}: each judge needs a name of its own (NAME=PATH)"
            raise ParameterError(msg)
        named[name] = path
    return named


def _meta_evaluate(args: argparse.Namespace) -> int:
    from rankset.label_quality import meta_evaluate

    drop: bool | str = False
    if args.truth_drop_aggregate or args.judge_drop_aggregate:
        both = args.truth_drop_aggregate and args.judge_drop_aggregate
        drop = True if both else ("truth" if args.truth_drop_aggregate else "judges")
    common: dict[str, Any] = {
        "metrics": args.metrics,
        "truth_metrics": args.truth_metric,
        "pairs": "all" if args.all_pairs else "same",
        "on_missing": args.on_missing,
        "only_shared_topics": args.only_shared_topics,
        "topics": args.topic,
        "only_shared_runs": args.only_shared_runs,
        "drop_aggregate": drop,
        "per_topic": args.per_topic,
        "n_bootstrap": args.n_bootstrap,
        "confidence": args.confidence,
        "seed": args.seed,
    }
    if args.correlation:
        common["correlations"] = args.correlation
    if args.truth_leaderboard is not None or args.judge_leaderboard:
        if args.runs or args.labels or args.judge:
            msg = "Give runs with --truth and --judge, or leaderboards, not both."
            raise ParameterError(msg)
        judges = _named(args.judge_leaderboard, "--judge-leaderboard")
        if args.truth_leaderboard is None or not judges:
            msg = "--truth-leaderboard and one --judge-leaderboard or more are needed."
            raise ParameterError(msg)
        result = meta_evaluate(
            args.truth_leaderboard, judges, format=args.format,
            truth_format=args.truth_format, header=args.header, **common,
        )  # fmt: skip
    else:
        from rankset.cli._commands import option_values

        judges = _named(args.judge, "--judge")
        if not args.runs or args.labels is None or not judges:
            msg = "meta-evaluate needs RUN ..., --truth QRELS and one --judge or more."
            raise ParameterError(msg)
        common["metrics"] = args.metrics or ["ndcg@10"]
        result = meta_evaluate(args.labels, judges, runs=args.runs, **common, **option_values(args))
    print(_rendered(result, as_json=args.json))
    return 0


def _rendered(result: Any, *, as_json: bool) -> str:
    """Render the correlations (and each topic's, when computed): a table or JSON lines."""
    records = result.to_dicts()
    per_topic = result.per_topic
    if as_json:
        lines = [json.dumps(json.loads(dump_json(r)), allow_nan=False) for r in records]
        if per_topic is not None:
            wide = per_topic.pivot(on="correlation", index=["judge", "truth_metric", "metric",
                                   "query_id"], values="value", maintain_order=True)  # fmt: skip
            lines += [json.dumps(json.loads(dump_json(r))) for r in wide.to_dicts()]
        return "\n".join(lines)
    names = result.correlations["correlation"].unique(maintain_order=True).to_list()
    header = ["judge", "truth_metric", "metric", *names, "systems", "topics"]
    rows = [
        [r["judge"], r["truth_metric"], r["metric"],
         *(_cell(r[n], r[f"{n}_ci"]) for n in names), str(r["n_systems"]), str(r["n_topics"])]
        for r in records
    ]  # fmt: skip
    text = render_table(header, rows)
    if per_topic is not None:
        wide = per_topic.pivot(on="correlation", index=["judge", "truth_metric", "metric",
                               "query_id"], values="value", maintain_order=True)  # fmt: skip
        cells = [[_number(v) if isinstance(v, float) else str(v) for v in row]
                 for row in wide.rows()]  # fmt: skip
        text += "\n\n" + render_table(wide.columns, cells)
    return text


def _number(value: float | None) -> str:
    return "NA" if value is None or value != value else f"{value:.4f}"


def _cell(value: float | None, interval: list[float | None]) -> str:
    low, high = interval
    if low is None or high is None:
        return _number(value)
    return f"{_number(value)} [{_number(low)}, {_number(high)}]"


_SUBCOMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "meta-evaluate": _meta_evaluate,
    "simulate": _simulate,
    "calibrate": _calibrate,
}


def _judges(args: argparse.Namespace) -> int:
    return _SUBCOMMANDS[args.judges_command](args)


#: The group, routed to its subcommand.
JUDGE_COMMANDS = {"judges": _judges}
