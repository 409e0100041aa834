"""The gate's Markdown: a PASS/FAIL headline, the rule in words, a table, the coverage."""

from __future__ import annotations

from typing import Any

import polars as pl

from rankset._format import format_p, format_value

__all__ = ["baseline_line", "describe_rule", "gate_markdown"]


def describe_rule(rules: dict[str, Any]) -> str:
    """Say in one sentence when a metric fails.

    Examples
    --------
    >>> describe_rule({"max_drop": 0.02, "relative": True, "alpha": 0.05,
    ...                "test": "randomization", "correction": "holm"})[:61]
    'A metric fails when its mean fell by more than 2.00% of the b'
    >>> describe_rule({"max_drop": None, "alpha": None})
    'A metric fails when its mean fell at all.'
    >>> describe_rule({"max_drop": 0.005, "relative": False, "max_drop_text": "0.005"})
    'A metric fails when its mean fell by more than 0.0050. As flags: `--max-drop 0.005`.'
    """
    amount, relative, alpha = rules.get("max_drop"), rules.get("relative"), rules.get("alpha")
    if amount is None:
        fall = "its mean fell at all"
    elif relative:
        fall = f"its mean fell by more than {amount:.2%} of the baseline's"
    else:
        fall = f"its mean fell by more than {format_value(amount)}"
    flags = []
    if rules.get("max_drop_text"):
        flags.append(f"--max-drop {rules['max_drop_text']}")
    if alpha is not None and flags:
        flags.append(f"--alpha {alpha:g}")
    as_flags = f" As flags: `{' '.join(flags)}`." if flags else ""
    if alpha is None:
        return f"A metric fails when {fall}.{as_flags}"
    correction = rules.get("correction")
    adjusted = f" ({correction}-corrected over the gated metrics)" if correction else ""
    return (
        f"A metric fails when {fall} and the paired {rules.get('test')} test gives "
        f"p < {format_p(alpha)}{adjusted}.{as_flags}"
    )


def gate_markdown(
    table: pl.DataFrame,
    coverage: pl.DataFrame | None,
    rules: dict[str, Any],
    *,
    passed: bool,
    failures: list[str],
    baseline: dict[str, Any] | None = None,
    mismatches: tuple[str, ...] = (),
    risen: tuple[str, ...] = (),
) -> str:
    """Return the gate's Markdown report (GitHub-flavoured table).

    ``failures`` are the metrics that fell, ``risen`` the costs that rose past their limits.

    Relative changes print as percentages with two decimals, the form ``--max-drop``
    takes (``-1.25%``); the baseline is named in a line of its own.
    """
    n = table.height
    if passed:
        headline = "## ✅ rankset gate: PASS"
        verdict = f"No gated metric fell past the rule ({n} checked)."
    else:
        headline = "## ❌ rankset gate: FAIL"
        if failures:
            verdict = f"{len(failures)} of {n} gated metrics fell: {', '.join(failures)}."
        elif risen:
            verdict = f"No gated metric fell, but costs rose: {', '.join(risen)}."
        else:
            verdict = "No gated metric fell, but the judged coverage did."
        if failures and risen:
            verdict += f" Costs rose: {', '.join(risen)}."
    corrected = rules.get("correction") is not None
    header = ["system", "metric", "baseline", "candidate", "delta", "relative", "queries", "p"]
    if corrected:
        header.append(f"p ({rules['correction']})")
    header += ["fell past threshold", "significant", "result"]
    align = ["---", "---", *["---:"] * (len(header) - 5), ":---:", ":---:", "---"]
    lines = [headline, "", verdict, describe_rule(rules)]
    if baseline:
        lines.append(baseline_line(baseline))
    if mismatches:
        lines.append(
            "⚠️ Gated although the two sides were evaluated differently: "
            + "; ".join(_cell(m) for m in mismatches)
            + "."
        )
    lines += [
        "",
        _row(header),
        _row(align),
    ]
    for row in table.iter_rows(named=True):
        relative = row["relative_delta"]
        cells = [
            _cell(row["system"]),
            _cell(row["metric"]),
            format_value(row["baseline_mean"]),
            format_value(row["candidate_mean"]),
            format_value(row["delta"], signed=True),
            "NA" if relative is None else f"{relative:+.2%}",
            f"{row['n_queries']}" + (f" ({row['n_dropped']} dropped)" if row["n_dropped"] else ""),
            format_p(row["p"]),
        ]
        if corrected:
            cells.append(format_p(row["p_adj"]))
        cells += [
            _yes_no(row["fell_by_threshold"]),
            _yes_no(row["significant"]),
            "**FAIL**" if row["failed"] else "pass",
        ]
        lines.append(_row(cells))
    lines.append("")
    lines.extend(_coverage_lines(coverage, rules))
    return "\n".join(lines).rstrip("\n") + "\n"


