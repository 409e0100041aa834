"""Temporary shim: the registry moved to :mod:`rankset.measures` (to be deleted)."""

from rankset.measures import (
    PER_QUERY,
    MeasureSpec,
    Metric,
    ParamSpec,
    available_measures,
    parse_metric,
    parse_metrics,
)

__all__ = [
    "PER_QUERY",
    "MeasureSpec",
    "Metric",
    "ParamSpec",
    "available_measures",
    "parse_metric",
    "parse_metrics",
]
