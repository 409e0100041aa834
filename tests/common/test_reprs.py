"""The result objects print readably: 80 columns, the key facts, escaped HTML, no side effect.

Every fact a test looks for is read from the object's own frames, not from the repr code.
"""

from __future__ import annotations

import copy
import html
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import rankset
from rankset._format import REPR_WIDTH, ReprTable, html_repr, listing, text_repr
from rankset.comparison.suites import SuiteResult, evaluate_suite
from rankset.diagnosis.quadrants import Diagnosis, diagnose
from rankset.evaluation import EvaluationResult
from rankset.evaluation.cutoff_curves import Curves
from rankset.experiments._gate import GateResult, gate
from rankset.fusion import FusionSearch
from rankset.label_quality.assessors import Agreement, agreement
from rankset.label_quality.judging import JudgingQueue, judging_queue
from rankset.label_quality.rank_stability import RankingStability, ranking_stability

HOSTILE = "<b>x</b>"
QUERIES = [f"q{i}" for i in range(6)]
LABELS = {q: {"a": 2, "b": 1, "c": 0} for q in QUERIES}
RUNS = {
    "bm25": {q: {"a": 3.0, "x": 2.0, "b": 1.0} for q in QUERIES},
    HOSTILE: {q: {"y": 3.0, "b": 2.0, "a": 1.0} for q in QUERIES},
}
MANY_METRICS = ["ndcg@10", "ndcg@20", "recall@10", "recall@100", "map", "rr", "P@5", "P@10"]


def _evaluation() -> EvaluationResult:
    return rankset.evaluate(RUNS, LABELS, ["ndcg@10", "recall@100", "map", "rr"])


def _curves() -> Curves:
    return rankset.curves(RUNS, LABELS, ["ndcg", "recall"], ks=20, n_resamples=50)


def _diagnosis() -> Diagnosis:
    return diagnose(RUNS, LABELS, k=2, scale="trec_dl")


def _agreement() -> Agreement:
    judge = {q: {"a": 1, "b": 1, "c": 0} for q in QUERIES}
    return agreement(LABELS, {HOSTILE: judge, "llm": judge}, confidence=None)


def _stability() -> RankingStability:
    other = {q: {"y": 1, "x": 1} for q in QUERIES}
    return ranking_stability(RUNS, {"human": LABELS, HOSTILE: other}, "rr", confidence=None)


def _queue() -> JudgingQueue:
    return judging_queue(RUNS, LABELS, k=3)


def _fusion() -> FusionSearch:
    return rankset.optimize_fusion(list(RUNS.values()), LABELS, "rrf", "rr")


def _suite() -> SuiteResult:
    return evaluate_suite(
        {"c1": (RUNS, LABELS), HOSTILE: (RUNS, LABELS)}, ["rr", "ap"], n_resamples=20
    )


def _gate() -> GateResult:
    base = rankset.evaluate({HOSTILE: RUNS["bm25"]}, LABELS, ["ndcg@10", "rr"])
    cand = rankset.evaluate({HOSTILE: RUNS[HOSTILE]}, LABELS, ["ndcg@10", "rr"])
    return gate(cand, base, ["ndcg@10", "rr"], n_resamples=50)


BUILDERS: dict[str, Callable[[], Any]] = {
    "EvaluationResult": _evaluation,
    "Curves": _curves,
    "Diagnosis": _diagnosis,
    "Agreement": _agreement,
    "RankingStability": _stability,
    "JudgingQueue": _queue,
    "FusionSearch": _fusion,
    "SuiteResult": _suite,
    "GateResult": _gate,
}


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def result(request: pytest.FixtureRequest) -> Any:
    return BUILDERS[request.param]()


def _too_wide(text: str, skip: int = 0) -> list[str]:
    return [line for line in text.splitlines()[skip:] if len(line) > REPR_WIDTH]


