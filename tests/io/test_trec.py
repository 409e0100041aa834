"""Tests of rankset.io on TREC text: run and qrels layouts, trec_eval's rules, errors."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from _support.io_cases import EXPECTED_RUN, RUN_TEXT, labels_frame, write_bytes, write_text
from rankset.errors import InputFormatError
from rankset.io import read, scan_labels, scan_run

# trec_eval's own test files, copied with NIST's notice: always present.
TREC_EVAL_DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("spaces.trec", RUN_TEXT.encode()),
        ("tabs.run", RUN_TEXT.replace(" ", "\t").encode()),
        ("crlf.txt", RUN_TEXT.replace("\n", "\r\n").encode()),
        (
            "ragged_whitespace",
            b"  301 \t Q0  FR940202-2-00150\t1\t  2.5 bm25   \n"
            b"301 Q0 CR#93E-1860 2 -1e-3 bm25\n"
            b"007\tQ0\tmsmarco_v2.1_doc_50_2286987788#13_3087841662\t1\t0.75\tbm25",
        ),
        (
            "commented.trec",
            b"# a comment line\n\n   # indented comment\n"
            + RUN_TEXT.replace("\n", "\n\n", 1).encode()
            + b"\n  \n",
        ),
        ("zipped.trec.gz", gzip.compress(RUN_TEXT.encode())),
        ("zipped_without_extension", gzip.compress(RUN_TEXT.encode())),
    ],
)
def test_trec_run_layouts_parse_to_the_same_frame(
    tmp_path: Path, name: str, content: bytes
) -> None:
    path = write_bytes(tmp_path / name, content)

    parsed = read(path)

    assert parsed.format == "trec"
    assert parsed.labels is None
    assert parsed.run is not None
    assert_frame_equal(parsed.run.collect(), EXPECTED_RUN)


def test_trec_run_from_text_and_binary_streams() -> None:
    from_text = scan_run(io.StringIO(RUN_TEXT)).collect()
    from_bytes = scan_run(io.BytesIO(gzip.compress(RUN_TEXT.encode()))).collect()

    assert_frame_equal(from_text, EXPECTED_RUN)
    assert_frame_equal(from_bytes, EXPECTED_RUN)


@pytest.mark.parametrize("iteration", ["0", "Q0"])
def test_qrels_iteration_column_is_ignored(tmp_path: Path, iteration: str) -> None:
    text = f"301 {iteration} CR93E-10279 0\n301 {iteration} CR93E-1282 1\n0042 {iteration} 17 2\n"
    path = write_text(tmp_path / "qrels.txt", text)

    labels = scan_labels(path).collect()

    expected = labels_frame(
        [("301", "CR93E-10279", 0.0), ("301", "CR93E-1282", 1.0), ("0042", "17", 2.0)]
    )
    assert_frame_equal(labels, expected)


def test_qrels_keep_float_and_negative_grades(tmp_path: Path) -> None:
    path = write_text(tmp_path / "graded.qrels", "1 0 a 0.5\n1 0 b -1\n1 0 c 2.25\n1 0 d -2.5\n")

    parsed = read(path)

    assert parsed.run is None
    assert parsed.labels is not None
    assert parsed.labels.collect()["grade"].to_list() == [0.5, -1.0, 2.25, -2.5]


def test_numeric_looking_ids_stay_strings(tmp_path: Path) -> None:
    path = write_text(tmp_path / "ids.trec", "0301 Q0 00017 1 1 1e3\n")

    run = scan_run(path).collect()

    assert run.row(0) == ("0301", "00017", 1, 1.0, "1e3")
    assert run.schema["query_id"] == pl.String
    assert run.schema["doc_id"] == pl.String


def test_scores_parse_like_strtod(tmp_path: Path) -> None:
    scores = ["2.129133", "-1e-3", "+2", ".5", "7.", "1E2", "-0"]
    text = "".join(f"1 Q0 d{i} {i + 1} {s} t\n" for i, s in enumerate(scores))
    path = write_text(tmp_path / "scores.trec", text)

    run = scan_run(path).collect()

    assert run["score"].to_list() == [2.129133, -0.001, 2.0, 0.5, 7.0, 100.0, 0.0]


def test_kind_forces_the_trec_layout(tmp_path: Path) -> None:
    path = write_text(tmp_path / "run.trec", RUN_TEXT)

    assert read(path, kind="run").run is not None
    with pytest.raises(
        InputFormatError,
        match=r"run\.trec, line 1: expected 4 whitespace-separated fields "
        r"\(qid iter docid grade\), found 6",
    ):
        scan_labels(path)


def test_read_run_on_qrels_names_the_file_and_line(tmp_path: Path) -> None:
    path = write_text(tmp_path / "qrels.txt", "# header\n301 0 d1 1\n")

    with pytest.raises(InputFormatError, match=r"qrels\.txt, line 2: expected 6 .*found 4"):
        scan_run(path)


def test_run_fields_after_the_tag_are_ignored_like_trec_eval(tmp_path: Path) -> None:
    text = "301\tQ0\tFBIS3-27619\t99\t  2.138276\tSTANDARD more junk at\n"
    path = write_text(tmp_path / "results.trunc", text)

    run = scan_run(path).collect()

    assert run.rows() == [("301", "FBIS3-27619", 99, 2.138276, "STANDARD")]


@pytest.mark.parametrize(
    ("file_name", "kind"),
    [
        ("results.test", "run"),
        ("results.trunc", "run"),
        ("qrels.test.with-comments", "labels"),
    ],
)
def test_trec_eval_test_files(file_name: str, kind: str) -> None:
    path = TREC_EVAL_DATA / file_name
    with path.open() as handle:
        rows = [line.split() for line in handle if line.strip() and not line.startswith("#")]

    parsed = read(path)

    frame = parsed.run if kind == "run" else parsed.labels
    assert frame is not None
    table = frame.collect()
    assert table.height == len(rows)
    assert table["query_id"].unique().sort().to_list() == sorted({r[0] for r in rows})
    assert table["doc_id"].to_list() == [r[2] for r in rows]
    if kind == "run":
        assert table["system"].unique().to_list() == ["STANDARD"]


def test_trec_eval_results_first_row() -> None:
    run = scan_run(TREC_EVAL_DATA / "results.test").collect()

    assert run.row(0) == ("301", "FR940202-2-00150", 104, 2.129133, "STANDARD")


# --------------------------------------------------------------------------------------
# TREC errors
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "301 Q0 d1 1 2.0 t\n# comment\n\n301 Q0 FR940202 3 2.1\n301 Q0 d4 4 x t\n",
            r"bad\.trec, line 4: expected 6 whitespace-separated fields "
            r"\(qid Q0 docid rank score tag\), found 5: '301 Q0 FR940202 3 2\.1'",
        ),
        (
            "301 Q0 d1 1 2.0 t\n301 Q0 d2 2 abc t\n301 Q0 d3 3 xyz t\n",
            r"bad\.trec, line 2: score 'abc' is not a number",
        ),
        (
            "301 Q0 d1 1 2.0 t\n\n301 Q0 d2 2.5 1.0 t\n",
            r"bad\.trec, line 3: rank '2\.5' is not an integer",
        ),
        (
            "301 0 d1 1\n301 0 d2 1 extra\n",
            r"bad\.trec, line 2: expected 4 whitespace-separated fields "
            r"\(qid iter docid grade\), found 5",
        ),
        (
            "301 0 d1 1\n301 0 d2 1\n301 0 d3 high\n",
            r"bad\.trec, line 3: grade 'high' is not a number",
        ),
        ("a b c\n", r"bad\.trec, line 1: expected 6 .* or 4 .*found 3: 'a b c'"),
    ],
)
def test_bad_trec_lines_are_reported_with_file_and_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write_text(tmp_path / "bad.trec", text)

    with pytest.raises(InputFormatError, match=message):
        read(path)


def test_bad_line_number_counts_physical_lines_in_gzip(tmp_path: Path) -> None:
    text = "# c\r\n301 Q0 d1 1 2 t\r\n\r\n301 Q0 d2 two 1 t\r\n"
    path = write_bytes(tmp_path / "run.trec.gz", gzip.compress(text.encode()))

    with pytest.raises(InputFormatError, match=r"run\.trec\.gz, line 4: rank 'two'"):
        scan_run(path)


def test_file_without_data_lines_is_an_error(tmp_path: Path) -> None:
    path = write_text(tmp_path / "empty.trec", "# only a comment\n\n")

    with pytest.raises(
        InputFormatError, match=r"empty\.trec: the file has no data lines; expected"
    ):
        read(path)


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.trec"

    with pytest.raises(InputFormatError, match=r"file not found: .*nowhere\.trec"):
        read(missing)


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "latin1.trec", b"1 Q0 a 1 1 t\n1 Q0 caf\xe9 2 1 t\n")

    with pytest.raises(InputFormatError, match=r"latin1\.trec, line 2: not valid UTF-8"):
        read(path)
