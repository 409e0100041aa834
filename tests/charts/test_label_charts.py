"""The label-quality charts: judges' agreement (dot plot) and system ranks (bump chart)."""

from __future__ import annotations

import importlib.util

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
