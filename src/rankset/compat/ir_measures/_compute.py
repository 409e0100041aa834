"""How the ir_measures face computes: each measure as a rankset metric, qrels read once.

:class:`Prepared` holds the measures (checked, equal ones merged) and the qrels read
once; :meth:`Prepared.values` evaluates one run, with :func:`rankset.evaluate` in one
pass per group of measures that share its options (``judged_only``, the scores' width,
the subtopic level). Several measures that are the same rankset metric are computed once
and each gets its value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import polars as pl

from rankset.compat.ir_measures._inputs import QrelsSource
from rankset.compat.ir_measures.measures import Measure, NumQ
from rankset.compat.ir_measures.util import parse_measure
from rankset.errors import ParameterError

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
}
#: Measures that need an @ value here (ir_measures: P, R, Success, IPrec; gdeval: ERR).
_NEEDS_AT = frozenset(
    {"P", "Success", "Judged", "IPrec", "ERR", "SDCG", "BPM", "NERR8", "NERR9"}
    | {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "P_IA", "StRecall"}
)
#: The C/W/L measures: cwl_eval scales grades between min_rel and max_rel (required).
_CWL = frozenset({"SDCG", "BPM", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ"})
#: The intent-aware measures: they read subtopic labels (the qrels' ``iteration``).
_INTENT_AWARE = frozenset(
    {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"}
)
#: cwl_eval reads 1,000 ranks at most, whatever the cutoff.
_CWL_DEPTH = 1000


def as_measures(measures: Iterable[Measure | str] | Measure | str) -> list[Measure]:
    """Return the measures asked, parsed and checked, equal ones once (first spelling)."""
    if isinstance(measures, Measure | str):
        measures = [measures]
    parsed = [parse_measure(m) for m in measures]
    for measure in parsed:
        _check(measure)
    return list(dict.fromkeys(parsed))


def _check(measure: Measure) -> None:
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
    dcg = measure.param("dcg", "log2")
    if dcg == "exp-log2" and (at is None or measure.param("gains") is not None):
        msg = f"{measure}: dcg='exp-log2' (gdeval) needs a cutoff and takes no gains."
        raise ParameterError(msg)


def rankset_name(measure: Measure) -> str:
    """Return the rankset metric that computes ``measure`` (less judged_only)."""
    name, at_kind = COMPUTED[str(measure.NAME)]
    rel = measure.param("rel")
    at = measure.param(measure.AT_PARAM)
    params: dict[str, Any] = {}
    if measure.NAME == "NumRet" and rel is not None:
        name = "num_rel_ret"  # ir_measures' NumRet(rel=r) counts relevant retrieved
    if measure.NAME == "SetP" and measure.param("relative", False):
        name = "set_relative_p"
    if measure.param("dcg") == "exp-log2":
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


def _in_doubles(measure: Measure) -> bool:
    """Whether ir_measures reads this measure's scores as doubles, not as floats.

    pytrec_eval (most measures) holds scores as 32-bit floats; ir_measures computes
    ``Judged``, ``RR@k`` and ``Compat`` in Python, ``RBP`` with cwl_eval and runs gdeval
    (``ERR``, exp-log2 nDCG) in perl, all with doubles.
    """
    return (
        measure.NAME in ("Judged", "Compat", "ERR", "RBP", *_CWL, *_INTENT_AWARE)
        or (measure.NAME == "RR" and measure.param("cutoff") is not None)
        or measure.param("dcg") == "exp-log2"
    )


def _judged_share(names: Mapping[str, list[Measure]]) -> pl.Expr:
    """ir_measures' Judged@k divides by the documents in the top k, not k: rescale."""
    judged = {n: ms[0].param("cutoff") for n, ms in names.items() if ms[0].NAME == "Judged"}
    if not judged:
        return pl.col("value")
    cutoff = pl.col("metric").replace_strict(judged, default=None, return_dtype=pl.Float64)
    shown = pl.min_horizontal(cutoff, pl.col("_retrieved"))
    rescaled = pl.when(shown > 0).then(pl.col("value") * cutoff / shown).otherwise(0.0)
    return pl.when(cutoff.is_not_null()).then(rescaled).otherwise(pl.col("value"))


