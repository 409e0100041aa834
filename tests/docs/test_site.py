"""The documentation site builds without a warning, and every page works offline.

``mkdocs build --strict`` (the site in ``mkdocs.yml``: the task pages, the measure table,
the API reference from the docstrings, the notebooks executed and rendered) must succeed;
strict mode turns every warning (a broken link, a page missing from the nav, a docstring
mkdocstrings cannot read) into a failure. Then each page is opened in headless Chromium
from disk:

* no page makes a request that leaves it (no web font, no CDN script);
* every chart of every rendered notebook draws (an ``svg`` inside its element);
* every page named in the nav exists, every public name of ``rankset`` has its entry in
  the API reference, and the measure page lists every registered measure.

The build runs in a temporary folder, so the checkout keeps no ``site/`` or cache.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rankset
from _support.browser import chromium, descendants, load

pytest.importorskip("mkdocs", reason="the docs extra (mkdocs) is not installed")
pytest.importorskip("mkdocs_jupyter", reason="mkdocs-jupyter is not installed")

# builds the docs site, opens it in Chromium: the fast lane (-m 'not slow') leaves it out
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL_TAG = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//")
needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="chromium is not on PATH (Debian: apt-get install -y chromium)"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("site")
    out = work / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    config = str(ROOT / "mkdocs.yml")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config, "-d", str(out)],
        cwd=work,  # mkdocs-jupyter's cache goes here, not into the checkout
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    assert "WARNING" not in done.stderr.replace("[IPKernelApp] WARNING", "")
    return out


def _pages(site: Path) -> list[Path]:
    return sorted(
        page
        for page in site.rglob("*.html")
        if page.name != "404.html" and "search" not in page.parts
    )


def _nav_pages() -> list[str]:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text.split("\nnav:\n", 1)[1]
    return re.findall(r":\s+(\S+\.(?:md|ipynb))\s*$", nav, flags=re.MULTILINE)


def test_every_page_of_the_nav_is_built(site: Path) -> None:
    pages = _nav_pages()
    assert len(pages) >= 25
    for source in pages:
        built = site / re.sub(r"\.(md|ipynb)$", ".html", source)
        assert built.is_file(), f"{source} was not built"


def test_the_api_reference_documents_every_public_name(site: Path) -> None:
    html = (site / "api" / "rankset.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="(rankset\.[\w.]+)"', html))
    missing = [name for name in rankset.__all__ if name != "__version__"]
    missing = [name for name in missing if f"rankset.{name}" not in anchors]
    assert missing == []
    for page in sorted((site / "api").glob("*.html")):  # Sphinx roles read as plain code
        assert re.search(r":(func|class|meth|data):<code>", page.read_text("utf-8")) is None


def test_the_measures_page_lists_every_registered_measure(site: Path) -> None:
    html = (site / "measures.html").read_text(encoding="utf-8")
    for name in rankset.available_measures():
        assert f"<code>{name}" in html, name


@needs_chromium
def test_every_page_loads_offline_and_every_notebook_chart_draws(site: Path) -> None:
    pages = _pages(site)
    assert len(pages) >= 25
    charts = 0
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert EXTERNAL_TAG.search(html) is None, page  # no script, style or font fetched
        got = load(page)
        left = [url for url in got.page_requests if not url.startswith(("file:", "data:"))]
        assert left == [], f"{page.relative_to(site)} requested {left}"
        ids = set(re.findall(r'<div [^>]*id="(rankset-chart-[\w-]+)"', html))
        drawn = descendants(got.dom, ids)
        for element_id in ids:
            assert "svg" in drawn.get(element_id, []), f"{page.name}: {element_id} did not draw"
        charts += len(ids)
    # notebook 02 draws 4 charts, 03 draws 2, 04 draws 3 (tests/docs/test_notebooks.py)
    assert charts == 9
