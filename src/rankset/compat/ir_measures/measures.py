"""ir_measures' measure objects (``ir_measures.measures``): ``AP``, ``nDCG@10``, ``P(rel=2)@5``.

As in ir_measures, each measure is an instance of its own class, ``measure(**params)``
and ``measure @ value`` return new ones (``@`` sets ``AT_PARAM``: the cutoff, or the
recall level of ``IPrec``), ``repr`` writes the parameters in the order given, leaving
out those at their default, and two measures are equal when they print the same:
``nDCG(judged_only=False)@10 == nDCG@10``, ``MAP == AP``, ``SetRelP == SetP(relative=True)``.
A measure computes itself (``AP.calc_aggregate(qrels, run)``, ``iter_calc``, ``calc``,
``evaluator``) through :mod:`rankset.compat.ir_measures`.

Unlike ir_measures, a parameter the measure does not take, or a value of the wrong type,
raises :class:`~rankset.ParameterError` when the measure is built (ir_measures asserts
when it first computes it). ``Accuracy`` is listed but not computed (an error names it).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar, Protocol

from rankset.errors import ParameterError

__all__ = [
    "AP",
    "AP_IA",
    "BPM",
    "ERR",
    "ERR_IA",
    "INSQ",
    "INST",
    "MAP",
    "MAP_IA",
    "MRR",
    "NDCG",
    "NERR8",
    "NERR9",
    "NERR10",
    "NERR11",
    "NRBP",
    "P_IA",
    "RBP",
    "RR",
    "SDCG",
    "Accuracy",
    "Agg",
    "BPref",
    "BaseMeasure",
    "Bpref",
    "Compat",
    "IPrec",
    "Judged",
    "MeanAgg",
    "Measure",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "ParamInfo",
    "Pipeline",
    "Precision",
    "R",
    "RPrec",
    "Recall",
    "Rprec",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "SetRelP",
    "StRecall",
    "Success",
    "SumAgg",
    "alpha_DCG",
    "alpha_nDCG",
    "infAP",
    "nDCG",
    "nERR_IA",
    "nNRBP",
    "register",
    "registry",
    "use_pipeline",
    "α_DCG",
    "α_nDCG",
]  # fmt: skip

_NOT_PROVIDED: Any = object()


class ParamInfo:
    """One parameter a measure takes: its type, whether required, its choices and default."""

    def __init__(
        self,
        dtype: type | None = None,
        required: bool = False,
        choices: Any = _NOT_PROVIDED,
        default: Any = _NOT_PROVIDED,
        desc: str | None = None,
    ) -> None:
        self.dtype = dtype
        self.required = required
        self.choices = choices
        self.default = default
        self.desc = desc

    def validate(self, value: Any) -> bool:
        """Whether ``value`` is acceptable (a float parameter takes an int too)."""
        if value is _NOT_PROVIDED:
            return not self.required
        if self.dtype is float and isinstance(value, int) and not isinstance(value, bool):
            return self.choices is _NOT_PROVIDED or value in self.choices
        if self.dtype is not None and not isinstance(value, self.dtype):
            return False
        return self.choices is _NOT_PROVIDED or value in self.choices


class Agg(ABC):
    """An aggregate of per-query values."""

    @abstractmethod
    def add(self, value: float) -> None:
        """Take one query's value."""

    @abstractmethod
    def result(self) -> float:
        """Return the aggregate of the values taken."""


class MeanAgg(Agg):
    """The mean: values added one by one, then divided (``default`` with no value)."""

    def __init__(self, default: float = math.nan) -> None:
        self.sum = 0.0
        self.count = 0
        self.default = default

    def add(self, value: float) -> None:
        """Add one query's value."""
        self.sum += value
        self.count += 1

    def result(self) -> float:
        """Return the mean (``default`` when no value was added)."""
        return self.sum / self.count if self.count else self.default


class SumAgg(Agg):
    """The sum of the values (the counting measures: ``NumQ``, ``NumRet``, ``NumRel``)."""

    def __init__(self) -> None:
        self.sum = 0.0

    def add(self, value: float) -> None:
        """Add one query's value."""
        self.sum += value

    def result(self) -> float:
        """Return the sum."""
        return self.sum


