"""The pages: one computed analysis, drawn as a static report or an interactive dashboard."""

from __future__ import annotations

__all__: list[str] = []
