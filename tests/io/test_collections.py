"""Tests of reading standard collections' files as they are published: BEIR/MTEB qrels."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from rankset.io import read, scan_labels, scan_run

BEIR_ROWS = {"query-id": ["q1", "q1", "q2"], "corpus-id": ["d1", "d2", "d1"], "score": [1, 0, 2]}
EXPECTED_LABELS = pl.DataFrame(
    {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "grade": [1.0, 0.0, 2.0]}
)


@pytest.mark.parametrize("names", [("query-id", "corpus-id"), ("query_id", "corpus_id")])
def test_beir_and_mteb_parquet_qrels_read_as_labels_without_a_mapping(
    tmp_path: Path, names: tuple[str, str]
) -> None:
    path = tmp_path / "test.parquet"
    frame = pl.DataFrame(BEIR_ROWS).rename({"query-id": names[0], "corpus-id": names[1]})
    frame.write_parquet(path)

    parsed = read(path)

    assert parsed.run is None
    assert parsed.labels is not None
    assert_frame_equal(parsed.labels.collect(), EXPECTED_LABELS)


@pytest.mark.parametrize(("suffix", "separator"), [(".csv", ","), (".tsv", "\t"), ("", "\t")])
def test_beir_text_qrels_with_a_header_line(tmp_path: Path, suffix: str, separator: str) -> None:
    # BEIR ships qrels/test.tsv with the header `query-id\tcorpus-id\tscore`.
    path = tmp_path / f"test{suffix}"
    lines = [separator.join(["query-id", "corpus-id", "score"])]
    lines += [
        separator.join(row) for row in [("q1", "d1", "1"), ("q1", "d2", "0"), ("q2", "d1", "2")]
    ]
    path.write_text("\n".join(lines) + "\n")

    labels = scan_labels(path).collect()

    assert_frame_equal(labels, EXPECTED_LABELS)
    assert read(path).labels is not None  # kind="auto" finds the labels too


def test_beir_ids_keep_leading_zeros(tmp_path: Path) -> None:
    path = tmp_path / "qrels.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n007\t0042\t1\n")
    assert scan_labels(path).collect().rows() == [("007", "0042", 1.0)]


def test_a_table_with_corpus_id_and_rank_stays_a_run(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pl.DataFrame(
        {"query-id": ["q1", "q1"], "corpus-id": ["d1", "d2"], "rank": [1, 2], "score": [2.0, 1.0]}
    ).write_parquet(path)

    parsed = read(path)

    assert parsed.labels is None
    assert parsed.run is not None
    assert parsed.run.collect()["score"].to_list() == [2.0, 1.0]


def test_a_beir_shaped_table_read_as_a_run_keeps_its_score(tmp_path: Path) -> None:
    path = tmp_path / "results.parquet"
    pl.DataFrame(BEIR_ROWS).write_parquet(path)
    run = scan_run(path).collect()
    assert run["score"].to_list() == [1.0, 0.0, 2.0]


def test_a_score_mapped_by_name_stays_a_score(tmp_path: Path) -> None:
    path = tmp_path / "results.parquet"
    pl.DataFrame(BEIR_ROWS).write_parquet(path)
    parsed = read(path, columns={"score": "score"})
    assert parsed.run is not None
    assert parsed.labels is None


def test_a_plain_query_doc_score_table_is_still_a_run(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [0.5]}).write_parquet(path)
    assert read(path).run is not None


def test_a_trec_line_with_alias_words_is_not_a_header(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_text("query\tQ0\tid\t1\t2.5\tbm25\n")
    parsed = read(path)
    assert parsed.format == "trec"
    assert parsed.run is not None
