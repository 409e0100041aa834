"""The ``"rankset"`` Altair theme and the stable colour of each system."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import altair as alt

__all__ = ["PALETTE", "THEME", "register_theme", "system_colors"]

#: Name under which :func:`register_theme` registers the theme.
THEME: Final = "rankset"

#: Categorical palette: Okabe & Ito's colour-blind-safe eight (yellow and black last),
#: then Paul Tol's "muted" nine; systems beyond 17 reuse colours in order.
PALETTE: Final[tuple[str, ...]] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
    "#332288",
    "#88CCEE",
    "#44AA99",
    "#117733",
    "#999933",
    "#DDCC77",
    "#CC6677",
    "#882255",
    "#AA4499",
)

_FONT: Final = "Helvetica Neue, Helvetica, Arial, Liberation Sans, DejaVu Sans, sans-serif"


def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "font": _FONT,
            "view": {"continuousWidth": 320, "continuousHeight": 220, "stroke": "#DDDDDD"},
            "range": {"category": list(PALETTE)},
            "axis": {
                "labelFontSize": 12,
                "titleFontSize": 13,
                "titleFontWeight": "normal",
                "gridColor": "#EEEEEE",
                "domainColor": "#888888",
                "tickColor": "#888888",
            },
            "header": {"labelFontSize": 13, "titleFontSize": 13, "titleFontWeight": "normal"},
            "legend": {"labelFontSize": 12, "titleFontSize": 13, "titleFontWeight": "normal"},
            "title": {"fontSize": 16, "subtitleFontSize": 12, "anchor": "start"},
            "text": {"fontSize": 12},
        }
    }


def register_theme() -> None:
    """Register the ``"rankset"`` Altair theme without enabling it.

    The theme sets readable font sizes, light grid lines and the colour-blind-safe
    :data:`PALETTE` as the categorical range. Importing :mod:`rankset.charts` registers it
    already; calling this again is harmless. Enable it with ``alt.theme.enable("rankset")``.

    Examples
    --------
    >>> import altair as alt
    >>> register_theme()
    >>> "rankset" in alt.theme.names()
    True
    """
    alt.theme.register(THEME, enable=False)(_theme)


def system_colors(systems: Sequence[str]) -> alt.Scale:
    """Return the colour scale that gives each system its colour in every chart.

    The distinct system names, in the order given (first appearance), map onto
    :data:`PALETTE` in order: pass the same list (an analysis's or an evaluation's
    ``systems``) to every chart, and a system keeps its colour even in a chart that shows
    only some of the systems (the comparison chart leaves out the baseline).

    Parameters
    ----------
    systems
        System names, in the order that sets their colours (repeats are ignored).

    Returns
    -------
    altair.Scale
        A scale with ``domain`` the names and ``range`` their colours.

    Examples
    --------
    >>> scale = system_colors(["rerank", "bm25", "rerank"])
    >>> scale.to_dict()
    {'domain': ['rerank', 'bm25'], 'range': ['#0072B2', '#E69F00']}
    """
    if isinstance(systems, str):
        systems = [systems]
    domain = list(dict.fromkeys(str(name) for name in systems))
    colors = [PALETTE[i % len(PALETTE)] for i in range(len(domain))]
    return alt.Scale(domain=domain, range=colors)
