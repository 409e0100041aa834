"""The command line: its stable outputs and its behaviour on bad input (exit 2, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

import rankset
import rankset.measures
from rankset.cli import main

RUN = "q1 Q0 a 1 3.0 sysA\nq1 Q0 b 2 2.0 sysA\nq2 Q0 c 1 1.0 sysA\n"
QRELS = "q1 0 b 1\nq1 0 z 2\nq2 0 c 0\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    run = tmp_path / "a.run"
    qrels = tmp_path / "qrels.txt"
    run.write_text(RUN)
    qrels.write_text(QRELS)
    return run, qrels


def test_json_summary_is_the_stable_contract(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run, qrels = files
    assert (
        main(["evaluate", str(run), "--qrels", str(qrels), "-m", "rr", "-m", "P_1", "--json"]) == 0
    )
    records = json.loads(capsys.readouterr().out)
    # q1: b relevant at 2 -> rr 1/2, P@1 0; q2: nothing relevant -> 0
    assert records == [
        {"system": "sysA", "metric": "rr", "mean": 0.25, "n_queries": 2, "n_na": 0},
        {"system": "sysA", "metric": "precision@1", "mean": 0.0, "n_queries": 2, "n_na": 0},
    ]


def test_table_output_is_readable(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run, qrels = files
    assert main(["evaluate", str(run), "--qrels", str(qrels), "-m", "recall@2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["system", "queries", "recall@2"]
    assert lines[2].split() == ["sysA", "2", "0.2500"]  # (1/2 + 0) / 2


def test_per_query_parquet_has_contract_columns_and_config(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    run, qrels = files
    out = tmp_path / "per_query.parquet"
    assert (
        main(
            [
                "evaluate",
                str(run),
                "--qrels",
                str(qrels),
                "-m",
                "ap",
                "--per-query",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    frame = pl.read_parquet(out)
    assert {"system", "query_id", "metric", "value"} <= set(frame.columns)
    assert frame.sort("query_id")["value"].to_list() == [0.25, 0.0]  # (1/2)/2 relevant; none
    config = json.loads(pl.read_parquet_metadata(out)["rankset"])
    assert json.loads(pq.read_metadata(out).metadata[b"rankset"]) == config  # any reader
    assert config["metrics"] == ["ap"]
    assert config["relevance_level"] == 1
    assert not list(tmp_path.glob("*.tmp*"))


def test_relevance_level_and_missing_flags(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run, qrels = files
    args = ["evaluate", str(run), "--qrels", str(qrels), "-m", "num_rel", "--json"]
    assert main([*args, "-l", "2"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["mean"] == 0.5  # q1 has z, q2 none


def test_dropped_queries_are_reported_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "r.run"
    qrels = tmp_path / "q.txt"
    run.write_text("q1 Q0 a 1 1.0 t\nq9 Q0 a 1 1.0 t\n")
    qrels.write_text("q1 0 a 1\nq2 0 a 1\n")
    assert main(["evaluate", str(run), "--qrels", str(qrels), "-m", "ap", "--json"]) == 0
    captured = capsys.readouterr()
    assert "1 run queries have no labels" in captured.err
    assert "1 labelled queries not in the run (skipped)" in captured.err
    json.loads(captured.out)  # stdout stays machine-readable


def test_samples_jsonl_carry_their_own_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        json.dumps(
            {
                "id": "q-1",
                "expected_output": ["doc-3", "doc-9"],
                "actual_output": {
                    "retrieved": [{"id": d} for d in ["doc-7", "doc-3", "doc-1", "doc-9", "doc-2"]]
                },
                "metadata": {"k": 5},
            }
        )
        + "\n"
    )
    assert main(["evaluate", str(samples), "-m", "retrieval-mrr", "-m", "hit", "--json"]) == 0
    records = {r["metric"]: r["mean"] for r in json.loads(capsys.readouterr().out)}
    assert records == {"rr": 0.5, "hit@k": 1.0}


BAD_INPUT = [
    ("a.run", "q1 Q0 a 1 3.0\n", r"a\.run, line 1: expected 6"),
    ("a.run", "q1 Q0 a 1 3.0 t\nq1 Q0 b 2 high t\n", r"a\.run, line 2: .*score"),
    ("empty.run", "", r"empty\.run.*no data lines"),
]


@pytest.mark.parametrize(("name", "text", "message"), BAD_INPUT)
def test_bad_run_file_exits_2_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, message: str
) -> None:
    run = tmp_path / name
    run.write_text(text)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    assert main(["evaluate", str(run), "--qrels", str(qrels), "-m", "ap"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankset: error: ")
    assert "Traceback" not in err
    assert pytest.importorskip("re").search(message, err), err


def test_bad_grade_in_qrels_names_line(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, _ = files
    qrels = tmp_path / "bad.qrels"
    qrels.write_text("q1 0 b 1\nq1 0 c x\n")
    assert main(["evaluate", str(run), "--qrels", str(qrels), "-m", "ap"]) == 2
    err = capsys.readouterr().err
    assert "bad.qrels, line 2" in err
    assert "grade" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-m", "ndgc@10"], "Did you mean 'ndcg'"),
        (["-m", "ndcg@0"], "must be an int >= 1"),
        (["-m", "ap", "--k", "0"], "The 'k' parameter must be an int >= 1"),
    ],
)
def test_bad_options_exit_2(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    run, qrels = files
    assert main(["evaluate", str(run), "--qrels", str(qrels), *extra]) == 2
    assert message in capsys.readouterr().err


def test_missing_file_and_no_overlap_exit_2(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, qrels = files
    assert main(["evaluate", str(tmp_path / "nope.run"), "--qrels", str(qrels)]) == 2
    assert "nope.run" in capsys.readouterr().err
    other = tmp_path / "other.txt"
    other.write_text("x1 0 a 1\n")
    assert main(["evaluate", str(run), "--qrels", str(other)]) == 2
    assert "No query in common" in capsys.readouterr().err


def test_duplicate_docs_exit_2_or_keep_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "dup.run"
    run.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 a 2 2.0 t\n")
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\n")
    assert main(["evaluate", str(run), "--qrels", str(qrels), "-m", "num_ret"]) == 2
    assert "duplicate documents" in capsys.readouterr().err
    assert (
        main(
            [
                "evaluate",
                str(run),
                "--qrels",
                str(qrels),
                "-m",
                "num_ret",
                "--keep-best-duplicate",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)[0]["mean"] == 1.0


def test_crlf_and_tabs_parse_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text(QRELS)
    outputs = []
    for name, text in [
        ("plain.run", RUN),
        ("crlf.run", RUN.replace("\n", "\r\n")),
        ("tabs.run", RUN.replace(" ", "\t")),
    ]:
        path = tmp_path / name
        path.write_bytes(text.encode())
        assert (
            main(["evaluate", str(path), "--qrels", str(qrels), "-m", "ap", "-m", "ndcg", "--json"])
            == 0
        )
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1] == outputs[2]


def test_console_script_runs_without_traceback(tmp_path: Path) -> None:
    run = tmp_path / "bad.run"
    run.write_text("q1 Q0 a\n")
    completed = subprocess.run(
        [sys.executable, "-m", "rankset.cli", "evaluate", str(run), "--qrels", str(run)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert "bad.run, line 1" in completed.stderr


def test_measures_lists_every_measure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    for name in ["ndcg[@k]", "precision@k", "bpref", "num_rel_ret"]:
        assert name in out
    assert main(["measures", "--markdown"]) == 0
    table = capsys.readouterr().out
    assert table == rankset.measures.measure_table()
    assert table.count("\n| `") == len(rankset.available_measures())


def test_curves_command_json_and_parquet(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, qrels = files
    out = tmp_path / "curves.parquet"
    args = ["curves", str(run), "--qrels", str(qrels), "-m", "precision", "--k-max", "2"]
    assert main([*args, "--json", "--out", str(out)]) == 0
    records = json.loads(capsys.readouterr().out)
    # q1: a, b(relevant) -> P@1 0, P@2 1/2; q2: c not relevant -> 0, 0
    assert [(r["k"], r["mean"]) for r in records] == [(1, 0.0), (2, 0.25)]
    assert set(records[0]) >= {"system", "metric", "k", "mean", "ci_low", "ci_high"}
    assert pl.read_parquet(out)["mean"].to_list() == [0.0, 0.25]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[0].split() == ["system", "metric", "@1", "@2"]


def test_diagnose_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 5\nq2 0 b 5\nq2 0 c 1\n")
    first = tmp_path / "first.run"
    first.write_text("q1 Q0 a 1 2 t\nq2 Q0 c 1 2 t\nq2 Q0 b 2 1 t\n")
    rerank = tmp_path / "rerank.run"
    rerank.write_text("q1 Q0 a 1 2 t\nq2 Q0 b 1 2 t\nq2 Q0 c 2 1 t\n")
    args = [
        "diagnose",
        str(first),
        str(rerank),
        "--name",
        "first",
        "--name",
        "rerank",
        "--qrels",
        str(qrels),
        "-k",
        "1",
        "--baseline",
        "first",
        "--json",
    ]
    assert main(args) == 0
    output = json.loads(capsys.readouterr().out)
    counts = {(r["system"], r["quadrant"]): r["n_queries"] for r in output["counts"]}
    # first: q1 healthy; q2 pool holds b but top-1 is c -> reranking miss. rerank: both healthy.
    assert counts["first", "healthy"] == 1
    assert counts["first", "reranking miss"] == 1
    assert counts["rerank", "healthy"] == 2
    changes = {r["change"]: r["n_queries"] for r in output["regressions"]["rerank"]}
    assert changes["improved"] == 1  # q2: recall@1 and ndcg@1 rose
    assert changes["unchanged"] == 1


def test_compare_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    out = tmp_path / "comparison.parquet"
    args = [
        "compare",
        str(sample / "bm25.trec"),
        str(sample / "rerank.trec"),
        "--qrels",
        str(sample / "qrels.txt"),
        "-m",
        "ndcg@10",
        "--baseline",
        "bm25",
        "--test",
        "randomization",
        "--n-resamples",
        "500",
        "--json",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["system"], r["metric"], r["test"]) for r in rows] == [
        ("rerank", "ndcg@10", "randomization")
    ]
    # the README's sample: ndcg@10 0.5768 (rerank) vs 0.4474 (bm25) on the same 40 queries
    assert rows[0]["delta"] == pytest.approx(0.5768 - 0.4474, abs=1e-4)
    assert rows[0]["n_queries"] == 40
    assert rows[0]["ci_low"] < rows[0]["delta"] < rows[0]["ci_high"]
    assert pl.read_parquet(out).height == 1
    assert main([*args[:-3], "--baseline", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_quiet_flag_and_clean_stderr_when_not_a_terminal(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run, qrels = files
    for extra in ([], ["--quiet"]):
        assert (
            main([*extra, "evaluate", str(run), "--qrels", str(qrels), "-m", "ap", "--json"]) == 0
        )
        captured = capsys.readouterr()
        assert captured.err == ""  # no progress display: stderr is not a terminal here
        json.loads(captured.out)


def test_report_command_writes_a_self_contained_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    out = tmp_path / "report.html"
    args = [
        "report",
        str(sample / "bm25.trec"),
        str(sample / "rerank.trec"),
        "--qrels",
        str(sample / "qrels.txt"),
        "--scale",
        "trec_dl",
        "--baseline",
        "bm25",
        "-m",
        "ndcg@10",
        "-m",
        "ra_nwg@5",
        "--k-max",
        "5",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    assert capsys.readouterr().out.strip() == str(out)
    page = out.read_text()
    assert "0.5768" in page  # rerank's ndcg@10 on the sample, as in the README
    assert 'src="http' not in page
    assert "Content-Security-Policy" in page


def test_fuse_command_writes_a_run_that_evaluates(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    runs = [str(sample / "bm25.trec"), str(sample / "rerank.trec")]
    out = tmp_path / "fused.trec"
    assert main(["fuse", *runs, "--method", "rrf", "--k", "60", "--out", str(out)]) == 0
    written = rankset.scan_run(out).collect()
    expected = rankset.fuse(runs, "rrf", k=60).collect()
    assert written.select("query_id", "doc_id", "rank").equals(
        expected.select("query_id", "doc_id", "rank")
    )
    assert set(written["system"]) == {"fused"}


def test_fuse_command_optimizes_then_writes_the_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    runs = [str(sample / "bm25.trec"), str(sample / "rerank.trec")]
    train = tmp_path / "train.txt"
    train.write_text("".join(f"q{i:03d}\n" for i in range(1, 21)), encoding="utf-8")
    out = tmp_path / "best.trec"
    argv = ["fuse", *runs, "--method", "rrf", "--optimize", "--qrels", str(sample / "qrels.txt")]
    argv += ["--grid", "k=1,60", "--train-queries", str(train), "--json", "--out", str(out)]
    assert main(argv) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["best"]["method"] == "rrf"
    assert {row["n_train"] for row in output["table"]} == {20}
    assert len(output["table"]) == 2
    assert out.exists()


def test_fuse_command_needs_labels_to_optimize(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    runs = [str(sample / "bm25.trec"), str(sample / "rerank.trec")]
    assert main(["fuse", *runs, "--optimize", "--out", str(tmp_path / "x.trec")]) == 2


def test_fuse_command_trains_a_probabilistic_method(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    runs = [str(sample / "bm25.trec"), str(sample / "rerank.trec")]
    qrels = str(sample / "qrels.txt")
    out = tmp_path / "slide.trec"
    argv = ["fuse", *runs, "--method", "slidefuse", "--w", "3", "--qrels", qrels]
    assert main([*argv, "--out", str(out)]) == 0
    written = rankset.scan_run(out).collect()
    expected = rankset.fuse(runs, "slidefuse", labels=qrels, w=3).collect()
    assert written.select("query_id", "doc_id", "rank").equals(
        expected.select("query_id", "doc_id", "rank")
    )


# --- the newcomer's first hour (issue 20) ----------------------------------------------

_SAMPLE_DIR = Path(__file__).resolve().parents[2] / "data" / "sample"
_BASE = [str(_SAMPLE_DIR / "bm25.trec"), "--qrels", str(_SAMPLE_DIR / "qrels.txt")]


def test_output_into_a_closed_pipe_is_not_an_error() -> None:
    # `rankset ... --json | head` used to end in "[Errno 32] Broken pipe" and exit 2.
    rankset_cli = [sys.executable, "-m", "rankset.cli", "curves", *_BASE, "--k-max", "1000"]
    with subprocess.Popen(
        [*rankset_cli, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as writer:
        assert writer.stdout is not None
        assert writer.stderr is not None
        assert writer.stdout.read(20).startswith(b"[")
        writer.stdout.close()  # the reader stops, as head does, with ~200 kB still to come
        assert writer.wait(timeout=120) == 0
        assert writer.stderr.read() == b""


def test_quiet_is_accepted_after_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", *_BASE, "-m", "rr", "--quiet"]) == 0
    assert main(["-q", "evaluate", *_BASE, "-m", "rr"]) == 0
    assert capsys.readouterr().err == ""


def test_a_qrels_file_given_as_a_run_is_named_so(capsys: pytest.CaptureFixture[str]) -> None:
    qrels = str(_SAMPLE_DIR / "qrels.txt")
    assert main(["evaluate", qrels, "--qrels", qrels, "-m", "rr"]) == 2
    assert "this looks like a qrels file" in capsys.readouterr().err
    run = str(_SAMPLE_DIR / "bm25.trec")
    assert main(["evaluate", run, "--qrels", run, "-m", "rr"]) == 2
    assert "this looks like a run file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("compare", ["significance level (default 0.05)", "resampling seed", "permutations"]),
        ("report", ["the page title", "--n-resamples", "resampling seed", "--quiet"]),
    ],
)
def test_every_option_has_help(
    command: str, expected: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for phrase in expected:
        assert phrase in text


def test_the_report_states_its_resample_count(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    argv = ["report", str(_SAMPLE_DIR / "rerank.trec"), *_BASE, "--scale", "trec_dl"]
    assert main([*argv, "--n-resamples", "60", "--seed", "3", "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "confidence interval below (60 resamples)" in page
    assert "paired randomization test (60 resamples)" in page


def test_measures_lists_the_aliases_as_the_readme_says(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ap = next(i for i, line in enumerate(lines) if line.startswith("ap[@k] "))
    assert lines[ap + 1].split() == ["also:", "average_precision,", "map,", "map_cut"]
    for alias in ("ndcg_cut", "recip_rank", "success"):  # trec_eval's names, in the list
        assert any(line.strip().startswith("also:") and alias in line for line in lines)


def test_small_p_values_print_alike_whatever_the_resample_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The smallest randomization p-value, 1 / (N + 1), printed as 0.0002 with N = 5,000
    # and as 1.0e-04 with N = 10,000.
    argv = ["compare", str(_SAMPLE_DIR / "rerank.trec"), *_BASE, "--baseline", "bm25"]
    argv += ["--test", "randomization", "-m", "ndcg@10", "--correction", "none"]
    printed = []
    for resamples in ("5000", "10000"):
        assert main([*argv, "--n-resamples", resamples]) == 0
        printed.append(capsys.readouterr().out)
    assert "2.0e-04" in printed[0]
    assert "1.0e-04" in printed[1]
