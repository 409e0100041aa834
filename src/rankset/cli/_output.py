"""What the command line prints: tables, JSON records, progress and dropped queries.

stdout carries only results (a table or JSON); progress and the dropped-query notes go
to stderr.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from rankset._format import format_value

if TYPE_CHECKING:
    import argparse

    import polars as pl

    from rankset.evaluation import EvaluationResult

__all__ = [
    "Step",
    "dump_json",
    "format_curves",
    "format_table",
    "frame_text",
    "number",
    "progress",
    "records",
    "render_table",
    "report_dropped",
    "summary_records",
]

# Cutoffs shown in the terminal table of `rankset curves` (all of them go to --json/--out).
_SHOWN_KS = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)


class Step:
    """What a command tells the progress display; shows nothing (a pipe, ``--quiet``).

    ``step(text)`` names the work now under way; ``step.count(done, total, text)`` says
    how much of a counted job is done (``done`` of ``total``) and what comes next.
    """

    def __call__(self, text: str) -> None:
        """Name the work now under way."""

    def count(self, done: int, total: int, text: str) -> None:
        """Say that ``done`` of ``total`` parts are done and ``text`` is under way."""


class _RichStep(Step):
    """rich's live display: a spinner, the step, a bar, ``done/total``, elapsed, ETA."""

    def __init__(self, display: Any) -> None:
        self._display = display
        self._task = display.add_task("starting", total=None, count="", eta="")

    def __call__(self, text: str) -> None:
        self._display.update(self._task, description=text)
        self._display.refresh()

    def count(self, done: int, total: int, text: str) -> None:
        self._display.update(
            self._task, description=text, completed=done, total=total, count=f"{done:,}/{total:,}"
        )
        remaining = self._display.tasks[0].time_remaining  # from the rate so far
        eta = "" if remaining is None or done >= total else f"ETA {remaining:.0f} s"
        self._display.update(self._task, eta=eta)
        self._display.refresh()


