"""The builders both pages draw with: from inlined rows or from a dataset the page fills.

The report inlines a frame, the dashboard names a dataset its script fills and drives the
metric with a parameter; either way one builder draws the chart, so the marks, the fields
and the scales are the same.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import altair as alt
import polars as pl
import pytest

import rankset
from rankset import charts
from rankset.errors import ParameterError


def drawn(spec: dict[str, Any]) -> list[tuple[str, dict[str, tuple[Any, ...]]]]:
    """Each layer's mark and, per channel, its field, type and scale."""
    inner = spec.get("spec", spec)
    layers = []
    for layer in inner["layer"]:
        channels = {
            name: (value.get("field"), value.get("type"), value.get("scale"))
            for name, value in layer.get("encoding", {}).items()
            if isinstance(value, dict)
        }
        mark = layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        layers.append((mark, channels))
    return layers


def params(spec: dict[str, Any]) -> set[str]:
    return {param["name"] for param in spec.get("params", [])}


def history_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "entry_id": ["e1", "e1", "e2", "e2"],
            "time": [datetime(2026, 1, d, tzinfo=UTC) for d in (1, 1, 2, 2)],
            "system": ["a", "b", "a", "b"],
            "metric": "ndcg@10",
            "mean": [0.5, 0.4, 0.6, 0.45],
            "ci_low": [0.4, 0.3, 0.5, 0.35],
            "ci_high": [0.6, 0.5, 0.7, 0.55],
            "tag": "main",
        }
    )


def test_curves_from_a_dataset_are_the_inlined_curves(curves: rankset.Curves) -> None:
    colors = charts.system_colors(["bm25", "rerank"])
    inline = charts.curves_chart(curves, metrics=["ndcg"], colors=colors).to_dict()
    measure = alt.param(name="measure", value="ndcg")
    named = charts.curves_chart("curves", metrics=measure, colors=colors).to_dict()
    assert named["data"] == {"name": "curves"}
    assert named["transform"] == [{"filter": "datum.metric === measure"}]
    assert {"measure", "curves_legend"} <= params(named)
    assert drawn(named) == drawn(inline)


def test_curves_mark_the_cutoff_a_parameter_holds(curves: rankset.Curves) -> None:
    k = alt.param(name="k", value=5)
    spec = charts.curves_chart(curves, cutoff=k).to_dict()
    assert "k" in params(spec)  # at the top, where Vega-Lite reads variables
    marks = [mark for mark, _ in drawn(spec)]
    assert marks == ["area", "line", "rule", "point"]
    assert {"filter": "datum.k === k"} in spec["spec"]["layer"][2]["transform"]


def test_curves_from_a_dataset_may_facet_named_metrics() -> None:
    spec = charts.curves_chart("curves", metrics=["ndcg", "ap"]).to_dict()
    assert spec["data"] == {"name": "curves"}
    assert spec["spec"]["transform"] == [{"filter": {"field": "metric", "oneOf": ["ndcg", "ap"]}}]
    assert spec["facet"]["sort"] == ["ndcg", "ap"]


def test_the_matrix_from_a_dataset_is_the_inlined_matrix(diagnosis: rankset.Diagnosis) -> None:
    systems = ["bm25", "rerank"]
    inline = charts.diagnostic_matrix(diagnosis, systems=systems).to_dict()
    named = charts.diagnostic_matrix("diagnosis", systems=systems, k=5).to_dict()
    assert named["data"] == {"name": "diagnosis"}
    assert drawn(named) == drawn(inline)
    assert named["title"] == inline["title"]
    cells = {(row["system"], row["quadrant"]): row for row in inline["data"]["values"]}
    for row in diagnosis.counts.iter_rows(named=True):
        if row["quadrant"] is not None:
            assert cells[(row["system"], row["quadrant"])]["n_queries"] == row["n_queries"]
    unclassified = diagnosis.counts.filter(pl.col("quadrant").is_null(), pl.col("n_queries") > 0)
    for row in unclassified.iter_rows(named=True):
        assert cells[(row["system"], charts.UNCLASSIFIED)]["share"] is None


