"""The pictures of the docs: every one is shown by a page, every one shown exists.

``docs/examples/make_images.py`` draws the chart pictures from the bundled sample; its
charts must still build with today's ``rankset.charts`` (without rendering: vl-convert and
Chromium are only needed to write the PNG files). The dashboard's screenshots come from
``tests/pages/dashboard/screenshots.py``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
IMAGES = DOCS / "images"
_IMAGE_LINK = re.compile(r"!\[[^\]]*\]\((images/[^)\s]+)\)")


def _shown() -> dict[str, list[str]]:
    """Map each image linked from a page (path under docs/) to the pages that show it."""
    shown: dict[str, list[str]] = {}
    for page in sorted(DOCS.rglob("*.md")):
        for link in _IMAGE_LINK.findall(page.read_text(encoding="utf-8")):
            shown.setdefault(link, []).append(page.name)
    return shown


def _make_images() -> ModuleType:
    path = DOCS / "examples" / "make_images.py"
    spec = importlib.util.spec_from_file_location("rankset_docs_make_images", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_image_shown_exists_and_every_image_is_shown() -> None:
    shown = _shown()
    on_disk = {str(path.relative_to(DOCS)) for path in IMAGES.rglob("*.png")}
    assert sorted(set(shown) - on_disk) == []  # a page links a missing picture
    assert sorted(on_disk - set(shown)) == []  # a picture no page shows


def test_the_task_pages_show_their_charts() -> None:
    shown = _shown()
    pages = {page for pages in shown.values() for page in pages}
    for page in ("charts.md", "report.md", "curves.md", "diagnose.md", "dashboard.md"):
        assert page in pages, f"{page} shows no picture"
    dashboard = {link for link, pages in shown.items() if "dashboard.md" in pages}
    views = ("overview", "queries", "query", "query-snippets")
    assert dashboard == {f"images/dashboard/{name}.png" for name in views}


def test_the_script_draws_every_chart_picture_it_names() -> None:
    module = _make_images()
    drawn = module.sample_charts()
    for name, chart in drawn.items():
        assert (IMAGES / name).is_file(), name
        spec = chart.to_dict()
        assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    chart_pictures = {
        str(path.relative_to(IMAGES))
        for folder in ("charts", "curves", "diagnose")
        for path in (IMAGES / folder).glob("*.png")
    }
    assert set(drawn) == chart_pictures


def test_the_dashboard_page_frames_the_sample_dashboard_the_hook_writes() -> None:
    page = (DOCS / "dashboard.md").read_text(encoding="utf-8")
    hooks = (DOCS / "hooks.py").read_text(encoding="utf-8")
    target = re.search(r'SAMPLE_DASHBOARD = "([^"]+)"', hooks)
    assert target is not None
    assert f'<iframe class="rankset-dashboard" src="{target[1]}"' in page
    assert f"]({target[1]})" in page  # and a link to open it on its own
