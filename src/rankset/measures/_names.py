"""The metric name grammar: every accepted spelling to one canonical :class:`Metric`.

Three shapes are read, each against the registry's accepted names (canonical names,
aliases, and the names measures have in trec_eval, ir-measures and ranx):

* canonical and ``@k`` names: ``base(param=value,...)@k-l<level>``, as rankset,
  ir-measures (``nDCG@10``, ``P(rel=2)@10``) and ranx (``precision@10-l2``) write them;
* trec_eval names: ``ndcg_cut_10``, ``ndcg_cut.10``, ``P_5``, ``success_1``;
* ``-at-k`` names: ``retrieval-recall-at-k`` is ``recall@k``.

Examples
--------
>>> from rankset.measures import parse_metric
>>> parse_metric("nDCG@10").name
'ndcg@10'
>>> parse_metric("ndcg_cut_10").name
'ndcg@10'
>>> parse_metric("P(rel=2)@5").name
'precision(rel=2)@5'
>>> parse_metric("retrieval-recall-at-k").name
'recall@k'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Literal

from rankset._validation import MAX_INT, did_you_mean
from rankset.errors import ParameterError, UnknownMetricError
from rankset.measures._features import PER_QUERY, Features
from rankset.measures._registry import (
    Metric,
    ParamValue,
    available_measures,
    lookup,
    name_index,
)

__all__ = ["expand_cutoffs", "geometric_metrics", "parse_metric", "parse_metrics"]

_CANONICAL = re.compile(
    r"^(?P<base>[a-z0-9%][a-z0-9_%+\-]*?)"
    r"(?:\((?P<params>[^()]*)\))?"
    r"(?:@(?P<k>\d+|k))?"
    r"(?:-l(?P<level>\d+))?$"
)
# trec_eval style: ndcg_cut_10, ndcg_cut.10, P_5, P.5, recall_100, success_1, map_cut_100
_TREC_EVAL = re.compile(r"^(?P<base>[a-z_]+?)[_.](?P<k>\d+)$")
# -at-k style: retrieval-recall-at-k, answer-containment-at-k
_AT_K = re.compile(r"^(?P<base>[a-z\-]+?)-at-k$")
# _at_ style, as evaluation services name response keys: precision_at_5, recall_at_k
_UNDERSCORE_AT = re.compile(r"^(?P<base>[a-z][a-z0-9_]*?)_at_(?P<k>\d+|k)$")


def parse_metric(text: str | Metric) -> Metric:
    """Parse a metric name in any accepted spelling into a canonical :class:`Metric`.

    Accepted: canonical names (``ndcg@10``, ``fbeta(beta=0.5)@10``, ``recall@k``),
    ir-measures (``nDCG@10``, ``P@5``, ``R@100``, ``RR``, ``AP``, ``P(rel=2)@10``),
    trec_eval (``ndcg_cut_10``, ``ndcg_cut.10``, ``P_5``, ``map``, ``recip_rank``),
    ranx (``mrr@10``, ``hit_rate@5``, ``r-precision``, ``precision@10-l2``), ``-at-k``
    names (``retrieval-ndcg-at-k``) and ``_at_`` names (``precision_at_5``,
    ``recall_at_k``), as evaluation services name their response keys.

    Parameters
    ----------
    text
        The name to parse. A measure whose cutoff is required but not given resolves per
        query (``@k``).

    Raises
    ------
    UnknownMetricError
        When the name is not recognised; the message suggests close names.

    Examples
    --------
    >>> parse_metric("map_cut_100").name
    'ap@100'
    >>> parse_metric("hit").name
    'hit@k'
    >>> parse_metric("precision@10-l2").name
    'precision(rel=2)@10'
    """
    if isinstance(text, Metric):
        return text
    if not isinstance(text, str) or not text.strip():
        msg = f"A metric name must be a non-empty string. Got {text!r} instead."
        raise UnknownMetricError(msg)
    raw = text.strip()
    lowered = raw.lower()
    known = name_index()

    match = _CANONICAL.match(lowered)
    if match and match["base"] in known:
        params = _parse_params(match["params"], raw)
        if match["level"] is not None:
            params["rel"] = match["level"]
        k: int | Literal["k"] | None = (
            None if match["k"] is None else (PER_QUERY if match["k"] == "k" else int(match["k"]))
        )
        return _build(known[match["base"]], k, params, raw)

    match = _TREC_EVAL.match(lowered)
    if match and match["base"] in known:
        return _build(known[match["base"]], int(match["k"]), {}, raw)

    match = _AT_K.match(lowered)
    if match and match["base"] in known:
        return _build(known[match["base"]], PER_QUERY, {}, raw)

    match = _UNDERSCORE_AT.match(lowered)
    if match and match["base"] in known:
        k = PER_QUERY if match["k"] == "k" else int(match["k"])
        return _build(known[match["base"]], k, {}, raw)

    raise UnknownMetricError(_unknown_message(raw, known))


def parse_metrics(names: str | Metric | Iterable[str | Metric]) -> list[Metric]:
    """Parse several names, dropping exact repeats but keeping the given order."""
    if isinstance(names, str | Metric):
        names = [names]
    seen: dict[str, Metric] = {}
    for name in names:
        metric = parse_metric(name)
        seen.setdefault(metric.name, metric)
    if not seen:
        msg = "No metric was given: pass at least one metric name (e.g. 'ndcg@10')."
        raise ParameterError(msg)
    return list(seen.values())


def expand_cutoffs(names: str | Metric | Iterable[str | Metric], ks: Iterable[int]) -> list[Metric]:
    """Give every metric without a fixed cutoff each cutoff of ``ks``.

    A bare name (``precision``, ``ndcg``) or ``@k`` becomes one metric per k; a fixed
    cutoff (``ndcg@10``) and a measure without one (``rprec``) stay as they are.

    Examples
    --------
    >>> [m.name for m in expand_cutoffs(["precision", "ndcg@3", "rprec"], [1, 5])]
    ['precision@1', 'precision@5', 'ndcg@3', 'rprec']
    """
    cutoffs = [int(k) for k in ks]
    if not cutoffs or any(k < 1 for k in cutoffs):
        msg = f"The 'ks' parameter must hold cutoffs >= 1. Got {cutoffs!r} instead."
        raise ParameterError(msg)
    expanded: list[Metric] = []
    for metric in parse_metrics(names):
        if metric.spec.cutoff == "none" or isinstance(metric.k, int):
            expanded.append(metric)
        else:
            expanded += [Metric(metric.measure, k, metric.params) for k in cutoffs]
    return parse_metrics(expanded)


def _parse_params(text: str | None, raw: str) -> dict[str, ParamValue]:
    params: dict[str, ParamValue] = {}
    if not text:
        return params
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            msg = f"Cannot parse parameter {part!r} in metric {raw!r}: expected name=value."
            raise UnknownMetricError(msg)
        params[key.strip()] = value.strip()
    return params


def _build(
    measure: str, k: int | Literal["k"] | None, params: Mapping[str, ParamValue], raw: str
) -> Metric:
    spec = lookup(measure)
    coerced = {key: spec.param(key).coerce(measure, value) for key, value in params.items()}
    if spec.cutoff == "none" and k is not None:
        msg = f"{measure} takes no cutoff, but {raw!r} gives one; use {measure!r}."
        raise UnknownMetricError(msg)
    if isinstance(k, int) and k <= 0:
        msg = f"The 'k' parameter of {measure} must be an int >= 1. Got {k} instead."
        raise ParameterError(msg)
    if isinstance(k, int) and k > MAX_INT:
        msg = f"The 'k' parameter of {measure} must be an int <= {MAX_INT}. Got {k} instead."
        raise ParameterError(msg)
    if spec.cutoff == "required" and k is None:
        k = PER_QUERY
    kept = tuple(sorted((key, v) for key, v in coerced.items() if v != spec.param(key).default))
    return Metric(measure=measure, k=k, params=kept)


def _unknown_message(raw: str, known: Mapping[str, str]) -> str:
    base = re.split(r"[@(]", raw.lower(), maxsplit=1)[0]
    # Suggest only names that parse as written (not trec_eval's ndcg_cut, which needs _k).
    parsing = [name for name in sorted(known) if _parses(name)]
    return (
        f"Unknown metric {raw!r}.{did_you_mean(base, parsing)} Known measures: "
        + ", ".join(sorted(available_measures()))
        + "."
    )


def _parses(name: str) -> bool:
    try:
        parse_metric(name)
    except (UnknownMetricError, ParameterError):
        return False
    return True


def geometric_metrics(names: Iterable[str | Metric]) -> list[str]:
    """Return the names among ``names`` whose summary is a geometric mean (``gm_map``).

    Examples
    --------
    >>> geometric_metrics(["ap", "gm_map"])
    ['gm_map']
    """
    parsed = (parse_metric(name) for name in names)
    return [metric.name for metric in parsed if metric.spec.average == "geometric"]


def greater_is_better(name: str | Metric) -> bool:
    """Return whether a larger value of the metric is better (``harm`` is lower-is-better).

    Raises
    ------
    UnknownMetricError
        When the name is not a metric's.

    Examples
    --------
    >>> greater_is_better("ndcg@10"), greater_is_better("harm@5")
    (True, False)
    """
    return parse_metric(name).spec.greater_is_better


def needs_grade_scale(name: str | Metric) -> bool:
    """Return whether the metric maps grades to tiers, so its labels must fit a scale.

    The metric's expression is built once on empty :class:`Features`, which record
    whether it asked for tiers; no data is read.

    Examples
    --------
    >>> needs_grade_scale("proc@10"), needs_grade_scale("ndcg@10")
    (True, False)
    """
    metric = parse_metric(name)
    key = (metric, metric.spec)
    try:
        return _USES_TIERS[key]
    except KeyError:
        cache = True
    except TypeError:  # a parameter value that cannot be hashed: build it each time
        cache = False
    features = Features()
    metric.spec.build(features, metric)
    if cache:
        _USES_TIERS[key] = features.uses_tiers
    return features.uses_tiers


# Whether each (metric, measure spec) maps grades to tiers: evaluation asks on every
# call, and building the expression is the costly part of the answer.
_USES_TIERS: dict[tuple[Metric, object], bool] = {}
