"""A static, self-contained HTML report: tables, comparisons, curves and diagnostics.

:func:`report` draws an :class:`~rankset.pages.Analysis` (or analyses runs and labels
first) and returns a :class:`~rankset.pages.Report`; :func:`suite_report` writes the page
of a suite of collections (:func:`rankset.evaluate_suite`). The page needs nothing but
itself: one inlined JavaScript bundle (Vega, Vega-Lite, vega-embed) draws the charts, there
is no CDN, no web font and no image file, and a Content-Security-Policy forbids the page to
load anything else. Every string that comes from the user (system names, query ids, query
text, metric names, configuration values) is HTML-escaped.

Choices, stated once (the analysis makes them, for both pages):

- Default baseline: with two systems or more, the first run given.
- Significance: the paired randomization test (no scipy needed), Holm correction over each
  baseline's rows, ``alpha = 0.05``, with enough permutations for that many rows
  (:class:`~rankset.pages.Resampling`).
- Labels that do not fit the grade scale: when ``scale=`` is not given, the metrics that
  need the scale and the diagnostic matrix are left out, and the header says so.
- Worst queries: per system, the ``worst`` queries with the worst value of the first metric
  among those with a relevant label, NA values left out, ties broken by query id.

Inside: ``_build`` is the face, ``_page`` decides which sections the page has,
``_sections`` writes each section and ``_html`` holds the markup.
"""

from __future__ import annotations

from rankset.pages.report._build import render, report
from rankset.pages.report._html import CSP
from rankset.pages.report._suite import build_suite_report, suite_report

__all__ = [
    "CSP",
    "build_suite_report",
    "render",
    "report",
    "suite_report",
]
