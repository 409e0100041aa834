"""The options of an evaluation: one frozen object, its defaults and its constraints.

:func:`rankset.evaluate`, :func:`rankset.curves`, :func:`rankset.diagnose`, the HTML
report, the CLI and the cluster kernel all read :class:`EvaluateOptions`; each field
declares its constraint once (``metadata["check"]``), which drives validation here and
the generated parameter test.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from rankset._typing import (
    DatasetChecks,
    DuplicatePolicy,
    Engine,
    IntoLabels,
    IntoRun,
    MissingPolicy,
    OrderPolicy,
    PassEngine,
    ScorePrecision,
    choices_of,
)
from rankset._validation import (
    MAX_BUCKETS,
    MAX_INT,
    check_bool,
    check_choice,
    check_float,
    check_int,
    warn_user,
)
from rankset.errors import ParameterError, RanksetWarning

if TYPE_CHECKING:
    import polars as pl

    from rankset.measures.scales import GradeScale

__all__ = [
    "DEFAULT_K",
    "DEFAULT_METRICS",
    "ENGINES",
    "EvaluateOptions",
    "resolve_engine",
]

#: Cutoff used by ``@k`` metrics when neither a cutoffs table nor ``k=`` gives one.
DEFAULT_K = 5
#: Metrics computed when none are named.
DEFAULT_METRICS = ("ndcg@10", "ap", "rr", "recall@100", "precision@10")
#: Engines the pass over the runs can run on (``engine=``).
ENGINES: tuple[str, ...] = choices_of(Engine)


def _check(kind: str, *args: Any) -> dict[str, Any]:
    """Field metadata: the constraint :meth:`EvaluateOptions.__post_init__` enforces."""
    return {"check": (kind, *args)}


@dataclass(frozen=True)
class EvaluateOptions:
    """Every option of an evaluation besides runs, labels, metrics and the summary's CI.

    The fields, their defaults and their meaning are :func:`rankset.evaluate`'s keyword
    arguments of the same names. The object is validated when built and changed by
    returning a copy (:meth:`replace`).

    Examples
    --------
    >>> options = EvaluateOptions(k=10, missing="zero")
    >>> options.replace(relevance_level=2).relevance_level
    2
    >>> EvaluateOptions(k=0)
    Traceback (most recent call last):
    ...
    rankset.errors.ParameterError: The 'k' parameter must be an int >= 1. Got 0 instead.
    """

    k: int | None = field(default=None, metadata=_check("int", 1, "optional"))
    relevance_level: float | None = field(default=None, metadata=_check("float", "optional"))
    missing: MissingPolicy = field(default="skip", metadata=_check("choice", MissingPolicy))
    cutoffs: Mapping[str, int] | pl.DataFrame | pl.LazyFrame | None = None
    order: OrderPolicy = field(default="auto", metadata=_check("choice", OrderPolicy))
    duplicates: DuplicatePolicy = field(default="error", metadata=_check("choice", DuplicatePolicy))
    names: Sequence[str] | None = None
    default_k: int = field(default=DEFAULT_K, metadata=_check("int", 1))
    scale: str | Mapping[float, int] | GradeScale = "auto"
    pool: IntoRun | Mapping[str, IntoRun] | None = None
    pool_depth: int | None = field(default=None, metadata=_check("int", 1, "optional"))
    max_depth: int | None = field(default=None, metadata=_check("int", 1, "optional"))
    judged_only: bool = field(default=False, metadata=_check("bool"))
    ignore_identical_ids: bool = field(default=False, metadata=_check("bool"))
    answers: IntoLabels | Mapping[str, Sequence[str]] | None = None
    costs: Any = None
    nuggets: Any = None
    score_precision: ScorePrecision = field(
        default="float64", metadata=_check("choice", ScorePrecision)
    )
    dataset_checks: DatasetChecks = field(default="error", metadata=_check("choice", DatasetChecks))
    engine: Engine = field(default="auto", metadata=_check("choice", Engine))
    buckets: int | None = field(default=None, metadata=_check("int", 1, "optional", MAX_BUCKETS))
    client: Any = None

    def __post_init__(self) -> None:
        for spec in dataclasses.fields(self):
            if "check" in spec.metadata:
                _enforce(spec.name, getattr(self, spec.name), spec.metadata["check"])

    def replace(self, **changes: Any) -> EvaluateOptions:
        """Return a copy with ``changes`` applied (and validated)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """Return the option names, in declaration order."""
        return tuple(spec.name for spec in dataclasses.fields(cls))

    @classmethod
    def from_kwargs(
        cls, options: Mapping[str, Any], caller: str, *, excluded: Sequence[str] = ()
    ) -> EvaluateOptions:
        """Build the options a function received as ``**options``; reject unknown names.

        Examples
        --------
        >>> EvaluateOptions.from_kwargs({"k": 3}, "curves").k
        3
        >>> EvaluateOptions.from_kwargs({"kk": 3}, "curves")
        Traceback (most recent call last):
        ...
        rankset.errors.ParameterError: curves() got unexpected option(s) 'kk'.
        """
        unknown = sorted(set(options) - (set(cls.option_names()) - set(excluded)))
        if unknown:
            msg = f"{caller}() got unexpected option(s) {', '.join(map(repr, unknown))}."
            raise ParameterError(msg)
        return cls(**options)

    def as_kwargs(self, *, excluded: Sequence[str] = ()) -> dict[str, Any]:
        """Return the options as keyword arguments (of :func:`rankset.evaluate`)."""
        return {name: getattr(self, name) for name in self.option_names() if name not in excluded}


def _enforce(name: str, value: object, check: tuple[Any, ...]) -> None:
    kind, *args = check
    if kind == "int":
        if not (value is None and "optional" in args):
            maximum = next((a for a in args[1:] if isinstance(a, int)), MAX_INT)
            check_int(name, value, args[0], maximum)
    elif kind == "float":
        if not (value is None and "optional" in args):
            check_float(name, value)
    elif kind == "choice":
        check_choice(name, value, choices_of(args[0]))
    elif kind == "bool":
        check_bool(name, value)


def resolve_engine(engine: Engine) -> PassEngine | Literal["dask"]:
    """Return the engine the pass over the runs uses for ``engine=``.

    ``"auto"`` is the streaming engine. ``"gpu"`` runs on NVIDIA GPUs through cudf-polars
    when it is installed (operations it lacks fall back to the CPU, as Polars does);
    without it, a :class:`~rankset.RanksetWarning` says so and the streaming engine runs.
    ``"dask"`` stays: the pass then runs on the workers of a Dask cluster.

    Examples
    --------
    >>> resolve_engine("auto")
    'streaming'
    """
    check_choice("engine", engine, ENGINES)
    if engine == "gpu" and importlib.util.find_spec("cudf_polars") is None:
        warn_user(
            "engine='gpu' needs cudf-polars (pip install 'polars[gpu]'), which is not "
            "installed; running on the CPU with the streaming engine instead.",
            RanksetWarning,
        )
        return "streaming"
    if engine == "auto":
        return "streaming"
    return engine
