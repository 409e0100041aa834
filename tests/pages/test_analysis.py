"""One Analysis behind both pages: same numbers, one resampling policy, sized tests.

Expected values come from independent computations: ``rankset.evaluate`` and
``rankset.compare`` called directly with the policy's counts, and the arithmetic of the
smallest reachable adjusted p-value done by hand.
"""

from __future__ import annotations

import inspect
import math
import warnings
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.pages import Analysis, Resampling

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
RUNS = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]
QRELS = SAMPLE / "qrels.txt"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return rankset.analyse(RUNS, QRELS, scale="trec_dl", n_resamples=300, progress=False)


def test_report_and_dashboard_of_the_same_inputs_show_the_same_summary() -> None:
    report = rankset.report(RUNS, QRELS, scale="trec_dl", progress=False)
    board = rankset.dashboard(RUNS, QRELS, scale="trec_dl", progress=False)
    assert report.analysis.metrics == board.analysis.metrics
    assert_frame_equal(report.analysis.summary, board.analysis.summary)
    assert_frame_equal(report.analysis.comparisons, board.analysis.comparisons)
    # and the summary is evaluate's, with the policy's resamples
    direct = rankset.evaluate(RUNS, QRELS, scale="trec_dl")  # evaluate's own defaults
    assert_frame_equal(report.analysis.summary, direct.summary)


def test_one_analysis_draws_both_pages(analysis: Analysis) -> None:
    report, board = rankset.report(analysis), rankset.dashboard(analysis)
    assert report.analysis is analysis
    assert board.analysis is analysis
    # the report's summary cells are the analysis's means
    for mean in analysis.summary["mean"]:
        assert f"{mean:.4f}" in report.html
    assert board.systems == analysis.systems == ["bm25", "rerank"]


def test_an_analysis_with_analysis_options_is_refused(analysis: Analysis) -> None:
    with pytest.raises(rankset.ParameterError, match=r"n_resamples, scale.*rankset\.analyse"):
        rankset.report(analysis, n_resamples=50, scale="binary")
    with pytest.raises(rankset.ParameterError, match="labels"):
        rankset.dashboard(analysis, QRELS)


def test_comparisons_hold_every_baseline_as_compare_gives_it(analysis: Analysis) -> None:
    assert analysis.comparisons is not None
    assert sorted(analysis.comparisons["baseline"].unique()) == ["bm25", "rerank"]
    policy = analysis.resampling
    for baseline in analysis.systems:
        tested, intervals = (
            rankset.compare(
                analysis.result, baseline, tests=["randomization"], n_resamples=n, seed=policy.seed
            )
            for n in (policy.n_permutations, policy.n_resamples)
        )
        got = analysis.comparison(baseline)
        assert got is not None
        # the tests draw the permutations, the intervals of the differences the resamples
        assert_frame_equal(got.drop("ci_low", "ci_high"), tested.drop("ci_low", "ci_high"))
        assert_frame_equal(got.select("ci_low", "ci_high"), intervals.select("ci_low", "ci_high"))


def test_too_many_pairs_are_compared_with_the_baseline_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 100 systems x 10,000 queries x 10 metrics: 4,950 pairs would draw 5e13 resampled
    # sums; a zero budget makes the two sample systems such a case
    from rankset.pages import _analysis_steps

    monkeypatch.setattr(_analysis_steps, "EVERY_BASELINE_BUDGET", 0)
    analysis = rankset.analyse(
        RUNS, QRELS, scale="trec_dl", n_resamples=300, baseline="rerank", progress=False
    )
    assert analysis.comparisons is not None
    assert analysis.comparisons["baseline"].unique().to_list() == ["rerank"]
    assert any("compare every system with rerank only" in note for note in analysis.notes)
    other = analysis.comparison("bm25")
    assert other is not None
    assert other.is_empty()
    # the baseline's rows are still compare's
    policy = analysis.resampling
    tested = rankset.compare(
        analysis.result, "rerank", tests=["randomization"], n_resamples=300, seed=policy.seed
    )
    assert_frame_equal(analysis.comparison("rerank"), tested)
    # and the page says which baseline it holds tests against
    board = rankset.dashboard(analysis)
    assert "compare every system with rerank only" in board.html


