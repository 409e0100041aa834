"""Charts of :func:`rankset.diagnose`: queries on the PROC@K × %PROC@K plane, and counts.

The quadrant of a query is the diagnosis's own (``per_query["quadrant"]``) and so are the
counts of a :class:`~rankset.diagnosis.quadrants.Diagnosis` (``counts``): the charts classify
nothing, so they cannot disagree with the tables beside them. :func:`diagnostic_matrix` is
the one the report and the dashboard draw (the dashboard from its dataset ``diagnosis``).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import altair as alt
import polars as pl

from rankset.charts._common import (
    MAX_ROWS,
    header,
    inline,
    inline_frame,
    named,
    title,
    to_frame,
    tooltip,
    unique,
)
from rankset.diagnosis.quadrants import QUADRANTS, Diagnosis, diagnose, quadrant_counts
from rankset.errors import ParameterError

__all__ = ["UNCLASSIFIED", "diagnostic_heatmap", "diagnostic_matrix", "diagnostic_scatter"]

_QUADRANT_COLORS: Final = ("#009E73", "#E69F00", "#56B4E9", "#D55E00")
#: The matrix's column of the queries no quadrant holds (no useful labelled evidence).
UNCLASSIFIED: Final = "unclassified"
_MATRIX_COLUMNS: Final = (*QUADRANTS, UNCLASSIFIED)
_MATRIX_COLORS: Final = (*_QUADRANT_COLORS, "#8c959f")
# A cell's text: its count, and its share of the system's classifiable queries.
_CELL_LABEL: Final = (
    "datum.n_queries + (datum.share == null ? '' : ' (' + format(datum.share, '.0%') + ')')"
)
_NA_STATUS: Final = ("defined", "NA (PROC = 0), drawn at 0")


def diagnostic_scatter(
    diagnosis: Diagnosis | pl.DataFrame,
    *,
    thresholds: Mapping[str, float] | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart every query's PROC@K (x) against %PROC@K (y), one panel per system.

    Colour is the quadrant; dashed rules mark the thresholds and grey labels name the four
    regions. A query with ``proc == 0`` has no %PROC (NA): it is drawn at y = 0 as a cross
    (a "retrieval miss"). Unclassifiable queries (``proc`` NA) cannot be placed and are
    counted in the subtitle.

    Parameters
    ----------
    diagnosis
        A :class:`~rankset.diagnosis.quadrants.Diagnosis` or its ``per_query`` frame.
    thresholds
        ``{"proc": ..., "pct_proc": ...}``; default: the diagnosis's own, or 0.5 and 0.5
        (the defaults of :func:`rankset.diagnose`) for a bare frame.
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart

    Examples
    --------
    >>> import polars as pl
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": "s",
    ...         "query_id": ["q1", "q2"],
    ...         "k": 5,
    ...         "ra_nwg": [0.9, 0.0],
    ...         "proc": [1.0, 0.0],
    ...         "pct_proc": [0.9, None],
    ...         "quadrant": ["healthy", "retrieval miss"],
    ...     }
    ... )
    >>> spec = diagnostic_scatter(per_query, thresholds={"proc": 0.4, "pct_proc": 0.6}).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["spec"]["layer"]]
    ['rule', 'rule', 'text', 'point']
    """
    frame = to_frame(
        diagnosis,
        "per_query",
        ("system", "query_id", "proc", "pct_proc", "quadrant"),
        "diagnosis",
    )
    limits = _thresholds(diagnosis, thresholds)
    k = _cutoff(frame)
    n_unplaced = frame.filter(pl.col("proc").is_null() | pl.col("proc").is_nan()).height
    placed = frame.filter(pl.col("proc").is_not_null() & pl.col("proc").is_not_nan())
    pct_missing = pl.col("pct_proc").is_null() | pl.col("pct_proc").is_nan()
    placed = placed.with_columns(
        pl.when(pct_missing).then(0.0).otherwise(pl.col("pct_proc")).alias("pct_proc_shown"),
        pl.when(pct_missing)
        .then(pl.lit(_NA_STATUS[1]))
        .otherwise(pl.lit(_NA_STATUS[0]))
        .alias("pct_proc_status"),
    )
    x_title, y_title = f"PROC@{k}", f"%PROC@{k}"
    unit = alt.Scale(domain=[0.0, 1.0], nice=False)
    proc_rule = (
        alt.Chart(inline([{"threshold": limits["proc"]}]))
        .mark_rule(color="#777777", strokeDash=[5, 4])
        .encode(x=alt.X("threshold:Q", scale=unit, title=x_title))
    )
    pct_rule = (
        alt.Chart(inline([{"threshold": limits["pct_proc"]}]))
        .mark_rule(color="#777777", strokeDash=[5, 4])
        .encode(y=alt.Y("threshold:Q", scale=unit, title=y_title))
    )
    labels = (
        alt.Chart(inline(_quadrant_labels(limits["proc"], limits["pct_proc"])))
        .mark_text(color="#555555", fontSize=11, fontStyle="italic", baseline="top", dy=4)
        .encode(
            x=alt.X("x:Q", scale=unit, title=x_title),
            y=alt.Y("y:Q", scale=unit, title=y_title),
            text=alt.Text("label:N"),
        )
    )
    points = (
        alt.Chart()
        .mark_point(filled=True, size=48, opacity=0.8)
        .encode(
            x=alt.X("proc:Q", scale=unit, title=x_title),
            y=alt.Y("pct_proc_shown:Q", scale=unit, title=y_title),
            color=alt.Color(
                "quadrant:N",
                scale=alt.Scale(domain=list(QUADRANTS), range=list(_QUADRANT_COLORS)),
                title="quadrant",
            ),
            shape=alt.Shape(
                "pct_proc_status:N",
                scale=alt.Scale(domain=list(_NA_STATUS), range=["circle", "cross"]),
                title="%PROC",
            ),
            tooltip=[
                alt.Tooltip("query_id:N", title="query"),
                alt.Tooltip("system:N"),
                *tooltip(placed, ["ra_nwg", "proc", "pct_proc"]),
                alt.Tooltip("quadrant:N"),
            ],
        )
    )
    subtitle = [f"dashed: thresholds PROC = {limits['proc']:g}, %PROC = {limits['pct_proc']:g}"]
    if n_unplaced:
        subtitle.append(f"{n_unplaced} unclassifiable (system, query) pairs not shown")
    chart: alt.TopLevelMixin = (
        alt.layer(
            proc_rule, pct_rule, labels, points, data=inline_frame(placed, max_rows, "diagnosis")
        )
        .properties(width=280, height=280)
        .facet(
            # Three panels a row: four systems or more wrap instead of leaving the page.
            facet=alt.Facet("system:N", title=None, sort=unique(placed, "system"), header=header()),
            columns=_PANELS_PER_ROW,
        )
        # An x axis under each panel: a wrapped facet's shared axes also sit under the
        # empty cells of its last row.
        .resolve_axis(x="independent")
        .properties(title=title(f"Retrieval vs reranking at K = {k}", subtitle))
    )
    return chart


