"""ranx-style dicts read without a Python step per row give the row-by-row reader's frame."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.errors import InputFormatError, SchemaError
from rankset.io import read
from rankset.io._shared import looks_like_ranx


def _rows(mapping: dict[Any, Any], kind: str) -> pl.DataFrame:
    parsed = read(mapping, kind=kind)
    frame = parsed.run if kind == "run" else parsed.labels
    assert frame is not None
    return frame.collect()


@pytest.mark.parametrize("kind", ["run", "labels"])
def test_plain_and_unusual_values_read_alike(kind: str) -> None:
    plain = {"q1": {"d1": 2.5, "d2": 1}, "q2": {"d3": 0}}
    unusual = {"q1": {"d1": np.float64(2.5), "d2": np.int64(1)}, "q2": {"d3": 0.0}}
    got = _rows(plain, kind)
    assert_frame_equal(got, _rows(unusual, kind), check_exact=True)
    assert got["query_id"].to_list() == ["q1", "q1", "q2"]
    assert got["doc_id"].to_list() == ["d1", "d2", "d3"]


@pytest.mark.parametrize("bad", [True, np.bool_(False), None, "0.5"])
def test_a_bad_value_among_many_is_named(bad: object) -> None:
    # past the size where the types are read in Python: the column constructor's way
    many: dict[str, Any] = {f"d{i}": i / 7 for i in range(3_000)}
    many["x"] = bad
    with pytest.raises(InputFormatError, match=r"doc 'x': score .* is not a number"):
        read({"q": many}, kind="run")


def test_many_rows_read_as_few_do() -> None:
    # the same frame either side of the size where the query ids are built in Python
    mapping = {f"q{j}": {f"d{i}": float((i * j) % 5) for i in range(j % 7)} for j in range(900)}
    assert sum(len(docs) for docs in mapping.values()) > 2_000
    got = _rows(mapping, "run")
    expected = [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]
    assert got.select("query_id", "doc_id", "score").rows() == expected
    small = dict(list(mapping.items())[:50])
    assert _rows(small, "run").select("query_id", "doc_id", "score").rows() == [
        (q, d, v) for q, docs in small.items() for d, v in docs.items()
    ]


def test_decimals_read_as_their_float_on_either_path() -> None:
    # The fast path (text ids) and the row-by-row one (an integer id) take them alike.
    fast = _rows({"q1": {"d1": Decimal("0.1"), "d2": 1.0}}, "run")
    by_row = _rows({"q1": {"d1": Decimal("0.1"), 2: 1.0}}, "run")
    assert fast["score"].to_list() == by_row["score"].to_list() == [0.1, 1.0]


def test_integer_ids_are_written_as_text() -> None:
    got = _rows({1: {2: 3.0, "x": 1.0}}, "labels")
    assert got.rows() == [("1", "2", 3.0), ("1", "x", 1.0)]


def test_a_run_dict_carries_its_profile() -> None:
    parsed = read({"q1": {"d1": 1.0, "d2": 0.5}}, kind="run")
    assert parsed.profile == {"tags": [], "n_scores": 2, "n_rows": 2}
    assert parsed.run is not None
    assert parsed.run.collect()["system"].null_count() == 2


@pytest.mark.parametrize(
    ("mapping", "match"),
    [
        ({"q": {"d": True}}, "score True is not a number"),
        # after other numbers, so the column constructor alone would take them as 1 and 0
        ({"q": {"a": 0.5, "b": 2, "d": True}}, "doc 'd': score True is not a number"),
        ({"q": {"a": 0.5, "d": np.bool_(False)}}, "doc 'd': score np.False_ is not a number"),
        ({"q": {"a": 0.5}, "r": {"d": 1.0, "e": None}}, "doc 'e': score None is not a number"),
        ({"q": {"a": 0.5, "d": "0.7"}}, "doc 'd': score '0.7' is not a number"),
        ({"q": {"d": "1"}}, "score '1' is not a number"),
        ({"q": {"d": None}}, "score None is not a number"),
        ({"q": {"d": 1.0}, "r": [1.0]}, "maps to list"),
        ({"q": {1.5: 1.0}}, "doc id must be"),
    ],
)
def test_bad_entries_are_named(mapping: dict[Any, Any], match: str) -> None:
    with pytest.raises(InputFormatError, match=match):
        read(mapping, kind="run")


@pytest.mark.parametrize(
    ("run", "match"),
    [
        ({"q": {"d": True}}, "query 'q', doc 'd': score True is not a number"),
        ({"q": {"d": "0.5"}}, "query 'q', doc 'd': score '0.5' is not a number"),
        ({"q": {"d": None}}, "query 'q', doc 'd': score None is not a number"),
    ],
)
def test_a_run_whose_first_score_is_bad_is_named_as_a_run(run: dict[Any, Any], match: str) -> None:
    # A mapping whose first value holds no mapping is one run, not {name: run}: its bad
    # score is named, not taken for a run "q" whose query "d" maps to a non-mapping.
    assert looks_like_ranx(run)
    with pytest.raises(InputFormatError, match=match):
        rankset.evaluate(run, {"q": {"d": 1}}, ["rr"])
    assert not looks_like_ranx({"bm25": {"q": {"d": 1.0}}})


def test_only_text_keys_rule_out_a_document_twice() -> None:
    assert read({"q1": {"d1": 1.0, "d2": 0.5}}, kind="run").unique_docs
    colliding = {"q1": {1: 1.0, "1": 0.5}}  # both are document "1"
    assert not read(colliding, kind="run").unique_docs
    with pytest.raises(SchemaError, match=r"more than once|twice|duplicate"):
        rankset.evaluate(colliding, {"q1": {"1": 1}}, ["rr"])
