"""``python -m rankset`` runs the same command line as ``rankset`` and ``python -m rankset.cli``."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from rankset import __version__
from rankset.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_python_m_rankset_is_the_rankset_command() -> None:
    args = [str(SAMPLE / "bm25.trec"), "--qrels", str(SAMPLE / "qrels.txt"), "-m", "rr"]
    outputs = [
        subprocess.run(
            [sys.executable, "-m", module, "evaluate", *args],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for module in ("rankset", "rankset.cli")
    ]
    assert "rr" in outputs[0]
    assert outputs[0] == outputs[1]


def test_the_program_freezes_what_is_left_and_a_call_in_process_does_not(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # main() without argv is the program (its script, python -m): the exit then skips a
    # walk over every object for cycles. With argv it is a call in someone's process.
    gc.unfreeze()
    try:
        assert main(["--version"]) == 0
        assert gc.get_freeze_count() == 0
        monkeypatch.setattr(sys, "argv", ["rankset", "--version"])
        assert main() == 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert capsys.readouterr().out.splitlines() == [__version__, __version__]


def test_the_program_looks_for_cycles_seldom_and_restores_the_collector(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The modules a command imports live until the exit: the program does not walk them
    # for cycles every 700 new objects. A call in someone's process changes nothing.
    import rankset.cli

    seen: list[tuple[int, int, int]] = []
    real = rankset.cli._main

    def recording(argv: list[str] | None) -> int:
        seen.append(gc.get_threshold())
        return real(argv)

    monkeypatch.setattr(rankset.cli, "_main", recording)
    before = gc.get_threshold()
    try:
        assert main(["--version"]) == 0
        monkeypatch.setattr(sys, "argv", ["rankset", "--version"])
        assert main() == 0
    finally:
        gc.unfreeze()
    assert seen[0] == before
    assert seen[1][0] >= 100_000
    assert seen[1][1:] == before[1:]
    assert gc.get_threshold() == before
    capsys.readouterr()
