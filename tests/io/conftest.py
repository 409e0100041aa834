"""Makes the sample data beside this file (``_io_cases``) importable by the io tests.

pytest runs with --import-mode=importlib, which leaves sys.path alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

IO_TESTS_DIR = str(Path(__file__).resolve().parent)
if IO_TESTS_DIR not in sys.path:
    sys.path.insert(0, IO_TESTS_DIR)
