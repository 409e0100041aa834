"""Sloppy and hostile input (issue 23): clear errors, no silent loss, no replaced input.

Each case here ended in silent data loss, a raw traceback or an overwritten input before.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import polars as pl
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


# --- runs: scores and ids, through every reader -------------------------------------

NAN_RUN = "q1 Q0 d1 1 {score} r\nq1 Q0 d2 2 1.0 r\n"


def _write_run_as(tmp_path: Path, form: str, score: float) -> object:
    """The two-row run of NAN_RUN, d1 scored ``score``, in one of the readers' forms."""
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [score, 1.0]})
    text = NAN_RUN.format(score=repr(score).replace("inf", "Infinity"))
    if form == "trec":
        (tmp_path / "run.trec").write_text(text, encoding="utf-8")
        return tmp_path / "run.trec"
    if form == "trec.gz":
        (tmp_path / "run.trec.gz").write_bytes(gzip.compress(text.encode()))
        return tmp_path / "run.trec.gz"
    if form == "parquet":
        frame.write_parquet(tmp_path / "run.parquet")
        return tmp_path / "run.parquet"
    if form == "csv":
        frame.write_csv(tmp_path / "run.csv")
        return tmp_path / "run.csv"
    if form == "ranx-json":
        (tmp_path / "run.json").write_text(
            json.dumps({"q1": {"d1": score, "d2": 1.0}}), encoding="utf-8"
        )
        return tmp_path / "run.json"
    if form == "dict":
        return {"q1": {"d1": score, "d2": 1.0}}
    return frame


READER_FORMS = ["trec", "trec.gz", "parquet", "csv", "ranx-json", "dict", "frame"]


@pytest.mark.parametrize("form", READER_FORMS)
def test_a_nan_score_is_an_error_in_every_reader(tmp_path: Path, form: str) -> None:
    # NaN used to rank first: RR 1.0 where pytrec_eval gives 0.5 for this run.
    run = _write_run_as(tmp_path, form, float("nan"))
    qrels = {"q1": {"d2": 1}}
    with pytest.raises(rankset.RanksetError, match=r"a score that is NaN \(not a number\)") as info:
        rankset.evaluate(run, qrels, ["rr"], confidence=None)
    where = {"trec": "line 1", "trec.gz": "line 1", "csv": "row 1"}.get(form, "row 1")
    assert where in str(info.value)


@pytest.mark.parametrize("form", READER_FORMS)
@pytest.mark.parametrize(("score", "rr"), [(float("inf"), 0.5), (float("-inf"), 1.0)])
def test_an_infinite_score_is_ranked_with_a_warning_in_every_reader(
    tmp_path: Path, form: str, score: float, rr: float
) -> None:
    # d1 scored +inf ranks above the relevant d2 (RR 1/2); -inf below it (RR 1), as
    # trec_eval, pytrec_eval and ranx rank them.
    run = _write_run_as(tmp_path, form, score)
    with pytest.warns(rankset.RanksetWarning, match=r"1 score\(s\) are infinite"):
        result = rankset.evaluate(run, {"q1": {"d2": 1}}, ["rr"], confidence=None)
    assert result.summary["mean"].to_list() == [rr]


