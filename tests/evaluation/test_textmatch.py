"""Hand-computed cases for matching retrieved text chunks to gold texts (evaluation.textmatch)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankset
from rankset.errors import ParameterError, SchemaError
from rankset.evaluation.textmatch import TextMatch, match_text, normalize_text

PARIS = "Paris is the capital of France."
EIFFEL = "The Eiffel Tower was built in 1889."
EUROPE = "France is in Europe."
LOUVRE = "The Louvre is in Paris."
NAPOLEON = "Napoleon was born in Corsica."


def chunks(*rankings: tuple[str, str, Sequence[str | None]]) -> pl.LazyFrame:
    """A run of text chunks: one (system, query_id, texts in rank order) per ranking."""
    rows = [
        {"system": system, "query_id": query, "pos": pos, "text": text}
        for system, query, texts in rankings
        for pos, text in enumerate(texts, start=1)
    ]
    return pl.LazyFrame(
        rows,
        schema={"system": pl.String, "query_id": pl.String, "pos": pl.Int64, "text": pl.String},
    )


def golds(**by_query: list[str]) -> pl.LazyFrame:
    rows = [{"query_id": q, "text": t} for q, texts in by_query.items() for t in texts]
    return pl.LazyFrame(rows, schema={"query_id": pl.String, "text": pl.String})


def doc_ids(tm: TextMatch, system: str = "s", query: str = "q1") -> list[str]:
    run = tm.run.collect().filter(pl.col("system") == system, pl.col("query_id") == query)
    return run.sort("pos")["doc_id"].to_list()


def report_row(tm: TextMatch, system: str = "s") -> tuple[int, int, int, int]:
    row = tm.report.filter(pl.col("system") == system)
    return row.select("n_chunks", "n_matched", "n_duplicate", "n_unmatched").row(0)


def per_query(tm: TextMatch, metrics: list[str]) -> dict[tuple[str, str, str], float]:
    res = rankset.evaluate(tm.run.collect(), tm.labels.collect(), metrics)
    return {
        (s, q, m): v
        for s, q, m, v in res.per_query.select("system", "query_id", "metric", "value").iter_rows()
    }


# --- seed-003-like cases: exact string equality ------------------------------------------


def test_exact_recall_at_5_and_3() -> None:
    # Gold items g1=PARIS, g2=EIFFEL, g3=LOUVRE are retrieved at positions 1, 2 and 4.
    run = chunks(("s", "q1", [PARIS, EIFFEL, EUROPE, LOUVRE, NAPOLEON]))
    tm = match_text(run, golds(q1=[PARIS, EIFFEL, LOUVRE]))
    assert doc_ids(tm) == ["g1", "g2", "#unmatched:3", "g3", "#unmatched:5"]
    assert report_row(tm) == (5, 3, 0, 2)
    values = per_query(tm, ["recall@5", "recall@3"])
    assert values["s", "q1", "recall@5"] == 1.0
    assert values["s", "q1", "recall@3"] == pytest.approx(2 / 3)


def test_labels_are_the_gold_items_with_default_ids_and_grade() -> None:
    tm = match_text(chunks(("s", "q1", [PARIS])), golds(q1=[PARIS, EIFFEL], q2=[LOUVRE]))
    assert tm.labels.collect().sort("query_id", "doc_id").rows() == [
        ("q1", "g1", 1.0),
        ("q1", "g2", 1.0),
        ("q2", "g1", 1.0),
    ]
    assert tm.labels.collect_schema() == pl.Schema(
        {"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64}
    )


def test_exact_is_case_and_whitespace_sensitive_normalized_is_not() -> None:
    run = chunks(("s", "q1", ["  paris IS the capital\n of  France. ", EUROPE]))
    gold = golds(q1=[PARIS])
    assert doc_ids(match_text(run, gold, mode="exact")) == ["#unmatched:1", "#unmatched:2"]
    assert doc_ids(match_text(run, gold, mode="normalized")) == ["g1", "#unmatched:2"]


def test_normalized_does_not_match_a_part_of_the_gold_text() -> None:
    run = chunks(("s", "q1", ["the capital of france."]))
    gold = golds(q1=[PARIS])
    assert doc_ids(match_text(run, gold, mode="normalized")) == ["#unmatched:1"]
    assert doc_ids(match_text(run, gold, mode="contained")) == ["g1"]


def test_contained_matches_a_chunk_of_a_longer_gold_document() -> None:
    document = f"{PARIS} {EIFFEL}\n{LOUVRE}"
    run = chunks(("s", "q1", [NAPOLEON, "the eiffel tower was built in 1889. the louvre", EUROPE]))
    tm = match_text(run, golds(q1=[document]), mode="contained")
    assert doc_ids(tm) == ["#unmatched:1", "g1", "#unmatched:3"]
    values = per_query(tm, ["recall@1", "recall@2", "rr"])
    assert values["s", "q1", "recall@1"] == 0.0
    assert values["s", "q1", "recall@2"] == 1.0
    assert values["s", "q1", "rr"] == 0.5


@pytest.mark.parametrize("mode", ["exact", "normalized", "contained"])
def test_empty_or_null_chunk_never_matches(mode: str) -> None:
    # "" is a substring of everything, and an empty gold text equals it; neither counts.
    run = chunks(("s", "q1", ["", " \n\t ", None]))
    tm = match_text(run, golds(q1=["", "anything"]), mode=mode)  # type: ignore[arg-type]
    assert doc_ids(tm) == ["#unmatched:1", "#unmatched:2", "#unmatched:3"]
    assert report_row(tm) == (3, 0, 0, 3)


def test_duplicates_are_credited_once() -> None:
    # Two chunks come from the gold document about Paris; the second is non-relevant.
    document = f"{PARIS} {EIFFEL}"
    run = chunks(("s", "q1", [PARIS, EIFFEL, LOUVRE]))
    tm = match_text(run, golds(q1=[document, LOUVRE]), mode="contained")
    assert doc_ids(tm) == ["g1", "#dup1:g1", "g2"]
    assert report_row(tm) == (3, 2, 1, 0)
    values = per_query(tm, ["recall@2", "recall@3", "precision@3", "ndcg@3"])
    assert values["s", "q1", "recall@2"] == 0.5
    assert values["s", "q1", "recall@3"] == 1.0
    assert values["s", "q1", "precision@3"] == pytest.approx(2 / 3)
    # DCG = 1 + 0 + 1/log2(4); ideal = 1 + 1/log2(3).
    assert values["s", "q1", "ndcg@3"] == pytest.approx(1.5 / (1 + 1 / math.log2(3)))


def test_repeated_identical_chunks_get_numbered_duplicate_ids() -> None:
    run = chunks(("s", "q1", [PARIS, PARIS, EUROPE, PARIS]))
    tm = match_text(run, golds(q1=[PARIS]))
    assert doc_ids(tm) == ["g1", "#dup1:g1", "#unmatched:3", "#dup2:g1"]
    assert report_row(tm) == (4, 1, 2, 1)


def test_a_chunk_matching_several_golds_takes_the_first_in_gold_order() -> None:
    # Both chunks are contained in both gold documents: each takes g1, so the second
    # chunk is a duplicate of g1 rather than a match of g2.
    run = chunks(("s", "q1", ["in paris", "paris"]))
    gold = golds(q1=["Museums in Paris.", "Paris, in Paris: capital."])
    tm = match_text(run, gold, mode="contained")
    assert doc_ids(tm) == ["g1", "#dup1:g1"]
    # Equal gold texts: the first one in gold order wins.
    tm = match_text(chunks(("s", "q1", [PARIS])), golds(q1=[EUROPE, PARIS, PARIS]))
    assert doc_ids(tm) == ["g2"]


def test_unmatched_ids_are_unique_and_not_gold_ids() -> None:
    run = chunks(("s", "q1", ["a", "b", "a"]))
    tm = match_text(run, golds(q1=["g1"]))
    ids = doc_ids(tm)
    assert ids == ["#unmatched:1", "#unmatched:2", "#unmatched:3"]
    assert not set(ids) & set(tm.labels.collect()["doc_id"])


def test_several_systems_and_queries() -> None:
    run = chunks(
        ("bm25", "q1", [PARIS, EUROPE, PARIS]),
        ("bm25", "q2", [LOUVRE]),
        ("dense", "q1", [EIFFEL, PARIS]),
        ("dense", "q2", [NAPOLEON, EUROPE]),
    )
    gold = golds(q1=[PARIS, EIFFEL], q2=[LOUVRE])
    tm = match_text(run, gold)
    assert doc_ids(tm, "bm25", "q1") == ["g1", "#unmatched:2", "#dup1:g1"]
    assert doc_ids(tm, "bm25", "q2") == ["g1"]
    assert doc_ids(tm, "dense", "q1") == ["g2", "g1"]
    assert doc_ids(tm, "dense", "q2") == ["#unmatched:1", "#unmatched:2"]
    assert tm.report.rows() == [("bm25", 4, 2, 1, 1), ("dense", 4, 2, 0, 2)]
    values = per_query(tm, ["recall@3"])
    assert values == {
        ("bm25", "q1", "recall@3"): 0.5,
        ("bm25", "q2", "recall@3"): 1.0,
        ("dense", "q1", "recall@3"): 1.0,
        ("dense", "q2", "recall@3"): 0.0,
    }


def test_report_columns_and_types() -> None:
    tm = match_text(chunks(("s", "q1", [PARIS])), golds(q1=[PARIS]))
    assert tm.report.schema == pl.Schema(
        {
            "system": pl.String,
            "n_chunks": pl.UInt32,
            "n_matched": pl.UInt32,
            "n_duplicate": pl.UInt32,
            "n_unmatched": pl.UInt32,
        }
    )
    assert tm.mode == "exact"


# --- gold ids and grades ------------------------------------------------------------------


def test_gold_id_and_grade_columns_are_used() -> None:
    gold = pl.LazyFrame(
        {
            "query_id": ["q1", "q1"],
            "text": [PARIS, EIFFEL],
            "gold_id": ["d7", "d3"],
            "grade": [2, 1],
        }
    )
    tm = match_text(chunks(("s", "q1", [EIFFEL, PARIS, EIFFEL])), gold)
    assert doc_ids(tm) == ["d3", "d7", "#dup1:d3"]
    assert tm.labels.collect().sort("doc_id").rows() == [("q1", "d3", 1.0), ("q1", "d7", 2.0)]
    # Graded nDCG@2: DCG = 1 + 2/log2(3); ideal = 2 + 1/log2(3).
    ndcg = per_query(tm, ["ndcg@2"])["s", "q1", "ndcg@2"]
    assert ndcg == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_default_gold_ids_follow_input_order_per_query() -> None:
    gold = golds(q2=[LOUVRE, NAPOLEON], q1=[EIFFEL]).collect()
    gold = pl.concat([gold, pl.DataFrame({"query_id": ["q2"], "text": [PARIS]})])
    tm = match_text(chunks(("s", "q2", [PARIS, NAPOLEON, LOUVRE])), gold.lazy())
    assert doc_ids(tm, query="q2") == ["g3", "g2", "g1"]


# --- ordering and the returned run --------------------------------------------------------


def test_order_by_score_then_text_descending_when_there_is_no_pos() -> None:
    run = pl.LazyFrame(
        {
            "system": "s",
            "query_id": "q1",
            "score": [0.5, 0.9, 0.5, 0.1],
            "text": ["a", "b", "c", "a"],
        }
    )
    tm = match_text(run, golds(q1=["a"]))
    out = tm.run.collect()
    assert out.select("text", "pos", "rank", "doc_id").rows() == [
        ("b", 1, 1, "#unmatched:1"),
        ("c", 2, 2, "#unmatched:2"),
        ("a", 3, 3, "g1"),
        ("a", 4, 4, "#dup1:g1"),
    ]
    assert out["score"].to_list() == [0.9, 0.5, 0.5, 0.1]


def test_order_by_rank_when_there_is_no_pos_or_score() -> None:
    run = pl.LazyFrame(
        {"system": "s", "query_id": "q1", "rank": [3, 1, 2], "text": ["a", "b", "a"]}
    )
    tm = match_text(run, golds(q1=["a"]))
    assert tm.run.collect().select("text", "rank", "doc_id").rows() == [
        ("b", 1, "#unmatched:1"),
        ("a", 2, "g1"),
        ("a", 3, "#dup1:g1"),
    ]


def test_pos_wins_over_score() -> None:
    run = pl.LazyFrame(
        {"system": "s", "query_id": "q1", "pos": [2, 1], "score": [9.0, 1.0], "text": ["a", "b"]}
    )
    tm = match_text(run, golds(q1=["a", "b"]))
    assert tm.run.collect().select("text", "doc_id").rows() == [("b", "g2"), ("a", "g1")]


def test_other_columns_are_kept_and_doc_id_is_replaced() -> None:
    run = pl.DataFrame(
        {
            "system": ["s", "s"],
            "query_id": [1, 1],
            "doc_id": ["chunk-9", None],
            "pos": [1, 2],
            "text": [PARIS, EUROPE],
            "source": ["wiki", "news"],
        }
    )
    gold = pl.DataFrame({"query_id": [1], "text": [PARIS]})
    out = match_text(run, gold).run.collect()
    assert out.columns == ["system", "query_id", "doc_id", "pos", "text", "source", "rank"]
    assert out.rows() == [
        ("s", "1", "g1", 1, PARIS, "wiki", 1),
        ("s", "1", "#unmatched:2", 2, EUROPE, "news", 2),
    ]


def test_queries_without_gold_leave_every_chunk_unmatched() -> None:
    tm = match_text(chunks(("s", "q9", [PARIS])), golds(q1=[PARIS]))
    assert doc_ids(tm, query="q9") == ["#unmatched:1"]


# --- normalisation ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Hello   WORLD \n\t again ", "hello world again"),
        ("ﬁne Ｔｅｘｔ", "fine text"),  # NFKC: ligature and full-width letters
        ("Date: 2023-05-01\nuser: hi there", "hi there"),
        ("  DATE: Monday\r\nassistant:\tok", "ok"),
        ("Date: 2023-05-01", "date: 2023-05-01"),  # no line break: not a date line
        ("user: a\n  Assistant:  b\nthe user: c", "a b the user: c"),
        ("intro\nDate: later\nx", "intro date: later x"),  # only a leading date line
        ("user:x", "x"),
    ],
)
def test_normalize_text(raw: str, expected: str) -> None:
    frame = pl.DataFrame({"text": [raw]})
    assert frame.select(normalize_text(pl.col("text"))).item() == expected


def test_conversation_chunk_matches_its_document_in_contained_mode() -> None:
    document = "Date: 2023-05-01\nuser: I adopted a cat.\nassistant: What is its name?\nuser: Miso."
    chunk = "User: I adopted a cat.\nAssistant: What is its name?"
    tm = match_text(chunks(("s", "q1", [chunk])), golds(q1=[document]), mode="contained")
    assert doc_ids(tm) == ["g1"]
    tm = match_text(chunks(("s", "q1", [chunk])), golds(q1=[document]), mode="exact")
    assert doc_ids(tm) == ["#unmatched:1"]


# --- end to end: seed 003's batch example -----------------------------------------------


def test_end_to_end_batch_example() -> None:
    run = chunks(
        ("s", "q1", [PARIS, EUROPE, NAPOLEON]),
        ("s", "q2", ["The sky is blue.", "Water is wet."]),
        ("s", "q3", ["Unrelated 1.", "Unrelated 2.", "Unrelated 3.", LOUVRE]),
    )
    gold = golds(q1=[PARIS, EIFFEL], q2=["The sky is blue.", "Water is wet."], q3=[LOUVRE])
    tm = match_text(run, gold)
    assert tm.report.rows() == [("s", 9, 4, 0, 5)]
    values = per_query(tm, ["recall@3", "recall@5", "ndcg@5"])
    assert values["s", "q1", "recall@3"] == 0.5
    assert values["s", "q2", "recall@3"] == 1.0
    assert values["s", "q3", "recall@3"] == 0.0
    assert values["s", "q1", "recall@5"] == 0.5
    assert values["s", "q2", "recall@5"] == 1.0
    assert values["s", "q3", "recall@5"] == 1.0
    assert values["s", "q1", "ndcg@5"] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert values["s", "q2", "ndcg@5"] == pytest.approx(1.0)
    assert values["s", "q3", "ndcg@5"] == pytest.approx(1 / math.log2(5))


def test_end_to_end_with_score_ties_reproduced_by_rank_order() -> None:
    # Equal scores: matching breaks the tie by text descending ("b" first); evaluate's
    # default would break it by the new doc_id, order="rank" keeps the matching order.
    run = pl.LazyFrame({"system": "s", "query_id": "q1", "score": [1.0, 1.0], "text": ["a", "b"]})
    tm = match_text(run, golds(q1=["b"]))
    res = rankset.evaluate(tm.run.collect(), tm.labels.collect(), ["rr"], order="rank")
    assert res.per_query["value"].to_list() == [1.0]


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("column", ["system", "query_id", "text"])
def test_missing_run_column(column: str) -> None:
    run = chunks(("s", "q1", [PARIS])).drop(column)
    with pytest.raises(SchemaError, match=rf"the run has no column '{column}'"):
        match_text(run, golds(q1=[PARIS]))


@pytest.mark.parametrize("column", ["query_id", "text"])
def test_missing_gold_column(column: str) -> None:
    gold = golds(q1=[PARIS]).drop(column)
    with pytest.raises(SchemaError, match=rf"the gold has no column '{column}'"):
        match_text(chunks(("s", "q1", [PARIS])), gold)


def test_run_without_an_order() -> None:
    run = chunks(("s", "q1", [PARIS])).drop("pos")
    with pytest.raises(SchemaError, match=r"no 'pos', 'score' or 'rank' column"):
        match_text(run, golds(q1=[PARIS]))


def test_bad_mode() -> None:
    with pytest.raises(
        ParameterError,
        match=r"The 'mode' parameter must be one of 'exact', 'normalized', 'contained', "
        r"'json_escaped'\. "
        r"Got 'fuzzy' instead\.",
    ):
        match_text(chunks(("s", "q1", [PARIS])), golds(q1=[PARIS]), mode="fuzzy")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        (["a", "a"], r"gold id is repeated within a query .*query 'q1' id 'a' \(2 times\)"),
        (["a", None], r"must be non-null .*query 'q1' id None"),
        (["#dup1:a", "a"], r"must not start with '#'.*query 'q1' id '#dup1:a'"),
    ],
)
def test_bad_gold_ids(ids: list[str | None], message: str) -> None:
    gold = pl.LazyFrame({"query_id": ["q1", "q1"], "text": [PARIS, EIFFEL], "gold_id": ids})
    with pytest.raises(SchemaError, match=message):
        match_text(chunks(("s", "q1", [PARIS])), gold)


def test_same_gold_id_in_two_queries_is_fine() -> None:
    gold = pl.LazyFrame({"query_id": ["q1", "q2"], "text": [PARIS, EIFFEL], "gold_id": ["a", "a"]})
    tm = match_text(chunks(("s", "q1", [PARIS]), ("s", "q2", [EIFFEL])), gold)
    assert doc_ids(tm, query="q1") == doc_ids(tm, query="q2") == ["a"]


# --- properties ---------------------------------------------------------------------------

_texts = st.sampled_from(["a", "b", "ab", "A", " a ", ""])


@settings(max_examples=60, deadline=None)
@given(
    rankings=st.lists(st.lists(_texts, max_size=6), min_size=1, max_size=3),
    gold_texts=st.lists(_texts, max_size=4),
    mode=st.sampled_from(["exact", "normalized", "contained"]),
)
def test_properties_against_a_plain_python_reference(
    rankings: list[list[str]], gold_texts: list[str], mode: str
) -> None:
    def compared(text: str) -> str:
        return text if mode == "exact" else " ".join(text.lower().split())

    def matches(chunk: str, gold: str) -> bool:
        c, g = compared(chunk), compared(gold)
        return c != "" and (c in g if mode == "contained" else c == g)

    run = chunks(*((f"s{i}", "q1", texts) for i, texts in enumerate(rankings)))
    tm = match_text(run, golds(q1=gold_texts), mode=mode)  # type: ignore[arg-type]
    expected_report = []
    for i, texts in enumerate(rankings):
        credited: dict[str, int] = {}
        expected = []
        for pos, chunk in enumerate(texts, start=1):
            hit = next((j for j, g in enumerate(gold_texts, 1) if matches(chunk, g)), None)
            if hit is None:
                expected.append(f"#unmatched:{pos}")
                continue
            n = credited.get(f"g{hit}", 0)
            credited[f"g{hit}"] = n + 1
            expected.append(f"g{hit}" if n == 0 else f"#dup{n}:g{hit}")
        assert doc_ids(tm, f"s{i}") == expected
        if texts:
            n_matched = sum(not d.startswith("#") for d in expected)
            n_unmatched = sum(d.startswith("#unmatched") for d in expected)
            expected_report.append(
                (f"s{i}", len(texts), n_matched, len(texts) - n_matched - n_unmatched, n_unmatched)
            )
    assert tm.report.rows() == expected_report


def test_json_escaped_mode_matches_chunks_of_json_stored_gold_texts() -> None:
    import json

    document = 'Line one.\nHe said "hi" in a café.'
    stored = json.dumps(document)[1:-1]  # the gold text as a JSON string holds it
    gold = pl.DataFrame({"query_id": ["q"], "text": [stored], "gold_id": ["doc"]})
    chunks = ['He said "hi" in a café.', "Line one.\nHe said", "unrelated"]
    run = pl.DataFrame({"system": "s", "query_id": "q", "text": chunks, "score": [3.0, 2.0, 1.0]})
    escaped = rankset.match_text(run, gold, mode="json_escaped")
    assert escaped.run.collect().sort("pos")["doc_id"].to_list() == [
        "doc",  # its escaped form (\\" and \\u00e9) is in the stored text
        "#dup1:doc",  # also matches, credited once
        "#unmatched:3",
    ]
    exact = rankset.match_text(run, gold, mode="exact")
    assert exact.report["n_matched"].to_list() == [0]
