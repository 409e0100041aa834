"""pytrec_eval's face, implemented: :mod:`rankset.compat.pytrec_eval` shows these names."""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable, Mapping
from typing import Any

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
from rankset.compat.trec_eval._output import OTHER_FORMATS
from rankset.evaluation import Evaluator
from rankset.io import scan_labels, scan_run
from rankset.measures import parse_metric
from rankset.measures._shared import needs_grade_scale

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

_SUPPORTED = GROUPS["all_trec"] - ONLY_IN_10
#: The measures of trec_eval 9.0.8's table this face computes: pytrec_eval's set.
supported_measures: set[str] = set(_SUPPORTED)
#: pytrec_eval's nicknames, each the set of measures it names (trec_eval 9.0.8's groups).
#: ``all_prefs``, ``prefs`` and ``qrels_jg`` name measures of other label formats, which
#: neither pytrec_eval nor the face computes: asking them raises ``ValueError``.
supported_nicknames: dict[str, set[str]] = {
    name: set(GROUPS[name] - ONLY_IN_10)
    for name in ("official", "set", "all_trec", "all_prefs", "prefs", "qrels_jg")
}
_NICKNAMES = {name: frozenset(members) for name, members in supported_nicknames.items()}
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
    expanded: list[str] = []
    for text in measures:
        expanded += sorted(_NICKNAMES[text]) if text in _NICKNAMES else [text]
    for text in expanded:
        if text in _SUPPORTED:
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
    for name in sorted(_SUPPORTED, key=len, reverse=True):
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
        # as pytrec_eval, a query with an empty dict of labels is no labelled query
        kept = {str(q): docs for q, docs in query_relevance.items() if len(docs) > 0}
        self._labels = scan_labels(kept).collect() if kept else _NO_LABELS
        self._options = Options(
            qrels="<dict>",
            run="<dict>",
            level=int(relevance_level),
            judged_only=bool(judged_docs_only_flag),
            measures=_combine(measures),
            version="9.0.8",
        )
        try:
            # an empty set asks nothing (trec_eval would compute its official measures)
            self._planned = plan_columns(self._options)[0] if self._options.measures else []
        except TrecEvalError as error:
            raise ValueError(str(error).removeprefix("trec_eval: ")) from None
        self._labelled = frozenset(self._labels["query_id"].unique().to_list())
        self._names: dict[str, str] = {}
        self._evaluator = self._prepare()
        # (key, plan's metric, evaluator's name, value without a metric) per value, in
        # trec_eval's table order; pytrec_eval names a value by its measure, with the
        # cutoff if any
        self._keys = [
            (
                column.printed if measure.kind.startswith("cut") else measure.name,
                column.metric,
                None if column.metric is None else self._names.get(column.metric, column.metric),
                _NO_VALUE.get(measure.kind, 0.0),
            )
            for measure, columns in self._planned
            for column in columns
        ]

    def _prepare(self) -> Evaluator | None:
        """Read the labels and plan the measures once, as pytrec_eval's constructor does.

        Each :meth:`evaluate` then runs only the pass over the run (the values are
        :func:`rankset.evaluate`'s, bit for bit). None when nothing is to be computed, or
        when a metric reads a grade scale chosen from the labels of the queries a run
        answers: those calls take the per-call path.
        """
        metrics = sorted(
            {
                column.metric
                for _, columns in self._planned
                for column in columns
                if column.metric and not column.metric.startswith(OTHER_FORMATS)
            }
        )
        if not metrics or self._labels.height == 0 or any(map(needs_grade_scale, metrics)):
            return None
        # the names Evaluator.values gives, for the names the plan's columns hold
        self._names = {metric: parse_metric(metric).name for metric in metrics}
        return Evaluator(
            self._labels,
            metrics,
            relevance_level=self._options.level,
            score_precision="float32",
        )

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """Return ``{query_id: {measure: value}}`` for the labelled queries of ``scores``.

        Keys are trec_eval's printed names (``P_5``, ``ndcg_cut_10``,
        ``iprec_at_recall_0.10``), in its table order; an empty ``scores`` gives ``{}``.
        """
        if not scores:
            return {}
        scored = sorted(str(query) for query in scores if str(query) in self._labelled)
        if not scored:
            return {}
        if not self._planned:
            return {query: {} for query in scored}
        values = self._prepared_values(scores, scored)
        if values is None:  # the per-call path: trec_eval's steps for this run alone
            cut = prepare_run(self._run(scores), self._labels, self._options)
            frame = query_values(self._labels, cut, self._planned, self._options, scored, set())
            found = {(q, m): v for q, m, v in frame.iter_rows()}
            values = {
                query: {
                    name: found.get((query, metric), 0.0)
                    for _, metric, name, _ in self._keys
                    if metric is not None and name is not None
                }
                for query in scored
            }
        result: dict[str, dict[str, Any]] = {}  # a value rankset leaves NA is None
        for query in scored:
            row = values.get(query, {})
            result[query] = {
                key: fixed if name is None else row.get(name, 0.0)
                for key, _, name, fixed in self._keys
            }
        return result

    def _prepared_values(
        self, scores: Mapping[str, Mapping[str, float]], scored: list[str]
    ) -> dict[str, dict[str, float | None]] | None:
        """Return ``{query: {metric: value}}`` from the prepared evaluator, if it applies.

        None (the per-call path) without a prepared evaluator, when a scored query has
        no document left (an empty ranking, or -J removed them all: trec_eval scores such
        a query as an empty ranking, which :func:`query_values` stands in for), or when
        the run is refused (the per-call path raises as it always has).
        """
        if self._evaluator is None:
            return None
        run: Mapping[str, Mapping[str, float]] | pl.DataFrame = scores
        if self._options.judged_only:
            cut = prepare_run(self._run(scores), self._labels, self._options)
            present = frozenset(cut["query_id"].unique().to_list())
            run = cut.select("query_id", "doc_id", "score")
        else:
            present = frozenset(str(query) for query, docs in scores.items() if len(docs) > 0)
        if any(query not in present for query in scored):
            return None
        try:
            # the run read as pytrec_eval holds it: scores as 32-bit floats (the evaluator's
            # score_precision), labelled queries only scored
            return self._evaluator.values(run)
        except Exception:  # the per-call path raises what it always raised
            return None

    @staticmethod
    def _run(scores: Mapping[str, Mapping[str, float]]) -> pl.DataFrame:
        run = scan_run(scores).collect()
        # pytrec_eval holds scores as trec_eval 9.0.8 does: as 32-bit floats
        return run.with_columns(pl.col("score").cast(pl.Float32).cast(pl.Float64))


