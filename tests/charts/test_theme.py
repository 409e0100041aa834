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


def test_system_colors_are_stable_and_sorted() -> None:
    first = charts.system_colors(["zeta", "alpha", "mid"]).to_dict()
    second = charts.system_colors(["mid", "zeta", "alpha", "alpha"]).to_dict()
    assert first == second
    assert first["domain"] == ["alpha", "mid", "zeta"]
    assert first["range"] == list(charts.PALETTE[:3])
