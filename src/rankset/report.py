"""A static, self-contained HTML report: tables, comparisons, curves and diagnostics.

:func:`build_report` turns results that were already computed into one HTML document;
:func:`report` computes them from runs and labels and writes the file. The page needs nothing
but itself: one inlined JavaScript bundle (Vega, Vega-Lite, vega-embed) draws the charts, there
is no CDN, no web font and no image file, and a Content-Security-Policy forbids the page to load
anything else. Every string that comes from the user (system names, query ids, query text,
metric names, configuration values) is HTML-escaped; chart specs are embedded by
:func:`rankset.charts.embed_fragment`, which escapes them for a ``<script>`` element.

Choices, stated once:

- Default baseline: when ``baseline`` is not given and there are two systems or more, the
  first system in alphabetical order (the order of :attr:`EvaluationResult.systems`; the order
  of the inputs is not kept by :func:`rankset.evaluate`). Pass ``baseline=`` to choose.
- Significance: the paired randomization test (no scipy needed), Holm correction over every
  row of the table, ``alpha = 0.05``.
- Labels that do not fit the grade scale: when ``scale=`` is not given and the labels have
  grades outside the default ``rag5`` scale, the metrics that need the scale (``ra_nwg``,
  ``proc``, ``pct_proc``...) are dropped, the diagnostic section is left out, and the header
  says so; an explicit ``scale=`` that does not fit still raises.
- Worst queries: per system, the ``worst`` queries with the worst value of the first metric
  (lowest, or highest for a metric where lower is better), NA values left out, ties broken by
  query id.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from rankset._version import __version__
from rankset.errors import GradeScaleError, ParameterError
from rankset.evaluation import EvaluationResult, evaluate
from rankset.io import atomic_path
from rankset.plan import PlanBuilder
from rankset.registry import Metric, parse_metric, parse_metrics

if TYPE_CHECKING:
    import altair as alt

    from rankset.cutoff_curves import Curves
    from rankset.diagnosis import Diagnosis

__all__ = ["CSP", "DEFAULT_REPORT_METRICS", "build_report", "report"]

#: Metrics :func:`report` computes when none are named.
DEFAULT_REPORT_METRICS = ("ndcg@10", "ap", "recall@100", "ra_nwg@10", "proc@10", "pct_proc@10")

#: The page's Content-Security-Policy: inline scripts and styles, ``data:`` images, nothing
#: else (no network request of any kind, no ``eval``).
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"

_DECIMALS = 4  # of every number shown
_NA = "–"  # shown for NA (null or NaN)
_TEST: Final = "randomization"
_ALPHA = 0.05
# Options of rankset.evaluate that rankset.curves also takes.
_CURVE_OPTIONS = (
    "relevance_level",
    "missing",
    "order",
    "duplicates",
    "names",
    "scale",
    "pool",
    "answers",
)
_QUERY_COUNT_LABELS = {
    "n_scored": "queries scored",
    "n_run_queries_without_labels": "run queries without labels (dropped)",
    "n_label_queries_without_run": "labelled queries without a ranking",
    "missing_policy": "missing-query policy",
}

# Vega compiles expressions with the Function constructor, which the CSP forbids (no
# 'unsafe-eval'); with ``ast: true`` vega-embed uses the bundled expression interpreter instead.
# Forced here so every chart of the page draws under the CSP, whatever options it passes.
_AST_SHIM = """(function () {
  var embed = window.vegaEmbed;
  if (typeof embed !== "function") { return; }
  var wrapped = function (el, spec, options) {
    return embed(el, spec, Object.assign({}, options || {}, { ast: true }));
  };
  Object.assign(wrapped, embed);
  window.vegaEmbed = wrapped;
})();"""

_CSS = """
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --zebra: #f6f8fa; --best: #dafbe1; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto,
  "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: #fff; }
main { max-width: 1280px; margin: 0 auto; padding: 24px 32px 64px; }
header { border-bottom: 2px solid var(--line); margin-bottom: 8px; padding-bottom: 8px; }
h1 { font-size: 1.8em; margin: 0 0 4px; }
h2 { font-size: 1.35em; margin: 36px 0 8px; padding-bottom: 4px;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 1.08em; margin: 20px 0 6px; }
p, li { max-width: 80ch; }
.meta { color: var(--muted); margin: 0 0 12px; }
.note { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px;
  padding: 8px 12px; max-width: 80ch; }
