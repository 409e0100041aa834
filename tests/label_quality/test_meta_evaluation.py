"""meta_evaluate() against autojudge-evaluate: committed outputs, the live tool, TREC DL.

Expected values come from the reference tool (``tests/data/meta_evaluation/reference*.json``,
written by ``regenerate.py`` there) or from scipy and hand computation, never from rankset.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from rankset.errors import ParameterError, RanksetWarning
from rankset.label_quality import CORRELATIONS, MetaEvaluation, correlation, meta_evaluate

DATA = Path(__file__).resolve().parents[1] / "data" / "meta_evaluation"
REFERENCE = json.loads((DATA / "reference.json").read_text(encoding="utf-8"))
REFERENCE_DL = json.loads((DATA / "reference_dl.json").read_text(encoding="utf-8"))
_KEY = ("Judge", "TruthMeasure", "EvalMeasure")
TOOL = os.environ.get("RANKSET_AUTOJUDGE") or shutil.which("auto-judge-evaluate")


def _regenerate() -> Any:
    spec = importlib.util.spec_from_file_location("_aje_regenerate", DATA / "regenerate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_aje_regenerate", module)
    spec.loader.exec_module(module)
    return module


def _rankset(case: dict[str, Any], folder: Path = DATA, **extra: Any) -> MetaEvaluation:
    options = dict(case["options"])
    truth = folder / options.pop("truth", "truth.txt")
    judges = {name.removesuffix(".txt"): folder / name for name in case["judges"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanksetWarning)
        return meta_evaluate(truth, judges, pairs="all", n_bootstrap=20, **options, **extra)


def _assert_equal(rows: list[dict[str, Any]], result: MetaEvaluation) -> float:
    """Every reference value equals rankset's to 1e-9; the largest difference."""
    got = {(d["judge"], d["truth_metric"], d["metric"]): d for d in result.to_dicts()}
    assert len(got) == len(rows)
    worst = 0.0
    for row in rows:
        ours = got[tuple(row[k] for k in _KEY)]
        for name, value in row.items():
            if name in _KEY:
                continue
            if value is None:
                assert ours[name] is None, (row, name)
                continue
            assert ours[name] == pytest.approx(value, abs=1e-9, rel=0), (row, name)
            worst = max(worst, abs(ours[name] - value))
    return worst


@pytest.mark.parametrize("name", [n for n in REFERENCE if n != "per_topic_skip"])
def test_equals_the_committed_reference_output(name: str) -> None:
    _assert_equal(REFERENCE[name]["rows"], _rankset(REFERENCE[name]))


def test_per_topic_equals_the_reference_evaluate_per_topic() -> None:
    case = REFERENCE["per_topic_skip"]
    result = _rankset({"judges": case["judges"], "options": {"on_missing": "skip"}},
                      per_topic=True)  # fmt: skip
    assert result.per_topic is not None
    got = {
        (r["judge"], r["truth_metric"], r["metric"], r["query_id"], r["correlation"]): r["value"]
        for r in result.per_topic.iter_rows(named=True)
    }
    for row in case["rows"]:
        for name in CORRELATIONS:
            key = (*(row[k] for k in _KEY), row["topic"], name)
            assert got[key] == pytest.approx(row[name], abs=1e-12, rel=0), key
    assert len(got) == len(case["rows"]) * len(CORRELATIONS)


@pytest.mark.slow
@pytest.mark.skipif(TOOL is None, reason="autojudge-evaluate is not installed (RANKSET_AUTOJUDGE)")
def test_equals_the_reference_tool_run_live() -> None:
    regenerate = _regenerate()
    for name, case in regenerate.CASES.items():
        _assert_equal(regenerate.run(TOOL, case), _rankset(case))
        assert name in REFERENCE


