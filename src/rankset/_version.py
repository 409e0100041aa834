"""The package version: the single source (pyproject.toml reads it at build time).

A literal rather than ``importlib.metadata.version("rankset")``: reading the installed
metadata imports ``email`` and ``importlib.metadata``, about 30 ms of every start-up.
"""

from __future__ import annotations

__version__ = "0.1.0"
