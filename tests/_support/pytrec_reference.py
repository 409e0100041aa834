"""Reference side of the parity tests: trec_eval measure names and pytrec_eval in a child process.

Not a test module (pytest collects ``test_*.py`` only). Imported by the parity tests and by
``conftest.py``; run as a script (``python pytrec_reference.py``) it is the child process that
calls pytrec_eval.

Why a child process, and why one long-lived child is safe
---------------------------------------------------------
pytrec-eval-terrier 0.5.11 wraps trec_eval's C code, which keeps per-query state in static
variables (``form_res_rels.c``): the buffers ``rel_levels`` and ``ranked_rel_list`` and the cached
``saved_res_rels``. pytrec_eval frees them at the end of every ``evaluate()`` call. We measured
(2026-11, 2 cores) what goes wrong and when:

1. A query whose every label is negative (``max_rel < 0``) asks ``te_chk_and_malloc`` for zero
   longs. As the first query of an ``evaluate()`` call it gets the still-NULL buffer back, the
   measure returns UNDEF and pytrec_eval silently reports 0 for it, even ``num_ret``. Later in a
   call it reuses the buffers without resetting ``num_rel_levels``, so nDCG reads past
   ``rel_levels``. Some heap layouts turn that into an endless ideal-DCG loop. That is very
   likely the "hang" and the "ndcg after map" crashes a colleague saw: we reproduced hangs with
   nDCG-only evaluators, 5 s timeouts after 93, 252 and 767 requests for 3 seeds. It is
   undefined behaviour in trec_eval itself. The binary exits with "Can't calculate measure"
   (exit 4) when such a query comes first, and reads stale state when it comes later.
2. An empty ranking (``{qid: {}}``, which we need to copy ``trec_eval -c``) that is the first
   query of an ``evaluate()`` call hits the same NULL-buffer path: every measure is 0, even
   ``num_rel``.

Once neither can happen, sharing is safe. We checked this against ground truth from a fresh
process per (case, measure family): 60 random cases with ties, grades -1..3 and queries missing
on either side, 13 measure families, relevance levels 1 and 2 (1,534 processes, about 80 s per
level). These all gave bit-identical values: (a) one evaluator per measure family in one
process, (b) one evaluator holding every measure, (c) many consecutive evaluators in one
process. A 2,000-case stress run in one process neither hung nor crashed. So this module:

- opens every request with a sentinel query that has one retrieved, judged document, so
  trec_eval's static buffers are allocated before any real query is evaluated. With it, the
  same 3 seeds ran about 2,800 requests each without a hang, even with all-negative queries;
- still never sends a query whose labels are all negative, because that run was clean only by
  luck on top of an out-of-bounds read. trec_eval has no defined value for such a query, and
  :func:`reference` fills in the only consistent one: ``num_ret`` = retrieved docs, every
  other measure 0 (what trec_eval gives any query with no relevant document);
- keeps pytrec_eval out of the pytest process. One long-lived child (:class:`PytrecEvalWorker`)
  answers JSON-line requests and uses a fresh evaluator per measure family per request. A crash
  is reported with the child's stderr, and a hang becomes a ``TimeoutError`` after ``timeout``
  seconds; it never blocks CI.

Cost, measured on the 2-core dev machine: the child starts in 0.14 s, and a request (one
small case, 13 evaluators) takes 0.74 ms. 400 property examples therefore spend about 0.5 s in
pytrec_eval; the rest of the suite's ~18 s is rankset (~45 ms per ``evaluate``) and Hypothesis.
The "known safe" fallback, a fresh process per measure family per example, costs 13 x 0.15 s =
2 s per example, about 13 minutes for those 400 examples.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeoutError
from contextlib import ExitStack
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Final, Self

Qrels = Mapping[str, Mapping[str, int]]
"""``{query_id: {doc_id: grade}}``, trec_eval qrels."""
Run = Mapping[str, Mapping[str, float]]
"""``{query_id: {doc_id: score}}``, a trec_eval result list (order comes from the scores)."""
Values = dict[str, dict[str, float]]
"""``{query_id: {trec_eval measure name: value}}``, e.g. ``{"301": {"P_5": 0.2}}``."""

# trec_eval measure name -> rankset canonical name, from the names each measure records in
# its define(...) call (MeasureSpec.trec_eval): a plain name (`map` -> `ap`) or a cutoff family
# (`P_{k}`: `P_5` -> `precision@5`). Read lazily: the pytrec_eval child process never needs it.
_CUTOFF_SUFFIX: Final = "_{k}"


CHECKED_AGAINST_THE_BINARY: Final[frozenset[str]] = frozenset(
    [
        "gm_map",
        "gm_bpref",
        "infAP",
        "iprec_at_recall",
        "Rprec_mult",
        "utility",
        "binG",
        "G",
        "ndcg_rel",
        "Rndcg",
        "rbp",
        "rbp_resid",
        "unj",
        "ideal_dcg",
        "yaap",
    ]
)
"""trec_eval 10.0 families compared with the 10.0 binary and its regression outputs
(tests/compat, tests/parity/test_trec_eval_command_binary.py), not with pytrec_eval: it
is trec_eval 9.0.x (iprec_at_recall rounds its cutoffs differently), lacks rbp,
rbp_resid, unj and ideal_dcg, does not compute yaap (in 9.0.x's table, in no group), and
:func:`reference`'s stand-in for all-negative queries (every measure 0) does not hold for
the logarithms of gm_map and gm_bpref."""


@cache
def _trec_eval_names() -> tuple[Mapping[str, str], Mapping[str, str]]:
    """Return ``(plain name -> measure, cutoff family -> measure)`` from the registry."""
    from rankset.measures import available_measures

    plain: dict[str, str] = {}
    cutoff: dict[str, str] = {}
    for measure, spec in available_measures().items():
        for name in spec.trec_eval:
            if name.removesuffix(_CUTOFF_SUFFIX) in CHECKED_AGAINST_THE_BINARY:
                continue
            if name.endswith(_CUTOFF_SUFFIX):
                cutoff[name.removesuffix(_CUTOFF_SUFFIX)] = measure
            else:
                plain[name] = measure
    return plain, cutoff


COUNT_MEASURES: Final[frozenset[str]] = frozenset(
    {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
)
"""Measures trec_eval sums over queries in its ``all`` row (all others are averaged)."""

SENTINEL_QUERY: Final[str] = "\x01rankset-sentinel"
"""Query evaluated first in every request (see the module docstring, item 2)."""

DEFAULT_TIMEOUT: Final[float] = 60.0


def canonical_metric(trec_name: str) -> str | None:
    """Return rankset's canonical name for a compared trec_eval measure, else None.

    >>> canonical_metric("P_10"), canonical_metric("map_cut_5"), canonical_metric("recip_rank")
    ('precision@10', 'ap@5', 'rr')
    >>> canonical_metric("relative_P_5"), canonical_metric("ndcg_rel") is None
    ('relative_p@5', True)
    """
    plain, cutoff = _trec_eval_names()
    if trec_name in plain:
        return plain[trec_name]
    family, _, k = trec_name.rpartition("_")
    if family not in cutoff or not re.fullmatch(r"[1-9][0-9]*", k):
        return None
    return f"{cutoff[family]}@{k}"


def pytrec_measures(cutoffs: Sequence[int]) -> tuple[str, ...]:
    """Return pytrec_eval measure strings for every compared family at the given cutoffs.

    >>> pytrec_measures([1, 5])[:2]
    ('success.1,5', 'P.1,5')
    """
    params = ",".join(str(k) for k in sorted(set(cutoffs)))
    plain, cutoff = _trec_eval_names()
    return tuple(f"{family}.{params}" for family in cutoff) + tuple(plain)


def trec_measure_names(cutoffs: Sequence[int]) -> tuple[str, ...]:
    """Return the per-query measure names pytrec_eval reports for :func:`pytrec_measures`.

    >>> trec_measure_names([3])[:3]
    ('success_3', 'P_3', 'recall_3')
    """
    ks = sorted(set(cutoffs))
    plain, cutoff = _trec_eval_names()
    return tuple(f"{family}_{k}" for family in cutoff for k in ks) + tuple(plain)


def prints_as(value: float, printed: str) -> bool:
    """Return True when ``value`` prints exactly as trec_eval's ``%6.4f`` string ``printed``.

    No tolerance, half-way points included: rankset adds and divides as trec_eval does.

    >>> prints_as(0.17851, "0.1785"), prints_as(0.12345000000000001, "0.1234")
    (True, False)
    """
    return f"{value:.4f}" == printed.strip()


def rounds_to_printed(value: float, printed: str) -> bool:
    """Return True when ``value`` prints as trec_eval's ``%6.4f`` string ``printed``.

    For pytrec_eval's values against trec_eval's printed output (rankset's own values use
    :func:`prints_as`). The printed strings are compared, which is stricter than a
    tolerance. The one exception is a value within 1e-9 of a rounding half-way point
    (x.xxxx5), where the last ulp of a differently ordered sum can flip the fourth decimal.
    There a difference of exactly half a unit in the fourth decimal is accepted.

    >>> rounds_to_printed(0.17851, "0.1785"), rounds_to_printed(0.1786, "0.1785")
    (True, False)
    >>> rounds_to_printed(0.12345000000000001, "0.1234")
    True
    """
    if f"{value:.4f}" == printed.strip():
        return True
    expected = float(printed)
    return abs(abs(value - expected) - 5e-5) < 1e-9


def _lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """Read a TREC qrels file (``qid iter docid grade``; ``#`` comment lines; ``.gz`` ok)."""
    qrels: dict[str, dict[str, int]] = {}
    for line in _lines(path):
        qid, _, doc_id, grade = line.split()[:4]
        qrels.setdefault(qid, {})[doc_id] = int(grade)
    return qrels


def read_run(path: Path) -> dict[str, dict[str, float]]:
    """Read a TREC run (``qid Q0 docid rank score tag``; like trec_eval, words after the tag
    and the rank column are ignored; ``.gz`` ok). A duplicate (qid, docid) is an error.
    """
    run: dict[str, dict[str, float]] = {}
    for line in _lines(path):
        qid, _, doc_id, _, score = line.split()[:5]
        if doc_id in run.setdefault(qid, {}):
            msg = f"{path.name}: duplicate document {doc_id} for query {qid}"
            raise ValueError(msg)
        run[qid][doc_id] = float(score)
    return run


def pytrec_values_in_process(
    rows: Sequence[tuple[str, str, float]],
    judged: Mapping[tuple[str, str], int],
    measures: Mapping[str, tuple[str, str]],
) -> dict[tuple[str, str], float]:
    """pytrec_eval's value of each ``(query, metric)`` of a run's rows and labels, in process.

    ``rows``: ``(query, doc, score)``; ``judged``: ``(query, doc) -> grade``; ``measures``:
    rankset's metric name to pytrec_eval's measure and the key of its value
    (``{"ndcg@10": ("ndcg_cut.10", "ndcg_cut_10")}``). For small cases whose rankings are
    all non-empty and whose grades are non-negative (the module docstring says why).
    """
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    for (query, doc), grade in judged.items():
        qrels.setdefault(query, {})[doc] = grade
    scores: dict[str, dict[str, float]] = {}
    for query, doc, score in rows:
        scores.setdefault(query, {})[doc] = score
    wanted = {measure for measure, _ in measures.values()}
    values = pytrec_eval.RelevanceEvaluator(qrels, wanted).evaluate(scores)
    return {
        (query, metric): values[query][key]
        for query in values
        for metric, (_, key) in measures.items()
    }


def _safe_queries(qrels: Qrels) -> dict[str, dict[str, int]]:
    """Return the queries of ``qrels`` that are safe to send to trec_eval.

    A query is safe when at least one label is non-negative (module docstring, item 1).
    """
    return {
        qid: dict(labels) for qid, labels in qrels.items() if labels and max(labels.values()) >= 0
    }


def reference(
    worker: PytrecEvalWorker,
    qrels: Qrels,
    run: Run,
    *,
    relevance_level: int,
    cutoffs: Sequence[int],
    complete: bool = False,
) -> Values:
    """Return trec_eval's per-query values for one run, as rankset should reproduce them.

    Scores the queries in both ``run`` and ``qrels`` (trec_eval's default). With ``complete``
    it scores every labelled query, and a query missing from the run counts as an empty ranking
    (``trec_eval -c``). A query whose labels are all negative gets ``num_ret`` = number of
    retrieved docs and 0 for every other measure (module docstring, item 1).
    """
    scored = [qid for qid in qrels if qrels[qid] and (complete or qid in run)]
    safe = _safe_queries({qid: qrels[qid] for qid in scored})
    request_run = {qid: dict(run.get(qid, {})) for qid in scored if qid in safe}
    values = worker.evaluate(
        safe, request_run, relevance_level=relevance_level, measures=pytrec_measures(cutoffs)
    )
    names = trec_measure_names(cutoffs)
    for qid in scored:
        if qid not in safe:
            values[qid] = {name: 0.0 for name in names}
            values[qid]["num_ret"] = float(len(run.get(qid, {})))
    missing = set(scored) - set(values)
    if missing:
        msg = f"pytrec_eval returned no values for queries {sorted(missing)}"
        raise RuntimeError(msg)
    return values


def _request(
    qrels: Qrels, run: Run, relevance_level: int, measures: Sequence[str]
) -> dict[str, object]:
    if SENTINEL_QUERY in qrels or SENTINEL_QUERY in run:
        msg = f"query id {SENTINEL_QUERY!r} is reserved"
        raise ValueError(msg)
    # Dicts keep insertion order through JSON, so the sentinel is the first query evaluated.
    return {
        "qrels": {SENTINEL_QUERY: {"d": 1}, **{q: dict(d) for q, d in qrels.items()}},
        "run": {SENTINEL_QUERY: {"d": 1.0}, **{q: dict(d) for q, d in run.items()}},
        "relevance_level": relevance_level,
        "measures": list(measures),
    }


def _drop_sentinel(values: Values) -> Values:
    values.pop(SENTINEL_QUERY, None)
    return values


class PytrecEvalWorker:
    """A long-lived child process that evaluates requests with pytrec_eval.

    Use as a context manager; the child is killed on exit. Each request gets a fresh
    evaluator per measure family, and the sentinel query is added by the parent.
    """

    def __init__(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._timeout = timeout
        # Closed in reverse order by close(): kill the child, stop the reader thread (its
        # pending readline sees EOF), close the pipes and reap the child, drop the stderr file.
        self._resources = ExitStack()
        # stderr goes to a file, not a pipe: a child that writes a lot there (trec_eval prints
        # its errors) must never block on a full pipe and look like a hang.
        stderr = tempfile.TemporaryFile(mode="w+t")  # noqa: SIM115  (the ExitStack closes it)
        self._stderr = self._resources.enter_context(stderr)
        self._proc = self._resources.enter_context(
            subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                text=True,
            )
        )
        self._reader = self._resources.enter_context(
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="pytrec-reader")
        )
        self._resources.callback(self._kill)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the child process and release its pipes (idempotent)."""
        self._resources.close()

    def _kill(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()

    def evaluate(
        self, qrels: Qrels, run: Run, *, relevance_level: int, measures: Sequence[str]
    ) -> Values:
        """Return pytrec_eval's per-query values; raise on a crash or after ``timeout`` s."""
        stdin, stdout = self._proc.stdin, self._proc.stdout
        if stdin is None or stdout is None or self._proc.poll() is not None:
            msg = f"pytrec_eval child is not running (exit code {self._proc.returncode})"
            raise RuntimeError(msg)
        stdin.write(json.dumps(_request(qrels, run, relevance_level, measures)) + "\n")
        stdin.flush()
        future = self._reader.submit(stdout.readline)
        try:
            line = future.result(timeout=self._timeout)
        except FutureTimeoutError:
            self._kill()
            msg = f"pytrec_eval child gave no answer within {self._timeout} s (hang); killed it"
            raise TimeoutError(msg) from None
        if not line:
            self._proc.wait()
            self._stderr.seek(0)
            err = self._stderr.read()[-2000:]
            msg = f"pytrec_eval child died (exit code {self._proc.returncode}): {err}"
            raise RuntimeError(msg)
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return _drop_sentinel(answer["values"])


def _serve() -> None:
    """Child-process loop: one JSON request per stdin line, one JSON answer per stdout line."""
    # Only the child process imports the C extension.
    import pytrec_eval

    for line in sys.stdin:
        request = json.loads(line)
        try:
            values: Values = {}
            for measure in request["measures"]:
                evaluator = pytrec_eval.RelevanceEvaluator(
                    request["qrels"], {measure}, relevance_level=request["relevance_level"]
                )
                for qid, per_measure in evaluator.evaluate(request["run"]).items():
                    values.setdefault(qid, {}).update(per_measure)
                del evaluator
            answer: dict[str, object] = {"values": values}
        except Exception as exc:  # report to the parent instead of dying silently
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve()