@pytest.mark.parametrize(
    ("query_id", "doc_id", "problem"),
    [
        ("q1", None, "no doc_id"),
        ("q1", "", "an empty doc_id"),
        ("q1", " ", "a doc_id with a leading or trailing space"),
        ("q1", "d2 ", "a doc_id with a leading or trailing space"),
        ("q1", "d\n2", "a doc_id with a control character"),
        (None, "d2", "no query_id"),
        ("", "d2", "an empty query_id"),
        ("q\x001", "d2", "a query_id with a control character"),
    ],
)
@pytest.mark.parametrize("form", ["frame", "parquet", "csv", "records-jsonl"])
def test_run_rows_without_usable_ids_are_errors(
    tmp_path: Path, form: str, query_id: str | None, doc_id: str | None, problem: str
) -> None:
    # Such rows used to be scored (a null doc id as an unjudged document) or dropped.
    frame = pl.DataFrame(
        {"query_id": ["q1", query_id], "doc_id": ["d1", doc_id], "score": [2.0, 1.0]}
    )
    run: object = frame
    if form == "parquet":
        run = tmp_path / "run.parquet"
        frame.write_parquet(run)
    elif form == "csv":
        if doc_id is None or query_id is None or "\n" in (doc_id or "") or doc_id == "":
            pytest.skip("CSV reads an empty or null field alike; a quoted LF is covered")
        run = tmp_path / "run.csv"
        frame.write_csv(run)
    elif form == "records-jsonl":
        run = tmp_path / "run.jsonl"
        run.write_text(
            "\n".join(json.dumps(row) for row in frame.iter_rows(named=True)) + "\n",
            encoding="utf-8",
        )
    # A text table with a NUL byte is refused as text first, naming the line.
    expected = f"{problem}|line 3: a NUL byte" if form == "csv" else problem
    with pytest.raises(rankset.RanksetError, match=expected):
        rankset.evaluate(run, {"q1": {"d1": 1}}, ["rr"], confidence=None)


def test_a_golden_record_without_a_doc_id_is_an_error_naming_its_line(tmp_path: Path) -> None:
    # It used to become a phantom relevant label: nDCG@10 0.7254 instead of 1.0.
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        '{"qid": "q1", "doc_id": "d1", "grade_1_5": 5}\n{"qid": "q1", "grade_1_5": 5}\n',
        encoding="utf-8",
    )
    with pytest.raises(rankset.InputFormatError, match=r"golden.jsonl, line 2: no doc_id"):
        rankset.evaluate({"q1": {"d1": 1.0}}, golden, ["ndcg@10"], confidence=None)


@pytest.mark.parametrize(
    ("sample", "message"),
    [
        ({"metadata": 5}, "line 2: metadata must be a JSON object"),
        ({"metadata": "k=5"}, "line 2: metadata must be a JSON object"),
        ({"metadata": {"k": 0}}, "line 2: metadata.k must be an integer >= 1, found 0"),
        ({"expected_output": {"d1": None}}, "line 2: no grade"),
        ({"expected_output": {"d1": float("nan")}}, "line 2: a grade that is not a finite"),
        ({"expected_output": {"d1": float("inf")}}, "line 2: a grade that is not a finite"),
        ({"actual_output": ["d1", ""]}, "line 2: an empty doc_id"),
        ({"actual_output": ["d1", " "]}, "line 2: a doc_id with a leading or trailing space"),
    ],
)
def test_sample_fields_that_cannot_be_used_are_errors_naming_the_line(
    tmp_path: Path, sample: dict[str, object], message: str
) -> None:
    good = {"id": "q1", "expected_output": ["d1"], "actual_output": ["d1", "d2"]}
    bad = {**good, "id": "q2", **sample}
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(rankset.InputFormatError, match=message):
        rankset.evaluate(path, None, ["recall@5"], confidence=None)


