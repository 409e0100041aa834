"""Doctests of the docs pages: each page runs inside ``temporary_measures()``.

``adding-a-measure.md`` defines a measure in the global registry, as a user's module would;
the registry forgets it when the page's doctest ends, so no other test sees it. Pages run
from the repository's root, as the README's commands do, so ``data/sample/...`` resolves
wherever pytest was started.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rankset.measures import temporary_measures


@pytest.fixture(autouse=True)
def _forget_measures_defined_by_a_page() -> Iterator[None]:
    with temporary_measures():
        yield


@pytest.fixture(autouse=True)
def _run_from_the_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
