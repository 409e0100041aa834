"""Tests of read_judgments: judges' labels aggregated, probabilities, scales and gaps.

Expected values are computed by hand from the files in ``tests/data/judgments`` (their
README says what each holds); the last tests read the shared LLM label sets.
"""

from __future__ import annotations

import gzip
import io
import re
import statistics
import warnings
from collections import Counter
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import rankset
from rankset.errors import GradeScaleError, InputFormatError, ParameterError, RanksetWarning
from rankset.io import read_judgments, scan_labels

DATA = Path(__file__).resolve().parents[1] / "data" / "judgments"
THREE = DATA / "three_judges.qrels"


def _read(source: object, **options: object) -> tuple[pl.DataFrame, list[str]]:
    """Read, and return the warnings' messages too."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_judgments(source, **options)  # type: ignore[arg-type]
    assert all(issubclass(w.category, RanksetWarning) for w in caught)
    return frame, [str(w.message) for w in caught]


def _grades(frame: pl.DataFrame) -> dict[tuple[str, str], float]:
    return {(q, d): g for q, d, g in frame.select("query_id", "doc_id", "grade").rows()}


# --------------------------------------------------------------------------------------
# Several labels per pair: every aggregate, ties
# --------------------------------------------------------------------------------------

# three_judges.qrels after its 3 missing grades: d1 2,2,0; d2 1,3; d3 3,1,2; d4 0; d5 1,1,2.
PAIRS = [("q1", "d1"), ("q1", "d2"), ("q1", "d3"), ("q2", "d4"), ("q2", "d5")]
N_LABELS = [3, 2, 3, 1, 3]


@pytest.mark.parametrize(
    ("aggregate", "grades"),
    [
        # majority: d2's 1-1 tie and d3's three-way tie go to the lower grade
        ("majority", [2.0, 1.0, 1.0, 0.0, 1.0]),
        ("mean", [4 / 3, 2.0, 2.0, 0.0, 4 / 3]),
        # median of two grades (d2: 1, 3) is their mean
        ("median", [2.0, 2.0, 2.0, 0.0, 1.0]),
    ],
)
def test_every_aggregate_by_hand(aggregate: str, grades: list[float]) -> None:
    frame, messages = _read(THREE, aggregate=aggregate)

    assert frame.columns == ["query_id", "doc_id", "grade", "n_labels"]
    assert frame.schema["grade"] == pl.Float64
    assert frame.select("query_id", "doc_id").rows() == PAIRS  # first-label order
    assert frame["grade"].to_list() == pytest.approx(grades)
    assert frame["n_labels"].to_list() == N_LABELS
    assert messages == [
        f"{THREE}: 3 labels have no grade (a pair the judge skipped); left out, "
        "so those pairs count as unjudged"
    ]


def test_majority_is_deterministic_whatever_the_line_order() -> None:
    lines = THREE.read_text().splitlines()
    shuffled = "\n".join(reversed(lines)) + "\n"
    frame, _ = _read(io.StringIO(shuffled))
    assert _grades(frame) == dict(zip(PAIRS, [2.0, 1.0, 1.0, 0.0, 1.0], strict=True))


def test_kept_apart_numbers_each_pairs_labels() -> None:
    frame, _ = _read(THREE, aggregate=None)

    assert frame.columns == ["query_id", "doc_id", "grade", "n_labels", "judge"]
    assert frame.height == 12
    d2 = frame.filter(pl.col("doc_id") == "d2")
    assert d2.select("grade", "judge").rows() == [(1.0, "1"), (3.0, "2")]
    first_judge = frame.filter(pl.col("judge") == "1")
    assert first_judge["grade"].to_list() == [2.0, 1.0, 3.0, 0.0, 1.0]


def test_judge_and_sample_columns_from_json_lines() -> None:
    path = DATA / "judges.jsonl"
    majority, messages = _read(path)
    assert majority.rows() == [("q1", "d1", 2.0, 3), ("q1", "d2", 0.0, 1), ("q2", "d3", 1.0, 2)]
    assert messages == [f"{path}: 1 label has no grade (a pair the judge skipped); left out, "
                        "so those pairs count as unjudged"]  # fmt: skip
    mean, _ = _read(path, aggregate="mean")
    assert mean["grade"].to_list() == pytest.approx([7 / 3, 0.0, 2.0])

    apart, _ = _read(path, aggregate=None)
    assert apart.columns == ["query_id", "doc_id", "grade", "n_labels", "judge", "sample"]
    assert apart.select("judge", "sample", "grade").rows() == [
        ("gpt4o", "1", 3.0), ("gpt4o", "2", 2.0), ("llama", "1", 2.0), ("gpt4o", "1", 0.0),
        ("gpt4o", "1", 1.0), ("llama", "1", 3.0),
    ]  # fmt: skip


def test_a_named_judge_column_and_a_pandas_frame() -> None:
    frame = pd.DataFrame(
        {"qid": ["1", "1", "1"], "docno": ["a", "a", "b"], "model": ["x", "y", "x"],
         "rel": [1, 0, 2]}
    )  # fmt: skip
    apart, _ = _read(frame, aggregate=None, judge="model")
    assert apart.select("judge", "grade").rows() == [("x", 1.0), ("y", 0.0), ("x", 2.0)]
    majority, _ = _read(frame)
    assert majority.rows() == [("1", "a", 0.0, 2), ("1", "b", 2.0, 1)]
    with pytest.raises(InputFormatError, match="no judge column 'annotator'"):
        read_judgments(frame, judge="annotator")


def test_the_confidence_column_is_kept_and_averaged() -> None:
    text = "q1 0 d1 2 0.9\nq1 0 d1 2 0.5\nq1 0 d2 0 1\n"
    frame, _ = _read(io.StringIO(text))
    assert frame.columns == ["query_id", "doc_id", "grade", "n_labels", "confidence"]
    assert frame.rows() == [("q1", "d1", 2.0, 2, pytest.approx(0.7)), ("q1", "d2", 0.0, 1, 1.0)]


# --------------------------------------------------------------------------------------
# Probabilities per grade
# --------------------------------------------------------------------------------------


def test_lara_probabilities_give_the_most_probable_and_the_expected_grade() -> None:
    path = DATA / "lara_graded.csv"
    frame, messages = _read(path)

    assert frame.columns == [
        "query_id", "doc_id", "grade", "n_labels",
        "prob_0", "prob_1", "prob_2", "prob_3", "expected_grade",
    ]  # fmt: skip
    assert frame.select("query_id", "doc_id").rows() == [
        ("101", "d1"),
        ("101", "d2"),
        ("101", "d3"),
        ("102", "d4"),
    ]
    # d3's 0.4 / 0.4 tie goes to the lower grade; LARA's annotation (human) is not read
    assert frame["grade"].to_list() == [2.0, 0.0, 0.0, 3.0]
    assert frame["expected_grade"].to_list() == pytest.approx([1.7, 0.4, 0.9, 2.75])
    assert frame["prob_2"].to_list() == pytest.approx([0.6, 0.1, 0.1, 0.25])
    assert messages == [f"{path}: 1 label has no grade (a pair the judge skipped); left out, "
                        "so those pairs count as unjudged"]  # fmt: skip

    expected, _ = _read(path, relevance_from="expected")
    assert expected["grade"].to_list() == pytest.approx([1.7, 0.4, 0.9, 2.75])
    given, _ = _read(path, relevance_from="column", columns={"annotation": "grade"})
    assert given["grade"].to_list() == [2.0, 0.0, 1.0, 3.0]


def test_probabilities_of_several_labels_are_averaged() -> None:
    frame = pl.DataFrame(
        {"query_id": ["q"] * 3, "doc_id": ["d"] * 3, "judge": ["a", "b", "c"],
         "prob_no": [0.9, 0.2, 0.4], "prob_yes": [0.1, 0.8, 0.6]}
    )  # fmt: skip
    result, _ = _read(frame)
    # per label 0, 1, 1: majority 1; the probabilities' means 0.5 / 0.5
    assert result.rows() == [
        ("q", "d", 1.0, 3, pytest.approx(0.5), pytest.approx(0.5), pytest.approx(0.5))
    ]
    assert result.columns[4:] == ["prob_0", "prob_1", "expected_grade"]


def test_probabilities_that_do_not_sum_to_one_name_the_line_and_the_sum() -> None:
    path = DATA / "lara_bad_sum.csv"
    with pytest.raises(InputFormatError) as raised:
        read_judgments(path)
    message = str(raised.value)
    assert message.startswith(f"{path}, line 3: probabilities that sum to 0.9")
    assert "prob_0=0.5, prob_1=0.4" in message
    # a looser tolerance accepts it
    frame, _ = _read(path, prob_tolerance=0.2)
    assert frame["grade"].to_list() == [1.0, 0.0]


def test_a_probability_outside_zero_one_is_an_error() -> None:
    frame = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"],
                          "prob_0": [0.5, -0.25], "prob_1": [0.5, 1.25]})  # fmt: skip
    outside = r"<polars.DataFrame>, row 2: a probability outside \[0, 1\]"
    with pytest.raises(InputFormatError, match=outside):
        read_judgments(frame)
    text = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "prob_0": ["x"], "prob_1": ["1"]})
    with pytest.raises(InputFormatError, match="row 1: prob_0 'x' is not a number"):
        read_judgments(text)
    partial = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "prob_0": [None], "prob_1": [1.0]})
    with pytest.raises(InputFormatError, match="row 1: some probabilities are missing"):
        read_judgments(partial)


# --------------------------------------------------------------------------------------
# Scales
# --------------------------------------------------------------------------------------


def test_an_out_of_scale_grade_names_the_file_the_line_and_the_scale() -> None:
    path = DATA / "exam_confidence.qrels"
    with pytest.raises(GradeScaleError) as raised:
        read_judgments(path, scale=(0, 5))
    assert str(raised.value) == (
        f"{path}, line 3: grade 7 (q1, d3) is outside the scale [0, 5]; 1 label(s) in all"
    )
    two = r"line 6: grade 3 .* \[0, 2\]; 2 label\(s\) in all; also line 9"
    with pytest.raises(GradeScaleError, match=two):
        read_judgments(THREE, scale=(0, 2))
    with pytest.raises(GradeScaleError, match=r"lara_graded.csv: column prob_3 .* \[0, 2\]"):
        read_judgments(DATA / "lara_graded.csv", scale=(0, 2))
    # a table names the line too (the header is line 1)
    bad = "query_id,doc_id,grade\nq,a,1\nq,b,4\n"
    with pytest.raises(GradeScaleError, match=r"<stream>, line 3: grade 4 \(q, b\)"):
        read_judgments(io.BytesIO(bad.encode()), format="csv", scale=(0, 3))


def test_to_scale_maps_linearly_and_keeps_the_raw_grade() -> None:
    text = "q1 0 d1 5 0.9\nq1 0 d2 0 0.8\nq1 0 d4 3 1.0\n"
    frame, _ = _read(io.StringIO(text), scale=(0, 5), to_scale=(0, 3))
    assert frame.columns == ["query_id", "doc_id", "grade", "n_labels", "raw_grade", "confidence"]
    assert frame["grade"].to_list() == pytest.approx([3.0, 0.0, 1.8])
    assert frame["raw_grade"].to_list() == [5.0, 0.0, 3.0]
    # the probabilities' grades are the scale when none is given
    lara, _ = _read(DATA / "lara_graded.csv", to_scale=(0, 1))
    assert lara["grade"].to_list() == pytest.approx([2 / 3, 0.0, 0.0, 1.0])
    assert lara["expected_grade"].to_list() == pytest.approx([1.7, 0.4, 0.9, 2.75])
    with pytest.raises(ParameterError, match="pass scale"):
        read_judgments(io.StringIO(text), to_scale=(0, 3))


@pytest.mark.parametrize(
    "options",
    [{"scale": (3, 0)}, {"scale": (0,)}, {"to_scale": (0, float("inf"))}, {"aggregate": "mode"},
     {"relevance_from": "max"}, {"missing": "NA"}, {"prob_tolerance": -1.0}],
)  # fmt: skip
def test_bad_options_are_parameter_errors(options: dict[str, object]) -> None:
    with pytest.raises(ParameterError):
        read_judgments(THREE, **options)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Pairs a judge skipped, and the pool
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("written", ["", "NA", "null", "-", "NaN", " n/a "])
def test_every_way_of_writing_a_missing_grade_is_counted(written: str) -> None:
    csv = f"query_id,doc_id,grade\nq,a,1\nq,b,{written}\n"
    frame, messages = _read(io.BytesIO(csv.encode()), format="csv")
    assert frame.rows() == [("q", "a", 1.0, 1)]
    assert messages == ["<stream>: 1 label has no grade (a pair the judge skipped); left out, "
                        "so those pairs count as unjudged"]  # fmt: skip


def test_missing_grades_in_frames_and_a_custom_token() -> None:
    frame = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
                          "grade": [1.0, None, float("nan")]})  # fmt: skip
    result, messages = _read(frame)
    assert result.rows() == [("q", "a", 1.0, 1)]
    assert "2 labels have no grade" in messages[0]
    text = "q 0 a 1\nq 0 b ERROR\n"
    result, messages = _read(io.StringIO(text), missing=("error",))
    assert result.rows() == [("q", "a", 1.0, 1)]
    assert len(messages) == 1
    with pytest.raises(InputFormatError, match="line 2: grade 'ERROR' is not a number"):
        read_judgments(io.StringIO(text))
    with pytest.raises(InputFormatError, match="no line has a grade"):
        read_judgments(io.StringIO("q 0 a NA\n"))


def test_pool_pairs_the_judge_left_unlabelled_are_counted() -> None:
    pool = {"q1": {"d1": 0, "d2": 0, "d3": 1}, "q2": {"d4": 0, "d5": 1, "d6": 2}}
    frame, messages = _read(THREE, pool=pool)
    assert frame.height == 5
    assert messages[1] == f"{THREE}: the judge left 1 of the 6 pool pairs unlabelled"
    # every pool pair labelled, and one labelled pair outside the pool
    _, messages = _read(THREE, pool={"q1": {"d1": 0, "d2": 0}, "q2": {"d4": 0, "d5": 1}})
    assert messages[1] == f"{THREE}: 1 labelled pair(s) are not in the pool"


def test_pool_coverage_per_judge_when_kept_apart() -> None:
    pool = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d3", "d4"],
                         "grade": [1, 0, 1, 0]})  # fmt: skip
    _, messages = _read(DATA / "judges.jsonl", aggregate=None, pool=pool)
    assert messages[1] == (
        f"{DATA / 'judges.jsonl'}: judge 'gpt4o' left 1 of the 4 pool pairs unlabelled; "
        "judge 'llama' left 2 of the 4 pool pairs unlabelled"
    )


# --------------------------------------------------------------------------------------
# Usable as labels, from every kind of source
# --------------------------------------------------------------------------------------


def test_the_result_is_labels_for_evaluate() -> None:
    labels, _ = _read(THREE)
    run = pl.DataFrame({"system": ["s"] * 3, "query_id": ["q1", "q1", "q2"],
                        "doc_id": ["d3", "d1", "d5"], "rank": [1, 2, 1]})  # fmt: skip
    plain = labels.select("query_id", "doc_id", "grade")
    got = rankset.evaluate(run, labels, ["ndcg@10", "p@2"], confidence=None)
    want = rankset.evaluate(run, plain, ["ndcg@10", "p@2"], confidence=None)
    assert got.per_query.equals(want.per_query)
    assert scan_labels(labels).collect().equals(plain)


def test_sources_agree(tmp_path: Path) -> None:
    expected, _ = _read(THREE)
    lines = [line.split() for line in THREE.read_text().splitlines()[1:] if line]
    table = pl.DataFrame(
        {"query_id": [f[0] for f in lines], "doc_id": [f[2] for f in lines],
         "grade": [f[3] if len(f) > 3 else "" for f in lines]}
    )  # fmt: skip
    parquet = tmp_path / "labels.parquet"
    table.with_columns(pl.col("grade").cast(pl.Float64, strict=False)).write_parquet(parquet)
    gz = tmp_path / "three.qrels.gz"
    gz.write_bytes(gzip.compress(THREE.read_bytes()))
    tsv = tmp_path / "three.tsv"
    table.write_csv(tsv, separator="\t")
    for source in (parquet, gz, tsv, THREE.read_bytes().decode(), table.to_pandas()):
        src = io.StringIO(source) if isinstance(source, str) else source
        got, messages = _read(src)
        assert got.equals(expected), source
        assert "3 labels have no grade" in messages[0]
    ranx, _ = _read({"q1": {"d1": 2, "d2": 1}})
    assert ranx.rows() == [("q1", "d1", 2.0, 1), ("q1", "d2", 1.0, 1)]


# --------------------------------------------------------------------------------------
# Real LLM labels (the shared data folder; skipped without it)
# --------------------------------------------------------------------------------------


def test_exam_max_gpt4o_dl19_grade_counts_match_its_readme(shared_data: Path) -> None:
    path = shared_data / "llm_qrels_dl/arabzadeh_clarke/qrels.dl19-passage.exam-max-gpt4o.txt.gz"
    if not path.is_file():
        pytest.skip(f"{path} is not in the shared data folder")
    labels, messages = _read(path, scale=(0, 5))
    assert messages == []
    assert labels.height == 9260
    assert labels["query_id"].n_unique() == 43
    assert labels["n_labels"].unique().to_list() == [1]
    counts = dict(labels.group_by("grade").len().sort("grade").rows())
    # README: 0:3855 1:2 2:1020 3:2154 4:855 5:1374
    assert counts == {0.0: 3855, 1.0: 2, 2.0: 1020, 3.0: 2154, 4.0: 855, 5.0: 1374}
    with pytest.raises(GradeScaleError, match=r"outside the scale \[0, 3\]; 2229 label\(s\)"):
        read_judgments(path, scale=(0, 3))  # 855 fours and 1374 fives
    rescaled, _ = _read(path, scale=(0, 5), to_scale=(0, 3))
    assert rescaled["grade"].max() == 3.0
    assert rescaled["raw_grade"].max() == 5.0


@pytest.mark.parametrize(
    ("judge", "lines", "grade"),
    [("RMITIR-llama70B", [2449, 3825], "5"), ("h2oloo-zeroshot2", [3187], "10")],
)
def test_llmjudge_stray_grades_are_named_by_line(
    shared_data: Path, judge: str, lines: list[int], grade: str
) -> None:
    path = shared_data / "llmjudge_dl23" / "llm_labels" / f"{judge}.txt.gz"
    if not path.is_file():
        pytest.skip(f"{path} is not in the shared data folder")
    with pytest.raises(GradeScaleError) as raised:
        read_judgments(path, scale=(0, 3))
    message = str(raised.value)
    assert message.startswith(f"{path}, line {lines[0]}: grade {grade} ")
    assert f"[0, 3]; {len(lines)} label(s) in all" in message
    assert re.findall(r"line (\d+)", message) == [str(n) for n in lines]


def test_llmjudge_33_judges_majority_equals_a_counter(shared_data: Path) -> None:
    folder = shared_data / "llmjudge_dl23" / "llm_labels"
    files = sorted(folder.glob("*.txt.gz"))
    if len(files) != 33:
        pytest.skip(f"{folder} does not hold the 33 judges' label sets")
    frames = [
        scan_labels(path).collect().with_columns(judge=pl.lit(path.name.split(".")[0]))
        for path in files
    ]
    every = pl.concat(frames)
    labels, _ = _read(every)
    assert labels.height == 4423
    assert labels["n_labels"].unique().to_list() == [33]
    votes: dict[tuple[str, str], Counter[float]] = {}
    for query, doc, grade in every.select("query_id", "doc_id", "grade").iter_rows():
        votes.setdefault((query, doc), Counter())[grade] += 1
    by_hand = {
        pair: min(g for g, n in counter.items() if n == max(counter.values()))
        for pair, counter in votes.items()
    }
    assert _grades(labels) == by_hand
    medians, _ = _read(every, aggregate="median")
    assert _grades(medians) == {pair: statistics.median(c.elements()) for pair, c in votes.items()}
    apart, _ = _read(every, aggregate=None)
    assert apart.height == 33 * 4423
    assert apart["judge"].n_unique() == 33


def test_binary_gpt4o_dl19_leaves_four_nist_pool_pairs_unlabelled(shared_data: Path) -> None:
    path = shared_data / "llm_qrels_dl/arabzadeh_clarke/qrels.dl19-passage.binary-gpt4o.txt.gz"
    nist = shared_data / "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz"
    if not (path.is_file() and nist.is_file()):
        pytest.skip("the DL19 binary-gpt4o labels or NIST's DL19 qrels are not shared here")
    labels, messages = _read(path, scale=(0, 1), pool=nist)
    assert labels.height == 9256  # README: 9256 pairs, 0:5456 1:3800
    assert labels["grade"].sum() == 3800
    assert messages == [f"{path}: the judge left 4 of the 9260 pool pairs unlabelled"]


def test_json_documents_and_options_that_do_not_fit(tmp_path: Path) -> None:
    records = tmp_path / "labels.json"
    records.write_text(
        '[{"qid": "q", "docid": "a", "rel": 1}, {"qid": "q", "docid": "a", "rel": 2}]'
    )
    assert read_judgments(records, aggregate="mean").rows() == [("q", "a", 1.5, 2)]
    ranx = tmp_path / "ranx.json"
    ranx.write_text('{"q": {"a": 1, "b": 0}}')
    assert read_judgments(ranx).rows() == [("q", "a", 1.0, 1), ("q", "b", 0.0, 1)]
    with pytest.raises(InputFormatError, match="TREC qrels have no judge column 'model'"):
        read_judgments(io.StringIO("q 0 a 1\n"), judge="model")
    with pytest.raises(ParameterError, match="'format'"):
        read_judgments(THREE, format="xml")  # type: ignore[arg-type]
