"""The counted jobs of the command line: resamples, buckets, dashboard sections.

``rankset compare`` counts the resamples its tests draw, ``rankset partition`` the
buckets it writes, ``rankset dashboard`` its sections (with the comparisons' resamples
inside). On a terminal each shows ``done/total``, the elapsed time and an ETA, on one
line rewritten in place and erased at the end (rich when installed; a plain line
otherwise, as in the core install); on a pipe and with ``--quiet`` nothing. A terminal
is faked by making the captured stderr say it is one.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from rankset.cli import main
from rankset.pages.dashboard import dashboard

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
RUNS = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")]
QRELS = ["--qrels", str(SAMPLE / "qrels.txt")]
SECTIONS = 8  # the analysis's 5 steps, the rankings, the texts and the page


def _compare() -> list[str]:
    options = ["--baseline", "bm25", "--test", "randomization", "--n-resamples", "300"]
    return ["compare", *RUNS, *QRELS, *options, "--scale", "trec_dl"]


def _partition(tmp_path: Path) -> list[str]:
    return ["partition", *RUNS, *QRELS, "--buckets", "4", "--out", str(tmp_path / "ds")]


def _dashboard(tmp_path: Path) -> list[str]:
    return ["dashboard", *RUNS, *QRELS, "--scale", "trec_dl", "--out", str(tmp_path / "d.html")]


COMMANDS = {"compare": lambda _: _compare(), "partition": _partition, "dashboard": _dashboard}


def _terminal(monkeypatch: pytest.MonkeyPatch, *, rich: bool) -> None:
    """Make the captured stderr a terminal; without rich, as in the core install."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", "150")
    monkeypatch.delenv("TERM", raising=False)
    if not rich:
        for name in ("rich", "rich.console", "rich.progress"):
            monkeypatch.setitem(sys.modules, name, None)


