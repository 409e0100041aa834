"""Fixtures of the pages' tests that open a real browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _support.browser import PLAYWRIGHT_ARGS, PLAYWRIGHT_CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The system Chromium under Playwright, one per test module; skipped without either."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    if not Path(PLAYWRIGHT_CHROMIUM).exists():
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=PLAYWRIGHT_CHROMIUM, args=PLAYWRIGHT_ARGS
        )
        yield launched
        launched.close()
