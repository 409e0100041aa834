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

Every public name of pytrec_eval 0.5 is here: ``RelevanceEvaluator`` (and its
``evaluate``), ``parse_qrel``, ``parse_run``, ``compute_aggregated_measure``,
``supported_measures`` and ``supported_nicknames``, each behaving as the original's.
An evaluator asked no measure (``RelevanceEvaluator(qrels, set())``) returns an empty
dict per query, as pytrec_eval does.

As the original's, the constructor reads the labels and plans the measures once (a
:class:`rankset.evaluation.Evaluator`); each ``evaluate`` then only measures its run.
Unlike the original, evaluators share no trec_eval state, so evaluators with
different measures or levels never affect each other, and a malformed measure raises a
``ValueError`` where pytrec_eval aborts the interpreter (``ndcg.1=3``) or prints
trec_eval's complaint and returns 0 (``utility.1,-1,0,0``). The nicknames of the other label formats
(``all_prefs``, ``prefs``, ``qrels_jg``) are listed as in pytrec_eval, and, as there,
asking them raises ``ValueError`` (``rankset trec_eval -R prefs`` and ``-R qrels_jg``
compute them from files).
"""

from rankset.compat._pytrec_eval import (
    RelevanceEvaluator,
    compute_aggregated_measure,
    parse_qrel,
    parse_run,
    supported_measures,
    supported_nicknames,
)

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]
