"""``rankset sample_eval`` prints what NIST's ``sample_eval.pl`` prints, byte for byte.

The expected outputs are the script's own, for 130 generated cases (plain, ``-q``, and
``-G`` where a case has a gain map), committed in ``tests/data/sample_eval`` (see its
NOTICE): they run everywhere. With Perl and the script (``RANKSET_SAMPLE_EVAL``), the
script also runs live: on the committed inputs (the file is what it prints) and on 100
more generated cases, and on sampled qrels drawn from TREC DL 2019's with real runs.
"""

from __future__ import annotations

import gzip
import io
import random
from pathlib import Path

import pytest
from tests._support.sample_eval_cases import (
    CASE_COUNT,
    Case,
    fill,
    generate,
    load_cases,
    run_script,
    script_or_skip,
    write_inputs,
)

from rankset.cli import main as cli_main
from rankset.compat import sample_eval

CASES = load_cases()
RUNS = [
    (case, name, arguments) for case in CASES for name, arguments in case.argument_sets().items()
]


def _run(arguments: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = sample_eval.main(arguments, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_the_committed_cases_cover_what_the_task_asks() -> None:
    printed = [case for case in CASES if case.outputs["plain"]]
    assert len(CASES) == CASE_COUNT
    assert len(printed) >= 100
    assert all(case.outputs["q"] for case in printed)
    assert sum(1 for case in CASES if case.gains) >= 40
    assert any("2=10" in case.gains or "4=12" in case.gains for case in CASES)
    assert any(len(case.run.splitlines()) > 1000 for case in CASES)


@pytest.mark.parametrize(
    ("case", "name", "arguments"), RUNS, ids=[f"{c.seed}-{n}" for c, n, _ in RUNS]
)
def test_prints_the_scripts_output(
    tmp_path: Path, case: Case, name: str, arguments: list[str]
) -> None:
    qrels, run = write_inputs(case, tmp_path)
    status, out, err = _run(fill(arguments, qrels, run))
    expected = case.outputs[name]
    assert out == expected
    if expected:
        assert (status, err) == (0, "")
    else:  # no topic in common: the script stops dividing by zero, printing nothing
        assert status == 2
        assert "no topic of" in err


@pytest.mark.slow
def test_the_committed_outputs_are_the_scripts(tmp_path: Path) -> None:
    script = script_or_skip()
    for case in CASES:
        assert generate(case.seed) == Case(case.seed, case.qrels, case.run, case.gains)
        qrels, run = write_inputs(case, tmp_path)
        for name, arguments in case.argument_sets().items():
            assert run_script(script, fill(arguments, qrels, run))[1] == case.outputs[name]


@pytest.mark.slow
@pytest.mark.parametrize("block", range(4))
def test_equals_the_script_live_on_new_cases(tmp_path: Path, block: int) -> None:
    script = script_or_skip()
    for seed in range(CASE_COUNT + 25 * block, CASE_COUNT + 25 * (block + 1)):
        case = generate(seed)
        qrels, run = write_inputs(case, tmp_path)
        for name, arguments in case.argument_sets().items():
            filled = fill(arguments, qrels, run)
            expected = run_script(script, filled)[1]
            assert _run(filled)[1] == expected, (seed, name)


@pytest.mark.slow
def test_equals_the_script_on_sampled_dl19_qrels(tmp_path: Path, shared_data: Path) -> None:
    """DL19 passage qrels, stratified and sampled (seeded), and five real DL19 runs."""
    script = script_or_skip()
    qrels_file = shared_data / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    official = sorted((shared_data / "trec_dl_official" / "runs_dl19_complete").glob("*.gz"))
    first_stage = shared_data / "rank_llm_dl_runs" / "first_stage"
    runs = [*official, first_stage / "bm25.dl19.trec.gz", first_stage / "tasb.dl19.trec.gz"]
    if not qrels_file.is_file() or not all(run.is_file() for run in runs):
        pytest.skip("the DL19 passage qrels or runs are not in the shared data")
    rng = random.Random(2019)
    rates = {"1": 1.0, "2": 0.5, "3": 0.2}  # three strata sampled at different rates
    lines = []
    for line in gzip.decompress(qrels_file.read_bytes()).decode().splitlines():
        topic, _, doc, grade = line.split()
        stratum = rng.choice(sorted(rates))
        sampled = rng.random() < rates[stratum]
        lines.append(f"{topic} 0 {doc} {stratum} {grade if sampled else -1}")
    qrels = tmp_path / "qrels.dl19.sampled"
    qrels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for packed in runs:
        run = tmp_path / packed.name.removesuffix(".gz")
        run.write_bytes(gzip.decompress(packed.read_bytes()))
        for arguments in (["-q", str(qrels), str(run)], [str(qrels), str(run), "-G", "3=7"]):
            status, expected = run_script(script, arguments)
            assert status == 0
            assert _run(arguments)[1] == expected, run.name


def test_the_cli_runs_the_drop_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = next(c for c in CASES if c.outputs["q"] and len(c.run) < 3000)
    qrels, run = write_inputs(case, tmp_path)
    assert cli_main(["sample_eval", "-q", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == case.outputs["q"]


def test_rankset_help_lists_sample_eval(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main(["--help"])
    assert "sample_eval" in capsys.readouterr().out


def test_usage_and_unreadable_files_fail_as_the_script_does(tmp_path: Path) -> None:
    assert _run(["only-one"]) == (255, "", sample_eval.USAGE)
    missing = tmp_path / "missing"
    status, out, err = _run([str(missing), str(missing)])
    assert (status, out) == (2, "")
    assert err == f"Failed to open {missing}: No such file or directory\n\n"


def test_a_malformed_line_names_the_file_and_line(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1 1\n1 0 d2 1\n", encoding="utf-8")
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 1.0 r\n", encoding="utf-8")
    status, out, err = _run([str(qrels), str(run)])
    assert (status, out) == (2, "")
    assert f"{qrels}, line 2: expected 5 fields" in err
    qrels.write_text("1 0 d1 1 high\n", encoding="utf-8")
    assert "line 1: the grade 'high' is not a finite number" in _run([str(qrels), str(run)])[2]


def test_arguments_are_read_by_position_as_the_script_reads_them() -> None:
    parse = sample_eval.parse_command_line
    assert parse(["-q", "a", "b"]).per_topic
    assert parse(["x", "a", "b"]) == parse(["-q", "a", "b"])  # any first of three is -q
    assert parse(["a", "b", "-G", "1=0.25", "2=15"]).gains == (("1", "0.2"), ("2", "15"))
    assert parse(["a", "b", "-G"]).qrels == "b"  # three arguments: the first is dropped
    with pytest.raises(sample_eval.SampleEvalError, match="-G maps a one-character grade"):
        parse(["a", "b", "-G", "12"])


def test_run_topics_lose_leading_zeros_and_sort_as_numbers(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("10 0 a 1 1\n9 0 b 1 1\n", encoding="utf-8")
    run = tmp_path / "run"
    run.write_text("010 Q0 a 1 1 r\n9 Q0 b 1 1 r\n", encoding="utf-8")
    out = _run(["-q", str(qrels), str(run)])[1]
    topics = [line.split("\t")[2] for line in out.splitlines() if line.startswith("infAP\t\t")]
    assert topics == ["9", "10", "all"]
