"""Export: JSON, self-contained HTML, PNG and SVG, and escaping inside <script>."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import altair as alt
import polars as pl
import pytest

import rankset
from rankset import charts
from rankset.errors import MissingDependencyError, ParameterError

HAS_VL_CONVERT = importlib.util.find_spec("vl_convert") is not None
needs_vl_convert = pytest.mark.skipif(
    not HAS_VL_CONVERT, reason="vl-convert-python is not installed (rankset[render])"
)
EVIL = "</script><script>alert(1)</script>"


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


def test_save_chart_html_is_self_contained(tmp_path: Path) -> None:
    out = charts.save_chart(small_chart(EVIL), tmp_path / "chart.html")
    text = out.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]*\bsrc=", text)
    assert "https://cdn" not in text
    assert "vegaEmbed(" in text
    assert charts.javascript_bundle() in text  # the library itself, not only a call to it
    assert EVIL not in text


def test_several_charts_share_one_bundle() -> None:
    bundle = charts.javascript_bundle()
    assert "</script" not in bundle.lower()
    page = "".join(
        [f"<script>{bundle}</script>"]
        + [charts.embed_fragment(small_chart(), f"c{i}") for i in range(3)]
    )
    assert page.count(bundle) == 1
    assert all(f'<div id="c{i}"' in page for i in range(3))
    assert bundle in charts.inline_html(small_chart())


@needs_vl_convert
def test_save_chart_svg_and_png(tmp_path: Path, curves: rankset.Curves) -> None:
    chart = charts.curves_chart(curves)
    svg = charts.save_chart(chart, tmp_path / "curves.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<svg")
    png = charts.save_chart(chart, tmp_path / "curves.png", scale=1.0).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    forced = charts.save_chart(chart, tmp_path / "curves.out", format="svg")
    assert forced.read_text(encoding="utf-8").lstrip().startswith("<svg")


def _five_system_diagnosis() -> pl.DataFrame:
    """Per-query diagnosis rows of five systems: both charts wrap them to two rows."""
    return pl.DataFrame(
        {
            "system": [f"s{i}" for i in range(5) for _ in range(2)],
            "query_id": ["q1", "q2"] * 5,
            "k": 5,
            "ra_nwg": [0.9, 0.2] * 5,
            "proc": [1.0, 0.9] * 5,
            "pct_proc": [0.9, 0.2] * 5,
            "quadrant": ["healthy", "reranking miss"] * 5,
        }
    )


@pytest.mark.skipif(not HAS_VL_CONVERT, reason="vl-convert is not installed")
@pytest.mark.parametrize(
    "draw", [charts.diagnostic_scatter, charts.diagnostic_heatmap], ids=["scatter", "heatmap"]
)
def test_wrapped_panels_draw_one_x_axis_each_and_none_under_empty_cells(draw: Any) -> None:
    # Five systems wrap to a second row with empty cells; the shared x axes of a wrapped
    # facet used to be drawn under those empty cells too.
    import vl_convert

    svg = vl_convert.vegalite_to_svg(draw(_five_system_diagnosis()).to_dict())
    axis_titles = re.findall(r">PROC@5(?: \(threshold [\d.]+\))?</text>", svg)
    assert len(axis_titles) == 5
