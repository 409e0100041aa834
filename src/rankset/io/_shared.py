"""What io lends the other rankset packages, and no user calls: not on its face.

The evaluation, :mod:`rankset.schema` and the trec_eval face build on how io parses:
the record of a scanned text file, the row rules every reader keeps (one
set, stated once: ids without control characters, finite numbers), the sniffers that
tell a ranx mapping or a pandas/pyarrow frame from the rest, the lazy scan of a plain
TREC run, the partitioned-dataset writer, and the atomic write every writer uses.
The command line and the pages read text tables, name systems after files and expand
``official`` with the same code as the library.

The architecture test allows other packages to import this private module by name
(``tests/common/test_architecture.py``, ``SHARED_PRIVATE``); io's own modules import
from where each name is defined.
"""

from __future__ import annotations

from rankset.io._chunks import read_text_table
from rankset.io._irds import with_official_measures
from rankset.io._irds_catalog import is_irds
from rankset.io._parsed import (
    ID_CONTROL_CHARACTERS,
    TextScan,
    count_problems,
    id_problems,
    number_problems,
    score_problems,
)
from rankset.io._partitioned import write_partitioned
from rankset.io._ranx import looks_like_ranx, parse_ranx_runs
from rankset.io._sources import display_stem
from rankset.io._tables import concat_named_frames, is_foreign_frame
from rankset.io._trec import scan_trec_run
from rankset.io._writers import atomic_path

__all__ = [
    "ID_CONTROL_CHARACTERS",
    "TextScan",
    "atomic_path",
    "concat_named_frames",
    "count_problems",
    "display_stem",
    "id_problems",
    "is_foreign_frame",
    "is_irds",
    "looks_like_ranx",
    "number_problems",
    "parse_ranx_runs",
    "read_text_table",
    "scan_trec_run",
    "score_problems",
    "with_official_measures",
    "write_partitioned",
]
