"""Chart builders: assertions on ``chart.to_dict()`` (never on pixels), and export."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import altair as alt
import polars as pl
import pytest

import rankset
from rankset import charts
from rankset.errors import MissingDependencyError, ParameterError

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
RUNS = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")]
QRELS = str(SAMPLE / "qrels.txt")
HAS_VL_CONVERT = importlib.util.find_spec("vl_convert") is not None
needs_vl_convert = pytest.mark.skipif(
    not HAS_VL_CONVERT, reason="vl-convert-python is not installed (rankset[render])"
)
EVIL = "</script><script>alert(1)</script>"


# --- inputs built with the real API ------------------------------------------------------


@pytest.fixture(scope="module")
def result() -> rankset.EvaluationResult:
    return rankset.evaluate(RUNS, QRELS, ["ndcg@10", "ap", "harm@5"], scale="trec_dl")


@pytest.fixture(scope="module")
def comparison(result: rankset.EvaluationResult) -> pl.DataFrame:
    return rankset.compare(result, baseline="bm25", tests=("randomization",), n_resamples=500)


@pytest.fixture(scope="module")
def curves() -> rankset.Curves:
    return rankset.curves(RUNS, QRELS, measures=("ndcg", "recall"), ks=10, scale="trec_dl")


@pytest.fixture(scope="module")
def diagnosis() -> rankset.Diagnosis:
    return rankset.diagnose(RUNS, QRELS, k=5, scale="trec_dl")


def layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The unit specs of a (faceted) layer chart."""
    inner = spec.get("spec", spec)
    return list(inner.get("layer", [inner]))


def mark(layer: dict[str, Any]) -> str:
    value = layer["mark"]
    return value if isinstance(value, str) else value["type"]


def tooltip_fields(layer: dict[str, Any]) -> list[str]:
    return [tip["field"] for tip in layer["encoding"]["tooltip"]]


# --- theme and colours -------------------------------------------------------------------


def test_theme_is_registered_but_not_enabled_by_import() -> None:
    code = (
        "import altair as alt; import rankset.charts; "
        "print(alt.theme.active, 'rankset' in alt.theme.names())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert out == ["default", "True"]


def test_enabled_theme_applies_the_palette() -> None:
    chart = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q")
    with alt.theme.enable(charts.THEME):
        config = chart.to_dict()["config"]
    assert config["range"]["category"] == list(charts.PALETTE)
    assert alt.theme.active == "default"


def test_system_colors_are_stable_and_sorted() -> None:
    first = charts.system_colors(["zeta", "alpha", "mid"]).to_dict()
    second = charts.system_colors(["mid", "zeta", "alpha", "alpha"]).to_dict()
    assert first == second
    assert first["domain"] == ["alpha", "mid", "zeta"]
    assert first["range"] == list(charts.PALETTE[:3])


# --- builders ----------------------------------------------------------------------------


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
    assert spec["facet"]["column"]["field"] == "system"
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
    assert spec["facet"]["column"]["field"] == "system"
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


# --- size limits -------------------------------------------------------------------------


def big_per_query(n_queries: int, systems: tuple[str, ...] = ("a", "b")) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "system": [s for s in systems for _ in range(n_queries)],
            "query_id": [f"q{i}" for _ in systems for i in range(n_queries)],
            "metric": "ndcg@10",
            "value": [(i % 97) / 97 for _ in systems for i in range(n_queries)],
        }
    )


def test_twenty_thousand_rows_build_without_max_rows_error() -> None:
    frame = big_per_query(10_000)
    spec = charts.distribution_chart(frame, "ndcg@10").to_dict()
    assert len(spec["data"]["values"]) == 20_000
    spec = charts.difference_chart(frame, "ndcg@10", "a").to_dict()
    assert len(spec["data"]["values"]) == 10_000
    assert alt.data_transformers.active == "default"


def test_over_max_rows_is_a_clear_error() -> None:
    frame = big_per_query(600)
    with pytest.raises(ParameterError, match=r"1,200 rows, above max_rows=1,000.*max_rows="):
        charts.distribution_chart(frame, "ndcg@10", max_rows=1_000)


def test_nan_becomes_null() -> None:
    frame = big_per_query(3).with_columns(pl.lit(float("nan")).alias("extra"))
    data = charts._data(frame, 10, "test")
    assert all(row["extra"] is None for row in data.to_dict()["values"])


# --- export ------------------------------------------------------------------------------


def small_chart(query_id: str = "q1") -> alt.TopLevelMixin:
    per_query = pl.DataFrame(
        {
            "system": ["a", "b"],
            "query_id": [query_id, query_id],
            "metric": "ap",
            "value": [0.2, 0.4],
        }
    )
    return charts.distribution_chart(per_query, "ap")


def test_embed_fragment_escapes_script_breakout() -> None:
    fragment = charts.embed_fragment(small_chart(EVIL), "chart-1")
    assert EVIL not in fragment
    assert fragment.count("<script") == 1
    assert fragment.count("</script>") == 1
    assert "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)" in fragment
    match = re.search(r"vegaEmbed\(document\.getElementById\(\"chart-1\"\), (.*?), \{", fragment)
    assert match is not None
    assert json.loads(match.group(1))["data"]["values"][0]["query_id"] == EVIL


def test_embed_fragment_rejects_bad_element_id() -> None:
    with pytest.raises(ParameterError, match="element_id"):
        charts.embed_fragment(small_chart(), 'x" onload="alert(1)')


def test_save_chart_json(tmp_path: Path) -> None:
    out = charts.save_chart(small_chart(), tmp_path / "chart.json")
    assert json.loads(out.read_text())["title"]["text"] == "ap per query"


def test_save_chart_rejects_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="extensions"):
        charts.save_chart(small_chart(), tmp_path / "chart.gif")
    with pytest.raises(ParameterError, match="'format' parameter"):
        charts.save_chart(small_chart(), tmp_path / "chart.x", format="gif")  # type: ignore[arg-type]


def test_missing_vl_convert_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "vl_convert", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "rankset\[render\]"'):
        charts.save_chart(small_chart(), tmp_path / "chart.png")
    assert not (tmp_path / "chart.png").exists()


@needs_vl_convert
def test_save_chart_html_is_self_contained(tmp_path: Path) -> None:
    out = charts.save_chart(small_chart(EVIL), tmp_path / "chart.html")
    text = out.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]*\bsrc=", text)
    assert "https://cdn" not in text
    assert "vegaEmbed" in text
    assert "window.vegaEmbed" in text  # the library itself, not only a call to it
    assert EVIL not in text


@needs_vl_convert
def test_several_charts_share_one_bundle() -> None:
    bundle = charts.javascript_bundle()
    assert "</script" not in bundle.lower()
    page = "".join(
        [f"<script>{bundle}</script>"]
        + [charts.embed_fragment(small_chart(), f"c{i}") for i in range(3)]
    )
    assert page.count("window.vegaEmbed") == 1
    assert all(f'<div id="c{i}"' in page for i in range(3))
    assert "window.vegaEmbed" in charts.inline_html(small_chart())


@needs_vl_convert
def test_save_chart_svg_and_png(tmp_path: Path, curves: rankset.Curves) -> None:
    chart = charts.curves_chart(curves)
    svg = charts.save_chart(chart, tmp_path / "curves.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<svg")
    png = charts.save_chart(chart, tmp_path / "curves.png", scale=1.0).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    forced = charts.save_chart(chart, tmp_path / "curves.out", format="svg")
    assert forced.read_text(encoding="utf-8").lstrip().startswith("<svg")
