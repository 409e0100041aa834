"""Judges' outputs (placeholder until the judge-output work lands)."""

from __future__ import annotations

from typing import Any

import polars as pl


def read_judgments(source: Any, **options: Any) -> pl.DataFrame:
    """Read a judge's output: not written yet."""
    raise NotImplementedError
