"""Fusion: combine runs (RRF, CombSUM, CombMNZ, Borda, ...) and tune it on training queries.

:func:`fuse` returns a run, lazily, that :func:`rankset.evaluate` and every other verb
take as it is; :func:`optimize_fusion` evaluates a grid of configurations in one pass and
checks the best one on held-out queries.
"""

from rankset.fusion._changes import fusion_changes
from rankset.fusion._fuse import fuse, resolve_method
from rankset.fusion._methods import METHODS, NORMS
from rankset.fusion._optimize import FusionSearch, optimize_fusion
from rankset.fusion._write import write_fused

__all__ = [
    "METHODS",
    "NORMS",
    "FusionSearch",
    "fuse",
    "fusion_changes",
    "optimize_fusion",
    "resolve_method",
    "write_fused",
]
