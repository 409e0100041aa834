"""Issue 47's judges view on both pages: other label sets judged against the human labels.

The bundled sample with four systems (two derived from its runs) and a made-up judge
(``_support.judges_cases``). The numbers the pages show are checked against
:func:`rankset.label_quality.meta_evaluate` called here, and the correlations and ranks
against SciPy and a sort of the two leaderboards' means, each computed here from
:func:`rankset.evaluate` under each label set; the calibration against
:func:`rankset.label_quality.calibration.calibrate`. One slow test runs four TREC DL 2019
runs with an UMBRELA judge from the shared data folder.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr

import rankset
from _support.dashboard_cases import SAMPLE_QRELS
from _support.judges_cases import dl19, sample_judge, sample_runs
from _support.report_cases import fmt
from rankset.label_quality import meta_evaluate
from rankset.label_quality.calibration import calibrate
from rankset.pages import Analysis
from rankset.pages.dashboard import render as render_dashboard
from rankset.pages.report import render as render_report

N_RESAMPLES = 200
SHOWN = ("kendall", "pearson", "spearman", "tauap_b", "tau_gap", "kendall@10")
HEADERS = ("Kendall τ-b", "Pearson r", "Spearman ρ", "τ AP-b", "τ GAP", "Kendall τ-b@10")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    runs = sample_runs()
    judge = sample_judge(tmp_path_factory.mktemp("judges"), runs)
    return {"runs": runs, "judge": judge}


@pytest.fixture(scope="module")
def analysis(inputs: dict[str, Any]) -> Analysis:
    return rankset.analyse(
        inputs["runs"],
        SAMPLE_QRELS,
        metrics=["ndcg@10", "ap"],
        label_sets={"llm": inputs["judge"]},
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        progress=False,
    )


@pytest.fixture(scope="module")
def report_html(analysis: Analysis) -> str:
    return render_report(analysis)


@pytest.fixture(scope="module")
def board_html(analysis: Analysis) -> str:
    return render_dashboard(analysis).html


def section(page: str, heading: str) -> str:
    start = page.index(f"<h2>{heading}</h2>")
    end = page.find("<h2>", start + 1)
    return page[start : end if end > 0 else len(page)]


def payload(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="rankset-data">(.*?)</script>', page)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def cells(table: str, row_header: str) -> list[str]:
    """The text of the cells of the row headed ``row_header``; a CI cell as 'v [lo, hi]'."""
    row = re.search(rf'<th scope="row">{re.escape(row_header)}</th>(.*?)</tr>', table, re.S)
    assert row is not None, row_header
    out = []
    for cell in re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S):
        text = re.sub(r'<span class="ci">(.*?)</span>', r" \1", cell)
        out.append(html.unescape(re.sub(r"<[^>]+>", "", text)))
    return out


def means(runs: Any, labels: Any, metric: str) -> dict[str, float]:
    """Each system's mean ``metric`` under ``labels``: rankset.evaluate, computed here."""
    result = rankset.evaluate(runs, labels, [metric], scale="trec_dl", confidence=None)
    return dict(result.summary.select("system", "mean").iter_rows())


def reference(inputs: dict[str, Any], metrics: list[str]) -> rankset.label_quality.MetaEvaluation:
    return meta_evaluate(
        SAMPLE_QRELS,
        {"llm": inputs["judge"]},
        runs=inputs["runs"],
        metrics=metrics,
        correlations=SHOWN,
        on_missing="skip",
        n_bootstrap=N_RESAMPLES,
        seed=0,
        scale="trec_dl",
    )


# --- present only with label sets ---------------------------------------------------------


def test_without_label_sets_neither_page_has_a_judges_view(inputs: dict[str, Any]) -> None:
    plain = rankset.analyse(
        inputs["runs"], SAMPLE_QRELS, metrics=["ndcg@10"], scale="trec_dl",
        n_resamples=N_RESAMPLES, progress=False,
    )  # fmt: skip
    assert plain.judges is None
    assert plain.calibrations == {}
    assert plain.judges_view is None
    page = render_report(plain)
    assert "<h2>Judges</h2>" not in page
    assert 'href="#judges"' not in page
    board = render_dashboard(plain).html
    assert payload(board)["judges"] is None
    assert 'data-tab="judges"' not in board
    assert 'data-view="judges"' not in board


