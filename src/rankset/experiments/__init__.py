"""Results that last: an experiment store, its history, and a CI gate.

- :class:`Store`: a folder of logged evaluations, Parquet tables that Polars alone reads
  (``pl.read_parquet("store/entries/*/summary.parquet")``), written atomically so that
  concurrent writers need no lock; :meth:`Store.history` shows how the means moved, and
  :meth:`Store.result` / :meth:`Store.latest` give an entry back as an
  :class:`~rankset.EvaluationResult`;
- :func:`gate`: exit 0 when no asked metric fell past the rule, 1 when one did, with a
  Markdown report for a pull request (:class:`GateResult`); :func:`evaluate_and_gate`
  evaluates a run first and takes its baseline as a run or a store entry;
- :func:`latest_changes`: each system's last logged mean and its change from the one
  before (the History tables of the report and the dashboard).

Inside: ``_layout`` (the folder, its format version, the atomic write), ``_provenance``
(hashes, git commit, meta), ``_store``, ``_gate``, ``_report`` (the gate's Markdown),
``_history`` (the history's latest changes; its chart is
:func:`rankset.charts.history_chart`), and ``_workflow``
(:func:`evaluate_and_gate`).

Examples
--------
>>> import rankset
>>> from rankset.experiments import gate
>>> labels = {"q1": {"a": 1}, "q2": {"b": 1}}
>>> before = rankset.evaluate({"q1": {"a": 2.0}, "q2": {"b": 2.0}}, labels, ["rr"])
>>> gate(before, before, "rr", max_drop="2%").passed
True
"""

from __future__ import annotations

from rankset.experiments._gate import (
    GATE_COLUMNS,
    GATE_TESTS,
    VALUE_OPTIONS,
    GateResult,
    GateTest,
    gate,
)
from rankset.experiments._history import LATEST_COLUMNS, latest_changes
from rankset.experiments._layout import FORMAT_VERSION
from rankset.experiments._store import HISTORY_COLUMNS, Store
from rankset.experiments._workflow import evaluate_and_gate

__all__ = [
    "FORMAT_VERSION",
    "GATE_COLUMNS",
    "GATE_TESTS",
    "HISTORY_COLUMNS",
    "LATEST_COLUMNS",
    "VALUE_OPTIONS",
    "GateResult",
    "GateTest",
    "Store",
    "evaluate_and_gate",
    "gate",
    "latest_changes",
]
