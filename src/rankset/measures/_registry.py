"""What a measure is: parameters, specs, metric instances, the registry and :func:`define`.

A *measure* is a family (``ndcg``); a *metric* is a measure with its parameters and
cutoff resolved (``ndcg@10``, ``fbeta(beta=0.5)@10``, ``recall@k``). Canonical names are
lower case and print back exactly the way they parse, so a metric's name is its identity.

:func:`define` is the only way to add a measure: one call holds everything rankset knows
about it, from its Polars expression (``build``) to its names in other tools. The registry
imports nothing that defines measures; :mod:`rankset.measures` imports the families, so
importing anything under it fills the registry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal, Required, TypeAlias, TypedDict, Unpack, overload

import polars as pl

from rankset.errors import ParameterError, UnknownMetricError
from rankset.measures._features import Features

__all__ = [
    "Average",
    "CutoffRule",
    "EmptyValue",
    "MeasureSpec",
    "Metric",
    "ParamSpec",
    "ParamValue",
    "available_measures",
    "define",
    "lookup",
    "name_index",
    "temporary_measures",
]

CutoffRule = Literal["required", "optional", "none"]
#: How a summary averages a measure over queries: the mean, or the geometric mean (the
#: per-query values are then logarithms and the summary exponentiates their mean).
Average = Literal["mean", "geometric"]
ParamValue = int | float | str
#: A query's value when the system did not answer it: a number, None (NA), or ``"labels"``
#: for a measure that reads the labels only (the query gets its usual value).
EmptyValue: TypeAlias = float | Literal["labels", "nothing retrieved"] | None
Build: TypeAlias = Callable[[Features, "Metric"], pl.Expr]

_CUTOFF_RULES = ("required", "optional", "none")
_MEASURE_NAME = re.compile(r"[a-z][a-z0-9_]*")
_TREC_CUTOFF = "_{k}"


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
        elif not math.isfinite(value):
            msg = (
                f"The '{self.name}' parameter of {measure} must be a finite number. "
                f"Got {raw!r} instead."
            )
            raise ParameterError(msg)
        elif self.minimum is not None and value < self.minimum:
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
    """Everything rankset knows about one measure family; made by :func:`define`.

    Attributes
    ----------
    name
        Canonical lower-case name, e.g. ``"ndcg"``.
    description
        One sentence: what the measure answers.
    cutoff
        ``"required"`` (no cutoff means k per query), ``"optional"`` (no cutoff means the
        full ranking) or ``"none"`` (a cutoff is an error).
    build
        ``build(features, metric) -> pl.Expr``: the per-query value, from the columns it
        registers on a :class:`~rankset.measures.Features`.
    params
        Parameters other than the cutoff, e.g. ``beta`` of ``fbeta`` or ``rel``.
    aliases
        Other accepted names (lower case), besides the names in other tools.
    greater_is_better
        Direction of improvement (comparisons, reports and charts read it).
    empty_value
        The value of a labelled query the system did not answer (``missing="zero"``, or
        ``trec_eval -c``), where the NA rule does not apply: a number, None (NA), or
        ``"labels"`` when the measure reads the labels only, ``"nothing retrieved"``
        when it is the measure's value for a ranking without a labelled document (a
        formula of the labels, as ``yaap``'s ``ln(1 / (1 + R))``). The evaluation gets the
        value from the features' own empty values; the test suite checks this
        declaration against it for every measure.
    na_rule
        When the value is NA (null), in words; empty if never.
    trec_eval
        trec_eval's names: a plain name (``"map"``) and/or a cutoff family written with a
        ``{k}`` placeholder (``"map_cut_{k}"`` prints as ``map_cut_10``).
    ir_measures
        ir-measures' name (``"nDCG"``; it takes ``@k`` and ``(rel=...)`` like rankset).
    ranx
        ranx's name (``"ndcg"``; it takes ``@k`` and ``-l<level>``).
    average
        ``"mean"``, or ``"geometric"`` for a measure whose per-query value is a logarithm
        (``gm_map``): its summary mean and interval are the exponentials of the mean and
        interval of the logarithms.
    """

    name: str
    description: str
    cutoff: CutoffRule
    build: Build = field(compare=False, repr=False)
    params: tuple[ParamSpec, ...] = ()
    aliases: tuple[str, ...] = ()
    greater_is_better: bool = True
    empty_value: EmptyValue = 0.0
    na_rule: str = ""
    trec_eval: tuple[str, ...] = ()
    ir_measures: str | None = None
    ranx: str | None = None
    average: Average = "mean"

    def param(self, name: str) -> ParamSpec:
        """Return the parameter spec called ``name``."""
        for spec in self.params:
            if spec.name == name:
                return spec
        known = ", ".join(p.name for p in self.params) or "none"
        msg = f"{self.name} has no parameter '{name}' (parameters: {known})."
        raise UnknownMetricError(msg)

    def has_param(self, name: str) -> bool:
        """Whether the measure has a parameter called ``name``."""
        return any(spec.name == name for spec in self.params)

    def accepted_names(self) -> tuple[str, ...]:
        """Every lower-case base name that parses to this measure, canonical name first.

        Those are the aliases and the names in other tools (a trec_eval cutoff family
        without its ``_{k}``).

        Examples
        --------
        >>> from rankset.measures import available_measures
        >>> available_measures()["ap"].accepted_names()
        ('ap', 'average_precision', 'map', 'map_cut')
        """
        tools = [name.removesuffix(_TREC_CUTOFF) for name in self.trec_eval]
        tools += [name for name in (self.ir_measures, self.ranx) if name is not None]
        names = [self.name, *self.aliases, *(name.lower() for name in tools)]
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Metric:
    """A measure with its parameters and cutoff: the unit that is evaluated.

    ``k`` is an int cutoff, :data:`~rankset.measures.PER_QUERY` (``"k"``) for a per-query
    cutoff, or ``None`` for the full ranking. ``params`` holds only values that differ from
    the defaults, sorted by name, so equal metrics have equal names.
    """

    measure: str
    k: int | Literal["k"] | None = None
    params: tuple[tuple[str, ParamValue], ...] = ()

    @property
    def spec(self) -> MeasureSpec:
        """The :class:`MeasureSpec` of this metric's measure."""
        return lookup(self.measure)

    @property
    def name(self) -> str:
        """Canonical printed form, e.g. ``fbeta(beta=0.5)@10``."""
        text = self.measure
        if self.params:
            text += "(" + ",".join(f"{key}={_format_value(v)}" for key, v in self.params) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text

    @property
    def rel(self) -> float | None:
        """The metric's own relevance level (its ``rel``), or None to use the evaluation's."""
        if not self.spec.has_param("rel"):
            return None
        value = self.get("rel")
        return None if value is None else float(value)

    def explicit_cutoff(self, why: str) -> int:
        """Return the int cutoff; raise for a per-query or missing one, saying ``why``.

        For measures whose features need the cutoff when the evaluation is planned.
        """
        if not isinstance(self.k, int):
            name = self.spec.name
            msg = f"{name} needs an explicit cutoff: write {name}@k ({why})."
            raise ParameterError(msg)
        return self.k

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
# accepted base name (lower case) -> canonical measure name
_ALIASES: dict[str, str] = {}


