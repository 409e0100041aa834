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

from rankset.compat.ir_measures._compute import COMPUTED, Prepared, as_measures
from rankset.compat.ir_measures._inputs import read_run
from rankset.compat.ir_measures.measures import Measure, use_pipeline
from rankset.compat.ir_measures.util import CalcResults, Metric

__all__ = [
    "DefaultPipeline",
    "Evaluator",
    "Provider",
    "register",
    "registry",
]


class Evaluator:
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

    def __init__(self, measures: Iterable[Measure | str], qrels: Any) -> None:
        self._prepared = Prepared(list(measures), qrels)
        self.measures = self._prepared.measures
        self.qrel_qids = set(self._prepared.queries["query_id"].to_list())

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Yield every labelled query's value of every measure for ``run``."""
        for query_id, measure, value in self._prepared.values(read_run(run)):
            yield Metric(query_id, measure, value)

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


class Provider:
    """A named source of measures: computes the measures it supports, with rankset.

    ``supports``, ``evaluator``, ``iter_calc``, ``calc_aggregate``, ``calc`` as in
    ir_measures; ``is_available`` is always true (nothing to install).
    """

    NAME = "rankset"

    def __init__(self, name: str = "rankset", supported: Iterable[str] | None = None) -> None:
        self.NAME = name
        self._supported = frozenset(COMPUTED if supported is None else supported) & set(COMPUTED)

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
        parsed = as_measures(list(measures))
        refused = {m for m in parsed if not self.supports(m)}
        if refused:
            msg = f"Unsupported measures {refused}."
            raise ValueError(msg)
        return parsed

    def evaluator(self, measures: Iterable[Measure | str], qrels: Any) -> Evaluator:
        """Return an :class:`Evaluator` of ``measures`` over ``qrels``, to reuse over runs."""
        return Evaluator(self._check(measures), qrels)

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
        return f"Provider({self.NAME!r})"


_IA = frozenset(
    {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"}
)

#: Every measure the face computes.
DefaultPipeline = Provider()
use_pipeline(DefaultPipeline)  # what AP.calc_aggregate(qrels, run) and the like call

#: ir_measures' providers by name, each taking the measures the original tool takes.
registry: dict[str, Provider] = {}


def register(provider: Provider) -> Provider:
    """Add ``provider`` to :data:`registry` under its name."""
    registry[provider.NAME] = provider
    return provider


_PYTREC_EVAL = (
    "AP Bpref IPrec NumQ NumRel NumRet P R RR Rprec SetAP SetF SetP SetR Success infAP nDCG"
)
_TOOLS = {
    "accuracy": ["Accuracy"],
    "compat": ["Compat"],
    "cwl_eval": [
        "AP",
        "BPM",
        "INSQ",
        "INST",
        "NERR10",
        "NERR11",
        "NERR8",
        "NERR9",
        "P",
        "RBP",
        "RR",
        "SDCG",
    ],
    "pyndeval": sorted(_IA),
    "pytrec_eval": _PYTREC_EVAL.split(),
    "judged": ["Judged"],
    "gdeval": ["ERR", "nDCG"],
    "trectools": ["AP", "Bpref", "P", "RBP", "RR", "Rprec", "nDCG"],
    "msmarco": ["RR"],
    "ranx": ["AP", "NumRet", "P", "R", "RR", "Rprec", "SetP", "SetR", "Success", "nDCG"],
    "runtime": [],
}
for _name, _measures in _TOOLS.items():
    register(Provider(_name, _measures))
del _name, _measures
