"""Deprecated home of the cluster kernel: use :mod:`rankset.evaluation.cluster`.

``from rankset.cluster import connect`` keeps working for one release with a
:class:`DeprecationWarning`; every name is that of :mod:`rankset.evaluation.cluster`.
"""

from __future__ import annotations

import warnings
from typing import Any

__all__: list[str] = []

warnings.warn(
    "rankset.cluster moved to rankset.evaluation.cluster; the old path goes in the next release.",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    from rankset.evaluation import cluster

    return getattr(cluster, name)