def test_each_repr_fits_a_plain_terminal(result: Any) -> None:
    # Diagnosis's first line is pinned by tests/diagnosis/test_diagnose.py (85 characters).
    skip = 1 if isinstance(result, Diagnosis) else 0
    text = repr(result)
    assert text.startswith(type(result).__name__)
    assert _too_wide(text, skip) == []
    assert len(text.splitlines()) <= 30


def test_the_diagnosis_title_fits_too() -> None:
    assert _too_wide(repr(_diagnosis())) == []


def _frames(result: Any) -> dict[str, Any]:
    return {name: value for name, value in vars(result).items()}


def test_repr_and_html_change_nothing(result: Any) -> None:
    before = copy.deepcopy(_frames(result))
    repr(result)
    result._repr_html_()
    after = _frames(result)
    assert before.keys() == after.keys()
    for name, value in before.items():
        if isinstance(value, pl.DataFrame):
            assert value.equals(after[name], null_equal=True), name
            assert value.columns == after[name].columns, name
        elif isinstance(value, dict) and name == "results":
            assert value.keys() == after[name].keys()
        else:
            assert value == after[name], name


def test_html_escapes_every_user_string(result: Any) -> None:
    page = result._repr_html_()
    assert page.startswith("<div>")
    assert page.endswith("</div>")
    assert "<table>" in page
    assert HOSTILE not in page
    if not isinstance(result, FusionSearch):  # its only strings are its own settings
        assert html.escape(HOSTILE) in page
    else:
        assert "&quot;k&quot;" in page


def _head(text: str) -> str:
    return text.splitlines()[0]


def test_the_evaluation_names_its_systems_metrics_and_queries() -> None:
    res = _evaluation()
    text = repr(res)
    systems = res.summary["system"].unique(maintain_order=True).to_list()
    metrics = res.summary["metric"].unique(maintain_order=True).to_list()
    queries = res.per_query["query_id"].n_unique()
    assert _head(text).startswith(
        f"EvaluationResult: {len(systems)} systems × {len(metrics)} metrics "
        f"over {queries} queries (0 dropped)"
    )
    for system in systems:
        assert any(line.startswith(system) for line in text.splitlines())
    header = text.splitlines()[1].split()
    assert header == ["system", *metrics]
    mean = res.summary.filter(pl.col("system") == "bm25", pl.col("metric") == metrics[0])
    assert f"{mean['mean'][0]:.4f}" in text.splitlines()[2]


def test_a_wide_evaluation_summarises_its_metrics() -> None:
    res = rankset.evaluate(RUNS, LABELS, MANY_METRICS)
    text = repr(res)
    assert _too_wide(text) == []
    shown = text.splitlines()[1].split()[1:]
    hidden = [m for m in res.metrics if m not in shown]
    assert hidden
    assert f"… and {len(hidden)} more metrics: {hidden[0]}" in text
    # the HTML shows every metric
    for metric in res.metrics:
        assert f"<th>{html.escape(metric)}</th>" in res._repr_html_()


def test_long_and_odd_system_names_keep_to_the_width() -> None:
    long_name, odd = "s" * 60 + "-system", "two\nlines\tand tabs"
    res = rankset.evaluate({long_name: RUNS["bm25"], odd: RUNS[HOSTILE]}, LABELS, MANY_METRICS)
    text = repr(res)
    assert _too_wide(text) == []
    assert "two\\nlines\\tand tabs" in text
    assert len(text.splitlines()) == 6
    assert long_name in res._repr_html_()


def test_dropped_queries_are_counted() -> None:
    runs = {"a": {**RUNS["bm25"], "unlabelled": {"a": 1.0}}, "b": RUNS["bm25"]}
    res = rankset.evaluate(runs, LABELS, ["rr"])
    dropped = res.query_counts["n_run_queries_without_labels"].to_list()
    assert dropped == [1, 0]
    assert "(0–1 dropped)" in _head(repr(res))


