"""The README's set-up commands and its Python snippets run exactly as written."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def test_the_readme_starts_with_two_setup_commands() -> None:
    first = _blocks("bash")[0].strip().splitlines()
    assert len(first) == 2
    # The main job needs the core install only; the test suite needs the test stack.
    assert first[0].startswith("python -m pip install -e . && rankset ")
    assert first[1] == 'python -m pip install -e ".[test]" && python -m pytest'
    # CI installs the same and runs the very test command the README gives.
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert 'python -m pip install -e ".[test]"' in ci
    assert "python -m pytest" in ci


def test_the_main_job_runs_on_the_bundled_sample() -> None:
    command = _blocks("bash")[0].strip().splitlines()[0].split("&& ", 1)[1]
    words = shlex.split(command)
    assert words[0] == "rankset"
    done = subprocess.run(
        [sys.executable, "-m", "rankset.cli", *words[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    header, _, *rows = done.stdout.splitlines()
    assert header.split() == ["system", "queries", "ndcg@10", "ap", "rr", "recall@100"]
    assert sorted(row.split()[0] for row in rows) == ["bm25", "rerank"]


def test_the_python_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snippet = next(block for block in _blocks("python") if "res.to_parquet" in block)
    (tmp_path / "data").symlink_to(ROOT / "data")
    monkeypatch.chdir(tmp_path)  # the snippet writes per_query.parquet where it runs
    namespace: dict[str, object] = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    written = pl.read_parquet(tmp_path / "per_query.parquet")
    assert written.columns == ["system", "query_id", "metric", "measure", "k", "value"]
    assert set(written["metric"]) == {"ndcg@10", "ap", "rr", "recall@100", "precision(rel=2)@10"}


def _python_blocks() -> list[str]:
    """Every Python block of the README but the Dask one (it needs a running cluster)."""
    return [block for block in _blocks("python") if "connect(" not in block]


@pytest.mark.parametrize(
    "block", _python_blocks(), ids=lambda block: block.strip().splitlines()[-1][:40]
)
def test_every_python_snippet_runs_as_written(
    block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each block on its own, in a fresh namespace, from a folder holding the sample data
    # (the README's paths), with warnings as errors: a user copying it sees none.
    (tmp_path / "data").symlink_to(ROOT / "data")
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(compile(block, "README.md", "exec"), {})


def test_the_readme_has_the_snippets_it_had() -> None:
    # Guard against a block leaving the test by a change of fence: 9 Python blocks, one
    # of them the Dask script.
    assert len(_blocks("python")) == 9
    assert len(_python_blocks()) == 8