def baseline_line(baseline: dict[str, Any]) -> str:
    r"""Name the baseline in one Markdown line: entry id, tag, system, commit, meta.

    Examples
    --------
    >>> _ = baseline_line({"kind": "store entry", "entry_id": "20261129T063000Z-1a2b3c4d",
    ...                "tag": "main", "systems": ["bm25"], "git_commit": "0123456789abcdef",
    ...                "meta": '{"model": "bm25"}', "time": "2026-11-29T06:30:00+00:00"})
    >>> print(_.replace(", ", ",\n"))
    Baseline: store entry `20261129T063000Z-1a2b3c4d` (tag `main`,
    system `bm25`,
    commit `0123456789ab`,
    logged 2026-11-29T06:30:00+00:00,
    meta model=bm25).
    >>> baseline_line({"kind": "run", "systems": ["base"], "sources": ["runs/base.trec"]})
    'Baseline: run `runs/base.trec` (system `base`), evaluated in the same call.'
    """
    systems = baseline.get("systems") or []
    system = ", ".join(f"`{_cell(s)}`" for s in systems)
    named = f"system{'s' if len(systems) > 1 else ''} {system}" if systems else ""
    if baseline.get("kind") == "store entry":
        parts = [f"tag `{_cell(baseline['tag'])}`" if baseline.get("tag") else "no tag"]
        if named:
            parts.append(named)
        commit = baseline.get("git_commit")
        parts.append(f"commit `{str(commit)[:12]}`" if commit else "no git commit recorded")
        if baseline.get("time"):
            parts.append(f"logged {baseline['time']}")
        meta = _meta_text(baseline.get("meta"))
        if meta:
            parts.append(f"meta {meta}")
        return f"Baseline: store entry `{baseline.get('entry_id')}` ({', '.join(parts)})."
    if baseline.get("kind") == "run":
        sources = ", ".join(f"`{_cell(s)}`" for s in baseline.get("sources") or [])
        what = f"run{'s' if len(baseline.get('sources') or []) > 1 else ''} {sources}"
        inside = f" ({named})" if named else ""
        return f"Baseline: {what}{inside}, evaluated in the same call."
    return f"Baseline: per-query values ({named or 'no system named'})."


def _meta_text(meta: object) -> str:
    """``key=value`` pairs of an entry's meta (a JSON object string or a dict)."""
    import json

    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            return _cell(meta)
    if not isinstance(meta, dict) or not meta:
        return ""
    return ", ".join(f"{_cell(key)}={_cell(value)}" for key, value in meta.items())


def _coverage_lines(coverage: pl.DataFrame | None, rules: dict[str, Any]) -> list[str]:
    k = rules.get("coverage_k")
    if k is None:
        return []
    if coverage is None:
        return [
            f"Judged coverage: not checked (judged@{k} is not in both results; evaluate "
            f"with judged@{k} to check it).",
            "",
        ]
    lines = []
    for row in coverage.iter_rows(named=True):
        base, cand = format_value(row["baseline_mean"]), format_value(row["candidate_mean"])
        if row["fell"]:
            consequence = " (fails the gate)" if rules.get("fail_on_coverage") else ""
            lines.append(
                f"⚠️ Judged coverage fell for {_cell(row['system'])}: {row['metric']} "
                f"{base} → {cand}{consequence}. More of the candidate's top documents are "
                "unlabelled, so its scores understate it; judge them before trusting the "
                "comparison."
            )
        else:
            lines.append(
                f"Judged coverage held for {_cell(row['system'])}: {row['metric']} {base} → {cand}."
            )
    return [*lines, ""]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _yes_no(value: bool | None) -> str:
    return "—" if value is None else ("yes" if value else "no")