def _dl(shared: Path, year: str) -> MetaEvaluation:
    regenerate = _regenerate()
    runs = regenerate.trec_dl_runs(shared, year)
    nist, judges = regenerate.trec_dl_labels(shared, year)
    return meta_evaluate(
        nist, judges, runs=runs, metrics=list(regenerate.DL_METRICS), pairs="all", seed=3
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("year", "n_runs", "kendall", "kendall_at_10"),
    [("dl19", 21, 0.912, 0.733), ("dl20", 17, 0.882, 0.689)],
)
def test_trec_dl_llm_judges_equal_the_reference(
    shared_data: Path, year: str, n_runs: int, kendall: float, kendall_at_10: float
) -> None:
    result = _dl(shared_data, year)
    assert len(REFERENCE_DL[year]["runs"]) == n_runs
    # every correlation of every label set and metric pair: the tool's values
    assert _assert_equal(REFERENCE_DL[year]["rows"], result) < 1e-9
    # the figures of llm_qrels_dl/README.md (nDCG@10 under umbrela-gpt4o)
    rows = result.correlations.filter(
        pl.col("judge") == "umbrela-gpt4o", pl.col("truth_metric") == "ndcg@10",
        pl.col("metric") == "ndcg@10",
    )  # fmt: skip
    value = dict(rows.select("correlation", "value").iter_rows())
    assert round(value["kendall"], 3) == kendall
    assert round(value["kendall@10"], 3) == kendall_at_10
    # each rank correlation's interval holds its point value. Resampled topics add noise
    # to both boards, which pulls a correlation down: the percentile interval of a Pearson
    # correlation near 1 (0.996 on DL19) or of kendall@10 may end below the point value.
    same = result.correlations.filter(pl.col("truth_metric") == pl.col("metric"))
    inside = same.filter(
        pl.col("correlation").is_in(["kendall", "spearman", "tauap_b", "tau_gap"]),
        (pl.col("value") < pl.col("ci_low")) | (pl.col("value") > pl.col("ci_high")),
    )
    assert inside.height == 0, inside
    assert (result.correlations["n_topics"] > 40).all()


@pytest.mark.slow
def test_trec_dl_bootstrap_is_reproducible(shared_data: Path) -> None:
    first, second = _dl(shared_data, "dl19"), _dl(shared_data, "dl19")
    assert first.correlations.equals(second.correlations)
    assert not first.correlations["ci_low"].is_nan().any()


# -- the correlations against scipy and by hand ----------------------------------------


@pytest.mark.parametrize("method", ["kendall", "pearson", "spearman"])
def test_correlations_equal_scipy_with_ties(method: str) -> None:
    stats = pytest.importorskip("scipy.stats")
    reference = {"kendall": stats.kendalltau, "pearson": stats.pearsonr,
                 "spearman": stats.spearmanr}[method]  # fmt: skip
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(3, 15))
        a, b = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            assert math.isnan(correlation(a.tolist(), b.tolist(), method))
            continue
        expected = float(reference(a, b)[0])
        assert correlation(a.tolist(), b.tolist(), method) == pytest.approx(expected, abs=1e-12)


def test_tauap_b_by_hand() -> None:
    # truth a > b > c, judge b > a > c: each direction counts c right, the second wrong
    assert correlation([3, 2, 1], [2, 3, 1], "tauap_b") == 0.0
    assert correlation([3, 2, 1], [3, 2, 1], "tauap_b") == 1.0
    assert correlation([3, 2, 1], [1, 2, 3], "tauap_b") == -1.0
    # every system ties under both: 0.0, as pyircore returns
    assert correlation([1, 1, 1], [2, 2, 2], "tauap_b") == 0.0
    # judge ties b and c: (judge pivots: 2 x 1/1 -> 1; truth pivots: b 1, c 1/2 -> 0.5) / 2
    assert correlation([3, 2, 1], [2, 1, 1], "tauap_b") == pytest.approx((1.0 + 0.5) / 2)


def test_tau_gap_by_hand_and_its_nan() -> None:
    # judge order b, a, c; truth 0.5, 0.4, 0.0: position 2 (a): gap 0.1 above, wrong -> 0;
    # position 3 (c): gaps 0.4 + 0.5, both right -> 1; 2/2 * 1 - 1 = 0
    assert correlation([0.5, 0.4, 0.0], [0.2, 0.3, 0.1], "tau_gap") == pytest.approx(0.0)
    assert correlation([0.5, 0.4, 0.0], [0.3, 0.2, 0.1], "tau_gap") == pytest.approx(1.0)
    assert math.isnan(correlation([0.1, 0.1, 0.1], [0.3, 0.2, 0.1], "tau_gap"))
    # judge ties broken by position: [a, b] in place, so the wrong pair is counted
    assert correlation([0.1, 0.5, 0.0], [0.2, 0.2, 0.1], "tau_gap") == pytest.approx(0.0)


def test_kendall_at_k_keeps_the_truths_best() -> None:
    truth, judged = [5, 4, 3, 2, 1], [1, 2, 3, 5, 4]
    assert correlation(truth, judged, "kendall@3") == pytest.approx(-1.0)
    assert correlation(truth, judged, "kendall@5") == pytest.approx(
        correlation(truth, judged, "kendall")
    )


def test_bad_correlations_and_lengths_are_refused() -> None:
    with pytest.raises(ParameterError, match="Unknown correlation 'tau'"):
        correlation([1, 2, 3], [1, 2, 3], "tau")
    with pytest.raises(ParameterError, match="@K"):
        correlation([1, 2, 3], [1, 2, 3], "kendall@0")
    with pytest.raises(ParameterError, match="three or more"):
        correlation([1, 2], [1, 2], "kendall")