.explain { color: var(--muted); font-size: 0.92em; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.93em; }
caption { text-align: left; color: var(--muted); padding: 0 0 4px; caption-side: top; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { background: #eef1f4; text-align: left; border-bottom: 2px solid var(--line);
  white-space: nowrap; }
tbody tr:nth-child(even) { background: var(--zebra); }
tbody th { text-align: left; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 60ch; overflow-wrap: anywhere; }
td.best { background: var(--best); font-weight: 600; }
td.sig { color: #1a7f37; font-weight: 700; text-align: center; }
.ci { display: block; color: var(--muted); font-size: 0.85em; font-weight: 400; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 0.9em; overflow-wrap: anywhere; }
dl.config { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px;
  font-size: 0.9em; }
dl.config dt { color: var(--muted); }
dl.config dd { margin: 0; }
details { margin: 8px 0; }
summary { cursor: pointer; color: var(--accent); }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.vega-chart { min-height: 40px; max-width: 100%; overflow-x: auto; }
.worst { display: flex; flex-wrap: wrap; gap: 8px 40px; align-items: flex-start; }
nav { font-size: 0.92em; margin: 8px 0 0; }
nav a { color: var(--accent); margin-right: 14px; text-decoration: none; }
"""


# ---------------------------------------------------------------------------------------------
# public API


def build_report(
    result: EvaluationResult,
    *,
    baseline: str | None = None,
    comparison: pl.DataFrame | None = None,
    curves: Curves | None = None,
    diagnosis: Diagnosis | None = None,
    title: str = "rankset report",
    worst: int = 10,
    query_text: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
) -> str:
    """Render results as one self-contained HTML document.

    Sections without their input are left out (with a line saying so): the comparison needs
    ``comparison``, the curves ``curves``, the diagnostic matrix ``diagnosis``. Nothing is
    computed here but formatting and the choice of the worst queries.

    Parameters
    ----------
    result
        The evaluation: header, summary table and worst queries.
    baseline
        The baseline of ``comparison``: named in its caption and used for the per-query
        difference chart of the first metric (left out when ``None``).
    comparison
        A frame from :func:`rankset.compare`; the rows of the randomization test are shown
        (those of the first test in the frame when it has no randomization row).
    curves
        Metric-vs-k curves from :func:`rankset.curves`.
    diagnosis
        The retrieval-versus-reranking matrix from :func:`rankset.diagnose`.
    title
        The page title (escaped).
    worst
        How many of each system's worst queries to list (0 leaves the section out).
    query_text
        ``{query_id: text}`` shown next to the worst queries.
    notes
        Lines shown under the header (escaped), e.g. what :func:`report` left out.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import rankset
    >>> res = rankset.evaluate({"<q>": {"d1": 1.0}}, {"<q>": {"d1": 1}}, ["rr"])
    >>> page = build_report(res, title="A & B")
    >>> "<title>A &amp; B</title>" in page, "<td>&lt;q&gt;</td>" in page
    (True, True)
    """
    from rankset import charts

    if worst < 0:
        msg = f"The 'worst' parameter must be >= 0. Got {worst!r} instead."
        raise ParameterError(msg)
    sections: list[tuple[str, str, str]] = [
        ("summary", "Summary", _summary_section(result, charts)),
    ]
    if comparison is not None and comparison.height:
        sections.append(
            ("comparison", "Comparison", _comparison_section(result, comparison, baseline, charts))
        )
    if curves is not None and curves.summary.height:
        sections.append(("curves", "Metric vs k", _curves_section(curves, charts)))
    if diagnosis is not None and diagnosis.per_query.height:
        sections.append(("diagnosis", "Diagnostic matrix", _diagnosis_section(diagnosis, charts)))
    if worst and result.metrics:
        sections.append(("worst", "Worst queries", _worst_section(result, worst, query_text)))
    missing = [
        name
        for name, given in (
            ("comparison (one system, or no baseline)", comparison is not None),
            ("metric-vs-k curves", curves is not None),
            ("diagnostic matrix", diagnosis is not None),
        )
        if not given
    ]
    nav = "".join(f'<a href="#{key}">{_esc(name)}</a>' for key, name, _ in sections)
    body = "\n".join(
        f'<section id="{key}">\n<h2>{_esc(name)}</h2>\n{content}\n</section>'
        for key, name, content in sections
    )
    bundle = _script_safe(charts.javascript_bundle())
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="rankset {_esc(__version__)}">
<title>{_esc(title)}</title>
<style>{_CSS}</style>
<script>{bundle}</script>
<script>{_AST_SHIM}</script>
</head>
<body>
<main>
{_header(result, title, notes, missing, nav)}
{body}
</main>
</body>
</html>
"""


def report(
    runs: Any,
    labels: Any = None,
    *,
    metrics: str | Sequence[str] = DEFAULT_REPORT_METRICS,
    baseline: str | None = None,
    k: int = 10,
    k_max: int = 20,
    out: str | os.PathLike[str] = "report.html",
    title: str = "rankset report",
    worst: int = 10,
    query_text: Mapping[str, str] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    **evaluate_options: Any,
) -> Path:
    """Evaluate, compare, draw curves and diagnose runs, and write the HTML report.

    The runs are read more than once (evaluation, curves), so pass paths or in-memory
    frames, not open file objects.

    Parameters
    ----------
    runs, labels
        As for :func:`rankset.evaluate`.
    metrics
        Metrics of the summary, the comparison and the worst queries (the first one).
    baseline
        System the others are compared with; by default, with two systems or more, the
        first system in alphabetical order. With one system there is no comparison.
    k
        Cutoff of the diagnostic matrix (``ra_nwg@k``, ``proc@k``, ``pct_proc@k``).
    k_max
        The curves go from k = 1 to ``k_max``, for every measure of ``metrics`` that takes
        a cutoff.
    out
        The file to write (atomically: a temporary file beside it, then a rename).
    title, worst, query_text
        As for :func:`build_report`.
    n_resamples, seed
        Bootstrap resamples of the confidence intervals and random sign assignments of the
        randomization test; one seed for all.
    **evaluate_options
        Passed to :func:`rankset.evaluate` (``scale=``, ``pool=``, ``missing=``...). When
        ``scale`` is not given and the labels do not fit the default ``rag5`` scale, the
        metrics that need a scale and the diagnostic matrix are left out, with a note.

    Returns
    -------
    pathlib.Path
        The written file.

    Examples
    --------
    >>> import tempfile
    >>> runs = {"a": {"q1": {"d1": 1.0, "d2": 0.5}}, "b": {"q1": {"d2": 1.0, "d1": 0.5}}}
    >>> labels = {"q1": {"d1": 5, "d2": 3}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = report(runs, labels, out=Path(folder) / "r.html", n_resamples=100)
    ...     print(path.name, "Worst queries" in path.read_text(encoding="utf-8"))
    r.html True
    """
    names = [metric.name for metric in parse_metrics(metrics)]
    notes: list[str] = []
    options = {"n_resamples": n_resamples, "seed": seed, **evaluate_options}
    try:
        result = evaluate(runs, labels, names, **options)
    except GradeScaleError as error:
        scaled = [name for name in names if _needs_scale(name)]
        if "scale" in evaluate_options or not scaled:
            raise
        names = [name for name in names if name not in scaled]
        notes.append(f"Left out {', '.join(scaled)} and the diagnostic matrix: {error}")
        if not names:
            raise
        result = evaluate(runs, labels, names, **options)
    rag_ok = not notes

    comparison = None
    systems = result.systems
    if baseline is not None or len(systems) >= 2:
        from rankset.comparison import compare

        baseline = systems[0] if baseline is None else baseline
        comparison = compare(
            result, baseline, tests=[_TEST], n_resamples=n_resamples, seed=seed, alpha=_ALPHA
        )

    from rankset.cutoff_curves import curves as compute_curves

    measures = _curve_measures(names)
    curve_options = {key: value for key, value in evaluate_options.items() if key in _CURVE_OPTIONS}
    curves = (
        compute_curves(
            runs, labels, measures, ks=k_max, n_resamples=n_resamples, seed=seed, **curve_options
        )
        if measures
        else None
    )

    diagnosis = None
    if rag_ok:
        from rankset.diagnosis import diagnose

        needed = {f"ra_nwg@{k}", f"proc@{k}", f"pct_proc@{k}"}
        if needed <= set(names):
            diagnosis = diagnose(result, k=k)
        else:
            diagnosis = diagnose(
                runs,
                labels,
                k=k,
                **{key: value for key, value in evaluate_options.items() if key != "k"},
                confidence=None,
            )

    page = build_report(
        result,
        baseline=baseline,
        comparison=comparison,
        curves=curves,
        diagnosis=diagnosis,
        title=title,
        worst=worst,
        query_text=query_text,
        notes=notes,
    )
    target = Path(out)
    with atomic_path(target) as temp:
        temp.write_text(page, encoding="utf-8")
    return target


# ---------------------------------------------------------------------------------------------
# sections


def _header(
    result: EvaluationResult,
    title: str,
    notes: Sequence[str],
    missing: Sequence[str],
    nav: str,
) -> str:
    config = result.config
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    systems = ", ".join(f"<code>{_esc(s)}</code>" for s in result.systems)
    metrics = ", ".join(f"<code>{_esc(m)}</code>" for m in result.metrics)
    note_html = "".join(f'<p class="note">{_esc(note)}</p>' for note in notes)
    counts = result.query_counts
    count_columns = [c for c in counts.columns if c != "system"]
    count_table = _table(
        counts,
        [("system", "system", "key")]
        + [
            (c, _QUERY_COUNT_LABELS.get(c, c), "int" if c.startswith("n_") else "text")
            for c in count_columns
        ],
        caption="Queries per system: scored, and dropped each way.",
    )
    config_rows = "".join(
        f"<dt>{_esc(key)}</dt><dd><code>{_esc(_config_value(value))}</code></dd>"
        for key, value in config.items()
    )
    left_out = (
        f'<p class="explain">Not in this report: {_esc("; ".join(missing))}.</p>' if missing else ""
    )
    return f"""<header>
<h1>{_esc(title)}</h1>
<p class="meta">Generated {generated} by rankset {_esc(__version__)} ·
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


def _summary_section(result: EvaluationResult, charts: Any) -> str:
    metrics = result.metrics
    summary = result.summary
    direction = {m: parse_metric(m).spec.greater_is_better for m in metrics}
    best = summary.group_by("metric").agg(
        pl.col("mean").max().alias("_max"), pl.col("mean").min().alias("_min")
    )
    is_best = (
        pl.when(pl.col("metric").replace_strict(direction, default=True, return_dtype=pl.Boolean))
        .then(pl.col("mean") == pl.col("_max"))
        .otherwise(pl.col("mean") == pl.col("_min"))
        .fill_null(False)
    )
    cells = summary.join(best, on="metric", how="left").select(
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
            _fmt(pl.col("mean")),
            pl.lit('<span class="ci">['),
            _fmt(pl.col("ci_low")),
            pl.lit(", "),
            _fmt(pl.col("ci_high")),
            pl.lit("]</span></td>"),
        ).alias("cell"),
    )
    wide = cells.pivot(on="metric", index="system", values="cell", on_columns=metrics).sort(
        "system"
    )
    rows = wide.select(
        pl.concat_str(
            pl.lit('<tr><th scope="row">'),
            _esc_expr(pl.col("system")),
            pl.lit("</th>"),
            *(pl.col(m).fill_null(f'<td class="num">{_NA}</td>') for m in metrics),
            pl.lit("</tr>"),
        )
    ).to_series()
    head = "".join(f'<th class="num" scope="col">{_esc(m)}</th>' for m in metrics)
    table = (
        "<table>\n<caption>Mean over queries (NA values left out), 95% bootstrap confidence "
        "interval below; the best system per metric is highlighted. Hover a cell for the "
        "number of queries and of NA values.</caption>\n"
        f'<thead><tr><th scope="col">system</th>{head}</tr></thead>\n'
        f"<tbody>{''.join(rows.to_list())}</tbody>\n</table>"
    )
    first = metrics[0] if metrics else None
    chart = (
        f"<h3>Per-query distribution of {_esc(first)}</h3>\n"
        + _chart(charts.distribution_chart(result, first), "chart-distribution", charts)
        if first is not None
        else ""
    )
    return table + "\n" + chart


def _comparison_section(
    result: EvaluationResult,
    comparison: pl.DataFrame,
    baseline: str | None,
    charts: Any,
) -> str:
    tests = comparison["test"].unique(maintain_order=True).to_list()
    test = _TEST if _TEST in tests else tests[0]
    rows = comparison.filter(pl.col("test") == test)
    table = _table(
        rows,
        [
            ("system", "system", "key"),
            ("metric", "metric", "text"),
            ("n_queries", "queries", "int"),
            ("mean", "mean", "num"),
            ("baseline_mean", "baseline", "num"),
            ("delta", "Δ", "signed"),
            (("ci_low", "ci_high"), "95% CI of Δ", "ci"),
            ("p", "p", "p"),
            ("p_adj", "p (adjusted)", "p"),
            ("reject", "significant", "mark"),
            (("wins", "ties", "losses"), "W / T / L", "wtl"),
        ],
        caption=(
            f"Each system against the baseline{' ' + _esc_code(baseline) if baseline else ''}, "
            f"paired {_esc(test)} test; p adjusted over every row (Holm); ✓ marks "
            f"p (adjusted) &lt; {_ALPHA:g}. W / T / L: queries where the system wins, ties, "
            "loses."
        ),
        caption_is_html=True,
    )
    charts_html = [
        _chart(charts.comparison_chart(comparison, test=test), "chart-comparison", charts)
    ]
    if baseline is not None and result.metrics and baseline in result.systems:
        charts_html.append(
            _chart(
                charts.difference_chart(result, result.metrics[0], baseline),
                "chart-difference",
                charts,
            )
        )
    return f'{table}\n<div class="charts">{"".join(charts_html)}</div>'


def _curves_section(curves: Curves, charts: Any) -> str:
    ks = curves.summary["k"].unique().sort().to_list()
    low, high = ks[0], ks[-1]
    return (
        f'<p class="explain">Mean over queries at every cutoff k = {low}..{high}.</p>\n'
        + _chart(charts.curves_chart(curves), "chart-curves", charts)
    )


def _diagnosis_section(diagnosis: Diagnosis, charts: Any) -> str:
    k = diagnosis.per_query["k"].drop_nulls().unique().sort().to_list()
    wide = diagnosis.wide()
    quadrants = [c for c in wide.columns if c != "system"]
    table = _table(
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
    charts_html = _chart(
        charts.diagnostic_heatmap(diagnosis), "chart-diagnostic-heatmap", charts
    ) + _chart(charts.diagnostic_scatter(diagnosis), "chart-diagnostic-scatter", charts)
    return f'{table}\n<div class="charts">{charts_html}</div>'


def _worst_section(
    result: EvaluationResult, worst: int, query_text: Mapping[str, str] | None
) -> str:
    metric = result.metrics[0]
    lower_is_better = not parse_metric(metric).spec.greater_is_better
    values = (
        result.per_query.filter(pl.col("metric") == metric, pl.col("value").is_not_null())
        .select("system", "query_id", "value")
        .sort(["system", "value", "query_id"], descending=[False, lower_is_better, False])
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
    direction = "highest" if lower_is_better else "lowest"
    parts = [
        f'<p class="explain">Per system, the {worst} queries with the {direction} '
        f"{_esc_code(metric)} (NA values left out).</p>",
        '<div class="worst">',
    ]
    for (system,), frame in values.partition_by(
        "system", as_dict=True, maintain_order=True
    ).items():
        parts.append(
            f"<div><h3>{_esc_code(str(system))}</h3>\n" + _table(frame, columns) + "</div>"
        )
    parts.append("</div>")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# helpers


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _esc_code(text: str) -> str:
    return f"<code>{_esc(text)}</code>"


def _esc_expr(expr: pl.Expr) -> pl.Expr:
    """Vectorised :func:`html.escape` (quote=True) of a string column."""
    out = expr.cast(pl.String)
    for raw, entity in (
        ("&", "&amp;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ('"', "&quot;"),
        ("'", "&#x27;"),
    ):
        out = out.str.replace_all(raw, entity, literal=True)
    return out


def _fmt(expr: pl.Expr, *, signed: bool = False) -> pl.Expr:
    """Format floats with four decimals as ``printf("%.4f")`` (and trec_eval) does.

    Polars rounds the binary value times 10^4, which differs from correct decimal rounding
    near halves (0.12345 is 0.1234 there, 0.1235 in trec_eval), so the digits come from
    Python's formatting, applied to the column at once; only displayed cells (systems ×
    metrics, or the worst queries) are formatted. NA (null, NaN) shows as a dash and the
    minus sign is U+2212.
    """
    return expr.cast(pl.Float64).map_batches(
        partial(_format_floats, spec="+.4f" if signed else ".4f"), return_dtype=pl.String
    )


def _format_floats(values: pl.Series, spec: str) -> pl.Series:
    texts = [
        _NA if value is None or not math.isfinite(value) else format(value, spec)
        for value in values.to_list()
    ]
    return pl.Series(values.name, texts, dtype=pl.String).str.replace("-", "−", literal=True)


def _fmt_p(expr: pl.Expr) -> pl.Expr:
    floor = 10.0**-_DECIMALS
    small = pl.lit(f"&lt;{floor:.{_DECIMALS}f}")
    return pl.when(expr < floor).then(small).otherwise(_fmt(expr))


def _cell(column: Any, kind: str) -> pl.Expr:
    if kind == "key":
        return pl.concat_str(pl.lit('<th scope="row">'), _esc_expr(pl.col(column)), pl.lit("</th>"))
    if kind in {"text", "longtext"}:
        cls = "text" if kind == "longtext" else ""
        inner = _esc_expr(pl.col(column)).fill_null(_NA)
        return pl.concat_str(
            pl.lit(f'<td class="{cls}">' if cls else "<td>"), inner, pl.lit("</td>")
        )
    if kind == "int":
        inner = pl.col(column).cast(pl.String).fill_null(_NA)
    elif kind == "num":
        inner = _fmt(pl.col(column))
    elif kind == "signed":
        inner = _fmt(pl.col(column), signed=True)
    elif kind == "p":
        inner = _fmt_p(pl.col(column))
    elif kind == "ci":
        low, high = column
        inner = pl.concat_str(
            pl.lit("["),
            _fmt(pl.col(low), signed=True),
            pl.lit(", "),
            _fmt(pl.col(high), signed=True),
            pl.lit("]"),
        )
    elif kind == "wtl":
        inner = pl.concat_str(
            [pl.col(c).cast(pl.String).fill_null(_NA) for c in column], separator=" / "
        )
    elif kind == "mark":
        return pl.concat_str(
            pl.lit('<td class="sig">'),
            pl.when(pl.col(column)).then(pl.lit("✓")).otherwise(pl.lit("")),
            pl.lit("</td>"),
        )
    else:  # pragma: no cover - internal misuse
        msg = f"unknown cell kind {kind!r}"
        raise ValueError(msg)
    return pl.concat_str(pl.lit('<td class="num">'), inner, pl.lit("</td>"))


def _table(
    frame: pl.DataFrame,
    columns: Sequence[tuple[Any, str, str]],
    *,
    caption: str | None = None,
    caption_is_html: bool = False,
) -> str:
    """Render ``frame`` as an HTML table: ``(column(s), header, kind)`` per column, in Polars."""
    numeric = ' class="num"'
    head = "".join(
        f'<th scope="col"{"" if kind in {"key", "text", "longtext"} else numeric}>'
        f"{_esc(label)}</th>"
        for _, label, kind in columns
    )
    if frame.height:
        rows = frame.select(
            pl.concat_str(
                pl.lit("<tr>"), *(_cell(col, kind) for col, _, kind in columns), pl.lit("</tr>")
            )
        ).to_series()
        body = "".join(rows.to_list())
    else:
        body = f'<tr><td colspan="{len(columns)}">no rows</td></tr>'
    cap = ""
    if caption is not None:
        cap = f"<caption>{caption if caption_is_html else _esc(caption)}</caption>\n"
    return f"<table>\n{cap}<thead><tr>{head}</tr></thead>\n<tbody>{body}</tbody>\n</table>"


def _chart(chart: alt.TopLevelMixin, element_id: str, charts: Any) -> str:
    return str(charts.embed_fragment(chart, element_id))


def _script_safe(script: str) -> str:
    """Keep an inlined script from closing its ``<script>`` element early."""
    return script.replace("</script", "<\\/script").replace("<!--", "<\\!--")


def _config_value(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _needs_scale(name: str) -> bool:
    """Whether a metric maps grades to tiers (so needs labels that fit the grade scale)."""
    metric = parse_metric(name)
    plan = PlanBuilder()
    if metric.spec.build is not None:
        metric.spec.build(plan, metric)
    return bool(plan.uses_tiers)


def _curve_measures(names: Sequence[str]) -> list[str]:
    """Measures (with parameters, without cutoff) of the metrics that take a cutoff."""
    measures = (parse_metric(name) for name in names)
    return list(
        dict.fromkeys(
            Metric(metric.measure, None, metric.params).name
            for metric in measures
            if metric.spec.cutoff != "none"
        )
    )