class _DefineOptions(TypedDict, total=False):
    """The keyword arguments of :func:`define`, for its overloads (defaults: see there)."""

    description: Required[str]
    cutoff: Required[CutoffRule]
    params: Sequence[ParamSpec]
    aliases: Sequence[str]
    greater_is_better: bool
    empty_value: EmptyValue
    na_rule: str
    trec_eval: str | Sequence[str]
    ir_measures: str | None
    ranx: str | None
    average: Average


@overload
def define(name: str, build: Build, **options: Unpack[_DefineOptions]) -> MeasureSpec: ...


@overload
def define(
    name: str, build: None = None, **options: Unpack[_DefineOptions]
) -> Callable[[Build], Build]: ...


def define(
    name: str,
    build: Build | None = None,
    *,
    description: str,
    cutoff: CutoffRule,
    params: Sequence[ParamSpec] = (),
    aliases: Sequence[str] = (),
    greater_is_better: bool = True,
    empty_value: EmptyValue = 0.0,
    na_rule: str = "",
    trec_eval: str | Sequence[str] = (),
    ir_measures: str | None = None,
    ranx: str | None = None,
    average: Average = "mean",
) -> MeasureSpec | Callable[[Build], Build]:
    """Add a measure to the registry: the only way to define one.

    Called with ``build`` it registers and returns the :class:`MeasureSpec`; without, it
    is a decorator that registers the function below it and returns that function
    unchanged. Every argument is a :class:`MeasureSpec` attribute (see there). The names
    in other tools are accepted as aliases too (lower case; a trec_eval cutoff family
    without its ``_{k}``).

    Raises
    ------
    ValueError
        When the name is not lower-case ``[a-z][a-z0-9_]*``, the cutoff rule is unknown,
        or the name or an alias is already taken: a measure is defined once.

    Examples
    --------
    >>> import polars as pl
    >>> from rankset.measures import available_measures, define, temporary_measures
    >>> with temporary_measures():
    ...     @define("first_pos", description="The position 1.", cutoff="none")
    ...     def first_pos(features, metric):
    ...         return pl.lit(1.0)
    ...     print(available_measures()["first_pos"].cutoff)
    none
    >>> "first_pos" in available_measures()
    False
    """

    def register(function: Build) -> MeasureSpec:
        spec = MeasureSpec(
            name=name,
            description=description,
            cutoff=cutoff,
            build=function,
            params=tuple(params),
            aliases=tuple(alias.lower() for alias in aliases),
            greater_is_better=greater_is_better,
            empty_value=empty_value,
            na_rule=na_rule,
            trec_eval=(trec_eval,) if isinstance(trec_eval, str) else tuple(trec_eval),
            ir_measures=ir_measures,
            ranx=ranx,
            average=average,
        )
        _check(spec)
        _REGISTRY[spec.name] = spec
        for alias in spec.accepted_names():
            _ALIASES[alias] = spec.name
        return spec

    if build is not None:
        return register(build)

    def decorator(function: Build) -> Build:
        register(function)
        return function

    return decorator


