"""ir_measures' Python face over rankset: measure objects, ``calc_aggregate``, ``iter_calc``.

Code written against ir_measures switches with one import::

    from rankset.compat import ir_measures
    from rankset.compat.ir_measures import AP, P, nDCG

    ir_measures.calc_aggregate([nDCG@10, P(rel=2)@5, AP], qrels, run)

Measures are written as ir_measures writes them (``nDCG@10``, ``P(rel=2)@5``,
``SetF(beta=2)``, ``IPrec@0.2``), built from the objects below or parsed from text
(:func:`parse_measure`), and computed by :func:`rankset.evaluate` in one pass per
group of measures. ir_measures' conventions are kept: every query of the qrels is scored
(a query the run lacks scores 0 on every measure, and counts 0 in ``NumQ``), queries
only in the run are ignored, the counting measures (``NumQ``, ``NumRet``, ``NumRel``,
``NumRelRet``) aggregate as sums and the others as means, and ``NumRet(rel=r)`` is the
number of relevant documents retrieved (``NumRelRet`` is ``NumRet(rel=1)``). Scores are
compared as 32-bit floats, as pytrec_eval (ir_measures' provider for these measures)
stores them, and ``IPrec`` rounds recall x R as pytrec_eval's trec_eval 9 does.

``judged_only=True`` drops the documents without a label from the run before the
measure sees it (trec_eval's ``-J``); ``nDCG(gains={grade: gain})`` scores each grade
with its gain, grades missing from the map with their own value.

Ties are broken as trec_eval breaks them (doc id descending) for every measure, where
ir_measures' own ``Judged`` and ``RR@k`` break them by doc id ascending; like
ir_measures, ``Judged`` counts every labelled document, grade -1 included.

``ERR@k`` and ``nDCG(dcg='exp-log2')@k`` are gdeval's (the TREC Web track script
ir_measures runs): gains ``2^grade - 1``, ERR's grades read on a 0-4 scale.

``Compat`` is rankset's ``compat``; ir_measures breaks score ties by doc id ascending
there (rankset: descending, as everywhere) and places unretrieved relevant documents by
a score of 0 (rankset: after the retrieved ones of their grade), so the two differ only on
tied or negative scores.

``RBP(rel=r, p=0.8)`` is cwl_eval's rank-biased precision with binary relevance,
rankset's ``rbp_binary`` (cwl_eval stops at rank 1,000; rankset reads the whole ranking).
The rest of cwl_eval's C/W/L family (``SDCG@k``, ``BPM@k``, ``NERR8@k``, ``NERR9@k``,
``NERR10``, ``NERR11``, ``INST``, ``INSQ``, each needing ``max_rel``) is
:mod:`rankset.measures.user_models`, read to cwl_eval's 1,000 ranks; cwl_eval ranks tied
scores in input order, rankset in trec_eval's.

The intent-aware family (``alpha_nDCG@k``, ``alpha_DCG@k``, ``ERR_IA@k``, ``nERR_IA@k``,
``NRBP``, ``nNRBP``, ``AP_IA``, ``P_IA@k``, ``StRecall@k``) is ndeval's, as ir_measures
runs it through pyndeval: the qrels' ``iteration`` names the subtopic (``"0"`` when the
qrels have none), a grade >= ``rel`` (1) is relevant (:func:`rankset.io.read_subtopics`).
pyndeval breaks score ties by doc id ascending (rankset: descending) and reads cutoffs up
to 20 (rankset: any); ir_measures scores only one (rel, alpha, beta) group of them per call
(0 for the others) and gives nNRBP NaN on a query without a relevant document, where the
face computes every group and scores that query 0.

Measures of ir_measures without a counterpart here raise a
:class:`~rankset.ParameterError` naming the supported ones.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import polars as pl

from rankset.compat._ir_measures_inputs import frames, subtopics
from rankset.errors import ParameterError
from rankset.evaluation import evaluate
from rankset.measures import CWL_DEPTH, parse_metric

__all__ = [
    "AP",
    "BPM",
    "ERR",
    "INSQ",
    "INST",
    "NERR8",
    "NERR9",
    "NERR10",
    "NERR11",
    "RBP",
    "RR",
    "SDCG",
    "Bpref",
    "Compat",
    "IPrec",
    "Judged",
    "Measure",
    "Metric",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "Qrel",
    "R",
    "Rprec",
    "ScoredDoc",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "Success",
    "calc_aggregate",
    "infAP",
    "iter_calc",
    "nDCG",
    "parse_measure",
]


class Qrel(NamedTuple):
    """One judgement, as ir_measures names its fields."""

    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    """One retrieved document, as ir_measures names its fields."""

    query_id: str
    doc_id: str
    score: float


class Metric(NamedTuple):
    """One value of one measure on one query (:func:`iter_calc`)."""

    query_id: str
    measure: Measure
    value: float


# name -> (rankset measure, the parameters ir_measures accepts, what "@" sets)
_SUPPORTED: dict[str, tuple[str, tuple[str, ...], str | None]] = {
    "nDCG": ("ndcg", ("dcg", "gains", "judged_only"), "cutoff"),
    "ERR": ("err", (), "cutoff"),
    "Compat": ("compat", ("p", "normalize"), None),
    "RBP": ("rbp_binary", ("rel", "p"), None),
    "AP": ("ap", ("rel", "judged_only"), "cutoff"),
    "P": ("precision", ("rel", "judged_only"), "cutoff"),
    "R": ("recall", ("rel", "judged_only"), "cutoff"),
    "RR": ("rr", ("rel", "judged_only"), "cutoff"),
    "Success": ("hit", ("rel", "judged_only"), "cutoff"),
    "Rprec": ("rprec", ("rel", "judged_only"), None),
    "Bpref": ("bpref", ("rel",), None),
    "infAP": ("infap", ("rel",), None),
    "Judged": ("judged", (), "cutoff"),
    "IPrec": ("iprec_at_recall", ("rel", "judged_only"), "recall"),
    "SetP": ("set_p", ("rel", "relative", "judged_only"), None),
    "SetR": ("set_recall", ("rel",), None),
    "SetF": ("set_f", ("rel", "beta", "judged_only"), None),
    "SetAP": ("set_map", ("rel", "judged_only"), None),
    "NumQ": ("num_ret", (), None),
    "NumRet": ("num_ret", ("rel",), None),
    "NumRel": ("num_rel", ("rel",), None),
    # the C/W/L family, as cwl_eval computes it for ir_measures
    "SDCG": ("sdcg", ("dcg", "min_rel", "max_rel"), "cutoff"),
    "BPM": ("bpm", ("T", "min_rel", "max_rel"), "cutoff"),
    "NERR8": ("nerr8", ("min_rel", "max_rel"), "cutoff"),
    "NERR9": ("nerr9", ("min_rel", "max_rel"), "cutoff"),
    "NERR10": ("nerr10", ("p", "min_rel", "max_rel"), None),
    "NERR11": ("nerr11", ("T", "min_rel", "max_rel"), None),
    "INST": ("inst", ("T", "min_rel", "max_rel"), None),
    "INSQ": ("insq", ("T", "min_rel", "max_rel"), None),
    # the intent-aware family, as ndeval (pyndeval) computes it over subtopic labels
    "alpha_nDCG": ("alpha_ndcg", ("alpha", "rel"), "cutoff"),
    "alpha_DCG": ("alpha_dcg", ("alpha", "rel"), "cutoff"),
    "ERR_IA": ("err_ia", ("rel",), "cutoff"),
    "nERR_IA": ("nerr_ia", ("rel",), "cutoff"),
    "NRBP": ("nrbp", ("alpha", "beta", "rel"), None),
    "nNRBP": ("nnrbp", ("alpha", "beta", "rel"), None),
    "AP_IA": ("map_ia", ("rel",), None),
    "P_IA": ("p_ia", ("rel",), "cutoff"),
    "StRecall": ("subtopic_recall", ("rel",), "cutoff"),
}
#: Measures summed over queries by ir_measures' aggregate; the others are averaged.
_SUMMED = frozenset({"NumQ", "NumRet", "NumRel"})
#: Parameters named in ir_measures that need a value rather than a number.
_NEEDS_CUTOFF = frozenset(
    {"P", "Success", "Judged", "IPrec", "ERR", "SDCG", "BPM", "NERR8", "NERR9"}
    | {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "P_IA", "StRecall"}
)
#: The C/W/L measures: cwl_eval scales grades between min_rel and max_rel (required).
_CWL = frozenset({"SDCG", "BPM", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ"})
#: The intent-aware measures: they read subtopic labels (the qrels' ``iteration``).
_INTENT_AWARE = frozenset(
    {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"}
)


@dataclass(frozen=True)
class Measure:
    """A measure as ir_measures writes it: a name, parameters, an optional ``@`` value.

    ``measure @ 10`` sets the cutoff (the recall level for ``IPrec``) and
    ``measure(rel=2)`` the parameters, each returning a new measure; ``str()`` gives
    ir_measures' spelling, and measures compare and hash by it.

    Examples
    --------
    >>> str(P(rel=2) @ 5), str(nDCG @ 10), parse_measure("AP(rel=2)") == AP(rel=2)
    ('P(rel=2)@5', 'nDCG@10', True)
    """

    NAME: str
    params: tuple[tuple[str, Any], ...] = ()
    at: float | int | None = None

    def __matmul__(self, value: float) -> Measure:
        return Measure(self.NAME, self.params, _check_at(self.NAME, value))

    def __call__(self, **params: Any) -> Measure:
        """Return this measure with ``params`` set (``AP(rel=2)``)."""
        accepted = _SUPPORTED[self.NAME][1]
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            msg = (
                f"{self.NAME} has no parameter {', '.join(map(repr, unknown))} here "
                f"(parameters: {', '.join(sorted(accepted)) or 'none'})."
            )
            raise ParameterError(msg)
        merged = {**dict(self.params), **params}
        frozen = {k: _FrozenMap(v) if isinstance(v, Mapping) else v for k, v in merged.items()}
        # in ir_measures' order of the measure's parameters, as it prints them
        ordered = tuple((name, frozen[name]) for name in accepted if name in frozen)
        return Measure(self.NAME, ordered, self.at)

    def __str__(self) -> str:
        shown = ",".join(f"{name}={value!r}" for name, value in self.params)
        text = f"{self.NAME}({shown})" if shown else self.NAME
        return text if self.at is None else f"{text}@{self.at}"

    def __repr__(self) -> str:
        return str(self)

    def param(self, name: str, default: Any = None) -> Any:
        """Return the value of parameter ``name``, else ``default``."""
        return dict(self.params).get(name, default)


class _FrozenMap(tuple[tuple[Any, Any], ...]):
    """A ``gains`` map kept hashable, written as ir_measures writes it: ``{2:3,3:7}``.

    A grade mapped to itself changes nothing (a grade the map lacks keeps its value),
    so, as in ir_measures, such entries are dropped and the rest sorted.
    """

    def __new__(cls, mapping: Mapping[Any, Any]) -> _FrozenMap:
        kept = [(grade, gain) for grade, gain in mapping.items() if grade != gain]
        return super().__new__(cls, sorted(kept))

    def __repr__(self) -> str:
        return "{" + ",".join(f"{grade!r}:{gain!r}" for grade, gain in self) + "}"


def _check_at(name: str, value: object) -> float | int:
    recall = _SUPPORTED[name][2] == "recall"
    if _SUPPORTED[name][2] is None:
        msg = f"{name} takes no @ value."
        raise ParameterError(msg)
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"{name}@ expects a number, got {value!r}."
        raise ParameterError(msg)
    if recall and not 0 <= value <= 1:
        msg = f"{name}@ is a recall level between 0 and 1, got {value!r}."
        raise ParameterError(msg)
    if not recall and (not float(value).is_integer() or value < 1):
        msg = f"{name}@ is a cutoff, an int >= 1, got {value!r}."
        raise ParameterError(msg)
    return value if recall else int(value)


nDCG = Measure("nDCG")
ERR = Measure("ERR")
Compat = Measure("Compat")
RBP = Measure("RBP")
AP = Measure("AP")
P = Measure("P")
R = Measure("R")
RR = Measure("RR")
Success = Measure("Success")
Rprec = Measure("Rprec")
Bpref = Measure("Bpref")
infAP = Measure("infAP")
Judged = Measure("Judged")
IPrec = Measure("IPrec")
SetP = Measure("SetP")
SetR = Measure("SetR")
SetF = Measure("SetF")
SetAP = Measure("SetAP")
NumQ = Measure("NumQ")
NumRet = Measure("NumRet")
NumRel = Measure("NumRel")
SDCG = Measure("SDCG")
BPM = Measure("BPM")
NERR8 = Measure("NERR8")
NERR9 = Measure("NERR9")
NERR10 = Measure("NERR10")
NERR11 = Measure("NERR11")
INST = Measure("INST")
INSQ = Measure("INSQ")
alpha_nDCG = Measure("alpha_nDCG")
alpha_DCG = Measure("alpha_DCG")
ERR_IA = Measure("ERR_IA")
nERR_IA = Measure("nERR_IA")
NRBP = Measure("NRBP")
nNRBP = Measure("nNRBP")
AP_IA = Measure("AP_IA")
P_IA = Measure("P_IA")
StRecall = Measure("StRecall")
NumRelRet = NumRet(rel=1)  # as in ir_measures, another name of NumRet(rel=1)
_ALIASES = {"NumRelRet": NumRelRet, "MAP_IA": AP_IA, "α_nDCG": alpha_nDCG, "α_DCG": alpha_DCG}


def parse_measure(text: str) -> Measure:
    """Parse a measure written as ir_measures writes it.

    Examples
    --------
    >>> parse_measure("P(rel=2)@5"), parse_measure("IPrec@0.5"), parse_measure("SetF(beta=2)")
    (P(rel=2)@5, IPrec@0.5, SetF(beta=2))
    >>> parse_measure("Accuracy@5")
    Traceback (most recent call last):
    ...
    rankset.errors.ParameterError: Accuracy is not a measure of rankset's ir_measures face; ...
    """
    body, _, at = text.strip().partition("@")
    name, _, rest = body.partition("(")
    name = name.strip()
    if name not in _SUPPORTED and name not in _ALIASES:
        msg = (
            f"{name} is not a measure of rankset's ir_measures face; supported: "
            f"{', '.join([*_SUPPORTED, *_ALIASES])}."
        )
        raise ParameterError(msg)
    measure = _ALIASES.get(name) or Measure(name)
    if rest:
        if not rest.endswith(")"):
            msg = f"{text!r}: expected NAME(param=value, ...)@value"
            raise ParameterError(msg)
        measure = measure(**_parse_params(rest[:-1], text))
    if at:
        try:
            value = ast.literal_eval(at.strip())
        except (ValueError, SyntaxError):
            msg = f"{text!r}: the value after @ must be a number"
            raise ParameterError(msg) from None
        measure = measure @ value
    return measure


def _parse_params(text: str, whole: str) -> dict[str, Any]:
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if not isinstance(call, ast.Call) or call.args:
            raise ValueError
        return {str(keyword.arg): ast.literal_eval(keyword.value) for keyword in call.keywords}
    except (ValueError, SyntaxError):
        msg = f"{whole!r}: parameters must be name=literal pairs"
        raise ParameterError(msg) from None


def _as_measures(measures: Iterable[Measure | str] | Measure | str) -> list[Measure]:
    if isinstance(measures, Measure | str):
        measures = [measures]
    parsed = [m if isinstance(m, Measure) else parse_measure(m) for m in measures]
    for measure in parsed:
        if measure.NAME in _NEEDS_CUTOFF and measure.at is None:
            msg = f"{measure.NAME} needs an @ value ({measure.NAME}@10)."
            raise ParameterError(msg)
        if measure.NAME in _CWL and measure.param("max_rel") is None:
            msg = f"{measure}: max_rel is required ({measure.NAME}(max_rel=3))."
            raise ParameterError(msg)
        dcg = measure.param("dcg", "log2")
        if measure.NAME == "SDCG" and dcg != "log2":
            msg = f"{measure}: dcg must be 'log2'."
            raise ParameterError(msg)
        if dcg not in ("log2", "exp-log2"):
            msg = f"{measure}: dcg must be 'log2' or 'exp-log2'."
            raise ParameterError(msg)
        if dcg == "exp-log2" and (measure.at is None or measure.param("gains") is not None):
            msg = f"{measure}: dcg='exp-log2' (gdeval) needs a cutoff and takes no gains."
            raise ParameterError(msg)
    return list(dict.fromkeys(parsed))


def _rankset_name(measure: Measure) -> str:
    """Return the rankset metric that computes ``measure`` (less judged_only)."""
    name, _, at_kind = _SUPPORTED[measure.NAME]
    rel = measure.param("rel")
    params: dict[str, Any] = {}
    if measure.NAME == "NumRet" and rel is not None:
        name = "num_rel_ret"  # ir_measures' NumRet(rel=r) counts relevant retrieved
    if measure.NAME == "SetP" and measure.param("relative", False):
        name = "set_relative_p"
    if measure.param("dcg") == "exp-log2":
        name = "ndcg_exp"  # gdeval's nDCG: gains 2^grade - 1
    gains = measure.param("gains")
    if gains:  # trec_eval's gain map, as pytrec_eval passes it on
        params["gains"] = ";".join(f"{grade}:{gain}" for grade, gain in gains)
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
        params["x"] = measure.param("beta", 1)  # trec_eval's set_F.x, as ir_measures sends it
    if at_kind == "recall" and measure.at is not None:
        params["recall"] = measure.at
        params["rounding"] = "v9"  # pytrec_eval computes IPrec as trec_eval 9
    if rel is not None:
        params["rel"] = rel
    text = name
    if params:
        text += "(" + ", ".join(f"{key}={value}" for key, value in params.items()) + ")"
    if at_kind == "cutoff" and measure.at is not None:
        # cwl_eval reads 1,000 ranks at most, whatever the cutoff
        text += f"@{min(measure.at, CWL_DEPTH) if measure.NAME in _CWL else measure.at}"
    return text


def _cwl_params(measure: Measure) -> dict[str, Any]:
    """Return the rankset parameters of a C/W/L measure, cwl_eval's defaults made explicit."""
    params: dict[str, Any] = {}
    if measure.NAME == "NERR10":
        params["p"] = measure.param("p", 0.9)
    elif "T" in _SUPPORTED[measure.NAME][1]:
        params["target"] = measure.param("T", 1.0)
    params["min_rel"] = measure.param("min_rel", 0)
    params["max_rel"] = measure.param("max_rel")
    return params


