"""What the pages ask of the measure registry: names, direction, scale, cutoff.

Every question the pages put to :mod:`rankset.measures` is here,
so the rest of the package deals in metric names only.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankset.measures import Metric, greater_is_better, parse_metric, parse_metrics
from rankset.measures._shared import needs_grade_scale
from rankset.measures.nuggets import NUGGET_MEASURES

__all__ = [
    "canonical_names",
    "curve_measure",
    "curve_measures",
    "greater_is_better",
    "needs_grade_scale",
]


def canonical_names(metrics: str | Sequence[str]) -> list[str]:
    """Parse metric names (raising on an unknown one) and return their canonical spelling.

    Examples
    --------
    >>> canonical_names(["NDCG@10", "map"])
    ['ndcg@10', 'ap']
    """
    return [metric.name for metric in parse_metrics(metrics)]


def curve_measure(name: str) -> str | None:
    """Return a metric's curve: its measure and parameters without the cutoff (None: none).

    Examples
    --------
    >>> curve_measure("ndcg@10"), curve_measure("rprec")
    ('ndcg', None)
    """
    metric = parse_metric(name)
    if metric.spec.cutoff == "none" or metric.spec.name in NUGGET_MEASURES:
        return None
    return Metric(metric.measure, None, metric.params).name


def curve_measures(names: Sequence[str]) -> list[str]:
    """Measures (with parameters, without cutoff) of the metrics that take a cutoff.

    The nugget measures are left out: their pass has no per-query cutoff to sweep.

    Examples
    --------
    >>> curve_measures(["ndcg@10", "ndcg@5", "rprec", "fbeta(beta=0.5)@10"])
    ['ndcg', 'fbeta(beta=0.5)']
    """
    measures = (parse_metric(name) for name in names)
    return list(
        dict.fromkeys(
            Metric(metric.measure, None, metric.params).name
            for metric in measures
            if metric.spec.cutoff != "none" and metric.spec.name not in NUGGET_MEASURES
        )
    )
