"""The report's sections (header, summary, comparison, curves, diagnosis, worst queries).

Each function turns results that were already computed into the HTML of one section; the
charts come from :mod:`rankset.charts`, which escapes their specs. :func:`document` puts the
sections, a navigation bar and the header into the page. Every user string is escaped here
or in :mod:`rankset.pages.report._html`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from rankset import charts
from rankset._typing import Correction
from rankset._version import __version__
from rankset.fusion import fusion_changes
from rankset.pages._measures import greater_is_better
from rankset.pages.report._html import NA, config_value, esc, esc_code, esc_expr, fmt, page, table

if TYPE_CHECKING:
    import altair as alt

    from rankset.diagnosis.quadrants import Diagnosis
    from rankset.evaluation import EvaluationResult
    from rankset.evaluation.cutoff_curves import Curves
    from rankset.label_quality.assessors import Agreement
    from rankset.label_quality.rank_stability import RankingStability

__all__ = [
    "CHART_QUERIES",
    "QuerySample",
    "comparison_section",
    "curves_section",
    "diagnosis_section",
    "document",
    "labels_section",
    "query_sample",
    "summary_section",
    "worst_section",
]

#: The most queries a per-query chart layer draws; beyond, a seeded sample of them.
CHART_QUERIES: Final = 2_000
# Seed of the hash that picks the sample (Polars' hash, stable for a Polars version).
_SAMPLE_SEED: Final = 20_261_123


@dataclass(frozen=True)
class QuerySample:
    """The queries the per-query chart layers draw: every one, or a seeded sample.

    Tables, means, intervals and tests always use every query; only the points of the
    distribution, difference and diagnostic charts are sampled, the same queries in
    each, so a page stays small and a browser draws it at any scale.
    """

    query_ids: pl.Series | None  # None: every query is drawn
    n_queries: int

    def keep(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Return the rows of ``frame`` whose query is drawn."""
        if self.query_ids is None:
            return frame
        return frame.filter(pl.col("query_id").is_in(self.query_ids.implode()))

    def caption(self) -> str:
        """Say (as HTML) that the chart draws a sample, or nothing when it draws all."""
        if self.query_ids is None:
            return ""
        return (
            f'<p class="explain">The chart draws a sample of {self.query_ids.len():,} of the '
            f"{self.n_queries:,} queries (the same in every per-query chart, picked by a "
            "seeded hash of the query id); tables, means, intervals and tests use them all.</p>"
        )


def query_sample(result: EvaluationResult, limit: int = CHART_QUERIES) -> QuerySample:
    """Pick the queries the per-query charts draw: all up to ``limit``, else ``limit`` of them.

    Examples
    --------
    >>> import rankset
    >>> run = {f"q{i}": {"d": 1.0} for i in range(5)}
    >>> result = rankset.evaluate(run, {q: {"d": 1} for q in run}, ["rr"], confidence=None)
    >>> query_sample(result, limit=3).query_ids.len(), query_sample(result).query_ids is None
    (3, True)
    """
    ids = result.per_query["query_id"].unique()
    if ids.len() <= limit:
        return QuerySample(None, ids.len())
    order = ids.to_frame().with_columns(_h=pl.col("query_id").hash(_SAMPLE_SEED))
    picked = order.sort("_h", "query_id").head(limit)["query_id"].sort()
    return QuerySample(picked, ids.len())


_QUERY_COUNT_LABELS = {
    "n_scored": "queries scored",
    "n_run_queries_without_labels": "run queries without labels (dropped)",
    "n_label_queries_without_run": "labelled queries without a ranking",
    "missing_policy": "missing-query policy",
}


def document(
    result: EvaluationResult,
    sections: Sequence[tuple[str, str, str]],
    *,
    title: str,
    notes: Sequence[str],
    missing: Sequence[str],
) -> str:
    """Return the page: the header, then one ``(id, heading, html)`` section after another."""
    nav = "".join(f'<a href="#{key}">{esc(name)}</a>' for key, name, _ in sections)
    body = "\n".join(
        f'<section id="{key}">\n<h2>{esc(name)}</h2>\n{content}\n</section>'
        for key, name, content in sections
    )
    return page(
        title=title,
        header=_header(result, title, notes, missing, nav),
        body=body,
        bundle=charts.javascript_bundle(),
    )