def test_with_label_sets_both_pages_have_it(report_html: str, board_html: str) -> None:
    assert '<a href="#judges">Judges</a>' in report_html
    assert 'id="chart-judges"' in report_html
    assert 'id="chart-calibration"' in report_html
    assert '<button type="button" role="tab" data-tab="judges">Judges</button>' in board_html
    assert '<section data-view="judges" aria-label="Judges" hidden>' in board_html
    specs = re.search(r'id="rankset-specs">(.*?)</script>', board_html)
    assert specs is not None
    assert {"judges", "calibration"} <= set(json.loads(specs.group(1)))


# --- the numbers: meta_evaluate's, and SciPy's of the two leaderboards ----------------------


def test_the_analysis_holds_meta_evaluates_result(
    analysis: Analysis, inputs: dict[str, Any]
) -> None:
    expected = reference(inputs, ["ndcg@10", "ap"])
    got = analysis.judges
    assert got is not None
    assert got.correlations.equals(expected.correlations)
    assert got.leaderboards.equals(expected.leaderboards)
    assert got.topics.equals(expected.topics)


def test_the_correlations_are_scipys_of_the_two_leaderboards(
    analysis: Analysis, inputs: dict[str, Any], report_html: str, board_html: str
) -> None:
    truth = means(inputs["runs"], SAMPLE_QRELS, "ndcg@10")
    judged = means(inputs["runs"], inputs["judge"], "ndcg@10")
    systems = sorted(truth)
    x, y = [truth[s] for s in systems], [judged[s] for s in systems]
    independent = {
        "kendall": kendalltau(x, y).statistic,
        "pearson": pearsonr(x, y).statistic,
        "spearman": spearmanr(x, y).statistic,
        "kendall@10": kendalltau(x, y).statistic,  # four systems: the top 10 is all of them
    }
    rows = payload(board_html)["judges"]["rows"]
    shown = {r["correlation"]: r for r in rows if r["metric"] == "ndcg@10"}
    assert list(shown) == list(SHOWN)
    table = section(report_html, "Judges")
    report_cells = cells(table, "llm")  # the first row headed llm: ndcg@10
    assert report_cells[:3] == ["ndcg@10", "4", "40"]
    for name, value in independent.items():
        assert shown[name]["value"] == pytest.approx(value, abs=1e-6), name
        column = 3 + SHOWN.index(name)
        assert report_cells[column].split(" ")[0] == fmt(value), name
    for name in SHOWN:  # every value with its interval, as meta_evaluate gave it
        row = shown[name]
        column = report_cells[3 + SHOWN.index(name)]
        assert column == f"{fmt(row['value'])} [{fmt(row['ci_low'])}, {fmt(row['ci_high'])}]"
        assert row["ci_low"] <= row["value"] + 1e-9 <= row["ci_high"] + 2e-9
    for header in HEADERS:
        assert f">{header}</th>" in table


def test_the_leaderboards_side_by_side_are_the_two_orders(
    inputs: dict[str, Any], report_html: str, board_html: str
) -> None:
    truth = means(inputs["runs"], SAMPLE_QRELS, "ndcg@10")
    judged = means(inputs["runs"], inputs["judge"], "ndcg@10")
    truth_rank = {s: i + 1 for i, s in enumerate(sorted(truth, key=truth.__getitem__)[::-1])}
    judge_rank = {s: i + 1 for i, s in enumerate(sorted(judged, key=judged.__getitem__)[::-1])}
    assert truth_rank != judge_rank  # the made-up judge moves a system
    boards = [r for r in payload(board_html)["judges"]["boards"] if r["metric"] == "ndcg@10"]
    assert [r["system"] for r in boards] == sorted(truth_rank, key=truth_rank.__getitem__)
    table = section(report_html, "Judges")
    for row in boards:
        system = row["system"]
        assert row["truth_rank"] == truth_rank[system]
        assert row["judge_rank"] == judge_rank[system]
        assert row["truth_mean"] == pytest.approx(truth[system], abs=1e-6)
        assert row["judge_mean"] == pytest.approx(judged[system], abs=1e-6)
        change = truth_rank[system] - judge_rank[system]
        arrow = "=" if change == 0 else (f"↑{change}" if change > 0 else f"↓{-change}")
        assert cells(table, system) == [
            fmt(truth[system]), str(truth_rank[system]),
            fmt(judged[system]), str(judge_rank[system]), arrow,
        ]  # fmt: skip