#: What pytrec_eval returns per query for the measures that print no number.
_NO_VALUE = {"runid": 0.0, "relstring": 0.0, "num_q": 1.0}
_NO_LABELS = pl.DataFrame(schema={"query_id": pl.String, "doc_id": pl.String, "grade": pl.Float64})


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """Read qrels lines ``query_id iteration doc_id relevance``, as pytrec_eval does.

    Returns a ``defaultdict`` ``{query_id: {doc_id: relevance}}``; a line without four
    fields raises ``ValueError`` and a document judged twice for a query
    ``AssertionError``, as in pytrec_eval.

    Examples
    --------
    >>> dict(parse_qrel(["q1 0 d1 1", "q1 0 d2 0", "q2 0 d1 2"]))
    {'q1': {'d1': 1, 'd2': 0}, 'q2': {'d1': 2}}
    """
    qrel: collections.defaultdict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        query_id, _, doc_id, relevance = line.strip().split()
        assert doc_id not in qrel[query_id]
        qrel[query_id][doc_id] = int(relevance)
    return qrel


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """Read run lines ``query_id Q0 doc_id rank score tag``, as pytrec_eval does.

    Returns a ``defaultdict`` ``{query_id: {doc_id: score}}``; the rank is ignored
    (trec_eval orders by score), a line without six fields raises ``ValueError`` and a
    document retrieved twice for a query ``AssertionError``, as in pytrec_eval.

    Examples
    --------
    >>> dict(parse_run(["q1 Q0 d1 1 2.5 bm25", "q1 Q0 d2 2 1.5 bm25"]))
    {'q1': {'d1': 2.5, 'd2': 1.5}}
    """
    run: collections.defaultdict[str, dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        query_id, _, doc_id, _, score, _ = line.strip().split()
        assert doc_id not in run[query_id]
        run[query_id][doc_id] = float(score)
    return run


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """Aggregate per-query values as pytrec_eval does: sums, geometric or plain means.

    ``num_*`` measures are summed, ``gm_*`` ones (logarithms per query) averaged and
    exponentiated, the rest averaged, with NumPy's sums as pytrec_eval takes them (the
    same bits; :mod:`rankset.compat.trec_eval` adds in query order, as trec_eval).

    Examples
    --------
    >>> compute_aggregated_measure("num_ret", [3, 4]), compute_aggregated_measure("map", [0.5, 1])
    (7.0, 0.75)
    """
    import numpy as np

    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))
