"""Altair charts over rankset's result frames, and self-contained HTML/PNG/SVG export.

Every builder takes a rankset object (or its frame) and returns a declarative Altair chart;
none recomputes a metric. The rules, stated once:

Data
    Rows are inlined into the spec (``alt.Data(values=...)``), so Altair's 5,000-row limit
    (``MaxRowsError``) does not apply and no global data transformer is changed. Above
    ``max_rows`` rows (default :data:`MAX_ROWS`) a builder raises
    :class:`~rankset.errors.ParameterError`: filter metrics or systems, or raise ``max_rows``.
    NaN becomes null (JSON has no NaN). The charts both pages draw (:func:`curves_chart`,
    :func:`diagnostic_matrix`, :func:`history_chart`, :func:`suite_heatmap`,
    :func:`cost_quality_chart`) also take the
    name of a dataset in place of the frame: the spec then reads ``alt.NamedData(name)``,
    which a page fills (the dashboard's script does), and a variable parameter in place of
    the metric draws the metric the page sets. The report and the dashboard draw them with
    the same builder, so with the same encodings.
Colours
    :func:`system_colors` maps the system names, in the order given, onto :data:`PALETTE`
    in order. A builder colours with the systems it sees, unless ``colors=`` is given: pass
    ``system_colors(all_systems)`` (an analysis's ``systems``) to every chart of a page, as
    the report and the dashboard do, so a system keeps its colour even in a chart where
    some systems are absent (the comparison chart never shows the baseline).
Theme
    Importing this module registers the ``"rankset"`` theme and enables nothing; enabling
    it is the caller's choice: ``alt.theme.enable("rankset")``.
Export
    :func:`save_chart` writes JSON and HTML (no extra dependency), and PNG and SVG through
    vl-convert (``pip install "rankset[render]"``). HTML inlines the Vega, Vega-Lite and
    vega-embed JavaScript that rankset ships: it loads nothing from the network. In a notebook,
    :func:`enable_offline` displays that JavaScript once and every chart draws with it.

Examples
--------
>>> import polars as pl
>>> from rankset.charts import distribution_chart
>>> per_query = pl.DataFrame(
...     {
...         "system": ["bm25", "bm25", "dense", "dense"],
...         "query_id": ["q1", "q2", "q1", "q2"],
...         "metric": "ndcg@10",
...         "value": [0.5, 0.25, 0.75, 0.5],
...     }
... )
>>> spec = distribution_chart(per_query, "ndcg@10").to_dict()
>>> [layer["mark"]["type"] for layer in spec["layer"]]
['boxplot', 'point']
>>> spec["title"]["text"]
'ndcg@10 per query'
"""

from __future__ import annotations

from rankset._typing import ChartFormat
from rankset.charts._common import MAX_ROWS
from rankset.charts._comparison import comparison_chart, difference_chart
from rankset.charts._costs import cost_quality_chart
from rankset.charts._curves import curves_chart
from rankset.charts._diagnosis import (
    UNCLASSIFIED,
    diagnostic_heatmap,
    diagnostic_matrix,
    diagnostic_scatter,
)
from rankset.charts._distribution import distribution_chart
from rankset.charts._export import (
    embed_fragment,
    enable_offline,
    inline_html,
    javascript_bundle,
    save_chart,
)
from rankset.charts._history import history_chart
from rankset.charts._labels import (
    agreement_chart,
    calibration_chart,
    confusion_chart,
    judges_chart,
    stability_chart,
)
from rankset.charts._suite import suite_heatmap
from rankset.charts._systems import rank_interval_chart, significance_chart
from rankset.charts._theme import PALETTE, THEME, register_theme, system_colors

__all__ = [
    "MAX_ROWS",
    "PALETTE",
    "THEME",
    "UNCLASSIFIED",
    "ChartFormat",
    "agreement_chart",
    "calibration_chart",
    "comparison_chart",
    "confusion_chart",
    "cost_quality_chart",
    "curves_chart",
    "diagnostic_heatmap",
    "diagnostic_matrix",
    "diagnostic_scatter",
    "difference_chart",
    "distribution_chart",
    "embed_fragment",
    "enable_offline",
    "history_chart",
    "inline_html",
    "javascript_bundle",
    "judges_chart",
    "rank_interval_chart",
    "register_theme",
    "save_chart",
    "significance_chart",
    "stability_chart",
    "suite_heatmap",
    "system_colors",
]

register_theme()