def test_the_budget_keeps_every_baseline_for_a_few_systems() -> None:
    from rankset.pages._analysis_steps import compared_baselines

    policy = Resampling.for_comparisons(100)  # 21 systems x 5 metrics
    systems = [f"s{i}" for i in range(21)]
    assert compared_baselines(systems, "s0", 5, 43, policy) == systems  # DL19
    # 100 x 10,000 x 10: 4,950 pairs x 10 metrics x 10,000 queries x 100,000 draws
    many = [f"s{i}" for i in range(100)]
    heavy = Resampling.for_comparisons(990)
    assert compared_baselines(many, "s7", 10, 10_000, heavy) == ["s7"]


def test_the_defaults_are_evaluate_s_metrics_and_the_first_run_as_baseline(
    analysis: Analysis,
) -> None:
    assert analysis.metrics == rankset.evaluation.DEFAULT_METRICS
    assert analysis.baseline == "bm25"
    defaults = {
        name: inspect.signature(function).parameters["metrics"].default
        for name, function in {
            "analyse": rankset.analyse,
            "report": rankset.report,
            "dashboard": rankset.dashboard,
        }.items()
    }
    assert set(defaults.values()) == {None}  # None: DEFAULT_METRICS, said once


@pytest.mark.parametrize(("systems", "metrics"), [(2, 5), (4, 5), (21, 5), (21, 6), (100, 10)])
def test_the_permutations_can_reach_significance_whatever_the_system_count(
    systems: int, metrics: int
) -> None:
    rows = (systems - 1) * metrics
    policy = Resampling.for_comparisons(rows)
    smallest_adjusted = rows / (policy.n_permutations + 1)  # Holm on the smallest p
    assert smallest_adjusted <= policy.alpha / 5
    assert policy.n_resamples == 1_000  # the intervals: evaluate's
    assert (
        policy.n_resamples == inspect.signature(rankset.evaluate).parameters["n_resamples"].default
    )
    assert policy.n_permutations >= 10_000
    assert policy.n_permutations % 1000 == 0
    # and not more than one thousand above what the bound needs
    assert policy.n_permutations < max(10_000, math.ceil(5 * rows / 0.05)) + 1000


def test_a_given_count_is_used_as_given_and_the_page_says_when_it_is_too_few() -> None:
    policy = Resampling.for_comparisons(100, n_resamples=500)
    assert (policy.n_resamples, policy.n_permutations) == (500, 500)
    runs = {name: {"q": {"x": 1.0 + i, "y": 0.5}} for i, name in enumerate("abcdef")}
    analysis = rankset.analyse(
        runs, {"q": {"x": 1}}, scale="binary", n_resamples=20, progress=False
    )
    assert any("rejects nothing" in note for note in analysis.notes)
    assert Resampling.for_comparisons(100, test="t").n_permutations == 10_000  # no draws


def test_bad_policies_are_refused() -> None:
    with pytest.raises(rankset.ParameterError, match="test"):
        Resampling.for_comparisons(3, test="z")  # type: ignore[arg-type]
    with pytest.raises(rankset.ParameterError, match="correction"):
        Resampling.for_comparisons(3, correction="sidak")  # type: ignore[arg-type]
    with pytest.raises(rankset.ParameterError, match="alpha"):
        Resampling.for_comparisons(3, alpha=1.5)
    # checked before any work: the run that cannot be read is never opened
    with pytest.raises(rankset.ParameterError, match="'test'"):
        rankset.analyse(SAMPLE / "no-such-run.trec", QRELS, test="z", progress=False)  # type: ignore[arg-type]


