"""Measures: what each metric means, how its name parses, and its Polars expression.

A *measure* (``ndcg``) is defined once, by :func:`define`: one function that builds its
per-query value from :class:`Features`, plus its metadata (cutoff rule, parameters,
direction, NA rule, names in trec_eval, ir-measures and ranx). A *metric* is a measure
with its cutoff and parameters (``ndcg@10``); :func:`parse_metric` reads every accepted
spelling of one.

Importing this package imports the measure families, :mod:`rankset.measures.ranking`
(classic IR), :mod:`rankset.measures.sets` (trec_eval's set measures) and
:mod:`rankset.measures.rag` (RAG set metrics), :mod:`rankset.measures.utility`
(signed-utility set metrics), :mod:`rankset.measures.user_models` (C/W/L user models),
:mod:`rankset.measures.nuggets` (nugget coverage),
:mod:`rankset.measures.continuous` (real-valued gains: eRAG's labels) and
:mod:`rankset.measures.sampled` (estimates from a stratified sample of the pool, as
NIST's sample_eval.pl computes them), which fills the registry.
``docs/measures.md`` is :func:`measure_table`'s output; ``docs/adding-a-measure.md``
walks through defining a new measure.

Examples
--------
>>> from rankset.measures import parse_metric
>>> metric = parse_metric("ndcg_cut_10")
>>> metric.name, metric.spec.trec_eval, metric.spec.ir_measures
('ndcg@10', ('ndcg', 'ndcg_cut_{k}'), 'nDCG')
"""

from __future__ import annotations

from rankset.measures import (
    cascade,
    compatibility,
    continuous,
    gain_curves,
    incomplete,
    interpolated,
    nuggets,
    rag,
    ranking,
    sampled,
    sets,
    user_models,
    utility,
)
from rankset.measures._features import (
    PER_QUERY,
    FeatureConflictError,
    Features,
    log2_of_positions,
    ratio_or_zero,
    sequential_sum,
)
from rankset.measures._names import expand_cutoffs, greater_is_better, parse_metric, parse_metrics
from rankset.measures._registry import (
    MeasureSpec,
    Metric,
    ParamSpec,
    available_measures,
    define,
    temporary_measures,
)
from rankset.measures._table import measure_table

__all__ = [
    "PER_QUERY",
    "FeatureConflictError",
    "Features",
    "MeasureSpec",
    "Metric",
    "ParamSpec",
    "available_measures",
    "cascade",
    "compatibility",
    "continuous",
    "define",
    "expand_cutoffs",
    "gain_curves",
    "greater_is_better",
    "incomplete",
    "interpolated",
    "log2_of_positions",
    "measure_table",
    "nuggets",
    "parse_metric",
    "parse_metrics",
    "rag",
    "ranking",
    "ratio_or_zero",
    "sampled",
    "sequential_sum",
    "sets",
    "temporary_measures",
    "user_models",
    "utility",
]
