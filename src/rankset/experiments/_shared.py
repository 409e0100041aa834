"""What experiments lends the other rankset packages, and no user calls: not on its face.

The pages and the charts read a history through :func:`read_history` (a store, its
folder or a frame) and show its times in UTC (:func:`in_utc`); the command line turns
``--meta KEY=VALUE`` into a store entry's meta with :func:`parse_meta`.

The architecture test allows other packages to import this private module by name
(``tests/common/test_architecture.py``, ``SHARED_PRIVATE``); the experiments' own
modules import from where each name is defined.
"""

from __future__ import annotations

from rankset.experiments._history import in_utc, read_history
from rankset.experiments._provenance import parse_meta

__all__ = ["in_utc", "parse_meta", "read_history"]