def test_the_topics_of_most_disagreement_have_the_lowest_per_topic_kendall(
    inputs: dict[str, Any], report_html: str, board_html: str
) -> None:
    evaluated = {
        side: rankset.evaluate(
            inputs["runs"], labels, ["ndcg@10"], scale="trec_dl", confidence=None
        ).per_query
        for side, labels in (("truth", SAMPLE_QRELS), ("judge", inputs["judge"]))
    }
    both = evaluated["truth"].join(evaluated["judge"], on=["system", "query_id"], suffix="_judge")
    taus = {}
    for (query,), rows in both.group_by("query_id"):
        tau = kendalltau(rows["value"], rows["value_judge"]).statistic
        if tau == tau:  # NaN: every system ties on one side
            taus[str(query)] = tau
    lowest = sorted(taus.items(), key=lambda item: (item[1], item[0]))[:10]
    topics = [r for r in payload(board_html)["judges"]["topics"] if r["metric"] == "ndcg@10"]
    assert [r["query_id"] for r in topics] == [q for q, _ in lowest]
    assert [r["kendall"] for r in topics] == pytest.approx([t for _, t in lowest], abs=1e-6)
    listed = re.findall(
        r'<tr id="judges-llm-ndcg@10-([^"]+)" data-query="[^"]+"><td class="num">\d+</td>'
        r'<td><a href="#[^"]+">[^<]+</a></td><td class="num">([^<]+)</td>',
        report_html,
    )
    assert listed == [(q, fmt(t)) for q, t in lowest]


def test_the_calibration_is_calibrates_table(
    analysis: Analysis, inputs: dict[str, Any], board_html: str
) -> None:
    expected = calibrate(inputs["judge"], SAMPLE_QRELS).table
    assert analysis.calibrations["llm"].table.equals(expected)
    rows = payload(board_html)["judges"]["calibration"]
    assert [(r["score"], r["n"]) for r in rows] == expected.select("score", "n").rows()
    assert [r["fitted"] for r in rows] == pytest.approx(expected["fitted"].to_list(), abs=1e-6)
    assert [r["human_mean"] for r in rows] == pytest.approx(
        expected["human_mean"].to_list(), abs=1e-6
    )


def test_a_judge_of_part_of_the_pairs_is_calibrated_on_the_shared_ones(
    inputs: dict[str, Any], tmp_path: Path
) -> None:
    schema = {"query_id": pl.String, "iter": pl.String, "doc_id": pl.String, "grade": pl.Float64}
    judged = pl.read_csv(inputs["judge"], separator=" ", has_header=False, schema=schema)
    human = pl.read_csv(SAMPLE_QRELS, separator=" ", has_header=False, schema=schema)
    part = judged.filter(pl.col("query_id") < "q020")
    path = tmp_path / "part.txt"
    part.write_csv(path, separator=" ", include_header=False)
    analysis = rankset.analyse(
        inputs["runs"], SAMPLE_QRELS, metrics=["ndcg@10"], scale="trec_dl",
        label_sets={"part": path}, n_resamples=50, progress=False,
    )  # fmt: skip
    shared = part.join(human, on=["query_id", "doc_id"], suffix="_human")
    view = analysis.judges_view
    assert view is not None
    assert view.uncalibrated == ()
    assert view.calibration["n"].sum() == shared.height
    means_by_grade = shared.group_by("grade").agg(pl.col("grade_human").mean()).sort("grade")
    assert view.calibration["human_mean"].to_list() == pytest.approx(
        means_by_grade["grade_human"].to_list()
    )
    page = section(render_report(analysis), "Judges")
    assert f"<code>part</code>: {shared.height:,} pairs" in page


def test_two_systems_say_why_there_is_no_leaderboard_correlation(
    inputs: dict[str, Any],
) -> None:
    two = {name: inputs["runs"][name] for name in ("bm25", "rerank")}
    analysis = rankset.analyse(
        two, SAMPLE_QRELS, metrics=["ndcg@10"], scale="trec_dl",
        label_sets={"llm": inputs["judge"]}, n_resamples=50, progress=False,
    )  # fmt: skip
    assert analysis.judges is None
    assert set(analysis.calibrations) == {"llm"}  # calibration needs no systems
    judges = section(render_report(analysis), "Judges")
    assert "needs 3 systems or more; this analysis has 2" in judges
    assert 'id="chart-calibration"' in judges
    assert 'id="judges-correlations"' not in judges
    data = payload(render_dashboard(analysis).html)["judges"]
    assert data["rows"] == []
    assert data["boards"] == []
    assert "needs 3 systems or more" in data["note"]


