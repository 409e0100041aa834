"""The data contract between Python and the dashboard's script: the embedded data's keys.

The page holds its data as JSON in ``<script type="application/json" id="rankset-data">``;
the script (``rankset/pages/assets/dashboard_*.js``) reads it. :class:`DashboardData` says
what each top-level key holds; the script declares the same keys as ``PAYLOAD_KEYS`` in
``dashboard_core.js`` and refuses a page whose data lacks one (``data-ready="error"``). The
tests (``tests/pages/test_script_payload.py``) check that a built page, this TypedDict and
``PAYLOAD_KEYS`` name the same keys, so a key added or dropped on one side fails there
first. The layout is versioned: ``version`` is
:data:`rankset.pages.dashboard.FORMAT_VERSION`, and the script's ``FORMAT_VERSION``.

Everything is laid out by column: ``queries`` gives the order of every per-query list, and
systems and metrics are positions in ``systems`` and ``metrics``.
"""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["DashboardData", "SampleInfo", "payload_keys"]


class SampleInfo(TypedDict):
    """``sample``: whether the page holds every query evaluated or a sample of them."""

    #: Whether some queries were left out (the byte budget was passed).
    sampled: bool
    #: Queries kept because they are among the biggest wins and losses.
    n_extremes: int
    #: The byte budget of the data.
    max_bytes: int


class DashboardData(TypedDict):
    """The embedded data's top-level keys (JSON: ``None`` is ``null``).

    Per query lists follow ``queries``; ``[m][s][q]`` reads metric ``m``, system ``s``,
    query ``q`` (positions in ``metrics``, ``systems`` and ``queries``).
    """

    #: Version of the layout (FORMAT_VERSION); the script reads only its own version.
    version: int
    #: The page's title (plain text).
    title: str
    #: The longest document snippet kept, in characters.
    snippet: int
    #: The seed of the bootstrap, the tests and the query sample.
    seed: int
    #: Bootstrap resamples behind every interval.
    n_resamples: int
    #: System names, in the order of the inputs.
    systems: list[str]
    #: The metrics shown, canonical names (the first is the default).
    metrics: list[str]
    #: Per metric: whether higher is better.
    greater: list[bool]
    #: Per metric: the measure of its metric-vs-k curve, or None (no cutoff).
    curve_of: list[str | None]
    #: The system the others are compared with, until the page picks another.
    baseline: str
    #: The default cutoff of the query view and the curves' marker.
    k: int
    #: How many documents of each ranking the page holds (the k slider's maximum).
    depth: int
    #: The lowest grade that counts as relevant.
    relevance_level: float
    #: Queries evaluated (the page may hold a sample: ``sample``).
    n_queries_total: int
    #: Whether the queries are a sample, and of which budget.
    sample: SampleInfo
    #: The query ids the page holds, sorted: the order of every per-query list.
    queries: list[str]
    #: Per query, its text (None without query texts, or for a query without one).
    query_text: list[str | None] | None
    #: ``[m][s][q]``: the value of metric m for system s on query q (None for NA).
    values: list[list[list[float | None]]]
    #: Per query, the ids of its documents (every system's top ``depth``, then the
    #: relevant ones none retrieved); ``grades`` and ``rankings`` point into this list.
    doc_ids: list[list[str]]
    #: Per query, the grade of each of its documents (None: unjudged).
    grades: list[list[float | None]]
    #: ``[s][q]``: system s's ranking of query q, as positions in ``doc_ids[q]``.
    rankings: list[list[list[int]]]
    #: Document id to snippet, for the documents shown (None without texts).
    texts: dict[str, str] | None
    #: The summary rows of the shown metrics: system, metric, mean, ci_low, ci_high,
    #: n_queries, n_na.
    summary: list[dict[str, Any]]
    #: Baseline name to its comparison rows against every other system (randomization
    #: test, Holm): system, metric, delta, its interval, p, p_adj, reject, wins, ties, losses.
    compare: dict[str, list[dict[str, Any]]]
    #: Metric-vs-k rows (system, metric, k, mean, ci_low, ci_high), or None.
    curves: list[dict[str, Any]] | None
    #: The diagnosis (k, quadrants, thresholds, counts, and per system and query the
    #: quadrant code, PROC and %PROC), or None.
    diagnosis: dict[str, Any] | None
    #: An experiment store's logged means (entries, when, held, metrics, rows, latest),
    #: or None.
    history: dict[str, Any] | None
    #: A suite of collections (collections, queries, held, metrics, greater, cells,
    #: aggregate, missing, confidence, n_resamples), or None.
    suite: dict[str, Any] | None
    #: Other label sets judged against the labels (reference, judges, metrics,
    #: correlations, rows, boards, topics, calibration, uncalibrated, n_bootstrap,
    #: confidence, note), or None without label sets.
    judges: dict[str, Any] | None
    #: Per system and query, ``[doc index, rank, ...]``: where the system ranks the
    #: shown documents it holds below ``depth`` (None when no ranking is deeper).
    deep_ranks: list[list[list[int]]] | None
    #: Each system's costs beside its quality (columns: the cost columns; rows: system,
    #: metric, cost, quality, cost_mean, cost_p50, cost_p95, pareto, n_queries), or None.
    costs: dict[str, Any] | None


def payload_keys() -> list[str]:
    """Return the embedded data's top-level keys, in the order :class:`DashboardData` lists them.

    Examples
    --------
    >>> payload_keys()[:3]
    ['version', 'title', 'snippet']
    """
    return list(DashboardData.__annotations__)
