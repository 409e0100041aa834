"""``rankset trec_eval -h``: a usage text of its own, and the entry ``rankset --help`` lists.

``rankset trec_eval`` keeps trec_eval's option grammar (GNU getopt), so it is dispatched
before argparse; ``-h`` there would be an unsupported option of the drop-in. The command
line answers it here instead, with exit status 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

__all__ = ["SUMMARY", "USAGE", "add_trec_eval_entry", "asks_for_help"]

#: The one line ``rankset --help`` shows beside ``trec_eval``.
SUMMARY: Final = "trec_eval 10.0's options and output, byte for byte"

#: What ``rankset trec_eval -h`` prints.
USAGE: Final = """\
usage: rankset trec_eval [options] LABELS RUN

A drop-in for NIST's trec_eval 10.0: the same options, measure names and output, byte for
byte, computed by rankset. LABELS is a qrels file (or another label format, -R); RUN is
one TREC run file. The summary goes to stdout; exit status 0, or trec_eval's own on error.

options:
  -h, --help                      print this text and exit
  -v, --version                   print trec_eval's version id and exit
  -m, --measure NAME[.PARAMS]     a measure or a group (official, all_trec, set, ...);
                                  repeatable; default: official. Parameters as trec_eval
                                  reads them: -m P.5,10  -m ndcg_cut.10  -m ndcg.1=3,2=9
  -q, --query_eval_wanted         print every query's values too, then the summary
  -n, --nosummary                 leave out the summary (with -q: per-query lines only)
  -c, --complete_rel_info_wanted  average over every labelled query (missing ones score 0)
  -l, --level_for_rel N           the lowest grade that counts as relevant (default 1)
  -M, --Max_retrieved_per_topic N keep the top N documents of each ranking
  -J, --Judged_docs_only          leave out retrieved documents without a label first
  -N, --Number_docs_in_coll N     the collection size (for the utility measures)
  -R, --Rel_info_format FORMAT    qrels (default), qrels_jg, prefs or qrels_prefs
  -T, --Results_format FORMAT     trec_results (the only one)
  -Z, --Zscore FILE               z-scores from FILE's "query measure mean stddev" lines
  -D, --Debug_level N[.QID]       with .QID, evaluate that query alone
  --trec-eval-version V           10.0 (default) or 9.0.8: print what that version prints

The measures and the names they go by: rankset measures. The rest of rankset (many runs,
confidence intervals, tests, charts): rankset --help.
"""

# Options that take a value in the next word (``-m ndcg``): that word is not an option.
_TAKES_VALUE: Final = frozenset(
    {"-m", "-l", "-D", "-N", "-M", "-R", "-T", "-Z"}
    | {"--measure", "--level_for_rel", "--Debug_level", "--Number_docs_in_coll"}
    | {"--Max_retrieved_per_topic", "--Rel_info_format", "--Results_format", "--Zscore"}
    | {"--trec-eval-version"}
)
_SWITCH_LETTERS: Final = frozenset("hvqncJo")


def asks_for_help(argv: Sequence[str]) -> bool:
    """Whether trec_eval's arguments ask for help: ``-h``, ``--help`` or ``-qh``.

    Examples
    --------
    >>> asks_for_help(["-q", "qrels", "run", "-h"]), asks_for_help(["-m", "-h", "q", "r"])
    (True, False)
    """
    value_next = False
    for word in argv:
        if value_next:
            value_next = False
            continue
        if word == "--":
            return False
        if word == "--help":
            return True
        if word in _TAKES_VALUE:
            value_next = True
        elif word.startswith("-") and not word.startswith("--") and len(word) > 1:
            letters = word[1:]
            if "h" in letters and set(letters) <= _SWITCH_LETTERS:
                return True
    return False


def add_trec_eval_entry(commands: Any) -> None:
    """List ``trec_eval`` in ``rankset --help``; the command line runs it before argparse."""
    commands.add_parser("trec_eval", help=SUMMARY, add_help=False)
