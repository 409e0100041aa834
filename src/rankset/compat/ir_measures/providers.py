"""ir_measures' providers and evaluators, all computed by rankset.

ir_measures sends each measure to a tool (pytrec_eval, cwl_eval, gdeval, pyndeval...);
the face computes every measure with rankset. ``DefaultPipeline`` takes every measure
the face computes; the providers of ir_measures' registry keep their names and take the
measures the original tool takes (so ``pytrec_eval.calc_aggregate([ERR@10], ...)`` is
refused as in ir_measures), computed as rankset computes them for the face.

An :class:`Evaluator` reads the qrels once and evaluates any number of runs
(``ir_measures.evaluator(measures, qrels).calc_aggregate(run)``).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rankset.compat.ir_measures._compute import COMPUTED, DEFAULT, Prepared, as_measures
from rankset.compat.ir_measures._inputs import read_run
from rankset.compat.ir_measures._runtime import (
    RuntimeMeasure,
    define,
    define_byquery,
    runtime_qrels,
    runtime_values,
)
from rankset.compat.ir_measures.measures import Measure, use_pipeline
from rankset.compat.ir_measures.util import CalcResults, Metric

__all__ = [
    "AccuracyProvider",
    "CompatProvider",
    "CwlEvalProvider",
    "DefaultPipeline",
    "Evaluator",
    "FallbackProvider",
    "GdevalProvider",
    "JudgedProvider",
    "MsMarcoProvider",
    "Provider",
    "PyNdEvalProvider",
    "PytrecEvalProvider",
    "RanxProvider",
    "RuntimeProvider",
    "TrectoolsProvider",
    "define",
    "define_byquery",
    "register",
    "registry",
]


class _Scores:
    """What every evaluator does with its ``iter_calc``: aggregate the values."""

    measures: list[Measure]

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield every labelled query's value of every measure for ``run``."""
        raise NotImplementedError

    def calc_aggregate(self, run: Any) -> dict[Measure, float]:
        """Return each measure aggregated over the labelled queries for ``run``."""
        return self.calc(run).aggregated  # type: ignore[return-value]

    def calc(self, run: Any) -> CalcResults:
        """Return the aggregates and the per-query values for ``run``."""
        aggregators = {m: m.aggregator() for m in self.measures}
        metrics = list(self.iter_calc(run))
        for metric in metrics:  # one by one, in query order, as ir_measures' aggregators
            aggregators[metric.measure].add(metric.value)
        return CalcResults({m: agg.result() for m, agg in aggregators.items()}, metrics)


class Evaluator(_Scores):
    """Measures and qrels prepared once, to score many runs (ir_measures' ``Evaluator``).

    Examples
    --------
    >>> from rankset.compat.ir_measures.measures import AP, P
    >>> evaluator = DefaultPipeline.evaluator([AP, P @ 1], {"q1": {"d1": 1, "d2": 0}})
    >>> evaluator.calc_aggregate({"q1": {"d1": 1.0, "d2": 2.0}})
    {AP: 0.5, P@1: 0.0}
    >>> evaluator.calc_aggregate({"q1": {"d1": 2.0, "d2": 1.0}})
    {AP: 1.0, P@1: 1.0}
    """

    def __init__(self, measures: Iterable[Measure | str], qrels: Any, tool: str = DEFAULT) -> None:
        self._prepared = Prepared(list(measures), qrels, tool)
        self.measures = self._prepared.measures
        self.qrel_qids = set(self._prepared.queries["query_id"].to_list())

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield every labelled query's value of every measure for ``run``."""
        for query_id, measure, value in self._prepared.values(read_run(run)):
            yield Metric(query_id, measure, value)


class _RuntimeEvaluator(_Scores):
    """Measures of :func:`define`: their functions' values, 0 for a labelled query left out."""

    def __init__(self, measures: list[RuntimeMeasure], qrels: Any) -> None:
        self.measures: list[Measure] = list(measures)
        self._runtime = measures
        self.qrels = runtime_qrels(qrels)
        self.qrel_qids = set(self.qrels["query_id"].unique())

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield the functions' values, then 0 for each labelled query they left out."""
        expected = {(m, q) for m in self.measures for q in self.qrel_qids}
        for metric in runtime_values(self._runtime, self.qrels, run):
            expected.discard((metric.measure, metric.query_id))
            yield metric
        for measure, query_id in sorted(expected, key=lambda x: (str(x[0]), x[1])):
            yield Metric(query_id, measure, measure.DEFAULT)


