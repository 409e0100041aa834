"""rankset.agreement: judges' labels against reference labels.

Checked against independent implementations: scikit-learn's ``cohen_kappa_score``
(unweighted, linear, quadratic; binarised at each threshold) and the ``krippendorff``
package's alpha (nominal, ordinal), on random label pairs and on every one of the 33
LLMJudge label sets against NIST's labels (TREC DL 2023, when ``../shared`` is present).
By hand: the confusion matrix, per-grade precision and recall, the pair counts, the
bootstrap's determinism, and the errors (out-of-scale grades, no shared pair, a repeated
pair).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankset
from rankset.errors import ParameterError, SchemaError

sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")


def _labels(pairs: dict[tuple[str, str], int]) -> pl.DataFrame:
    return pl.DataFrame(
        [(q, d, g) for (q, d), g in pairs.items()],
        schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64},
        orient="row",
    )


def _expected(reference: np.ndarray, judge: np.ndarray) -> dict[str, float]:
    both = np.vstack([reference, judge]).astype(float)
    expected = {
        "kappa": sklearn_metrics.cohen_kappa_score(reference, judge),
        "kappa_linear": sklearn_metrics.cohen_kappa_score(reference, judge, weights="linear"),
        "kappa_quadratic": sklearn_metrics.cohen_kappa_score(reference, judge, weights="quadratic"),
        "alpha_nominal": krippendorff.alpha(reliability_data=both, level_of_measurement="nominal"),
        "alpha_ordinal": krippendorff.alpha(reliability_data=both, level_of_measurement="ordinal"),
    }
    for cut in (1, 2, 3):
        expected[f"kappa_at_{cut}"] = sklearn_metrics.cohen_kappa_score(
            reference >= cut, judge >= cut
        )
    return expected


# --- against scikit-learn and krippendorff -----------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    grades=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=8, max_size=80
    ).filter(lambda pairs: {r for r, _ in pairs} == {0, 1, 2, 3})
)
def test_every_statistic_equals_the_reference_implementations(
    grades: list[tuple[int, int]],
) -> None:
    reference = {(f"q{i % 5}", f"d{i}"): r for i, (r, _) in enumerate(grades)}
    judge = {(f"q{i % 5}", f"d{i}"): j for i, (_, j) in enumerate(grades)}
    row = rankset.agreement(_labels(reference), {"j": _labels(judge)}, confidence=None).table
    expected = _expected(np.array([r for r, _ in grades]), np.array([j for _, j in grades]))
    for statistic, value in expected.items():
        got = row[statistic].item()
        if np.isnan(value):  # e.g. the judge always says 0: kappa undefined
            assert got is None or np.isnan(got), statistic
        else:
            assert got == pytest.approx(value, abs=1e-12), statistic


def test_the_33_llmjudge_label_sets_against_nist(shared_data: Path) -> None:
    folder = shared_data / "llmjudge_dl23"
    human = folder / "llmjudge_test_qrel_idx.txt"
    files = sorted((folder / "llm_labels").glob("*.txt.gz"))
    assert len(files) == 33
    result = rankset.agreement(human, files, out_of_scale="drop", n_resamples=200)
    table = result.table
    assert table["judge"].to_list() == [f.name.split(".")[0] for f in files]
    reference = _qrels(human.read_text().splitlines())
    for path, row in zip(files, table.iter_rows(named=True), strict=True):
        with gzip.open(path, "rt") as handle:
            judged = _qrels(handle.read().splitlines())
        in_scale = {pair: g for pair, g in judged.items() if g in (0, 1, 2, 3)}
        shared = sorted(set(reference) & set(in_scale))
        assert row["n_pairs"] == len(shared)
        assert row["n_out_of_scale"] == len(judged) - len(in_scale)
        expected = _expected(
            np.array([reference[p] for p in shared]), np.array([in_scale[p] for p in shared])
        )
        for statistic, value in expected.items():
            assert row[statistic] == pytest.approx(value, abs=1e-12), (path.name, statistic)
    # the two files with stray grades 5 and 10 (see the data's README)
    dropped = dict(
        table.filter(pl.col("n_out_of_scale") > 0).select("judge", "n_out_of_scale").rows()
    )
    assert dropped == {"RMITIR-llama70B": 2, "h2oloo-zeroshot2": 1}
    with pytest.raises(SchemaError, match=r"RMITIR-llama70B.*2 label\(s\) have grades 5 outside"):
        rankset.agreement(human, files, confidence=None)


def _qrels(lines: list[str]) -> dict[tuple[str, str], int]:
    pairs = {}
    for line in lines:
        query, _, doc, grade = line.split()
        pairs[(query, doc)] = int(grade)
    return pairs


# --- by hand ---------------------------------------------------------------------------------


REFERENCE = {("q1", "a"): 0, ("q1", "b"): 1, ("q1", "c"): 2, ("q2", "d"): 2, ("q2", "e"): 0}
JUDGE = {("q1", "a"): 0, ("q1", "b"): 2, ("q1", "c"): 2, ("q2", "d"): 1, ("q2", "x"): 1}


def test_confusion_per_grade_and_counts_by_hand() -> None:
    result = rankset.agreement(_labels(REFERENCE), {"j": _labels(JUDGE)}, confidence=None)
    row = result.table.row(0, named=True)
    # shared: a (0, 0), b (1, 2), c (2, 2), d (2, 1); e only in the reference, x only judged
    assert (row["n_pairs"], row["n_queries"], row["n_reference_only"], row["n_judge_only"]) == (
        4,
        2,
        1,
        1,
    )
    cells = {
        (r, j): n
        for _, r, j, n in result.confusion.iter_rows()
        if n  # zeros are listed too
    }
    assert cells == {(0.0, 0.0): 1, (1.0, 2.0): 1, (2.0, 2.0): 1, (2.0, 1.0): 1}
    assert result.confusion.height == 9
    per_grade = {g: (p, r) for _, g, _, _, p, r in result.per_grade.iter_rows()}
    # judge said 0 once (right), 1 once (wrong), 2 twice (one right)
    assert per_grade == {0.0: (1.0, 1.0), 1.0: (0.0, 0.0), 2.0: (0.5, 0.5)}
    # observed agreement 2/4; chance (1*1 + 1*1 + 2*2) / 16 = 6/16: kappa (8/16 - 6/16) / (10/16)
    assert row["kappa"] == pytest.approx(0.2)


def test_the_bootstrap_is_seeded_and_brackets_the_value() -> None:
    rng = np.random.default_rng(4)
    reference = {(f"q{i % 12}", f"d{i}"): int(rng.integers(0, 4)) for i in range(240)}
    judge = {pair: min(3, max(0, g + int(rng.integers(-1, 2)))) for pair, g in reference.items()}
    first = rankset.agreement(_labels(reference), _labels(judge), n_resamples=300, seed=3)
    again = rankset.agreement(_labels(reference), _labels(judge), n_resamples=300, seed=3)
    assert first.intervals.equals(again.intervals)
    assert set(first.intervals["statistic"]) == {
        *rankset.label_quality.assessors.STATISTICS,
        "kappa_at_1",
        "kappa_at_2",
        "kappa_at_3",
    }
    for _, _, value, low, high in first.intervals.iter_rows():
        assert low <= value <= high
    bare = rankset.agreement(_labels(reference), _labels(judge), confidence=None)
    assert bare.intervals["ci_low"].null_count() == bare.intervals.height


def test_judges_are_named_after_their_files_or_the_mapping(tmp_path: Path) -> None:
    reference = tmp_path / "nist.txt"
    reference.write_text("q1 0 a 1\nq1 0 b 0\n")
    one, two = tmp_path / "gpt.txt", tmp_path / "llama.qrels.gz"
    one.write_text("q1 0 a 1\nq1 0 b 1\n")
    with gzip.open(two, "wt") as handle:
        handle.write("q1 0 a 0\nq1 0 b 0\n")
    assert rankset.agreement(reference, [one, two], confidence=None).table["judge"].to_list() == [
        "gpt",
        "llama",
    ]
    named = rankset.agreement(reference, {"mine": one}, confidence=None)
    assert named.table["judge"].to_list() == ["mine"]


# --- errors and drops ------------------------------------------------------------------------


def test_an_out_of_scale_grade_names_the_judge_or_is_dropped_and_counted() -> None:
    judge = {**JUDGE, ("q1", "a"): 7}
    with pytest.raises(
        SchemaError, match=r"judge 'j'\): 1 label\(s\) have grades 7 outside .*0, 1, 2"
    ):
        rankset.agreement(_labels(REFERENCE), {"j": _labels(judge)})
    dropped = rankset.agreement(
        _labels(REFERENCE), {"j": _labels(judge)}, out_of_scale="drop", confidence=None
    )
    row = dropped.table.row(0, named=True)
    # a is left out as out of scale, not as a reference-only pair: e stays the only one
    assert (row["n_pairs"], row["n_out_of_scale"], row["n_reference_only"]) == (3, 1, 1)


def test_no_shared_pair_a_repeated_pair_and_bad_options_are_refused() -> None:
    other = {("q9", "z"): 1}
    with pytest.raises(SchemaError, match=r"shares no \(query_id, doc_id\) pair"):
        rankset.agreement(_labels(REFERENCE), {"j": _labels(other)})
    repeated = pl.concat([_labels(JUDGE), _labels({("q1", "a"): 1})])
    with pytest.raises(SchemaError, match="q1"):
        rankset.agreement(_labels(REFERENCE), {"j": repeated})
    with pytest.raises(ParameterError, match="out_of_scale"):
        rankset.agreement(_labels(REFERENCE), _labels(JUDGE), out_of_scale="ignore")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="thresholds"):
        rankset.agreement(_labels(REFERENCE), _labels(JUDGE), thresholds=[0])
    with pytest.raises(SchemaError, match="one grade"):
        rankset.agreement(_labels({("q1", "a"): 1}), _labels({("q1", "a"): 1}))


def test_the_cli_prints_a_row_per_judge_and_writes_the_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankset.cli import main

    reference, judge = tmp_path / "nist.txt", tmp_path / "gpt.txt"
    reference.write_text("q1 0 a 0\nq1 0 b 1\nq1 0 c 2\nq1 0 d 1\n")
    judge.write_text("q1 0 a 0\nq1 0 b 2\nq1 0 c 2\nq1 0 e 9\n")
    assert main(["agreement", str(reference), str(judge), "--seed", "1"]) == 2
    assert "grades 9 outside the scale 0, 1, 2" in capsys.readouterr().err
    out = tmp_path / "intervals.parquet"
    code = main(["agreement", str(reference), str(judge), "--drop-out-of-scale", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr()
    header, _, row = printed.out.splitlines()[:3]
    assert header.split()[:3] == ["judge", "pairs", "kappa"]
    assert row.split()[:2] == ["gpt", "3"]
    assert "1 reference pair(s) it did not grade, 1 out-of-scale grade(s) left out" in printed.err
    intervals = pl.read_parquet(out)
    assert intervals.columns == ["judge", "statistic", "value", "ci_low", "ci_high"]
    assert intervals["judge"].unique().to_list() == ["gpt"]
