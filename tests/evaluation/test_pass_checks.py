"""The document ids' checks counted from their bytes, against Polars' string masks.

``doc_id_problem_counts`` (the packed numbering's check, a numpy scan of the collected
ids' Arrow buffers) must count what ``id_problems``' masks count, row for row: nulls,
empty ids, ids holding a C0 control character or DEL anywhere (and not the UTF-8 bytes
of other characters, 0x80 and up), ids with a leading or trailing space; on sliced and
multi-chunk columns too. ``label_problem_row`` (the kernel's label checks, both id
columns scanned so) must give ``label_problem_counts``' row, problem for problem and in
its order (the first problem counted is the one named).
"""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from rankset.evaluation._pass_checks import doc_id_problem_counts, label_problem_row
from rankset.io._shared import count_problems, id_problems
from rankset.schema._rules import label_problem_counts

_CHARACTERS = [
    "a",
    "1",
    " ",
    "\x00",
    "\x1f",
    "\t",
    "\n",
    "\x7f",
    "\x80",
    "é",
    "日",
    "~",
    "\U0001f600",
]
_ids = st.lists(
    st.one_of(st.none(), st.lists(st.sampled_from(_CHARACTERS), max_size=16).map("".join)),
    max_size=30,
)


def _expected(ids: pl.Series) -> dict[str, int]:
    masks = id_problems("doc_id")
    return ids.rename("doc_id").to_frame().select(count_problems(masks)).row(0, named=True)


@settings(max_examples=300, deadline=None)
@given(ids=_ids, start=st.integers(0, 5), chunks=st.integers(1, 3))
def test_the_byte_scan_counts_what_the_masks_count(
    ids: list[str | None], start: int, chunks: int
) -> None:
    series = pl.Series("doc_id", ids, dtype=pl.String).slice(start)
    parts = [series.slice(i * 7, 7) for i in range(chunks - 1)] + [series.slice((chunks - 1) * 7)]
    chunked = pl.concat(parts, rechunk=False) if chunks > 1 else series
    assert doc_id_problem_counts(chunked) == _expected(chunked)


def test_each_problem_is_counted_once_per_row() -> None:
    ids = pl.Series(["d1", "", "\x00", " \x01 ", "a\x7fb", "é", None, "x ", "日本"])
    assert list(doc_id_problem_counts(ids).values()) == [1, 1, 3, 2]


_grades = st.lists(st.sampled_from([0.0, 1.0, -1.0, None, float("nan"), float("inf")]))


@settings(max_examples=200, deadline=None)
@given(query_ids=_ids, doc_ids=_ids, grades=_grades, start=st.integers(0, 3))
def test_the_labels_problem_row_is_label_problem_counts_row(
    query_ids: list[str | None], doc_ids: list[str | None], grades: list[float | None], start: int
) -> None:
    rows = min(len(query_ids), len(doc_ids), len(grades))
    labels = pl.DataFrame(
        {"query_id": query_ids[:rows], "doc_id": doc_ids[:rows], "grade": grades[:rows]},
        schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64},
    ).slice(start)
    expected = label_problem_counts(labels.lazy()).collect().row(0, named=True)
    assert list(label_problem_row(labels).items()) == list(expected.items())
