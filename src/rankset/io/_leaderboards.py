"""Leaderboard files (placeholder until the meta-evaluation work lands)."""

from __future__ import annotations

from typing import Any

import polars as pl


def read_leaderboard(source: Any, format: str = "ir_measures", **options: Any) -> pl.DataFrame:
    """Read a leaderboard file: not written yet."""
    raise NotImplementedError
