"""The dashboard tests' helper module on sys.path (as tests/conftest.py does for tests/)."""

from __future__ import annotations

import sys
from pathlib import Path

DASHBOARD_TESTS_DIR = Path(__file__).resolve().parent
if str(DASHBOARD_TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(DASHBOARD_TESTS_DIR))
