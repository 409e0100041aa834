"""The drop-in's command: the script's arguments in, its lines out (the package doc says how)."""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TextIO

import polars as pl

from rankset.errors import RanksetError

__all__ = [
    "USAGE",
    "Options",
    "SampleEvalError",
    "evaluate",
    "main",
    "parse_command_line",
    "perl_number",
]

#: The script's usage line (printed, with a blank line, when fewer than two arguments).
USAGE: Final = "Usage:  sample_eval.pl [-q] <qrel_file> <trec_file>\n\n"
#: The ranks of the script's inferred precisions (``iP10``, ``iP50``, ``iP1000``).
PRECISION_RANKS: Final = (10, 50, 1000)
_LEVELS: Final = ("0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "1")
_NUMBER: Final = re.compile(r"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))")


class SampleEvalError(RanksetError):
    """The drop-in cannot go on: its message and the exit status the script would give."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Options:
    """What the command line asks: the files, ``-q``, and ``-G``'s grade map (text)."""

    qrels: str
    run: str
    per_topic: bool = False
    gains: tuple[tuple[str, str], ...] = ()


def parse_command_line(argv: Sequence[str]) -> Options:
    """Read the arguments as the script reads them, positions first.

    Three arguments: the first is dropped (it is ``-q``) and per-topic lines are printed.
    Then the qrels and the run; then, with two or more left, the first (``-G``) is
    dropped and each other ``L=G`` maps grade text ``L`` (its first character) to ``G``
    (three characters from the third). So ``-q`` and ``-G`` do not go together.

    Examples
    --------
    >>> parse_command_line(["-q", "qrels", "run"])
    Options(qrels='qrels', run='run', per_topic=True, gains=())
    >>> parse_command_line(["qrels", "run", "-G", "1=3", "2=10"]).gains
    (('1', '3'), ('2', '10'))
    """
    arguments = list(argv)
    if len(arguments) < 2:
        raise SampleEvalError(USAGE.removesuffix("\n"), 255)
    per_topic = len(arguments) == 3
    if per_topic:
        arguments.pop(0)
    qrels, run, *rest = arguments
    gains: list[tuple[str, str]] = []
    if len(rest) > 1:
        for mapping in rest[1:]:
            if len(mapping) < 3 or mapping[1] != "=":
                msg = (
                    f"sample_eval: -G maps a one-character grade to a gain, as 1=3; got {mapping!r}"
                )
                raise SampleEvalError(msg, 2)
            gains.append((mapping[:1], mapping[2:5]))
    return Options(qrels, run, per_topic, tuple(gains))


def perl_number(text: str) -> float:
    """Return a string's number as Perl reads it: its leading decimal, else 0 (``"12abc"`` is 12).

    Examples
    --------
    >>> perl_number("007"), perl_number("12abc"), perl_number("q5"), perl_number("-1.5e1")
    (7.0, 12.0, 0.0, -15.0)
    """
    match = _NUMBER.match(text)
    return float(match.group(1)) if match else 0.0


def main(argv: Sequence[str], *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``sample_eval`` with ``argv`` (the arguments after the command's name).

    Returns the exit status: 0, 2 for bad input (a message naming the file and line), the
    script's own status where it stops (255 for its usage line, ``errno`` for a file it
    cannot open).
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        options = parse_command_line(argv)
        evaluate(options, out)
    except SampleEvalError as error:
        print(str(error), file=err)
        return error.status
    except RanksetError as error:
        print(f"sample_eval: {error}", file=err)
        return 2
    return 0


def _must_open(path: str) -> None:
    """Fail as the script's ``open ... or die`` does: its message, errno as the status."""
    try:
        with open(path, "rb"):
            pass
    except OSError as error:
        number = error.errno or errno.EIO
        reason = error.strerror or os.strerror(number)
        raise SampleEvalError(f"Failed to open {path}: {reason}\n", number) from None


def _read_run(path: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read the run as the script keeps it, and each topic's line count (its ``num_ret``).

    Topic ids lose their leading zeros; a document listed twice keeps its last score.
    """
    from rankset.io import scan_run

    with open(path, "rb") as handle:
        blank = not handle.read(1 << 16).strip() and not handle.read(1)
    if blank:  # no topics: the script's division by zero topics, not a format error
        schema = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
        return pl.DataFrame(schema=schema), pl.DataFrame(schema={"query_id": pl.String})
    rows = scan_run(path).select("query_id", "doc_id", "score").collect()
    rows = rows.with_columns(pl.col("query_id").str.replace(r"^0+", ""))
    lines = rows.group_by("query_id").agg(pl.len().alias("lines"))
    kept = rows.unique(["query_id", "doc_id"], keep="last", maintain_order=True)
    return kept, lines


#: rankset's names of the script's per-topic values, then of its 11 interpolated precisions.
_PER_TOPIC: Final = (
    "xinfap",
    "infndcg",
    *(f"infp@{rank}" for rank in PRECISION_RANKS),
    "inum_rel_ret",
    "inum_rel",
)
_INTERPOLATED: Final = tuple(f"infiprec_at_recall(recall={level})" for level in _LEVELS)


def evaluate(options: Options, out: TextIO) -> None:
    """Print the script's lines for ``options`` to ``out``."""
    from rankset.evaluation import evaluate as evaluate_runs
    from rankset.io import read_sampled_qrels
    from rankset.measures import parse_metric

    _must_open(options.qrels)
    labels = read_sampled_qrels(options.qrels, relabel=dict(options.gains))
    _must_open(options.run)
    run, lines = _read_run(options.run)
    label_topics = sorted(set(labels["query_id"].to_list()))
    topics = sorted(
        set(run["query_id"].to_list()).intersection(label_topics),
        key=lambda topic: (perl_number(topic), topic),
    )
    if not topics:
        msg = (
            f"sample_eval: no topic of {options.run} is in {options.qrels} (the script "
            "stops, dividing by zero topics)"
        )
        raise SampleEvalError(msg, 2)
    names = [*_PER_TOPIC, *_INTERPOLATED]
    # missing="zero": every topic of the qrels gets its inum_rel, which the last lines sum
    result = evaluate_runs(
        run.filter(pl.col("query_id").is_in(topics)),
        labels,
        names,
        missing="zero",
        confidence=None,
    )
    canonical = {parse_metric(name).name: name for name in names}
    values: dict[str, dict[str, float]] = {}
    for topic, metric, value in result.per_query.select("query_id", "metric", "value").rows():
        values.setdefault(topic, {})[canonical[metric]] = value
    counted = dict(lines.iter_rows())
    kept = dict(run.group_by("query_id").agg(pl.len().clip(upper_bound=1000)).iter_rows())
    write = out.write
    if options.per_topic:
        for topic in topics:
            value = values[topic]
            write(f"infAP\t\t{topic}\t\t{value['xinfap']:6.4f}\n")
            write(f"infNDCG\t\t{topic}\t\t{value['infndcg']:6.4f}\n")
            for rank in PRECISION_RANKS:
                write(f"iP{rank}\t\t{topic}\t\t{value[f'infp@{rank}']:6.4f}\n")
            write(f"inum_rel_ret\t{topic}\t{value['inum_rel_ret']:14.4f}\n")
            write(f"inum_rel\t{topic}\t{value['inum_rel']:14.4f}\n")
            write(f"num_ret\t\t{topic}\t{counted[topic]:9d}\n")
    count = len(topics)
    write(f"infAP\t\tall\t\t{_total(values, topics, 'xinfap') / count:6.4f}\n")
    write(f"infNDCG\t\tall\t\t{_total(values, topics, 'infndcg') / count:6.4f}\n")
    in_text_order = sorted(topics)  # the script adds these up in the topics' text order
    for index, name in enumerate(_INTERPOLATED):
        mean = _total(values, in_text_order, name) / count
        write(f"iprec@rec{index / 10:4.2f}\tall\t\t{mean:6.4f}\n")
    for rank in PRECISION_RANKS:
        write(f"iP{rank}\t\tall\t\t{_total(values, topics, f'infp@{rank}') / count:6.4f}\n")
    write(f"inum_rel_ret\tall\t{_total(values, topics, 'inum_rel_ret'):14.4f}\n")
    write(f"inum_rel\tall\t{_total(values, label_topics, 'inum_rel'):14.4f}\n")
    write(f"num_ret\t\tall\t{sum(kept[topic] for topic in topics):9d}\n")


def _total(values: dict[str, dict[str, float]], topics: Sequence[str], name: str) -> float:
    """Add a measure's values one by one in ``topics`` order, from 0, as the script does."""
    total = 0.0
    for topic in topics:
        total += values[topic][name]
    return total
