"""The shape of rankset.io: a complete public face, documented, importing only downward."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import rankset.io

IO_DIR = Path(rankset.io.__file__).resolve().parent
# The ground floor of rankset: what io may import besides its own modules.
GROUND_FLOOR = {
    "rankset.errors",
    "rankset._validation",
    "rankset._typing",
    "rankset._dependencies",
    "rankset._format",
}


def rankset_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found.update(name for name in names if name.split(".")[0] == "rankset")
    return found


@pytest.mark.parametrize("path", sorted(IO_DIR.glob("*.py")), ids=lambda path: path.name)
def test_io_imports_only_the_ground_floor_and_itself(path: Path) -> None:
    outside = {
        name
        for name in rankset_imports(path)
        if name not in GROUND_FLOOR and name != "rankset.io" and not name.startswith("rankset.io.")
    }

    assert outside == set()


PUBLIC_FUNCTIONS = [
    name for name in rankset.io.__all__ if inspect.isfunction(getattr(rankset.io, name))
]


def test_the_public_face_is_complete() -> None:
    assert {"read", "scan_run", "scan_labels", "read_answers", "write_run"} <= set(PUBLIC_FUNCTIONS)
    assert all(hasattr(rankset.io, name) for name in rankset.io.__all__)


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_public_functions_have_a_runnable_example(name: str) -> None:
    doc = getattr(rankset.io, name).__doc__ or ""

    assert ">>> " in doc, f"{name} has no example"