def _values(
    measures: list[Measure], labels: pl.DataFrame, run: pl.DataFrame, qrels: Any
) -> pl.DataFrame:
    """Return ``query_id, measure, value`` for every labelled query and measure."""
    queries = labels.select("query_id").unique().sort("query_id")
    groups: dict[tuple[bool, bool, bool, float | None], list[Measure]] = {}
    for measure in measures:
        judged_only = bool(measure.param("judged_only", False))
        # the intent-aware measures read subtopic labels, relevant from their rel
        level = float(measure.param("rel", 1)) if measure.NAME in _INTENT_AWARE else None
        key = (judged_only, measure.NAME == "Judged", _in_doubles(measure), level)
        groups.setdefault(key, []).append(measure)
    answered = run.select("query_id").unique().join(queries, on="query_id")
    parts = []
    for (judged_only, any_grade, doubles, level), group in groups.items():
        group_labels = labels
        if any_grade:  # ir_measures' Judged counts every labelled document, grade -1 too
            group_labels = labels.with_columns(grade=pl.col("grade").clip(lower_bound=0))
        if level is not None:  # a document judged for several subtopics: its best grade
            group_labels = labels.group_by("query_id", "doc_id").agg(pl.col("grade").max())
        else:  # judged twice (subtopic qrels): ir_measures' dict keeps the last judgement
            group_labels = group_labels.unique(["query_id", "doc_id"], keep="last")
        names = {parse_metric(_rankset_name(m)).name: m for m in group if m.NAME != "NumQ"}
        if names and answered.height:
            result = evaluate(
                run.join(answered, on="query_id", how="semi"),
                group_labels,
                list(dict.fromkeys([*names, "num_ret"])),
                judged_only=judged_only,  # trec_eval's -J, which pytrec_eval applies
                score_precision="float64" if doubles else "float32",
                duplicates="keep_best",
                nuggets=None if level is None else subtopics(qrels, level),
                confidence=None,
            )
            wide = result.per_query.pivot("metric", index="query_id", values="value")
            parts.append(
                wide.with_columns(_retrieved=pl.col("num_ret"))
                .unpivot(list(names), index=["query_id", "_retrieved"], variable_name="metric")
                .with_columns(
                    measure=pl.col("metric").replace_strict({n: str(m) for n, m in names.items()}),
                    value=_judged_share(names).fill_nan(None).fill_null(0.0),
                )
                .select("query_id", "measure", "value")
            )
        if any(m.NAME == "NumQ" for m in group):
            parts.append(answered.with_columns(
                measure=pl.lit(str(NumQ)), value=pl.lit(1.0)
            ))  # fmt: skip
    wanted = pl.DataFrame({"measure": [str(m) for m in measures]})
    grid = queries.join(wanted, how="cross")
    found = pl.concat(parts) if parts else grid.with_columns(value=pl.lit(None, pl.Float64))
    # ir_measures scores a labelled query the run lacks 0 on every measure.
    return grid.join(found, on=["query_id", "measure"], how="left").with_columns(
        pl.col("value").fill_null(0.0)
    )


