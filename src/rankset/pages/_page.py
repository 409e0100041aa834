"""What both pages return: a :class:`Page` that keeps its :class:`Analysis`, saves, displays.

Each page function takes either an :class:`~rankset.pages.Analysis` or the inputs of
:func:`~rankset.pages.analyse`; :func:`analysis_of` tells them apart and refuses an
analysis given with the options that would have made another one.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from rankset._progress import Steps
from rankset.errors import ParameterError
from rankset.io._shared import atomic_path
from rankset.pages._analysis import ANALYSIS_STEPS, Analysis, analyse_in

__all__ = ["ANALYSIS_DEFAULTS", "Dashboard", "Page", "Report", "analysis_of"]

#: The options of :func:`~rankset.pages.analyse` a page function takes, with their
#: defaults: given with an :class:`Analysis`, any other value is an error.
ANALYSIS_DEFAULTS: Final[Mapping[str, Any]] = {
    "labels": None,
    "metrics": None,
    "baseline": None,
    "k": 10,
    "depth": 20,
    "label_sets": None,
    "history": None,
    "suite": None,
    "n_resamples": None,
    "test": "randomization",
    "correction": "holm",
    "alpha": 0.05,
    "seed": 0,
}
_IFRAME_HEIGHT: Final = 900


def analysis_of(
    runs: Any, options: Mapping[str, Any], evaluate_options: Mapping[str, Any], step: Steps
) -> Analysis:
    """Return ``runs`` when it is an :class:`Analysis`, else analyse the inputs.

    Raises
    ------
    ParameterError
        When an analysis comes with options that change what is computed.
    """
    if isinstance(runs, Analysis):
        given = sorted(
            name
            for name, value in options.items()
            if value is not ANALYSIS_DEFAULTS[name] and value != ANALYSIS_DEFAULTS[name]
        )
        given += sorted(evaluate_options)
        if given:
            msg = (
                f"An Analysis was given with {', '.join(given)}: those options choose what "
                "is computed, so pass them to rankset.analyse(...) instead."
            )
            raise ParameterError(msg)
        for _ in range(ANALYSIS_STEPS):  # done when the analysis was computed
            step("analysed")
        return runs
    return analyse_in(step, runs, **options, **evaluate_options)


@dataclass(frozen=True, eq=False)
class Page:
    """One self-contained HTML page and the :class:`Analysis` it draws.

    Displays inline in Jupyter (an ``<iframe>`` whose ``srcdoc`` is the page); write it
    with :meth:`save`.

    Attributes
    ----------
    html
        The document.
    analysis
        What the page draws: pass it to the other page to draw the same numbers.
    path
        The file the page was written to, when the page function was given ``out``.
    """

    html: str = field(repr=False)
    analysis: Analysis = field(repr=False)
    path: Path | None = None

    @property
    def systems(self) -> list[str]:
        """The systems, in order."""
        return self.analysis.systems

    @property
    def metrics(self) -> list[str]:
        """The shown metrics, in order."""
        return list(self.analysis.metrics)

    @property
    def size(self) -> int:
        """Size of the page in bytes (UTF-8)."""
        return len(self.html.encode("utf-8"))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` atomically (a temporary file beside it, then a rename).

        Returns
        -------
        pathlib.Path
            The written file.
        """
        target = Path(path)
        with atomic_path(target) as temp:
            temp.write_text(self.html, encoding="utf-8")
        return target

    def _repr_html_(self) -> str:
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
            f'style="width: 100%; height: {_IFRAME_HEIGHT}px; border: 1px solid #d1d9e0;" '
            f'sandbox="allow-scripts allow-downloads" title="{self._kind}"></iframe>'
        )

    @property
    def _kind(self) -> str:
        return "rankset page"

    def __repr__(self) -> str:
        name = type(self).__name__
        return (
            f"{name}({len(self.systems)} systems, {len(self.metrics)} metrics, "
            f"{self.size / 1e6:.1f} MB)"
        )


@dataclass(frozen=True, repr=False, eq=False)
class Report(Page):
    """The static report: tables, comparisons, curves, diagnosis, worst queries."""

    @property
    def _kind(self) -> str:
        return "rankset report"


@dataclass(frozen=True, repr=False, eq=False)
class Dashboard(Page):
    """The interactive dashboard: systems, queries and the rankings behind a number.

    Attributes
    ----------
    n_queries
        Queries the page holds.
    n_queries_total
        Queries evaluated (more than ``n_queries`` when the page holds a sample).
    notes
        What the page says was left out or chosen for the user.
    """

    n_queries: int = 0
    n_queries_total: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def sampled(self) -> bool:
        """Whether the page holds a sample of the queries."""
        return self.n_queries < self.n_queries_total

    @property
    def _kind(self) -> str:
        return "rankset dashboard"

    def __repr__(self) -> str:
        held = f"{self.n_queries:,} queries"
        if self.sampled:
            held = f"{self.n_queries:,} of {self.n_queries_total:,} queries (a sample)"
        metrics = "no labels" if self.analysis.label_free else f"{len(self.metrics)} metrics"
        return (
            f"Dashboard({len(self.systems)} systems, {metrics}, {held}, {self.size / 1e6:.1f} MB)"
        )