class Measure:
    """A measure with its parameters, as ir_measures writes it.

    Examples
    --------
    >>> str(P(rel=2) @ 5), str(nDCG(judged_only=False) @ 10), MAP == AP, NumRelRet
    ('P(rel=2)@5', 'nDCG@10', True, NumRet(rel=1))
    >>> (nDCG @ 10)["cutoff"], AP["rel"]
    (10, 1)
    """

    NAME: ClassVar[str | None] = None
    __name__: ClassVar[str] = "Measure"
    AT_PARAM: ClassVar[str] = "cutoff"
    SUPPORTED_PARAMS: ClassVar[dict[str, ParamInfo]] = {}
    DEFAULT: ClassVar[float] = 0.0
    SUMMED: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        unknown = [name for name in params if name not in self.SUPPORTED_PARAMS]
        if unknown:
            accepted = ", ".join(self.SUPPORTED_PARAMS) or "none"
            msg = (
                f"{self.__name__} has no parameter {', '.join(map(repr, unknown))} here "
                f"(parameters: {accepted})."
            )
            raise ParameterError(msg)
        for name, value in params.items():
            if not self.SUPPORTED_PARAMS[name].validate(value):
                msg = f"{self.__name__}: invalid parameter {name}={value!r}"
                raise ParameterError(msg)
        at = params.get(self.AT_PARAM)
        if at is not None and self.AT_PARAM == "recall" and not 0 <= at <= 1:
            msg = f"{self.__name__}@ is a recall level between 0 and 1, got {at!r}."
            raise ParameterError(msg)
        if at is not None and self.AT_PARAM == "cutoff" and at < 1:
            msg = f"{self.__name__}@ is a cutoff, an int >= 1, got {at!r}."
            raise ParameterError(msg)
        self.params = params
        self.validated = True

    def validate_params(self) -> None:
        """Check the required parameters are given (ir_measures asserts; here an error)."""
        for name, info in self.SUPPORTED_PARAMS.items():
            if info.required and name not in self.params:
                msg = f"{self!r}: parameter {name} is required"
                raise ParameterError(msg)

    def __call__(self, **kwargs: Any) -> Measure:
        """Return this measure with ``kwargs`` set (``AP(rel=2)``)."""
        return type(self)(**{**self.params, **kwargs})

    def __matmul__(self, at_param: Any) -> Measure:
        return self(**{self.AT_PARAM: at_param})

    def __getitem__(self, key: str) -> Any:
        return self.params.get(key, self.SUPPORTED_PARAMS[key].default)

    def param(self, name: str, default: Any = None) -> Any:
        """Return the value of parameter ``name`` as given, else ``default``."""
        return self.params.get(name, default)

    def iter_calc(self, qrels: Any, run: Any) -> Iterator[Any]:
        """Yield this measure's value on every labelled query."""
        return _pipeline().iter_calc([self], qrels, run)

    def calc_aggregate(self, qrels: Any, run: Any) -> float:
        """Return this measure aggregated over the labelled queries."""
        return _pipeline().calc_aggregate([self], qrels, run)[self]

    def calc(self, qrels: Any, run: Any) -> Any:
        """Return the aggregate and the per-query values (``CalcResults``)."""
        found = _pipeline().calc([self], qrels, run)
        assert isinstance(found.aggregated, dict)
        return found._replace(aggregated=found.aggregated[self])

    def evaluator(self, qrels: Any) -> Any:
        """Return an evaluator of this measure over ``qrels``, to reuse over runs."""
        return _pipeline().evaluator([self], qrels)

    def aggregator(self) -> Agg:
        """Return a fresh aggregate of this measure: a sum for the counts, else a mean."""
        return SumAgg() if self.SUMMED else MeanAgg()

    def __repr__(self) -> str:
        shown = ",".join(
            f"{name}={_param_repr(value)}"
            for name, value in self.params.items()
            if name != self.AT_PARAM and value != self.SUPPORTED_PARAMS[name].default
        )
        text = f"{self.__name__}({shown})" if shown else self.__name__
        if self.AT_PARAM in self.params:
            text += f"@{self.params[self.AT_PARAM]}"
        return text

    def __str__(self) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Measure) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))


