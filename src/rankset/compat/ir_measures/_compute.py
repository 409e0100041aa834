"""How the ir_measures face computes: each measure as a rankset metric, qrels read once.

:class:`Prepared` holds the measures (checked, equal ones merged) and the qrels read
once; :meth:`Prepared.values` evaluates one run, with a prepared
:class:`rankset.evaluation.Evaluator` per group of measures that share its options
(``judged_only``, the scores' width, the subtopic level), built on the group's first run
and kept for the next ones. Several measures that are the same rankset metric are
computed once and each gets its value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import polars as pl

from rankset._typing import DuplicatePolicy
from rankset.compat.ir_measures._inputs import QrelsSource
from rankset.compat.ir_measures.measures import Measure
from rankset.compat.ir_measures.util import parse_measure
from rankset.errors import ParameterError, SchemaError
from rankset.evaluation import Evaluator

__all__ = ["COMPUTED", "Prepared", "as_measures"]

#: name -> (rankset measure, what "@" sets: "cutoff", "recall" or None when refused)
COMPUTED: dict[str, tuple[str, str | None]] = {
    "nDCG": ("ndcg", "cutoff"),
    "ERR": ("err", "cutoff"),
    "Compat": ("compat", None),
    "RBP": ("rbp_binary", None),
    "AP": ("ap", "cutoff"),
    "P": ("precision", "cutoff"),
    "R": ("recall", "cutoff"),
    "RR": ("rr", "cutoff"),
    "Success": ("hit", "cutoff"),
    "Rprec": ("rprec", None),
    "Bpref": ("bpref", None),
    "infAP": ("infap", None),
    "Judged": ("judged", "cutoff"),
    "IPrec": ("iprec_at_recall", "recall"),
    "SetP": ("set_p", None),
    "SetR": ("set_recall", None),
    "SetF": ("set_f", None),
    "SetAP": ("set_map", None),
    "NumQ": ("num_ret", None),
    "NumRet": ("num_ret", None),
    "NumRel": ("num_rel", None),
    # the C/W/L family, as cwl_eval computes it for ir_measures
    "SDCG": ("sdcg", "cutoff"),
    "BPM": ("bpm", "cutoff"),
    "NERR8": ("nerr8", "cutoff"),
    "NERR9": ("nerr9", "cutoff"),
    "NERR10": ("nerr10", None),
    "NERR11": ("nerr11", None),
    "INST": ("inst", None),
    "INSQ": ("insq", None),
    # the intent-aware family, as ndeval (pyndeval) computes it over subtopic labels
    "alpha_nDCG": ("alpha_ndcg", "cutoff"),
    "alpha_DCG": ("alpha_dcg", "cutoff"),
    "ERR_IA": ("err_ia", "cutoff"),
    "nERR_IA": ("nerr_ia", "cutoff"),
    "NRBP": ("nrbp", None),
    "nNRBP": ("nnrbp", None),
    "AP_IA": ("map_ia", None),
    "P_IA": ("p_ia", "cutoff"),
    "StRecall": ("subtopic_recall", "cutoff"),
    # ir_measures' own: reported only where defined (a relevant and a non-relevant document)
    "Accuracy": ("pair_accuracy", "cutoff"),
}
#: Measures that need an @ value here (ir_measures: P, R, Success, IPrec; gdeval: ERR).
_NEEDS_AT = frozenset(
    {"P", "Success", "IPrec", "ERR", "SDCG", "BPM", "NERR8", "NERR9"}
    | {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "P_IA", "StRecall"}
)
#: Measures whose evaluator reports a query only where the value is defined (no 0 default).
_REPORTED_WHERE_DEFINED = frozenset({"Accuracy"})
#: The C/W/L measures: cwl_eval scales grades between min_rel and max_rel (required).
_CWL = frozenset({"SDCG", "BPM", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ"})
#: The intent-aware measures: they read subtopic labels (the qrels' ``iteration``).
_INTENT_AWARE = frozenset(
    {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"}
)
#: cwl_eval reads 1,000 ranks at most, whatever the cutoff.
_CWL_DEPTH = 1000
#: A bare ``Judged`` reads the whole ranking: rankset's judged@k at this k, a power of two,
#: so that rescaling its value by k / retrieved is exact (see :func:`_shown`).
_WHOLE_RANKING = 2**30
#: The provider that takes every measure (ir_measures' ``DefaultPipeline``).
DEFAULT = "rankset"
#: What the measures of one evaluation share: judged_only, every grade judged (Judged),
#: scores as doubles, the subtopic level (intent-aware measures).
_Group = tuple[bool, bool, bool, float | None]


def as_measures(
    measures: Iterable[Measure | str] | Measure | str, tool: str = DEFAULT
) -> list[Measure]:
    """Return the measures asked, parsed and checked, equal ones once (first spelling)."""
    if isinstance(measures, Measure | str):
        measures = [measures]
    parsed = [parse_measure(m) for m in measures]
    for measure in parsed:
        _check(measure, tool)
    return list(dict.fromkeys(parsed))


def by_gdeval(measure: Measure, tool: str = DEFAULT) -> bool:
    """Whether ir_measures runs gdeval.pl for ``measure`` when asked through ``tool``.

    ir_measures' gdeval provider reads every nDCG it is given as gdeval's (gains
    ``2^grade - 1``), and the default pipeline sends it ``ERR@k`` and
    ``nDCG(dcg='exp-log2')@k``; ``nDCG(dcg='exp-log2')`` without a cutoff goes to ranx.
    gdeval.pl prints its values with 5 decimals, which ir_measures reads back.
    """
    if tool == "gdeval":
        return measure.NAME in ("nDCG", "ERR")
    if tool != DEFAULT:
        return False
    return measure.NAME == "ERR" or (
        measure.NAME == "nDCG"
        and measure.param("dcg") == "exp-log2"
        and measure.param("cutoff") is not None
        and not measure.param("judged_only", False)
    )


def printed(value: float) -> float:
    """Return ``value`` as gdeval.pl prints it (``%.5f``) and ir_measures reads it back.

    Examples
    --------
    >>> printed(0.6201040599710453), printed(0.10174560546875)
    (0.6201, 0.10175)
    """
    return float(f"{value:.5f}")


def _check(measure: Measure, tool: str = DEFAULT) -> None:
    name = str(measure.NAME)
    if name not in COMPUTED:
        msg = (
            f"{name} is not computed by rankset's ir_measures face (supported: "
            f"{', '.join(COMPUTED)}); rankset.evaluate computes rankset's own measures."
        )
        raise ParameterError(msg)
    at = measure.param(measure.AT_PARAM)
    if at is not None and COMPUTED[name][1] is None:
        msg = f"{name} takes no @ value here."
        raise ParameterError(msg)
    if name in _NEEDS_AT and at is None:
        msg = f"{name} needs an @ value ({name}@10)."
        raise ParameterError(msg)
    if name in _CWL and measure.param("max_rel") is None:
        msg = f"{measure}: max_rel is required ({name}(max_rel=3))."
        raise ParameterError(msg)
    if _exp_gains(measure, tool) and measure.param("gains") is not None:
        msg = f"{measure}: dcg='exp-log2' (gdeval, ranx) takes no gains."
        raise ParameterError(msg)
    if tool == "gdeval" and at is None:
        msg = f"{measure}: gdeval needs a cutoff ({name}@10)."
        raise ParameterError(msg)


def _exp_gains(measure: Measure, tool: str) -> bool:
    """Whether ``measure`` is an nDCG with gains ``2^grade - 1`` (gdeval's, ranx's)."""
    return measure.NAME == "nDCG" and (measure.param("dcg") == "exp-log2" or tool == "gdeval")


def rankset_name(measure: Measure, tool: str = DEFAULT) -> str:
    """Return the rankset metric that computes ``measure`` (less judged_only)."""
    name, at_kind = COMPUTED[str(measure.NAME)]
    rel = measure.param("rel")
    at = measure.param(measure.AT_PARAM)
    params: dict[str, Any] = {}
    if measure.NAME == "NumRet" and rel is not None:
        name = "num_rel_ret"  # ir_measures' NumRet(rel=r) counts relevant retrieved
    if measure.NAME == "SetP" and measure.param("relative", False):
        name = "set_relative_p"
    if _exp_gains(measure, tool):
        name = "ndcg_exp"  # gdeval's nDCG: gains 2^grade - 1
    gains = measure.param("gains")
    if gains:  # trec_eval's gain map, as pytrec_eval passes it on
        kept = sorted((g, v) for g, v in gains.items() if g != v)
        if kept:
            params["gains"] = ";".join(f"{grade}:{gain}" for grade, gain in kept)
    if measure.NAME == "RBP":
        params["p"] = measure.param("p", 0.8)
    if measure.NAME == "Compat":
        params["p"] = measure.param("p", 0.95)
        params["normalize"] = int(bool(measure.param("normalize", True)))
    if measure.NAME in _CWL:
        params = _cwl_params(measure)
    if measure.NAME in _INTENT_AWARE:  # the level is read into the subtopic labels
        params = {k: measure.param(k) for k in ("alpha", "beta") if measure.param(k) is not None}
        rel = None
    if measure.NAME == "SetF":
        params["x"] = measure.param("beta", 1.0)  # trec_eval's set_F.x, as ir_measures sends it
    if at_kind == "recall" and at is not None:
        params["recall"] = at
        params["rounding"] = "v9"  # pytrec_eval computes IPrec as trec_eval 9
    if rel is not None:
        params["rel"] = rel
    text = name
    if params:
        text += "(" + ", ".join(f"{key}={value}" for key, value in params.items()) + ")"
    if measure.NAME == "Judged" and at is None:
        at = _WHOLE_RANKING
    if at_kind == "cutoff" and at is not None:
        text += f"@{min(at, _CWL_DEPTH) if measure.NAME in _CWL else at}"
    return text


def _cwl_params(measure: Measure) -> dict[str, Any]:
    """Return the rankset parameters of a C/W/L measure, cwl_eval's defaults made explicit."""
    params: dict[str, Any] = {}
    if measure.NAME == "NERR10":
        params["p"] = measure.param("p", 0.9)
    elif "T" in measure.SUPPORTED_PARAMS:
        params["target"] = measure.param("T", 1.0)
    params["min_rel"] = measure.param("min_rel", 0)
    params["max_rel"] = measure.param("max_rel")
    return params