def _in_doubles(measure: Measure) -> bool:
    """Whether ir_measures reads this measure's scores as doubles, not as floats.

    pytrec_eval (most measures) holds scores as 32-bit floats; ir_measures computes
    ``Judged``, ``RR@k`` and ``Compat`` in Python, ``RBP`` with cwl_eval and runs gdeval
    (``ERR``, exp-log2 nDCG) in perl, all with doubles.
    """
    return (
        measure.NAME in ("Judged", "Compat", "ERR", "RBP", *_CWL, *_INTENT_AWARE)
        or (measure.NAME == "RR" and measure.at is not None)
        or measure.param("dcg") == "exp-log2"
    )


def _judged_share(names: Mapping[str, Measure]) -> pl.Expr:
    """ir_measures' Judged@k divides by the documents in the top k, not k: rescale."""
    judged = {n: m.at for n, m in names.items() if m.NAME == "Judged"}
    if not judged:
        return pl.col("value")
    cutoff = pl.col("metric").replace_strict(judged, default=None, return_dtype=pl.Float64)
    shown = pl.min_horizontal(cutoff, pl.col("_retrieved"))
    rescaled = pl.when(shown > 0).then(pl.col("value") * cutoff / shown).otherwise(0.0)
    return pl.when(cutoff.is_not_null()).then(rescaled).otherwise(pl.col("value"))


