"""The dashboard's Judges view: each other label set judged against the human labels.

The rows are :attr:`rankset.pages.Analysis.judges_view`'s, as the report shows them: the
correlations of the two leaderboards with their bootstrap intervals over topics, both
leaderboards side by side, the topics of most disagreement (each a link to its query
view), and the calibration of the judges that share pairs with the humans. The metric
picked on the page chooses the rows; the charts are :func:`rankset.charts.judges_chart`
(driven by its ``metric`` parameter) and :func:`rankset.charts.calibration_chart`, and the
script (``renderJudges`` in ``rankset/pages/assets/dashboard_views.js``) fills the tables.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from rankset._format import counted

if TYPE_CHECKING:
    from rankset.pages._judges import JudgesView

__all__ = ["judges_data", "judges_section_html", "judges_tab_html", "judges_text"]

_DECIMALS: Final = 6


def judges_data(view: JudgesView) -> dict[str, Any]:
    """Return the Judges view's data (the payload's ``judges``).

    ``reference`` names the human labels, ``judges`` the others, ``metrics`` those
    meta-evaluated and ``correlations`` the names shown, in order; ``rows``,
    ``boards``, ``topics`` and ``calibration`` are the view's frames as records
    (values rounded to six decimals, NaN as null); ``uncalibrated``, ``n_bootstrap``,
    ``confidence`` and ``note`` say what is missing and how the intervals were drawn.
    """
    names = list(dict.fromkeys(view.correlations["correlation"].to_list()))
    return {
        "reference": view.reference,
        "judges": list(view.judges),
        "metrics": list(view.metrics),
        "correlations": names,
        "rows": _records(view.correlations),
        "boards": _records(view.leaderboards),
        "topics": _records(view.topics),
        "calibration": _records(view.calibration),
        "uncalibrated": list(view.uncalibrated),
        "n_bootstrap": view.n_bootstrap,
        "confidence": view.confidence,
        "note": view.note,
    }


def _records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    floats = [name for name, dtype in frame.schema.items() if dtype.is_float()]
    return frame.with_columns(pl.col(floats).fill_nan(None).round(_DECIMALS)).to_dicts()


def judges_text(judges: Mapping[str, Any]) -> str:
    """Say in one paragraph (plain text) what the Judges view shows.

    Examples
    --------
    >>> judges_text({"reference": "qrels", "judges": ["llm"], "n_bootstrap": 1000,
    ...              "confidence": 0.95, "note": None})[:68]
    'Each other label set judges the human labels qrels (the truth): llm.'
    """
    named: Sequence[str] = judges["judges"]
    text = (
        f"Each other label set judges the human labels {judges['reference']} (the truth): "
        f"{', '.join(named)}. "
    )
    if judges["note"]:
        return text + str(judges["note"])
    return text + (
        "For the metric picked above: how far each judge's leaderboard agrees with the "
        "humans' (the correlations autojudge-evaluate computes, each with a "
        f"{judges['confidence']:.0%} bootstrap interval over topics, "
        f"{counted(judges['n_bootstrap'], 'draw')}), both leaderboards side by side, the "
        "topics where the judge orders the systems least like the humans (a link opens the "
        "query's two rankings), and the judge's calibration on the pairs both labelled."
    )


def judges_tab_html() -> str:
    """Return the view's tab button."""
    return '<button type="button" role="tab" data-tab="judges">Judges</button>'


def judges_section_html(judges: Mapping[str, Any]) -> str:
    """Return the view's section (hidden until picked); the script fills the tables."""
    return f"""<section data-view="judges" aria-label="Judges" hidden>
<h2>Judges</h2>
<p class="explain" id="judges-explain">{html.escape(judges_text(judges))}</p>
<p class="note" id="judges-missing" hidden></p>
<div id="judges-body">
<table id="judges-correlations"></table>
<div class="charts">
<div><table id="judges-boards"></table></div>
<div><div id="chart-judges"></div></div>
</div>
<h3 id="judges-topics-title">Where the judges and the humans disagree most</h3>
<p class="explain">Per judge, the topics whose systems it orders least like the humans:
Kendall's &tau;-b of the systems' values on the topic under both labels (&minus;1: the
reverse order). A query opens its side-by-side view.</p>
<div class="judges-topics" id="judges-topics"></div>
</div>
<h3>Calibration</h3>
<p class="explain" id="calibration-explain"></p>
<div id="chart-calibration"></div>
</section>"""
