"""Sloppy and hostile input (issue 23): clear errors, no silent loss, no replaced input.

Each case here ended in silent data loss, a raw traceback or an overwritten input before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import rankset
from rankset.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
LF_RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\nq2 Q0 d4 1 1.0 r\n"
LF_QRELS = "q1 0 d2 1\nq1 0 d3 1\nq2 0 d4 2\n"


def test_cr_only_line_ends_read_every_line(tmp_path: Path) -> None:
    # Old-Mac files used to be read as one line: 3 of 4 documents silently lost.
    lf_run, cr_run = tmp_path / "lf.trec", tmp_path / "cr.trec"
    lf_qrels, cr_qrels = tmp_path / "lf.qrels", tmp_path / "cr.qrels"
    lf_run.write_text(LF_RUN, encoding="utf-8", newline="")
    cr_run.write_text(LF_RUN.replace("\n", "\r"), encoding="utf-8", newline="")
    lf_qrels.write_text(LF_QRELS, encoding="utf-8", newline="")
    cr_qrels.write_text(LF_QRELS.replace("\n", "\r"), encoding="utf-8", newline="")
    assert rankset.scan_run(cr_run).collect().height == 4
    metrics = ["rr", "num_ret", "num_rel"]
    lf = rankset.evaluate(lf_run, lf_qrels, metrics, confidence=None).per_query
    cr = rankset.evaluate(cr_run, cr_qrels, metrics, confidence=None).per_query
    assert cr.equals(lf)
    assert cr["value"].to_list() == [0.5, 1.0, 3.0, 1.0, 2.0, 1.0]


def test_per_query_output_onto_an_input_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.trec"
    run.write_text(LF_RUN, encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(LF_QRELS, encoding="utf-8")
    for output in (run, qrels):
        argv = ["evaluate", str(run), "--qrels", str(qrels), "-m", "rr"]
        assert main([*argv, "--per-query", str(output)]) == 2
        assert "is an input of this command" in capsys.readouterr().err
    assert run.read_text(encoding="utf-8") == LF_RUN  # untouched
    assert qrels.read_text(encoding="utf-8") == LF_QRELS


def test_a_trailing_slash_names_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", str(SAMPLE / "bm25.trec"), "--qrels", str(SAMPLE / "qrels.txt")]
    folder = f"{tmp_path / 'newdir'}/"
    assert main([*argv, "-m", "rr", "--per-query", folder]) == 2
    assert "names a folder" in capsys.readouterr().err
    assert not (tmp_path / "newdir").exists()  # no file called newdir
    result = rankset.evaluate(SAMPLE / "bm25.trec", SAMPLE / "qrels.txt", ["rr"])
    with pytest.raises(rankset.ParameterError, match="names a folder"):
        result.to_parquet(tmp_path)  # an existing folder


def test_json_output_is_strict_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Grades of 1.5e308 overflow the DCG to infinity; --json used to print `Infinity`.
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n", encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1.5e308\nq1 0 d2 1.5e308\n", encoding="utf-8")
    argv = ["evaluate", str(run), "--qrels", str(qrels), "-m", "dcg", "--json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Infinity" not in out
    assert json.loads(out, parse_constant=lambda name: pytest.fail(name))[0]["mean"] is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-m", "ndcg@99999999999999999999"], "must be an int <= 2147483647"),
        (["-m", "rr", "--k", "99999999999999999999"], "'k' parameter must be an int <= "),
        (["-m", "rr", "--buckets", "1000000000000"], "'buckets' parameter must be an int <= 4096"),
        (["-m", "fbeta(beta=1e400)@5"], "must be a finite number"),
        (["-m", "rr", "--dask", "tcp//bad"], "is not a scheduler address"),
    ],
)
def test_option_values_at_the_edges_get_messages(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["evaluate", str(SAMPLE / "bm25.trec"), "--qrels", str(SAMPLE / "qrels.txt")]
    assert main([*base, *argv]) == 2
    assert message in capsys.readouterr().err


def test_curves_with_a_huge_k_max_is_refused_before_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["curves", str(SAMPLE / "bm25.trec"), "--qrels", str(SAMPLE / "qrels.txt")]
    assert main([*argv, "-m", "ndcg", "--k-max", "1000000000"]) == 2
    assert "at most 100,000 are computed" in capsys.readouterr().err


def test_a_trec_file_whose_query_id_opens_with_a_brace_is_trec(tmp_path: Path) -> None:
    # It used to be sniffed as JSON and refused as invalid JSON.
    run = tmp_path / "run"
    run.write_text("{301} Q0 d1 1 2.5 bm25\n{301} Q0 d2 2 1.5 bm25\n", encoding="utf-8")
    qrels = tmp_path / "qrels"
    qrels.write_text("{301} 0 d2 1\n", encoding="utf-8")
    result = rankset.evaluate(run, qrels, ["rr"], confidence=None)
    assert result.per_query["value"].to_list() == [0.5]
    json_run = tmp_path / "samples"
    json_run.write_text('{"q1": {"d1": 1.0, "d2": 0.5}}', encoding="utf-8")
    assert rankset.read(json_run, kind="run").format == "ranx"


def test_runs_and_labels_read_from_pipes_and_standard_input(tmp_path: Path) -> None:
    run, qrels = SAMPLE / "bm25.trec", SAMPLE / "qrels.txt"
    expected = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankset.cli",
            "evaluate",
            str(run),
            "--qrels",
            str(qrels),
            "-m",
            "rr",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(run.read_bytes()))
    writer.start()
    piped = subprocess.run(
        [
            sys.executable,
            "-m",
            "rankset.cli",
            "evaluate",
            str(fifo),
            "--qrels",
            str(qrels),
            "-m",
            "rr",
            "--name",
            "bm25",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    writer.join(timeout=60)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == expected
    from_stdin = subprocess.run(
        [sys.executable, "-m", "rankset.cli", "evaluate", "-", "--qrels", str(qrels), "-m", "rr"],
        input=run.read_bytes(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout.decode() == expected


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        ({"query_id": ["q1", None], "doc_id": ["d1", "d2"], "grade": [1, 1]}, "no query_id"),
        ({"query_id": ["q1", "q1"], "doc_id": ["d1", ""], "grade": [1, 1]}, "an empty doc_id"),
        ({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "grade": [1, None]}, "no grade"),
        (
            {"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "grade": [1.0, float("nan")]},
            "a grade that is not a finite number",
        ),
        (
            {"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "grade": [1.0, float("inf")]},
            "a grade that is not a finite number",
        ),
    ],
)
def test_label_rows_without_ids_or_a_finite_grade_are_errors(
    labels: dict[str, list[object]], problem: str
) -> None:
    # Such rows used to be dropped or scored without a word (NaN metric values).
    import polars as pl

    run = {"q1": {"d1": 2.0, "d2": 1.0}}
    with pytest.raises(rankset.SchemaError, match=f"1 label row\\(s\\) have {problem}"):
        rankset.evaluate(run, pl.DataFrame(labels), ["ndcg@10"], confidence=None)
