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


def test_an_evaluation_without_intervals_loads_no_numpy(tmp_path: object) -> None:
    # numpy (rankset.stats) is for the bootstrap intervals; a call that skips them, the
    # usual in a training loop, and its Parquet output need neither it nor pyarrow.
    code = (
        "import sys, rankset; "
        "result = rankset.evaluate({'q': {'a': 2.0, 'b': 1.0}}, {'q': {'b': 1}}, "
        "['ap', 'ndcg@10'], confidence=None); "
        f"result.to_parquet({str(tmp_path)!r} + '/out.parquet'); "
        "print(','.join(m for m in ('numpy', 'pyarrow', 'rankset.stats') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert out == ""
