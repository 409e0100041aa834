"""ir_measures' own test files, unchanged, run against rankset's ir_measures face.

The files are ir_measures 0.4.3's ``tests/`` folder, kept byte for byte under
``tests/data/ir_measures/tests`` (see the NOTICE there). They are imported as a package
while ``ir_measures`` (and its submodules) name rankset's face, and each of their
``unittest`` methods is one test here, its sub-tests included.

Three methods fail on the original ir_measures in this environment, for reasons that are
not rankset's (``FAILS_ON_THE_ORIGINAL``): they run on the face all the same and are
expected to fail there only if they fail on the original; the original is run too, so
the list stays true.
"""

from __future__ import annotations

import ast
import importlib
import sys
import types
import unittest
from pathlib import Path

import pytest

from rankset.compat import ir_measures as face

ORIGINALS = Path(__file__).resolve().parents[1] / "data" / "ir_measures" / "tests"


def _methods() -> list[tuple[str, str, str]]:
    """Return ``(module, class, method)`` of every test method, read from the sources."""
    found = []
    for path in sorted(ORIGINALS.glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                        found.append((path.stem, node.name, item.name))
    return found


METHODS = _methods()

#: Methods the original ir_measures 0.4.3 fails here, and why.
FAILS_ON_THE_ORIGINAL = {
    ("test_measures", "TestMeasures", "test_measures"): (
        "ir_measures' ranx provider hands ranx a pandas 3 string column, which ranx 0.3 "
        "refuses ('Query IDs column dtype must be `object`')"
    ),
    ("test_ranx", "TestRanx", "test_P"): (
        "ir_measures' ranx provider hands ranx a pandas 3 string column, which ranx 0.3 "
        "refuses ('Query IDs column dtype must be `object`')"
    ),
    ("test_providers", "TestPytrecEval", "test_empty"): (
        "it calls ir_measures.trectools, whose package (trectools) is not installed: "
        "'Provider trectools is not available'"
    ),
}


#: Why those that fail on the face do (where the original fails too, for its own reason).
ON_THE_FACE = {
    ("test_ranx", "TestRanx", "test_P"): (
        "it asks SetP(rel=2)@5, a cutoff SetP does not take (ir_measures lists no cutoff "
        "for SetP either but does not check); the face refuses it"
    ),
    ("test_providers", "TestPytrecEval", "test_empty"): (
        "it imports CwlMetric, cwl_eval's rows with costs, which the face does not have"
    ),
}


def _load(package: str, target: types.ModuleType) -> dict[str, types.ModuleType | Exception]:
    """Import every test file as ``package.<file>`` with ``import ir_measures`` -> ``target``.

    A file that fails to import maps to its error (each of its methods then fails with it).
    """
    aliases = {
        "ir_measures": target,
        "ir_measures.measures": target.measures,
        "ir_measures.providers": target.providers,
        "ir_measures.util": target.util,
    }
    saved = {name: sys.modules.get(name) for name in aliases}
    sys.modules.update(aliases)
    holder = types.ModuleType(package)
    holder.__path__ = [str(ORIGINALS)]
    sys.modules[package] = holder
    modules: dict[str, types.ModuleType | Exception] = {}
    try:
        for stem in sorted({module for module, _, _ in METHODS}):
            try:
                modules[stem] = importlib.import_module(f"{package}.{stem}")
            except Exception as error:  # reported by each of the file's methods
                modules[stem] = error
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return modules


def _problems(modules: dict[str, types.ModuleType | Exception], key: tuple[str, str, str]) -> str:
    """Run one method (sub-tests included); return its failures' tracebacks ('' if none)."""
    stem, cls, method = key
    module = modules[stem]
    if isinstance(module, Exception):
        return f"{stem} does not import: {module!r}"
    result = unittest.TestResult()
    getattr(module, cls)(method).run(result)
    return "\n".join(text for _, text in [*result.errors, *result.failures])


_FACE: dict[str, dict[str, types.ModuleType | Exception]] = {}


def _face_modules() -> dict[str, types.ModuleType | Exception]:
    if not _FACE:
        _FACE["modules"] = _load("_ir_measures_tests_on_the_face", face)
    return _FACE["modules"]


def test_the_originals_are_all_here() -> None:
    assert len(METHODS) == 34  # ir_measures 0.4.3's tests/: 13 files, 34 methods
    assert set(FAILS_ON_THE_ORIGINAL) <= set(METHODS)


@pytest.mark.parametrize("key", METHODS, ids=[".".join(key) for key in METHODS])
def test_ir_measures_own_test_passes_on_the_face(key: tuple[str, str, str]) -> None:
    problems = _problems(_face_modules(), key)
    if key in FAILS_ON_THE_ORIGINAL and problems:
        here = ON_THE_FACE.get(key, "see the traceback")
        pytest.xfail(f"fails on the original too ({FAILS_ON_THE_ORIGINAL[key]}); here: {here}")
    assert not problems, problems


def test_the_methods_said_to_fail_on_the_original_do_and_no_other() -> None:
    original = pytest.importorskip("ir_measures", reason="ir_measures is a test dependency")
    if getattr(original, "__version__", "") != "0.4.3":
        pytest.skip(f"the list is for ir_measures 0.4.3, not {original.__version__}")
    modules = _load("_ir_measures_tests_on_the_original", original)
    failing = {key for key in METHODS if _problems(modules, key)}
    assert failing <= set(FAILS_ON_THE_ORIGINAL)  # here (pandas 3, no trectools): all three