def test_the_pages_state_the_policy(analysis: Analysis) -> None:
    text = analysis.resampling.describe()
    assert "300 resamples" in text
    assert "300 permutations" in text
    board = rankset.dashboard(analysis)
    assert "300 permutations" in board.html
    report = rankset.report(analysis)
    assert "300 resamples" in report.html


def test_a_page_saves_itself_and_names_its_file(tmp_path: Path, analysis: Analysis) -> None:
    page = rankset.report(analysis, out=tmp_path / "r.html")
    assert page.path == tmp_path / "r.html"
    assert page.path.read_text(encoding="utf-8") == page.html
    assert rankset.dashboard(analysis).save(tmp_path / "d.html").stat().st_size > 0
    assert 'srcdoc="' in page._repr_html_()
    assert 'srcdoc="' in rankset.dashboard(analysis)._repr_html_()


def _dl19_21() -> dict[str, Path]:
    first = SHARED / "rank_llm_dl_runs" / "first_stage"
    reranked = SHARED / "rank_llm_dl_runs" / "reranked"
    official = SHARED / "trec_dl_official" / "runs_dl19_complete"
    paths = [first / "bm25.dl19.trec.gz"]
    paths += sorted(p for p in first.glob("*.dl19.trec.gz") if p.name != "bm25.dl19.trec.gz")
    paths += sorted(reranked.glob("*.dl19.trec.gz")) + sorted(official.glob("*.run.gz"))
    return {p.name.split(".dl19")[0].split(".run")[0]: p for p in paths}


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data (TREC DL19 runs)")
def test_with_21_dl19_systems_splade_over_bm25_is_significant_on_both_pages() -> None:
    runs = _dl19_21()
    assert len(runs) == 21
    qrels = SHARED / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    analysis = rankset.analyse(runs, qrels, scale="trec_dl", progress=False)
    assert analysis.baseline == "bm25"
    row = (
        analysis.comparison()
        .filter(pl.col("system") == "splade-pp-ed", pl.col("metric") == "ndcg@10")
        .row(0, named=True)
    )
    # the figures: +0.225 nDCG@10, 34 wins, 0 ties, 9 losses
    assert row["delta"] == pytest.approx(0.225, abs=5e-4)
    assert (row["wins"], row["ties"], row["losses"]) == (34, 0, 9)
    assert row["reject"]
    assert row["p_adj"] < 0.05
    # one pass over 21 baselines, in blocks, mirrored pairs drawn once: compare's values
    policy = analysis.resampling
    for baseline in ("bm25", "splade-pp-ed", "ICT-CKNRM_B50"):
        with warnings.catch_warnings():  # 1,000 draws: too few for 100 rows' tests, not CIs
            warnings.simplefilter("ignore", rankset.RanksetWarning)
            tested, intervals = (
                rankset.compare(analysis.result, baseline, tests=["randomization"], n_resamples=n)
                for n in (policy.n_permutations, policy.n_resamples)
            )
        got = analysis.comparison(baseline)
        assert got is not None
        assert_frame_equal(got.drop("ci_low", "ci_high"), tested.drop("ci_low", "ci_high"))
        assert_frame_equal(got.select("ci_low", "ci_high"), intervals.select("ci_low", "ci_high"))
    report, board = rankset.report(analysis), rankset.dashboard(analysis)
    assert_frame_equal(report.analysis.summary, board.analysis.summary)
    # the dashboard's embedded data marks it, as the report's table does
    assert "splade-pp-ed" in report.html
    data = board.html.split('id="rankset-data">', 1)[1].split("</script>", 1)[0]
    import json

    rows = json.loads(data)["compare"]["bm25"]
    marked = [r for r in rows if r["system"] == "splade-pp-ed" and r["metric"] == "ndcg@10"]
    assert marked
    assert marked[0]["reject"] is True
