"""What the report asks of the measure registry: names, direction, scale, cutoff.

Every question the report puts to :mod:`rankset.registry` and :mod:`rankset.plan` is here,
so the rest of the package deals in metric names only.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankset.plan import PlanBuilder
from rankset.registry import Metric, parse_metric, parse_metrics

__all__ = ["canonical_names", "curve_measures", "greater_is_better", "needs_scale"]


def canonical_names(metrics: str | Sequence[str]) -> list[str]:
    """Parse metric names (raising on an unknown one) and return their canonical spelling.

    Examples
    --------
    >>> canonical_names(["NDCG@10", "map"])
    ['ndcg@10', 'ap']
    """
    return [metric.name for metric in parse_metrics(metrics)]


def greater_is_better(name: str) -> bool:
    """Whether a larger value of the metric is better (the best cell, the worst queries).

    Examples
    --------
    >>> greater_is_better("ndcg@10")
    True
    """
    return parse_metric(name).spec.greater_is_better


def needs_scale(name: str) -> bool:
    """Whether a metric maps grades to tiers, so needs labels that fit the grade scale.

    The measure's plan is built on an empty builder, which records whether it asked for
    tiers; no data is read.

    Examples
    --------
    >>> needs_scale("proc@10"), needs_scale("ndcg@10")
    (True, False)
    """
    metric = parse_metric(name)
    plan = PlanBuilder()
    if metric.spec.build is not None:
        metric.spec.build(plan, metric)
    return bool(plan.uses_tiers)


def curve_measures(names: Sequence[str]) -> list[str]:
    """Measures (with parameters, without cutoff) of the metrics that take a cutoff.

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
            if metric.spec.cutoff != "none"
        )
    )
