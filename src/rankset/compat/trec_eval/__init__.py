r"""``rankset trec_eval``: trec_eval 10.0's command line and output, byte for byte.

The options, measure names, ``.params`` syntax, output lines, exit codes and error text
of trec_eval 10.0 (``trec_eval.c``, ``meas_print_*.c``), over one rankset evaluation:

* ``-q`` per-query lines, ``-n`` no summary, ``-c`` average over every labelled query
  (10.0 prints the added queries' lines too), ``-l N`` relevance level, ``-M N`` only the
  top N of each ranking, ``-J`` judged documents only, ``-N N`` collection size (utility),
  ``-m name[.params]`` (several; ``official``, ``all_trec`` and ``set`` name groups);
* lines ``%-22s\\t%s\\t%6.4f`` (counts ``%ld``; ``runid`` is the last line's tag), measures
  in trec_eval's table order, queries in byte order of their ids;
* a labelled query without results stops 10.0 with status 4 unless ``-c`` (10.0's
  behaviour; 9.0.8 skipped it); unreadable files exit 2, bad options 1, duplicates 4.

``--trec-eval-version 9.0.8`` prints what 9.0.8 prints: scores read as 32-bit floats,
``iprec_at_recall`` and ``11pt_avg`` reading ``trunc(r R + 0.9)`` relevant documents,
no ``rbp``, ``rbp_resid``, ``unj`` or ``dcg``; queries of the run without labels skipped
silently, and ``-c`` averaging over every labelled query with 0 (``log(0.00001)`` for
the geometric means) for those the run lacks, which print no lines.

``-Z FILE`` replaces each per-query value by its z score from FILE's ``query measure
mean stddev`` lines before anything is summed, and prints every line as trec_eval does
then (``Z`` before the name, counts as ``%6.4f``); ``-v`` prints trec_eval's version id;
``-D N.QID`` evaluates QID alone (a level above 0 is refused for the measures trec_eval
then traces).

Gain maps (``-m ndcg.1=3,2=9``) are read for ``ndcg``, ``dcg``, ``ideal_dcg``, ``G``,
``ndcg_rel`` and ``Rndcg`` (a gain for a negative level is refused: it would reach the
retrieved documents outside the qrels); two of ``dcg``, ``ideal_dcg`` and ``ndcg`` asked
with a map are refused (10.0 shares one map among them and crashes
at exit), and a map with gains less than 1 apart is named on stderr and left out (10.0
sorts gains by ``(int) (a - b)``). ``-R qrels_jg`` reads judgment groups (``query group
doc grade``) for ``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg``; a measure of another
label format stops at the first query with trec_eval's message (status 4).
``-R prefs`` and ``-R qrels_prefs`` read preferences for the 14 ``prefs_*`` measures
(:mod:`rankset.compat.trec_eval._prefs`). Where trec_eval's behaviour is undefined
(reads past its arrays), rankset refuses with a message rather than guess.
"""

from rankset.compat.trec_eval._command import (
    MEASURE_TABLE,
    STAND_IN_DOCUMENT,
    TrecEvalError,
    evaluate,
    main,
    prepare_run,
    query_values,
)

__all__ = [
    "MEASURE_TABLE",
    "STAND_IN_DOCUMENT",
    "TrecEvalError",
    "evaluate",
    "main",
    "prepare_run",
    "query_values",
]
