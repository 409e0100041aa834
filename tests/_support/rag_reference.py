"""A plain-Python reference of the RAG set metrics (SPEC §3, seed 001), and rankset driven alike.

Written from the formulas alone (loops and ``sorted``; no Polars, nothing from rankset's
internals). ``tests/measures/test_rag_reference.py`` checks it against numbers computed by
hand and rankset against it; ``test_rag_real_data.py`` compares it with rankset on real runs.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import polars as pl

import rankset

# --- the reference -----------------------------------------------------------------------

Value = float | None
"""A per-query value; ``None`` is NA."""
Scale = str | Mapping[float, int]
Ranking = Mapping[str, float]
"""One query's retrieved documents: doc_id -> score."""

BASE_UTILITY: Final[Mapping[int, float]] = {5: 1.0, 4: 0.5, 3: 0.1, 2: 0.0, 1: 0.0}
PRESET_SCALES: Final[Mapping[str, Mapping[float, int]]] = {
    "rag5": {1: 1, 2: 2, 3: 3, 4: 4, 5: 5},
    "trec_dl": {3: 5, 2: 4, 1: 3, 0: 1},
    "binary": {1: 5, 0: 1},
}
MEASURES: Final = (
    "ra_nwg",
    "proc",
    "pct_proc",
    "n_recall_4plus",
    "n_recall_5",
    "precision_4plus",
    "harm",
)


class ReferenceScaleError(ValueError):
    """A non-negative grade the scale does not map (the reference's own error)."""


@dataclass(frozen=True)
class WeightParams:
    """Parameters of the tier weights; the defaults are SPEC §3's."""

    alpha: float = 1.0
    cap4: float = 1.0
    cap3: float = 0.25
    fallback4: float = 1.0
    fallback3: float = 0.2


@dataclass(frozen=True)
class MetricName:
    """One metric as the reference understands its name: ``measure(p=v,...)@k``."""

    measure: str
    k: int
    weights: WeightParams = field(default_factory=WeightParams)
    unjudged: bool = False


_NAME = re.compile(r"^(?P<measure>[a-z_0-9]+)(?:\((?P<params>[^()]*)\))?@(?P<k>\d+)$")


def parse_name(name: str) -> MetricName:
    match = _NAME.match(name)
    if match is None or match["measure"] not in MEASURES:
        raise ValueError(name)
    weights, unjudged = WeightParams(), False
    for part in filter(None, (match["params"] or "").split(",")):
        key, _, raw = part.partition("=")
        if key == "unjudged":
            unjudged = bool(int(raw))
        else:
            weights = replace(weights, **{key: float(raw)})
    return MetricName(match["measure"], int(match["k"]), weights, unjudged)


def scale_map(scale: Scale) -> Mapping[float, int]:
    return PRESET_SCALES[scale] if isinstance(scale, str) else scale


def label_tiers(labels: Mapping[str, float], scale: Scale) -> dict[str, int]:
    """Tier of every labelled doc; negative grades are unjudged and get none."""
    mapping = scale_map(scale)
    tiers = {}
    for doc, grade in labels.items():
        if grade < 0:
            continue
        if grade not in mapping:
            raise ReferenceScaleError(f"grade {grade} is not in scale {scale!r}")
        tiers[doc] = mapping[grade]
    return tiers


def tier_weights(tiers: Iterable[int], params: WeightParams) -> dict[int, float]:
    counts = Counter(tiers)
    if counts[5] == 0:
        return {5: 1.0, 4: params.fallback4, 3: params.fallback3, 2: 0.0, 1: 0.0}
    total = sum(counts.values())

    def rarity(tier: int) -> float:
        if counts[tier] == 0:
            return 0.0
        return BASE_UTILITY[tier] / (counts[tier] / total) ** params.alpha

    r5 = rarity(5)
    return {
        5: 1.0,
        4: min(rarity(4) / r5, params.cap4),
        3: min(rarity(3) / r5, params.cap3),
        2: 0.0,
        1: 0.0,
    }


