"""What measures lends the other rankset packages, and no user calls: not on its face.

The evaluation's kernel groups, counts and cuts with the column names the measures'
expressions read (:data:`GROUP`, :data:`NUM_RET`, :data:`QUERY_K`); the summaries, the
plan and the trec_eval face ask a metric for its averaging, gain map and grade scale.

The architecture test allows other packages to import this private module by name
(``tests/common/test_architecture.py``, ``SHARED_PRIVATE``); the measures' own modules
import from where each name is defined.
"""

from __future__ import annotations

from rankset.measures._features import (
    GROUP,
    NUM_RET,
    POSITIONS_BELOW,
    QUERY_K,
    with_positions_below,
)
from rankset.measures._gains import gain_map
from rankset.measures._names import geometric_metrics, needs_grade_scale

__all__ = [
    "GROUP",
    "NUM_RET",
    "POSITIONS_BELOW",
    "QUERY_K",
    "gain_map",
    "geometric_metrics",
    "needs_grade_scale",
    "with_positions_below",
]
