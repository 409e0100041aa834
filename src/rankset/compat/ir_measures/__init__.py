"""ir_measures' Python face over rankset: every public name of ir_measures 0.4.

Code written against ir_measures switches with one import::

    import rankset.compat.ir_measures as ir_measures
    from rankset.compat.ir_measures import *  # AP, nDCG, P, RR, ...

    ir_measures.calc_aggregate([nDCG@10, P(rel=2)@5, AP], qrels, run)
    evaluator = ir_measures.evaluator([nDCG@10, AP], qrels)  # qrels read once
    for run in runs:
        evaluator.calc_aggregate(run)

What is here, as in ir_measures: the measure objects and their other names (``MAP``,
``MRR``, ``NDCG``, ``SetRelP``, ``NumRelRet``, ``α_nDCG``...), whose ``calc_aggregate``,
``iter_calc``, ``calc`` and ``evaluator`` compute them; ``calc_aggregate``, ``iter_calc``,
``calc``, ``evaluator`` and ``calc_ctxt``; ``parse_measure``, ``parse_trec_measure``,
``read_trec_qrels``, ``read_trec_run`` and the deprecated names beside them; the
submodules ``measures``, ``util`` (``QrelsConverter``, ``RunConverter``) and
``providers``; the provider objects (``pytrec_eval``, ``gdeval``...) and their classes
(``providers.PytrecEvalProvider()``...), each taking the measures its tool takes, all
computed by rankset; ``define`` and ``define_byquery``, measures computed by a Python
function of pandas frames (the function's values, as ir_measures' runtime provider gives
them). Measures that print the same are equal: ``nDCG@10`` and
``nDCG(judged_only=False)@10`` are one measure, computed once.

Not here (using the name raises :class:`NotInFace`, which says what to call instead):
``CwlMetric`` (cwl_eval's extra columns) and ``lazylibs``.

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
ir_measures runs): gains ``2^grade - 1``, ERR's grades read on a 0-4 scale, each value
as gdeval.pl prints it (5 decimals: 0.6201, not 0.6201040599710453), means taken over the
printed values. The ``gdeval`` provider reads every nDCG it is given as gdeval's (so
``gdeval.calc_aggregate([nDCG@20], ...)`` is gdeval's nDCG, as in ir_measures);
``nDCG(dcg='exp-log2')`` without a cutoff is ranx's, not rounded. A bare ``Judged``
reads every retrieved document.

``Compat`` is rankset's ``compat``; ir_measures breaks score ties by doc id ascending
there (rankset: descending, as everywhere) and places unretrieved relevant documents by
a score of 0 (rankset: after the retrieved ones of their grade), so the two differ only on
tied or negative scores.

``Accuracy(rel=r)@k`` is rankset's ``pair_accuracy``: the share of the (relevant,
non-relevant) pairs of the top k (all retrieved without a cutoff) ranked relevant first,
unlabelled documents non-relevant. As in ir_measures it is reported only for a query with
both in the top k (ir_measures stops with ZeroDivisionError on a query with a relevant
document and no non-relevant one; the face leaves the query out) and ties are broken by doc
id descending (ir_measures: in the run's order).

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

from rankset.compat.ir_measures import measures, providers, util
from rankset.compat.ir_measures.measures import (
    AP,
    AP_IA,
    BPM,
    ERR,
    ERR_IA,
    INSQ,
    INST,
    MAP,
    MAP_IA,
    MRR,
    NDCG,
    NERR8,
    NERR9,
    NERR10,
    NERR11,
    NRBP,
    P_IA,
    RBP,
    RR,
    SDCG,
    Accuracy,
    BaseMeasure,
    BPref,
    Bpref,
    Compat,
    IPrec,
    Judged,
    MeanAgg,
    Measure,
    NumQ,
    NumRel,
    NumRelRet,
    NumRet,
    P,
    ParamInfo,
    Precision,
    R,
    Recall,
    RPrec,
    Rprec,
    SetAP,
    SetF,
    SetP,
    SetR,
    SetRelP,
    StRecall,
    Success,
    SumAgg,
    alpha_DCG,
    alpha_nDCG,
    infAP,
    nDCG,
    nERR_IA,
    nNRBP,
    α_DCG,
    α_nDCG,
)
from rankset.compat.ir_measures.providers import (
    DefaultPipeline,
    Evaluator,
    Provider,
    define,
    define_byquery,
)
from rankset.compat.ir_measures.util import (
    CalcResults,
    GenericQrel,
    GenericScoredDoc,
    Metric,
    Qrel,
    ScoredDoc,
    convert_trec_name,
    parse_measure,
    parse_trec_measure,
    parse_trec_qrels,
    parse_trec_run,
    read_trec_qrels,
    read_trec_run,
)  # fmt: skip

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
    "BPref",
    "BaseMeasure",
    "Bpref",
    "CalcResults",
    "Compat",
    "DefaultPipeline",
    "Evaluator",
    "GenericQrel",
    "GenericScoredDoc",
    "IPrec",
    "Judged",
    "MeanAgg",
    "Measure",
    "Metric",
    "NotInFace",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "ParamInfo",
    "Precision",
    "Provider",
    "Qrel",
    "R",
    "RPrec",
    "Recall",
    "Rprec",
    "ScoredDoc",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "SetRelP",
    "StRecall",
    "Success",
    "SumAgg",
    "accuracy",
    "alpha_DCG",
    "alpha_nDCG",
    "calc",
    "calc_aggregate",
    "calc_ctxt",
    "compat",
    "convert_trec_name",
    "cwl_eval",
    "define",
    "define_byquery",
    "evaluator",
    "gdeval",
    "infAP",
    "iter_calc",
    "judged",
    "measures",
    "msmarco",
    "nDCG",
    "nERR_IA",
    "nNRBP",
    "parse_measure",
    "parse_trec_measure",
    "parse_trec_qrels",
    "parse_trec_run",
    "providers",
    "pyndeval",
    "pytrec_eval",
    "ranx",
    "read_trec_qrels",
    "read_trec_run",
    "runtime",
    "trectools",
    "util",
    "α_DCG",
    "α_nDCG",
]  # fmt: skip

#: The ir_measures version whose names and behaviour the face follows.
__version__ = "0.4.3"

evaluator = DefaultPipeline.evaluator
calc_ctxt = DefaultPipeline.calc_ctxt  # deprecated in ir_measures: evaluator
iter_calc = DefaultPipeline.iter_calc
calc_aggregate = DefaultPipeline.calc_aggregate
calc = DefaultPipeline.calc
run_inputs = DefaultPipeline.run_inputs
qrel_inputs = DefaultPipeline.qrel_inputs

# ir_measures' providers, by name: each takes its tool's measures (rankset computes them)
accuracy = providers.registry["accuracy"]
compat = providers.registry["compat"]
cwl_eval = providers.registry["cwl_eval"]
gdeval = providers.registry["gdeval"]
judged = providers.registry["judged"]
msmarco = providers.registry["msmarco"]
pyndeval = providers.registry["pyndeval"]
pytrec_eval = providers.registry["pytrec_eval"]
ranx = providers.registry["ranx"]
runtime = providers.registry["runtime"]
trectools = providers.registry["trectools"]


class NotInFace(NotImplementedError):
    """A name of ir_measures that rankset's face does not provide; says what to use."""


_NOT_IN_FACE = {
    "CwlMetric": "cwl_eval's per-query costs and utilities: the face returns Metric tuples; "
    "rankset.evaluate(run, qrels, ['sdcg(max_rel=3)@10', ...]) gives the values",
    "lazylibs": "ir_measures' lazy importer of pandas and friends: import them directly",
}


def __getattr__(name: str) -> object:
    if name in _NOT_IN_FACE:
        msg = f"ir_measures.{name} is not part of rankset's ir_measures face: {_NOT_IN_FACE[name]}."
        raise NotInFace(msg)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
