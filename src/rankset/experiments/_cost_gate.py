"""The gate on costs: fail when a cost rose past its limit (``--max-increase cost=10%``).

Each asked cost column (:data:`rankset.io.COST_COLUMNS`) compares the candidate's mean
with the baseline's, both from their results' ``costs`` (``evaluate(..., costs=)``; a
store entry's are those logged with it, :meth:`rankset.experiments.Store.result`). A
limit is absolute (``50``, in the column's unit) or relative to the baseline's mean
(``"10%"``); a cost fails when it rose by more than that. Costs are means over each
side's scored queries, with no test: a latency or a bill is not a sample of queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from rankset.errors import ParameterError
from rankset.evaluation import EvaluationResult
from rankset.experiments._comparable import parse_max_drop
from rankset.io import COST_COLUMNS

__all__ = ["COST_GATE_COLUMNS", "cost_lines", "cost_rows", "parse_max_increase"]

#: The columns of :attr:`GateResult.costs`.
COST_GATE_COLUMNS = (
    "system", "cost", "baseline_mean", "candidate_mean", "increase", "relative_increase",
    "limit", "failed",
)  # fmt: skip
_EPSILON = 1e-12


def parse_max_increase(limits: Mapping[str, float | str] | Sequence[str] | None) -> dict[str, str]:
    """Return ``{cost: limit}`` from a mapping or ``COST=LIMIT`` strings, checked.

    Examples
    --------
    >>> parse_max_increase(["latency_ms=10%", "tokens_in=200"])
    {'latency_ms': '10%', 'tokens_in': '200'}
    """
    if limits is None:
        return {}
    pairs: dict[str, str] = {}
    items = limits.items() if isinstance(limits, Mapping) else (_split(s) for s in limits)
    for cost, limit in items:
        if cost not in COST_COLUMNS:
            msg = (
                f"max_increase names {cost!r}, which is not a cost column; the costs are "
                f"{', '.join(COST_COLUMNS)}."
            )
            raise ParameterError(msg)
        pairs[cost] = str(limit)
    return pairs


def _split(text: str) -> tuple[str, str]:
    cost, sign, limit = str(text).partition("=")
    if not sign or not limit:
        msg = f"--max-increase takes COST=LIMIT (latency_ms=10% or tokens_in=200). Got {text!r}."
        raise ParameterError(msg)
    return cost.strip(), limit.strip()


def cost_rows(
    candidate: object,
    baseline: object,
    pairs: list[tuple[str, str]],
    limits: Mapping[str, str],
) -> pl.DataFrame | None:
    """Compare the costs of each (candidate, baseline) pair of systems with the limits."""
    if not limits:
        return None
    tables = []
    for what, result in (("candidate", candidate), ("baseline", baseline)):
        costs = result.costs if isinstance(result, EvaluationResult) else None
        missing = sorted(set(limits) - set([] if costs is None else costs["cost"].to_list()))
        entry = result.config.get("entry_id") if isinstance(result, EvaluationResult) else None
        if missing and entry is not None:
            held = [] if costs is None else costs["cost"].unique(maintain_order=True).to_list()
            recorded = f"it has {', '.join(held)}" if held else "no costs recorded"
            msg = (
                f"The baseline entry {entry} has no {', '.join(missing)} ({recorded}): log "
                "it with costs (rankset log --costs FILE, or an evaluation with costs=); an "
                "entry logged before the store kept costs has none."
            )
            raise ParameterError(msg)
        if missing:
            msg = (
                f"The {what} has no costs for {', '.join(missing)}: evaluate both sides with "
                "costs= (--costs FILE), or take the baseline from a store entry logged with "
                "costs."
            )
            raise ParameterError(msg)
        if costs is not None:  # else missing named every limited cost, and raised
            tables.append(costs)
    cand, base = tables
    rows = []
    for c, b in pairs:
        for cost, text in limits.items():
            parsed, relative = parse_max_drop(text, False)
            amount = 0.0 if parsed is None else parsed
            cm = cand.filter((pl.col("system") == c) & (pl.col("cost") == cost))["mean"]
            bm = base.filter((pl.col("system") == b) & (pl.col("cost") == cost))["mean"]
            if cm.len() == 0 or bm.len() == 0:
                msg = f"No {cost} for system {c if cm.len() == 0 else b!r} in the costs table."
                raise ParameterError(msg)
            cand_mean, base_mean = float(cm[0]), float(bm[0])
            increase = cand_mean - base_mean
            ratio = increase / base_mean if base_mean else None
            if relative:
                failed = increase > _EPSILON if ratio is None else ratio > amount + _EPSILON
            else:
                failed = increase > amount + _EPSILON
            rows.append((c, cost, base_mean, cand_mean, increase, ratio, text, bool(failed)))
    return pl.DataFrame(rows, schema=list(COST_GATE_COLUMNS), orient="row")


def cost_lines(costs: pl.DataFrame | None) -> list[str]:
    """Return the gate report's costs table (Markdown), or nothing without limits."""
    if costs is None:
        return []
    lines = [
        "Costs (means over each side's scored queries; a cost fails when it rose past its limit):",
        "",
        "| system | cost | baseline | candidate | increase | relative | limit | result |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in costs.iter_rows(named=True):
        relative = row["relative_increase"]
        lines.append(
            f"| {row['system']} | {row['cost']} | {row['baseline_mean']:.4g} | "
            f"{row['candidate_mean']:.4g} | {row['increase']:+.4g} | "
            f"{'NA' if relative is None else f'{relative:+.2%}'} | {row['limit']} | "
            f"{'**FAIL**' if row['failed'] else 'pass'} |"
        )
    return [*lines, ""]
