"""Deprecated home of the cluster kernel: use :mod:`rankset.evaluation.cluster`.

``from rankset.cluster import connect`` keeps working for one release with a
:class:`DeprecationWarning`; every name is that of :mod:`rankset.evaluation.cluster`.
"""

from __future__ import annotations

import warnings
from typing import Any

__all__: list[str] = []


def __getattr__(name: str) -> Any:
    from rankset.evaluation import cluster

    if name not in cluster.__all__:
        msg = f"module 'rankset.cluster' has no attribute {name!r}"
        raise AttributeError(msg)
    warnings.warn(
        f"rankset.cluster.{name} moved to rankset.evaluation.cluster.{name}; the old path "
        "goes in the next release.",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(cluster, name)
