"""The dashboard script's pure functions under node: ``node --test tests/pages/js/*.test.js``.

The JavaScript unit tests use node's own runner (no package to install); this module runs
them from pytest, so that the README's ``python -m pytest`` runs them too, and skips with
the reason when node is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = Path(__file__).resolve().parent / "js"


def test_the_javascript_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip(
            "node is not installed: the JavaScript unit tests (tests/pages/js) were skipped"
        )
    files = sorted(JS_TESTS.glob("*.test.js"))
    assert files, f"no *.test.js in {JS_TESTS}"
    done = subprocess.run(
        [node, "--test", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=JS_TESTS,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    assert "# fail 0" in report, report[-6000:]
