"""Tests of ``-m official``, the collections rankset knows by name, and ``format="msmarco"``.

The official measures of TREC DL 2019 passage are checked against NIST's own summary
of an official run (``passages-eval``: trec_eval with ``-l 2``), not against rankset.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from rankset.cli import main
from rankset.errors import InputFormatError, ParameterError
from rankset.io import (
    IRDS_OFFICIAL_MEASURES,
    IRDS_SHORT_NAMES,
    official_measures,
    read,
)

DL_PASSAGE = ("nDCG@10", "RR(rel=2)", "AP(rel=2)")
# NIST's summary of the official DL19 passage run ICT-BERT2 (trec_dl_official/
# official_summaries.tsv, "passages-eval": relevance level 2).
NIST_ICT_BERT2 = {"ndcg@10": 0.6650, "rr(rel=2)": 0.8743, "ap(rel=2)": 0.2421}


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ("irds:dl19-passage", DL_PASSAGE),
        ("irds:msmarco-passage/trec-dl-2020/judged", DL_PASSAGE),
        ("data/qrels.dl19-passage.txt.gz", DL_PASSAGE),  # pyserini's file name
        ("2019qrels-pass.txt", DL_PASSAGE),  # NIST's
        ("2019qrels-docs.txt", ("nDCG@10", "RR", "MAP")),
        ("qrels.msmarco-passage.dev-subset.txt", ("RR@10",)),  # Anserini's dotted name
        ("irds:msmarco-doc-dev", ("RR@10",)),
        ("irds:beir-v1.0.0-scifact-test", ("nDCG@10", "R@100")),
        ("qrels.beir-v1.0.0-trec-covid.test.txt", ("nDCG@10", "R@100")),
        ("irds:dl22-passage", ("AP@100", "nDCG@10", "P(rel=2)@10", "RR(rel=2)")),
    ],
)
def test_official_measures_without_ir_datasets(
    labels: str, expected: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # the table alone answers
    assert official_measures(labels) == expected


@pytest.mark.parametrize("labels", ["qrels.txt", "qrels.dl99-passage.txt", None])
def test_official_measures_of_unknown_labels_is_an_error(labels: str | None) -> None:
    with pytest.raises(ParameterError, match=r"'official' names the official measures"):
        official_measures(labels)


def test_a_dataset_without_official_measures_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(ParameterError, match=r"no-such/collection.*name the measures"):
        official_measures("irds:no-such/collection")


def test_the_table_agrees_with_ir_datasets_documentation() -> None:
    ir_datasets = pytest.importorskip("ir_datasets", reason="ir_datasets is not installed")
    documented = {}
    for dataset_id in sorted(set(IRDS_SHORT_NAMES.values())):
        listed = ir_datasets.load(dataset_id).documentation().get("official_measures")
        if listed:
            documented[dataset_id] = tuple(listed)
            assert official_measures(f"irds:{dataset_id}") == tuple(listed)
    # Where ir_datasets documents them (DL 2019-2021, MS MARCO dev), the table has its copy.
    assert len(documented) >= 8
    for dataset_id, listed in documented.items():
        prefix = max((p for p in IRDS_OFFICIAL_MEASURES if dataset_id.startswith(p)), key=len)
        assert IRDS_OFFICIAL_MEASURES[prefix] == listed, dataset_id


def _nist_inputs(shared_data: Path, tmp_path: Path) -> tuple[Path, Path]:
    run = shared_data / "trec_dl_official" / "runs_dl19_complete" / "ICT-BERT2.run.gz"
    qrels = shared_data / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    if not (run.is_file() and qrels.is_file()):
        pytest.skip(f"the DL19 run ICT-BERT2 or the DL19 qrels are not in {shared_data}")
    named = tmp_path / "2019qrels-pass.txt"  # as NIST names the file
    named.write_bytes(gzip.decompress(qrels.read_bytes()))
    return run, named


def test_dash_m_official_equals_nist_summary(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, qrels = _nist_inputs(shared_data, tmp_path)

    status = main(["evaluate", str(run), "--qrels", str(qrels), "-m", "official", "--json"])

    assert status == 0
    rows = json.loads(capsys.readouterr().out)
    rows = rows["summary"] if isinstance(rows, dict) else rows
    means = {row["metric"]: round(row["mean"], 4) for row in rows}
    assert means == NIST_ICT_BERT2


def test_dash_m_official_mixes_with_other_metrics(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, qrels = _nist_inputs(shared_data, tmp_path)

    status = main(
        ["evaluate", str(run), "--qrels", str(qrels), "-m", "P_10", "-m", "official", "--json"]
    )

    assert status == 0
    rows = json.loads(capsys.readouterr().out)
    rows = rows["summary"] if isinstance(rows, dict) else rows
    assert [row["metric"] for row in rows] == ["precision@10", *NIST_ICT_BERT2]


def test_dash_m_official_without_a_known_collection_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 bm25\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")

    status = main(["evaluate", str(run), "--qrels", str(qrels), "-m", "official"])

    assert status == 2
    err = capsys.readouterr().err
    assert "'official' names the official measures" in err
    assert "irds:" in err
    assert "Traceback" not in err


def test_a_one_metric_command_asks_which_official_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 bm25\n")
    qrels = tmp_path / "qrels.dl19-passage.txt"
    qrels.write_text("q1 0 d1 1\n")

    status = main(["stability", str(run), "--qrels", str(qrels), "-m", "official"])

    assert status == 2
    assert "nDCG@10, RR(rel=2), AP(rel=2)" in capsys.readouterr().err


# MS MARCO's run layout, in the file name MS MARCO gives it (run.dev.small.tsv).
MSMARCO = "1048585\t7187158\t1\n1048585\t7187157\t2\n2\t0042\t1\n"
EXPECTED_ROWS = [
    ("1048585", "7187158", 1, None, None),
    ("1048585", "7187157", 2, None, None),
    ("2", "0042", 1, None, None),
]


def test_a_tsv_named_msmarco_run_reads_as_a_run(tmp_path: Path) -> None:
    path = tmp_path / "run.dev.small.tsv"  # no header: not a table
    path.write_text(MSMARCO)

    parsed = read(path)

    assert parsed.run is not None
    assert parsed.run.collect().rows() == EXPECTED_ROWS


def test_format_msmarco_forces_the_layout(tmp_path: Path) -> None:
    path = tmp_path / "run.dev.small.tsv.gz"
    path.write_bytes(gzip.compress(MSMARCO.encode()))

    parsed = read(path, format="msmarco")

    assert parsed.format == "msmarco"
    assert parsed.run is not None
    assert parsed.run.collect().rows() == EXPECTED_ROWS


def test_format_msmarco_names_the_line_that_is_not_one(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("1\t7\t1\n1 Q0 8 2 1.5 bm25\n")

    with pytest.raises(InputFormatError, match=r"run.txt, line 2: expected 3 .*found 6"):
        read(path, format="msmarco")


def test_format_msmarco_holds_no_labels(tmp_path: Path) -> None:
    path = tmp_path / "run.tsv"
    path.write_text(MSMARCO)

    with pytest.raises(InputFormatError, match="holds a run, not labels"):
        read(path, format="msmarco", kind="labels")


def test_evaluate_takes_official_as_a_metric(shared_data: Path, tmp_path: Path) -> None:
    import rankset

    run, qrels = _nist_inputs(shared_data, tmp_path)
    result = rankset.evaluate(run, qrels, ["P_10", "official"], confidence=None)
    means = {row["metric"]: round(row["mean"], 4) for row in result.summary.iter_rows(named=True)}
    assert list(means) == ["precision@10", *NIST_ICT_BERT2]
    assert {name: means[name] for name in NIST_ICT_BERT2} == NIST_ICT_BERT2
    alone = rankset.evaluate(run, qrels, "official", confidence=None)
    assert alone.metrics == list(NIST_ICT_BERT2)
    with pytest.raises(ParameterError, match="official"):
        rankset.evaluate(run, str(shared_data / "unknown-labels.txt"), "official")


def test_official_with_ks_cuts_the_official_measures(shared_data: Path, tmp_path: Path) -> None:
    import rankset

    run, qrels = _nist_inputs(shared_data, tmp_path)
    result = rankset.evaluate(run, qrels, ["official"], ks=[5], confidence=None)
    # "official" is expanded before the cutoffs, as if the three names had been given
    expected = rankset.measures.expand_cutoffs(DL_PASSAGE, [5])
    assert result.metrics == [metric.name for metric in expected]


def test_an_asked_tsv_format_is_kept(tmp_path: Path) -> None:
    # The header-less .tsv rule guesses from the extension only: format="tsv" is a table,
    # and a table without the run's named columns is refused, not read as a TREC run.
    path = tmp_path / "run.dev.small.tsv"
    path.write_text(MSMARCO)
    with pytest.raises(InputFormatError):
        read(path, format="tsv")
