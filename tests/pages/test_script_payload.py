"""The data contract between Python and the dashboard's script, without a browser.

The page's embedded data (``<script type="application/json" id="rankset-data">``), the
TypedDict that documents it (``rankset.pages.dashboard._payload.DashboardData``) and the
keys the script reads (``PAYLOAD_KEYS`` in ``dashboard_core.js``) must name the same keys.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rankset.pages import dashboard as dashboards
from rankset.pages._shell import asset
from rankset.pages.dashboard import FORMAT_VERSION
from rankset.pages.dashboard._payload import DashboardData, payload_keys

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
CORE = ROOT / "src" / "rankset" / "pages" / "assets" / "dashboard_core.js"
_DATA = re.compile(r'<script type="application/json" id="rankset-data">(.*?)</script>', re.S)


def embedded_data(page: str) -> dict[str, Any]:
    found = _DATA.search(page)
    assert found is not None, "the page holds no rankset-data element"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def script_keys_by_regex(source: str) -> list[str]:
    """``PAYLOAD_KEYS`` read from the script's text (when there is no node)."""
    found = re.search(r"\bvar PAYLOAD_KEYS = \[(.*?)\];", source, re.S)
    assert found is not None, "dashboard_core.js declares no PAYLOAD_KEYS array"
    return re.findall(r'"([^"\\]*)"', found.group(1))


def script_keys() -> list[str]:
    """``PAYLOAD_KEYS`` as the script exports it (node), else as its text reads."""
    node = shutil.which("node")
    if node is None:
        return script_keys_by_regex(asset("dashboard_core.js"))
    done = subprocess.run(
        [node, "-e", f"console.log(JSON.stringify(require({json.dumps(str(CORE))}).PAYLOAD_KEYS))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    keys: list[str] = json.loads(done.stdout)
    return keys


def mismatch(page: set[str], typed: set[str], script: set[str]) -> dict[str, list[str]]:
    """What each side lacks that another has (empty when the three agree)."""
    every = page | typed | script
    sides = {"page": page, "DashboardData": typed, "PAYLOAD_KEYS": script}
    return {name: sorted(every - keys) for name, keys in sides.items() if every - keys}


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    board = dashboards.dashboard(
        {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"},
        SAMPLE / "qrels.txt",
        scale="trec_dl",
        n_resamples=200,
    )
    return embedded_data(board.html)


def test_the_page_the_typeddict_and_the_script_name_the_same_keys(data: dict[str, Any]) -> None:
    typed = payload_keys()
    script = script_keys()
    assert len(set(script)) == len(script), "PAYLOAD_KEYS repeats a key"
    assert mismatch(set(data), set(typed), set(script)) == {}
    assert set(data) == set(DashboardData.__required_keys__)


def test_the_script_reads_the_layout_version_python_writes(data: dict[str, Any]) -> None:
    assert data["version"] == FORMAT_VERSION
    declared = re.search(r"\bvar FORMAT_VERSION = (\d+);", asset("dashboard_core.js"))
    assert declared is not None
    assert int(declared.group(1)) == FORMAT_VERSION


def test_the_sample_block_is_as_declared(data: dict[str, Any]) -> None:
    from rankset.pages.dashboard._payload import SampleInfo

    assert set(data["sample"]) == set(SampleInfo.__annotations__)


def test_a_key_dropped_or_added_on_any_side_is_caught(data: dict[str, Any]) -> None:
    page, typed, script = set(data), set(payload_keys()), set(script_keys())
    assert mismatch(page - {"rankings"}, typed, script) == {"page": ["rankings"]}
    assert mismatch(page, typed - {"texts"}, script) == {"DashboardData": ["texts"]}
    assert mismatch(page | {"extra"}, typed, script) == {
        "DashboardData": ["extra"],
        "PAYLOAD_KEYS": ["extra"],
    }


def test_the_regex_reads_what_node_reads() -> None:
    by_regex = script_keys_by_regex(asset("dashboard_core.js"))
    assert by_regex == payload_keys() or set(by_regex) == set(payload_keys())
    if shutil.which("node") is not None:
        assert by_regex == script_keys()