def test_a_picked_cell_is_outlined_on_a_page_that_acts_on_clicks(
    diagnosis: rankset.Diagnosis,
) -> None:
    plain = charts.diagnostic_matrix(diagnosis).to_dict()
    assert "stroke" not in plain["layer"][0]["encoding"]
    assert "cursor" not in plain["layer"][0]["mark"]
    picked = charts.diagnostic_matrix(diagnosis, picked="datum.system === 'bm25'").to_dict()
    stroke = picked["layer"][0]["encoding"]["stroke"]
    assert stroke["condition"][0] == {"test": "datum.system === 'bm25'", "value": "#1f2328"}
    assert picked["layer"][0]["mark"]["cursor"] == "pointer"


def test_the_history_from_a_dataset_is_the_inlined_history() -> None:
    colors = charts.system_colors(["a", "b"])
    # a store's history (a page reads one) has the tests of its steps, which a ring marks
    stepped = history_frame().with_columns(p_step=pl.lit(None, dtype=pl.Float64))
    inline = charts.history_chart(stepped, "ndcg@10", colors=colors).to_dict()
    metric = alt.param(name="metric", value="ndcg@10")
    named = charts.history_chart("history", metric, colors=colors).to_dict()
    assert named["data"] == {"name": "history"}
    assert named["transform"] == [{"filter": "datum.metric === metric"}]
    assert "metric" in params(named)
    assert drawn(named) == drawn(inline)
    assert inline["title"] == "ndcg@10 over logged entries"
    assert named["title"]["text"] == {"expr": "metric + ' over logged entries'"}


def test_the_history_chart_checks_its_frame_as_the_store_s_did() -> None:
    frame = history_frame()
    with pytest.raises(ParameterError, match="has no metric"):
        charts.history_chart(frame, "ap")
    with pytest.raises(rankset.errors.SchemaError, match=r"Store\.history"):
        charts.history_chart(frame.drop("time"), "ndcg@10")
    with pytest.raises(ParameterError, match="needs its 'metric'"):
        charts.history_chart("history")
    two = pl.concat([frame, frame.with_columns(metric=pl.lit("ap"))])
    with pytest.raises(ParameterError, match="pick one"):
        charts.history_chart(two)
    # a parameter keeps every metric's rows inlined, for the page to switch between
    spec = charts.history_chart(two, alt.param(name="metric", value="ap")).to_dict()
    assert {row["metric"] for row in spec["data"]["values"]} == {"ndcg@10", "ap"}


def test_the_suite_heatmap_from_a_dataset_is_the_inlined_one() -> None:
    frame = pl.DataFrame(
        {"collection": ["c1", "c1", "c2", "c2"], "system": ["a", "b", "a", "b"],
         "metric": "harm@5", "mean": [0.1, 0.3, 0.2, 0.0], "rank": [1.0, 2.0, 2.0, 1.0]}
    )  # fmt: skip
    inline = charts.suite_heatmap(frame, "harm@5").to_dict()
    metric = alt.param(name="metric", value="harm@5")
    lower = alt.param(name="lower", value=True)
    named = charts.suite_heatmap(
        "collections", metric, collections=["c1", "c2"], lower=lower
    ).to_dict()
    assert named["data"] == {"name": "collections"}
    assert params(named) == {"metric", "lower"}
    assert named["layer"][0]["encoding"]["color"]["scale"]["reverse"] == {"expr": "lower"}
    assert inline["layer"][0]["encoding"]["color"]["scale"]["reverse"] is True
    strip = [  # the colours' direction and the rows' order come from elsewhere in a page
        (mark, {c: v if c not in ("color", "y") else v[:2] for c, v in channels.items()})
        for mark, channels in drawn(inline)
    ]
    assert strip == [
        (mark, {c: v if c not in ("color", "y") else v[:2] for c, v in channels.items()})
        for mark, channels in drawn(named)
    ]
    with pytest.raises(ParameterError, match="'collections'"):
        charts.suite_heatmap("collections", metric)


def test_a_metric_parameter_must_start_at_a_metric() -> None:
    with pytest.raises(ParameterError, match="must start at a metric name"):
        charts.curves_chart("curves", metrics=alt.param(name="measure", value=3))
