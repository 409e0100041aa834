"""``python -m rankset`` runs the same command line as ``rankset`` and ``python -m rankset.cli``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_python_m_rankset_is_the_rankset_command() -> None:
    args = [str(SAMPLE / "bm25.trec"), "--qrels", str(SAMPLE / "qrels.txt"), "-m", "rr"]
    outputs = [
        subprocess.run(
            [sys.executable, "-m", module, "evaluate", *args],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for module in ("rankset", "rankset.cli")
    ]
    assert "rr" in outputs[0]
    assert outputs[0] == outputs[1]
