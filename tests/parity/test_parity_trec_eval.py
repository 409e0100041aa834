"""Parity with trec_eval's own regression outputs (tests/data/trec_eval, copied from trec_eval).

Every per-query value and every ``all`` row that trec_eval printed for the compared measure
families (P, recall, map, map_cut, ndcg, ndcg_cut, recip_rank, Rprec, bpref, success, num_ret,
num_rel, num_rel_ret, relative_P, and the set measures set_P, set_relative_P, set_recall, set_map,
set_F and num_nonrel_judged_ret) must print the same at trec_eval's 4 decimals. The expected files
were made by trec_eval itself (commands in tests/data/trec_eval/NOTICE.md), never by rankset.

Scenarios:

- ``aq``: ``trec_eval -m all_trec -q qrels.test results.test``
- ``aqc``: the same with ``-c`` over ``results.trunc``, where query 302 has no results
  (``missing="zero"``; the ``all`` row averages over all 3 labelled queries)
- ``aql``: ``-l2`` with the graded ``qrels.rel_level`` (``relevance_level=2``; nDCG still
  uses the raw grades)
- ``comments``: ``trec_eval qrels.test.with-comments results.test`` (summary only, ``out.test``)

Each scenario is evaluated twice: from the file paths (rankset's TREC readers: tab separated
runs, words after the run tag in results.trunc, comment lines in qrels.test.with-comments) and
from frames built by the tests' own minimal parser, without a rank column. A reader bug cannot
hide behind a metric bug, or the other way round. (results.test repeats a score 10 times, but
breaking those ties the other way changes no printed value; test_parity_pytrec_eval pins the
tie rule.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import polars as pl
import pytest

import rankset
from _support.pytrec_reference import (
    COUNT_MEASURES,
    canonical_metric,
    prints_as,
    read_qrels,
    read_run,
)

if TYPE_CHECKING:
    from conftest import TrecEvalRow

ParseOutput = Callable[[str], tuple["TrecEvalRow", ...]]

TREC_EVAL_EXPECTED = {
    "aq": "out.test.aq",
    "aqc": "out.test.aqc",
    "aql": "out.test.aql",
    "comments": "out.test",
}
"""Scenario id -> trec_eval's expected output; conftest parametrises ``trec_eval_measure``."""

InputForm = Literal["path", "frame"]


@dataclass(frozen=True)
class Scenario:
    qrels: str
    run: str
    relevance_level: int = 1
    missing: Literal["skip", "zero"] = "skip"


SCENARIOS = {
    "aq": Scenario("qrels.test", "results.test"),
    "aqc": Scenario("qrels.test", "results.trunc", missing="zero"),
    "aql": Scenario("qrels.rel_level", "results.test", relevance_level=2),
    "comments": Scenario("qrels.test.with-comments", "results.test"),
}

# Counted by hand from the files (`grep`), not computed by the code under test. The -q files
# print 62 compared measures: P_k x 9 cutoffs (5 10 15 20 30 100 200 500 1000), recall_k x 9,
# map_cut_k x 9, ndcg_cut_k x 9, relative_P_k x 9, success_1/5/10, map, ndcg, recip_rank,
# Rprec, bpref, the 3 counts and the 6 set measures (set_P, set_relative_P, set_recall,
# set_map, set_F, num_nonrel_judged_ret: `grep -cE` finds 24 rows, 6 x (3 queries + all);
# relative_P 36, 9 x 4); for queries 301, 302, 303 that makes 186 per-query values, plus
# 62 `all` rows.
# out.test has trec_eval's default set: 3 counts, map, Rprec, bpref, recip_rank and P_k x 9,
# 16 `all` rows and no per-query rows.
EXPECTED_COUNTS = {
    "aq": (62, 186, 62),
    "aqc": (62, 186, 62),
    "aql": (62, 186, 62),
    "comments": (16, 0, 16),
}
"""Scenario -> (compared measures, compared per-query values, compared ``all`` rows)."""


