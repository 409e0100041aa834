"""``rankset --help`` lists trec_eval; ``rankset trec_eval -h`` prints its usage, exit 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rankset.cli import main
from rankset.cli._trec_eval_help import asks_for_help

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_rankset_help_lists_trec_eval(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0
    listed = capsys.readouterr().out
    assert "trec_eval" in listed
    assert "trec_eval 10.0's options and output" in " ".join(listed.split())


@pytest.mark.parametrize(
    "argv",
    [["-h"], ["--help"], ["-qh"], ["-q", "-m", "map", "qrels", "run", "-h"]],
)
def test_trec_eval_help_prints_its_usage(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trec_eval", *argv]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("usage: rankset trec_eval [options] LABELS RUN\n")
    assert err == ""
    for option in ("-q", "-m, --measure", "-c", "-l", "-M", "-J", "-N", "-R", "-Z", "-v"):
        assert option in out
    assert "--trec-eval-version" in out


def test_a_measure_named_h_is_not_a_help_request() -> None:
    assert not asks_for_help(["-m", "-h", "qrels", "run"])
    assert not asks_for_help(["qrels", "run", "--", "-h"])
    assert not asks_for_help(["-l2", "qrels", "run"])


def test_trec_eval_still_runs_as_the_drop_in() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankset.cli",
            "trec_eval",
            "-m",
            "map",
            str(SAMPLE / "qrels.txt"),
            str(SAMPLE / "bm25.trec"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["map", "all"]
