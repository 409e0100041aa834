"""The canonical schema and every normalisation rule, each stated once.

Readers (:mod:`rankset.io`) only parse. This module turns parsed frames into the
canonical, validated form the metrics run on:

* **run**: ``system, query_id, doc_id, pos`` (+ ``score``, ``rank``, ``text`` when given),
  where ``pos`` is the 1-based position after the ordering rule;
* **labels**: ``query_id, doc_id, grade`` (Float64);
* **cutoffs**: ``query_id, k`` (Int64 >= 1).

Ordering rule (trec_eval's): when scores exist, a query's documents are ordered by score
descending, ties broken by ``doc_id`` descending in byte order, and the file's rank
column is ignored. Without scores (or with ``order="rank"``) they are ordered by rank,
ties again by ``doc_id`` descending.

Duplicate documents within one (system, query) are an error naming the first offenders
(trec_eval refuses them too); ``duplicates="keep_best"`` keeps the best-placed copy.
Duplicate label rows are always an error.
"""

from __future__ import annotations

from rankset._typing import DuplicatePolicy, OrderPolicy
from rankset.schema._rules import (
    normalize_cutoffs,
    normalize_labels,
    normalize_run,
    position_in_ranking,
)

__all__ = [
    "DuplicatePolicy",
    "OrderPolicy",
    "normalize_cutoffs",
    "normalize_labels",
    "normalize_run",
    "position_in_ranking",
]