def test_curves_name_cutoffs_and_show_a_few() -> None:
    curves = _curves()
    text = repr(curves)
    ks = curves.summary["k"].unique().sort().to_list()
    systems = curves.summary["system"].n_unique()
    queries = max(curves.summary["n_queries"].to_list())
    assert _head(text) == (
        f"Curves: {systems} systems × 2 metrics at k = {ks[0]}..{ks[-1]} over {queries} queries"
    )
    assert text.splitlines()[1].split() == ["system", "metric", "@1", "@3", "@5", "@10", "@20"]
    at_20 = curves.summary.filter(
        pl.col("system") == "bm25", pl.col("metric") == "ndcg", pl.col("k") == 20
    )["mean"][0]
    assert text.splitlines()[2].endswith(f"{at_20:.4f}")


def test_diagnosis_counts_each_quadrant() -> None:
    diag = _diagnosis()
    text = repr(diag)
    assert "unclassified" in text.splitlines()[1]
    for system, n in (
        diag.counts.filter(pl.col("quadrant") == "healthy").select("system", "n_queries").rows()
    ):
        row = next(line for line in text.splitlines() if line.startswith(system))
        assert row.split()[-5] == str(n)


def test_agreement_names_judges_and_grades() -> None:
    agree = _agreement()
    text = repr(agree)
    judges = agree.table["judge"].to_list()
    assert _head(text).startswith(f"Agreement: {len(judges)} judges")
    assert "grades " + ", ".join(f"{g:g}" for g in agree.grades) in _head(text)
    kappa = agree.table.filter(pl.col("judge") == "llm")["kappa"][0]
    assert any(line.startswith("llm") and f"{kappa:.4f}" in line for line in text.splitlines())


def test_stability_names_reference_and_ranks() -> None:
    stab = _stability()
    text = repr(stab)
    assert f"(reference: {stab.reference})" in _head(text)
    assert stab.metric in _head(text)
    for system, rank in (
        stab.ranks.filter(pl.col("labels") == "human").select("system", "rank").rows()
    ):
        ranks = text.split("rank (mean) under each label set:")[1].splitlines()
        line = next(li for li in ranks if li.startswith(system + " "))
        assert line.split()[1] == str(rank)


def test_the_queue_counts_documents_and_shows_the_heaviest() -> None:
    queue = _queue()
    text = repr(queue)
    assert _head(text).startswith(f"JudgingQueue: {queue.queue.height} unjudged documents")
    first = queue.queue.row(0, named=True)
    assert any(line.startswith(first["query_id"]) for line in text.splitlines())
    if queue.queue.height > 5:
        assert f"… and {queue.queue.height - 5} more documents" in text


def test_fusion_search_names_the_best() -> None:
    search = _fusion()
    text = repr(search)
    assert f"{search.table.height} rrf configurations by {search.metric}" in _head(text)
    assert f"k={search.best['k']!r}" in text.splitlines()[1]


def test_suite_keeps_its_facts_and_fits() -> None:
    suite = _suite()
    text = repr(suite)
    for collection, res in suite.results.items():
        assert f"{collection} ({res.per_query['query_id'].n_unique()} queries)" in text
    for metric in suite.metrics:
        assert f"{metric}:" in text.splitlines()


def test_gate_shows_the_verdict_and_failed_rows() -> None:
    result = _gate()
    text = repr(result)
    verdict = "PASS" if result.passed else "FAIL"
    assert _head(text).startswith(f"GateResult({verdict}")
    assert text.splitlines()[1].split()[:3] == ["system", "metric", "failed"]


def test_the_helpers_clip_and_count() -> None:
    table = ReprTable(["k", *(f"column{i}" for i in range(20))], [["a" * 100, *range(20)]])
    text = text_repr("t" * 200, table, "n" * 200)
    assert _too_wide(text) == []
    assert "… and " in text
    assert listing([], 10) == ""
    page = html_repr('"&', ReprTable(["<"], [[">"]], caption="<c>"))
    assert '"&' not in page
    assert "&lt;c&gt;" in page
