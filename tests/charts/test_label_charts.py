"""The label-quality charts: agreement, ranks under label sets, judges, calibration."""

from __future__ import annotations

import importlib.util

import polars as pl
import pytest

import rankset
from rankset import charts
from rankset.label_quality.assessors import Agreement

HAS_VL_CONVERT = importlib.util.find_spec("vl_convert") is not None


def _agreement() -> Agreement:
    reference = {"q1": {"a": 0, "b": 1, "c": 2}, "q2": {"d": 2, "e": 0}}
    close = {"q1": {"a": 0, "b": 1, "c": 2}, "q2": {"d": 1, "e": 0}}
    far = {"q1": {"a": 2, "b": 0, "c": 0}, "q2": {"d": 0, "e": 2}}
    return rankset.agreement(reference, {"far": far, "close": close}, confidence=None)


def test_the_agreement_chart_lists_judges_best_first_with_every_statistic() -> None:
    result = _agreement()
    spec = charts.agreement_chart(result).to_dict()
    rows = spec["data"]["values"]
    statistics = {row["statistic"] for row in rows}
    assert statistics == {"kappa", "kappa_quadratic", "alpha_ordinal", "kappa_at_1", "kappa_at_2"}
    assert len(rows) == 2 * len(statistics)
    assert spec["encoding"]["y"]["sort"] == ["close", "far"]  # best quadratic kappa first
    close = {r["statistic"]: r["value"] for r in rows if r["judge"] == "close"}
    table = result.table.filter(judge="close").row(0, named=True)
    assert close == {name: table[name] for name in statistics}


def test_the_stability_chart_keeps_the_label_sets_order_and_puts_rank_1_on_top() -> None:
    runs = {"a": {"q": {"x": 2.0, "y": 1.0}}, "b": {"q": {"y": 2.0, "x": 1.0}}}
    labels = {"zeta": {"q": {"x": 1}}, "alpha": {"q": {"y": 1}}}
    stability = rankset.ranking_stability(runs, labels, "rr", confidence=None)
    spec = charts.stability_chart(stability).to_dict()
    encoding = spec["layer"][0]["encoding"]
    assert encoding["x"]["sort"] == ["zeta", "alpha"]  # as given, not alphabetical
    assert encoding["y"]["scale"]["reverse"] is True
    assert encoding["y"]["axis"]["values"] == [1, 2]
    assert {(r["labels"], r["system"], r["rank"]) for r in spec["data"]["values"]} == {
        ("zeta", "a", 1),
        ("zeta", "b", 2),
        ("alpha", "b", 1),
        ("alpha", "a", 2),
    }


@pytest.mark.skipif(not HAS_VL_CONVERT, reason="vl-convert is not installed")
def test_both_charts_render() -> None:
    import vl_convert

    svg = vl_convert.vegalite_to_svg(charts.agreement_chart(_agreement()).to_dict())
    assert ">close</text>" in svg
    assert ">far</text>" in svg
    runs = {"a": {"q": {"x": 2.0, "y": 1.0}}, "b": {"q": {"y": 2.0, "x": 1.0}}}
    labels = {"human": {"q": {"x": 1}}, "judge": {"q": {"y": 1}}}
    stability = rankset.ranking_stability(runs, labels, "rr", confidence=None)
    svg = vl_convert.vegalite_to_svg(charts.stability_chart(stability).to_dict())
    assert ">human</text>" in svg
    assert ">judge</text>" in svg


def test_the_confusion_chart_shows_each_reference_grades_shares() -> None:
    result = _agreement()
    spec = charts.confusion_chart(result).to_dict()
    rows = spec["data"]["values"]
    assert len(rows) == 2 * 9  # two judges, 3 x 3 cells, zeros included
    assert spec["facet"]["sort"] == ["far", "close"]  # the judges in the order given
    close = {
        (r["reference_grade"], r["judge_grade"]): r["share"] for r in rows if r["judge"] == "close"
    }
    # reference 2: d graded 1, c graded 2 -> half each; reference 0 and 1 all agree
    assert close[("2", "1")] == close[("2", "2")] == 0.5
    assert close[("0", "0")] == close[("1", "1")] == 1.0
    for grade in ("0", "1", "2"):
        assert sum(v for (r, _), v in close.items() if r == grade) == 1.0