class _PlainStep(Step):
    """One line on stderr, rewritten in place: ``rankset: text  3/8  4.1 s, ETA 6 s``.

    The ETA is the time left at the rate of the counted job so far: the job starts with
    the step named before it (``step(text)``), or with the display when none was.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._start = time.monotonic()
        self._job_start = self._start
        self._job_total = -1
        self._width = 0

    def __call__(self, text: str) -> None:
        self._job_start, self._job_total = time.monotonic(), -1
        self._write(f"{text}  {self._elapsed():.1f} s")

    def count(self, done: int, total: int, text: str) -> None:
        now = time.monotonic()
        if total != self._job_total and self._job_total != -1:  # another counted job
            self._job_start = now
        self._job_total = total
        line = f"{text}  {done:,}/{total:,}  {now - self._start:.1f} s"
        if 0 < done < total:
            rate = (now - self._job_start) / done
            line += f", ETA {rate * (total - done):.0f} s"
        self._write(line)

    def clear(self) -> None:
        if self._width:
            self._stream.write("\r" + " " * self._width + "\r")
            self._stream.flush()

    def _elapsed(self) -> float:
        return time.monotonic() - self._start

    def _write(self, line: str) -> None:
        # A line longer than the terminal would wrap, and the carriage return would then
        # rewrite only its last row: cut it to the width.
        columns = shutil.get_terminal_size().columns
        line = f"rankset: {line}"[: max(columns - 1, 20)]
        self._stream.write("\r" + line.ljust(self._width))
        self._stream.flush()
        self._width = max(self._width, len(line))


@contextlib.contextmanager
def progress(args: argparse.Namespace) -> Iterator[Step]:
    """Yield a :class:`Step` that shows the work under way on stderr, and how far it is.

    Shown only when stderr is a terminal and ``--quiet`` is not given; on a pipe or a
    file nothing is written, so stdout and redirected stderr stay clean. With ``rich``
    installed (``pip install "rankset[progress]"``): a live line with a spinner, a bar,
    the count, the elapsed time and an ETA, erased at the end; without it, one plain line
    rewritten in place (a carriage return) with the same figures, erased at the end.
    """
    stream = sys.stderr
    if args.quiet or not stream.isatty():
        yield Step()
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn
        from rich.progress import TimeElapsedColumn as Elapsed
    except ImportError:
        plain = _PlainStep(stream)
        try:
            yield plain
        finally:
            plain.clear()
        return
    display = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        # the count and the ETA once a job is counted (a bare step has neither)
        TextColumn("{task.fields[count]}", style="progress.download"),
        Elapsed(),
        TextColumn("{task.fields[eta]}", style="progress.remaining"),
        console=Console(file=stream),
        transient=True,
    )
    with display:
        yield _RichStep(display)


def number(value: float) -> float:
    return int(value) if float(value).is_integer() else value


def dump_json(value: Any) -> str:
    """Return strict JSON (RFC 8259): NaN and infinities, which it cannot hold, as null.

    Examples
    --------
    >>> json.loads(dump_json({"mean": float("inf"), "values": [1.0, float("nan")]}))
    {'mean': None, 'values': [1.0, None]}
    """
    return json.dumps(_strict(value), indent=2, allow_nan=False)


def _strict(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _strict(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(item) for item in value]
    return _clean(value)


def _clean(value: Any) -> Any:
    # JSON has no NaN or infinity: a non-finite value is written as null (NA).
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return [{key: _clean(v) for key, v in row.items()} for row in frame.iter_rows(named=True)]


def summary_records(result: EvaluationResult) -> list[dict[str, Any]]:
    columns = ["system", "metric", "mean", "n_queries", "n_na"]
    return records(result.summary.select(columns))


def render_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]

    def render(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest])

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([render(header), rule, *(render(row) for row in rows)])


def format_table(result: EvaluationResult) -> str:
    metrics = result.metrics
    means = {(r["system"], r["metric"]): r["mean"] for r in result.summary.iter_rows(named=True)}
    counts = {r["system"]: r["n_scored"] for r in result.query_counts.iter_rows(named=True)}
    rows = [
        [
            system,
            str(counts[system]),
            *(format_value(means.get((system, metric))) for metric in metrics),
        ]
        for system in result.systems  # in the order the runs were given
    ]
    return render_table(["system", "queries", *metrics], rows)


def format_curves(summary: pl.DataFrame) -> str:
    ks = sorted(set(summary["k"].to_list()))
    shown = [k for k in ks if k in _SHOWN_KS or k == ks[-1]]
    means = {(r["system"], r["metric"], r["k"]): r["mean"] for r in summary.iter_rows(named=True)}
    pairs = summary.select("system", "metric").unique(maintain_order=True).rows()
    rows = [
        [system, metric, *(format_value(means.get((system, metric, k))) for k in shown)]
        for system, metric in pairs
    ]
    return render_table(["system", "metric", *(f"@{k}" for k in shown)], rows)


def report_dropped(query_counts: pl.DataFrame) -> None:
    for row in query_counts.iter_rows(named=True):
        notes = []
        if row["n_run_queries_without_labels"]:
            notes.append(f"{row['n_run_queries_without_labels']} run queries have no labels")
        if row["n_label_queries_without_run"]:
            fate = "scored as empty" if row["missing_policy"] == "zero" else "skipped"
            notes.append(
                f"{row['n_label_queries_without_run']} labelled queries not in the run ({fate})"
            )
        if notes:
            print(f"rankset: {row['system']}: {'; '.join(notes)}", file=sys.stderr)


def frame_text(frame: pl.DataFrame) -> str:
    """Render a frame as the CLI's tables: numbers as format_value writes them."""

    def cell(value: object) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float) or value is None:
            return format_value(value)
        return str(value)

    rows = [[cell(value) for value in row] for row in frame.iter_rows()]
    return render_table(frame.columns, rows)
