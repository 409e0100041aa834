"""The gate: its rules on hand-made values, on the bundled sample, on TREC DL 2019."""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.charts import history_chart
from rankset.errors import ParameterError
from rankset.experiments import GATE_COLUMNS, Store, gate
from rankset.experiments._gate import parse_max_drop

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"


def _frame(system: str, values: list[float], metric: str = "rr") -> pl.DataFrame:
    return pl.DataFrame(
        {
            "system": system,
            "query_id": [f"q{i:02d}" for i in range(len(values))],
            "metric": metric,
            "value": values,
        }
    )


# --- the rules, on values whose outcome is known by hand ----------------------------------

# 10 queries, each 0.1 lower: delta -0.1, relative -20%; the exact two-sided randomization
# p-value is 2 / 2^10 (only all-minus and all-plus signs reach |mean| 0.1).
BASE10, WORSE10 = _frame("a", [0.5] * 10), _frame("b", [0.4] * 10)


def test_threshold_alone_is_a_rule_on_the_means() -> None:
    for max_drop, failed in ((0.05, True), (0.2, False), ("0.05", True), (0.1, False)):
        result = gate(WORSE10, BASE10, "rr", max_drop=max_drop)
        assert result.table["failed"].to_list() == [failed], max_drop
        assert result.exit_code == int(failed)
        assert result.table["significant"].to_list() == [None]  # not asked
    row = gate(WORSE10, BASE10, "rr", max_drop=0.05).table.row(0, named=True)
    assert row["baseline_mean"] == pytest.approx(0.5)
    assert row["candidate_mean"] == pytest.approx(0.4)
    assert row["delta"] == pytest.approx(-0.1)
    assert row["relative_delta"] == pytest.approx(-0.2)
    assert (row["n_queries"], row["n_dropped"]) == (10, 0)
    # a fall of exactly max_drop is allowed (0.1 is not "more than" 0.1), a hair more is not
    assert gate(WORSE10, BASE10, "rr", max_drop=0.1 - 1e-9).exit_code == 1


def test_relative_thresholds() -> None:
    assert parse_max_drop("2%", False) == (0.02, True)
    for max_drop, relative, failed in (
        ("10%", False, True),
        ("25%", False, False),
        (0.1, True, True),
        (0.3, True, False),
    ):
        result = gate(WORSE10, BASE10, "rr", max_drop=max_drop, relative=relative)
        assert result.table["failed"].to_list() == [failed], (max_drop, relative)


def test_significance_alone_fails_a_significant_fall() -> None:
    result = gate(WORSE10, BASE10, "rr", alpha=0.05, n_resamples=20_000)
    row = result.table.row(0, named=True)
    assert row["p"] == pytest.approx(2 / 2**10, abs=0.002)
    assert row["p_adj"] == row["p"]  # one row: Holm changes nothing
    assert row["significant"]
    assert row["failed"]
    assert result.exit_code == 1
    # a better candidate is significant too, but did not fall
    assert gate(BASE10, WORSE10, "rr", alpha=0.05).passed


def test_both_rules_need_a_large_and_significant_fall() -> None:
    # 4 queries: the exact p-value is 2 / 2^4 = 0.125, so a fall of 0.1 is not significant
    base4, worse4 = _frame("a", [0.5] * 4), _frame("b", [0.4] * 4)
    result = gate(worse4, base4, "rr", max_drop=0.05, alpha=0.05)
    row = result.table.row(0, named=True)
    assert row["p"] == pytest.approx(0.125, abs=0.01)
    assert (row["fell_by_threshold"], row["significant"], row["failed"]) == (True, False, False)
    assert result.passed
    assert gate(WORSE10, BASE10, "rr", max_drop=0.05, alpha=0.05).exit_code == 1
    assert gate(WORSE10, BASE10, "rr", max_drop=0.2, alpha=0.05).exit_code == 0


def test_with_no_rule_any_fall_fails() -> None:
    assert gate(WORSE10, BASE10, "rr").exit_code == 1
    assert gate(BASE10, BASE10, "rr").exit_code == 0
    assert gate(BASE10, WORSE10, "rr").exit_code == 0
    tiny = _frame("b", [0.5] * 9 + [0.4999])
    assert gate(tiny, BASE10, "rr").exit_code == 1


