"""Number and script formatting shared by the CLI, the charts and the HTML report.

Four decimals as trec_eval prints them, a fixed spelling for NA, and the escape that keeps
JSON or JavaScript inside a ``<script>`` element from ending it.
"""

from __future__ import annotations

import math
import re

__all__ = ["DECIMALS", "format_p", "format_value", "script_safe"]

#: Decimals shown for metric values, as trec_eval prints them.
DECIMALS = 4
_SCRIPT_END = re.compile(r"</(script)", re.IGNORECASE)


def format_value(value: float | None, *, signed: bool = False, na: str = "NA") -> str:
    """Format a metric value with four decimals (``printf("%.4f")``); NA for null or NaN.

    Examples
    --------
    >>> format_value(0.12345), format_value(0.5, signed=True), format_value(None)
    ('0.1235', '+0.5000', 'NA')
    """
    if value is None or not math.isfinite(value):
        return na
    return format(value, f"{'+' if signed else ''}.{DECIMALS}f")


# Below this a p-value is written in scientific notation.
_P_SCIENTIFIC = 1e-3


def format_p(value: float | None, *, na: str = "NA") -> str:
    """Format a p-value: four decimals, or scientific notation below 0.001.

    Below 0.001 four decimals keep one or two digits, and a randomization test's smallest
    p-value, 1 / (resamples + 1), would print as ``0.0002`` with 5,000 resamples and
    ``1.0e-04`` with 10,000; every small p-value is written alike instead.

    Examples
    --------
    >>> format_p(0.03125), format_p(2e-6), format_p(float("nan"))
    ('0.0312', '2.0e-06', 'NA')
    >>> format_p(1 / 5001), format_p(1 / 10001), format_p(0.001)
    ('2.0e-04', '1.0e-04', '0.0010')
    """
    if value is None or math.isnan(value):
        return na
    return format_value(value) if value >= _P_SCIENTIFIC else f"{value:.1e}"


def script_safe(script: str) -> str:
    r"""Escape JavaScript for the inside of a ``<script>`` element.

    Only ``</script`` ends the element, in any letter case, and ``<!--`` can open a
    comment state there; ``<\/`` and ``<\!`` mean the same characters in JavaScript
    strings. (JSON data is safer written with ``<`` as ``\u003c``, as the charts do.)

    Examples
    --------
    >>> script_safe('var a = "</script><!--", b = "</SCRIPT>";')
    'var a = "<\\/script><\\!--", b = "<\\/SCRIPT>";'
    """
    return _SCRIPT_END.sub(r"<\\/\1", script).replace("<!--", "<\\!--")
