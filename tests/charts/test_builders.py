"""Chart builders: assertions on ``chart.to_dict()`` (never on pixels)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import rankset
from rankset import charts
from rankset.errors import ParameterError


def layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The unit specs of a (faceted) layer chart."""
    inner = spec.get("spec", spec)
    return list(inner.get("layer", [inner]))


def mark(layer: dict[str, Any]) -> str:
    value = layer["mark"]
    return value if isinstance(value, str) else value["type"]


def tooltip_fields(layer: dict[str, Any]) -> list[str]:
    return [tip["field"] for tip in layer["encoding"]["tooltip"]]


def test_curves_chart_lines_facets_and_band(curves: rankset.Curves) -> None:
    spec = charts.curves_chart(curves).to_dict()
    assert spec["facet"]["field"] == "metric"
    marks = [mark(layer) for layer in layers(spec)]
    assert marks == ["area", "line"]
    line = layers(spec)[1]["encoding"]
    assert (line["x"]["field"], line["x"]["title"]) == ("k", "cutoff k")
    assert line["y"]["field"] == "mean"
    assert line["color"]["scale"]["domain"] == ["bm25", "rerank"]
    band = layers(spec)[0]["encoding"]
    assert (band["y"]["field"], band["y2"]["field"]) == ("ci_low", "ci_high")
    assert len(spec["data"]["values"]) == curves.summary.height


@pytest.mark.parametrize(("ks", "marked"), [(25, True), (26, False), (100, False)])
def test_curves_mark_each_cutoff_only_while_the_points_stay_apart(ks: int, marked: bool) -> None:
    # At k = 100 the points (100 per line) hid the lines.
    summary = pl.DataFrame(
        {"system": "s", "metric": "ndcg", "k": range(1, ks + 1), "mean": 0.5}
    ).with_columns(ci_low=pl.col("mean"), ci_high=pl.col("mean"))
    line = layers(charts.curves_chart(summary).to_dict())[-1]
    assert mark(line) == "line"
    assert bool(line["mark"].get("point", False)) is marked


def test_curves_chart_without_band_and_metric_filter(curves: rankset.Curves) -> None:
    spec = charts.curves_chart(curves.summary, metrics=["ndcg"], ci=False).to_dict()
    assert [mark(layer) for layer in layers(spec)] == ["line"]
    assert {row["metric"] for row in spec["data"]["values"]} == {"ndcg"}
    assert layers(spec)[0]["encoding"]["y"]["title"] == "mean ndcg"


def test_curves_chart_unknown_metric_suggests(curves: rankset.Curves) -> None:
    with pytest.raises(ParameterError, match="Did you mean 'recall'"):
        charts.curves_chart(curves, metrics=["recal"])


def test_comparison_chart_significance_and_tooltip(comparison: pl.DataFrame) -> None:
    spec = charts.comparison_chart(comparison).to_dict()
    assert spec["facet"]["row"]["field"] == "metric"
    rule, bar, point = layers(spec)
    assert mark(rule) == "rule"
    assert rule["encoding"]["x"]["datum"] == 0
    assert (bar["encoding"]["x"]["field"], bar["encoding"]["x2"]["field"]) == (
        "ci_low",
        "ci_high",
    )
    opacity = point["encoding"]["fillOpacity"]
    assert opacity["field"] == "reject"
    assert opacity["scale"] == {"domain": [True, False], "range": [1.0, 0.0]}
    fields = tooltip_fields(point)
    for name in ("mean", "baseline_mean", "delta", "ci_low", "ci_high", "p", "p_adj", "W/T/L"):
        assert name in fields
    rows = spec["data"]["values"]
    assert len(rows) == comparison.height
    assert {row["reject"] for row in rows} == set(comparison["reject"].to_list())
    assert "lower is better" in spec["facet"]["row"]["header"]["labelExpr"]


def test_comparison_chart_colours_can_include_the_baseline(comparison: pl.DataFrame) -> None:
    scale = charts.system_colors(["bm25", "rerank"])
    spec = charts.comparison_chart(comparison, colors=scale).to_dict()
    assert layers(spec)[2]["encoding"]["color"]["scale"]["domain"] == ["bm25", "rerank"]


def test_comparison_chart_unknown_test(comparison: pl.DataFrame) -> None:
    with pytest.raises(ParameterError, match="no rows for test 't'"):
        charts.comparison_chart(comparison, test="t")


def test_distribution_chart(result: rankset.EvaluationResult) -> None:
    spec = charts.distribution_chart(result, "ndcg_cut_10").to_dict()
    assert [mark(layer) for layer in layers(spec)] == ["boxplot", "point"]
    points = layers(spec)[1]["encoding"]
    assert "query_id" in [tip["field"] for tip in points["tooltip"]]
    assert points["color"]["scale"]["domain"] == ["bm25", "rerank"]
    assert spec["title"]["text"] == "ndcg@10 per query"
    expected = result.per_query.filter(pl.col("metric") == "ndcg@10").height
    assert len(spec["data"]["values"]) == expected


