"""Hypothesis strategies for runs and labels (needs ``hypothesis``).

The drawn collections have what real data has and simple generators miss: tied scores,
document ids that sort differently as bytes and as numbers, negative grades (judged
"unjudged" by trec_eval), queries only in the run or only in the labels, and several
systems. Every system answers at least one labelled query (rankset refuses a run with
none in common with the labels, by design).

Examples
--------
>>> from hypothesis import given, settings
>>> import rankset
>>> @settings(max_examples=5, database=None)
... @given(collections(systems=2))
... def test_rr_is_at_most_one(drawn):
...     result = rankset.evaluate(drawn.runs, drawn.labels, ["rr"])
...     assert result.per_query["value"].max() <= 1.0
>>> test_rr_is_at_most_one()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from rankset._dependencies import install_hint
from rankset.errors import MissingDependencyError

try:
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - the testing extra is missing
    msg = f"rankset.testing.strategies needs hypothesis: {install_hint('testing')}"
    raise MissingDependencyError(msg) from None

__all__ = [
    "DOC_IDS",
    "GRADES",
    "QUERY_IDS",
    "SCORES",
    "Collection",
    "collections",
    "rankings",
]

#: Query ids that sort differently as text and as numbers, and differ in case only.
QUERY_IDS = ("1", "2", "10", "9", "100", "q1", "Q1")
#: Document ids likewise, and one beyond ASCII (trec_eval breaks ties by byte order).
DOC_IDS = ("1", "2", "9", "10", "11", "100", "101", "a", "B", "d9", "d10", "D10", "é")
#: Few distinct scores, so rankings have ties.
SCORES = (-1.0, 0.0, 0.5, 1.0, 2.0, 1e-9)
#: trec_eval's grades: negative ones are in the pool but unjudged.
GRADES = (-2, -1, 0, 0, 1, 2, 3)


@dataclass(frozen=True)
class Collection:
    """Runs by system and labels, as ranx-style dicts ``{query: {doc: value}}``."""

    runs: dict[str, dict[str, dict[str, float]]]
    labels: dict[str, dict[str, int]]

    def runs_frame(self) -> pl.DataFrame:
        """Return every run row: ``system, query_id, doc_id, score``."""
        rows = [
            (system, query, doc, score)
            for system, run in self.runs.items()
            for query, ranking in run.items()
            for doc, score in ranking.items()
        ]
        schema = {"system": pl.String, "query_id": pl.String, "doc_id": pl.String}
        return pl.DataFrame(rows, schema={**schema, "score": pl.Float64}, orient="row")

    def labels_frame(self) -> pl.DataFrame:
        """Return every label row: ``query_id, doc_id, grade``."""
        rows = [(q, d, g) for q, docs in self.labels.items() for d, g in docs.items()]
        schema = {"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64}
        return pl.DataFrame(rows, schema=schema, orient="row")


def rankings(
    doc_ids: Sequence[str] = DOC_IDS,
    scores: Sequence[float] = SCORES,
    *,
    min_size: int = 1,
    max_size: int = 12,
) -> st.SearchStrategy[dict[str, float]]:
    """Draw one ranking: distinct documents with scores (ties likely)."""
    return st.lists(
        st.tuples(st.sampled_from(doc_ids), st.sampled_from(scores)),
        min_size=min_size,
        max_size=max_size,
        unique_by=lambda pair: pair[0],
    ).map(dict)


@st.composite
def collections(
    draw: st.DrawFn,
    *,
    systems: int | tuple[int, int] = 1,
    queries: tuple[int, int] = (1, 5),
    query_ids: Sequence[str] = QUERY_IDS,
    doc_ids: Sequence[str] = DOC_IDS,
    scores: Sequence[float] = SCORES,
    grades: Sequence[int] = GRADES,
    max_labels: int = 8,
    max_ranking: int = 12,
) -> Collection:
    """Draw runs of one or several systems and their labels.

    Each query is in the labels, in the runs, or in both; the first drawn query is in
    both, and each system answers it.
    """
    low, high = (systems, systems) if isinstance(systems, int) else systems
    names = [f"s{i}" if high > 1 else "hyp" for i in range(draw(st.integers(low, high)))]
    qids = draw(
        st.lists(st.sampled_from(query_ids), min_size=queries[0], max_size=queries[1], unique=True)
    )
    labels: dict[str, dict[str, int]] = {}
    answered: list[str] = []
    for position, qid in enumerate(qids):
        side = "both" if position == 0 else draw(st.sampled_from(("both", "labels", "run")))
        if side != "run":
            docs = draw(
                st.lists(st.sampled_from(doc_ids), min_size=1, max_size=max_labels, unique=True)
            )
            labels[qid] = {doc: draw(st.sampled_from(grades)) for doc in docs}
        if side != "labels":
            answered.append(qid)
    runs = {
        name: {
            qid: draw(rankings(doc_ids, scores, max_size=max_ranking))
            for qid in answered
            if qid == qids[0] or draw(st.booleans())
        }
        for name in names
    }
    return Collection(runs, labels)