def _header(
    result: EvaluationResult,
    title: str,
    notes: Sequence[str],
    missing: Sequence[str],
    nav: str,
) -> str:
    config = result.config
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    systems = ", ".join(esc_code(s) for s in result.systems)
    metrics = ", ".join(esc_code(m) for m in result.metrics)
    note_html = "".join(f'<p class="note">{esc(note)}</p>' for note in notes)
    counts = result.query_counts
    count_columns = [c for c in counts.columns if c != "system"]
    count_table = table(
        counts,
        [("system", "system", "key")]
        + [
            (c, _QUERY_COUNT_LABELS.get(c, c), "int" if c.startswith("n_") else "text")
            for c in count_columns
        ],
        caption="Queries per system: scored, and dropped each way.",
    )
    config_rows = "".join(
        f"<dt>{esc(key)}</dt><dd>{esc_code(config_value(value))}</dd>"
        for key, value in config.items()
    )
    left_out = (
        f'<p class="explain">Not in this report: {esc("; ".join(missing))}.</p>' if missing else ""
    )
    return f"""<header>
<h1>{esc(title)}</h1>
<p class="meta">Generated {generated} by rankset {esc(__version__)} ·
{len(result.systems)} system(s): {systems} · metrics: {metrics}</p>
{note_html}
<nav><a href="#queries">Queries</a>{nav}</nav>
</header>
<section id="queries">
<h2>Queries</h2>
{count_table}
{left_out}
<details><summary>Configuration</summary>
<dl class="config">{config_rows}</dl>
</details>
</section>"""


def summary_section(
    result: EvaluationResult, sample: QuerySample | None = None, n_resamples: int | None = None
) -> str:
    """Show means with confidence intervals (best per metric highlighted), then a distribution."""
    metrics = result.metrics
    summary = result.summary
    direction = {m: greater_is_better(m) for m in metrics}
    best = summary.group_by("metric").agg(
        pl.col("mean").max().alias("_max"), pl.col("mean").min().alias("_min")
    )
    is_best = (
        pl.when(pl.col("metric").replace_strict(direction, default=True, return_dtype=pl.Boolean))
        .then(pl.col("mean") == pl.col("_max"))
        .otherwise(pl.col("mean") == pl.col("_min"))
        .fill_null(False)
    )
    cells = summary.join(best, on="metric", how="left", maintain_order="left").select(
        "system",
        "metric",
        pl.concat_str(
            pl.lit('<td class="num'),
            pl.when(is_best).then(pl.lit(" best")).otherwise(pl.lit("")),
            pl.lit('" title="n = '),
            pl.col("n_queries").cast(pl.String),
            pl.lit(", NA = "),
            pl.col("n_na").cast(pl.String),
            pl.lit('">'),
            fmt(pl.col("mean")),
            pl.lit('<span class="ci">['),
            fmt(pl.col("ci_low")),
            pl.lit(", "),
            fmt(pl.col("ci_high")),
            pl.lit("]</span></td>"),
        ).alias("cell"),
    )
    order = {system: i for i, system in enumerate(result.systems)}
    wide = cells.pivot(on="metric", index="system", values="cell", on_columns=metrics).sort(
        pl.col("system").replace_strict(order, return_dtype=pl.Int64)
    )
    rows = wide.select(
        pl.concat_str(
            pl.lit('<tr><th scope="row">'),
            esc_expr(pl.col("system")),
            pl.lit("</th>"),
            *(pl.col(m).fill_null(f'<td class="num">{NA}</td>') for m in metrics),
            pl.lit("</tr>"),
        )
    ).to_series()
    head = "".join(f'<th class="num" scope="col">{esc(m)}</th>' for m in metrics)
    summary_table = (
        "<table>\n<caption>Mean over queries (NA values left out), 95% bootstrap confidence "
        f"interval below{_resamples(n_resamples)}; the best system per metric is highlighted. "
        "Hover a cell for the number of queries and of NA values.</caption>\n"
        f'<thead><tr><th scope="col">system</th>{head}</tr></thead>\n'
        f"<tbody>{''.join(rows.to_list())}</tbody>\n</table>"
    )
    first = metrics[0] if metrics else None
    sample = sample or query_sample(result)
    drawn = sample.keep(result.per_query)
    chart = (
        f"<h3>Per-query distribution of {esc(first)}</h3>\n"
        + sample.caption()
        + _chart(
            charts.distribution_chart(drawn, first, colors=_colors(result)),
            "chart-distribution",
        )
        if first is not None
        else ""
    )
    return summary_table + "\n" + chart


