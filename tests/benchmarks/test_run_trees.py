"""``benchmarks/run.py --trees``: the CLI of other source trees, timed in the same loop.

Each tree's processes find that tree first on the import path, so a before/after pair
runs under the same load; a name without a package is refused before any timing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run_module() -> ModuleType:
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_tree_is_first_on_its_processes_path(monkeypatch: pytest.MonkeyPatch) -> None:
    run = _run_module()
    trees = run.parse_trees(f"before={ROOT / 'src'}, ")
    assert trees == {"before": (ROOT / "src").resolve()}
    monkeypatch.setattr(run, "TREES", trees)
    monkeypatch.setattr(run, "MEASURED_ENV", {"PYTHONPATH": "/elsewhere", "HOME": "/h"})
    env = run.environment("rankset@before")
    assert env["PYTHONPATH"].split(os.pathsep) == [str(trees["before"]), "/elsewhere"]
    assert env["HOME"] == "/h"
    assert run.environment("pytrec_eval") == {"PYTHONPATH": "/elsewhere", "HOME": "/h"}
    out = Path("out.parquet")
    assert run.command("rankset@before", ROOT, "random", out)[1:3] == [
        "evaluate",
        str(ROOT / "run-random.trec"),
    ]


@pytest.mark.parametrize("text", ["before", "before=", f"before={ROOT}"])
def test_a_tree_without_the_package_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="NAME=SRC"):
        _run_module().parse_trees(text)