# -- the options -----------------------------------------------------------------------


def test_missing_runs_are_an_error_by_default_and_a_warning_when_asked() -> None:
    judges = {"judge_b": DATA / "judge_b.txt"}
    with pytest.raises(ParameterError, match="r03 lacks t5"):
        meta_evaluate(DATA / "truth.txt", judges, correlations=["kendall"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = meta_evaluate(DATA / "truth.txt", judges, correlations=["kendall"],
                               on_missing="warn", n_bootstrap=0)  # fmt: skip
    said = " ".join(str(w.message) for w in caught if w.category is RanksetWarning)
    assert "r03 lacks t5" in said
    assert "missing under the judge: r12; missing under the truth: x99" in said
    assert result.correlations["n_systems"].to_list() == [11, 11]
    assert result.correlations["ci_low"].is_nan().all()


def test_frames_leaderboards_topics_and_reprs() -> None:
    result = _rankset({"judges": ["judge_a.txt"], "options": {"on_missing": "error"}})
    assert result.correlations.columns == [
        "judge", "truth_metric", "metric", "correlation", "value", "ci_low", "ci_high",
        "n_systems", "n_topics",
    ]  # fmt: skip
    assert result.correlations.height == 4 * len(CORRELATIONS)
    board = result.leaderboards.filter(pl.col("truth_metric") == "ndcg@10",
                                       pl.col("metric") == "ndcg@10")  # fmt: skip
    assert board.height == 12
    # r05's ndcg@10 aggregate row says 0.95: first under the truth
    assert board.row(0, named=True)["system"] == "r05"
    assert board["truth_rank"].to_list()[0] == 1
    topics = result.topics.filter(
        pl.col("truth_metric") == "ndcg@10", pl.col("metric") == "ndcg@10"
    )
    assert topics.height == 5
    kendalls = topics["kendall"].drop_nulls().to_list()
    assert kendalls == sorted(kendalls)
    assert "MetaEvaluation: 1 judge" in repr(result)
    assert "<table" in result._repr_html_()
    assert json.dumps(result.to_dicts())


def test_label_sets_are_evaluated_under_each_set() -> None:
    runs = {
        "a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 2.0, "d5": 1.0}},
        "b": {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}},
        "c": {"q1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}, "q2": {"d6": 2.0, "d5": 1.0}},
    }
    human = {"q1": {"d1": 1}, "q2": {"d4": 1}}
    same = meta_evaluate(human, {"copy": human}, runs=runs, metrics=["rr"], n_bootstrap=10)
    values = dict(same.correlations.select("correlation", "value").iter_rows())
    # a: rr 1, 1; b: 1/2, 1/2; c: 1/3, 0 -> the judge's copy agrees perfectly
    assert values["kendall"] == pytest.approx(1.0)
    assert values["pearson"] == pytest.approx(1.0)
    assert same.correlations["metric"].unique().to_list() == ["rr"]


def test_bad_options_are_refused() -> None:
    truth = DATA / "truth.txt"
    with pytest.raises(ParameterError, match="'on_missing'"):
        meta_evaluate(truth, DATA / "judge_a.txt", on_missing="ignore")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="no metric 'ndcg'"):
        meta_evaluate(truth, DATA / "judge_a.txt", metrics=["ndcg"])
    with pytest.raises(ParameterError, match="apply to runs"):
        meta_evaluate(truth, DATA / "judge_a.txt", relevance_level=2)


def test_an_evaluation_of_the_runs_stands_for_the_truth_labels() -> None:
    # the pages pass the analysis's own evaluation instead of evaluating the labels again
    import rankset

    runs = {"bm25": "data/sample/bm25.trec", "rerank": "data/sample/rerank.trec",
            "bm25b": "data/sample/bm25.trec"}  # fmt: skip
    human = rankset.io.scan_labels("data/sample/qrels.txt").collect()
    judge = human.with_columns(pl.col("grade").reverse())
    metrics = ["ndcg@10", "ap"]
    from_labels = meta_evaluate(human, {"j": judge}, runs=runs, metrics=metrics, seed=3)
    evaluated = rankset.evaluate(runs, human, metrics=[*metrics, "rr"])
    from_result = meta_evaluate(evaluated, {"j": judge}, runs=runs, metrics=metrics, seed=3)
    assert from_result.correlations.equals(from_labels.correlations)
    assert from_result.leaderboards.equals(from_labels.leaderboards)
