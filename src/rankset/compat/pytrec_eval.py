"""pytrec_eval's Python face over rankset: ``RelevanceEvaluator`` and its helpers.

Code written against pytrec_eval switches with one import::

    from rankset.compat import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P"})
    per_query = evaluator.evaluate(run)  # {query_id: {"map": ..., "ndcg_cut_10": ...}}

The constructor, the measure names (``map``, ``P.5``, ``P_5``, ``ndcg_cut.5,10``, the
nicknames ``official``, ``set`` and ``all_trec``), the returned structure and the values
are pytrec_eval's, which computes as trec_eval 9.0.8 does (scores compared as 32-bit
floats, ``iprec_at_recall`` at ``trunc(r R + 0.9)`` relevant documents); a query is
scored when it has labels and a ranking (an empty ranking scores as one), ``runid`` and
``relstring`` are 0.0, ``num_q`` 1.0, and ``gm_map``/``gm_bpref`` are the logarithms
:func:`compute_aggregated_measure` expects.

Unlike the original, the evaluator holds no trec_eval state between calls: each
``evaluate`` is a fresh rankset evaluation, so evaluators with different measures or
levels never affect each other, and a malformed measure raises a ``ValueError`` where
pytrec_eval aborts the interpreter. The preference and ``qrels_jg`` measures are not
available (``ValueError``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

import polars as pl

from rankset.compat.trec_eval import prepare_run, query_values
from rankset.compat.trec_eval._options import (
    GROUPS,
    MEASURE_TABLE,
    ONLY_IN_10,
    Options,
    TrecEvalError,
    plan_columns,
)
from rankset.io import scan_labels, scan_run

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "supported_measures",
    "supported_nicknames",
]

#: The measures of trec_eval 9.0.8's table this face computes (pytrec_eval's names).
supported_measures: frozenset[str] = GROUPS["all_trec"] - ONLY_IN_10
#: pytrec_eval's nicknames: each names a set of measures (trec_eval 9.0.8's groups of the
#: qrels format: the preference and judgment-group formats are not pytrec_eval's).
supported_nicknames: dict[str, frozenset[str]] = {
    name: GROUPS[name] - ONLY_IN_10 for name in ("official", "all_trec", "set")
}
_CUT_MEASURES = frozenset(m.name for m in MEASURE_TABLE if m.kind.startswith("cut"))
_PARAMETERS = re.compile(r"[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*")


def _combine(measures: Iterable[str]) -> dict[str, str]:
    """Return ``{measure: parameter text}``, nicknames expanded, cutoffs merged.

    Accepts ``meas``, ``meas.p1,p2`` and ``meas_p1,p2`` as pytrec_eval does; the cutoffs
    of one measure asked several times are merged. Other parameters (``utility``'s four
    coefficients) are kept as written, where pytrec_eval sorts and deduplicates them too.
    """
    if isinstance(measures, str):
        measures = [measures]
    combined: dict[str, set[str]] = {}
    single: dict[str, str] = {}
    for text in measures:
        if text in supported_nicknames:
            for name in supported_nicknames[text]:
                combined.setdefault(name, set())
            continue
        if text in supported_measures:
            combined.setdefault(text, set())
            continue
        name, params = _split(text)
        if name in _CUT_MEASURES:
            combined.setdefault(name, set()).update(params.split(","))
        else:
            single[name] = params  # utility's coefficients, set_F's beta: as written
    merged = {
        name: ",".join(sorted(params, key=float)) if params else ""
        for name, params in combined.items()
    }
    return merged | single


def _split(text: str) -> tuple[str, str]:
    # the longest measure name that starts the text, then '.' or '_' and numbers
    for name in sorted(supported_measures, key=len, reverse=True):
        if text.startswith(name) and len(text) > len(name) and text[len(name)] in "._":
            params = text[len(name) + 1 :]
            if _PARAMETERS.fullmatch(params):
                return name, params
    msg = f"unsupported measure {text}"
    raise ValueError(msg)


class RelevanceEvaluator:
    """Evaluate runs against fixed labels, as ``pytrec_eval.RelevanceEvaluator`` does.

    Parameters
    ----------
    query_relevance
        ``{query_id: {doc_id: relevance}}``; queries without labels are ignored.
    measures
        Measure names and nicknames (``"map"``, ``"P.5,10"``, ``"ndcg_cut_10"``,
        ``"official"``).
    relevance_level
        Grade at or above which a document is relevant (trec_eval's ``-l``).
    judged_docs_only_flag
        Score only the documents graded 0 or more (trec_eval's ``-J``).

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> evaluator = RelevanceEvaluator(qrels, {"map", "P.1"})
    >>> evaluator.evaluate({"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d3": 1.0}})
    {'q1': {'map': 0.5, 'P_1': 0.0}, 'q2': {'map': 1.0, 'P_1': 1.0}}
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        self._labels = scan_labels(query_relevance).collect()
        self._options = Options(
            qrels="<dict>",
            run="<dict>",
            level=int(relevance_level),
            judged_only=bool(judged_docs_only_flag),
            measures=_combine(measures),
            version="9.0.8",
        )
        try:
            self._planned, _ = plan_columns(self._options)
        except TrecEvalError as error:
            raise ValueError(str(error).removeprefix("trec_eval: ")) from None

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """Return ``{query_id: {measure: value}}`` for the labelled queries of ``scores``.

        Keys are trec_eval's printed names (``P_5``, ``ndcg_cut_10``,
        ``iprec_at_recall_0.10``), in its table order; an empty ``scores`` gives ``{}``.
        """
        if not scores:
            return {}
        labelled = set(self._labels["query_id"].unique().to_list())
        scored = sorted(str(query) for query in scores if str(query) in labelled)
        if not scored:
            return {}
        run = self._run(scores)
        cut = prepare_run(run, self._labels, self._options)
        values = query_values(self._labels, cut, self._planned, self._options, scored, set())
        found = {(q, m): v for q, m, v in values.iter_rows()}
        result: dict[str, dict[str, float]] = {}
        for query in scored:
            row: dict[str, float] = {}
            for measure, columns in self._planned:
                for column in columns:
                    # pytrec_eval names a value by its measure, with the cutoff if any
                    key = column.printed if measure.kind.startswith("cut") else measure.name
                    row[key] = (
                        _NO_VALUE.get(measure.kind, 0.0)
                        if column.metric is None
                        else found.get((query, column.metric), 0.0)
                    )
            result[query] = row
        return result

    @staticmethod
    def _run(scores: Mapping[str, Mapping[str, float]]) -> pl.DataFrame:
        run = scan_run(scores).collect()
        # pytrec_eval holds scores as trec_eval 9.0.8 does: as 32-bit floats
        return run.with_columns(pl.col("score").cast(pl.Float32).cast(pl.Float64))


#: What pytrec_eval returns per query for the measures that print no number.
_NO_VALUE = {"runid": 0.0, "relstring": 0.0, "num_q": 1.0}


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """Aggregate per-query values as pytrec_eval does: sums, geometric or plain means.

    ``num_*`` measures are summed, ``gm_*`` ones (logarithms per query) averaged and
    exponentiated, the rest averaged; sums are exact (:func:`math.fsum`), where
    pytrec_eval's NumPy sums may differ in the last bit.

    Examples
    --------
    >>> compute_aggregated_measure("num_ret", [3, 4]), compute_aggregated_measure("map", [0.5, 1])
    (7.0, 0.75)
    """
    if measure.startswith("num_"):
        return float(math.fsum(values))
    if measure.startswith("gm_"):
        return math.exp(math.fsum(values) / len(values))
    return math.fsum(values) / len(values)