# --- tables ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "query_id,doc_id,score\nq1,d1,2.0\nq1,d2\n",
            "line 3: expected 3 fields as in the header, found 2",
        ),
        (
            "query_id,doc_id,score\nq1,d1,2.0\nq1,d2,1,7\n",
            "line 3: expected 3 fields as in the header, found 4",
        ),
        (
            'query_id,doc_id,score\n"q1","d,1",2.0\nq1\n',
            "line 3: expected 3 fields as in the header, found 1",
        ),
        ("query_id,doc_id,score\n", "the file has a header row but no data rows"),
        (
            "query_id,doc_id,doc_id,score\nq1,d1,d9,2.0\n",
            "the header names column 'doc_id' more than once",
        ),
    ],
    ids=["short-row", "long-row", "quoted-short-row", "header-only", "duplicated-column"],
)
def test_csv_rows_and_headers_that_do_not_fit_are_errors(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "run.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(rankset.InputFormatError, match=message):
        rankset.scan_run(path)


def test_a_csv_with_cr_only_line_ends_reads_every_row(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_bytes(b"query_id,doc_id,score\rq1,d1,2.0\rq1,d2,1.0\r")
    assert rankset.scan_run(path).collect()["doc_id"].to_list() == ["d1", "d2"]


def test_a_parquet_run_or_labels_without_rows_is_an_error(tmp_path: Path) -> None:
    schema = {"query_id": pl.String, "doc_id": pl.String}
    pl.DataFrame(schema={**schema, "score": pl.Float64}).write_parquet(tmp_path / "run.parquet")
    pl.DataFrame(schema={**schema, "grade": pl.Int64}).write_parquet(tmp_path / "qrels.parquet")
    with pytest.raises(rankset.SchemaError, match=r"run\.parquet: the run has no rows"):
        rankset.evaluate(tmp_path / "run.parquet", {"q1": {"d1": 1}}, ["rr"])
    with pytest.raises(rankset.SchemaError, match=r"qrels\.parquet: the labels have no rows"):
        rankset.evaluate({"q1": {"d1": 1.0}}, tmp_path / "qrels.parquet", ["rr"])


# --- messages instead of tracebacks ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply"),
        ('{"qid": "q1", "doc_id": ' + "9" * 5_000 + ', "grade_1_5": 4}', "too long to read"),
        ('{"qid": "q1", "doc_id": "d\\ud800", "grade_1_5": 4}', "lone UTF-16 surrogate"),
        (
            '{"qid": "q1", "doc_id": "d1", "grade_1_5": 4}\n'
            '{"qid": "q1", "doc_id": "d\\udc00", "grade_1_5": 4}',
            "line 2: a string holds a lone UTF-16 surrogate",
        ),
    ],
    ids=["deep-nesting", "5000-digit-id", "lone-surrogate", "lone-surrogate-line-2"],
)
def test_json_the_parser_cannot_hold_gets_a_message(
    tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(text, encoding="utf-8")
    argv = ["evaluate", str(SAMPLE / "bm25.trec"), "--qrels", str(path), "-m", "rr"]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_damaged_parquet_file_gets_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pl.DataFrame({"query_id": ["q1"] * 2_000, "doc_id": [f"d{i}" for i in range(2_000)]})
    good = tmp_path / "good.parquet"
    frame.with_columns(score=pl.int_range(2_000).cast(pl.Float64)).write_parquet(good)
    data = good.read_bytes()
    damaged = tmp_path / "damaged.parquet"
    damaged.write_bytes(data[: len(data) // 2] + b"\0" * 64 + data[len(data) // 2 + 64 :])
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    assert main(["evaluate", str(damaged), "--qrels", str(qrels), "-m", "rr"]) == 2
    err = capsys.readouterr().err
    assert "damaged.parquet" in err
    assert "Traceback" not in err


def test_a_write_that_fails_names_the_file_and_keeps_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A full disk surfaces from Polars' writer as a ComputeError wrapping ENOSPC.
    out = tmp_path / "per_query.parquet"
    out.write_bytes(b"the earlier file")

    def disk_full(*args: object, **kwargs: object) -> None:
        raise pl.exceptions.ComputeError(
            "underlying IO error: No space left on device (os error 28)"
        )

    monkeypatch.setattr(pl.DataFrame, "write_parquet", disk_full)
    argv = ["evaluate", str(SAMPLE / "bm25.trec"), "--qrels", str(SAMPLE / "qrels.txt")]
    assert main([*argv, "-m", "rr", "--per-query", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}: could not write the file (the file that was there is unchanged)" in err
    assert "No space left on device" in err
    assert out.read_bytes() == b"the earlier file"
    assert [p.name for p in tmp_path.iterdir()] == ["per_query.parquet"]  # no temporary left


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_a_nul_byte_in_a_text_file_is_an_error_naming_its_line(tmp_path: Path, suffix: str) -> None:
    # Found by the reader fuzz test: a last line holding only NUL was skipped as blank.
    data = b"1 Q0 1 1 0.0 fuzz\n\x00"
    path = tmp_path / f"run.trec{suffix}"
    path.write_bytes(gzip.compress(data) if suffix else data)
    with pytest.raises(rankset.InputFormatError, match=r"line 2: a NUL byte"):
        rankset.evaluate(path, {"1": {"1": 1}}, ["rr"], confidence=None)
