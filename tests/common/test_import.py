"""The public surface: ``__all__`` is explicit and ``import rankset`` stays light."""

from __future__ import annotations

import subprocess
import sys

import rankset


def test_all_names_exist() -> None:
    for name in rankset.__all__:
        assert hasattr(rankset, name), name


def test_import_does_not_pull_heavy_optional_dependencies() -> None:
    code = (
        "import sys, rankset; "
        "heavy = [m for m in ('pandas', 'scipy', 'altair', 'pyarrow', 'numpy', 'vl_convert',"
        " 'urllib.request', 'http.client', 'ssl')"
        " if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert out == ""


def test_version_is_the_installed_distributions() -> None:
    # One source: pyproject.toml reads rankset._version at build time; the installed
    # metadata must say the same (a stale editable install would not).
    from importlib.metadata import version

    assert rankset.__version__ == version("rankset")
