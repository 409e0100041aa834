"""``rankset log``, ``rankset history`` and ``rankset gate``: the experiment store on the CLI.

Thin wrappers over :mod:`rankset.experiments`: ``log`` evaluates runs and appends one
entry to a store; ``history`` lists the entries' means; ``gate`` evaluates a run against
a baseline run or a store entry and exits 0 (no metric fell past the rule), 1 (one did)
or 2 (bad input).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rankset.cli._options import (
    add_evaluation_options,
    add_metrics,
    add_output,
    add_testing,
    correction_of,
)
from rankset.cli._output import dump_json, frame_text, progress, records
from rankset.errors import ParameterError
from rankset.evaluation import DEFAULT_METRICS

__all__ = ["EXPERIMENT_COMMANDS", "add_gate", "add_history", "add_log"]

_GATE_METRICS = "ndcg@10"


def add_log(commands: Any) -> argparse.ArgumentParser:
    """``rankset log RUN ... --qrels LABELS -m ... --store DIR [--tag T] [--meta k=v ...]``."""
    log: argparse.ArgumentParser = commands.add_parser(
        "log",
        allow_abbrev=False,
        help="evaluate runs and append the result to an experiment store",
        description="Evaluate runs and append the result, with the run and label hashes, "
        "the options, the git commit and your key=value notes, to a store folder.",
    )
    add_evaluation_options(log, runs_help="run files")
    add_metrics(log, " ".join(DEFAULT_METRICS))
    _add_store(log, required=True)
    log.add_argument("--tag", help="a label for this entry (e.g. a branch or 'baseline')")
    log.add_argument(
        "--meta",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a note kept with the entry, repeatable",
    )
    add_output(log, json="print the entry id and summary as JSON")
    return log


def add_history(commands: Any) -> argparse.ArgumentParser:
    """``rankset history --store DIR [-m METRIC] [--tag T] [--json]``."""
    history: argparse.ArgumentParser = commands.add_parser(
        "history",
        allow_abbrev=False,
        help="the entries of an experiment store, oldest first",
        description="One row per logged entry, system and metric: mean and bootstrap CI.",
    )
    _add_store(history, required=True)
    group = history.add_argument_group("metrics")
    group.add_argument("-m", "--metric", metavar="METRIC", help="only this metric")
    history.add_argument("--tag", help="only the entries with this tag")
    history.add_argument(
        "--drop-duplicates",
        action="store_true",
        help="leave out entries that repeat an earlier one (same runs, labels, options)",
    )
    history.add_argument(
        "--chart",
        metavar="FILE",
        help="also draw the metric's mean over the entries, one line per system "
        "(.html needs nothing more; .png/.svg need rankset[render])",
    )
    add_output(history, json="print the rows as JSON")
    return history


def add_gate(commands: Any) -> argparse.ArgumentParser:
    """``rankset gate RUN --qrels LABELS -m ... (--baseline RUN | --store DIR --against T)``."""
    gate: argparse.ArgumentParser = commands.add_parser(
        "gate",
        allow_abbrev=False,
        help="fail (exit 1) when a metric fell against a baseline",
        description="Evaluate a run and compare it with a baseline run or the newest store "
        "entry with a tag. Exit 0 when no metric fell past the rule, 1 when one did, "
        "2 on bad input. With --max-drop and --alpha both, a metric fails when it fell "
        "by more than the drop and the paired test is significant; with one of them, "
        "that rule alone; with neither, any fall fails.",
    )
    add_evaluation_options(gate, runs_help="the candidate run file(s)")
    add_metrics(gate, _GATE_METRICS)
    baseline = gate.add_argument_group("baseline (one of)")
    baseline.add_argument("--baseline", metavar="RUN", help="the baseline run file")
    _add_store(baseline, required=False)
    baseline.add_argument(
        "--against", metavar="TAG", help="with --store: the newest entry with this tag"
    )
    rules = gate.add_argument_group("rules")
    rules.add_argument(
        "--max-drop",
        metavar="D",
        help="largest allowed fall: absolute (0.01) or relative to the baseline (2%%)",
    )
    rules.add_argument(
        "--alpha",
        type=float,
        metavar="A",
        help="fail only drops significant at A (after --correction)",
    )
    rules.add_argument(
        "--coverage-k",
        type=int,
        default=10,
        metavar="K",
        help="judged@K of the candidate against the baseline's: a warning when it fell",
    )
    rules.add_argument(
        "--max-increase",
        action="append",
        metavar="COST=LIMIT",
        help="fail when a cost's mean rose past LIMIT: latency_ms=10%% (relative) or "
        "tokens_in=200 (absolute); needs --costs (the candidate's, and the baseline RUN's or "
        "those logged with the store entry); repeatable",
    )
    rules.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="gate against a store entry evaluated with other options or labels anyway "
        "(refused by default: exit 2 naming the difference)",
    )
    add_testing(gate, tests=("randomization", "t"), resamples=10_000, alpha=False)
    output = gate.add_argument_group("report")
    output.add_argument(
        "--markdown",
        metavar="FILE",
        help='append a Markdown summary to FILE (e.g. "$GITHUB_STEP_SUMMARY")',
    )
    output.add_argument("--json", action="store_true", help="print the gate's rows as JSON")
    return gate


def _add_store(parser: Any, *, required: bool) -> None:
    parser.add_argument("--store", required=required, metavar="DIR", help="the store folder")


def _log(args: argparse.Namespace) -> int:
    from rankset.cli._commands import option_values
    from rankset.experiments import Store
    from rankset.experiments._shared import parse_meta

    meta = parse_meta(args.meta)
    metrics = args.metrics or list(DEFAULT_METRICS)
    store = Store(args.store)
    with progress(args) as step:
        step(f"evaluating {len(args.runs)} run(s)")
        entry = store.evaluate_and_log(
            args.runs, args.labels, metrics, tag=args.tag, meta=meta, **option_values(args)
        )
    summary = store.summary([entry]).drop("entry_id")
    if args.json:
        print(dump_json({"entry_id": entry, "summary": records(summary)}))
    else:
        print(f"logged entry {entry} in {args.store}")
        print(frame_text(summary))
    return 0


def _history(args: argparse.Namespace) -> int:
    import polars as pl

    from rankset.experiments import HISTORY_COLUMNS, Store

    store = Store(args.store, create=False)
    rows = store.history(args.metric, args.tag, drop_duplicates=args.drop_duplicates)
    if args.chart:
        _save_history_chart(rows, args.metric, args.chart)
    if args.json:
        listed = records(rows.with_columns(rows["time"].cast(str)))
        for row in listed:  # JSON objects, not JSON in strings
            row["meta"] = json.loads(row["meta"] or "{}")
            row["options"] = json.loads(row["options"] or "{}")
        print(dump_json(listed))
        return 0
    # the table leaves the other provenance columns to --json; meta is short, options long
    shown = HISTORY_COLUMNS[: HISTORY_COLUMNS.index("n_queries") + 1]
    metas = [_pairs_text(json.loads(meta or "{}")) for meta in rows["meta"].to_list()]
    table = rows.select(shown).with_columns(rows["time"].dt.strftime("%Y-%m-%d %H:%M"))
    print(frame_text(table.with_columns(pl.Series("meta", metas, dtype=pl.String))))
    for line in _options_lines(rows["entry_id"].to_list(), rows["options"].to_list()):
        print(line)
    return 0


#: Options that say how an evaluation ran, not what it computed: not shown by history.
_HOW_IT_RAN = frozenset({"systems", "engine", "buckets", "polars_version"})


def _pairs_text(values: dict[str, Any]) -> str:
    """Write a JSON object as ``k=v, k2=v2`` (strings unquoted)."""
    return ", ".join(
        f"{key}={value if isinstance(value, str) else json.dumps(value)}"
        for key, value in values.items()
    )


def _options_lines(entries: list[str], options: list[str | None]) -> list[str]:
    """Say which options every listed entry shares, then each entry's own differences."""
    by_entry: dict[str, dict[str, Any]] = {}
    for entry, text in zip(entries, options, strict=True):
        if entry not in by_entry:
            recorded = json.loads(text or "{}")
            by_entry[entry] = {k: v for k, v in recorded.items() if k not in _HOW_IT_RAN}
    if not by_entry:
        return []
    keys = sorted({key for values in by_entry.values() for key in values})
    first = next(iter(by_entry.values()))
    shared = {
        key: first.get(key)
        for key in keys
        if all(key in values and values[key] == first.get(key) for values in by_entry.values())
    }
    lines = [f"options of every entry: {_pairs_text(shared) or '(none in common)'}"]
    for entry, values in by_entry.items():
        own = {key: values.get(key) for key in keys if key not in shared}
        if own:
            lines.append(f"options of {entry}: {_pairs_text(own)}")
    return lines


