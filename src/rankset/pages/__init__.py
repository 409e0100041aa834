"""The pages: one computed :class:`Analysis`, drawn as a static report or a dashboard.

:func:`analyse` computes everything both pages show, once: the evaluation, the
comparisons against every baseline, the curves, the diagnostic matrix, the rankings'
tops, the worst queries, the label sets' agreement, the history and the suite, under one
:class:`Resampling` policy and one default metric set. :func:`rankset.report` and
:func:`rankset.dashboard` draw an Analysis (or analyse their inputs first) and return a
:class:`Report` or a :class:`Dashboard`: a page that keeps its ``.analysis``, saves itself
and displays in Jupyter.

Examples
--------
>>> import rankset
>>> analysis = rankset.analyse(
...     ["data/sample/bm25.trec", "data/sample/rerank.trec"], "data/sample/qrels.txt",
...     scale="trec_dl", n_resamples=200, progress=False)
>>> report, board = rankset.report(analysis), rankset.dashboard(analysis)
>>> report.analysis is board.analysis
True
"""

from __future__ import annotations

from rankset.pages._analysis import Analysis, analyse
from rankset.pages._page import Dashboard, Page, Report
from rankset.pages._resampling import DEFAULT_RESAMPLES, Resampling
from rankset.pages._texts import IntoTexts, read_texts

__all__ = [
    "DEFAULT_RESAMPLES",
    "Analysis",
    "Dashboard",
    "IntoTexts",
    "Page",
    "Report",
    "Resampling",
    "analyse",
    "read_texts",
]
