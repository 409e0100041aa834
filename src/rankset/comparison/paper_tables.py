"""Tables for papers: a comparison as LaTeX (booktabs) or Markdown, significance marked.

One row per system, one column per metric, each cell the system's mean; the best value
of each metric is bold (the lowest for a metric where lower is better). Significance is
marked as in ranx's tables:

- a frame from :func:`rankset.compare_all` gives every system a letter, shown before its
  name, and each cell lists as a superscript the letters of the systems it is
  significantly better than on that metric;
- a frame from :func:`rankset.compare` marks a cell with a dagger (†) when the system is
  significantly better than the baseline, and a double dagger (‡) when it is
  significantly worse.

"Significantly" means the frame's ``reject`` for the chosen test: its ``p_adj`` below the
``alpha`` the comparison was made with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import polars as pl

from rankset._validation import check_choice, check_int, did_you_mean
from rankset.comparison._inputs import higher_is_better
from rankset.errors import ParameterError, SchemaError

__all__ = ["TABLE_FORMATS", "comparison_table", "latex_escape"]

#: The formats :func:`comparison_table` writes.
TABLE_FORMATS = ("latex", "markdown")
TableFormat = Literal["latex", "markdown"]

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_NEEDED = ("system", "metric", "test", "mean", "baseline_mean", "delta", "reject")


def comparison_table(
    comparison: pl.DataFrame,
    *,
    format: TableFormat = "markdown",
    metrics: Sequence[str] | None = None,
    test: str | None = None,
    decimals: int = 4,
    percent: bool = False,
    caption: str | None = None,
    label: str | None = None,
    baseline: str = "baseline",
) -> str:
    r"""Write a comparison as a LaTeX (booktabs) or Markdown table.

    Parameters
    ----------
    comparison
        A frame from :func:`rankset.compare_all` (letters and superscripts) or
        :func:`rankset.compare` (daggers against the baseline).
    format
        ``"markdown"`` (default) or ``"latex"``.
    metrics
        Columns, in order (default: the frame's metrics, in its order).
    test
        The test whose ``reject`` marks significance (default: the frame's first).
    decimals
        Digits after the decimal point.
    percent
        Show means on a 0-100 scale.
    caption, label
        LaTeX only: the table's caption and ``\label``. A caption that says what the
        marks mean is written when none is given.
    baseline
        The name of the baseline's row for a frame from :func:`rankset.compare`, which
        does not record it.

    Returns
    -------
    str
        The table (for LaTeX, a ``table`` environment; needs ``\usepackage{booktabs}``).

    Examples
    --------
    >>> frame = pl.DataFrame(
    ...     {"system": ["b", "c", "c"], "baseline": ["a", "a", "b"], "metric": "ndcg@10",
    ...      "test": "t", "mean": [0.5, 0.6, 0.6], "baseline_mean": [0.4, 0.4, 0.5],
    ...      "delta": [0.1, 0.2, 0.1], "reject": [False, True, False]}
    ... )
    >>> print(comparison_table(frame, decimals=2))
    | system | ndcg@10 |
    |:---|---:|
    | (a) a | 0.40 |
    | (b) b | 0.50 |
    | (c) c | **0.60**<sup>a</sup> |
    <BLANKLINE>
    Superscripts: significantly better than the system with that letter (t test).
    """
    check_choice("format", format, TABLE_FORMATS)
    decimals = check_int("decimals", decimals, 0, 12)
    missing = [column for column in _NEEDED if column not in comparison.columns]
    if missing:
        msg = (
            "The comparison must be a frame from rankset.compare or rankset.compare_all; "
            f"it lacks the column(s) {', '.join(missing)}."
        )
        raise SchemaError(msg)
    if comparison.height == 0:
        raise ParameterError("The comparison has no rows to put in a table.")
    test = test or str(comparison["test"][0])
    tests = comparison["test"].unique(maintain_order=True).to_list()
    if test not in tests:
        msg = f"The 'test' parameter must be one of {tests!r}. Got {test!r} instead."
        raise ParameterError(msg + did_you_mean(test, tests))
    rows = comparison.filter(pl.col("test") == test)
    known = rows["metric"].unique(maintain_order=True).to_list()
    columns = list(metrics) if metrics is not None else known
    for metric in columns:
        if metric not in known:
            msg = f"The metric {metric!r} is not in the comparison (metrics: {', '.join(known)})."
            raise ParameterError(msg + did_you_mean(metric, known))
    all_pairs = "baseline" in rows.columns
    if not all_pairs and "baseline" not in comparison.columns:
        rows = rows.with_columns(pl.lit(None, dtype=pl.String).alias("baseline"))
    systems, means = _means(rows, all_pairs, baseline)
    letters = {system: _letter(i) for i, system in enumerate(systems)} if all_pairs else {}
    marks = _marks(rows, columns, letters, all_pairs)
    scale = 100.0 if percent else 1.0
    cells: dict[tuple[str, str], tuple[str, bool, str]] = {}
    for metric in columns:
        present = {s: means[(s, metric)] for s in systems if means.get((s, metric)) is not None}
        if not present:
            continue
        greater = higher_is_better(metric)
        best_value = max(present.values()) if greater else min(present.values())
        for system, value in present.items():
            text = f"{value * scale:.{decimals}f}"
            cells[(system, metric)] = (text, value == best_value, marks.get((system, metric), ""))
    legend = _legend(all_pairs, test)
    if format == "latex":
        return _latex(systems, columns, cells, letters, caption or legend, label)
    return _markdown(systems, columns, cells, letters) + "\n" + legend


def _means(
    rows: pl.DataFrame, all_pairs: bool, baseline: str
) -> tuple[list[str], dict[tuple[str, str], float]]:
    """Systems in order (baselines first where they lead) and each one's mean per metric."""
    systems: list[str] = []
    means: dict[tuple[str, str], float] = {}
    for row in rows.iter_rows(named=True):
        for system, value in (
            (row["baseline"], row["baseline_mean"]),
            (row["system"], row["mean"]),
        ):
            if system is None:
                continue
            if system not in systems:
                systems.append(system)
            if value is not None:
                means.setdefault((system, row["metric"]), value)
    if not all_pairs:
        # compare's frame names no baseline: its mean is every row's baseline_mean.
        baseline_means = rows.group_by("metric", maintain_order=True).agg(
            pl.col("baseline_mean").drop_nulls().first()
        )
        systems.insert(0, baseline)
        for metric, value in baseline_means.iter_rows():
            if value is not None:
                means[(baseline, metric)] = value
    return systems, means


def _marks(
    rows: pl.DataFrame, metrics: list[str], letters: dict[str, str], all_pairs: bool
) -> dict[tuple[str, str], str]:
    """Return the superscript of each (system, metric) cell."""
    beaten: dict[tuple[str, str], list[str]] = {}
    for row in rows.filter(pl.col("reject").fill_null(False)).iter_rows(named=True):
        metric = row["metric"]
        if metric not in metrics or row["delta"] is None or row["delta"] == 0:
            continue
        greater = higher_is_better(metric)
        system_wins = (row["delta"] > 0) == greater
        if all_pairs:
            winner, loser = (
                (row["system"], row["baseline"])
                if system_wins
                else (row["baseline"], row["system"])
            )
            beaten.setdefault((winner, metric), []).append(letters[loser])
        else:
            beaten.setdefault((row["system"], metric), []).append("†" if system_wins else "‡")
    return {key: "".join(sorted(marks)) for key, marks in beaten.items()}


def _letter(index: int) -> str:
    """Return the letter of the system at ``index``: a, b, ..., z, aa, ab, ..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _legend(all_pairs: bool, test: str) -> str:
    name = test.replace("_", " ")
    if all_pairs:
        return f"Superscripts: significantly better than the system with that letter ({name} test)."
    return f"† significantly better, ‡ significantly worse than the baseline ({name} test)."


def _markdown(
    systems: list[str],
    metrics: list[str],
    cells: dict[tuple[str, str], tuple[str, bool, str]],
    letters: dict[str, str],
) -> str:
    def escape(text: str) -> str:
        return text.replace("|", r"\|")

    lines = [
        "| system | " + " | ".join(escape(m) for m in metrics) + " |",
        "|:---|" + "---:|" * len(metrics),
    ]
    for system in systems:
        name = f"({letters[system]}) {system}" if system in letters else system
        parts = []
        for metric in metrics:
            text, best, mark = cells.get((system, metric), ("–", False, ""))
            text = f"**{text}**" if best else text
            parts.append(text + (f"<sup>{mark}</sup>" if mark else ""))
        lines.append(f"| {escape(name)} | " + " | ".join(parts) + " |")
    return "\n".join(lines) + "\n"


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters in ``text``.

    Examples
    --------
    >>> print(latex_escape("P_10 & 5% {x}"))
    P\_10 \& 5\% \{x\}
    """
    return "".join(_LATEX_SPECIAL.get(character, character) for character in text)


def _latex(
    systems: list[str],
    metrics: list[str],
    cells: dict[tuple[str, str], tuple[str, bool, str]],
    letters: dict[str, str],
    caption: str,
    label: str | None,
) -> str:
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{latex_escape(caption)}}}",
    ]
    if label:
        lines.append(rf"\label{{{latex_escape(label)}}}")
    lines += [
        r"\begin{tabular}{l" + "r" * len(metrics) + "}",
        r"\toprule",
        "System & " + " & ".join(latex_escape(m) for m in metrics) + r" \\",
        r"\midrule",
    ]
    for system in systems:
        name = latex_escape(system)
        if system in letters:
            name = f"({letters[system]}) {name}"
        parts = []
        for metric in metrics:
            text, best, mark = cells.get((system, metric), ("--", False, ""))
            text = rf"\textbf{{{text}}}" if best else text
            if mark:
                mark = mark.replace("†", r"\dagger").replace("‡", r"\ddagger")
                text += f"$^{{{mark}}}$"
            parts.append(text)
        lines.append(f"{name} & " + " & ".join(parts) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