def _shown(err: str) -> list[str]:
    """The successive states of the plain line (each written after a carriage return).

    A state redrawn by the ticker (the same text, a later time) is kept once: the first.
    """
    assert "\n" not in err  # one line, rewritten in place
    parts = err.split("\r")
    assert parts[-1] == ""  # erased at the end: spaces, then back to the start
    assert parts[-2].strip() == ""
    states = [part.rstrip() for part in parts if part.strip()]
    first = {}
    for state in states:
        first.setdefault(re.sub(r"  [\d.]+ s(, ETA \d+ s)?$", "", state), state)
    return list(first.values())


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_nothing_on_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert not sys.stderr.isatty()
    assert main(COMMANDS[command](tmp_path)) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("rich", [True, False], ids=["rich", "plain"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_quiet_silences_a_terminal(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    rich: bool,
) -> None:
    if rich:
        pytest.importorskip("rich")
    _terminal(monkeypatch, rich=rich)
    assert main([*COMMANDS[command](tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_compare_counts_its_resamples_with_an_eta(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _terminal(monkeypatch, rich=False)
    assert main(_compare()) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("Against bm25")  # stdout keeps the table alone
    shown = _shown(captured.err)
    # rerank vs bm25 on the 5 default metrics: those over the 40 queries share their
    # draws, those over fewer draw their own; 300 resamples of the randomization test
    # and 300 of the bootstrap per group, counted per chunk (one chunk of 300 here).
    counts = [re.search(r"resamples  ([\d,]+)/([\d,]+)  ", line) for line in shown]
    found = [(int(m[1].replace(",", "")), int(m[2].replace(",", ""))) for m in counts if m]
    total = found[-1][1]
    assert total % 600 == 0
    assert [done for done, _ in found] == list(range(300, total + 1, 300))
    assert {t for _, t in found} == {total}
    eta = [
        line for line in shown if re.search(r"resamples  300/[\d,]+  \d+\.\d s, ETA \d+ s$", line)
    ]
    assert eta, shown
    assert shown[-1].startswith(f"rankset: resamples  {total:,}/{total:,}  ")
    assert "ETA" not in shown[-1]  # done: no time left to guess


def test_partition_counts_its_buckets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _terminal(monkeypatch, rich=False)
    assert main(_partition(tmp_path)) == 0
    shown = _shown(capsys.readouterr().err)
    assert shown[0].startswith("rankset: partitioning 2 run(s) into 4 buckets  ")
    counted = [line for line in shown if line.startswith("rankset: buckets  ")]
    assert [line.split()[2] for line in counted] == ["0/4", "1/4", "2/4", "3/4", "4/4"]
    assert all(", ETA " in line for line in counted[1:4])
    assert ", ETA " not in counted[0]  # no rate yet
    assert ", ETA " not in counted[-1]


def test_dashboard_counts_its_sections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _terminal(monkeypatch, rich=False)
    assert main(_dashboard(tmp_path)) == 0
    shown = _shown(capsys.readouterr().err)
    sections = [
        "evaluating",
        "comparing",
        "metric-vs-k curves (k = 1..20)",
        "diagnostic matrix",
        "label sets",
        "rankings (top 20)",
        "texts",
        "charts and page",
    ]
    for done, section in enumerate(sections):
        assert any(line.startswith(f"rankset: {section}  {done}/{SECTIONS}  ") for line in shown)
    # every system as the baseline, in one pass whose resamples the section's text counts:
    # the policy's 10,000 sign assignments and 1,000 bootstrap resamples of the
    # differences, for the one group of comparisons (all over the same 40 queries)
    assert any(
        line.startswith(f"rankset: comparing: 11,000/11,000 resamples  1/{SECTIONS}")
        for line in shown
    ), shown
    assert shown[-1].startswith(f"rankset: done  {SECTIONS}/{SECTIONS}  ")


def test_dashboard_with_rich_counts_its_sections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("rich")
    _terminal(monkeypatch, rich=True)
    assert main(_dashboard(tmp_path)) == 0
    err = capsys.readouterr().err
    for done in range(1, SECTIONS + 1):
        assert f"{done}/{SECTIONS}" in err
    assert "comparing: 11,000/11,000 resamples" in err
    assert "0:00:0" in err  # the elapsed time


def test_dashboard_calls_its_progress_callback_for_each_section() -> None:
    calls: list[tuple[int, int, str]] = []
    board = dashboard(
        RUNS,
        str(SAMPLE / "qrels.txt"),
        scale="trec_dl",
        n_resamples=100,
        progress=lambda done, total, what: calls.append((done, total, what)),
    )
    assert board.n_queries == 40
    sections = [done for done, _, what in calls if ": " not in what]
    assert sections == list(range(SECTIONS + 1))
    assert [done for done, _, _ in calls] == sorted(done for done, _, _ in calls)
    assert {total for _, total, _ in calls} == {SECTIONS}
    assert calls[-1] == (SECTIONS, SECTIONS, "done")
    # no callback, not in a notebook: nothing is drawn and the page is the same
    again = dashboard(RUNS, str(SAMPLE / "qrels.txt"), scale="trec_dl", n_resamples=100)
    assert again.html == board.html


# --- the ETA and the ticking line ---------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_eta_counts_down_between_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    from rankset.cli import _output

    clock = Clock()
    monkeypatch.setattr(_output.time, "monotonic", clock)
    eta = _output._Eta()  # the job starts at 100
    assert eta.remaining(clock.now) is None  # nothing counted
    clock.now = 104.0
    eta.count(
        2,
        10,
    )  # 2 parts in 4 s: 2 s each, 8 to go: 16 s
    assert eta.remaining(104.0) == 16.0
    assert eta.remaining(105.0) == 15.0  # counting down
    assert eta.remaining(106.0) == 14.0  # the 3rd part took its 2 s: 7 parts after it
    # later, the 3rd part is late: counted as done now, the 7 after it at that rate
    assert eta.remaining(109.0) == pytest.approx(9 / 3 * 7)  # 21 s: it grows
    eta.count(2, 10)  # the same count again (a step's inner text): no new start
    assert eta.remaining(105.0) == 15.0
    clock.now = 110.0
    eta.count(5, 10)  # 5 in 10 s: 2 s each, 5 to go
    assert eta.remaining(110.0) == 10.0
    clock.now = 118.0
    eta.count(9, 10)  # 9 in 18 s: 2 s each, the last part to go
    assert eta.remaining(119.0) == 1.0
    assert eta.remaining(121.0) is None  # the last part is late: no ETA rather than "0 s"
    eta.count(10, 10)
    assert eta.remaining(110.0) is None  # done
    clock.now = 200.0
    eta.restart()  # a new step: a new job
    clock.now = 201.0
    eta.count(1, 4)  # 1 s each, 3 to go
    assert eta.remaining(201.0) == 3.0


def test_the_plain_line_ticks_while_a_part_takes_long(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse
    import time

    from rankset.cli import _output

    _terminal(monkeypatch, rich=False)
    monkeypatch.setattr(_output, "_TICK_S", 0.05)
    with _output.progress(argparse.Namespace(quiet=False)) as step:
        step.count(1, 4, "buckets")
        time.sleep(0.4)  # one slow part: the line is redrawn, the count unchanged
    states = [part.rstrip() for part in capsys.readouterr().err.split("\r") if part.strip()]
    assert len(states) >= 3
    assert all(state.startswith("rankset: buckets  1/4  ") for state in states)
    times = [float(re.search(r"  ([\d.]+) s", state)[1]) for state in states]  # type: ignore[index]
    assert times[-1] > times[0]  # the elapsed time moves
    assert all(", ETA " in state for state in states)


def test_a_warning_gets_a_row_of_its_own_above_the_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    from rankset.cli import _output

    _terminal(monkeypatch, rich=False)
    with _output.progress(argparse.Namespace(quiet=False)) as step:
        step.count(1, 4, "buckets")
        print("rankset: warning: something to know", file=sys.stderr)  # print: text, "\n"
        step.count(2, 4, "buckets")
    assert not isinstance(sys.stderr, _output._Above)  # put back
    first, second = capsys.readouterr().err.split("\n")
    states = first.split("\r")
    assert states[1].startswith("rankset: buckets  1/4  ")
    assert states[2].strip() == ""  # the line erased...
    assert states[3] == "rankset: warning: something to know"  # ...the warning on its row
    below = [state for state in second.split("\r") if state.strip()]
    assert below[0].startswith("rankset: buckets  1/4  ")  # the line again, under it
    assert below[-1].startswith("rankset: buckets  2/4  ")
