"""The report's "Judges" section: each other label set judged against the human labels.

Drawn from :attr:`rankset.pages.Analysis.judges_view` (the dashboard's Judges view reads
the same rows): the correlations of the two leaderboards with their bootstrap intervals
over topics, the leaderboards side by side on the first metric with
:func:`rankset.charts.judges_chart`, the topics where each judge and the humans disagree
most, and :func:`rankset.charts.calibration_chart` of the judges that share pairs with
the humans. Every user string is escaped here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

import polars as pl

from rankset._format import counted
from rankset.pages.report._html import NA, esc, esc_code, number_text

if TYPE_CHECKING:
    from rankset.pages._judges import JudgesView

__all__ = ["judges_section", "topic_anchor"]

# How the correlations are named in the table's header.
_HEADERS: Final = {
    "kendall": "Kendall τ-b",
    "pearson": "Pearson r",
    "spearman": "Spearman ρ",
    "tauap_b": "τ AP-b",
    "tau_gap": "τ GAP",
}


def _header(name: str) -> str:
    base, at, cutoff = name.partition("@")
    return _HEADERS.get(base, base) + (f"@{cutoff}" if at else "")


def topic_anchor(judge: str, metric: str, query_id: str) -> str:
    """Return the ``id`` of a disagreement row (a link ``#...`` reaches it), unescaped.

    Examples
    --------
    >>> topic_anchor("llm", "ndcg@10", "q 1")
    'judges-llm-ndcg@10-q_1'
    """
    return "-".join(("judges", judge, metric, query_id)).replace(" ", "_")


def judges_section(
    view: JudgesView,
    systems: Sequence[str],
    query_text: Mapping[str, str] | None = None,
) -> str:
    """Return the section's HTML (without its heading)."""
    from rankset import charts  # Altair loads with the first page, not with rankset.pages

    judges = ", ".join(esc_code(j) for j in view.judges)
    parts = [
        f'<p class="explain">Each other label set is a judge of the human labels '
        f"{esc_code(view.reference)} (the truth): {judges}. The systems' leaderboards under "
        "both, how far their orders agree (the correlations autojudge-evaluate computes, "
        f"each with a {view.confidence:.0%} bootstrap interval over the topics, "
        f"{view.n_bootstrap:,} draws), the topics where the judge orders the systems least "
        "like the humans, and the judge's calibration on the pairs both labelled.</p>"
    ]
    if view.note is not None:
        parts.append(f'<p class="note">{esc(view.note)}</p>')
    else:
        parts.append(_correlation_table(view))
        metric = view.metrics[0]
        chart = charts.judges_chart(
            view.leaderboards.filter(pl.col("metric") == metric),
            metric,
            colors=charts.system_colors(systems),
        )
        parts.append(
            f'<div class="charts"><div>{_boards_table(view, metric)}</div>'
            f"{charts.embed_fragment(chart, 'chart-judges')}</div>"
        )
        parts.append(_topics_tables(view, metric, query_text))
    parts.append(_calibration(view))
    return "\n".join(parts)


def _cell(text: str, cls: str = "num") -> str:
    return f'<td class="{cls}">{text}</td>'


def _correlation_table(view: JudgesView) -> str:
    names = list(dict.fromkeys(view.correlations["correlation"].to_list()))
    head = "".join(f'<th scope="col" class="num">{esc(_header(n))}</th>' for n in names)
    rows = []
    for (judge, metric), group in view.correlations.group_by(
        "judge", "metric", maintain_order=True
    ):
        by_name = {row["correlation"]: row for row in group.iter_rows(named=True)}
        first = group.row(0, named=True)
        cells = "".join(
            _cell(
                number_text(by_name[n]["value"])
                + f'<span class="ci">[{number_text(by_name[n]["ci_low"])}, '
                f"{number_text(by_name[n]['ci_high'])}]</span>"
            )
            if n in by_name
            else _cell(NA)
            for n in names
        )
        rows.append(
            f'<tr data-judge="{esc(judge)}" data-metric="{esc(metric)}">'
            f'<th scope="row">{esc(judge)}</th><td><code>{esc(metric)}</code></td>'
            f"{_cell(str(first['n_systems']))}{_cell(str(first['n_topics']))}{cells}</tr>"
        )
    caption = (
        "How far each judge's leaderboard agrees with the humans', per metric: 1 is the "
        "same order (Pearson: the same means up to a line); τ AP-b and τ GAP weigh the top "
        "of the leaderboard more, Kendall@10 reads the humans' ten best systems. The "
        f"{view.confidence:.0%} bootstrap interval over topics is below each value."
    )
    return (
        f'<table id="judges-correlations">\n<caption>{esc(caption)}</caption>\n'
        '<thead><tr><th scope="col">judge</th><th scope="col">metric</th>'
        f'<th scope="col" class="num">systems</th><th scope="col" class="num">topics</th>'
        f"{head}</tr></thead>\n<tbody>{''.join(rows)}</tbody>\n</table>"
    )


def _change_text(change: int | None) -> str:
    if change is None:
        return NA
    if change > 0:
        return f"↑{change}"
    if change < 0:
        return f"↓{-change}"
    return "="


def _boards_table(view: JudgesView, metric: str) -> str:
    boards = view.leaderboards.filter(pl.col("metric") == metric)
    judges = [j for j in view.judges if j in set(boards["judge"].to_list())]
    if not judges:
        return ""
    truth = boards.filter(pl.col("judge") == judges[0]).sort("truth_rank", "system")
    by_judge = {
        j: {r["system"]: r for r in boards.filter(pl.col("judge") == j).iter_rows(named=True)}
        for j in judges
    }
    head = (
        '<th scope="col">system</th>'
        f'<th scope="col" class="num">{esc(view.reference)} mean</th>'
        f'<th scope="col" class="num">{esc(view.reference)} rank</th>'
    )
    for j in judges:
        head += (
            f'<th scope="col" class="num judge-first">{esc(j)} mean</th>'
            f'<th scope="col" class="num">{esc(j)} rank</th>'
            '<th scope="col" class="num">rank change</th>'
        )
    rows = []
    for row in truth.iter_rows(named=True):
        system = row["system"]
        cells = _cell(number_text(row["truth_mean"])) + _cell(str(row["truth_rank"]))
        for j in judges:
            other = by_judge[j].get(system)
            if other is None:
                cells += _cell(NA) * 3
                continue
            change = other["rank_change"]
            moved = "" if not change else (" up" if change > 0 else " down")
            cells += (
                _cell(number_text(other["judge_mean"]), "num judge-first")
                + _cell(str(other["judge_rank"]))
                + _cell(esc(_change_text(change)), "num move" + moved)
            )
        rows.append(
            f'<tr data-system="{esc(system)}"><th scope="row">{esc(system)}</th>{cells}</tr>'
        )
    caption = (
        f"The leaderboards by mean {metric}: under the human labels ({view.reference}) and "
        "under each judge's (rank 1 = best; the change: ↑ the judge ranks the system higher "
        "than the humans do, ↓ lower)."
    )
    return (
        f'<table id="judges-boards">\n<caption>{esc(caption)}</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>{''.join(rows)}</tbody>\n</table>"
    )


def _topics_tables(view: JudgesView, metric: str, query_text: Mapping[str, str] | None) -> str:
    topics = view.topics.filter(pl.col("metric") == metric)
    parts = [
        f"<h3>Where the judges and the humans disagree most ({esc(metric)})</h3>",
        f'<p class="explain">Per judge, the topics whose systems it orders least like the '
        f"humans: Kendall's τ-b of the systems' {esc(metric)} on the topic under both labels "
        "(−1: the reverse order). The dashboard's query view "
        "(<code>#query=ID</code>) shows the two rankings of such a topic.</p>",
        '<div class="worst">',
    ]
    for judge in view.judges:
        rows = topics.filter(pl.col("judge") == judge)
        if not rows.height:
            parts.append(
                f'<div><h3>{esc_code(judge)}</h3><p class="explain">No topic with a defined '
                "correlation.</p></div>"
            )
            continue
        body = []
        for rank, row in enumerate(rows.iter_rows(named=True), start=1):
            query = row["query_id"]
            anchor = esc(topic_anchor(judge, metric, query))
            text = "" if query_text is None else query_text.get(query, "")
            text_cell = "" if query_text is None else f'<td class="text">{esc(text) or NA}</td>'
            body.append(
                f'<tr id="{anchor}" data-query="{esc(query)}"><td class="num">{rank}</td>'
                f'<td><a href="#{anchor}">{esc(query)}</a></td>{text_cell}'
                f"{_cell(number_text(row['kendall']))}{_cell(str(row['n_systems']))}</tr>"
            )
        text_head = "" if query_text is None else '<th scope="col">query text</th>'
        parts.append(
            f"<div><h3>{esc_code(judge)}</h3>\n"
            f'<table class="judges-topics" data-judge="{esc(judge)}">\n<thead><tr>'
            '<th scope="col" class="num">#</th><th scope="col">query</th>'
            f'{text_head}<th scope="col" class="num">Kendall τ-b</th>'
            '<th scope="col" class="num">systems</th></tr></thead>\n'
            f"<tbody>{''.join(body)}</tbody>\n</table></div>"
        )
    parts.append("</div>")
    return "\n".join(parts)


def _calibration(view: JudgesView) -> str:
    from rankset import charts

    lines = []
    if view.calibration.height:
        pairs = view.calibration.group_by("judge", maintain_order=True).agg(pl.col("n").sum())
        shared = "; ".join(
            f"{esc_code(j)}: {counted(int(n), 'pair')}" for j, n in pairs.iter_rows()
        )
        lines.append(
            '<h3>Calibration</h3>\n<p class="explain">On the (query, document) pairs both '
            f"labelled ({shared}): the mean human grade at each of the judge's grades, and the "
            "monotone (isotonic) map from the judge's grade to the expected human gain. A "
            "judge on the humans' scale lies on the dashed diagonal.</p>"
        )
        chart = charts.calibration_chart(view.calibration)
        lines.append(
            f'<div class="charts">{charts.embed_fragment(chart, "chart-calibration")}</div>'
        )
    if view.uncalibrated:
        names = ", ".join(esc_code(j) for j in view.uncalibrated)
        lines.append(
            f'<p class="explain">No calibration for {names}: no pair carries both its label '
            "and a human one.</p>"
        )
    return "\n".join(lines)