class Prepared:
    """Measures and qrels ready to evaluate runs (what ``ir_measures.evaluator`` returns)."""

    def __init__(self, measures: Iterable[Measure | str] | Measure | str, qrels: Any) -> None:
        from rankset.measures import parse_metric

        self.measures = as_measures(measures)
        self.qrels = QrelsSource(qrels)
        self.queries = self.qrels.labels.select("query_id").unique().sort("query_id")
        self._subtopics: dict[float, pl.DataFrame] = {}
        # the groups of measures one evaluation computes, with their rankset names
        self.groups: dict[tuple[bool, bool, bool, float | None], dict[str, list[Measure]]] = {}
        for measure in self.measures:
            judged_only = bool(measure.param("judged_only", False))
            level = float(measure.param("rel", 1)) if measure.NAME in _INTENT_AWARE else None
            key = (judged_only, measure.NAME == "Judged", _in_doubles(measure), level)
            group = self.groups.setdefault(key, {})
            if measure.NAME != "NumQ":
                group.setdefault(parse_metric(rankset_name(measure)).name, []).append(measure)
            else:
                group.setdefault("", []).append(measure)

    def subtopics(self, level: float) -> pl.DataFrame:
        if level not in self._subtopics:
            self._subtopics[level] = self.qrels.subtopics(level)
        return self._subtopics[level]

    def values(self, run: pl.DataFrame) -> pl.DataFrame:
        """Return ``query_id, measure, value`` (the measure's ``repr``) of every labelled query."""
        from rankset.evaluation import evaluate

        labels = self.qrels.labels
        answered = run.select("query_id").unique().join(self.queries, on="query_id")
        parts = []
        for (judged_only, any_grade, doubles, level), group in self.groups.items():
            names = {name: ms for name, ms in group.items() if name}
            group_labels = labels
            if any_grade:  # ir_measures' Judged counts every labelled document, grade -1 too
                group_labels = labels.with_columns(grade=pl.col("grade").clip(lower_bound=0))
            if level is not None:  # a document judged for several subtopics: its best grade
                group_labels = labels.group_by("query_id", "doc_id").agg(pl.col("grade").max())
            else:  # judged twice (subtopic qrels): ir_measures' dict keeps the last judgement
                group_labels = group_labels.unique(["query_id", "doc_id"], keep="last")
            if names and answered.height:
                result = evaluate(
                    run.join(answered, on="query_id", how="semi"),
                    group_labels,
                    list(dict.fromkeys([*names, "num_ret"])),
                    judged_only=judged_only,  # trec_eval's -J, which pytrec_eval applies
                    score_precision="float64" if doubles else "float32",
                    duplicates="keep_best",
                    nuggets=None if level is None else self.subtopics(level),
                    confidence=None,
                )
                wide = result.per_query.pivot("metric", index="query_id", values="value")
                shown = {name: [repr(m) for m in ms] for name, ms in names.items()}
                parts.append(
                    wide.with_columns(_retrieved=pl.col("num_ret"))
                    .unpivot(list(names), index=["query_id", "_retrieved"], variable_name="metric")
                    .with_columns(
                        measure=pl.col("metric").replace_strict(
                            shown, return_dtype=pl.List(pl.String)
                        ),
                        value=_judged_share(names).fill_nan(None).fill_null(0.0),
                    )
                    .explode("measure")
                    .select("query_id", "measure", "value")
                )
            if "" in group:  # NumQ: 1 for each labelled query the run answers
                parts.append(answered.with_columns(measure=pl.lit(repr(NumQ)), value=pl.lit(1.0)))
        wanted = pl.DataFrame({"measure": [repr(m) for m in self.measures]})
        grid = self.queries.join(wanted, how="cross")
        schema = {"query_id": pl.String, "measure": pl.String, "value": pl.Float64}
        found = pl.concat(parts) if parts else pl.DataFrame(schema=schema)
        # ir_measures scores a labelled query the run lacks 0 on every measure.
        return grid.join(found, on=["query_id", "measure"], how="left").with_columns(
            pl.col("value").fill_null(0.0)
        )
