"""Tests of rankset.io: parsing every input format, error messages, writers."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from rankset.errors import InputFormatError, ParameterError
from rankset.io import (
    atomic_path,
    read,
    read_labels,
    read_run,
    write_labels,
    write_run,
)

TREC_EVAL_DATA = Path("/work/shared/data/trec_eval_test")

RUN_TEXT = (
    "301 Q0 FR940202-2-00150 1 2.5 bm25\n"
    "301 Q0 CR#93E-1860 2 -1e-3 bm25\n"
    "007 Q0 msmarco_v2.1_doc_50_2286987788#13_3087841662 1 0.75 bm25\n"
)
EXPECTED_RUN = pl.DataFrame(
    {
        "query_id": ["301", "301", "007"],
        "doc_id": [
            "FR940202-2-00150",
            "CR#93E-1860",
            "msmarco_v2.1_doc_50_2286987788#13_3087841662",
        ],
        "rank": [1, 2, 1],
        "score": [2.5, -0.001, 0.75],
        "system": ["bm25", "bm25", "bm25"],
    },
    schema={
        "query_id": pl.String,
        "doc_id": pl.String,
        "rank": pl.Int64,
        "score": pl.Float64,
        "system": pl.String,
    },
)
LABELS_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64}


def write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def write_text(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


def labels_frame(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=LABELS_SCHEMA, orient="row")


# --------------------------------------------------------------------------------------
# TREC runs and qrels
# --------------------------------------------------------------------------------------


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
    from_text = read_run(io.StringIO(RUN_TEXT)).collect()
    from_bytes = read_run(io.BytesIO(gzip.compress(RUN_TEXT.encode()))).collect()

    assert_frame_equal(from_text, EXPECTED_RUN)
    assert_frame_equal(from_bytes, EXPECTED_RUN)


@pytest.mark.parametrize("iteration", ["0", "Q0"])
def test_qrels_iteration_column_is_ignored(tmp_path: Path, iteration: str) -> None:
    text = f"301 {iteration} CR93E-10279 0\n301 {iteration} CR93E-1282 1\n0042 {iteration} 17 2\n"
    path = write_text(tmp_path / "qrels.txt", text)

    labels = read_labels(path).collect()

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

    run = read_run(path).collect()

    assert run.row(0) == ("0301", "00017", 1, 1.0, "1e3")
    assert run.schema["query_id"] == pl.String
    assert run.schema["doc_id"] == pl.String


def test_scores_parse_like_strtod(tmp_path: Path) -> None:
    scores = ["2.129133", "-1e-3", "+2", ".5", "7.", "1E2", "-0"]
    text = "".join(f"1 Q0 d{i} {i + 1} {s} t\n" for i, s in enumerate(scores))
    path = write_text(tmp_path / "scores.trec", text)

    run = read_run(path).collect()

    assert run["score"].to_list() == [2.129133, -0.001, 2.0, 0.5, 7.0, 100.0, 0.0]


def test_kind_forces_the_trec_layout(tmp_path: Path) -> None:
    path = write_text(tmp_path / "run.trec", RUN_TEXT)

    assert read(path, kind="run").run is not None
    with pytest.raises(
        InputFormatError,
        match=r"run\.trec, line 1: expected 4 whitespace-separated fields "
        r"\(qid iter docid grade\), found 6",
    ):
        read_labels(path)


def test_read_run_on_qrels_names_the_file_and_line(tmp_path: Path) -> None:
    path = write_text(tmp_path / "qrels.txt", "# header\n301 0 d1 1\n")

    with pytest.raises(InputFormatError, match=r"qrels\.txt, line 2: expected 6 .*found 4"):
        read_run(path)


def test_run_fields_after_the_tag_are_ignored_like_trec_eval(tmp_path: Path) -> None:
    text = "301\tQ0\tFBIS3-27619\t99\t  2.138276\tSTANDARD more junk at\n"
    path = write_text(tmp_path / "results.trunc", text)

    run = read_run(path).collect()

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
    if not path.exists():
        pytest.skip(f"trec_eval test data not present at {path}")
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
    path = TREC_EVAL_DATA / "results.test"
    if not path.exists():
        pytest.skip(f"trec_eval test data not present at {path}")

    run = read_run(path).collect()

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
        read_run(path)


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


# --------------------------------------------------------------------------------------
# JSON: samples, rag-gs, dataset-json, records
# --------------------------------------------------------------------------------------

SAMPLES = [
    {
        "id": "q-1",
        "input": {"question": "What is our refund window?"},
        "expected_output": ["doc-3", "doc-9"],
        "actual_output": {
            "retrieved": [{"id": "doc-7", "text": "30 days"}, {"id": "doc-3", "text": "x"}]
        },
        "metadata": {"k": 5},
        "expected_answer": "30 days",
    },
    {
        "id": 2,
        "expected_output": json.dumps({"doc-3": 3, "doc-9": 1.5}),
        "actual_output": json.dumps(["doc-9", "doc-1"]),
        "expected_answer": ["a", "b"],
    },
    {"query_id": "q-3", "expected_output": {"doc-4": 2}, "actual_output": ["doc-4"]},
]


def check_samples(parsed_source: object) -> None:
    parsed = read(parsed_source)  # type: ignore[arg-type]
    assert parsed.format == "samples"
    assert parsed.run is not None
    assert parsed.labels is not None
    assert parsed.cutoffs is not None
    assert parsed.answers is not None
    expected_run = pl.DataFrame(
        {
            "query_id": ["q-1", "q-1", "2", "2", "q-3"],
            "doc_id": ["doc-7", "doc-3", "doc-9", "doc-1", "doc-4"],
            "rank": [1, 2, 1, 2, 1],
            "score": [None] * 5,
            "system": [None] * 5,
            "text": ["30 days", "x", None, None, None],
        },
        schema={**EXPECTED_RUN.schema, "text": pl.String},
    )
    assert_frame_equal(parsed.run.collect(), expected_run)
    expected_labels = labels_frame(
        [
            ("q-1", "doc-3", 1.0),
            ("q-1", "doc-9", 1.0),
            ("2", "doc-3", 3.0),
            ("2", "doc-9", 1.5),
            ("q-3", "doc-4", 2.0),
        ]
    )
    assert_frame_equal(parsed.labels.collect(), expected_labels)
    assert parsed.cutoffs.collect().rows() == [("q-1", 5)]
    assert parsed.cutoffs.collect_schema()["k"] == pl.Int64
    assert parsed.answers.collect().rows() == [("q-1", "30 days"), ("2", "a"), ("2", "b")]


def test_samples_jsonl(tmp_path: Path) -> None:
    path = write_text(tmp_path / "samples.jsonl", "\n".join(json.dumps(s) for s in SAMPLES))
    check_samples(path)


def test_samples_json_list_and_wrapped_object(tmp_path: Path) -> None:
    check_samples(write_text(tmp_path / "list.json", json.dumps(SAMPLES, indent=2)))
    check_samples(write_text(tmp_path / "wrapped.json", json.dumps({"samples": SAMPLES})))


def test_samples_from_a_stream() -> None:
    check_samples(io.StringIO("\n".join(json.dumps(s) for s in SAMPLES)))


def test_samples_without_outputs_contribute_nothing(tmp_path: Path) -> None:
    lines = [{"id": "a", "expected_output": ["d1"]}, {"id": "b", "expected_output": None}]
    path = write_text(tmp_path / "only_labels.jsonl", "\n".join(json.dumps(x) for x in lines))

    parsed = read(path)

    assert parsed.run is None
    assert parsed.cutoffs is None
    assert parsed.answers is None
    assert parsed.labels is not None
    assert parsed.labels.collect().rows() == [("a", "d1", 1.0)]
    with pytest.raises(InputFormatError, match=r"only_labels\.jsonl: expected run"):
        read_run(path)


def test_samples_run_has_no_text_column_without_texts(tmp_path: Path) -> None:
    path = write_text(tmp_path / "s.jsonl", json.dumps({"id": 1, "actual_output": ["x", "y"]}))

    run = read_run(path).collect()

    assert run.columns == ["query_id", "doc_id", "rank", "score", "system"]
    assert run.rows() == [("1", "x", 1, None, None), ("1", "y", 2, None, None)]


def test_malformed_json_line_names_file_and_line(tmp_path: Path) -> None:
    good = json.dumps(SAMPLES[0])
    path = write_text(tmp_path / "broken.jsonl", f"{good}\n\n{{'id': 1}}\n")

    with pytest.raises(InputFormatError, match=r"broken\.jsonl, line 3: invalid JSON"):
        read(path)


def test_non_numeric_gain_names_the_line(tmp_path: Path) -> None:
    lines = [{"id": "a", "expected_output": ["d1"]}, {"id": "b", "expected_output": {"d": "hi"}}]
    path = write_text(tmp_path / "gains.jsonl", "\n".join(json.dumps(x) for x in lines))

    with pytest.raises(InputFormatError, match=r"gains\.jsonl, line 2: grade 'hi' is not a number"):
        read(path)


def test_rag_golden_set(tmp_path: Path) -> None:
    rows = [
        {"qid": 301, "doc_id": "d1", "grade_1_5": 5, "note": "decisive"},
        {"query_id": "302", "doc_id": "d2", "grade_1_5": 2},
    ]
    path = write_text(tmp_path / "golden.jsonl", "\n".join(json.dumps(r) for r in rows))

    parsed = read(path)

    assert parsed.format == "rag-gs"
    assert parsed.stem == "golden"
    assert parsed.labels is not None
    assert_frame_equal(
        parsed.labels.collect(), labels_frame([("301", "d1", 5.0), ("302", "d2", 2.0)])
    )


def test_dataset_json(tmp_path: Path) -> None:
    dataset = {
        "dataset_name": "golden",
        "queries": [
            {
                "query_id": "q1",
                "query_input": {"query": "wireless earbuds"},
                "relevant_documents": ["doc_a1", "doc_a2"],
                "relevance_scores": {"doc_a1": 5, "doc_a2": 3, "doc_a9": 1},
            },
            {"query_id": "q2", "relevant_documents": ["doc_b1"]},
        ],
    }
    path = write_text(tmp_path / "dataset.json", json.dumps(dataset))

    parsed = read(path)

    assert parsed.format == "dataset-json"
    assert parsed.labels is not None
    expected = labels_frame(
        [("q1", "doc_a1", 5.0), ("q1", "doc_a2", 3.0), ("q1", "doc_a9", 1.0), ("q2", "doc_b1", 1.0)]
    )
    assert_frame_equal(parsed.labels.collect(), expected)


def test_records_jsonl_run_and_labels(tmp_path: Path) -> None:
    run_rows = [{"qid": 1, "docno": "a", "score": 0.5}, {"qid": 1, "docno": "b", "score": 0.25}]
    label_rows = [{"topic": "1", "pid": 7, "rel": 2}]
    run_path = write_text(tmp_path / "run.ndjson", "\n".join(json.dumps(r) for r in run_rows))
    label_path = write_text(tmp_path / "labels.jsonl", "\n".join(json.dumps(r) for r in label_rows))

    run = read(run_path)
    labels = read(label_path)

    assert run.format == labels.format == "records-jsonl"
    assert run.run is not None
    assert run.run.collect().rows() == [("1", "a", None, 0.5, None), ("1", "b", None, 0.25, None)]
    assert labels.labels is not None
    assert labels.labels.collect().rows() == [("1", "7", 2.0)]


def test_records_jsonl_bad_number_names_the_line(tmp_path: Path) -> None:
    rows = [{"qid": 1, "docno": "a", "rank": 1}, {"qid": 1, "docno": "b", "rank": "two"}]
    path = write_text(tmp_path / "run.jsonl", "\n".join(json.dumps(r) for r in rows))

    with pytest.raises(InputFormatError, match=r"run\.jsonl, line 2: column 'rank' value 'two'"):
        read(path)


# --------------------------------------------------------------------------------------
# Tables and frames
# --------------------------------------------------------------------------------------


def test_parquet_with_column_mapping(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pl.DataFrame(
        {"Q": [301, 301], "D": ["a", "b"], "pos": [1, 2], "sim": [2.5, 1.5], "tag": ["x", "x"]}
    ).write_parquet(path)

    parsed = read(path, columns={"Q": "query_id", "D": "doc_id", "pos": "rank"})

    assert parsed.format == "parquet"
    assert parsed.stem == "run"
    assert parsed.run is not None
    expected = pl.DataFrame(
        {
            "query_id": ["301", "301"],
            "doc_id": ["a", "b"],
            "rank": [1, 2],
            "score": [2.5, 1.5],
            "system": ["x", "x"],
        },
        schema=EXPECTED_RUN.schema,
    )
    assert_frame_equal(parsed.run.collect(), expected)


def test_csv_with_column_mapping_keeps_ids_as_text(tmp_path: Path) -> None:
    path = write_text(
        tmp_path / "labels.csv", "topic_no,passage,judgement\n007,0042,3\n007,9,0.5\n"
    )

    labels = read_labels(
        path, columns={"topic_no": "query_id", "passage": "doc_id", "judgement": "grade"}
    )

    assert_frame_equal(labels.collect(), labels_frame([("007", "0042", 3.0), ("007", "9", 0.5)]))


def test_tsv_gzipped_with_aliases(tmp_path: Path) -> None:
    text = "qid\tdocid\trank\tscore\trun_id\n1\ta\t1\t9.5\tsys\n"
    path = write_bytes(tmp_path / "run.tsv.gz", gzip.compress(text.encode()))

    parsed = read(path)

    assert parsed.format == "tsv"
    assert parsed.stem == "run"
    assert parsed.run is not None
    assert parsed.run.collect().rows() == [("1", "a", 1, 9.5, "sys")]


def test_csv_uncastable_column_names_column_and_source(tmp_path: Path) -> None:
    path = write_text(tmp_path / "bad.csv", "qid,docid,score\n1,a,0.5\n1,b,high\n")

    with pytest.raises(InputFormatError, match=r"bad\.csv, row 2: column 'score' value 'high'"):
        read(path)


def test_csv_missing_column_lists_columns_found(tmp_path: Path) -> None:
    path = write_text(tmp_path / "nogrades.csv", "qid,docid\n1,a\n")

    with pytest.raises(
        InputFormatError,
        match=r"nogrades\.csv: missing column 'grade' for labels; found columns \['qid', 'docid'\]",
    ):
        read_labels(path)
    with pytest.raises(InputFormatError, match=r"missing column 'rank' or 'score' for a run"):
        read(path)


def test_column_mapping_must_name_canonical_columns() -> None:
    frame = pl.DataFrame({"q": ["1"], "d": ["a"], "s": [1.0]})

    with pytest.raises(ParameterError, match="'columns' parameter maps 's' to 'points'"):
        read(frame, columns={"s": "points"})
    with pytest.raises(InputFormatError, match="column 'nope' named in 'columns' is not in"):
        read(frame, columns={"nope": "score"})


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda d: pl.DataFrame(d), "<polars.DataFrame>"),
        (lambda d: pl.DataFrame(d).lazy(), "<polars.LazyFrame>"),
        (lambda d: pd.DataFrame(d), "<pandas.DataFrame>"),
        (lambda d: pa.table(d), "<pyarrow.Table>"),
    ],
)
def test_in_memory_frames(make: object, name: str) -> None:
    data = {"qid": [301, 302], "docno": ["a", "b"], "rel": [1, 0]}

    parsed = read(make(data))  # type: ignore[operator]

    assert parsed.source == name
    assert parsed.stem is None
    assert parsed.format == "frame"
    assert parsed.labels is not None
    assert_frame_equal(
        parsed.labels.collect(), labels_frame([("301", "a", 1.0), ("302", "b", 0.0)])
    )


def test_frame_with_non_integral_float_rank_is_refused() -> None:
    frame = pd.DataFrame({"qid": ["1", "1"], "docid": ["a", "b"], "rank": [1.0, 2.5]})

    with pytest.raises(InputFormatError, match=r"<pandas\.DataFrame>, row 2: column 'rank'"):
        read_run(frame)


def test_frame_with_float_ids_is_refused() -> None:
    frame = pl.DataFrame({"qid": [1.0], "docid": ["a"], "score": [1.0]})

    with pytest.raises(InputFormatError, match=r"column 'qid' .*has dtype Float64"):
        read(frame)


def test_ranx_mappings() -> None:
    ranx = {"q1": {"d1": 0.5, "d2": 1}, "q2": {"d3": 2.0}}

    run = read_run(ranx).collect()
    labels = read_labels(ranx).collect()

    assert run.rows() == [
        ("q1", "d1", None, 0.5, None),
        ("q1", "d2", None, 1.0, None),
        ("q2", "d3", None, 2.0, None),
    ]
    assert_frame_equal(
        labels, labels_frame([("q1", "d1", 0.5), ("q1", "d2", 1.0), ("q2", "d3", 2.0)])
    )
    with pytest.raises(InputFormatError, match="pass kind='run' or kind='labels'"):
        read(ranx)


def test_ranx_json_file(tmp_path: Path) -> None:
    path = write_text(tmp_path / "ranx.json", json.dumps({"301": {"d": 3}}))

    assert read_labels(path).collect().rows() == [("301", "d", 3.0)]


# --------------------------------------------------------------------------------------
# Dispatch, names and parameters
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("bm25.dl19.trec.gz", "bm25.dl19"),
        ("results.test", "results.test"),
        ("run.txt", "run"),
        ("bm25.noveleval.top20.json.gz", "bm25.noveleval.top20"),
        ("plain", "plain"),
    ],
)
def test_stem_drops_gz_and_format_extension(tmp_path: Path, name: str, stem: str) -> None:
    content = RUN_TEXT if "json" not in name else json.dumps({"1": {"a": 1.0}})
    data = content.encode()
    path = write_bytes(tmp_path / name, gzip.compress(data) if name.endswith(".gz") else data)

    assert read(path, kind="run").stem == stem


def test_invalid_parameters_are_parameter_errors(tmp_path: Path) -> None:
    path = write_text(tmp_path / "r.trec", RUN_TEXT)

    with pytest.raises(ParameterError, match="'format' parameter must be one of"):
        read(path, format="xml")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'kind' parameter must be one of"):
        read(path, kind="both")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="format 'trec' cannot be read from an in-memory"):
        read(pl.DataFrame({"a": [1]}), format="trec")
    with pytest.raises(ParameterError, match="does not apply to the fixed layout of trec"):
        read(path, columns={"x": "query_id"})
    with pytest.raises(ParameterError, match="cannot read a int"):
        read(3)  # type: ignore[arg-type]


def test_explicit_format_overrides_sniffing(tmp_path: Path) -> None:
    path = write_text(tmp_path / "data.txt", "qid,docid,rel\n1,a,1\n")

    assert read_labels(path, format="csv").collect().rows() == [("1", "a", 1.0)]


def test_importing_io_does_not_import_heavy_modules() -> None:
    src = Path(__file__).resolve().parents[1] / "src"
    heavy = "{'pandas', 'pyarrow', 'numpy'}"
    code = f"import sys, rankset.io; print(sorted({heavy} & set(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(src)}

    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )

    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------
# Writers
# --------------------------------------------------------------------------------------


def test_write_run_trec_text(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "query_id": ["301", "301", "302"],
            "doc_id": ["a", "b", "c"],
            "rank": [1, 2, 1],
            "score": [0.1 + 0.2, 1e-20, 3.0],
            "system": ["bm25", None, "bm25"],
        }
    )
    path = tmp_path / "out.trec"

    write_run(frame, path)

    assert path.read_text() == (
        "301 Q0 a 1 0.30000000000000004 bm25\n301 Q0 b 2 1e-20 rankset\n302 Q0 c 1 3.0 bm25\n"
    )


def test_write_run_fills_missing_rank_score_and_system(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"]})
    path = tmp_path / "out.run"

    write_run(frame, path)

    assert path.read_text() == (
        "1 Q0 a 1 -1.0 rankset\n1 Q0 b 2 -2.0 rankset\n2 Q0 c 1 -1.0 rankset\n"
    )


def test_write_labels_trec_text(tmp_path: Path) -> None:
    frame = labels_frame([("301", "a", 2.0), ("301", "b", 0.5), ("302", "c", -1.0)])
    path = tmp_path / "qrels.txt"

    write_labels(frame, path)

    assert path.read_text() == "301 0 a 2\n301 0 b 0.5\n302 0 c -1\n"


@pytest.mark.parametrize(
    "name", ["run.trec", "run.trec.gz", "run.parquet", "run.csv", "run.csv.gz"]
)
def test_write_run_round_trip(tmp_path: Path, name: str) -> None:
    path = tmp_path / name

    write_run(EXPECTED_RUN, path)

    assert_frame_equal(read_run(path).collect(), EXPECTED_RUN)


@pytest.mark.parametrize("name", ["qrels.txt", "qrels.parquet", "qrels.csv"])
def test_write_labels_round_trip(tmp_path: Path, name: str) -> None:
    labels = labels_frame([("007", "a", 1.0), ("007", "b", 0.25), ("8", "c", -2.0)])
    path = tmp_path / name

    write_labels(labels.lazy(), path)

    assert_frame_equal(read_labels(path).collect(), labels)


def test_write_explicit_format_beats_extension(tmp_path: Path) -> None:
    path = tmp_path / "run.data"

    write_run(EXPECTED_RUN, path, format="parquet")

    assert path.read_bytes()[:4] == b"PAR1"


def test_write_refuses_ids_with_whitespace(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query_id": ["1"], "doc_id": ["two words"], "score": [1.0]})

    with pytest.raises(
        ParameterError, match="column 'doc_id' has a value that is empty, null, contains whitespace"
    ):
        write_run(frame, tmp_path / "r.trec")
    assert not (tmp_path / "r.trec").exists()


def test_write_refuses_a_json_extension(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="extension names json input"):
        write_run(EXPECTED_RUN, tmp_path / "r.json")


doc_ids = st.text(alphabet="abcXYZ019-_.#:", min_size=1, max_size=8)
query_ids = doc_ids.filter(lambda q: not q.startswith("#"))


@settings(max_examples=40, deadline=None, database=None)
@given(
    rows=st.lists(
        st.tuples(
            query_ids,
            doc_ids,
            st.integers(1, 10**6),
            st.floats(allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_trec_round_trip_is_exact(rows: list[tuple[str, str, int, float]]) -> None:
    frame = pl.DataFrame(
        [(q, d, r, s, "sys") for q, d, r, s in rows], schema=EXPECTED_RUN.schema, orient="row"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.trec"
        write_run(frame, path)
        assert_frame_equal(read_run(path).collect(), frame)


def test_write_refuses_query_id_that_reads_back_as_comment(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query_id": ["#1"], "doc_id": ["a"], "score": [1.0]})

    with pytest.raises(ParameterError, match="starts with '#'"):
        write_run(frame, tmp_path / "r.trec")


# --------------------------------------------------------------------------------------
# atomic_path
# --------------------------------------------------------------------------------------


def test_atomic_path_replaces_on_success(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")

    with atomic_path(target) as temp:
        assert temp.parent == tmp_path
        assert temp != target
        temp.write_text("new")
        assert target.read_text() == "old"

    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def fail_while_writing(target: Path) -> None:
    with atomic_path(target) as temp:
        temp.write_text("half")
        raise RuntimeError("boom")


def test_atomic_path_keeps_existing_file_and_removes_temp_on_error(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("precious")

    with pytest.raises(RuntimeError, match="boom"):
        fail_while_writing(target)

    assert target.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_atomic_path_leaves_nothing_when_target_is_new(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        fail_while_writing(tmp_path / "new.txt")

    assert list(tmp_path.iterdir()) == []


def test_refused_write_keeps_the_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "labels.txt"
    target.write_text("keep")
    frame = pl.DataFrame({"query_id": ["1"], "doc_id": ["a"], "grade": ["not a number"]})

    with pytest.raises(ParameterError, match="column 'grade' has dtype String, expected numbers"):
        write_labels(frame, target)

    assert target.read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.txt"]