class _Chained(_Scores):
    """Several evaluators of one run, their values one after the other."""

    def __init__(self, parts: list[_Scores]) -> None:
        self.parts = parts
        self.measures = [m for part in parts for m in part.measures]

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield each part's values, run by run."""
        if len(self.parts) > 1:  # a one-pass iterator of a run, read by every part
            run = list(run) if not hasattr(run, "items") and not hasattr(run, "columns") else run
        for part in self.parts:
            yield from part.iter_calc(run)


class Provider:
    """A named source of measures: computes the measures it supports, with rankset.

    ``supports``, ``evaluator``, ``iter_calc``, ``calc_aggregate``, ``calc`` as in
    ir_measures; ``is_available`` is always true (nothing to install). The classes below
    are ir_measures' providers (``PytrecEvalProvider()``...), each taking its tool's
    measures; ``Provider(name, measures)`` makes one taking the measures named.
    """

    NAME = DEFAULT
    #: The names of the measures taken (None: every measure the face computes).
    MEASURES: tuple[str, ...] | None = None

    def __init__(self, name: str | None = None, supported: Iterable[str] | None = None) -> None:
        if name is not None:
            self.NAME = name
        names = self.MEASURES if supported is None else supported
        self._supported = frozenset(COMPUTED if names is None else names) & set(COMPUTED)

    def supports(self, measure: Measure) -> bool:
        """Whether this provider computes ``measure``."""
        return measure.NAME in self._supported

    def is_available(self) -> bool:
        """Whether the provider can compute: always (rankset computes in process)."""
        return True

    def initialize(self) -> None:
        """Nothing to start: rankset computes every measure in process."""

    def install_instructions(self) -> str | None:
        """Return what to install for this provider: nothing."""
        return None

    def _check(self, measures: Iterable[Measure | str]) -> list[Measure]:
        parsed = as_measures(list(measures), self.NAME)
        refused = {m for m in parsed if m.NAME not in self._supported}
        if refused:
            msg = f"Unsupported measures {refused}."
            raise ValueError(msg)
        return parsed

    def evaluator(self, measures: Iterable[Measure | str], qrels: Any) -> _Scores:
        """Return an :class:`Evaluator` of ``measures`` over ``qrels``, to reuse over runs."""
        return Evaluator(self._check(measures), qrels, self.NAME)

    @contextlib.contextmanager
    def calc_ctxt(
        self, measures: Iterable[Measure | str], qrels: Any
    ) -> Iterator[Callable[[Any], Iterator[Metric]]]:
        """Yield an evaluator's ``iter_calc`` (deprecated in ir_measures 0.2.0: ``evaluator``)."""
        warnings.warn(
            "calc_ctxt deprecated in 0.2.0. Please use .evaluator(measures, qrels) instead.",
            DeprecationWarning,
            stacklevel=3,
        )
        yield self.evaluator(measures, qrels).iter_calc

    def iter_calc(
        self, measures: Iterable[Measure | str], qrels: Any, run: Any
    ) -> Iterator[Metric]:
        """Yield every labelled query's value of every measure."""
        return self.evaluator(measures, qrels).iter_calc(run)

    def calc_aggregate(
        self, measures: Iterable[Measure | str], qrels: Any, run: Any
    ) -> dict[Measure, float]:
        """Return each measure aggregated over the labelled queries."""
        return self.evaluator(measures, qrels).calc_aggregate(run)

    def calc(self, measures: Iterable[Measure | str], qrels: Any, run: Any) -> CalcResults:
        """Return the aggregates and the per-query values."""
        return self.evaluator(measures, qrels).calc(run)

    def run_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """Return the run columns the measures read."""
        return ["query_id", "doc_id", "score"]

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """Return the qrels columns the measures read (intent-aware ones: ``iteration`` too)."""
        needed = ["query_id", "doc_id", "relevance"]
        if any(m.NAME in COMPUTED and m.NAME in _IA for m in measures):
            needed.append("iteration")
        return needed

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.NAME!r})"