_PANELS_PER_ROW = 3
_HEATMAPS_PER_ROW = 4


def diagnostic_heatmap(
    diagnosis: Diagnosis | pl.DataFrame,
    *,
    max_rows: int = MAX_ROWS,
) -> alt.TopLevelMixin:
    """Chart the 2×2 quadrant counts per system (x: PROC low/high, y: %PROC low/high).

    Parameters
    ----------
    diagnosis
        A :class:`~rankset.diagnosis.quadrants.Diagnosis`, its ``counts`` frame (``system, quadrant,
        n_queries[, share]``) or its ``per_query`` frame (counted here).
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart
        Faceted by ``system`` (columns); each cell shows its quadrant, count and share.
        Unclassifiable queries are counted in the subtitle.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.DataFrame(
    ...     {
    ...         "system": "s",
    ...         "quadrant": ["healthy", "retrieval miss", "reranking miss", "both"],
    ...         "n_queries": [5, 1, 2, 0],
    ...     }
    ... )
    >>> spec = diagnostic_heatmap(counts).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["spec"]["layer"]]
    ['rect', 'text', 'text']
    """
    counts, k, limits = _heatmap_counts(diagnosis)
    n_unclassified = int(counts.filter(pl.col("quadrant").is_null())["n_queries"].sum())
    counts = counts.filter(pl.col("quadrant").is_in(list(QUADRANTS)))
    levels = {
        "healthy": ("high", "high"),
        "retrieval miss": ("low", "high"),
        "reranking miss": ("high", "low"),
        "both": ("low", "low"),
    }
    counts = counts.with_columns(
        pl.col("quadrant")
        .replace_strict({q: p for q, (p, _) in levels.items()})
        .alias("proc_level"),
        pl.col("quadrant")
        .replace_strict({q: c for q, (_, c) in levels.items()})
        .alias("pct_level"),
        pl.when(pl.col("share").is_null())
        .then(pl.col("n_queries").cast(pl.String))
        .otherwise(
            pl.format(
                "{} ({}%)",
                pl.col("n_queries"),
                (pl.col("share") * 100).round(0).cast(pl.Int64),
            )
        )
        .alias("label"),
    )
    top: int = counts.select(pl.col("n_queries").max().fill_null(0)).item()
    k_text = "K" if k is None else str(k)
    x_title = f"PROC@{k_text}" + (f" (threshold {limits['proc']:g})" if limits else "")
    y_title = f"%PROC@{k_text}" + (f" (threshold {limits['pct_proc']:g})" if limits else "")
    encode_xy = {
        "x": alt.X(
            "proc_level:N", sort=["low", "high"], title=x_title, axis=alt.Axis(labelAngle=0)
        ),
        "y": alt.Y("pct_level:N", sort=["high", "low"], title=y_title),
    }
    rect = (
        alt.Chart()
        .mark_rect(stroke="white", strokeWidth=2)
        .encode(
            **encode_xy,
            color=alt.Color(
                "n_queries:Q",
                scale=alt.Scale(scheme="blues", domain=[0, max(top, 1)]),
                title="queries",
            ),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("quadrant:N"),
                alt.Tooltip("n_queries:Q", title="queries"),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
    )
    dark = alt.datum.n_queries > top * 0.55
    name = (
        alt.Chart()
        .mark_text(fontSize=11, dy=-9)
        .encode(
            **encode_xy,
            text=alt.Text("quadrant:N"),
            color=alt.condition(dark, alt.value("white"), alt.value("#333333")),
        )
    )
    count = (
        alt.Chart()
        .mark_text(fontSize=15, fontWeight="bold", dy=9)
        .encode(
            **encode_xy,
            text=alt.Text("label:N"),
            color=alt.condition(dark, alt.value("white"), alt.value("black")),
        )
    )
    subtitle = (
        f"{n_unclassified} unclassifiable (system, query) pairs not counted"
        if n_unclassified
        else ""
    )
    chart: alt.TopLevelMixin = (
        alt.layer(rect, name, count, data=inline_frame(counts, max_rows, "diagnosis counts"))
        .properties(width=220, height=180)
        .facet(
            facet=alt.Facet("system:N", title=None, sort=unique(counts, "system"), header=header()),
            columns=_HEATMAPS_PER_ROW,  # more systems wrap instead of leaving the page
        )
        .resolve_axis(x="independent")  # no axis under the empty cells of the last row
        .properties(title=title(f"Diagnostic matrix at K = {k_text}", subtitle))
    )
    return chart


def diagnostic_matrix(
    diagnosis: Diagnosis | pl.DataFrame | str,
    *,
    systems: Sequence[str] | None = None,
    k: int | None = None,
    picked: str | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.LayerChart:
    """Chart the queries per system (rows) and quadrant (columns), one cell each.

    A cell's colour is its quadrant, its opacity the share of the system's classifiable
    queries, its text the count and the share. The unclassifiable queries (no useful
    labelled evidence) get a last column where a system has any.

    Parameters
    ----------
    diagnosis
        A :class:`~rankset.diagnosis.quadrants.Diagnosis`, its ``counts`` frame (``system,
        quadrant, n_queries[, share]``) or its ``per_query`` frame (counted here), whose
        cells are inlined; or the name of a dataset of cells (``system, quadrant,
        n_queries, share``, the unclassified ones under ``"unclassified"``) that the page
        fills (the dashboard's ``"diagnosis"``).
    systems
        The rows' order (default: the frame's; a dataset's are sorted by name unless given).
    k
        The cutoff the title names (default: the diagnosis's).
    picked
        A Vega expression over a cell's ``datum`` (``"datum.system === picked_system"``):
        the cells it holds for get a dark outline, and every cell a pointer and a hover
        outline, for a page that acts on a click (the caller adds the parameters it names).
    max_rows
        Most cells to inline.

    Returns
    -------
    altair.LayerChart

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.DataFrame(
    ...     {
    ...         "system": "s",
    ...         "quadrant": ["healthy", "retrieval miss", "reranking miss", "both", None],
    ...         "n_queries": [5, 1, 2, 0, 3],
    ...     }
    ... )
    >>> spec = diagnostic_matrix(counts, k=10).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rect', 'text']
    >>> [(v["quadrant"], v["share"]) for v in spec["data"]["values"]][-2:]
    [('both', 0.0), ('unclassified', None)]
    >>> spec["title"]["text"]
    'Diagnostic matrix at K = 10'
    """
    if isinstance(diagnosis, str):
        data: alt.Data | alt.NamedData = named(diagnosis, "diagnostic matrix")
        order = list(systems) if systems is not None else None
        k_text = "K" if k is None else str(k)
    else:
        counts, own_k, _ = _heatmap_counts(diagnosis)
        counts = counts.with_columns(pl.col("quadrant").fill_null(UNCLASSIFIED)).filter(
            (pl.col("quadrant") != UNCLASSIFIED) | (pl.col("n_queries") > 0)
        )
        order = list(systems) if systems is not None else unique(counts, "system")
        k_text = str(k) if k is not None else own_k or "K"
        data = inline_frame(counts, max_rows, "diagnostic matrix")
    base = alt.Chart().encode(
        x=alt.X(
            "quadrant:N",
            sort=list(_MATRIX_COLUMNS),
            title=None,
            axis=alt.Axis(orient="top", labelAngle=0),
        ),
        y=alt.Y("system:N", sort=order, title=None),
    )
    cell_encoding: dict[str, Any] = {
        "color": alt.Color(
            "quadrant:N",
            scale=alt.Scale(domain=list(_MATRIX_COLUMNS), range=list(_MATRIX_COLORS)),
            legend=None,
        ),
        "opacity": alt.Opacity(
            "share:Q", scale=alt.Scale(domain=[0, 1], range=[0.12, 0.9]), legend=None
        ),
        "tooltip": [
            alt.Tooltip("system:N"),
            alt.Tooltip("quadrant:N"),
            alt.Tooltip("n_queries:Q", title="queries"),
            alt.Tooltip("share:Q", format=".1%"),
        ],
    }
    cells = base.mark_rect()
    labels = base.mark_text(fontSize=13)
    if picked is not None:
        hover = alt.selection_point(
            name="cell_hover", on="pointerover", fields=["system", "quadrant"]
        )
        cell_encoding["stroke"] = (
            alt.when(picked)
            .then(alt.value("#1f2328"))
            .when(hover)
            .then(alt.value("#59636e"))
            .otherwise(alt.value(None))
        )
        cell_encoding["strokeWidth"] = alt.when(picked).then(alt.value(3)).otherwise(alt.value(1.5))
        cells = base.mark_rect(cursor="pointer").add_params(hover)
        labels = base.mark_text(fontSize=13, cursor="pointer")
    chart = alt.LayerChart(
        layer=[
            cells.encode(**cell_encoding),
            labels.encode(text=alt.Text("label:N"), color=alt.value("#1f2328")).transform_calculate(
                label=_CELL_LABEL
            ),
        ],
        data=data,
    ).properties(
        width=alt.Step(118),
        height=alt.Step(30),
        title=title(
            f"Diagnostic matrix at K = {k_text}",
            "colour: the quadrant; shade: its share of the system's classifiable queries",
        ),
    )
    return chart


def _thresholds(diagnosis: Any, given: Mapping[str, float] | None) -> dict[str, float]:
    own = getattr(diagnosis, "thresholds", None)
    limits = dict(own) if isinstance(own, Mapping) else _default_thresholds()
    if given is not None:
        unknown = sorted(set(given) - {"proc", "pct_proc"})
        if unknown:
            msg = (
                "The 'thresholds' parameter takes the keys 'proc' and 'pct_proc'. "
                f"Got {unknown} instead."
            )
            raise ParameterError(msg)
        limits.update(given)
    for key in ("proc", "pct_proc"):
        value = limits.get(key)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not 0 <= value <= 1
        ):
            msg = f"The '{key}' threshold must be a number in [0, 1]. Got {value!r} instead."
            raise ParameterError(msg)
        limits[key] = float(value)
    return limits


def _default_thresholds() -> dict[str, float]:
    # A bare frame does not carry its thresholds: take diagnose()'s defaults from its
    # signature, so the chart and the function cannot drift apart.
    parameters = inspect.signature(diagnose).parameters
    return {
        "proc": parameters["proc_threshold"].default,
        "pct_proc": parameters["pct_proc_threshold"].default,
    }


def _quadrant_labels(proc: float, pct: float) -> list[dict[str, Any]]:
    low_x, high_x = proc / 2, (1 + proc) / 2
    return [
        {"label": "healthy", "x": high_x, "y": 1.0},
        {"label": "retrieval miss", "x": low_x, "y": 1.0},
        {"label": "reranking miss", "x": high_x, "y": pct},
        {"label": "both", "x": low_x, "y": pct},
    ]


def _cutoff(frame: pl.DataFrame) -> str:
    if "k" not in frame.columns:
        return "K"
    ks = frame["k"].drop_nulls().unique().sort().to_list()
    return str(ks[0]) if len(ks) == 1 else "K"


def _heatmap_counts(diagnosis: Any) -> tuple[pl.DataFrame, str | None, dict[str, float] | None]:
    k: str | None = None
    limits: dict[str, float] | None = None
    if isinstance(diagnosis, Diagnosis):
        k = _cutoff(diagnosis.per_query)
        limits = dict(diagnosis.thresholds)
        frame = diagnosis.counts
    else:
        frame = to_frame(diagnosis, None, ("system", "quadrant"), "diagnosis")
        if "n_queries" not in frame.columns:
            # A per-query frame: counted as Diagnosis.counts is.
            k = _cutoff(frame)
            frame = quadrant_counts(frame)
    if "share" not in frame.columns:
        classified = pl.col("n_queries").filter(pl.col("quadrant").is_not_null()).sum()
        frame = frame.with_columns(
            pl.when(pl.col("quadrant").is_not_null() & (classified.over("system") > 0))
            .then(pl.col("n_queries") / classified.over("system"))
            .otherwise(None)
            .alias("share")
        )
    frame = frame.select(
        "system", "quadrant", pl.col("n_queries").cast(pl.Int64), pl.col("share").cast(pl.Float64)
    )
    return frame, k, limits