def test_difference_chart_orients_lower_is_better() -> None:
    per_query = pl.DataFrame(
        {
            "system": ["base"] * 3 + ["new"] * 3,
            "query_id": ["q1", "q2", "q3"] * 2,
            "metric": "harm@5",
            "value": [0.4, 0.0, 0.2, 0.0, 0.2, 0.2],
        }
    )
    spec = charts.difference_chart(per_query, "harm@5", "base").to_dict()
    outcome = {row["query_id"]: row["outcome"] for row in spec["data"]["values"]}
    assert outcome == {"q1": "win", "q2": "loss", "q3": "tie"}
    bars = layers(spec)[0]["encoding"]
    assert bars["color"]["field"] == "outcome"
    assert bars["x"]["sort"]["order"] == "ascending"  # most negative delta (best) first
    assert "query_id" in [tip["field"] for tip in bars["tooltip"]]
    assert spec["facet"]["row"]["field"] == "system"


def test_difference_chart_real_data(result: rankset.EvaluationResult) -> None:
    spec = charts.difference_chart(result, "ndcg@10", "bm25").to_dict()
    rows = spec["data"]["values"]
    assert {row["system"] for row in rows} == {"rerank"}
    assert layers(spec)[0]["encoding"]["x"]["sort"]["order"] == "descending"
    with pytest.raises(ParameterError, match=r"baseline 'bm26'.*Did you mean 'bm25'"):
        charts.difference_chart(result, "ndcg@10", "bm26")


def test_diagnostic_scatter(diagnosis: rankset.Diagnosis) -> None:
    spec = charts.diagnostic_scatter(diagnosis, thresholds={"proc": 0.3, "pct_proc": 0.7}).to_dict()
    # Wrapped three panels a row: four systems or more used to run off the page.
    assert (spec["facet"]["field"], spec["columns"]) == ("system", 3)
    proc_rule, pct_rule, labels, points = layers(spec)
    assert proc_rule["data"]["values"] == [{"threshold": 0.3}]
    assert proc_rule["encoding"]["x"]["field"] == "threshold"
    assert pct_rule["data"]["values"] == [{"threshold": 0.7}]
    assert pct_rule["encoding"]["y"]["field"] == "threshold"
    assert {row["label"] for row in labels["data"]["values"]} == {
        "healthy",
        "retrieval miss",
        "reranking miss",
        "both",
    }
    assert points["encoding"]["x"]["field"] == "proc"
    assert points["encoding"]["color"]["field"] == "quadrant"
    fields = tooltip_fields(points)
    for name in ("query_id", "ra_nwg", "proc", "pct_proc", "quadrant"):
        assert name in fields
    placed = diagnosis.per_query.filter(pl.col("proc").is_not_null()).height
    assert len(spec["data"]["values"]) == placed


def test_diagnostic_scatter_places_na_pct_proc_at_zero() -> None:
    per_query = pl.DataFrame(
        {
            "system": "s",
            "query_id": ["q1", "q2", "q3"],
            "k": 5,
            "ra_nwg": [0.9, 0.0, None],
            "proc": [1.0, 0.0, None],
            "pct_proc": [0.9, None, None],
            "quadrant": ["healthy", "retrieval miss", None],
        }
    )
    spec = charts.diagnostic_scatter(per_query).to_dict()
    rows = {row["query_id"]: row for row in spec["data"]["values"]}
    assert set(rows) == {"q1", "q2"}  # q3 cannot be placed
    assert rows["q2"]["pct_proc_shown"] == 0.0
    assert rows["q2"]["pct_proc"] is None
    assert rows["q2"]["pct_proc_status"] != rows["q1"]["pct_proc_status"]
    assert layers(spec)[0]["data"]["values"] == [{"threshold": 0.5}]
    assert "1 unclassifiable" in spec["title"]["subtitle"][1]


def test_diagnostic_heatmap(diagnosis: rankset.Diagnosis) -> None:
    spec = charts.diagnostic_heatmap(diagnosis).to_dict()
    assert (spec["facet"]["field"], spec["columns"]) == ("system", 4)  # wraps past four
    rect, _, count = layers(spec)
    assert mark(rect) == "rect"
    assert (rect["encoding"]["x"]["field"], rect["encoding"]["y"]["field"]) == (
        "proc_level",
        "pct_level",
    )
    assert count["encoding"]["text"]["field"] == "label"
    rows = spec["data"]["values"]
    assert len(rows) == 4 * 2
    by_cell = {(r["system"], r["proc_level"], r["pct_level"]): r["n_queries"] for r in rows}
    counts = diagnosis.counts.filter(pl.col("quadrant") == "reranking miss")
    for system, n in counts.select("system", "n_queries").iter_rows():
        assert by_cell[(system, "high", "low")] == n


def test_diagnostic_heatmap_from_per_query_frame(diagnosis: rankset.Diagnosis) -> None:
    from_frame = charts.diagnostic_heatmap(diagnosis.per_query).to_dict()["data"]["values"]
    from_object = charts.diagnostic_heatmap(diagnosis).to_dict()["data"]["values"]
    key = lambda row: (row["system"], row["quadrant"])  # noqa: E731
    assert sorted(from_frame, key=key) == sorted(from_object, key=key)