BaseMeasure = Measure  # ir_measures' older name


class Pipeline(Protocol):
    """What computes measures: :data:`rankset.compat.ir_measures.DefaultPipeline`."""

    def iter_calc(self, measures: list[Measure], qrels: Any, run: Any) -> Iterator[Any]:
        """Yield every labelled query's value of every measure."""

    def calc_aggregate(self, measures: list[Measure], qrels: Any, run: Any) -> dict[Measure, float]:
        """Return each measure aggregated over the labelled queries."""

    def calc(self, measures: list[Measure], qrels: Any, run: Any) -> Any:
        """Return the aggregates and the per-query values."""

    def evaluator(self, measures: list[Measure], qrels: Any) -> Any:
        """Return an evaluator of the measures over ``qrels``."""


_PIPELINES: list[Pipeline] = []


def use_pipeline(pipeline: Pipeline) -> None:
    """Make ``pipeline`` compute the measures' own ``calc``, ``iter_calc``... (set once)."""
    _PIPELINES[:] = [pipeline]


def _pipeline() -> Pipeline:
    if not _PIPELINES:
        msg = "no pipeline: import rankset.compat.ir_measures"
        raise RuntimeError(msg)
    return _PIPELINES[0]


def _param_repr(value: Any) -> str:
    """Write a parameter as ir_measures does; a gain map ``{2:3,3:7}`` (identities left out)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in sorted(value.items()) if k != v) + "}"
    return repr(value)


registry: dict[str, Measure] = {}


def register(
    measure: Measure, aliases: list[str] | None = None, name: str | None = None
) -> dict[str, Measure]:
    """Add ``measure`` to the registry :func:`parse_measure` reads, under its name and aliases."""
    for key in [name or measure.__name__, *(aliases or [])]:
        if key in registry:
            msg = f"{key} is already a measure"
            raise ParameterError(msg)
        registry[key] = measure
    return registry


def _info(dtype: type, default: Any = _NOT_PROVIDED, *, required: bool = False) -> ParamInfo:
    return ParamInfo(dtype=dtype, default=default, required=required)


def _cutoff(required: bool = False) -> ParamInfo:
    return ParamInfo(dtype=int, required=required, desc="ranking cutoff threshold")


_REL = _info(int, 1)
_JUDGED = _info(bool, False)
_CWL = {"min_rel": _info(int, 0), "max_rel": _info(int, required=True)}


def _define(
    name: str,
    params: dict[str, ParamInfo],
    *,
    at: str = "cutoff",
    summed: bool = False,
    aliases: tuple[str, ...] = (),
) -> Measure:
    """Make measure ``name``'s class and its instance, and register it."""
    namespace = {"__name__": name, "NAME": name, "SUPPORTED_PARAMS": params, "AT_PARAM": at}
    cls = type(f"_{name}", (Measure,), {**namespace, "SUMMED": summed})
    measure: Measure = cls()
    register(measure, list(aliases))
    return measure


