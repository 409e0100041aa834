"""What a metric is: specs, parsed metric instances, the registry and the name grammar.

A *measure* is a family (``ndcg``); a *metric* is a measure with its parameters and
cutoff resolved (``ndcg@10``, ``fbeta(beta=0.5)@10``, ``recall@k``). Canonical names are
lower case and print back exactly the way they parse, so a metric's name is its identity.

The registry only knows names, parameters and cutoff rules. How a measure is computed
(its Polars expression) is attached by the module that defines it, through
:func:`register`.

Examples
--------
>>> from rankset.registry import parse_metric
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

import difflib
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from rankset.errors import ParameterError, UnknownMetricError

if TYPE_CHECKING:
    import polars as pl

    from rankset.plan import PlanBuilder

__all__ = [
    "PER_QUERY",
    "MeasureSpec",
    "Metric",
    "ParamSpec",
    "available_measures",
    "parse_metric",
    "parse_metrics",
    "register",
]

CutoffRule = Literal["required", "optional", "none"]
ParamValue = int | float | str

#: The cutoff value that means "resolve k per query" (cutoffs table, then ``k=``, then 5).
PER_QUERY: Literal["k"] = "k"


@dataclass(frozen=True)
class ParamSpec:
    """A named, typed parameter of a measure, with its default and allowed values."""

    name: str
    kind: type[int] | type[float] | type[str]
    default: ParamValue | None
    minimum: float | None = None
    description: str = ""
    choices: tuple[ParamValue, ...] = ()

    def coerce(self, measure: str, raw: ParamValue) -> ParamValue:
        """Convert ``raw`` to this parameter's type, raising a clear error if impossible."""
        try:
            value = self.kind(raw)
        except (TypeError, ValueError):
            msg = (
                f"The '{self.name}' parameter of {measure} must be a {self.kind.__name__}. "
                f"Got {raw!r} instead."
            )
            raise ParameterError(msg) from None
        if self.kind is int and float(raw) != int(value):
            msg = f"The '{self.name}' parameter of {measure} must be an int. Got {raw!r} instead."
            raise ParameterError(msg)
        if isinstance(value, str):
            value = value.lower()
        elif self.minimum is not None and (math.isnan(value) or value < self.minimum):
            msg = (
                f"The '{self.name}' parameter of {measure} must be >= {self.minimum:g}. "
                f"Got {raw!r} instead."
            )
            raise ParameterError(msg)
        if self.choices and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            msg = (
                f"The '{self.name}' parameter of {measure} must be one of {allowed}. "
                f"Got {raw!r} instead."
            )
            raise ParameterError(msg)
        return value


@dataclass(frozen=True)
class MeasureSpec:
    """Everything rankset knows about one measure family.

    Parameters
    ----------
    name
        Canonical lower-case name, e.g. ``"ndcg"``.
    description
        One sentence: what the measure answers.
    cutoff
        ``"required"`` (no cutoff means k per query), ``"optional"`` (no cutoff means the
        full ranking) or ``"none"`` (a cutoff is an error).
    params
        Parameters other than the cutoff, e.g. ``beta`` of ``fbeta`` or ``rel``.
    greater_is_better
        Direction of improvement (for comparisons and charts).
    empty_value
        Value for a query whose ranking is empty (``None`` means NA).
    na_rule
        When the value is NA (null), in words; empty if never.
    build
        ``build(plan, metric) -> pl.Expr`` giving the per-query value; attached by the
        module that implements the measure.
    """

    name: str
    description: str
    cutoff: CutoffRule
    params: tuple[ParamSpec, ...] = ()
    greater_is_better: bool = True
    empty_value: float | None = 0.0
    na_rule: str = ""
    trec_eval_name: str | None = None
    build: Callable[[PlanBuilder, Metric], pl.Expr] | None = field(
        default=None, compare=False, repr=False
    )

    def param(self, name: str) -> ParamSpec:
        """Return the parameter spec called ``name``."""
        for spec in self.params:
            if spec.name == name:
                return spec
        known = ", ".join(p.name for p in self.params) or "none"
        msg = f"{self.name} has no parameter '{name}' (parameters: {known})."
        raise UnknownMetricError(msg)


@dataclass(frozen=True)
class Metric:
    """A measure with its parameters and cutoff: the unit that is evaluated.

    ``k`` is an int cutoff, :data:`PER_QUERY` (``"k"``) for a per-query cutoff, or
    ``None`` for the full ranking. ``params`` holds only values that differ from the
    defaults, sorted by name, so equal metrics have equal names.
    """

    measure: str
    k: int | Literal["k"] | None = None
    params: tuple[tuple[str, ParamValue], ...] = ()

    @property
    def spec(self) -> MeasureSpec:
        """The :class:`MeasureSpec` of this metric's measure."""
        return _REGISTRY[self.measure]

    @property
    def name(self) -> str:
        """Canonical printed form, e.g. ``fbeta(beta=0.5)@10``."""
        text = self.measure
        if self.params:
            text += "(" + ",".join(f"{key}={_format_value(v)}" for key, v in self.params) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text

    def get(self, param: str) -> ParamValue | None:
        """Value of ``param`` (the measure's default when not set)."""
        for key, value in self.params:
            if key == param:
                return value
        return self.spec.param(param).default

    def __str__(self) -> str:
        return self.name


