"""Charts of label quality: judges' agreement, and system ranks under several label sets."""

from __future__ import annotations

import altair as alt
import polars as pl

from rankset.charts._common import MAX_ROWS, VALUE_FORMAT, inline_frame, title, to_frame, unique
from rankset.charts._theme import system_colors

__all__ = ["agreement_chart", "confusion_chart", "stability_chart"]

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
