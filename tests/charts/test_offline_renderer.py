"""charts.enable_offline(): the library once per notebook, each chart a small output."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import altair as alt
import polars as pl
import pytest

from _support.browser import chromium, descendants, load
from rankset import charts
from rankset.charts import _export

EVIL = "</script><script>alert(1)</script>"
needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="chromium is not on PATH (Debian: apt-get install -y chromium)"
)


def small_chart(query_id: str = "q1") -> alt.TopLevelMixin:
    per_query = pl.DataFrame(
        {"system": ["a", "b"], "query_id": [query_id] * 2, "metric": "ap", "value": [0.2, 0.4]}
    )
    return charts.distribution_chart(per_query, "ap")


@pytest.fixture
def renderer() -> Iterator[None]:
    before = alt.renderers.active
    yield
    alt.renderers.enable(before)


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str]]:
    """What enable_offline displays, as if it ran in an IPython kernel."""
    import IPython
    import IPython.display

    outputs: list[dict[str, str]] = []

    def display(bundle: dict[str, str], *, raw: bool = False) -> None:
        assert raw
        outputs.append(bundle)

    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", display)
    return outputs


def _html(chart: alt.TopLevelMixin) -> str:
    bundle: Any = chart._repr_mimebundle_(None, None)
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    return str(data["text/html"])


def test_the_library_is_displayed_once_and_charts_stay_small(
    renderer: None, shown: list[dict[str, str]]
) -> None:
    charts.enable_offline()
    assert alt.renderers.active == "rankset_offline"
    assert len(shown) == 1
    library = shown[0]["text/html"]
    assert charts.javascript_bundle() in library
    assert _export.LIBRARY_MARKER in library
    assert "loaded" in shown[0]["text/plain"]
    outputs = [_html(small_chart(f"q{i}")) for i in range(5)]
    for html in outputs:
        assert len(html) < 20_000  # the spec and a few lines: not the 0.8 MB library
        assert "vegaEmbed" in html
        assert "cdn" not in html
        assert _export.LIBRARY_MARKER not in html
    ids = [re.search(r'<div id="(rankset-chart-[\w-]+)"', html) for html in outputs]
    assert len({match.group(1) for match in ids if match}) == 5  # one target per output


def test_a_chart_output_escapes_its_data(renderer: None, shown: list[dict[str, str]]) -> None:
    charts.enable_offline()
    html = _html(small_chart(EVIL))
    assert EVIL not in html
    assert html.count("</script>") == 1
    spec = re.search(r"var spec = (.*);\n", html)
    assert spec is not None
    assert json.loads(spec.group(1))["data"]["values"][0]["query_id"] == EVIL


def test_outside_ipython_nothing_is_displayed(renderer: None, capsys: Any) -> None:
    charts.enable_offline()
    assert alt.renderers.active == "rankset_offline"
    assert capsys.readouterr().out == ""


def test_once_false_puts_the_library_in_every_chart(
    renderer: None, shown: list[dict[str, str]]
) -> None:
    charts.enable_offline(once=False)
    assert shown == []
    for _ in range(2):
        assert charts.javascript_bundle() in _html(small_chart())


@needs_chromium
def test_five_charts_draw_from_one_library(
    renderer: None, shown: list[dict[str, str]], tmp_path: Path
) -> None:
    charts.enable_offline()
    outputs = [_html(small_chart(f"q{i}")) for i in range(5)]
    # the library's output first, as in a notebook; each output in its own div
    body = "\n".join(f"<div class='output'>{html}</div>" for html in [shown[0]["text/html"]])
    body += "\n".join(f"<div class='output'>{html}</div>" for html in outputs)
    page = tmp_path / "notebook.html"
    page.write_text(f"<!DOCTYPE html><html><body>{body}</body></html>", encoding="utf-8")
    ids = set(re.findall(r'<div id="(rankset-chart-[\w-]+)"', body))
    assert len(ids) == 5
    got = load(page)
    assert [url for url in got.page_requests if not url.startswith(("file:", "data:"))] == []
    drawn = descendants(got.dom, ids)
    for element_id in ids:
        assert "svg" in drawn.get(element_id, []), f"{element_id} did not draw"
