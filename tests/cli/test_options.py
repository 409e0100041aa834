"""The options the subcommands share: one spelling everywhere, the old ones as hidden aliases.

The rule (``rankset.cli._options``): ``-m/--metric`` for metrics, ``-k/--k`` for one
cutoff, ``--k-max`` for a range (curves, report), ``--quiet`` for no progress display,
``--qrels`` for the labels; ``rankset trec_eval`` keeps trec_eval's own flags.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest

import rankset.evaluation
from rankset.cli import main
from rankset.cli._parser import SUBCOMMANDS, build_parser
from rankset.evaluation import EvaluateOptions
from rankset.evaluation._evaluate import metrics_of

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
BM25, RERANK, QRELS = (str(SAMPLE / name) for name in ("bm25.trec", "rerank.trec", "qrels.txt"))

# What each subcommand needs besides the option under test (never read: parsing only).
BASE: dict[str, list[str]] = {
    "evaluate": ["run"],
    "curves": ["run"],
    "compare": ["run"],
    "diagnose": ["run"],
    "report": ["run", "--out", "r.html"],
    "fuse": ["run", "run", "--out", "fused.trec"],
    "partition": ["run", "--out", "folder"],
    "agreement": ["reference", "judge"],
    "stability": ["run", "run"],
    "measures": [],
    "log": ["run", "--store", "s"],
    "history": ["--store", "s"],
    "gate": ["run", "--baseline", "b"],
    "dashboard": ["run", "--out", "d.html"],
    "judges": ["meta-evaluate"],  # a group: its subcommands' options are theirs
}
EVERY = set(BASE)
EVALUATING = {
    *("evaluate", "curves", "compare", "diagnose", "report", "stability"),
    *("log", "gate", "dashboard"),
}
RESAMPLING = {"compare", "report", "agreement", "stability", "gate", "dashboard"}
# Every command that tests one system against another spells its tests alike.
TESTING = {"report", "dashboard", "gate"}
LABEL_SETS = {"report", "stability", "dashboard"}
GATED = {
    "log",
    "gate",
    "dashboard",
}  # later commands that take several metrics  # --qrels repeats: the first is the reference

# (spelling, argv, dest, parsed value, the subcommands that show it in --help)
SHARED: list[tuple[str, list[str], str, object, set[str]]] = [
    ("--qrels", ["--qrels", "q.txt"], "labels", "q.txt", EVALUATING | {"fuse", "partition"}),
    ("--name", ["--name", "a"], "names", ["a"], EVALUATING | {"fuse", "partition"}),
    ("-m", ["-m", "ap"], "metrics", ["ap"], {"evaluate", "curves", "compare", "report"} | GATED),
    (
        "--metric",
        ["--metric", "ap"],
        "metrics",
        ["ap"],
        {"evaluate", "curves", "compare", "report"} | GATED,
    ),
    ("-m (one)", ["-m", "ap"], "metric", "ap", {"stability", "fuse", "history"}),
    ("--metric (one)", ["--metric", "ap"], "metric", "ap", {"stability", "fuse", "history"}),
    ("-k", ["-k", "5"], "k", 5, {"evaluate", "compare", "diagnose", "report", "dashboard"}),
    (
        "--k",
        ["--k", "5"],
        "k",
        5,
        {"evaluate", "compare", "diagnose", "report", "fuse", "dashboard"},
    ),
    ("--k-max", ["--k-max", "7"], "k_max", 7, {"curves"}),
    ("--depth", ["--depth", "7"], "depth", 7, {"report", "dashboard"}),
    ("--quiet", ["--quiet"], "quiet", True, EVERY),
    ("--relevance-level", ["--relevance-level", "2"], "relevance_level", 2.0, EVALUATING),
    ("-l", ["-l", "2"], "relevance_level", 2.0, EVALUATING),
    ("--scale", ["--scale", "trec_dl"], "scale", "trec_dl", EVALUATING),
    ("--duplicates", ["--duplicates", "keep-best"], "duplicates", "keep-best", EVALUATING),
    ("--order", ["--order", "rank"], "order", "rank", EVALUATING),
    ("--max-depth", ["--max-depth", "5"], "max_depth", 5, EVALUATING | {"fuse"}),
    ("-M", ["-M", "5"], "max_depth", 5, EVALUATING | {"fuse"}),
    (
        "--ignore-identical-ids",
        ["--ignore-identical-ids"],
        "ignore_identical_ids",
        True,
        EVALUATING,
    ),
    ("--engine", ["--engine", "in-memory"], "engine", "in-memory", EVALUATING),
    ("--buckets", ["--buckets", "4"], "buckets", 4, EVALUATING | {"fuse", "partition"}),
    (
        "--json",
        ["--json"],
        "json",
        True,
        EVERY - {"report", "partition", "measures", "dashboard", "judges"},
    ),
    (
        "--out",
        ["--out", "o"],
        "out",
        "o",
        EVERY
        - {"evaluate", "diagnose", "stability", "measures", "log", "history", "gate", "judges"},
    ),
    (
        "--per-query",
        ["--per-query", "p.parquet"],
        "per_query",
        "p.parquet",
        {"evaluate", "curves", "diagnose"},
    ),
    ("--n-resamples", ["--n-resamples", "9"], "n_resamples", 9, RESAMPLING),
    ("--seed", ["--seed", "9"], "seed", 9, RESAMPLING),
    (
        "--correction",
        ["--correction", "bonferroni"],
        "correction",
        "bonferroni",
        TESTING | {"compare"},
    ),
    ("--test", ["--test", "t"], "test", "t", TESTING),
    ("--test", ["--test", "t"], "tests", ["t"], {"compare"}),  # repeatable there
]

# fuse's --k is the method's k (RRF's constant); its --name, the one fused run's.
FUSE: dict[tuple[str, str], tuple[str, object]] = {
    ("fuse", "--k"): ("k", 5.0),
    ("fuse", "--name"): ("name", "a"),
}

# (subcommand, the old spelling, dest, parsed value)
ALIASES: list[tuple[str, list[str], str, object]] = [
    *((command, ["-q"], "quiet", True) for command in sorted(EVERY)),
    *((command, ["--labels", "q.txt"], "labels", "q.txt") for command in sorted(EVALUATING)),
    ("fuse", ["--labels", "q.txt"], "labels", "q.txt"),
    ("partition", ["--labels", "q.txt"], "labels", "q.txt"),
    ("evaluate", ["--keep-best-duplicate"], "duplicates", "keep-best"),
    ("report", ["--keep-best-duplicate"], "duplicates", "keep-best"),
    ("curves", ["--k", "5"], "k_max", 5),
    ("curves", ["-k", "5"], "k_max", 5),
    ("fuse", ["--depth", "5"], "max_depth", 5),
]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    # trec_eval and sample_eval are listed in --help only: main() runs them with their own
    # argument grammars.
    own = {"trec_eval", "sample_eval"}
    return {name: sub for name, sub in commands.choices.items() if name not in own}


def _shown(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings ``--help`` lists."""
    return {
        string
        for action in parser._actions
        if action.help is not argparse.SUPPRESS
        for string in action.option_strings
    }


