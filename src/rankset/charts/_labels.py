"""Charts of label quality: agreement, ranks under label sets, judges and calibration."""

from __future__ import annotations

from typing import Any, Final

import altair as alt
import polars as pl

from rankset.charts._common import (
    MAX_ROWS,
    VALUE_FORMAT,
    inline_frame,
    metric_of,
    named,
    title,
    to_frame,
    unique,
)
from rankset.charts._theme import system_colors
from rankset.errors import ParameterError

__all__ = [
    "agreement_chart",
    "calibration_chart",
    "confusion_chart",
    "judges_chart",
    "stability_chart",
]

_BOARD_COLUMNS: Final = ("judge", "metric", "system", "truth_mean", "judge_mean")
_CALIBRATION_COLUMNS: Final = ("score", "n", "human_mean", "fitted")

#: The statistics an agreement chart shows by default, besides every ``kappa_at_T``.
_SHOWN = ("kappa", "kappa_quadratic", "alpha_ordinal")


def agreement_chart(agreement: object, *, max_rows: int = MAX_ROWS) -> alt.TopLevelMixin:
    """Chart each judge's agreement: kappa, quadratic kappa, ordinal alpha, kappa by threshold.

    Parameters
    ----------
    agreement
        A :class:`rankset.label_quality.assessors.Agreement` or its ``table``.
    max_rows
        Most rows to inline (one per judge and statistic).

    Returns
    -------
    altair.Chart
        A dot plot: one row per judge, best quadratic kappa first; one colour per
        statistic; 0 (chance agreement) marked by the axis.

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({"judge": ["a", "b"], "n_pairs": [9, 9], "kappa": [0.2, 0.5],
    ...                       "kappa_quadratic": [0.3, 0.6], "alpha_ordinal": [0.3, 0.6],
    ...                       "kappa_at_1": [0.1, 0.4]})
    >>> spec = agreement_chart(table).to_dict()
    >>> len(spec["data"]["values"]), spec["encoding"]["y"]["sort"]
    (8, ['b', 'a'])
    """
    table = to_frame(agreement, "table", ("judge", "kappa"), "agreement")
    statistics = [s for s in _SHOWN if s in table.columns]
    statistics += [c for c in table.columns if c.startswith("kappa_at_")]
    ordering = "kappa_quadratic" if "kappa_quadratic" in table.columns else "kappa"
    judges = table.sort(ordering, descending=True, nulls_last=True)["judge"].to_list()
    long = table.unpivot(index="judge", on=statistics, variable_name="statistic").with_columns(
        pl.col("value").cast(pl.Float64)
    )
    chart: alt.TopLevelMixin = (
        alt.Chart(inline_frame(long, max_rows, "agreement"))
        .mark_point(filled=True, size=60)
        .encode(
            x=alt.X("value:Q", title="agreement (0 = chance, 1 = perfect)"),
            y=alt.Y("judge:N", sort=judges, title=None),
            color=alt.Color("statistic:N", sort=statistics, title="statistic"),
            tooltip=[
                alt.Tooltip("judge:N"),
                alt.Tooltip("statistic:N"),
                alt.Tooltip("value:Q", format=VALUE_FORMAT),
            ],
        )
        .properties(
            width=420,
            height=alt.Step(16),
            title=title("Agreement with the reference labels", "one row per judge"),
        )
    )
    return chart