def test_lower_is_better_metrics_fall_when_they_rise() -> None:
    base, worse = _frame("a", [0.1] * 10, "unj@10"), _frame("b", [0.3] * 10, "unj@10")
    result = gate(worse, base, "unj@10", max_drop=0.1)
    assert result.table.row(0, named=True)["delta"] == pytest.approx(0.2)
    assert result.failures == ["unj@10"]
    assert gate(base, worse, "unj@10", max_drop=0.1).passed


def test_p_values_are_holm_corrected_over_the_gated_metrics() -> None:
    base = pl.concat([BASE10, _frame("a", [0.5] * 4, "ndcg@10")])
    worse = pl.concat([WORSE10, _frame("b", [0.4] * 4, "ndcg@10")])
    table = gate(worse, base, ["rr", "ndcg@10"], alpha=0.05, n_resamples=20_000).table
    p, p_adj = table["p"].to_list(), table["p_adj"].to_list()
    low, high = sorted(p)
    # Holm with two p-values: 2·p(1), then max(2·p(1), p(2))
    assert sorted(p_adj) == pytest.approx([2 * low, max(2 * low, high)])
    none = gate(worse, base, ["rr", "ndcg@10"], alpha=0.05, correction=None).table
    assert none["p_adj"].to_list() == none["p"].to_list()


def test_systems_pair_by_name_when_there_are_several() -> None:
    base = pl.concat([BASE10, _frame("c", [0.5] * 10)])
    cand = pl.concat([_frame("a", [0.5] * 10), _frame("c", [0.4] * 10)])
    result = gate(cand, base, "rr", max_drop=0.01)
    assert result.table["system"].to_list() == ["a", "c"]
    assert result.table["failed"].to_list() == [False, True]
    assert result.failures == ["c:rr"]
    with pytest.raises(ParameterError, match="share no name"):
        gate(pl.concat([_frame("x", [1.0]), _frame("y", [1.0])]), base, "rr")


def test_bad_input_is_an_error() -> None:
    with pytest.raises(ParameterError, match="has no values for"):
        gate(WORSE10, BASE10, "ndcg@10")
    with pytest.raises(ParameterError, match="percentage"):
        gate(WORSE10, BASE10, "rr", max_drop="two")
    with pytest.raises(ParameterError, match=r"max_drop.*>= 0"):
        gate(WORSE10, BASE10, "rr", max_drop=-0.1)
    with pytest.raises(ParameterError, match="'test' parameter"):
        gate(WORSE10, BASE10, "rr", test="tukey")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'alpha' parameter"):
        gate(WORSE10, BASE10, "rr", alpha=1.5)
    with pytest.raises(ParameterError, match="at least one metric"):
        gate(WORSE10, BASE10, [])
    with pytest.raises(ParameterError, match="EvaluationResult or a per-query frame"):
        gate({"a": 1}, BASE10, "rr")  # type: ignore[arg-type]


# --- coverage -----------------------------------------------------------------------------


def test_a_fall_of_the_judged_share_is_flagged() -> None:
    base = pl.concat([BASE10, _frame("a", [1.0] * 10, "judged@10")])
    cand = pl.concat(
        [BASE10.with_columns(system=pl.lit("b")), _frame("b", [0.8] * 10, "judged@10")]
    )
    result = gate(cand, base, "rr", max_drop=0.01)
    assert result.coverage is not None
    row = result.coverage.row(0, named=True)
    assert (row["baseline_mean"], row["candidate_mean"]) == pytest.approx((1.0, 0.8))
    assert row["fell"]
    assert result.coverage_fell
    assert result.passed  # flagged, not failed
    assert "Judged coverage fell" in result.markdown()
    strict = gate(cand, base, "rr", max_drop=0.01, fail_on_coverage=True)
    assert strict.exit_code == 1
    assert "FAIL" in strict.markdown()
    assert "judged coverage did" in strict.markdown()
    assert not gate(cand, base, "rr", coverage_tolerance=0.25).coverage_fell
    assert gate(BASE10, BASE10, "rr").coverage is None  # judged@10 not evaluated