def comparison_section(
    result: EvaluationResult,
    comparison: pl.DataFrame,
    baseline: str | None,
    *,
    test: str,
    alpha: float,
    sample: QuerySample | None = None,
    n_resamples: int | None = None,
    correction: Correction | None = "holm",
) -> str:
    """Show the rows of ``test`` (else the frame's first test) against the baseline, charted.

    ``alpha`` is the level the caption names for the check marks of ``reject``, and
    ``correction`` the adjustment of its p-values.
    """
    tests = comparison["test"].unique(maintain_order=True).to_list()
    test = test if test in tests else tests[0]
    rows = comparison.filter(pl.col("test") == test)
    comparison_table = table(
        rows,
        [
            ("system", "system", "key"),
            ("metric", "metric", "text"),
            ("n_queries", "queries", "int"),
            ("mean", "mean", "num"),
            ("baseline_mean", "baseline", "num"),
            ("delta", "Δ", "signed"),
            ("relative_delta", "Δ %", "percent"),
            (("ci_low", "ci_high"), "95% CI of Δ", "ci"),
            ("p", "p", "p"),
            ("p_adj", "p (adjusted)", "p"),
            ("reject", "significant", "mark"),
            (("wins", "ties", "losses"), "W / T / L", "wtl"),
        ],
        caption=(
            f"Each system against the baseline{' ' + esc_code(baseline) if baseline else ''}, "
            f"paired {esc(test)} test{_resamples(n_resamples)}; {_adjustment(correction)}; "
            f"Δ % is Δ over the baseline's mean; ✓ marks p (adjusted) &lt; {alpha:g}. "
            "W / T / L: queries where the system wins, "
            "ties, loses."
        ),
        caption_is_html=True,
    )
    # The colours of every system, the baseline too, though it has no row here.
    comparison_chart = charts.comparison_chart(comparison, test=test, colors=_colors(result))
    charts_html = [_chart(comparison_chart, "chart-comparison")]
    if baseline is not None and result.metrics and baseline in result.systems:
        sample = sample or query_sample(result)
        drawn = sample.keep(result.per_query)
        charts_html.append(
            sample.caption()
            + _chart(
                charts.difference_chart(drawn, result.metrics[0], baseline), "chart-difference"
            )
        )
    return f'{comparison_table}\n<div class="charts">{"".join(charts_html)}</div>'


def curves_section(curves: Curves, systems: Sequence[str] | None = None) -> str:
    """Show the metric-vs-k chart and the range of k it covers.

    ``systems`` (default: the curves', in their order) set the systems' colours.
    """
    ks = curves.summary["k"].unique().sort().to_list()
    low, high = ks[0], ks[-1]
    if systems is None:
        systems = curves.summary["system"].unique(maintain_order=True).to_list()
    return (
        f'<p class="explain">Mean over queries at every cutoff k = {low}..{high}.</p>\n'
        + _chart(charts.curves_chart(curves, colors=charts.system_colors(systems)), "chart-curves")
    )