def confusion_chart(
    agreement: object, *, columns: int = 4, max_rows: int = MAX_ROWS
) -> alt.TopLevelMixin:
    """Chart each judge's confusion matrix against the reference grades (a heatmap each).

    Parameters
    ----------
    agreement
        A :class:`rankset.label_quality.assessors.Agreement` or its ``confusion`` frame.
    columns
        Panels per row before wrapping.
    max_rows
        Most rows to inline (one per judge and cell).

    Returns
    -------
    altair.FacetChart
        Reference grade down, judge grade across, the share of the reference grade's
        pairs in each cell (a row sums to 1), the count in the tooltip.

    Examples
    --------
    >>> import polars as pl
    >>> cells = pl.DataFrame({"judge": "j", "reference_grade": [0.0, 0.0, 1.0, 1.0],
    ...                       "judge_grade": [0.0, 1.0, 0.0, 1.0], "n_pairs": [3, 1, 0, 2]})
    >>> [row["share"] for row in confusion_chart(cells).to_dict()["data"]["values"]]
    [0.75, 0.25, 0.0, 1.0]
    """
    cells = to_frame(
        agreement, "confusion", ("judge", "reference_grade", "judge_grade", "n_pairs"), "agreement"
    )
    judges = unique(cells, "judge")
    shares = cells.with_columns(
        share=(
            pl.col("n_pairs") / pl.col("n_pairs").sum().over("judge", "reference_grade")
        ).fill_nan(None)
    )
    grades = [f"{g:g}" for g in sorted(set(cells["reference_grade"].to_list()))]
    shown = shares.with_columns(
        pl.col("reference_grade").map_elements(lambda g: f"{g:g}", return_dtype=pl.String),
        pl.col("judge_grade").map_elements(lambda g: f"{g:g}", return_dtype=pl.String),
    )
    base = alt.Chart().encode(
        x=alt.X("judge_grade:O", sort=grades, title="judge's grade", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("reference_grade:O", sort=grades, title="reference grade"),
    )
    rect = base.mark_rect().encode(
        color=alt.Color("share:Q", scale=alt.Scale(domain=[0, 1], scheme="blues"), title="share"),
        tooltip=[
            alt.Tooltip("judge:N"),
            alt.Tooltip("reference_grade:O", title="reference"),
            alt.Tooltip("judge_grade:O", title="judge"),
            alt.Tooltip("n_pairs:Q", title="pairs"),
            alt.Tooltip("share:Q", format=".0%"),
        ],
    )
    text = base.mark_text(fontSize=11).encode(
        text=alt.Text("share:Q", format=".0%"),
        color=alt.condition(alt.datum.share > 0.5, alt.value("white"), alt.value("black")),
    )
    chart: alt.TopLevelMixin = (
        alt.layer(rect, text, data=inline_frame(shown, max_rows, "confusion"))
        .properties(width=160, height=160)
        .facet(facet=alt.Facet("judge:N", title=None, sort=judges), columns=columns)
        .resolve_axis(x="independent")  # no axis under the empty cells of the last row
        .properties(title=title("Judge's grade given the reference grade", "rows sum to 100%"))
    )
    return chart


def stability_chart(
    stability: object, *, colors: alt.Scale | None = None, max_rows: int = MAX_ROWS
) -> alt.TopLevelMixin:
    """Chart each system's rank under each label set (a bump chart).

    Parameters
    ----------
    stability
        A :class:`rankset.label_quality.rank_stability.RankingStability` or its ``ranks``.
    colors
        Colour scale for systems (default: :func:`system_colors` of the systems shown).
    max_rows
        Most rows to inline (one per label set and system).

    Returns
    -------
    altair.LayerChart
        Label sets on the x axis in the order given, rank 1 at the top, a line and
        points per system; the tooltip gives the mean and its interval.

    Examples
    --------
    >>> import polars as pl
    >>> ranks = pl.DataFrame({"labels": ["h", "h", "j", "j"], "system": ["a", "b", "b", "a"],
    ...                       "mean": [0.9, 0.5, 0.8, 0.4], "ci_low": None, "ci_high": None,
    ...                       "rank": [1, 2, 1, 2]})
    >>> spec = stability_chart(ranks).to_dict()
    >>> encoding = spec["layer"][0]["encoding"]
    >>> encoding["x"]["sort"], encoding["y"]["scale"]["reverse"], encoding["y"]["axis"]["values"]
    (['h', 'j'], True, [1, 2])
    """
    ranks = to_frame(stability, "ranks", ("labels", "system", "mean", "rank"), "stability")
    label_sets = unique(ranks, "labels")
    scale = colors or system_colors(unique(ranks, "system"))
    lowest = max(1, *(int(rank) for rank in ranks["rank"].drop_nulls().to_list()))
    base = alt.Chart(inline_frame(ranks, max_rows, "stability")).encode(
        x=alt.X("labels:N", sort=label_sets, title="label set", axis=alt.Axis(labelAngle=0)),
        y=alt.Y(
            "rank:Q",
            # half a rank of room around the first and last, a tick on every rank
            scale=alt.Scale(reverse=True, domain=[0.5, lowest + 0.5], nice=False, zero=False),
            title="rank (1 = best)",
            axis=alt.Axis(values=list(range(1, lowest + 1)), format="d"),
        ),
        color=alt.Color("system:N", scale=scale, title="system"),
        tooltip=[
            alt.Tooltip("system:N"),
            alt.Tooltip("labels:N", title="label set"),
            alt.Tooltip("rank:Q"),
            alt.Tooltip("mean:Q", format=VALUE_FORMAT),
            *(
                [alt.Tooltip(c + ":Q", format=VALUE_FORMAT) for c in ("ci_low", "ci_high")]
                if "ci_low" in ranks.columns
                else []
            ),
        ],
    )
    chart: alt.TopLevelMixin = alt.layer(
        base.mark_line(), base.mark_point(filled=True, size=70)
    ).properties(
        width=max(240, 120 * len(label_sets)),
        height=240,
        title=title("System ranks under each label set", "a crossing line is a swap"),
    )
    return chart


def judges_chart(
    leaderboards: object,
    metric: str | alt.Parameter | None = None,
    *,
    colors: alt.Scale | None = None,
    max_rows: int = MAX_ROWS,
) -> alt.FacetChart:
    """Chart each system's mean under the judge's labels against its mean under the humans'.

    Parameters
    ----------
    leaderboards
        A :class:`rankset.label_quality.MetaEvaluation` or its ``leaderboards`` frame
        (``judge, metric, system, truth_mean, judge_mean``, and the ranks), whose rows are
        inlined; or the name of a dataset of such rows that the page fills (the
        dashboard's ``"judges"``).
    metric
        The metric to draw (default: the frame's first). A variable parameter
        (``alt.param(name="metric", value="ndcg@10")``) draws the metric it holds.
    colors
        Colour scale for systems: :func:`system_colors` of every system of the page.
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.FacetChart
        One panel per judge: a point per system at (mean under the humans, mean under the
        judge), named; a judge that keeps the order keeps the points rising left to right.

    Examples
    --------
    >>> boards = pl.DataFrame({"judge": "llm", "metric": "ndcg@10", "system": ["a", "b"],
    ...                        "truth_mean": [0.5, 0.4], "judge_mean": [0.7, 0.8],
    ...                        "truth_rank": [1, 2], "judge_rank": [2, 1]})
    >>> spec = judges_chart(boards).to_dict()
    >>> spec["facet"]["column"]["field"], len(spec["data"]["values"])
    ('judge', 2)
    >>> spec = judges_chart("judges", alt.param(name="metric", value="ndcg@10")).to_dict()
    >>> spec["data"], spec["spec"]["transform"]
    ({'name': 'judges'}, [{'filter': 'datum.metric === metric'}])
    """
    param = metric if isinstance(metric, alt.Parameter) else None
    start = metric_of(metric, "judges")
    data: alt.Data | alt.NamedData
    if isinstance(leaderboards, str):
        if start is None:
            msg = "A judges chart drawn from a dataset needs its 'metric' (a name or a parameter)."
            raise ParameterError(msg)
        data = named(leaderboards, "judges")
        judges = None
        scale = colors
    else:
        frame = to_frame(leaderboards, "leaderboards", _BOARD_COLUMNS, "leaderboards")
        if "truth_metric" in frame.columns:  # the same metric on both sides
            frame = frame.filter(pl.col("truth_metric") == pl.col("metric"))
        present = unique(frame, "metric")
        start = start or (present[0] if present else None)
        if start not in present:
            msg = f"The leaderboards have no metric {start!r}; they have {present}."
            raise ParameterError(msg)
        if param is None:
            frame = frame.filter(pl.col("metric") == start)
        judges = unique(frame, "judge")
        scale = colors or system_colors(unique(frame, "system"))
        data = inline_frame(frame, max_rows, "judges")
    color = (
        alt.Color("system:N", title="system")
        if scale is None
        else alt.Color("system:N", scale=scale, title="system")
    )
    tooltip: list[Any] = [
        alt.Tooltip("judge:N"),
        alt.Tooltip("system:N"),
        alt.Tooltip("metric:N"),
        alt.Tooltip("truth_mean:Q", title="humans' mean", format=VALUE_FORMAT),
        alt.Tooltip("judge_mean:Q", title="judge's mean", format=VALUE_FORMAT),
        alt.Tooltip("truth_rank:Q", title="humans' rank"),
        alt.Tooltip("judge_rank:Q", title="judge's rank"),
    ]
    base = alt.Chart().encode(
        x=alt.X(
            "truth_mean:Q",
            title="mean under the human labels",
            scale=alt.Scale(zero=False, padding=12),
            axis=alt.Axis(tickCount=5),
        ),
        y=alt.Y(
            "judge_mean:Q",
            title="mean under the judge's labels",
            scale=alt.Scale(zero=False, padding=12),
            axis=alt.Axis(tickCount=5),
        ),
    )
    points = base.mark_point(filled=True, size=80, opacity=0.9).encode(color=color, tooltip=tooltip)
    names = base.mark_text(align="left", dx=7, dy=-6, fontSize=11, color="#444444").encode(
        text="system:N"
    )
    layered = alt.layer(points, names, data=data).properties(width=260, height=220)
    if param is not None:
        layered = layered.transform_filter(f"datum.metric === {param.name}")
    elif isinstance(leaderboards, str):
        layered = layered.transform_filter(alt.FieldEqualPredicate(field="metric", equal=start))
    column = (
        alt.Column("judge:N", title=None, sort=judges)
        if judges
        else alt.Column("judge:N", title=None)
    )
    heading = (
        alt.Title(
            alt.ExprRef(f"'Each system: humans against the judge (' + {param.name} + ')'"),
            subtitle="one panel per judge; the same order keeps the points rising to the right",
        )
        if param is not None
        else title(
            f"Each system: humans against the judge ({start})",
            "one panel per judge; the same order keeps the points rising to the right",
        )
    )
    chart = layered.facet(column=column).properties(title=heading)
    if param is not None:
        chart = chart.add_params(param)
    return chart


def calibration_chart(calibration: object, *, max_rows: int = MAX_ROWS) -> alt.LayerChart:
    """Chart a judge's reliability: the mean human grade at each of its grades, and the fit.

    Parameters
    ----------
    calibration
        A :class:`rankset.label_quality.calibration.Calibration` or its ``table``
        (``score, n, human_mean, fitted``; with a ``judge`` column, one colour per
        judge), whose rows are inlined; or the name of a dataset of such rows (with
        ``judge``) that the page fills (the dashboard's ``"calibration"``).
    max_rows
        Most rows to inline.

    Returns
    -------
    altair.LayerChart
        The judge's grade (or score) across, the human grade up: a circle per level at the
        mean human grade (its area: the pairs), the monotone fitted map as a line, and the
        dashed diagonal where the judge's grade would equal the humans'.

    Examples
    --------
    >>> table = pl.DataFrame({"score": [0.0, 1.0, 2.0], "n": [10, 5, 3],
    ...                       "human_mean": [0.2, 0.9, 0.8], "fitted": [0.2, 0.875, 0.875]})
    >>> spec = calibration_chart(table).to_dict()
    >>> [layer["mark"]["type"] for layer in spec["layer"]]
    ['rule', 'line', 'point']
    >>> calibration_chart("calibration").to_dict()["data"]
    {'name': 'calibration'}
    """
    data: alt.Data | alt.NamedData
    if isinstance(calibration, str):
        data = named(calibration, "calibration")
        several = True
    else:
        frame = to_frame(calibration, "table", _CALIBRATION_COLUMNS, "calibration")
        several = "judge" in frame.columns
        keep = [c for c in ("judge", *_CALIBRATION_COLUMNS) if c in frame.columns]
        data = inline_frame(frame.select(keep), max_rows, "calibration")
    color: dict[str, Any] = (
        {"color": alt.Color("judge:N", title="judge", legend=alt.Legend(orient="top"))}
        if several
        else {}
    )
    x = alt.X("score:Q", title="the judge's grade (score)", scale=alt.Scale(padding=12, nice=False))
    y = alt.Y("human_mean:Q", title="mean human grade", scale=alt.Scale(padding=12, nice=False))
    tooltip: list[Any] = [
        *([alt.Tooltip("judge:N")] if several else []),
        alt.Tooltip("score:Q", title="judge's grade"),
        alt.Tooltip("n:Q", title="pairs"),
        alt.Tooltip("human_mean:Q", title="mean human grade", format=VALUE_FORMAT),
        alt.Tooltip("fitted:Q", title="fitted gain", format=VALUE_FORMAT),
    ]
    diagonal = (
        alt.Chart()
        .transform_aggregate(low="min(score)", high="max(score)")
        .mark_rule(strokeDash=[4, 4], color="#999999")
        .encode(x="low:Q", y="low:Q", x2="high:Q", y2="high:Q")
    )
    fitted = (
        alt.Chart()
        .mark_line(strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y("fitted:Q", title="mean human grade", scale=alt.Scale(padding=12, nice=False)),
            **color,
        )
    )
    points = (
        alt.Chart()
        .mark_point(filled=True, opacity=0.75)
        .encode(
            x=x,
            y=y,
            size=alt.Size("n:Q", title="pairs", legend=None, scale=alt.Scale(range=[30, 400])),
            tooltip=tooltip,
            **color,
        )
    )
    chart: alt.LayerChart = alt.LayerChart(layer=[diagonal, fitted, points], data=data).properties(
        width=300,
        height=240,
        title=title(
            "Calibration: the humans' grade at each of the judge's",
            "circles: mean human grade (area: pairs); line: the monotone fit; dashed: equal",
        ),
    )
    return chart
