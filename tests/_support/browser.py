"""Open a local HTML file in headless Chromium: the rendered DOM and the requests it made.

Chromium's NetLog records every request that goes through the network stack. The browser
itself makes some in the background (component updates, account checks) even with the
flags below; those have no initiating document (``initiator`` is ``"not an origin"``), while
every request a page makes carries the page's origin (``"null"`` for a ``file:`` page) and a
network isolation key of ``file://``. Requests for ``file:`` and ``data:`` URLs never reach the
network stack, so a page that only uses those leaves no page request in the log at all.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

#: Debian package providing the binary (``apt-get install -y chromium``).
CHROMIUM = "chromium"

_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--virtual-time-budget=10000",
)
_BROWSER_INITIATOR = "not an origin"

#: The system browser and flags the Playwright tests launch (``executable_path``, ``args``).
PLAYWRIGHT_CHROMIUM = shutil.which(CHROMIUM) or "/usr/bin/chromium"
PLAYWRIGHT_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@dataclass(frozen=True)
class PageLoad:
    """What headless Chromium saw: the DOM after scripts ran and the page's requests."""

    dom: str
    page_requests: list[str]
    all_requests: list[str]


def chromium() -> str | None:
    """Path of the Chromium binary, or None when it is not installed."""
    return shutil.which(CHROMIUM)


def command(page: Path, profile: Path, net_log: Path, *extra: str) -> list[str]:
    """Return the Chromium command line that loads ``page`` (also the one documented)."""
    binary = chromium() or CHROMIUM
    return [
        binary,
        *_FLAGS,
        f"--user-data-dir={profile}",
        f"--log-net-log={net_log}",
        *extra,
        page.resolve().as_uri(),
    ]


def load(
    page: Path,
    *,
    screenshot: Path | None = None,
    window_size: str = "1400,4000",
    timeout: float = 120,
) -> PageLoad:
    """Load ``page`` in headless Chromium; dump the DOM (and take a screenshot if asked)."""
    with tempfile.TemporaryDirectory(prefix="rankset-chromium-") as folder:
        work = Path(folder)
        net_log = work / "netlog.json"
        done = subprocess.run(
            command(page, work / "profile", net_log, "--dump-dom"),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            msg = f"chromium exited with {done.returncode}: {done.stderr[-2000:]}"
            raise RuntimeError(msg)
        page_requests, all_requests = requests(net_log)
        if screenshot is not None:
            shot = subprocess.run(
                command(
                    page,
                    work / "profile-shot",
                    work / "netlog-shot.json",
                    f"--screenshot={screenshot.resolve()}",
                    f"--window-size={window_size}",
                ),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            if shot.returncode != 0 or not screenshot.exists():
                msg = f"chromium screenshot failed ({shot.returncode}): {shot.stderr[-2000:]}"
                raise RuntimeError(msg)
    return PageLoad(dom=done.stdout, page_requests=page_requests, all_requests=all_requests)


def requests(net_log: Path) -> tuple[list[str], list[str]]:
    """URLs of the requests in a NetLog file: (those a page made, all of them)."""
    text = net_log.read_text(encoding="utf-8")
    try:
        log = json.loads(text)
    except json.JSONDecodeError:  # a log cut short by the exit: close the event list
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    page: list[str] = []
    every: list[str] = []
    for event in log.get("events", []):
        params = event.get("params") or {}
        if event.get("type") != start_job or "url" not in params:
            continue
        every.append(params["url"])
        from_page = params.get("initiator") != _BROWSER_INITIATOR or "file://" in str(
            params.get("network_isolation_key", "")
        )
        if from_page:
            page.append(params["url"])
    return page, every


class _Descendants(HTMLParser):
    """Collect the tags found inside the elements with the given ids."""

    _VOID = frozenset(
        {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    )

    def __init__(self, ids: set[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.ids = ids
        self.found: dict[str, list[str]] = {}
        self.open: list[tuple[str, str, int]] = []  # (id, tag, depth at which it opened)
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for element_id, _, _ in self.open:
            self.found[element_id].append(tag)
        if tag in self._VOID:
            return
        self.depth += 1
        element_id = dict(attrs).get("id")
        if element_id in self.ids:
            self.found[element_id] = []
            self.open.append((element_id, tag, self.depth))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for element_id, _, _ in self.open:
            self.found[element_id].append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._VOID:
            return
        if self.open and self.open[-1][2] == self.depth:
            self.open.pop()
        self.depth -= 1


def descendants(dom: str, ids: set[str]) -> dict[str, list[str]]:
    """Tags inside each element of ``dom`` whose id is in ``ids`` (absent ids are left out)."""
    parser = _Descendants(ids)
    parser.feed(dom)
    parser.close()
    return parser.found
