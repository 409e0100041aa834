"""What makes a gate's two sides comparable, and which thresholds a fall could reach.

The gate (:mod:`rankset.experiments._gate`) states the rules; this module holds the
checks: the evaluation options that change values (:data:`VALUE_OPTIONS`), how two
results' configs differ in them and in their labels, what the baseline was, and the
thresholds no fall could pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from rankset._validation import check_float
from rankset.errors import ParameterError
from rankset.evaluation import EvaluationResult

__all__ = [
    "VALUE_OPTIONS",
    "check_bounds",
    "describe_baseline",
    "parse_max_drop",
    "setup_differences",
]

#: The evaluation options (keys of ``EvaluationResult.config``) that change values: a
#: candidate and a baseline that differ in one are not comparable.
VALUE_OPTIONS = (
    "relevance_level",
    "missing",
    "k",
    "default_k",
    "cutoffs",
    "order",
    "duplicates",
    "score_precision",
    "pool",
    "pool_depth",
    "max_depth",
    "judged_only",
    "ignore_identical_ids",
    "scale",
)


def setup_differences(candidate: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """Say how two evaluations' configs differ in what changes values (none: ``[]``).

    Compares the :data:`VALUE_OPTIONS` both configs record, and ``labels_hash`` when both
    have one.

    Examples
    --------
    >>> setup_differences({"relevance_level": 2, "k": None}, {"relevance_level": 1, "k": None})
    ['relevance_level: candidate 2, baseline 1']
    >>> setup_differences({"labels_hash": "ab12" * 16}, {"labels_hash": "cd34" * 16})
    ['labels: their contents differ (sha256 ab12ab12… in the candidate, cd34cd34… in the baseline)']
    """
    found = []
    for name in VALUE_OPTIONS:
        if name in candidate and name in baseline:
            mine, theirs = _comparable(candidate[name]), _comparable(baseline[name])
            if mine != theirs:
                found.append(f"{name}: candidate {mine}, baseline {theirs}")
    mine_hash, their_hash = candidate.get("labels_hash"), baseline.get("labels_hash")
    if mine_hash and their_hash and mine_hash != their_hash:
        sources = [
            f" ({side['labels']})" if isinstance(side.get("labels"), str) else ""
            for side in (candidate, baseline)
        ]
        found.append(
            f"labels: their contents differ (sha256 {mine_hash[:8]}… in the "
            f"candidate{sources[0]}, {their_hash[:8]}… in the baseline{sources[1]})"
        )
    return found


def _comparable(value: object) -> object:
    """Return a config value as a store's JSON round trip gives it back (tuples: lists)."""
    import json

    return json.loads(json.dumps(value, sort_keys=True, default=str))


def describe_baseline(baseline: object, systems: Sequence[str] = ()) -> dict[str, Any]:
    """Say what a gate's baseline was: a store entry, runs evaluated in the call, a frame.

    Examples
    --------
    >>> describe_baseline(pl.DataFrame({"system": ["a"]}), ["a"])
    {'kind': 'frame', 'systems': ['a']}
    """
    described: dict[str, Any] = {"kind": "frame", "systems": list(systems)}
    if not isinstance(baseline, EvaluationResult):
        return described
    config = baseline.config
    if config.get("entry_id"):
        described["kind"] = "store entry"
        for key in ("entry_id", "tag", "time", "git_commit", "meta"):
            described[key] = config.get(key)
    else:
        described["kind"] = "run"
        runs = config.get("runs")
        if isinstance(runs, list):
            described["sources"] = [str(source) for source in runs]
    return described


def check_bounds(
    cand: pl.DataFrame,
    base: pl.DataFrame,
    names: list[str],
    amount: float | None,
    is_relative: bool,
    asked: float | str | None,
) -> None:
    """Refuse a threshold no fall could pass: 2 meant as 2% on a metric bounded by 1."""
    if amount is None or amount < 1:
        return
    values = pl.concat([cand, base]).filter(pl.col("metric").is_in(names))
    ranges = values.group_by("metric").agg(low=pl.col("value").min(), high=pl.col("value").max())
    for metric, low, high in ranges.sort("metric").rows():
        if low is None or high is None:
            continue
        if is_relative and low >= 0:
            msg = (
                f"max_drop {asked!r} is a relative fall of {amount:.0%}, but {metric} is never "
                "negative: it cannot fall by 100% or more, so the gate could never fail. "
                f"Did you mean '{amount:g}%' ({amount / 100:g} relative)?"
            )
            raise ParameterError(msg)
        if not is_relative and low >= 0 and high <= 1:
            msg = (
                f"max_drop {asked!r} is an absolute fall of {amount:g}, but every value of "
                f"{metric} lies between 0 and 1: no fall can exceed it, so the gate could "
                f"never fail. Did you mean '{amount:g}%' (relative to the baseline) or "
                f"{amount / 100:g} (absolute)?"
            )
            raise ParameterError(msg)


def parse_max_drop(max_drop: float | str | None, relative: bool) -> tuple[float | None, bool]:
    """Return ``(amount, relative)`` from ``0.01``, ``"0.01"`` or ``"2%"``.

    Examples
    --------
    >>> parse_max_drop("2%", False), parse_max_drop("0.01", False), parse_max_drop(0.05, True)
    ((0.02, True), (0.01, False), (0.05, True))
    """
    if max_drop is None:
        return None, relative
    if isinstance(max_drop, str):
        text = max_drop.strip()
        percent = text.endswith("%")
        try:
            amount = float(text[:-1] if percent else text)
        except ValueError:
            msg = (
                "The 'max_drop' parameter must be a number or a percentage such as '2%'. "
                f"Got {max_drop!r} instead."
            )
            raise ParameterError(msg) from None
        amount = check_float("max_drop", amount, minimum=0.0)
        return (amount / 100, True) if percent else (amount, relative)
    return check_float("max_drop", max_drop, minimum=0.0), relative
