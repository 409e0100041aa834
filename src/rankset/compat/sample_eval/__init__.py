r"""``rankset sample_eval``: NIST's ``sample_eval.pl`` command line and output, byte for byte.

``sample_eval.pl`` (NIST's version of 10 Oct 2011, from Yilmaz, Kanoulas and Aslam's code)
scores a run against sampled qrels, ``topic iter doc stratum rel`` with ``-1`` for pooled
but not sampled (:func:`rankset.io.read_sampled_qrels`); rankset computes its values with
the measures of :mod:`rankset.measures.sampled` and prints the script's lines:

* arguments by position, as the script takes them: ``[-q] QRELS RUN`` (with three
  arguments the first is dropped and per-topic lines are printed), or
  ``QRELS RUN -G L=G ...`` (each ``L=G`` maps the one-character grade ``L`` to the gain
  ``G``, up to three characters; ``-q`` and ``-G`` do not go together);
* per topic with ``-q``: ``infAP``, ``infNDCG``, ``iP10``, ``iP50``, ``iP1000``
  (``%6.4f``), ``inum_rel_ret``, ``inum_rel`` (``%14.4f``) and ``num_ret`` (``%9d``,
  the topic's lines in the run), for the topics of both files, in numeric order of
  their ids (run ids lose leading zeros; equal numbers, which the script leaves in hash
  order, here in text order);
* then ``all``: the means of ``infAP``, ``infNDCG``, the eleven ``iprec@rec`` levels and
  the three ``iP``; the sums of ``inum_rel_ret``, of ``inum_rel`` over every topic of
  the qrels, and of the documents ranked (at most 1000 per topic, a document listed twice
  counted once).

Only the first 1000 documents of a ranking count; a document listed twice keeps its
last score, as the script's hash does. Where the script reads on from a malformed line
(its fields shift), rankset stops with a message naming the file and line (status 2);
a file that cannot be opened fails with the script's message and status (``errno``), the
usage line with status 255; a run without a topic of the qrels, which stops the script
dividing by zero, is an error of status 2 with nothing printed.
"""

from rankset.compat.sample_eval._command import (
    USAGE,
    Options,
    SampleEvalError,
    evaluate,
    main,
    parse_command_line,
    perl_number,
)

__all__ = [
    "USAGE",
    "Options",
    "SampleEvalError",
    "evaluate",
    "main",
    "parse_command_line",
    "perl_number",
]
