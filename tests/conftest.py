"""Shared fixtures of the parity tests: data locations and trec_eval's printed output."""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from _support.pytrec_reference import PytrecEvalWorker, canonical_metric

TESTS_DIR = Path(__file__).resolve().parent
TREC_EVAL_DATA = TESTS_DIR / "data" / "trec_eval"
"""trec_eval's own test files, copied into the repository (see NOTICE.md there)."""

SHARED_DATA_ENV = "RANKSET_SHARED_DATA"


@dataclass(frozen=True)
class TrecEvalRow:
    """One line of trec_eval output: ``measure<ws>query_id<ws>value``, value as printed."""

    measure: str
    query_id: str
    value: str


@cache
def parse_trec_eval_output(path: Path) -> tuple[TrecEvalRow, ...]:
    """Parse trec_eval's printed output (with or without ``-q``); ``all`` rows are summaries.

    Values stay strings, exactly as printed (``%6.4f`` for most measures, integers for counts,
    quoted strings for ``relstring``), so comparisons can be made against the printed text.
    """
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split(maxsplit=2)
        if len(fields) != 3:
            msg = f"{path.name}:{number}: expected 'measure query_id value', got {line!r}"
            raise ValueError(msg)
        rows.append(TrecEvalRow(*fields))
    return tuple(rows)


def compared_rows(rows: tuple[TrecEvalRow, ...]) -> tuple[TrecEvalRow, ...]:
    """Keep the rows of the measure families the parity tests compare (see pytrec_reference)."""
    return tuple(row for row in rows if canonical_metric(row.measure) is not None)


# Fixtures that build something before the test can run: a test that asks for one is slow.
SLOW_FIXTURES = frozenset({"trec_eval_10", "trec_eval_9"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test that builds trec_eval from NIST's source (the fast lane).

    Browser, docs-site, notebook and Dask tests carry ``pytestmark = pytest.mark.slow`` in
    their modules; ``pytest -m "not slow"`` runs the rest.
    """
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise a ``trec_eval_measure`` argument from trec_eval's expected output files.

    A test module opts in with a module constant ``TREC_EVAL_EXPECTED`` (scenario id -> file
    name in ``tests/data/trec_eval``). Every compared measure printed in a scenario's file becomes
    one ``(scenario, measure)`` parameter with the id ``<scenario>-<measure>``. The list comes from
    the files themselves, so no measure trec_eval printed can be skipped without notice.
    """
    if "trec_eval_measure" not in metafunc.fixturenames:
        return
    expected: Mapping[str, str] = metafunc.module.TREC_EVAL_EXPECTED
    params = []
    for scenario, file_name in expected.items():
        rows = compared_rows(parse_trec_eval_output(TREC_EVAL_DATA / file_name))
        measures = dict.fromkeys(row.measure for row in rows)  # file order, no duplicates
        params += [
            pytest.param((scenario, measure), id=f"{scenario}-{measure}") for measure in measures
        ]
    metafunc.parametrize("trec_eval_measure", params)


@pytest.fixture(scope="session")
def trec_eval_data() -> Path:
    """Folder with trec_eval's test qrels, runs and expected outputs (always present)."""
    return TREC_EVAL_DATA


@pytest.fixture(scope="session")
def trec_eval_output() -> Callable[[str], tuple[TrecEvalRow, ...]]:
    """Return a parser: expected-output file name in ``tests/data/trec_eval`` -> its rows."""

    def parse(file_name: str) -> tuple[TrecEvalRow, ...]:
        return parse_trec_eval_output(TREC_EVAL_DATA / file_name)

    return parse


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The team's shared data folder (``../shared/data`` beside the repository).

    ``RANKSET_SHARED_DATA`` overrides the location. Tests that need it are skipped when it is
    absent: its files (TREC DL runs, NIST scores) may not be redistributed, so they are never
    copied into the repository.
    """
    override = os.environ.get(SHARED_DATA_ENV)
    path = Path(override) if override else TESTS_DIR.parent.parent / "shared" / "data"
    if not path.is_dir():
        pytest.skip(
            f"shared data folder {path} not found (set {SHARED_DATA_ENV} to its location); "
            "it holds TREC DL runs and NIST scores that are not redistributed with rankset"
        )
    return path


@pytest.fixture(scope="session")
def pytrec_worker() -> Iterator[PytrecEvalWorker]:
    """A pytrec_eval child process for the session (see _support.pytrec_reference's docstring)."""
    with PytrecEvalWorker() as worker:
        yield worker


def _build_trec_eval(shared: Path, version: str, folder: Path) -> Path:
    source = shared / "trec_eval_src" / f"trec_eval-{version}.tar.gz"
    if not source.exists():
        pytest.skip(f"{source} not found")
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("building trec_eval needs make and a C compiler")
    with tarfile.open(source) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(folder, filter="data")
        else:  # Python 3.11.0-3.11.3 have no extraction filters: check the members here
            inside = folder.resolve()
            for member in archive.getmembers():
                target = (folder / member.name).resolve()
                if not target.is_relative_to(inside) or member.issym() or member.islnk():
                    pytest.skip(f"{source}: member {member.name!r} would leave {folder}")
            archive.extractall(folder)  # the members were checked above
    build = folder / f"trec_eval-{version}"
    done = subprocess.run(
        ["make", "-s"], cwd=build, capture_output=True, text=True, timeout=300, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"trec_eval {version} did not build: {done.stderr[-500:]}")
    return build / "trec_eval"


@pytest.fixture(scope="session")
def trec_eval_10(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trec_eval 10.0 built from NIST's source in the shared folder (skips without it)."""
    return _build_trec_eval(shared_data, "10.0", tmp_path_factory.mktemp("trec_eval_10"))


@pytest.fixture(scope="session")
def trec_eval_9(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trec_eval 9.0.8 built from NIST's source in the shared folder (skips without it)."""
    return _build_trec_eval(shared_data, "9.0.8", tmp_path_factory.mktemp("trec_eval_9"))