def _check(spec: MeasureSpec) -> None:
    if not _MEASURE_NAME.fullmatch(spec.name):
        msg = f"A measure name must be lower case [a-z][a-z0-9_]*. Got {spec.name!r} instead."
        raise ValueError(msg)
    if spec.cutoff not in _CUTOFF_RULES:
        msg = f"The cutoff of {spec.name} must be one of {_CUTOFF_RULES}. Got {spec.cutoff!r}."
        raise ValueError(msg)
    if not callable(spec.build):
        msg = f"The build of {spec.name} must be a function (features, metric) -> pl.Expr."
        raise TypeError(msg)
    if spec.name in _REGISTRY:
        msg = f"measure {spec.name!r} is already registered"
        raise ValueError(msg)
    for alias in spec.accepted_names():
        if _ALIASES.get(alias, spec.name) != spec.name:
            msg = f"{alias!r}, a name of {spec.name}, already names {_ALIASES[alias]}"
            raise ValueError(msg)
    for template in spec.trec_eval:
        if "{k}" in template and (spec.cutoff == "none" or not template.endswith(_TREC_CUTOFF)):
            msg = f"{spec.name}: a trec_eval cutoff family ends in '_{{k}}'. Got {template!r}."
            raise ValueError(msg)


def lookup(measure: str) -> MeasureSpec:
    """Return the spec of the measure with canonical name ``measure``."""
    return _REGISTRY[measure]


def available_measures() -> dict[str, MeasureSpec]:
    """Return every registered measure, by canonical name."""
    return dict(_REGISTRY)


def name_index() -> dict[str, str]:
    """Return every accepted base name (lower case) -> its measure's canonical name."""
    return dict(_ALIASES)


@contextmanager
def temporary_measures() -> Iterator[None]:
    """Forget every measure defined inside the block when it exits (tests, examples).

    Examples
    --------
    >>> import polars as pl
    >>> with temporary_measures():
    ...     spec = define("one", lambda features, metric: pl.lit(1.0),
    ...                   description="Always 1.", cutoff="none")
    >>> "one" in available_measures()
    False
    """
    registry, names = dict(_REGISTRY), dict(_ALIASES)
    try:
        yield
    finally:
        _REGISTRY.clear()
        _REGISTRY.update(registry)
        _ALIASES.clear()
        _ALIASES.update(names)
