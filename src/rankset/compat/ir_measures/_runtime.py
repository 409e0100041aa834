"""Measures defined at run time from Python functions (ir_measures' ``define``).

:func:`define` and :func:`define_byquery` make a measure from a function of two pandas
frames (the qrels and the run); ir_measures' runtime provider computes it by calling the
function, and so does the face: the values are the function's own. The qrels and the run
reach it as ir_measures hands them over: the qrels sorted by query (and document), the run
by query and score (best first), cut to the measure's cutoff, in whatever columns they
have (a measure may read answers rather than documents: ``run_inputs``,
``qrel_inputs``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rankset.compat.ir_measures.measures import Measure, ParamInfo
from rankset.compat.ir_measures.util import Metric, QrelsConverter, RunConverter

__all__ = ["RuntimeMeasure", "define", "define_byquery", "runtime_values"]

_RUN_INPUTS = ("query_id", "doc_id", "score")
_QREL_INPUTS = ("query_id", "doc_id", "relevance")


class RuntimeMeasure(Measure):
    """A measure whose values a Python function computes (made by :func:`define`)."""

    RUN_INPUTS: tuple[str, ...] = _RUN_INPUTS
    QREL_INPUTS: tuple[str, ...] = _QREL_INPUTS
    SHORT_DESC: str | None = None
    PRETTY_NAME: str | None = None
    IMPL: Callable[[Any, Any], Iterable[tuple[str, float]]]

    def runtime_impl(self, qrels: Any, run: Any) -> Iterator[Metric]:
        """Yield ``Metric(query, self, value)`` from the function, on the run cut to the cutoff."""
        cutoff = self.params.get("cutoff")
        if cutoff is not None:  # the run is sorted already (runtime_values)
            run = run.groupby("query_id").head(cutoff).reset_index(drop=True)
        for query_id, value in type(self).IMPL(qrels, run):
            yield Metric(query_id, self, value)

    def __repr__(self) -> str:
        if self.NAME is None:  # unnamed: each one its own measure, as in ir_measures
            return object.__repr__(self)
        return super().__repr__()

    def __eq__(self, other: object) -> bool:
        if self.NAME is None:
            return self is other
        return super().__eq__(other)

    def __hash__(self) -> int:
        return object.__hash__(self) if self.NAME is None else super().__hash__()


def define(
    impl: Callable[[Any, Any], Iterable[tuple[str, float]]],
    name: str | None = None,
    support_cutoff: bool = True,
    *,
    run_inputs: list[str] | None = None,
    qrel_inputs: list[str] | None = None,
    pretty_name: str | None = None,
    short_desc: str | None = None,
) -> RuntimeMeasure:
    """Return a measure computed by ``impl(qrels, run)``, which yields ``(query_id, value)``.

    ``qrels`` and ``run`` are pandas frames (all queries at once); with ``support_cutoff``
    the measure takes ``@k``, which keeps each query's first k documents of the run.

    Examples
    --------
    >>> def retrieved(qrels, run):
    ...     return [(q, float(len(docs))) for q, docs in run.groupby("query_id")]
    >>> Retrieved = define(retrieved, "Retrieved")
    >>> from rankset.compat.ir_measures import calc_aggregate
    >>> calc_aggregate([Retrieved @ 1, Retrieved], {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 0.5}})
    {Retrieved@1: 1.0, Retrieved: 2.0}
    """
    params = {}
    if support_cutoff:
        params["cutoff"] = ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold")
    namespace = {
        "NAME": name,
        "__name__": name,
        "SUPPORTED_PARAMS": params,
        "RUN_INPUTS": tuple(_RUN_INPUTS if run_inputs is None else run_inputs),
        "QREL_INPUTS": tuple(_QREL_INPUTS if qrel_inputs is None else qrel_inputs),
        "SHORT_DESC": short_desc,
        "PRETTY_NAME": pretty_name,
        "IMPL": staticmethod(impl),
    }
    measure: RuntimeMeasure = type("_RuntimeMeasure", (RuntimeMeasure,), namespace)()
    return measure


def define_byquery(
    impl: Callable[[Any, Any], float],
    name: str | None = None,
    support_cutoff: bool = True,
    *,
    run_inputs: list[str] | None = None,
    qrel_inputs: list[str] | None = None,
    pretty_name: str | None = None,
    short_desc: str | None = None,
) -> RuntimeMeasure:
    """Return a measure computed by ``impl(qrels, run)`` once per query of the run.

    ``qrels`` and ``run`` are one query's pandas frames and ``impl`` returns its value;
    the name is the function's unless given.

    Examples
    --------
    >>> def first_score(qrels, run):
    ...     return float(run["score"].iloc[0])
    >>> FirstScore = define_byquery(first_score)
    >>> from rankset.compat.ir_measures import iter_calc
    >>> list(iter_calc([FirstScore], {"q": {"a": 1}}, {"q": {"a": 1.0, "b": 3.0}}))
    [Metric(query_id='q', measure=first_score, value=3.0)]
    """
    if name is None:
        name = getattr(impl, "__name__", None) or repr(impl)

    def by_query(qrels: Any, run: Any) -> Iterator[tuple[str, float]]:
        for query_id, frame in run.groupby("query_id"):
            yield query_id, impl(qrels[qrels["query_id"] == query_id], frame)

    return define(
        by_query,
        name,
        support_cutoff,
        run_inputs=run_inputs,
        qrel_inputs=qrel_inputs,
        pretty_name=pretty_name,
        short_desc=short_desc,
    )


def _frame(converter: QrelsConverter | RunConverter, what: str) -> Any:
    frame = converter.as_pd_dataframe()
    if "query_id" not in frame.columns:
        msg = (
            f"Required column query_id not found in {what}. Found columns was "
            f"{frame.columns.to_list()}"
        )
        raise ValueError(msg)
    return frame


def runtime_qrels(qrels: Any) -> Any:
    """Return the qrels as the functions read them: a pandas frame by query (and document)."""
    frame = _frame(QrelsConverter(qrels, strict=False), "qrels")
    return frame.sort_values(by=[c for c in ("query_id", "doc_id") if c in frame.columns])


def runtime_values(measures: list[RuntimeMeasure], qrels: Any, run: Any) -> Iterator[Metric]:
    """Yield each measure's values on ``run`` (qrels from :func:`runtime_qrels`)."""
    frame = _frame(RunConverter(run, strict=False), "run")
    by = [c for c in ("query_id", "score") if c in frame.columns]
    frame = frame.sort_values(by=by, ascending=[c == "query_id" for c in by])
    for measure in measures:
        yield from measure.runtime_impl(qrels, frame)
