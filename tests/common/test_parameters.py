# ruff: noqa: E501  (a table of cases reads best one per line)
"""One walk over the public functions feeding bad parameter values (sklearn's common test).

Every message has the same form: "The '<name>' parameter must be ... Got <value> instead."
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import rankset

RUN = {"q": {"a": 2.0, "b": 1.0}}
LABELS = {"q": {"a": 5, "b": 3}}


def _result() -> rankset.EvaluationResult:
    return rankset.evaluate(
        {"s1": RUN, "s2": RUN}, LABELS, ["ra_nwg@1", "proc@1", "pct_proc@1", "recall@1", "ndcg@1"]
    )


CASES: list[tuple[str, Callable[[], Any], str]] = [
    ("evaluate k", lambda: rankset.evaluate(RUN, LABELS, ["ap"], k=0), "'k' parameter must be an int >= 1. Got 0"),
    ("evaluate default_k", lambda: rankset.evaluate(RUN, LABELS, ["ap"], default_k=-1), "'default_k' parameter must be an int >= 1"),
    ("evaluate relevance_level", lambda: rankset.evaluate(RUN, LABELS, ["ap"], relevance_level="2"), "'relevance_level' parameter must be a float"),
    ("evaluate missing", lambda: rankset.evaluate(RUN, LABELS, ["ap"], missing="no"), "'missing' parameter must be one of"),
    ("evaluate confidence", lambda: rankset.evaluate(RUN, LABELS, ["ap"], confidence=0), "'confidence' parameter must be a float in \\(0, 1\\)"),
    ("evaluate seed", lambda: rankset.evaluate(RUN, LABELS, ["ap"], seed=-1), "'seed' parameter must be an int >= 0"),
    ("evaluate scale", lambda: rankset.evaluate(RUN, LABELS, ["ap"], scale="x"), "'scale' parameter must be one of"),
    ("metric cutoff", lambda: rankset.parse_metric("ndcg@0"), "'k' parameter of ndcg must be an int >= 1"),
    ("metric param", lambda: rankset.parse_metric("harm(unjudged=2)@5"), "'unjudged' parameter of harm must be one of 0, 1"),
    ("curves ks", lambda: rankset.curves(RUN, LABELS, ["ndcg"], ks=[0]), "'ks' parameter must be an int >= 1"),
    ("curves n_resamples", lambda: rankset.curves(RUN, LABELS, ["ndcg"], n_resamples=0), "'n_resamples' parameter must be an int >= 1"),
    ("compare alpha", lambda: rankset.compare(_result(), "s1", alpha=2), "'alpha' parameter must be a float in \\(0, 1\\). Got 2"),
    ("compare correction", lambda: rankset.compare(_result(), "s1", correction="sidak"), "'correction' parameter must be one of"),
    ("compare n_resamples", lambda: rankset.compare(_result(), "s1", n_resamples=0), "'n_resamples' parameter must be an int >= 1"),
    ("diagnose threshold", lambda: rankset.diagnose(_result(), k=1, proc_threshold=2), "'proc_threshold' parameter must be a float in \\[0, 1\\]. Got 2"),
    ("diagnose k", lambda: rankset.diagnose(_result(), k=0), "'k' parameter must be an int >= 1"),
    ("regressions tolerance", lambda: rankset.regressions(_result(), "s1", "s2", k=1, tolerance=-1), "'tolerance' parameter must be a float >= 0"),
    ("match_text mode", lambda: rankset.match_text(RUN_TEXT, GOLD, mode="fuzzy"), "'mode' parameter must be one of"),
]  # fmt: skip

RUN_TEXT = __import__("polars").DataFrame({"system": "s", "query_id": "q", "text": "x", "rank": 1})
GOLD = __import__("polars").DataFrame({"query_id": ["q"], "text": ["x"]})


@pytest.mark.parametrize(("case", "call", "message"), CASES, ids=[c[0] for c in CASES])
def test_bad_parameter_is_a_parameter_error(
    case: str, call: Callable[[], Any], message: str
) -> None:
    del case
    with pytest.raises(rankset.ParameterError, match=message):
        call()
