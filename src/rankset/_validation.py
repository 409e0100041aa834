"""Parameter checks and message builders shared by every module: one place, one format.

Messages follow scikit-learn's: "The 'k' parameter must be an int >= 1. Got 0 instead."
A missing column and an unknown name each have one builder here.
"""

from __future__ import annotations

import difflib
import math
import numbers
import os
import sys
import warnings
from collections.abc import Iterable, Sequence

from rankset.errors import ParameterError

__all__ = [
    "MAX_BUCKETS",
    "MAX_INT",
    "check_choice",
    "check_float",
    "check_fraction",
    "check_int",
    "check_resampling",
    "did_you_mean",
    "missing_columns_message",
    "warn_user",
]


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


#: The largest cutoff, depth or count rankset takes (positions are 32-bit at most).
MAX_INT = 2**31 - 1
#: The most hash buckets of queries: each bucket is a pass over the runs, and more than
#: this many never lowers the memory of a pass that matters.
MAX_BUCKETS = 4096


def check_int(name: str, value: object, minimum: int, maximum: int = MAX_INT) -> int:
    """Return ``value`` if it is an int in [``minimum``, ``maximum``], else raise.

    Examples
    --------
    >>> check_int("k", 10, 1)
    10
    >>> check_int("k", 10**20, 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankset.errors.ParameterError: The 'k' parameter must be an int <= 2147483647. Got 1000...
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        msg = f"The '{name}' parameter must be an int >= {minimum}. Got {value!r} instead."
        raise ParameterError(msg)
    if int(value) > maximum:
        msg = f"The '{name}' parameter must be an int <= {maximum}. Got {value!r} instead."
        raise ParameterError(msg)
    return int(value)


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a bool, else raise :class:`ParameterError`."""
    if not isinstance(value, bool):
        msg = f"The '{name}' parameter must be a bool. Got {value!r} instead."
        raise ParameterError(msg)
    return value


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


def did_you_mean(name: str, choices: Iterable[str], *, n: int = 3) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest of ``choices``, or ``""``.

    Up to ``n`` names are suggested, those about as close as the closest (similarity within
    0.05 of it): a clear best match is named alone.

    Examples
    --------
    >>> did_you_mean("ndgc", ["ndcg", "rndcg", "ap"])
    " Did you mean 'ndcg'?"
    >>> did_you_mean("bm2", ["bm25", "bm20"])
    " Did you mean 'bm25', 'bm20'?"
    >>> did_you_mean("zzz", ["ndcg"])
    ''
    """
    close = difflib.get_close_matches(name, list(choices), n=n, cutoff=0.6)
    if not close:
        return ""
    best = difflib.SequenceMatcher(None, name, close[0]).ratio()
    near = [c for c in close if difflib.SequenceMatcher(None, name, c).ratio() >= best - 0.05]
    return f" Did you mean {', '.join(map(repr, near))}?"


def missing_columns_message(
    where: str, missing: Sequence[str], expected: Sequence[str], found: Iterable[str]
) -> str:
    """Build the one message for a frame that lacks columns: who, what is missing, what is.

    Examples
    --------
    >>> missing_columns_message("run.parquet: the run", ["doc_id"], ["query_id", "doc_id"],
    ...                         ["query_id"])
    "run.parquet: the run has no column 'doc_id'; expected query_id, doc_id (found: query_id)."
    """
    found_names = ", ".join(found) or "none"
    return (
        f"{where} has no column {', '.join(map(repr, missing))}; "
        f"expected {', '.join(expected)} (found: {found_names})."
    )


def warn_user(message: str, category: type[Warning]) -> None:
    """Warn, attributing the warning to the first caller outside rankset.

    A fixed ``stacklevel`` breaks whenever a public function gains an inner call; this
    walks the stack instead (Python 3.12's ``skip_file_prefixes``, by hand).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_user("careful", UserWarning)
    >>> caught[0].message.args[0]
    'careful'
    """
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = sys._getframe(1)
    level = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(package):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def check_resampling(confidence: float | None, n_resamples: int, seed: int) -> None:
    """Validate the summary's bootstrap options (shared by evaluate, curves, finish)."""
    if confidence is not None:
        check_fraction("confidence", confidence)
    check_int("n_resamples", n_resamples, 1)
    check_int("seed", seed, 0)
