"""Makes the plain-Python RAG reference beside this file importable by the measures tests.

pytest runs with --import-mode=importlib, which leaves sys.path alone;
``test_rag_real_data`` imports ``test_rag_reference``.
"""

from __future__ import annotations

import sys
from pathlib import Path

MEASURES_TESTS_DIR = str(Path(__file__).resolve().parent)
if MEASURES_TESTS_DIR not in sys.path:
    sys.path.insert(0, MEASURES_TESTS_DIR)