# --- real runs: the bundled sample and TREC DL 2019 -----------------------------------------


def _ranked(path: Path) -> dict[str, list[str]]:
    """Documents per query, best first (score descending, then doc id as trec_eval ties)."""
    opener = gzip.open if path.suffix == ".gz" else open
    rows: dict[str, list[tuple[float, str]]] = {}
    with opener(path, "rt") as handle:
        for line in handle:
            query, _, doc, _, score, *_ = line.split()
            rows.setdefault(query, []).append((float(score), doc))
    return {
        q: [d for _, d in sorted(docs, key=lambda t: (-t[0], t[1]))] for q, docs in rows.items()
    }


def _write(ranked: dict[str, list[str]], path: Path, shuffled: set[str], seed: int = 0) -> Path:
    """Write a TREC run; the top 10 of the ``shuffled`` queries in a seeded new order."""
    rng = random.Random(seed)
    with path.open("w") as out:
        for query in sorted(ranked):
            docs = list(ranked[query])
            if query in shuffled:
                top = docs[:10]
                order = top[:]
                while order == top:
                    rng.shuffle(order)
                docs = order + docs[10:]
            for position, doc in enumerate(docs, start=1):
                out.write(f"{query} Q0 {doc} {position} {len(docs) - position + 1} run\n")
    return path


def _shuffled_pair(run: Path, tmp_path: Path) -> tuple[Path, Path]:
    ranked = _ranked(run)
    half = set(sorted(ranked)[::2])
    return _write(ranked, tmp_path / "base.trec", set()), _write(
        ranked, tmp_path / "shuffled.trec", half
    )


SAMPLE_METRICS = ["ndcg@10", "ndcg@5", "rr@10", "judged@10"]


def test_the_gate_fails_a_shuffled_sample_run(tmp_path: Path) -> None:
    qrels = SAMPLE / "qrels.txt"
    base_run, shuffled_run = _shuffled_pair(SAMPLE / "rerank.trec", tmp_path)
    base = rankset.evaluate({"rerank": base_run}, qrels, SAMPLE_METRICS)
    original = rankset.evaluate({"rerank": SAMPLE / "rerank.trec"}, qrels, SAMPLE_METRICS)
    # the rewritten run is the original run, value for value
    assert base.per_query.equals(original.per_query)
    cand = rankset.evaluate({"rerank": shuffled_run}, qrels, SAMPLE_METRICS)
    gated = ["ndcg@10", "ndcg@5", "rr@10"]

    result = gate(cand, base, gated, max_drop=0.01, alpha=0.05)
    assert result.exit_code == 1
    assert result.failures == gated
    table = result.table
    # the means are evaluate's
    want = cand.summary.join(base.summary, on=["system", "metric"], suffix="_base")
    for metric, delta in table.select("metric", "delta").rows():
        row = want.filter(pl.col("metric") == metric).row(0, named=True)
        assert delta == pytest.approx(row["mean"] - row["mean_base"], abs=1e-12)
    assert table["delta"].to_list() == pytest.approx([-0.1146, -0.2004, -0.2491], abs=1e-4)
    assert (table["p_adj"] < 0.01).all()
    assert result.coverage is not None
    assert not result.coverage_fell

    same = gate(original, base, gated, max_drop=0.01, alpha=0.05)
    assert same.exit_code == 0
    assert same.table["delta"].to_list() == [0.0, 0.0, 0.0]
    assert same.table["p"].to_list() == [1.0, 1.0, 1.0]


def test_the_t_test_agrees_on_the_sample(tmp_path: Path) -> None:
    pytest.importorskip("scipy")
    from scipy import stats

    qrels = SAMPLE / "qrels.txt"
    base_run, shuffled_run = _shuffled_pair(SAMPLE / "rerank.trec", tmp_path)
    base = rankset.evaluate({"r": base_run}, qrels, ["ndcg@10"])
    cand = rankset.evaluate({"r": shuffled_run}, qrels, ["ndcg@10"])
    result = gate(cand, base, "ndcg@10", alpha=0.05, test="t")
    want = stats.ttest_rel(cand.per_query["value"], base.per_query["value"]).pvalue
    assert result.table["p"][0] == pytest.approx(want, rel=1e-9)
    assert result.exit_code == 1


