"""The progress display: counts and times on a terminal, nothing on a pipe or with --quiet.

``rankset report`` counts its steps (evaluation, comparison, curves, diagnosis, label sets,
worst queries, the page). On a terminal (stderr is a TTY) they are shown with rich when it
is installed, else as one plain line rewritten in place; on a pipe, and with ``--quiet``,
nothing is written. A terminal is faked by making the captured stderr say it is one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rankset.cli import main
from rankset.pages.report import report

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
STEPS = 7  # the analysis's 5 steps, the worst queries and the page (rankset.pages.report)


def _report(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "report",
        str(SAMPLE / "bm25.trec"),
        str(SAMPLE / "rerank.trec"),
        "--qrels",
        str(SAMPLE / "qrels.txt"),
        "--scale",
        "trec_dl",  # no warning about the scale on stderr
        "--n-resamples",
        "200",
        "--out",
        str(tmp_path / "report.html"),
        *extra,
    ]


def _terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the captured stderr a terminal (rich and the plain display both ask isatty).

    Called in the test itself: the stream capsys captures into during the test is not
    the one in place while fixtures are set up.
    """
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv("TERM", raising=False)


@pytest.fixture
def without_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("rich", "rich.console", "rich.progress"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails: the core install


def test_nothing_on_a_pipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert not sys.stderr.isatty()
    assert main(_report(tmp_path)) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.strip() == str(tmp_path / "report.html")


def test_rich_counts_the_steps_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("rich")
    _terminal(monkeypatch)
    assert main(_report(tmp_path)) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == str(tmp_path / "report.html")  # stdout stays clean
    for done in range(1, STEPS + 1):
        assert f"{done}/{STEPS}" in captured.err
    for step in ("evaluating", "comparing: ", " resamples", "metric-vs-k curves"):
        assert step in captured.err
    assert "0:00:0" in captured.err  # elapsed and ETA


def test_a_plain_line_counts_the_steps_without_rich(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    without_rich: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _terminal(monkeypatch)
    assert main(_report(tmp_path)) == 0
    err = capsys.readouterr().err
    lines = err.split("\r")
    shown = [line.strip() for line in lines if line.strip()]
    assert shown[0].startswith(f"rankset: evaluating  0/{STEPS}  ")
    assert any(line.startswith(f"rankset: charts and page  {STEPS - 1}/{STEPS}") for line in shown)
    assert any(", ETA " in line for line in shown)
    assert "\n" not in err  # one line, rewritten in place
    assert lines[-1] == ""  # and erased at the end
    assert lines[-2].strip() == ""


@pytest.mark.parametrize("rich", [True, False], ids=["rich", "plain"])
def test_quiet_silences_a_terminal(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rich: bool,
) -> None:
    _terminal(monkeypatch)
    if not rich:
        for name in ("rich", "rich.console", "rich.progress"):
            monkeypatch.setitem(sys.modules, name, None)
    assert main(_report(tmp_path, "--quiet")) == 0
    assert capsys.readouterr().err == ""
    assert main(["--quiet", *_report(tmp_path)]) == 0
    assert capsys.readouterr().err == ""


def test_report_calls_its_progress_callback_for_each_step(tmp_path: Path) -> None:
    calls: list[tuple[int, int, str]] = []
    report(
        [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")],
        str(SAMPLE / "qrels.txt"),
        scale="trec_dl",
        n_resamples=100,
        out=tmp_path / "r.html",
        progress=lambda done, total, step: calls.append((done, total, step)),
    )
    steps = [done for done, _, step in calls if ": " not in step]  # a step's inner count
    assert steps == list(range(STEPS + 1))
    assert [done for done, _, _ in calls] == sorted(done for done, _, _ in calls)
    assert {total for _, total, _ in calls} == {STEPS}
    assert calls[0][2] == "evaluating"
    assert calls[-1][2] == "done"
    # the comparison's resamples, shown within the comparing step, every system as the
    # baseline in one pass: a randomization test and a bootstrap of 100 for the one group
    # of comparisons over as many queries (the default metrics, over the 40 queries)
    inner = [step for done, _, step in calls if step.startswith("comparing: ")]
    assert inner[-1] == "comparing: 200/200 resamples"
    assert all(done == 1 for done, _, step in calls if step.startswith("comparing"))
