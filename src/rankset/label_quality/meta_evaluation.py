"""Meta-evaluation of judges (placeholder until that work lands)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CORRELATIONS: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetaEvaluation:
    """Not written yet."""


def correlation(truth: Any, judged: Any, method: str) -> float:
    """Not written yet."""
    raise NotImplementedError


def meta_evaluate(truth: Any, judges: Any, **options: Any) -> MetaEvaluation:
    """Not written yet."""
    raise NotImplementedError
