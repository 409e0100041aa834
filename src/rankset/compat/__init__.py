"""Other evaluation tools' faces over rankset, so switching is a change of command.

* :func:`rankset.compat.trec_eval.main`: trec_eval 10.0's command line (``rankset
  trec_eval [options] QRELS RUN``) printing trec_eval's output byte for byte.
* :mod:`rankset.compat.ir_measures`: ir_measures 0.4's names (measure objects,
  ``calc_aggregate``, ``iter_calc``, ``calc``, ``evaluator``, parsers, readers,
  converters, providers), equal to ir_measures' values.
* :mod:`rankset.compat.pytrec_eval`: pytrec_eval 0.5's names (``RelevanceEvaluator``,
  ``parse_qrel``, ``parse_run``...), equal to pytrec_eval's values, without its shared
  state.
"""

from __future__ import annotations

from rankset.compat import ir_measures, pytrec_eval, trec_eval

__all__ = ["ir_measures", "pytrec_eval", "trec_eval"]
