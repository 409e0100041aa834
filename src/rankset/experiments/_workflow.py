"""The gate from runs: evaluate a candidate run and gate it against a run or a store entry.

What ``rankset gate RUN --qrels LABELS (--baseline RUN | --store DIR --against TAG)`` does,
as one call, so that the command line only parses its options.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from rankset.errors import ParameterError
from rankset.evaluation import EvaluationResult, evaluate
from rankset.experiments._gate import GateResult, gate
from rankset.experiments._provenance import hash_source
from rankset.experiments._store import Store
from rankset.measures import parse_metric

__all__ = ["evaluate_and_gate"]


def evaluate_and_gate(
    run: Any,
    labels: Any,
    metrics: str | Sequence[str],
    *,
    baseline: Any = None,
    store: Store | str | os.PathLike[str] | None = None,
    against: str | None = None,
    coverage_k: int | None = 10,
    evaluate_options: Mapping[str, Any] | None = None,
    **rules: Any,
) -> GateResult:
    """Evaluate ``run`` and gate it against a baseline run or the latest store entry.

    Parameters
    ----------
    run
        The candidate run(s), as :func:`rankset.evaluate` takes them.
    labels
        The labels both sides are judged by (the store's entry keeps its own values).
    metrics
        The metrics to gate.
    baseline
        The baseline run(s), evaluated like ``run``. Give this or ``store``.
    store
        A store (or its folder) whose newest entry tagged ``against`` is the baseline.
    against
        The tag of the baseline entry in ``store`` (None: the newest entry).
    coverage_k
        ``judged@k`` is evaluated beside the metrics for the coverage check.
    evaluate_options
        Options of :func:`rankset.evaluate` (``scale``, ``relevance_level``...).
    **rules
        The rules of :func:`gate`: ``max_drop``, ``relative``, ``alpha``, ``test``,
        ``correction``, ``seed``, ``n_resamples``, ``coverage_tolerance``,
        ``fail_on_coverage``.

    Returns
    -------
    GateResult
        What :func:`gate` returns.

    Examples
    --------
    >>> labels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> old = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"b": 2.0, "y": 1.0}}
    >>> new = {"q1": {"x": 2.0, "a": 1.0}, "q2": {"b": 2.0, "y": 1.0}}
    >>> evaluate_and_gate(new, labels, "rr", baseline=old, max_drop=0.1).exit_code
    1
    """
    if (baseline is None) == (store is None):
        msg = (
            "Give the baseline as a run ('baseline') or as a store entry ('store' and "
            "'against'), not both and not neither."
        )
        raise ParameterError(msg)
    if against is not None and store is None:
        msg = "The 'against' parameter names a tag in a store; give 'store' too."
        raise ParameterError(msg)
    asked = [metrics] if isinstance(metrics, str) else list(metrics)
    names = [parse_metric(name).name for name in asked]
    evaluated = list(names)
    if coverage_k is not None:
        coverage = parse_metric(f"judged@{coverage_k}").name
        if coverage not in evaluated:
            evaluated.append(coverage)
    options = dict(evaluate_options or {})
    candidate = evaluate(run, labels, evaluated, **options)
    reference: EvaluationResult
    if store is not None:
        opened = store if isinstance(store, Store) else Store(store, create=False)
        reference = opened.latest(tag=against)
        # the entry records its labels' hash: record the candidate's to compare them
        labels_hash = hash_source(labels, kind="labels")
        config = {**candidate.config, "labels_hash": labels_hash}
        candidate = dataclasses.replace(candidate, config=config)
    else:
        # names (--name) name the candidate's runs; the baseline keeps its own name, which
        # a costs table shared by both sides uses
        reference = evaluate(baseline, labels, evaluated, **{**options, "names": None})
    return gate(candidate, reference, names, coverage_k=coverage_k, **rules)