def test_the_gate_against_a_store_entry(tmp_path: Path) -> None:
    qrels = SAMPLE / "qrels.txt"
    base_run, shuffled_run = _shuffled_pair(SAMPLE / "rerank.trec", tmp_path)
    store = Store(tmp_path / "store")
    entry = store.evaluate_and_log({"rerank": base_run}, qrels, ["ndcg@10"], tag="main")
    baseline = store.latest(tag="main")
    assert baseline.config["entry_id"] == entry
    assert baseline.metrics == ["ndcg@10", "judged@10"]  # coverage added for the gate
    cand = rankset.evaluate({"rerank": shuffled_run}, qrels, ["ndcg@10", "judged@10"])
    result = gate(cand, baseline, "ndcg@10", max_drop="2%", alpha=0.05)
    assert result.exit_code == 1
    assert result.coverage is not None
    assert result.coverage["candidate_mean"][0] == result.coverage["baseline_mean"][0]
    assert gate(baseline, store.latest(tag="main"), "ndcg@10", alpha=0.05).passed


def test_the_gate_on_trec_dl_2019(shared_data: Path, tmp_path: Path) -> None:
    qrels = shared_data / "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz"
    run = shared_data / "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-bm25.dl19.trec.gz"
    metrics = ["ndcg@10", "ndcg@3", "judged@10"]
    base_run, shuffled_run = _shuffled_pair(run, tmp_path)
    original = rankset.evaluate({"rankvicuna": run}, qrels, metrics)
    base = rankset.evaluate({"rankvicuna": base_run}, qrels, metrics)
    assert base.per_query.equals(original.per_query)
    cand = rankset.evaluate({"rankvicuna": shuffled_run}, qrels, metrics)

    # the baseline against itself passes under every rule
    for rules in ({}, {"max_drop": 0.01}, {"alpha": 0.05}, {"max_drop": 0.01, "alpha": 0.05}):
        assert gate(original, original, ["ndcg@10", "ndcg@3"], **rules).exit_code == 0
    # the top 10 shuffled for 22 of 43 queries: nDCG@10 falls by 0.0185 (-2.8%)
    result = gate(cand, base, ["ndcg@10", "ndcg@3"], max_drop=0.01)
    assert result.exit_code == 1
    assert result.failures == ["ndcg@10", "ndcg@3"]
    assert result.table["delta"].to_list() == pytest.approx([-0.0185, -0.0584], abs=1e-4)
    assert result.table["n_queries"].to_list() == [43, 43]
    assert gate(cand, base, "ndcg@10").exit_code == 1  # no rule: any fall
    # DL19's top 10s are densely relevant, so the order within them moves nDCG@10 little:
    # over 43 queries the paired test cannot tell the fall from noise (p about 0.13), and
    # a gate that asks for significance passes it.
    tested = gate(cand, base, ["ndcg@10", "ndcg@3"], max_drop=0.01, alpha=0.05)
    assert (tested.table["p"] > 0.05).all()
    assert tested.exit_code == 0
    assert tested.coverage is not None
    assert not tested.coverage_fell


# --- the Markdown -------------------------------------------------------------------------


def _table_lines(markdown: str) -> list[list[str]]:
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in rows]


