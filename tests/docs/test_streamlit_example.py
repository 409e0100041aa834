"""The Streamlit app of ``docs/dashboards-in-your-app.md`` runs, with Streamlit's test client.

The app is taken from the page itself (the ``python`` block after the ``streamlit-app``
comment), so the test runs the code a reader copies. ``streamlit.testing.v1.AppTest`` runs
the script without a browser or a server and gives its elements; each interaction reruns it,
as a reader's click would.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("streamlit", reason="streamlit is not installed (pip install streamlit)")

from streamlit.testing.v1 import AppTest

# starts Streamlit's script runner and evaluates the sample: the fast lane leaves it out
pytestmark = [
    pytest.mark.slow,
    # Streamlit's runtime, in bare mode, may warn about its own internals
    pytest.mark.filterwarnings("ignore::DeprecationWarning:streamlit.*"),
]

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "dashboards-in-your-app.md"
_BLOCK = re.compile(r"<!-- streamlit-app:[^>]*-->\n```python\n(.*?)```", re.DOTALL)


def _app_code() -> str:
    found = _BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert len(found) == 1, "the page holds one block marked <!-- streamlit-app -->"
    return found[0]


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.chdir(ROOT)  # the app names data/sample/... from the repository's root
    return AppTest.from_string(_app_code(), default_timeout=120).run()


def _charts(app: AppTest) -> list[dict[str, object]]:
    return [json.loads(chart.proto.spec) for chart in app.get("vega_lite_chart")]


def test_the_example_is_about_thirty_lines() -> None:
    lines = [line for line in _app_code().splitlines() if line.strip()]
    assert 20 <= len(lines) <= 35


def test_the_app_draws_the_curves_the_differences_and_the_table(app: AppTest) -> None:
    assert not app.exception
    assert app.title[0].value == "bm25 against its reranking"
    assert app.multiselect[0].value == ["bm25", "rerank"]
    assert app.selectbox[0].value == "bm25"  # the baseline
    assert app.selectbox[1].value == "ndcg@10"
    titles = [str(spec.get("title")) for spec in _charts(app)]
    assert len(titles) == 2
    assert "Metrics by cutoff" in titles[0]
    assert "ndcg@10: per-query difference from bm25" in titles[1]
    table = app.dataframe[0].value
    assert list(table.columns) == ["query_id", "bm25", "rerank"]
    assert len(table) == 40  # the sample's queries
    assert table["bm25"].is_monotonic_increasing  # the baseline's worst queries first


def test_the_app_follows_the_metric_and_the_systems_picked(app: AppTest) -> None:
    app.selectbox[1].select("ap").run()
    assert not app.exception
    assert "ap: per-query difference from bm25" in str(_charts(app)[1].get("title"))
    ap = app.dataframe[0].value
    assert ap["bm25"].between(0, 1).all()
    assert ap["rerank"].mean() == pytest.approx(0.3694, abs=1e-4)  # the Report page's mean

    app.selectbox[0].select("rerank").run()  # the reranking as the baseline
    assert not app.exception
    assert "difference from rerank" in str(_charts(app)[1].get("title"))

    app.multiselect[0].unselect("rerank").run()  # the baseline alone: no difference to draw
    assert not app.exception
    assert len(_charts(app)) == 1
    assert list(app.dataframe[0].value.columns) == ["query_id", "bm25"]

    app.multiselect[0].unselect("bm25").run()  # nothing picked: the title alone
    assert not app.exception
    assert len(app.get("vega_lite_chart")) == 0
    assert len(app.dataframe) == 0
