"""Temporary shim: ``PlanBuilder`` is :class:`rankset.measures.Features` (to be deleted)."""

from rankset.measures import GROUP, NUM_RET, QUERY_K, Features, ratio_or_zero

PlanBuilder = Features

__all__ = ["GROUP", "NUM_RET", "QUERY_K", "PlanBuilder", "ratio_or_zero"]
