"""What experiments lends the other rankset packages, and no user calls: not on its face.

The pages and the charts read a history through :func:`read_history` (a store, its
folder or a frame) and show its times in UTC (:func:`in_utc`); the command line turns
``--meta KEY=VALUE`` into a store entry's meta with :func:`parse_meta`. The History views
name entries (:func:`entry_names`), mark significant changes (:data:`MARK_ALPHA`) and
show what changed between entries (:func:`recorded_settings`, :func:`setting_changes`).

The architecture test allows other packages to import this private module by name
(``tests/common/test_architecture.py``, ``SHARED_PRIVATE``); the experiments' own
modules import from where each name is defined.
"""

from __future__ import annotations

from rankset.experiments._history import (
    MARK_ALPHA,
    entry_names,
    in_utc,
    read_history,
    recorded_settings,
    setting_changes,
)
from rankset.experiments._provenance import parse_meta

__all__ = [
    "MARK_ALPHA",
    "entry_names",
    "in_utc",
    "parse_meta",
    "read_history",
    "recorded_settings",
    "setting_changes",
]