def _format_value(value: ParamValue) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


_REGISTRY: dict[str, MeasureSpec] = {}
# alias (lower case) -> canonical measure name
_ALIASES: dict[str, str] = {}


def register(spec: MeasureSpec, aliases: Iterable[str] = ()) -> MeasureSpec:
    """Add a measure (and its aliases) to the registry; returns the spec."""
    if spec.name in _REGISTRY:
        msg = f"measure {spec.name!r} is already registered"
        raise ValueError(msg)
    _REGISTRY[spec.name] = spec
    for alias in (spec.name, *aliases):
        _ALIASES[alias.lower()] = spec.name
    return spec


def available_measures() -> dict[str, MeasureSpec]:
    """Return every registered measure, by canonical name."""
    _ensure_builtin_measures()
    return dict(_REGISTRY)


def _ensure_builtin_measures() -> None:
    # The measure modules register themselves on import; importing them here keeps
    # parse_metric usable without importing the whole package first.
    import rankset.metrics
    import rankset.rag  # noqa: F401


# --- name grammar --------------------------------------------------------------------

_CANONICAL = re.compile(
    r"^(?P<base>[a-z%][a-z0-9_%\-]*?)"
    r"(?:\((?P<params>[^()]*)\))?"
    r"(?:@(?P<k>\d+|k))?"
    r"(?:-l(?P<level>\d+))?$"
)
# trec_eval style: ndcg_cut_10, ndcg_cut.10, P_5, P.5, recall_100, success_1, map_cut_100
_TREC_EVAL = re.compile(r"^(?P<base>[a-z_]+?)[_.](?P<k>\d+)$")
# seed-000 style: retrieval-recall-at-k, answer-containment-at-k
_AT_K = re.compile(r"^(?P<base>[a-z\-]+?)-at-k$")


def parse_metric(text: str | Metric) -> Metric:
    """Parse a metric name in any accepted spelling into a canonical :class:`Metric`.

    Accepted: canonical names (``ndcg@10``, ``fbeta(beta=0.5)@10``, ``recall@k``),
    ir-measures (``nDCG@10``, ``P@5``, ``R@100``, ``RR``, ``AP``, ``P(rel=2)@10``),
    trec_eval (``ndcg_cut_10``, ``ndcg_cut.10``, ``P_5``, ``map``, ``recip_rank``),
    ranx (``mrr@10``, ``hit_rate@5``, ``r-precision``, ``precision@10-l2``) and seed-000
    names (``retrieval-ndcg-at-k``).

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
    _ensure_builtin_measures()
    raw = text.strip()
    lowered = raw.lower()

    match = _CANONICAL.match(lowered)
    if match and match["base"] in _ALIASES:
        params = _parse_params(match["params"], raw)
        if match["level"] is not None:
            params["rel"] = match["level"]
        k: int | Literal["k"] | None = (
            None if match["k"] is None else (PER_QUERY if match["k"] == "k" else int(match["k"]))
        )
        return _build(match["base"], k, params, raw)

    match = _TREC_EVAL.match(lowered)
    if match and match["base"] in _ALIASES:
        return _build(match["base"], int(match["k"]), {}, raw)

    match = _AT_K.match(lowered)
    if match and match["base"] in _ALIASES:
        return _build(match["base"], PER_QUERY, {}, raw)

    raise UnknownMetricError(_unknown_message(raw))


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
    base: str, k: int | Literal["k"] | None, params: Mapping[str, ParamValue], raw: str
) -> Metric:
    measure = _ALIASES[base]
    spec = _REGISTRY[measure]
    coerced = {key: spec.param(key).coerce(measure, value) for key, value in params.items()}
    if spec.cutoff == "none" and k is not None:
        msg = f"{measure} takes no cutoff, but {raw!r} gives one; use {measure!r}."
        raise UnknownMetricError(msg)
    if isinstance(k, int) and k <= 0:
        msg = f"The 'k' parameter of {measure} must be an int >= 1. Got {k} instead."
        raise ParameterError(msg)
    if spec.cutoff == "required" and k is None:
        k = PER_QUERY
    kept = tuple(sorted((key, v) for key, v in coerced.items() if v != spec.param(key).default))
    return Metric(measure=measure, k=k, params=kept)


def _unknown_message(raw: str) -> str:
    names = sorted(_ALIASES)
    base = re.split(r"[@(]", raw.lower(), maxsplit=1)[0]
    close = difflib.get_close_matches(base, names, n=3, cutoff=0.6)
    msg = f"Unknown metric {raw!r}."
    if close:
        suggestions = ", ".join(repr(c) for c in close)
        msg += f" Did you mean {suggestions}?"
    msg += " Known measures: " + ", ".join(sorted(_REGISTRY)) + "."
    return msg