def _save_history_chart(rows: Any, metric: str | None, path: str) -> None:
    from rankset.charts import history_chart, save_chart

    if metric is None and rows["metric"].n_unique() > 1:
        msg = "--chart draws one metric: name it with -m METRIC."
        raise ParameterError(msg)
    save_chart(history_chart(rows, metric), path)


def _gate(args: argparse.Namespace) -> int:
    from rankset.cli._commands import option_values
    from rankset.experiments import evaluate_and_gate

    if (args.baseline is None) == (args.store is None):
        msg = "Give the baseline as --baseline RUN or as --store DIR [--against TAG], not both."
        raise ParameterError(msg)
    if args.against is not None and args.store is None:
        msg = "--against names a tag in a store: give --store DIR too."
        raise ParameterError(msg)
    with progress(args) as step:
        step("evaluating the candidate and the baseline")
        result = evaluate_and_gate(
            args.runs,
            args.labels,
            args.metrics or [_GATE_METRICS],
            baseline=args.baseline,
            store=args.store,
            against=args.against,
            coverage_k=args.coverage_k,
            evaluate_options=option_values(args),
            max_drop=args.max_drop,
            alpha=args.alpha,
            test=args.test,
            correction=correction_of(args),
            seed=args.seed,
            n_resamples=args.n_resamples,
            allow_mismatch=args.allow_mismatch,
            max_increase=args.max_increase,
        )
    if args.markdown:
        result.write_markdown(args.markdown)
    if args.json:
        print(
            dump_json(
                {
                    "passed": result.passed,
                    "baseline": result.baseline,
                    "mismatches": list(result.mismatches),
                    "rows": records(result.table),
                    "costs": None if result.costs is None else records(result.costs),
                }
            )
        )
    else:
        import polars as pl

        verdict = "PASS" if result.passed else f"FAIL: {', '.join(result.failures)}"
        # relative changes as --max-drop takes them: -1.25%
        relative = [
            "NA" if value is None else f"{value:+.2%}"
            for value in result.table["relative_delta"].to_list()
        ]
        shown = result.table.drop("n_dropped").with_columns(
            pl.Series("relative_delta", relative, dtype=pl.String)
        )
        print(result.baseline_line.replace("`", ""))
        for mismatch in result.mismatches:
            print(f"rankset: warning: gated although {mismatch}", file=sys.stderr)
        print(frame_text(shown))
        if result.costs is not None:
            print(frame_text(result.costs))
        print(verdict)
    if result.coverage_fell:
        print(
            f"rankset: warning: judged@{args.coverage_k} of the candidate fell below the "
            "baseline's: unjudged documents count as non-relevant, so its scores may be low",
            file=sys.stderr,
        )
    return result.exit_code


#: The store's subcommands, by name.
EXPERIMENT_COMMANDS = {"log": _log, "history": _history, "gate": _gate}