_IA = frozenset(
    {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"}
)


class RuntimeProvider(Provider):
    """Measures defined at run time (:func:`define`, :func:`define_byquery`).

    Examples
    --------
    >>> def size(qrels, run):
    ...     return float(len(run))
    >>> Size = define_byquery(size, run_inputs=["query_id"])
    >>> RuntimeProvider().run_inputs([Size]), RuntimeProvider().supports(Size)
    (['query_id'], True)
    """

    NAME = "runtime"
    MEASURES = ()

    def supports(self, measure: Measure) -> bool:
        """Whether ``measure`` was made by :func:`define` or :func:`define_byquery`."""
        return isinstance(measure, RuntimeMeasure)

    def evaluator(self, measures: Iterable[Measure | str], qrels: Any) -> _Scores:
        """Return an evaluator of the defined ``measures`` over ``qrels``."""
        measures = list(measures)
        runtime = [m for m in measures if isinstance(m, RuntimeMeasure)]
        if len(runtime) < len(measures):
            refused = {m for m in measures if not isinstance(m, RuntimeMeasure)}
            msg = f"Unsupported measures {refused}."
            raise ValueError(msg)
        return _RuntimeEvaluator(list(dict.fromkeys(runtime)), qrels)  # equal ones once

    def run_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """Return the run columns the defined measures read."""
        return sorted({c for m in measures if isinstance(m, RuntimeMeasure) for c in m.RUN_INPUTS})

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """Return the qrels columns the defined measures read."""
        return sorted({c for m in measures if isinstance(m, RuntimeMeasure) for c in m.QREL_INPUTS})


class GdevalProvider(Provider):
    """gdeval.pl's ``nDCG(dcg='exp-log2')@k`` and ``ERR@k``, with 5 decimals as it prints them.

    As in ir_measures, it computes every nDCG it is given as gdeval's, and says it
    supports only those gdeval computes.

    Examples
    --------
    >>> from rankset.compat.ir_measures.measures import ERR, nDCG
    >>> gdeval = GdevalProvider()
    >>> gdeval.supports(nDCG(dcg="exp-log2") @ 5), gdeval.supports(nDCG @ 5)
    (True, False)
    >>> qrels, run = {"1": {"a": 1, "b": 2}}, {"1": {"a": 2.0, "b": 1.0}}
    >>> gdeval.calc_aggregate([nDCG @ 5, ERR @ 5], qrels, run)
    {nDCG@5: 0.79671, ERR@5: 0.15039}
    """

    NAME = "gdeval"
    MEASURES = ("ERR", "nDCG")

    def supports(self, measure: Measure) -> bool:
        """Whether gdeval computes ``measure``: ERR@k, exp-log2 nDCG@k (no gains, all docs)."""
        if measure.NAME not in self.MEASURES:
            return False
        measure.validate_params()
        if measure.param("cutoff") is None:
            return False
        if measure.NAME == "nDCG":
            return (
                measure.param("dcg") == "exp-log2"
                and measure.param("gains") is None
                and not measure.param("judged_only", False)
            )
        return measure.NAME == "ERR"


class FallbackProvider(Provider):
    """The measures of several providers in one (ir_measures' ``DefaultPipeline`` is one).

    Each measure is computed as ir_measures' first provider taking it computes it: the
    face routes ``ERR@k`` and ``nDCG(dcg='exp-log2')@k`` to gdeval's printed values, and
    the measures of :func:`define` to their functions.
    """

    def __init__(self, providers: Iterable[Provider]) -> None:
        self.providers = list(providers)
        taken = set().union(*(p._supported for p in self.providers))
        self._runtime = next((p for p in self.providers if isinstance(p, RuntimeProvider)), None)
        super().__init__(DEFAULT, taken)

    def supports(self, measure: Measure) -> bool:
        """Whether one of the providers computes ``measure``."""
        if self._runtime is not None and self._runtime.supports(measure):
            return True
        return super().supports(measure)

    def evaluator(self, measures: Iterable[Measure | str], qrels: Any) -> _Scores:
        """Return an evaluator of ``measures`` over ``qrels`` (defined ones by their functions)."""
        measures = list(measures)
        runtime = [m for m in measures if isinstance(m, RuntimeMeasure)]
        if not runtime or self._runtime is None:
            return super().evaluator(measures, qrels)
        others = [m for m in measures if not isinstance(m, RuntimeMeasure)]
        if not others:
            return self._runtime.evaluator(runtime, qrels)
        if not hasattr(qrels, "items") and not hasattr(qrels, "columns"):
            qrels = list(qrels)  # a one-pass iterator, read twice
        return _Chained([super().evaluator(others, qrels), self._runtime.evaluator(runtime, qrels)])

    def run_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """Return the run columns the measures read."""
        return self._inputs(list(measures), "run_inputs")

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """Return the qrels columns the measures read."""
        return self._inputs(list(measures), "qrel_inputs")

    def _inputs(self, measures: list[Measure], which: str) -> list[str]:
        others = [m for m in measures if not isinstance(m, RuntimeMeasure)]
        needed: list[str] = getattr(super(), which)(others) if others or not measures else []
        if self._runtime is not None:
            extra = getattr(self._runtime, which)(measures)
            needed += [c for c in extra if c not in needed]
        return needed


#: ir_measures' providers by name, each taking the measures the original tool takes.
registry: dict[str, Provider] = {}


def register(provider: Provider) -> Provider:
    """Add ``provider`` to :data:`registry` under its name."""
    registry[provider.NAME] = provider
    return provider


def _provider(name: str, class_name: str, measures: str, doc: str) -> type[Provider]:
    """Make ir_measures' provider class ``class_name``, taking ``measures`` (space-separated)."""
    attributes = {"NAME": name, "MEASURES": tuple(measures.split()), "__doc__": doc}
    attributes["__module__"] = __name__
    return type(class_name, (Provider,), attributes)


_IA_NAMES = "AP_IA ERR_IA NRBP P_IA StRecall alpha_DCG alpha_nDCG nERR_IA nNRBP"
_CWL_NAMES = "AP BPM INSQ INST NERR10 NERR11 NERR8 NERR9 P RBP RR SDCG"
_PYTREC_EVAL = (
    "AP Bpref IPrec NumQ NumRel NumRet P R RR Rprec SetAP SetF SetP SetR Success infAP nDCG"
)
_RANX = "AP NumRet P R RR Rprec SetP SetR Success nDCG"
AccuracyProvider = _provider(
    "accuracy", "AccuracyProvider", "Accuracy", "Accuracy, as rankset's pair_accuracy."
)
CompatProvider = _provider("compat", "CompatProvider", "Compat", "Compat, as rankset's compat.")
CwlEvalProvider = _provider("cwl_eval", "CwlEvalProvider", _CWL_NAMES, "cwl_eval's measures.")
PyNdEvalProvider = _provider("pyndeval", "PyNdEvalProvider", _IA_NAMES, "ndeval's measures.")
PytrecEvalProvider = _provider(
    "pytrec_eval", "PytrecEvalProvider", _PYTREC_EVAL, "pytrec_eval's (trec_eval's) measures."
)
JudgedProvider = _provider("judged", "JudgedProvider", "Judged", "Judged, as ir_measures' own.")
TrectoolsProvider = _provider(
    "trectools", "TrectoolsProvider", "AP Bpref P RBP RR Rprec nDCG", "trectools' measures."
)
MsMarcoProvider = _provider("msmarco", "MsMarcoProvider", "RR", "MS MARCO's RR@k.")
RanxProvider = _provider("ranx", "RanxProvider", _RANX, "ranx's measures.")

for _class in (
    AccuracyProvider, CompatProvider, CwlEvalProvider, PyNdEvalProvider, PytrecEvalProvider,
    JudgedProvider, GdevalProvider, TrectoolsProvider, MsMarcoProvider, RanxProvider,
    RuntimeProvider,
):  # fmt: skip
    register(_class())
del _class

#: Every measure the face computes, each as ir_measures' default pipeline computes it.
DefaultPipeline = FallbackProvider(registry.values())
use_pipeline(DefaultPipeline)  # what AP.calc_aggregate(qrels, run) and the like call