def ordered(ranking: Ranking) -> list[str]:
    """Score descending, ties by doc_id descending (ASCII ids: str order = byte order)."""
    return [doc for doc, _ in sorted(ranking.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


def ratio(numerator: float, denominator: float) -> Value:
    return None if denominator == 0 else numerator / denominator


def reference_metric(
    name: str | MetricName,
    ranking: Ranking,
    labels: Mapping[str, float],
    *,
    scale: Scale = "rag5",
    pool: Collection[str] | None = None,
) -> Value:
    """One metric for one query; ``pool=None`` means the query's own retrieved list."""
    metric = parse_name(name) if isinstance(name, str) else name
    k = metric.k
    tiers = label_tiers(labels, scale)
    weights = tier_weights(tiers.values(), metric.weights)

    def weight(doc: str) -> float:
        return weights[tiers[doc]] if doc in tiers else 0.0

    def best_k_sum(docs: Iterable[str]) -> float:
        return sum(sorted((weight(doc) for doc in docs), reverse=True)[:k])

    top = ordered(ranking)[:k]
    oracle = best_k_sum(tiers)
    ra_nwg = None if not tiers else ratio(sum(weight(doc) for doc in top), oracle)
    proc = None if not tiers else ratio(best_k_sum(ranking if pool is None else pool), oracle)
    top_tiers = [tiers.get(doc) for doc in top]
    n4plus_top = sum(1 for t in top_tiers if t is not None and t >= 4)
    n5_top = sum(1 for t in top_tiers if t == 5)
    if metric.measure == "ra_nwg":
        return ra_nwg
    if metric.measure == "proc":
        return proc
    if metric.measure == "pct_proc":
        return None if ra_nwg is None or proc is None else ratio(ra_nwg, proc)
    if metric.measure == "n_recall_4plus":
        return ratio(n4plus_top, min(k, sum(1 for t in tiers.values() if t >= 4)))
    if metric.measure == "n_recall_5":
        return ratio(n5_top, min(k, sum(1 for t in tiers.values() if t == 5)))
    if metric.measure == "precision_4plus":
        return n4plus_top / k
    assert metric.measure == "harm"
    harmful = sum(
        1 for t in top_tiers if (t is None and metric.unjudged) or (t is not None and t <= 2)
    )
    return harmful / k


Runs = Mapping[str, Mapping[str, Ranking]]
"""system -> query_id -> doc_id -> score."""
Labels = Mapping[str, Mapping[str, float]]
"""query_id -> doc_id -> grade."""
Pools = Mapping[str, Mapping[str, Collection[str]]]
"""system -> query_id -> pool docs; a system not in it uses its own retrieved list."""


def reference_evaluate(
    runs: Runs,
    labels: Labels,
    metrics: Sequence[str],
    *,
    scale: Scale = "rag5",
    pools: Pools | None = None,
) -> dict[tuple[str, str, str], Value]:
    """(system, query_id, metric as asked) -> value, for queries in the run and the labels."""
    out = {}
    for system, run in runs.items():
        pool_of = None if pools is None else pools.get(system)
        for query_id, ranking in run.items():
            if query_id not in labels:
                continue
            pool = None if pool_of is None else pool_of.get(query_id, ())
            for name in metrics:
                out[system, query_id, name] = reference_metric(
                    name, ranking, labels[query_id], scale=scale, pool=pool
                )
    return out


# --- driving rankset ---------------------------------------------------------------------


def rankset_values(
    runs: Any, labels: Any, metrics: Sequence[str], **options: Any
) -> dict[tuple[str, str, str], Value]:
    """rankset's per-query values keyed like :func:`reference_evaluate` (metric as asked)."""
    result = rankset.evaluate(runs, labels, list(metrics), **options)
    canonical = result.metrics
    assert len(canonical) == len(metrics), (canonical, metrics)
    asked = dict(zip(canonical, metrics, strict=True))
    per_query = result.per_query
    assert per_query.schema["value"] == pl.Float64
    out: dict[tuple[str, str, str], Value] = {}
    for row in per_query.iter_rows(named=True):
        name = asked[row["metric"]]
        assert row["k"] == parse_name(name).k, row
        key = (row["system"], row["query_id"], name)
        assert key not in out, key
        out[key] = row["value"]
    return out


def assert_same_values(
    got: Mapping[tuple[str, str, str], Value], want: Mapping[tuple[str, str, str], Value]
) -> None:
    assert sorted(got) == sorted(want)
    for key, expected in want.items():
        value = got[key]
        if expected is None or value is None:
            assert (value, expected) == (None, None), key
        else:
            assert math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-9), (key, value, expected)
