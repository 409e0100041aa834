"""A system keeps its colour in every chart of both pages (issue #46).

The rule: one colour scale per page, :func:`rankset.charts.system_colors` of the analysis's
systems in the analysis's order (the domain every system, the range the palette in
order), used by every chart that colours by system, a chart showing some systems only
(the comparison chart leaves out the baseline) included. The tests read the Vega-Lite
specs both pages embed, so they hold whatever the charts' builders are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset
from rankset.charts import PALETTE

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
# Not in sorted order: a rule that sorted the names would give bm25 the first colour.
RUNS = {"rerank": str(SAMPLE / "rerank.trec"), "bm25": str(SAMPLE / "bm25.trec")}
# The colours the rule gives them.
EXPECTED = {"rerank": PALETTE[0], "bm25": PALETTE[1]}
# Encoding channels that can colour a mark by system.
_CHANNELS = ("color", "fill", "stroke")
_REPORT_CHART = re.compile(r'vegaEmbed\(document\.getElementById\("([^"]+)"\), ')
_DASHBOARD_SPECS = re.compile(
    r'<script type="application/json" id="rankset-specs">(.*?)</script>', re.S
)


def _history() -> pl.DataFrame:
    """Two logged entries of both systems (means written by hand), bm25 logged first."""
    rows = [
        {"entry_id": entry, "time": datetime(2026, 11, day, 9, tzinfo=UTC), "tag": "main",
         "system": system, "metric": "ndcg@10", "mean": mean,
         "ci_low": mean - 0.04, "ci_high": mean + 0.04}
        for entry, day in (("a", 1), ("b", 8))
        for system, mean in (("bm25", 0.41), ("rerank", 0.52))
    ]  # fmt: skip
    return pl.DataFrame(rows)


@pytest.fixture(scope="module")
def analysis() -> rankset.pages.Analysis:
    return rankset.analyse(
        RUNS,
        str(SAMPLE / "qrels.txt"),
        metrics=["ndcg@10", "ap"],
        scale="trec_dl",
        n_resamples=200,
        history=_history(),
        progress=False,
    )


@pytest.fixture(scope="module")
def report_specs(analysis: rankset.pages.Analysis) -> dict[str, dict[str, Any]]:
    """The spec of every chart of the report, by its element id."""
    page = rankset.report(analysis).html
    specs = {}
    decoder = json.JSONDecoder()
    for found in _REPORT_CHART.finditer(page):
        spec, _ = decoder.raw_decode(page, found.end())
        specs[found.group(1)] = spec
    return specs


@pytest.fixture(scope="module")
def dashboard_specs(analysis: rankset.pages.Analysis) -> dict[str, dict[str, Any]]:
    """The spec of every chart of the dashboard, by the name the script knows it by."""
    found = _DASHBOARD_SPECS.search(rankset.dashboard(analysis).html)
    assert found is not None, "the dashboard embeds no rankset-specs element"
    specs: dict[str, dict[str, Any]] = json.loads(found.group(1))
    return specs


def system_encodings(spec: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield every colour channel's field definition that encodes ``system``, with a path."""
    if isinstance(spec, list):
        for number, item in enumerate(spec):
            yield from system_encodings(item, f"{where}[{number}]")
        return
    if not isinstance(spec, dict):
        return
    for key, value in spec.items():
        if key == "encoding" and isinstance(value, dict):
            for channel in _CHANNELS:
                yield from _field_definitions(value.get(channel), f"{where}.{channel}")
        yield from system_encodings(value, f"{where}.{key}")


def _field_definitions(definition: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(definition, list):  # a list of conditions
        for item in definition:
            yield from _field_definitions(item, where)
    elif isinstance(definition, dict):
        if definition.get("field") == "system":
            yield where, definition
        yield from _field_definitions(definition.get("condition"), f"{where}.condition")


def mapping(definition: dict[str, Any]) -> dict[str, str] | None:
    """The system → colour mapping of a field definition's scale (None: none fixed)."""
    scale = definition.get("scale") or {}
    domain, colours = scale.get("domain"), scale.get("range")
    if not (isinstance(domain, list) and isinstance(colours, list)):
        return None  # left to Vega: colours by the order the data comes in
    return dict(zip(domain, colours, strict=False))


def colour_maps(specs: dict[str, dict[str, Any]]) -> dict[str, dict[str, str] | None]:
    return {
        f"{name}{where}": mapping(definition)
        for name, spec in specs.items()
        for where, definition in system_encodings(spec)
    }


def test_the_rule_follows_the_analysis_order(analysis: rankset.pages.Analysis) -> None:
    assert analysis.systems == list(RUNS)
    scale = rankset.charts.system_colors(analysis.systems).to_dict()
    assert dict(zip(scale["domain"], scale["range"], strict=True)) == EXPECTED


def test_every_system_colour_of_both_pages_is_the_analysis_colour(
    report_specs: dict[str, dict[str, Any]], dashboard_specs: dict[str, dict[str, Any]]
) -> None:
    report = {
        name: spec
        for name, spec in report_specs.items()
        if not name.startswith("chart-history-")  # see the next test
    }
    found = {
        **{f"report {key}": value for key, value in colour_maps(report).items()},
        **{f"dashboard {key}": value for key, value in colour_maps(dashboard_specs).items()},
    }
    # Not vacuous: the charts that colour by system are all there.
    charted = {key.split(".")[0] for key in found}
    assert {
        "report chart-distribution",
        "report chart-comparison",
        "report chart-curves",
        "dashboard summary",
        "dashboard curves",
        "dashboard history",
    } <= charted, sorted(charted)
    wrong = {key: value for key, value in found.items() if value != EXPECTED}
    assert not wrong, f"colour scales of system that are not {EXPECTED}: {wrong}"


def test_the_report_history_charts_colour_systems_as_the_other_charts(
    report_specs: dict[str, dict[str, Any]],
) -> None:
    history = {name: spec for name, spec in report_specs.items() if name.startswith("chart-")}
    history = {name: spec for name, spec in history.items() if "history" in name}
    found = colour_maps(history)
    assert found
    assert all(value == EXPECTED for value in found.values()), found