def test_the_markdown_has_a_headline_the_rule_and_a_table() -> None:
    base = pl.concat([BASE10, _frame("a", [0.5] * 10, "ndcg@10")])
    cand = pl.concat([WORSE10, _frame("b", [0.5] * 10, "ndcg@10")])
    failed = gate(cand, base, ["rr", "ndcg@10"], max_drop=0.05, alpha=0.05)
    text = failed.markdown()
    lines = text.splitlines()
    assert lines[0] == "## ❌ rankset gate: FAIL"
    assert "1 of 2 gated metrics fell: rr." in text
    assert "fell by more than 0.0500 and the paired randomization test gives p < 0.0500" in text
    rows = _table_lines(text)
    header, align, *body = rows
    assert header == [
        "system", "metric", "baseline", "candidate", "delta", "relative", "queries", "p",
        "p (holm)", "fell past threshold", "significant", "result",
    ]  # fmt: skip
    assert all(len(row) == len(header) for row in rows)
    assert set(align) <= {"---", "---:", ":---:"}
    assert [row[1] for row in body] == ["rr", "ndcg@10"]
    assert body[0][2:7] == ["0.5000", "0.4000", "-0.1000", "-20.00%", "10"]
    assert body[0][-3:] == ["yes", "yes", "**FAIL**"]
    assert body[1][-3:] == ["no", "no", "pass"]

    passed = gate(base, base, ["rr"]).markdown()
    assert passed.splitlines()[0] == "## ✅ rankset gate: PASS"
    header = _table_lines(passed)[0]
    assert header[7] == "p"
    assert "p (holm)" in header
    assert _table_lines(passed)[2][header.index("significant")] == "—"  # not asked


def test_the_markdown_renders_as_a_table() -> None:
    markdown = pytest.importorskip("markdown")
    result = gate(WORSE10, BASE10, "rr", max_drop=0.05)
    html = markdown.markdown(result.markdown(), extensions=["tables"])
    assert html.count("<table>") == 1
    assert html.count("<tr>") == 2  # header and one metric
    assert len(re.findall(r"<th[ >]", html)) == 12
    assert html.count("<td") == 12
    assert "<h2>❌ rankset gate: FAIL</h2>" in html