def _in_doubles(measure: Measure, tool: str) -> bool:
    """Whether ir_measures reads this measure's scores as doubles, not as floats.

    pytrec_eval (most measures) holds scores as 32-bit floats; ir_measures computes
    ``Judged``, ``RR@k``, ``Compat`` and ``Accuracy`` in Python, ``RBP`` with cwl_eval and
    runs gdeval (``ERR``, exp-log2 nDCG) in perl, all with doubles.
    """
    return (
        measure.NAME in ("Judged", "Compat", "ERR", "RBP", "Accuracy", *_CWL, *_INTENT_AWARE)
        or (measure.NAME == "RR" and measure.param("cutoff") is not None)
        or _exp_gains(measure, tool)
    )


def _undefined(value: float | None) -> bool:
    return value is None or math.isnan(value)


def _shown(value: float | None, measure: Measure, retrieved: float | None) -> float:
    """Return rankset's ``value`` of ``measure`` as ir_measures shows it (NA and NaN: 0).

    ir_measures' Judged@k divides by the documents in the top k, not by k: rescaled (a
    bare Judged: by the documents retrieved).
    """
    if _undefined(value):
        return 0.0
    assert value is not None
    if measure.NAME != "Judged":
        return value
    cutoff = float(measure.param("cutoff") or _WHOLE_RANKING)
    shown = cutoff if retrieved is None else min(cutoff, retrieved)
    return value * cutoff / shown if shown > 0 else 0.0