def test_judge_names_are_escaped_on_both_pages(inputs: dict[str, Any]) -> None:
    name = '<img src=x onerror="alert(1)">'
    analysis = rankset.analyse(
        inputs["runs"], SAMPLE_QRELS, metrics=["ndcg@10"], scale="trec_dl",
        label_sets={name: inputs["judge"]}, n_resamples=50, progress=False,
    )  # fmt: skip
    page = render_report(analysis)
    assert name not in re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.S)
    assert html.escape(name, quote=True) in page
    board = render_dashboard(analysis).html
    assert name not in re.sub(r"<script\b[^>]*>.*?</script>", "", board, flags=re.S)
    assert payload(board)["judges"]["judges"] == [name]


# --- TREC DL 2019 with an UMBRELA judge (slow) ---------------------------------------------


@pytest.mark.slow
def test_dl19_with_an_umbrela_judge() -> None:
    paths = dl19()
    if paths is None:
        pytest.skip("the shared data folder lacks the DL19 runs, qrels or UMBRELA labels")
    analysis = rankset.analyse(
        paths["runs"], paths["qrels"], metrics=["ndcg@10"], scale="trec_dl",
        relevance_level=2, label_sets={"umbrela": paths["judge"]}, n_resamples=1000,
        progress=False,
    )  # fmt: skip
    truth = means(paths["runs"], paths["qrels"], "ndcg@10")
    judged = means(paths["runs"], paths["judge"], "ndcg@10")
    systems = sorted(truth)
    tau = kendalltau([truth[s] for s in systems], [judged[s] for s in systems]).statistic
    view = analysis.judges_view
    assert view is not None
    kendall = view.correlations.filter(correlation="kendall").row(0, named=True)
    assert kendall["value"] == pytest.approx(tau, abs=1e-9)
    assert kendall["n_systems"] == 4
    assert kendall["n_topics"] == 43
    board = render_dashboard(analysis).html
    rows = payload(board)["judges"]["rows"]
    assert next(r for r in rows if r["correlation"] == "kendall")["value"] == pytest.approx(tau)
    table = section(render_report(analysis), "Judges")
    assert cells(table, "umbrela")[3].split(" ")[0] == fmt(tau)
    fit = calibrate(paths["judge"], paths["qrels"]).table
    assert analysis.calibrations["umbrela"].table.equals(fit)
    assert fit["n"].sum() > 1000  # the judge labelled the pairs NIST judged


# --- the command line ----------------------------------------------------------------------


def test_both_page_commands_take_repeated_qrels(inputs: dict[str, Any], tmp_path: Path) -> None:
    from rankset.cli import main

    files = []
    for name, run in inputs["runs"].items():
        path = tmp_path / f"{name}.trec"
        ranked = run.sort("query_id", "score", descending=[False, True]).with_columns(
            rank=pl.int_range(1, pl.len() + 1).over("query_id"), iter=pl.lit("Q0"),
            system=pl.lit(name),
        )  # fmt: skip
        ranked.select("query_id", "iter", "doc_id", "rank", "score", "system").write_csv(
            path, separator=" ", include_header=False
        )
        files.append(str(path))
    expected = reference(inputs, ["ndcg@10"])
    kendall = expected.correlations.filter(correlation="kendall")["value"].item()
    common = ["-m", "ndcg@10", "--scale", "trec_dl", "--n-resamples", str(N_RESAMPLES), "-q"]
    qrels = ["--qrels", str(SAMPLE_QRELS), "--qrels", str(inputs["judge"])]
    board, page = tmp_path / "board.html", tmp_path / "report.html"
    assert main(["dashboard", *files, *qrels, *common, "--out", str(board)]) == 0
    assert main(["report", *files, *qrels, *common, "--out", str(page)]) == 0
    data = payload(board.read_text(encoding="utf-8"))["judges"]
    assert data["reference"] == "qrels"
    assert data["judges"] == ["llm-judge"]  # named after its file
    shown = next(r for r in data["rows"] if r["correlation"] == "kendall")
    assert shown["value"] == pytest.approx(kendall, abs=1e-6)
    table = section(page.read_text(encoding="utf-8"), "Judges")
    assert cells(table, "llm-judge")[3].split(" ")[0] == fmt(kendall)