def diagnosis_section(diagnosis: Diagnosis, sample: QuerySample | None = None) -> str:
    """Count queries per quadrant of the retrieval-versus-reranking matrix, with two charts."""
    k = diagnosis.per_query["k"].drop_nulls().unique().sort().to_list()
    wide = diagnosis.wide()
    quadrants = [c for c in wide.columns if c != "system"]
    quadrant_table = table(
        wide,
        [("system", "system", "key"), *((q, q, "int") for q in quadrants)],
        caption=(
            f"Queries per quadrant at K = {', '.join(map(str, k))}: PROC@K (the pool's "
            f"ceiling) at or above {diagnosis.thresholds['proc']:g} and %PROC@K (the share of "
            f"it the top K realised) at or above {diagnosis.thresholds['pct_proc']:g} is "
            "healthy; a low ceiling is a retrieval miss, a low share a reranking miss. "
            "Unclassified: no useful labelled evidence."
        ),
    )
    # The dashboard draws the same matrix (rankset.charts.diagnostic_matrix).
    heatmap = _chart(charts.diagnostic_matrix(diagnosis), "chart-diagnostic-heatmap")
    drawn = diagnosis
    if sample is not None and sample.query_ids is not None:
        drawn = dataclasses.replace(diagnosis, per_query=sample.keep(diagnosis.per_query))
    scatter = (sample.caption() if sample is not None else "") + _chart(
        charts.diagnostic_scatter(drawn), "chart-diagnostic-scatter"
    )
    return f'{quadrant_table}\n<div class="charts">{heatmap}{scatter}</div>'


def fusion_section(diagnosis: Diagnosis, fused: str) -> str:
    """Count the queries that moved between quadrants from each input run to the fused run."""
    changes = fusion_changes(diagnosis, fused).with_columns(
        pl.col("before").fill_null("unclassified"),
        pl.col("after").fill_null("unclassified"),
        pl.col("query_ids").list.head(8).list.join(" ").alias("queries"),
    )
    return table(
        changes.select("system", "before", "after", "n_queries", "queries"),
        [
            ("system", "input run", "key"),
            ("before", "quadrant in the input", "text"),
            ("after", f"quadrant in {fused}", "text"),
            ("n_queries", "queries", "int"),
            ("queries", "first query ids", "longtext"),
        ],
        caption=(
            f"Each input run's queries against the fused run {fused}: moves first "
            "(retrieval miss to healthy is what fusion is for), then the queries it left "
            "where they were."
        ),
    )


def labels_section(
    result: EvaluationResult,
    agreement: Agreement,
    stability: RankingStability | None,
    reference: str,
) -> str:
    """Compare other label sets with the reference: agreement, then the systems' order."""
    table_frame = agreement.table
    thresholds = [c for c in table_frame.columns if c.startswith("kappa_at_")]
    agreement_table = table(
        table_frame,
        [
            ("judge", "label set", "key"),
            ("n_pairs", "shared pairs", "int"),
            ("n_reference_only", "reference only", "int"),
            ("n_judge_only", "set only", "int"),
            ("n_out_of_scale", "out of scale", "int"),
            ("kappa", "κ", "num"),
            ("kappa_linear", "κ linear", "num"),
            ("kappa_quadratic", "κ quadratic", "num"),
            ("alpha_ordinal", "α ordinal", "num"),
            *((c, f"κ, grade ≥ {c.removeprefix('kappa_at_')}", "num") for c in thresholds),
        ],
        caption=(
            f"Agreement of each label set with the reference {esc_code(reference)} on the "
            "(query, document) pairs both graded: Cohen's κ (unweighted, with linear or "
            "quadratic weights), Krippendorff's α, and κ with the grades binarised at each "
            "threshold. Pairs graded on one side only, and grades outside the reference's "
            f"scale ({esc(', '.join(f'{g:g}' for g in agreement.grades))}), are counted and "
            "left out."
        ),
        caption_is_html=True,
    )
    parts = [agreement_table]
    charts_html = [_chart(charts.confusion_chart(agreement), "chart-confusion")]
    if stability is not None:
        parts.append(
            table(
                stability.correlations,
                [
                    ("labels", "label set", "key"),
                    ("n_systems", "systems", "int"),
                    ("kendall_tau_b", "Kendall τ-b", "num"),
                    ("tau_ap", "τ AP", "num"),
                    ("rbo", "RBO", "num"),
                    ("n_rank_changes", "rank changes", "int"),
                    ("top", "top system", "text"),
                    ("top_stays", "reference's top stays", "mark"),
                ],
                caption=(
                    f"The order of the systems by mean {esc_code(stability.metric)} under each "
                    "label "
                    f"set, against their order under {esc_code(reference)}: τ AP weighs swaps "
                    "near the top more; RBO (p = 0.9) is the overlap of the two orders, "
                    "weighted toward the top."
                ),
                caption_is_html=True,
            )
        )
        bump = charts.stability_chart(stability, colors=_colors(result))
        charts_html.insert(0, _chart(bump, "chart-stability"))
    else:
        parts.append('<p class="explain">One system: no order of systems to compare.</p>')
    return "\n".join(parts) + f'\n<div class="charts">{"".join(charts_html)}</div>'


