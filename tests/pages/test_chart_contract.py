"""The dashboard's chart specs hold the datasets and parameters its script drives.

The script (``rankset/pages/assets/dashboard_*.js``) fills each chart's dataset, named as
the chart is, and sets parameters by name (``setSignal("curves", "k", ...)``); a builder
that renamed one would leave a chart empty or frozen without an error. The names are read
from the script, so a new call there is checked too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import pytest

from rankset.pages.dashboard._charts import CHART_IDS, chart_specs

_SET_SIGNAL = re.compile(r'\bsetSignal\("(\w+)", "(\w+)"')
_SET_DATA = re.compile(r'\bsetData\("(\w+)", "(\w+)"')


def script() -> str:
    assets = files("rankset.pages").joinpath("assets")
    return "\n".join(
        assets.joinpath(name).read_text(encoding="utf-8")
        for name in ("dashboard_core.js", "dashboard_page.js", "dashboard_views.js")
    )


@pytest.fixture(scope="module")
def specs() -> dict[str, dict[str, Any]]:
    return chart_specs(
        ["rerank", "bm25"],
        metric="ndcg@10",
        measure="ndcg",
        baseline="rerank",
        k=10,
        diagnosis_k=10,
        history=True,
        collections=["one", "two"],
        judges=True,
        calibration=True,
        costs=["latency_ms", "tokens_in"],
    )


def datasets(spec: Any) -> Iterator[dict[str, Any]]:
    if isinstance(spec, list):
        for item in spec:
            yield from datasets(item)
    elif isinstance(spec, dict):
        for key, value in spec.items():
            if key == "data" and isinstance(value, dict):
                yield value
            else:
                yield from datasets(value)


def test_every_chart_reads_only_the_dataset_named_as_it_is(
    specs: dict[str, dict[str, Any]],
) -> None:
    assert set(specs) == set(CHART_IDS)
    for name, spec in specs.items():
        found = list(datasets(spec))
        assert found, name
        assert all(data == {"name": name} for data in found), (name, found)
    for chart, dataset in _SET_DATA.findall(script()):
        assert chart == dataset


def test_every_parameter_the_script_sets_is_in_its_chart(
    specs: dict[str, dict[str, Any]],
) -> None:
    calls = _SET_SIGNAL.findall(script())
    assert len(calls) >= 10  # the script's calls were found
    for chart, signal in calls:
        names = {param["name"] for param in specs[chart].get("params", [])}
        assert signal in names, f"{chart} has no parameter {signal!r} (it has {names})"
