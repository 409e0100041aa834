"""The "rankset" theme and the stable colour of each system."""

from __future__ import annotations

import subprocess
import sys

import altair as alt

from rankset import charts


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


def test_system_colors_follow_the_order_given() -> None:
    # The analysis's order sets the colours: its first system (the baseline) is blue.
    first = charts.system_colors(["zeta", "alpha", "mid"]).to_dict()
    again = charts.system_colors(["zeta", "alpha", "zeta", "mid", "alpha"]).to_dict()
    assert first == again
    assert first["domain"] == ["zeta", "alpha", "mid"]
    assert first["range"] == list(charts.PALETTE[:3])
    many = charts.system_colors([f"s{i}" for i in range(len(charts.PALETTE) + 1)]).to_dict()
    assert many["range"][-1] == charts.PALETTE[0]  # beyond the palette, colours repeat
