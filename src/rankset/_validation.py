"""Parameter checks shared by every public function: one place, one message format.

Messages follow scikit-learn's: "The 'k' parameter must be an int >= 1. Got 0 instead."
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

from rankset.errors import ParameterError

__all__ = ["check_choice", "check_float", "check_fraction", "check_int"]


def _is_number(value: object) -> bool:
    # numbers.Real also admits numpy scalars, without importing numpy.
    return not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)


def check_choice(
    name: str, value: object, choices: Iterable[str], *, allow_none: bool = False
) -> None:
    """Raise :class:`ParameterError` unless ``value`` is one of ``choices`` (or allowed None)."""
    allowed = sorted(choices) if isinstance(choices, frozenset | set) else list(choices)
    if (value is None and allow_none) or value in allowed:
        return
    msg = (
        f"The '{name}' parameter must be one of {', '.join(map(repr, allowed))}. "
        f"Got {value!r} instead."
    )
    raise ParameterError(msg)


def check_int(name: str, value: object, minimum: int) -> int:
    """Return ``value`` if it is an int >= ``minimum``, else raise :class:`ParameterError`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        msg = f"The '{name}' parameter must be an int >= {minimum}. Got {value!r} instead."
        raise ParameterError(msg)
    return int(value)


def check_fraction(name: str, value: object, *, closed: bool = False) -> float:
    """Return ``value`` as a float in (0, 1), or in [0, 1] when ``closed``."""
    inside = _is_number(value) and (
        0 <= value <= 1 if closed else 0 < value < 1  # type: ignore[operator]
    )
    if not inside:
        interval = "[0, 1]" if closed else "(0, 1)"
        msg = f"The '{name}' parameter must be a float in {interval}. Got {value!r} instead."
        raise ParameterError(msg)
    return float(value)  # type: ignore[arg-type]


def check_float(name: str, value: object, *, minimum: float | None = None) -> float:
    """Return ``value`` as a finite float (>= ``minimum`` when given)."""
    if not _is_number(value) or (minimum is not None and value < minimum):  # type: ignore[operator]
        bound = "" if minimum is None else f" >= {minimum:g}"
        msg = f"The '{name}' parameter must be a float{bound}. Got {value!r} instead."
        raise ParameterError(msg)
    return float(value)  # type: ignore[arg-type]