def worst_section(
    result: EvaluationResult,
    worst: int,
    query_text: Mapping[str, str] | None,
    among: Collection[str] | None = None,
    explanations: pl.DataFrame | None = None,
) -> str:
    """List, per system, the ``worst`` queries by the first metric (NA left out, ties by id).

    ``among`` limits them to those query ids (the queries with a relevant label);
    ``explanations`` (``system, query_id, reason``, from :func:`rankset.explain`) adds why.
    """
    metric = result.metrics[0]
    lower_is_better = not greater_is_better(metric)
    rows = result.per_query
    if among is not None:
        rows = rows.filter(
            pl.col("query_id").is_in(pl.Series(list(among), dtype=pl.String).implode())
        )
    values = (
        rows.filter(pl.col("metric") == metric, pl.col("value").is_not_null())
        .select("system", "query_id", "value")
        .with_columns(
            _system=pl.col("system").replace_strict(
                {system: i for i, system in enumerate(result.systems)}, return_dtype=pl.Int64
            )
        )
        .sort(["_system", "value", "query_id"], descending=[False, lower_is_better, False])
        .drop("_system")
        .group_by("system", maintain_order=True)
        .head(worst)
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over("system"))
    )
    columns: list[tuple[Any, str, str]] = [
        ("rank", "#", "int"),
        ("query_id", "query", "text"),
        ("value", metric, "num"),
    ]
    if query_text is not None:
        texts = pl.DataFrame(
            {"query_id": list(query_text.keys()), "query_text": list(query_text.values())},
            schema={"query_id": pl.String, "query_text": pl.String},
        )
        values = values.join(texts, on="query_id", how="left", maintain_order="left")
        columns.append(("query_text", "query text", "longtext"))
    if explanations is not None:
        reasons = explanations.select("system", "query_id", "reason")
        values = values.join(reasons, on=["system", "query_id"], how="left", maintain_order="left")
        values = values.with_columns(pl.col("reason").fill_null("no relevant label"))
        columns.append(("reason", "relevant documents", "longtext"))
    direction = "highest" if lower_is_better else "lowest"
    parts = [
        f'<p class="explain">Per system, the {worst} queries with the {direction} '
        f"{esc_code(metric)} (NA values left out"
        f"{'; only queries with a relevant label' if among is not None else ''}).</p>",
        '<div class="worst">',
    ]
    for (system,), frame in values.partition_by(
        "system", as_dict=True, maintain_order=True
    ).items():
        parts.append(f"<div><h3>{esc_code(str(system))}</h3>\n" + table(frame, columns) + "</div>")
    parts.append("</div>")
    return "\n".join(parts)


def _colors(result: EvaluationResult) -> alt.Scale:
    """One colour per system of the evaluation, the same in every chart of the page."""
    return charts.system_colors(result.systems)


_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}


def _adjustment(correction: Correction | None) -> str:
    if correction is None:
        return "p not adjusted for the number of rows"
    return f"p adjusted over every row ({_CORRECTION_NAMES[correction]})"


def _resamples(n_resamples: int | None) -> str:
    return "" if n_resamples is None else f" ({n_resamples:,} resamples)"


def _chart(chart: alt.TopLevelMixin, element_id: str) -> str:
    return charts.embed_fragment(chart, element_id)
