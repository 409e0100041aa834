"""The error hierarchy of rankset.

Every error that rankset raises on purpose derives from :class:`RanksetError`,
itself a :class:`ValueError`, so callers can catch one class. Messages name the
file, line or column at fault and what was expected. Warnings (a fallback taken, rows
dropped by a policy) are :class:`RanksetWarning`.
"""

from __future__ import annotations

__all__ = [
    "ClusterError",
    "GradeScaleError",
    "InputFormatError",
    "MissingDependencyError",
    "OutputError",
    "ParameterError",
    "RanksetError",
    "RanksetWarning",
    "SchemaError",
    "UnknownMetricError",
]


class RanksetError(ValueError):
    """Base class of every error rankset raises deliberately."""


class InputFormatError(RanksetError):
    """A file or object could not be parsed (wrong field count, bad number, bad JSON...).

    The message names the source (file path or object kind), the line number where
    one applies, and what was expected.
    """


class SchemaError(RanksetError):
    """Parsed data violates the canonical schema (missing column, wrong dtype, duplicates)."""


class GradeScaleError(SchemaError):
    """A label's grade has no tier in the grade scale of the RAG set metrics."""


class UnknownMetricError(RanksetError):
    """A metric name could not be parsed or is not registered; suggests close names."""


class ParameterError(RanksetError):
    """A function parameter has an invalid value (e.g. ``k <= 0``)."""


class ClusterError(RanksetError):
    """A Dask cluster cannot run the evaluation as asked (no worker, versions differ)."""


class OutputError(RanksetError):
    """An output file could not be written (disk full, no permission...).

    The message names the file; the atomic write leaves any earlier file unchanged.
    """


class MissingDependencyError(RanksetError, ImportError):
    """An optional dependency is needed; the message names the pip extra to install."""


class RanksetWarning(UserWarning):
    """Something worked, differently from what was asked (e.g. a fallback engine)."""