@pytest.mark.skipif(not HAS_VL_CONVERT, reason="vl-convert is not installed")
def test_the_confusion_chart_renders() -> None:
    import vl_convert

    svg = vl_convert.vegalite_to_svg(charts.confusion_chart(_agreement()).to_dict())
    assert svg.count(">judge's grade</text>") == 2  # one x axis per panel


def _boards() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "judge": ["llm"] * 3 + ["llm"] * 3,
            "truth_metric": ["ap"] * 3 + ["rr"] * 3,
            "metric": ["ap"] * 3 + ["rr"] * 3,
            "system": ["a", "b", "c"] * 2,
            "truth_mean": [0.5, 0.4, 0.3, 0.9, 0.8, 0.7],
            "judge_mean": [0.6, 0.7, 0.2, 0.95, 0.85, 0.75],
            "truth_rank": [1, 2, 3] * 2,
            "judge_rank": [2, 1, 3, 1, 2, 3],
        }
    )


def test_the_judges_chart_draws_one_panel_per_judge_of_the_metric_asked() -> None:
    spec = charts.judges_chart(_boards(), "rr").to_dict()
    rows = spec["data"]["values"]
    assert {row["metric"] for row in rows} == {"rr"}
    assert [(r["system"], r["truth_mean"], r["judge_mean"]) for r in rows] == [
        ("a", 0.9, 0.95),
        ("b", 0.8, 0.85),
        ("c", 0.7, 0.75),
    ]
    assert spec["facet"]["column"]["field"] == "judge"
    points = spec["spec"]["layer"][0]["encoding"]
    assert (points["x"]["field"], points["y"]["field"]) == ("truth_mean", "judge_mean")
    assert "(rr)" in spec["title"]["text"]
    assert charts.judges_chart(_boards()).to_dict()["data"]["values"][0]["metric"] == "ap"


def test_the_judges_chart_from_a_dataset_follows_the_metric_parameter() -> None:
    import altair as alt

    metric = alt.param(name="metric", value="ap")
    spec = charts.judges_chart("judges", metric).to_dict()
    assert spec["data"] == {"name": "judges"}
    assert spec["spec"]["transform"] == [{"filter": "datum.metric === metric"}]
    assert [p["name"] for p in spec["params"]] == ["metric"]
    with pytest.raises(rankset.errors.ParameterError, match="needs its 'metric'"):
        charts.judges_chart("judges")
    with pytest.raises(rankset.errors.ParameterError, match="no metric 'ndcg@10'"):
        charts.judges_chart(_boards(), "ndcg@10")


def test_the_calibration_chart_draws_a_calibrations_table() -> None:
    from rankset.label_quality.calibration import calibrate

    human = {"q": {"a": 0, "b": 1, "c": 2, "d": 3, "e": 0}}
    judge = {"q": {"a": 0, "b": 0, "c": 2, "d": 2, "e": 1}}
    fit = calibrate(judge, human)
    spec = charts.calibration_chart(fit).to_dict()
    rows = spec["data"]["values"]
    assert rows == fit.table.select("score", "n", "human_mean", "fitted").to_dicts()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rule", "line", "point"]
    assert spec["layer"][1]["encoding"]["y"]["field"] == "fitted"
    assert spec["layer"][2]["encoding"]["y"]["field"] == "human_mean"
    assert "color" not in spec["layer"][2]["encoding"]  # one judge: no legend
    several = charts.calibration_chart(fit.table.with_columns(judge=pl.lit("llm"))).to_dict()
    assert several["layer"][2]["encoding"]["color"]["field"] == "judge"
    assert charts.calibration_chart("calibration").to_dict()["data"] == {"name": "calibration"}
