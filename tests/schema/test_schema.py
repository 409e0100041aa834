"""The normalisation rules of rankset.schema, each pinned by a test."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankset
from rankset.errors import ParameterError, SchemaError
from rankset.schema import normalize_labels, normalize_run


def _positions(run: pl.DataFrame, **options: str) -> list[str]:
    out = normalize_run(run.lazy(), **options).collect()  # type: ignore[arg-type]
    return out.sort("query_id", "pos")["doc_id"].to_list()


def test_scores_descending_ties_by_doc_id_descending_rank_ignored() -> None:
    run = pl.DataFrame(
        {
            "system": "s",
            "query_id": "q",
            "doc_id": ["b", "a", "c", "B"],
            "score": [1.0, 1.0, 2.0, 1.0],
            "rank": [1, 2, 3, 4],
        }
    )
    # byte order: "B" < "a" < "b", so descending gives b, a, B among the ties
    assert _positions(run) == ["c", "b", "a", "B"]


def test_without_scores_the_rank_column_orders() -> None:
    run = pl.DataFrame(
        {"system": "s", "query_id": "q", "doc_id": ["x", "y", "z"], "rank": [3, 1, 2]}
    )
    assert _positions(run) == ["y", "z", "x"]


def test_order_rank_forces_rank_even_with_scores() -> None:
    run = pl.DataFrame(
        {"system": "s", "query_id": "q", "doc_id": ["x", "y"], "score": [1.0, 2.0], "rank": [1, 2]}
    )
    assert _positions(run) == ["y", "x"]
    assert _positions(run, order="rank") == ["x", "y"]


def test_partly_missing_scores_are_an_error() -> None:
    run = pl.DataFrame(
        {"system": "s", "query_id": "q", "doc_id": ["x", "y"], "score": [1.0, None], "rank": [1, 2]}
    )
    with pytest.raises(SchemaError, match="1 of 2 rows have no score"):
        normalize_run(run.lazy(), source="r.parquet")


def test_positions_restart_per_system_and_query() -> None:
    run = pl.DataFrame(
        {
            "system": ["s", "s", "t", "t"],
            "query_id": ["q", "q", "q", "r"],
            "doc_id": ["a", "b", "a", "a"],
            "score": [2.0, 1.0, 1.0, 1.0],
        }
    )
    out = normalize_run(run.lazy()).collect().sort("system", "query_id", "pos")
    assert out["pos"].to_list() == [1, 2, 1, 1]


def test_duplicate_documents_are_an_error_naming_offenders() -> None:
    run = {"q1": {"a": 1.0}}
    frame = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "a", "b"], "score": [1.0, 2.0, 1.0]}
    )
    with pytest.raises(SchemaError, match=r"duplicate documents.*query 'q1' doc 'a' \(2 times\)"):
        rankset.evaluate(frame, run, ["ap"])


def test_keep_best_duplicate_keeps_the_best_ranked_copy() -> None:
    frame = pl.DataFrame(
        {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]}
    )
    labels = {"q1": {"a": 1}}
    result = rankset.evaluate(frame, labels, ["rr", "num_ret"], duplicates="keep_best")
    values = dict(zip(result.per_query["metric"], result.per_query["value"], strict=True))
    assert values == {"rr": 1.0, "num_ret": 2.0}  # a kept at score 3.0, i.e. rank 1


def test_duplicate_labels_are_an_error() -> None:
    labels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "grade": [1, 2]})
    with pytest.raises(SchemaError, match=r"labelled more than once.*query 'q' doc 'a'"):
        rankset.evaluate({"q": {"a": 1.0}}, labels, ["ap"])


def test_labels_need_their_columns() -> None:
    with pytest.raises(SchemaError, match="no column 'grade'"):
        normalize_labels(pl.LazyFrame({"query_id": ["q"], "doc_id": ["a"]}), source="x.csv")


def test_bad_policy_values_are_parameter_errors() -> None:
    run = {"q": {"a": 1.0}}
    with pytest.raises(ParameterError, match="The 'missing' parameter must be one of"):
        rankset.evaluate(run, run, ["ap"], missing="all")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="The 'order' parameter must be one of"):
        rankset.evaluate(run, run, ["ap"], order="best")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match=r"The 'k' parameter must be an int >= 1\. Got 0"):
        rankset.evaluate(run, run, ["ap"], k=0)


def test_no_overlap_between_run_and_labels_is_an_error() -> None:
    with pytest.raises(SchemaError, match="No query in common"):
        rankset.evaluate({"q1": {"a": 1.0}}, {"q2": {"a": 1}}, ["ap"])


def test_system_names_from_uniform_tags_else_stems(tmp_path: pytest.TempPathFactory) -> None:
    labels = tmp_path / "qrels.txt"  # type: ignore[operator]
    labels.write_text("q 0 a 1\n")
    one = tmp_path / "first.run"  # type: ignore[operator]
    two = tmp_path / "second.run"  # type: ignore[operator]
    one.write_text("q Q0 a 1 2.0 bm25\n")
    two.write_text("q Q0 a 1 2.0 splade\n")
    assert rankset.evaluate([one, two], labels, ["ap"]).systems == ["bm25", "splade"]
    # Same tag in both files (every rank_llm run says "rank"): file stems instead.
    two.write_text("q Q0 a 1 2.0 bm25\n")
    assert rankset.evaluate([one, two], labels, ["ap"]).systems == ["first", "second"]
    # An explicit name wins.
    assert rankset.evaluate([one], labels, ["ap"], names=["mine"]).systems == ["mine"]


@pytest.mark.parametrize("tag", ["rank", "Anserini", "run", "0"])
def test_a_file_tagged_with_a_placeholder_is_named_by_its_stem(tmp_path: Path, tag: str) -> None:
    # A single rank_llm run (tagged "rank") used to be the system "rank".
    labels = tmp_path / "qrels.txt"
    labels.write_text("q 0 a 1\n")
    run = tmp_path / "rankvicuna-over-bm25.trec"
    run.write_text(f"q Q0 a 1 2.0 {tag}\n")
    assert rankset.evaluate([run], labels, ["ap"]).systems == ["rankvicuna-over-bm25"]
    # A frame has no stem to fall back on: its column keeps the tag.
    frame = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [2.0], "system": [tag]})
    assert rankset.evaluate(frame, labels, ["ap"]).systems == [tag]


def test_sorted_best_first_orders_as_trec_eval_and_position_in_ranking() -> None:
    # Ties everywhere (five scores, signed zeros among them), ids that differ in case and
    # in bytes beyond ASCII; the reference is Python's sort, as trec_eval orders a ranking:
    # score descending (0.0 == -0.0), then document id descending in byte order.
    import random

    from rankset.schema import position_in_ranking
    from rankset.schema._rules import sorted_best_first

    rng = random.Random(7)
    docs = ["a", "B", "b", "é", "Z", "ab", "a0", "_", "ä", "A"]
    rows = [
        (ranking, doc, rng.choice([1.5, 0.0, -0.0, -2.0, 1.5000000000000002]))
        for ranking in range(40)
        for doc in rng.sample(docs, rng.randint(1, len(docs)))
    ]
    rng.shuffle(rows)
    run = pl.LazyFrame(rows, schema=["ranking", "doc_id", "score"], orient="row")

    got = sorted_best_first(run, pl.col("score"), "ranking").collect()
    expected = sorted(rows, key=lambda row: (row[0], -row[2], _descending_bytes(row[1])))
    assert got.select("ranking", "doc_id").rows() == [(r, d) for r, d, _ in expected]

    ranked = run.with_columns(pos=position_in_ranking(pl.col("score")).over("ranking"))
    by_rank = ranked.sort("ranking", "pos").collect()
    assert by_rank["doc_id"].to_list() == got["doc_id"].to_list()


def _descending_bytes(text: str) -> tuple[int, ...]:
    # a key that sorts byte strings in descending order (longer first on a shared prefix)
    return (*(255 - byte for byte in text.encode()), 256)
