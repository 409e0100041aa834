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
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

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

# Seconds between two redraws of the plain progress line (its elapsed time and ETA).
_TICK_S = 0.5
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


class _Eta:
    """When a counted job should end, at its rate so far; it counts down between counts.

    A job starts with the step named before it (``restart``), else with the display, and
    again when the total changes (another counted job). After ``done`` of ``total`` parts
    in ``t`` seconds, a part takes ``t / done``: the time left is that of the parts to go,
    counted down from the last new count. Once the current part has taken longer than
    that, it is counted as done now: the parts after it at the slower rate (the ETA then
    grows while the part goes on, instead of showing 0), and no ETA during the last one.
    """

    def __init__(self) -> None:
        self.start = time.monotonic()
        self._job_start = self.start
        self._total: int | None = None
        self._done = 0
        self._at = self.start

    def restart(self) -> None:
        self._job_start, self._total = time.monotonic(), None

    def count(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self._total is not None and total != self._total:
            self._job_start = now
        if total != self._total or done != self._done:
            self._total, self._done, self._at = total, done, now

    def remaining(self, now: float) -> float | None:
        """Seconds left, or None (nothing counted yet, or done)."""
        total, done = self._total, self._done
        if total is None or not 0 < done < total:
            return None
        per_part = (self._at - self._job_start) / done
        countdown = self._at + per_part * (total - done) - now
        if countdown > per_part * (total - done - 1):  # the current part is not late
            return countdown
        after = (now - self._job_start) / (done + 1) * (total - done - 1)
        return after if after > 0 else None


def _eta_text(eta: _Eta, now: float) -> str:
    remaining = eta.remaining(now)
    return "" if remaining is None else f"ETA {math.ceil(remaining)} s"


class _RichStep(Step):
    """rich's live display: a spinner, the step, a bar, ``done/total``, elapsed, ETA."""

    def __init__(self, display: Any, eta: _Eta) -> None:
        self._display = display
        self._eta = eta
        self._task = display.add_task("starting", total=None, count="")

    def __call__(self, text: str) -> None:
        self._eta.restart()
        self._display.update(self._task, description=text)
        self._display.refresh()

    def count(self, done: int, total: int, text: str) -> None:
        self._eta.count(done, total)
        self._display.update(
            self._task, description=text, completed=done, total=total, count=f"{done:,}/{total:,}"
        )
        self._display.refresh()


class _PlainStep(Step):
    """One line on stderr, rewritten in place: ``rankset: text  3/8  4.1 s, ETA 6 s``.

    A thread redraws it twice a second, so that the elapsed time and the ETA move while
    a part takes long; a lock keeps its writes and the command's whole. What else goes to
    stderr meanwhile (a warning) goes through :meth:`above`: on a row of its own, the
    line drawn again under it.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._eta = _Eta()
        self._text = ""
        self._counted = ""
        self._width = 0
        self._shown = False  # the line is on the current row
        self._open = False  # other text was written on the current row, not ended yet
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="rankset-progress", daemon=True)
        self._ticker.start()

    def __call__(self, text: str) -> None:
        with self._lock:
            self._eta.restart()
            self._text, self._counted = text, ""
            self._draw()

    def count(self, done: int, total: int, text: str) -> None:
        with self._lock:
            self._eta.count(done, total)
            self._text, self._counted = text, f"{done:,}/{total:,}"
            self._draw()

    def above(self, text: str) -> int:
        """Write ``text`` (not the line's) on stderr: the line is erased, then redrawn."""
        with self._lock:
            self._erase()
            written = self._stream.write(text)
            self._open = not text.endswith("\n")
            if self._text:
                self._draw()
            return written

    def clear(self) -> None:
        self._stop.set()
        self._ticker.join()
        with self._lock:
            self._erase()

    def _erase(self) -> None:
        if self._shown:
            self._stream.write("\r" + " " * self._width + "\r")
            self._stream.flush()
            self._shown = False

    def _tick(self) -> None:
        while not self._stop.wait(_TICK_S):
            with self._lock:
                if self._text:
                    self._draw()

    def _draw(self) -> None:
        if self._open:  # a row of other text is being written (print's text, then "\n")
            return
        now = time.monotonic()
        parts = [self._text, *([self._counted] if self._counted else [])]
        line = f"{'  '.join(parts)}  {now - self._eta.start:.1f} s"
        eta = _eta_text(self._eta, now)
        if eta:
            line += f", {eta}"
        # A line longer than the terminal would wrap, and the carriage return would then
        # rewrite only its last row: cut it to the width.
        columns = shutil.get_terminal_size().columns
        line = f"rankset: {line}"[: max(columns - 1, 20)]
        self._stream.write("\r" + line.ljust(self._width))
        self._stream.flush()
        self._width = max(self._width, len(line))
        self._shown = True


class _Above:
    """``sys.stderr`` while the plain line is shown: other text is written above it."""

    def __init__(self, stream: TextIO, line: _PlainStep) -> None:
        self._stream = stream
        self._line = line

    def write(self, text: str) -> int:
        return self._line.above(text)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def progress(args: argparse.Namespace) -> Iterator[Step]:
    """Yield a :class:`Step` that shows the work under way on stderr, and how far it is.

    Shown only when stderr is a terminal and ``--quiet`` is not given; on a pipe or a
    file nothing is written, so stdout and redirected stderr stay clean. With ``rich``
    installed (``pip install "rankset[progress]"``): a live line with a spinner, a bar,
    the count, the elapsed time and an ETA, erased at the end; without it, one plain line
    rewritten in place (a carriage return) with the same figures, erased at the end. The
    ETA counts down between counts (see :class:`_Eta`).
    """
    stream = sys.stderr
    if args.quiet or not stream.isatty():
        yield Step()
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, TextColumn
        from rich.progress import TimeElapsedColumn as Elapsed
        from rich.text import Text
    except ImportError:
        plain = _PlainStep(stream)
        sys.stderr = _Above(stream, plain)
        try:
            yield plain
        finally:
            sys.stderr = stream
            plain.clear()
        return
    eta = _Eta()

    class EtaColumn(ProgressColumn):
        """The ETA of the counted job, drawn at each refresh: it counts down."""

        def render(self, task: Any) -> Text:
            return Text(_eta_text(eta, time.monotonic()), style="progress.remaining")

    display = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        # the count and the ETA once a job is counted (a bare step has neither)
        TextColumn("{task.fields[count]}", style="progress.download"),
        Elapsed(),
        EtaColumn(),
        console=Console(file=stream),
        transient=True,
    )
    with display:
        yield _RichStep(display, eta)


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
    from rankset._format import format_value  # the tables' numbers: not for --json

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
    from rankset._format import format_value

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
    from rankset._format import format_value

    def cell(value: object) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float) or value is None:
            return format_value(value)
        return str(value)

    rows = [[cell(value) for value in row] for row in frame.iter_rows()]
    return render_table(frame.columns, rows)