def _parse(command: str, argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args([command, *BASE[command], *argv])


def test_the_table_covers_every_subcommand() -> None:
    assert set(_subcommands()) == EVERY  # a new subcommand: add it to BASE and the table


@pytest.mark.parametrize(
    ("command", "spelling"),
    [(command, row[0]) for row in SHARED for command in sorted(row[4])],
)
def test_a_shared_option_parses_alike_in_every_subcommand(command: str, spelling: str) -> None:
    _, argv, dest, value, _ = next(
        row for row in SHARED if row[0] == spelling and command in row[4]
    )
    if dest == "labels" and command in LABEL_SETS:
        value = [value]
    dest, value = FUSE.get((command, spelling), (dest, value))
    assert getattr(_parse(command, argv), dest) == value


@pytest.mark.parametrize("flag", sorted({row[1][0] for row in SHARED}))
def test_a_shared_option_is_shown_where_it_applies_and_nowhere_else(flag: str) -> None:
    commands = set().union(*(row[4] for row in SHARED if row[1][0] == flag))
    showing = {name for name, parser in _subcommands().items() if flag in _shown(parser)}
    assert showing == commands


def test_the_one_letter_options_are_trec_eval_s_or_the_rule_s() -> None:
    letters = {
        string
        for parser in _subcommands().values()
        for string in _shown(parser)
        if re.fullmatch(r"-\w", string)
    }
    assert letters == {"-h", "-m", "-k", "-l", "-M", "-J"}  # no -q: --quiet only


@pytest.mark.parametrize(
    ("command", "argv", "dest", "value"),
    ALIASES,
    ids=[f"{command} {argv[0]}" for command, argv, _, _ in ALIASES],
)
def test_an_old_spelling_still_parses_and_is_left_out_of_help(
    command: str, argv: list[str], dest: str, value: object
) -> None:
    if dest == "labels" and command in LABEL_SETS:
        value = [value]
    assert getattr(_parse(command, argv), dest) == value
    parser = _subcommands()[command]
    assert argv[0] not in _shown(parser)
    if argv[0] != "--k":  # fuse, beside curves, shows its own --k
        assert not re.search(rf"(?<![\w-]){re.escape(argv[0])}\b", parser.format_help())


def test_an_old_spelling_leaves_the_default_alone() -> None:
    namespace = _parse("evaluate", [])
    assert namespace.labels is None
    assert namespace.duplicates is None
    assert namespace.quiet is False
    assert _parse("curves", []).k_max == 20
    assert _parse("fuse", []).max_depth is None
    assert _parse("report", ["--labels", "a", "--qrels", "b"]).labels == ["a", "b"]


def test_quiet_before_the_subcommand_has_no_short_form_in_help() -> None:
    parser = build_parser()
    assert "--quiet" in _shown(parser)
    assert "-q" not in _shown(parser)
    assert parser.parse_args(["-q", "measures"]).quiet is True
    assert parser.parse_args(["measures"]).quiet is False
    assert parser.parse_args(["--quiet", "measures"]).quiet is True  # not reset after it


def test_abbreviated_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["evaluate", BM25, "--qrels", QRELS, "--rel", "2"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --rel" in capsys.readouterr().err


def test_curves_takes_k_as_its_largest_cutoff(capsys: pytest.CaptureFixture[str]) -> None:
    # `rankset curves --k 5` used to fail: "ambiguous option: --k could match --k-max, ..."
    base = ["curves", BM25, "--qrels", QRELS, "-m", "ndcg", "--json"]
    printed = []
    for cutoff in (["--k", "5"], ["-k", "5"], ["--k-max", "5"]):
        assert main([*base, *cutoff]) == 0
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1] == printed[2]
    assert [row["k"] for row in json.loads(printed[0])] == [1, 2, 3, 4, 5]


def test_fuse_takes_the_metric_to_optimise_as_m(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["fuse", BM25, RERANK, "--optimize", "--qrels", QRELS, "--grid", "k=1,60"]
    printed = []
    for spelling in ("-m", "--metric"):
        out = tmp_path / f"fused{spelling}.trec"
        assert main([*base, spelling, "rr", "--out", str(out)]) == 0
        printed.append(capsys.readouterr().out)
        assert out.exists()
    assert printed[0] == printed[1]
    assert printed[0].startswith("best on rr:")


def test_fuse_takes_max_depth_and_its_old_depth(tmp_path: Path) -> None:
    written = []
    for spelling in ("--max-depth", "--depth", "-M"):
        out = tmp_path / f"fused{spelling}.trec"
        assert main(["fuse", BM25, RERANK, spelling, "3", "--out", str(out), "--quiet"]) == 0
        written.append(out.read_text(encoding="utf-8"))
    assert written[0] == written[1] == written[2]
    assert max(int(line.split()[3]) for line in written[0].splitlines()) <= 6  # 3 + 3 at most


class _Called(Exception):
    """Raised by a stand-in library call, once it has recorded its arguments."""


def test_evaluate_builds_its_options_once_and_passes_the_metrics_and_ks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[EvaluateOptions] = []
    received: dict[str, Any] = {}

    class Counted(EvaluateOptions):
        def __post_init__(self) -> None:
            built.append(self)
            super().__post_init__()

    def evaluate_with(runs: Any, labels: Any, metrics: Any, options: Any, **rest: Any) -> None:
        received.update(metrics=metrics, options=options, rest=rest)
        raise _Called

    monkeypatch.setattr("rankset.cli._commands.EvaluateOptions", Counted)
    monkeypatch.setattr(rankset.evaluation, "evaluate_with", evaluate_with)
    argv = ["evaluate", BM25, "--qrels", QRELS, "-m", "ndcg", "-m", "P@5", "-k", "3", "-l", "2"]
    with pytest.raises(_Called):
        main(argv)
    assert len(built) == 1
    assert received["options"] is built[0]
    assert (received["options"].k, received["options"].relevance_level) == (3, 2)
    # the names as given: evaluate_with names the metrics (and applies --ks) itself
    assert (received["metrics"], received["rest"]["ks"]) == (["ndcg", "P@5"], None)
    # nothing it prints or writes holds an interval: none is drawn
    assert received["rest"]["confidence"] is None
    with pytest.raises(_Called):
        main([*argv, "--ks", "1,10"])
    assert received["rest"]["ks"] == [1, 10]
    named = metrics_of(received["metrics"], None, received["rest"]["ks"])
    assert [metric.name for metric in named] == ["ndcg@1", "ndcg@10", "precision@5"]


def test_compare_passes_one_options_object_and_parsed_metrics(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    received: dict[str, Any] = {}

    def evaluate_with(runs: Any, labels: Any, metrics: Any, options: Any, **rest: Any) -> None:
        received.update(metrics=metrics, options=options, rest=rest)
        raise _Called

    monkeypatch.setattr(rankset.evaluation, "evaluate_with", evaluate_with)
    with pytest.raises(_Called):
        main(["compare", BM25, RERANK, "--qrels", QRELS, "--baseline", "bm25", "-k", "4"])
    assert isinstance(received["options"], EvaluateOptions)
    assert received["options"].k == 4
    assert received["rest"] == {"confidence": None}
    assert [metric.name for metric in received["metrics"]] == list(
        rankset.evaluation.DEFAULT_METRICS
    )


@pytest.mark.parametrize("command", ["evaluate", "compare", "report", "dashboard", "log"])
def test_every_command_states_the_one_default_metric_set(command: str) -> None:
    text = " ".join(_subcommands()[command].format_help().split())
    assert f"(default: {' '.join(rankset.evaluation.DEFAULT_METRICS)})" in text


def test_the_report_still_reads_the_old_k_max_spelling() -> None:
    assert _parse("report", ["--k-max", "7"]).depth == 7


def test_trec_eval_keeps_its_own_flags(capsys: pytest.CaptureFixture[str]) -> None:
    # There -q prints per-query values (not --quiet) and -m names trec_eval's measures.
    assert main(["trec_eval", "-q", "-m", "recip_rank", QRELS, BM25]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert {line[0] for line in lines} == {"recip_rank"}
    assert len({line[1] for line in lines}) > 2  # every query, then "all"
    assert lines[-1][1] == "all"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices)


def test_a_command_named_first_builds_its_own_parser_alone_and_the_same() -> None:
    # main() builds only the parser of the command it is given first (its start-up):
    # that parser must be the one the full parser holds, option for option
    full = _subparsers(build_parser())
    assert set(full) == {*SUBCOMMANDS, "trec_eval", "sample_eval"}
    for name in SUBCOMMANDS:
        alone = _subparsers(build_parser(name))
        assert set(alone) == {name, "trec_eval", "sample_eval"}
        assert alone[name].format_help() == full[name].format_help()
    assert set(_subparsers(build_parser("nosuch"))) == set(full)


def test_the_command_line_parses_as_before_with_one_subparser(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["evaluate", "run.trec", "--qrels", "q.txt", "-m", "ap", "-k", "3", "--quiet"]
    assert vars(build_parser("evaluate").parse_args(argv)) == vars(build_parser().parse_args(argv))
    with pytest.raises(SystemExit):
        main(["evaluate", "--no-such-option"])
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