def iter_calc(
    measures: Iterable[Measure | str] | Measure | str, qrels: Any, run: Any
) -> Iterator[Metric]:
    """Yield every labelled query's value of every measure, as ir_measures does.

    Parameters
    ----------
    measures
        Measures (objects of this module or ir_measures' spelling as text).
    qrels
        ``{query_id: {doc_id: relevance}}``, a frame ``query_id, doc_id, relevance``,
        an iterable of :class:`Qrel` tuples, or a qrels file.
    run
        ``{query_id: {doc_id: score}}``, a frame ``query_id, doc_id, score``, an
        iterable of :class:`ScoredDoc` tuples, or a run file.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> run = {"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d9": 1.0}}
    >>> [(m.query_id, str(m.measure), m.value) for m in iter_calc([RR, P @ 1], qrels, run)]
    [('q1', 'RR', 0.5), ('q1', 'P@1', 0.0), ('q2', 'RR', 0.0), ('q2', 'P@1', 0.0)]
    """
    wanted = _as_measures(measures)
    labels, ranked = frames(qrels, run)
    by_text = {str(m): m for m in wanted}
    for query_id, text, value in _values(wanted, labels, ranked, qrels).iter_rows():
        yield Metric(query_id, by_text[text], value)


def calc_aggregate(
    measures: Iterable[Measure | str] | Measure | str, qrels: Any, run: Any
) -> dict[Measure, float]:
    """Return each measure aggregated over the labelled queries, as ir_measures does.

    ``NumQ``, ``NumRet``, ``NumRel`` and ``NumRelRet`` are summed; the others averaged
    over every labelled query (0 where the run lacks it). Inputs as for
    :func:`iter_calc`.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> run = {"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d9": 1.0}}
    >>> calc_aggregate([RR, NumQ, NumRet], qrels, run)
    {RR: 0.25, NumQ: 2.0, NumRet: 3.0}
    """
    wanted = _as_measures(measures)
    labels, ranked = frames(qrels, run)
    values = _values(wanted, labels, ranked, qrels)
    totals = {}
    for measure in wanted:
        column = values.filter(pl.col("measure") == str(measure))["value"]
        total = math.fsum(column.to_list())
        totals[measure] = total if measure.NAME in _SUMMED else total / max(column.len(), 1)
    return totals
