"""The docs site opened from disk: the search box answers, copies leave out prompts.

A page opened from ``file://`` may not start a Web Worker, which Material's search runs in.
Material's ``offline`` plugin inlines the index as a script and would add a shim for the
worker from a CDN; ``mkdocs.yml`` gives a stand-in (a ``data:`` polyfill) instead, so the
site asks no server. Each check copies a built page beside itself with a probe script that
acts as the reader (types a query, presses copy) and writes what it saw into the page,
which headless Chromium then dumps.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from _support.browser import chromium, load

pytest.importorskip("mkdocs", reason="the docs extra (mkdocs) is not installed")
pytest.importorskip("mkdocs_jupyter", reason="mkdocs-jupyter is not installed")

# builds the docs site, opens it in Chromium: the fast lane (-m 'not slow') leaves it out
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        chromium() is None, reason="chromium is not on PATH (Debian: apt-get install -y chromium)"
    ),
]

ROOT = Path(__file__).resolve().parents[2]
PROBE = re.compile(r'<pre id="probe">(.*?)</pre>', re.DOTALL)

SEARCH_PROBE = """
<script>
(function () {
  var out = document.createElement("pre");
  out.id = "probe";
  document.body.appendChild(out);
  var input = document.querySelector("input[data-md-component=search-query]");
  var started = Date.now();
  setTimeout(function () {
    input.focus();
    input.value = "QUERY";
    input.dispatchEvent(new Event("input", {bubbles: true}));
    input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true}));
  }, 1000);
  (function poll() {
    var items = document.querySelectorAll(".md-search-result__item a[href]");
    var meta = document.querySelector(".md-search-result__meta");
    out.textContent = JSON.stringify({
      meta: meta ? meta.textContent.trim() : null,
      links: Array.prototype.map.call(items, function (a) { return a.getAttribute("href"); }),
    });
    if (items.length === 0 && Date.now() - started < 8000) { setTimeout(poll, 100); }
  })();
})();
</script>
"""

# What Material's copy button copies: the code's innerText while it has data-md-copying.
COPY_PROBE = """
<script>
setTimeout(function () {
  var out = document.createElement("pre");
  out.id = "probe";
  document.body.appendChild(out);
  var prompt = document.querySelector(".highlight code .gp");
  var code = prompt.closest("code");
  var button = document.querySelector("[data-clipboard-target]");
  code.setAttribute("data-md-copying", "");
  var copied = code.innerText;
  code.removeAttribute("data-md-copying");
  out.textContent = JSON.stringify({
    button: button !== null, copied: copied, shown: code.innerText
  });
}, 1000);
</script>
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("site")
    out = work / "site"
    config = str(ROOT / "mkdocs.yml")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config, "-d", str(out)],
        cwd=work,  # mkdocs-jupyter's cache goes here, not into the checkout
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    return out


def _probe(page: Path, script: str) -> dict[str, object]:
    """Load a copy of ``page`` (beside it: the same relative links) with ``script`` added."""
    probe = page.with_name(f"{page.stem}-probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", f"{script}</body>"))
    got = load(probe)
    left = [url for url in got.page_requests if not url.startswith(("file:", "data:"))]
    assert left == [], f"{page.name} requested {left}"
    match = PROBE.search(got.dom)
    assert match is not None, "the probe did not run"
    result: dict[str, object] = json.loads(html.unescape(match.group(1)))
    return result


def test_no_page_loads_the_worker_shim_from_a_cdn(site: Path) -> None:
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "unpkg.com" not in index
    assert "iframe-worker" in index  # the stand-in, so the offline plugin adds no CDN shim
    assert (site / "search" / "search_index.js").read_text(encoding="utf-8").startswith("var ")


@pytest.mark.parametrize(("page", "query"), [("index.html", "bootstrap"), ("api/io.html", "qrels")])
def test_the_search_box_answers_on_a_page_opened_from_disk(
    site: Path, page: str, query: str
) -> None:
    seen = _probe(site / page, SEARCH_PROBE.replace("QUERY", query))
    links = seen["links"]
    assert isinstance(links, list)
    assert links, f"no result for {query!r}: {seen['meta']}"
    assert all(isinstance(link, str) and ".html" in link for link in links)


def test_the_copy_button_leaves_out_prompts_and_output(site: Path) -> None:
    seen = _probe(site / "api" / "charts.html", COPY_PROBE)
    assert seen["button"]
    shown, copied = str(seen["shown"]), str(seen["copied"])
    assert shown.startswith(">>> import polars as pl")  # the prompts are shown...
    assert "... )" in shown
    assert "'ndcg@10 per query'" in shown
    assert copied.startswith("import polars as pl\n")  # ...and not copied
    assert ">>>" not in copied
    assert not re.search(r"^\.\.\. ", copied, flags=re.MULTILINE)
    assert "'ndcg@10 per query'" not in copied  # nor is the output
    assert 'spec["title"]["text"]' in copied