def test_write_markdown_appends_to_a_job_summary(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# CI\n")
    result = gate(BASE10, BASE10, "rr")
    result.write_markdown(summary)
    assert summary.read_text() == "# CI\n" + result.markdown()


def test_the_result_table_has_its_columns() -> None:
    assert gate(WORSE10, BASE10, "rr").table.columns == list(GATE_COLUMNS)


# --- the history chart --------------------------------------------------------------------


def test_the_history_chart_draws_one_line_per_system(tmp_path: Path) -> None:
    store = Store(tmp_path)
    runs = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
    for k in (10, 5):
        store.log(rankset.evaluate(runs, SAMPLE / "qrels.txt", ["ndcg@10", f"precision@{k}"]))
    history = store.history()
    spec = history_chart(history, "ndcg@10").to_dict()
    area, line = spec["layer"]
    assert line["mark"]["type"] == "line"
    assert line["encoding"]["color"]["field"] == "system"
    assert line["encoding"]["y"]["field"] == "mean"
    assert area["encoding"]["y"]["field"] == "ci_low"
    values = spec["data"]["values"]  # shared by both layers
    assert len(values) == 4
    assert [v["mean"] for v in values] == history.filter(pl.col("metric") == "ndcg@10")[
        "mean"
    ].to_list()
    assert "ndcg@10" in spec["title"]
    assert len(history_chart(history, "ndcg@10", band=False).to_dict()["layer"]) == 1
    with pytest.raises(ParameterError, match="pick one"):
        history_chart(history)
    with pytest.raises(ParameterError, match="has no metric"):
        history_chart(history, "ap")


def test_too_few_resamples_for_the_correction_is_a_warning() -> None:
    base = pl.concat([BASE10, _frame("a", [0.5] * 10, "ndcg@10")])
    worse = pl.concat([WORSE10, _frame("b", [0.4] * 10, "ndcg@10")])
    with pytest.warns(rankset.RanksetWarning, match="rejects nothing at alpha=0.05"):
        result = gate(worse, base, ["rr", "ndcg@10"], alpha=0.05, n_resamples=20)
    assert result.passed  # no p-value can fall below 2 / 21 after Holm


def test_evaluate_and_gate_takes_a_run_or_a_store_entry(tmp_path: Path) -> None:
    from rankset.experiments import evaluate_and_gate

    qrels = SAMPLE / "qrels.txt"
    base_run, shuffled_run = _shuffled_pair(SAMPLE / "rerank.trec", tmp_path)
    by_run = evaluate_and_gate(shuffled_run, qrels, ["ndcg@10"], baseline=base_run, alpha=0.05)
    assert by_run.exit_code == 1
    assert by_run.table["delta"][0] == pytest.approx(-0.1146, abs=1e-4)
    assert by_run.coverage is not None  # judged@10 evaluated on both sides
    store = Store(tmp_path / "store")
    store.evaluate_and_log({"rerank": base_run}, qrels, ["ndcg@10"], tag="main")
    by_entry = evaluate_and_gate(
        shuffled_run, qrels, "ndcg@10", store=tmp_path / "store", against="main", alpha=0.05
    )
    assert_frame_equal(by_entry.table, by_run.table)
    assert evaluate_and_gate(base_run, qrels, "ndcg@10", store=store, against="main").passed
    with pytest.raises(ParameterError, match="not both and not neither"):
        evaluate_and_gate(base_run, qrels, "ndcg@10")
    with pytest.raises(ParameterError, match="not both and not neither"):
        evaluate_and_gate(base_run, qrels, "ndcg@10", baseline=base_run, store=store)
    with pytest.raises(ParameterError, match="tags present: \\['main'\\]"):
        evaluate_and_gate(base_run, qrels, "ndcg@10", store=store, against="dev")
    with pytest.raises(rankset.InputFormatError, match="not a rankset store"):
        evaluate_and_gate(base_run, qrels, "ndcg@10", store=tmp_path / "nowhere")


# --- comparable sides and possible thresholds ---------------------------------------------


def test_results_evaluated_differently_are_not_gated() -> None:
    labels = {f"q{i}": {"good": 2, "ok": 1} for i in range(6)}
    run = {f"q{i}": {"ok": 2.0, "good": 1.0} for i in range(6)}
    base = rankset.evaluate(run, labels, ["rr"])
    for option, value, said in (
        ("relevance_level", 2, "relevance_level: candidate 2, baseline 1"),
        ("judged_only", True, "judged_only: candidate True, baseline False"),
        ("missing", "zero", "missing: candidate zero, baseline skip"),
    ):
        other = rankset.evaluate(run, labels, ["rr"], **{option: value})
        with pytest.raises(ParameterError, match=re.escape(said)):
            gate(other, base, "rr")
        allowed = gate(other, base, "rr", allow_mismatch=True)
        assert allowed.mismatches == (said,)
        assert said in allowed.markdown()
    # per-query frames carry no options: nothing to compare, nothing refused
    strict = rankset.evaluate(run, labels, ["rr"], relevance_level=2)
    assert gate(strict.per_query, base.per_query, "rr").mismatches == ()


def test_a_store_entry_records_what_the_gate_compares(tmp_path: Path) -> None:
    labels_a, labels_b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    labels_a.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    labels_b.write_text("q1 0 d1 1\nq2 0 d2 1\nq2 0 d3 1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 2.0 r\nq2 Q0 d3 1 2.0 r\nq2 Q0 d2 2 1.0 r\n")
    store = Store(tmp_path / "store")
    entry = store.evaluate_and_log(run, labels_a, ["rr"], tag="main", meta={"model": "x"})
    latest = store.latest(tag="main")
    assert latest.config["labels_hash"] is not None
    assert latest.config["meta"] == {"model": "x"}
    from rankset.experiments import evaluate_and_gate

    same = evaluate_and_gate(run, labels_a, "rr", store=store, against="main", coverage_k=None)
    assert same.passed
    assert same.baseline["kind"] == "store entry"
    assert same.baseline["entry_id"] == entry
    assert same.baseline["tag"] == "main"
    with pytest.raises(ParameterError, match="labels: their contents differ"):
        evaluate_and_gate(run, labels_b, "rr", store=store, against="main", coverage_k=None)


@pytest.mark.parametrize(
    ("max_drop", "relative", "message"),
    [(2, False, "Did you mean '2%'"), (1.0, False, "or 0.01 (absolute)"),
     ("100%", False, "cannot fall by 100% or more"), (1.5, True, "cannot fall by 100%")],
)  # fmt: skip
def test_a_threshold_no_fall_can_pass_is_refused(
    max_drop: float | str, relative: bool, message: str
) -> None:
    with pytest.raises(ParameterError, match=re.escape(message)):
        gate(WORSE10, BASE10, "rr", max_drop=max_drop, relative=relative)
    # a metric that is not bounded by 1 takes the same absolute drop as a rule
    counts = _frame("b", [5.0] * 10, "num_ret"), _frame("a", [8.0] * 10, "num_ret")
    if not relative and not str(max_drop).endswith("%"):
        assert gate(*counts, "num_ret", max_drop=max_drop).exit_code == 1


def test_the_rule_reads_as_the_flags_that_set_it() -> None:
    text = gate(WORSE10, BASE10, "rr", max_drop="2%", alpha=0.05).markdown()
    assert "As flags: `--max-drop 2% --alpha 0.05`." in text
    assert "Baseline: per-query values (system `a`)." in text
    assert "As flags: `--max-drop 0.25`." in gate(WORSE10, BASE10, "rr", max_drop=0.25).markdown()


# --- costs: a limit on how far a cost may rise -------------------------------------------


def _timed(latency: dict[str, float]) -> tuple[rankset.EvaluationResult, rankset.EvaluationResult]:
    """bm25 (the baseline) and rerank on 8 queries, each with its own latency per query."""
    labels = {f"q{i}": {"good": 1} for i in range(8)}
    run = {f"q{i}": {"good": 2.0, "bad": 1.0} for i in range(8)}
    costs = pl.DataFrame(
        [
            {"system": name, "query_id": f"q{i}", "latency_ms": value + i, "tokens_in": 100.0}
            for name, value in latency.items()
            for i in range(8)
        ]
    )
    base = rankset.evaluate({"bm25": run}, labels, ["rr"], costs=costs)
    cand = rankset.evaluate({"rerank": run}, labels, ["rr"], costs=costs)
    return cand, base


def test_a_cost_that_rose_past_its_limit_fails_the_gate() -> None:
    # latencies 100 + i and 112 + i: means 103.5 and 115.5, a rise of 12 (11.59%)
    cand, base = _timed({"bm25": 100.0, "rerank": 112.0})
    for limit, failed in (("5%", True), ("12%", False), ("11", True), ("12", False)):
        result = gate(cand, base, "rr", max_increase={"latency_ms": limit})
        assert result.costs is not None
        row = result.costs.row(0, named=True)
        assert (row["baseline_mean"], row["candidate_mean"]) == (103.5, 115.5)
        assert row["increase"] == pytest.approx(12.0)
        assert row["relative_increase"] == pytest.approx(12 / 103.5)
        assert row["failed"] is failed, limit
        assert result.exit_code == int(failed)
        assert result.failures == (["latency_ms"] if failed else [])
    text = gate(cand, base, "rr", max_increase=["latency_ms=5%"]).markdown()
    assert "No gated metric fell, but costs rose: latency_ms." in text
    assert "| rerank | latency_ms | 103.5 | 115.5 | +12 | +11.59% | 5% | **FAIL** |" in text
    # an unchanged cost passes any limit, and no limit means no costs table
    assert gate(cand, base, "rr", max_increase={"tokens_in": "0"}).passed
    assert gate(cand, base, "rr").costs is None


def test_cost_limits_need_costs_on_both_sides_and_known_names() -> None:
    cand, base = _timed({"bm25": 100.0, "rerank": 112.0})
    with pytest.raises(ParameterError, match="not a cost column"):
        gate(cand, base, "rr", max_increase={"latency": "5%"})
    with pytest.raises(ParameterError, match="COST=LIMIT"):
        gate(cand, base, "rr", max_increase=["latency_ms"])
    plain = rankset.evaluate({"bm25": {"q0": {"good": 1.0}}}, {"q0": {"good": 1}}, ["rr"])
    with pytest.raises(ParameterError, match="The baseline has no costs for latency_ms"):
        gate(cand, plain, "rr", max_increase={"latency_ms": "5%"})
