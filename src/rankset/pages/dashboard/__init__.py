"""An interactive, offline dashboard: systems, queries and the rankings behind a number.

:func:`dashboard` draws an :class:`~rankset.pages.Analysis` (or analyses runs and labels
first) and returns a :class:`~rankset.pages.Dashboard`, one self-contained HTML page
(Vega inlined, a strict Content-Security-Policy, no request of any kind, every user
string escaped) that displays inline in Jupyter and writes itself with
:meth:`Dashboard.save`. Three views, a fourth with an experiment store, a fifth with
a suite of collections and a sixth with other label sets:

- **Overview**: systems × metrics with confidence intervals and significance against a
  baseline (picked on the page), metric-vs-k curves with a k slider, the diagnostic
  matrix; a click on a quadrant cell lists its queries.
- **Queries**: every query's values and the difference between two systems A and B;
  sorted, filtered by text, quadrant and outcome, and by a bar of the differences'
  histogram.
- **Query**: the two systems' top k side by side (rank, document, grade or "unjudged", the
  other system's rank and the move), snippets, the relevant documents neither found, every
  metric's value, and label-free contrasts (overlap@k, Jaccard@k, RBO, tau_AP).
- **History** (``history=`` a :class:`rankset.experiments.Store`): the picked metric's
  logged means over the store's entries, one line per system, and each system's last
  logged mean, the one before and the change (:func:`rankset.experiments.latest_changes`).
- **Collections** (``suite=`` a :class:`rankset.comparison.SuiteResult`): the picked
  metric as a heatmap of systems × collections (the rank on each collection in its cell)
  and the aggregate over collections (mean and intervals, mean rank, Borda count).
- **Judges** (``label_sets=``, e.g. LLM judges' labels beside the human ones): the
  picked metric's leaderboard under the humans and under each judge, side by side, their
  correlations with bootstrap intervals over topics
  (:func:`rankset.label_quality.meta_evaluate`), the topics where they disagree most
  (each a link to its query view), and each judge's calibration on the shared pairs.

The state of the page is the URL fragment, whose keys are :data:`FRAGMENT_KEYS`; the
first five are a stable contract: ``#query=q003&a=bm25&b=rerank&metric=ndcg@10&k=10``
opens that query's side-by-side view. Back, forward and reload restore a view. The
script follows in-page links itself, so they work inside a notebook's ``srcdoc`` frame
too (there the view lives in the script's own history entries).

Inside: ``_build`` is the face (the analysis computes; ``rankset.pages._texts`` reads
texts), ``_data`` assembles the embedded data (its keys: ``_payload``; beyond a byte
budget it samples queries), ``_charts`` writes the Vega-Lite specs and ``_page`` the
HTML; the script is ``rankset/pages/assets/dashboard_*.js``, loaded by
``rankset.pages._shell``.
"""

from __future__ import annotations

from typing import Final

from rankset.pages.dashboard._build import dashboard, render
from rankset.pages.dashboard._data import FORMAT_VERSION

__all__ = [
    "FORMAT_VERSION",
    "FRAGMENT_KEYS",
    "dashboard",
    "render",
]

#: The keys of the page's URL fragment and what each holds. The first five are a stable
#: contract (links keep working across versions); the others hold the explorer's filters.
FRAGMENT_KEYS: Final[dict[str, str]] = {
    "query": "the query whose side-by-side view is shown (opens the query view)",
    "a": "system A, the left side and the reference of differences (B - A)",
    "b": "system B, the right side",
    "metric": "the metric of the table, charts and differences (canonical name: ndcg@10)",
    "k": "the cutoff of the side-by-side view and of the curves' marker (1 to depth)",
    "view": "overview, queries, query, history (with a store), collections (with a suite) or "
    "judges (with label sets)",
    "baseline": "the system the overview compares the others with",
    "text": "the query list's text filter (query id or text, case-insensitive)",
    "quadrant": "the query list's quadrant filter (with system: whose quadrant)",
    "system": "the system whose quadrant the quadrant filter reads",
    "outcome": "wins, losses or ties: of B against A on the metric",
    "diff": "lo,hi: the histogram bar the query list is filtered by",
    "sort": "the query list's order: query, diff, fall or s<i> (system i); without labels "
    "rbo (least similar first), overlap, jaccard or tau; '-' for descending",
}