def _labels_frame(path: Path) -> pl.DataFrame:
    rows = [(q, d, g) for q, labels in read_qrels(path).items() for d, g in labels.items()]
    schema = {"query_id": pl.String, "doc_id": pl.String, "grade": pl.Int64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _run_frame(path: Path) -> pl.DataFrame:
    rows = [(q, d, s) for q, docs in read_run(path).items() for d, s in docs.items()]
    schema = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _compared_measures(rows: tuple[TrecEvalRow, ...]) -> list[str]:
    names = (row.measure for row in rows if canonical_metric(row.measure) is not None)
    return list(dict.fromkeys(names))  # file order, each once


EvaluateScenario = Callable[[str, InputForm], rankset.EvaluationResult]


@pytest.fixture(scope="module")
def evaluate_scenario(trec_eval_data: Path, trec_eval_output: ParseOutput) -> EvaluateScenario:
    """Evaluate a scenario once per input form with every compared measure of its file."""
    results: dict[tuple[str, InputForm], rankset.EvaluationResult] = {}

    def evaluate(scenario_id: str, form: InputForm) -> rankset.EvaluationResult:
        if (scenario_id, form) not in results:
            scenario = SCENARIOS[scenario_id]
            measures = _compared_measures(trec_eval_output(TREC_EVAL_EXPECTED[scenario_id]))
            run_path, qrels_path = trec_eval_data / scenario.run, trec_eval_data / scenario.qrels
            results[scenario_id, form] = rankset.evaluate(
                run_path if form == "path" else _run_frame(run_path),
                qrels_path if form == "path" else _labels_frame(qrels_path),
                metrics=[str(canonical_metric(m)) for m in measures],
                relevance_level=scenario.relevance_level,
                missing=scenario.missing,
            )
        return results[scenario_id, form]

    return evaluate


def _agrees(measure: str, value: float | None, printed: str) -> bool:
    if value is None:
        return False
    if measure in COUNT_MEASURES:  # printed as integers
        return value == int(printed)
    return prints_as(value, printed)


@pytest.mark.parametrize("input_form", ["path", "frame"])
def test_matches_trec_eval(
    trec_eval_measure: tuple[str, str],
    input_form: InputForm,
    evaluate_scenario: EvaluateScenario,
    trec_eval_output: ParseOutput,
) -> None:
    scenario_id, measure = trec_eval_measure
    metric = canonical_metric(measure)
    rows = trec_eval_output(TREC_EVAL_EXPECTED[scenario_id])
    expected = {r.query_id: r.value for r in rows if r.measure == measure}
    num_q = int(next(r.value for r in rows if r.measure == "num_q"))
    overall = expected.pop("all")

    result = evaluate_scenario(scenario_id, input_form)
    per_query = result.per_query.filter(pl.col("metric") == metric)
    summary = result.summary.filter(pl.col("metric") == metric)
    assert per_query["system"].n_unique() == 1
    assert summary.height == 1

    problems = []
    if expected:  # a -q file: every query trec_eval printed, and only those
        got = dict(zip(per_query["query_id"], per_query["value"], strict=True))
        if set(got) != set(expected):
            problems.append(f"queries: rankset {sorted(got)}, trec_eval {sorted(expected)}")
        problems += [
            f"query {qid}: rankset {got.get(qid)!r}, trec_eval {printed}"
            for qid, printed in expected.items()
            if not _agrees(measure, got.get(qid), printed)
        ]

    mean, n_queries, n_na = summary.select("mean", "n_queries", "n_na").row(0)
    if (n_queries, n_na) != (num_q, 0):
        problems.append(f"n_queries={n_queries}, n_na={n_na}; trec_eval num_q={num_q}")
    # trec_eval's `all` row sums the counts and averages everything else over num_q queries.
    overall_value = round(mean * n_queries, 6) if measure in COUNT_MEASURES else mean
    if not _agrees(measure, overall_value, overall):
        problems.append(f"all: rankset {overall_value!r}, trec_eval {overall}")
    assert not problems, f"{measure} ({scenario_id}, {input_form}):\n" + "\n".join(problems)


@pytest.mark.parametrize("scenario_id", list(TREC_EVAL_EXPECTED))
def test_compared_pair_counts(scenario_id: str, trec_eval_output: ParseOutput) -> None:
    rows = trec_eval_output(TREC_EVAL_EXPECTED[scenario_id])
    compared = [r for r in rows if canonical_metric(r.measure) is not None]
    per_query = [r for r in compared if r.query_id != "all"]
    counts = (len(_compared_measures(rows)), len(per_query), len(compared) - len(per_query))
    assert counts == EXPECTED_COUNTS[scenario_id]


def test_trec_eval_names_are_aliases(trec_eval_data: Path, trec_eval_output: ParseOutput) -> None:
    measures = _compared_measures(trec_eval_output("out.test.aq"))
    run, qrels = trec_eval_data / "results.test", trec_eval_data / "qrels.test"
    by_alias = rankset.evaluate(run, qrels, metrics=measures).per_query
    by_canonical = rankset.evaluate(
        run, qrels, metrics=[str(canonical_metric(m)) for m in measures]
    ).per_query
    assert set(by_alias["metric"]) == {canonical_metric(m) for m in measures}
    key = ["system", "query_id", "metric"]
    assert by_alias.sort(key).equals(by_canonical.sort(key))
