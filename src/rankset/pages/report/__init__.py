"""A static, self-contained HTML report: tables, comparisons, curves and diagnostics.

:func:`build_report` turns results that were already computed into one HTML document;
:func:`report` computes them from runs and labels and writes the file; :func:`suite_report`
writes the page of a suite of collections (:func:`rankset.evaluate_suite`). The page needs nothing
but itself: one inlined JavaScript bundle (Vega, Vega-Lite, vega-embed) draws the charts, there
is no CDN, no web font and no image file, and a Content-Security-Policy forbids the page to load
anything else. Every string that comes from the user (system names, query ids, query text,
metric names, configuration values) is HTML-escaped; chart specs are embedded by
:func:`rankset.charts.embed_fragment`, which escapes them for a ``<script>`` element.

Choices, stated once:

- Default baseline: when ``baseline`` is not given and there are two systems or more, the
  first run given (:attr:`EvaluationResult.systems` keeps the order of the inputs, as every
  table and chart of the page does). Pass ``baseline=`` to choose.
- Significance: the paired randomization test (no scipy needed), Holm correction over every
  row of the table, ``alpha = 0.05``.
- Labels that do not fit the grade scale: when ``scale=`` is not given and the labels have
  grades outside the default ``rag5`` scale, the metrics that need the scale (``ra_nwg``,
  ``proc``, ``pct_proc``...) are dropped, the diagnostic section is left out, and the header
  says so; an explicit ``scale=`` that does not fit still raises.
- Worst queries: per system, the ``worst`` queries with the worst value of the first metric
  (lowest, or highest for a metric where lower is better), NA values left out, ties broken by
  query id.

Inside: ``_build`` decides what is computed and which sections the page has, ``_sections``
writes each section, ``_html`` holds the markup (escaping, tables, numbers, the page) and
``_measures`` every question put to the measure registry.
"""

from __future__ import annotations

from rankset.pages.report._build import DEFAULT_REPORT_METRICS, report
from rankset.pages.report._html import CSP
from rankset.pages.report._page import build_report
from rankset.pages.report._suite import build_suite_report, suite_report

__all__ = [
    "CSP",
    "DEFAULT_REPORT_METRICS",
    "build_report",
    "build_suite_report",
    "report",
    "suite_report",
]