Accuracy = _define("Accuracy", {"cutoff": _cutoff(), "rel": _REL})
AP = _define("AP", {"cutoff": _cutoff(), "rel": _REL, "judged_only": _JUDGED}, aliases=("MAP",))
BPM = _define("BPM", {"cutoff": _cutoff(True), "T": _info(float, 1.0), **_CWL})
Bpref = _define("Bpref", {"rel": _REL}, aliases=("BPref",))
Compat = _define("Compat", {"p": _info(float, 0.95), "normalize": _info(bool, True)})
ERR = _define("ERR", {"cutoff": _cutoff()})
INST = _define("INST", {"T": _info(float, 1.0), **_CWL})
INSQ = _define("INSQ", {"T": _info(float, 1.0), **_CWL})
infAP = _define("infAP", {"rel": _REL})
IPrec = _define(
    "IPrec",
    {"recall": _info(float, required=True), "rel": _REL, "judged_only": _JUDGED},
    at="recall",
)
Judged = _define("Judged", {"cutoff": _cutoff()})
_DCG = ParamInfo(dtype=str, choices=["log2", "exp-log2"], default="log2")
nDCG = _define(
    "nDCG",
    {"cutoff": _cutoff(), "dcg": _DCG, "gains": _info(dict), "judged_only": _JUDGED},
    aliases=("NDCG",),
)
NERR8 = _define("NERR8", {"cutoff": _cutoff(True), **_CWL})
NERR9 = _define("NERR9", {"cutoff": _cutoff(True), **_CWL})
NERR10 = _define("NERR10", {"p": _info(float, 0.9), **_CWL})
NERR11 = _define("NERR11", {"T": _info(float, 1.0), **_CWL})
NumQ = _define("NumQ", {}, summed=True)
NumRel = _define("NumRel", {"rel": _REL}, summed=True)
NumRet = _define("NumRet", {"rel": _info(int)}, summed=True)
_RANKED = {"cutoff": _cutoff(True), "rel": _REL, "judged_only": _JUDGED}
P = _define("P", _RANKED, aliases=("Precision",))
R = _define("R", _RANKED, aliases=("Recall",))
RBP = _define("RBP", {"cutoff": _cutoff(), "p": _info(float, 0.8), "rel": _info(int)})
Rprec = _define("Rprec", {"rel": _REL, "judged_only": _JUDGED}, aliases=("RPrec",))
RR = _define("RR", {"cutoff": _cutoff(), "rel": _REL, "judged_only": _JUDGED}, aliases=("MRR",))
SDCG = _define(
    "SDCG",
    {"cutoff": _cutoff(True), "dcg": ParamInfo(str, choices=["log2"], default="log2"), **_CWL},
)
SetAP = _define("SetAP", {"rel": _REL, "judged_only": _JUDGED})
SetF = _define("SetF", {"rel": _REL, "beta": _info(float, 1.0), "judged_only": _JUDGED})
SetP = _define("SetP", {"rel": _REL, "relative": _info(bool, False), "judged_only": _JUDGED})
SetR = _define("SetR", {"rel": _REL})
Success = _define("Success", _RANKED)
# the intent-aware family (ndeval)
_ALPHA = _info(float, 0.5)
alpha_DCG = _define("alpha_DCG", {"cutoff": _cutoff(), "rel": _REL, "alpha": _ALPHA})
alpha_nDCG = _define("alpha_nDCG", {"cutoff": _cutoff(), "rel": _REL, "alpha": _ALPHA})
ERR_IA = _define("ERR_IA", {"cutoff": _cutoff(), "rel": _REL})
nERR_IA = _define("nERR_IA", {"cutoff": _cutoff(), "rel": _REL})
NRBP = _define("NRBP", {"rel": _REL, "alpha": _ALPHA, "beta": _info(float, 0.5)})
nNRBP = _define("nNRBP", {"rel": _REL, "alpha": _ALPHA, "beta": _info(float, 0.5)})
AP_IA = _define("AP_IA", {"rel": _REL}, aliases=("MAP_IA",))
P_IA = _define("P_IA", {"cutoff": _cutoff(), "rel": _REL})
StRecall = _define("StRecall", {"cutoff": _cutoff(), "rel": _REL})

# other names of the same measures, as ir_measures has them
MAP = AP
MRR = RR
NDCG = nDCG
BPref = Bpref
RPrec = Rprec
Precision = P
Recall = R
MAP_IA = AP_IA
α_DCG = alpha_DCG
α_nDCG = alpha_nDCG
registry["α_DCG"] = alpha_DCG
registry["α_nDCG"] = alpha_nDCG
SetRelP = SetP(relative=True)
NumRelRet = NumRet(rel=1)
registry["SetRelP"] = SetRelP
registry["NumRelRet"] = NumRelRet