class Prepared:
    """Measures and qrels ready to evaluate runs (what ``ir_measures.evaluator`` returns)."""

    def __init__(
        self, measures: Iterable[Measure | str] | Measure | str, qrels: Any, tool: str = DEFAULT
    ) -> None:
        from rankset.measures import parse_metric

        self.measures = as_measures(measures, tool)
        self.printed = frozenset(m for m in self.measures if by_gdeval(m, tool))
        self.qrels = QrelsSource(qrels)
        self.queries = self.qrels.labels.select("query_id").unique().sort("query_id")
        self.query_ids: list[str] = self.queries["query_id"].to_list()
        self._subtopics: dict[float, pl.DataFrame] = {}
        self._evaluators: dict[tuple[_Group, DuplicatePolicy], Evaluator] = {}
        # the groups of measures one evaluation computes, with their rankset names
        self.groups: dict[_Group, dict[str, list[Measure]]] = {}
        for measure in self.measures:
            judged_only = bool(measure.param("judged_only", False))
            level = float(measure.param("rel", 1)) if measure.NAME in _INTENT_AWARE else None
            key = (judged_only, measure.NAME == "Judged", _in_doubles(measure, tool), level)
            group = self.groups.setdefault(key, {})
            if measure.NAME != "NumQ":
                name = parse_metric(rankset_name(measure, tool)).name
                group.setdefault(name, []).append(measure)
            else:
                group.setdefault("", []).append(measure)

    def subtopics(self, level: float) -> pl.DataFrame:
        if level not in self._subtopics:
            self._subtopics[level] = self.qrels.subtopics(level)
        return self._subtopics[level]

    def evaluator(self, key: _Group, duplicates: DuplicatePolicy = "keep_best") -> Evaluator:
        """Return the group's rankset evaluator: its labels read and metrics planned once.

        Built on the group's first run and kept, so each later run costs only its own
        pass (the values are :func:`rankset.evaluate`'s, bit for bit). ``duplicates``:
        the policy for a document a ranking repeats (ir_measures keeps the best-placed
        copy; ``"error"`` refuses the run, and costs less where there is none).
        """
        if (key, duplicates) not in self._evaluators:
            judged_only, any_grade, doubles, level = key
            names = [name for name in self.groups[key] if name]
            labels = self.qrels.labels
            if any_grade:  # ir_measures' Judged counts every labelled document, grade -1 too
                labels = labels.with_columns(grade=pl.col("grade").clip(lower_bound=0))
            if level is not None:  # a document judged for several subtopics: its best grade
                labels = self.qrels.labels.group_by("query_id", "doc_id").agg(pl.col("grade").max())
            else:  # judged twice (subtopic qrels): ir_measures' dict keeps the last judgement
                labels = labels.unique(["query_id", "doc_id"], keep="last")
            self._evaluators[key, duplicates] = Evaluator(
                labels,
                list(dict.fromkeys([*names, "num_ret"])),
                judged_only=judged_only,  # trec_eval's -J, which pytrec_eval applies
                score_precision="float64" if doubles else "float32",
                duplicates=duplicates,
                nuggets=None if level is None else self.subtopics(level),
            )
        return self._evaluators[key, duplicates]

    def evaluate(self, key: _Group, run: pl.DataFrame) -> dict[str, dict[str, float | None]]:
        """Return ``{query: {metric: value}}`` of ``run`` for the group ``key``.

        Copies of a document in a ranking are kept at their best place, as ir_measures'
        dict of a run keeps one.

        A run without copies (every dict run) is measured as one with refused copies
        would be: the same ranking, the same values, without the work of dropping them;
        one with copies is measured again, its best-placed copies kept.
        """
        try:
            return self.evaluator(key, "error").values(run)
        except SchemaError:  # copies of a document (or a refusal the next call repeats)
            return self.evaluator(key, "keep_best").values(run)

    def values(self, run: pl.DataFrame) -> list[tuple[str, Measure, float]]:
        """Return ``(query_id, measure, value)`` of every labelled query, in query order.

        The measures of each query in the order asked; a labelled query the run lacks
        scores 0 on every measure, as in ir_measures, and so does a value rankset leaves
        undefined (NA or NaN); ``Accuracy`` alone, as ir_measures' accuracy provider, is
        reported only where it is defined.
        """
        answering = run.filter(pl.col("query_id").is_in(self.queries["query_id"].implode()))
        answered = set(answering["query_id"].unique().to_list())
        found: dict[tuple[str, Measure], float] = {}
        for key, group in self.groups.items():
            names = {name: ms for name, ms in group.items() if name}
            if names and answered:
                for query, row in self.evaluate(key, answering).items():
                    for name, measures in names.items():
                        if measures[0].NAME in _REPORTED_WHERE_DEFINED and _undefined(row[name]):
                            continue
                        value = _shown(row[name], measures[0], row["num_ret"])
                        for measure in measures:
                            found[query, measure] = (
                                printed(value) if measure in self.printed else value
                            )
            if "" in group:  # NumQ: 1 for each labelled query the run answers
                for query in answered:
                    for measure in group[""]:
                        found[query, measure] = 1.0
        return [
            (query, measure, found.get((query, measure), 0.0))
            for query in self.query_ids
            for measure in self.measures
            if measure.NAME not in _REPORTED_WHERE_DEFINED or (query, measure) in found
        ]
