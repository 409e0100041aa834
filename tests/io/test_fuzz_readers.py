"""Fuzzing the readers: mutated TREC, CSV and JSON bytes either fail cleanly or equal pytrec_eval.

Each example writes a small clean run, mutates its bytes a few times (inserting,
replacing or deleting blanks, line ends, control bytes, quotes, braces, ``nan``,
``1e999``, invalid UTF-8 and the like), and evaluates the file. Two outcomes pass:

- a :class:`rankset.RanksetError` (any other exception fails the test);
- values equal to pytrec_eval's for the run as an independent parser reads the same
  bytes, following the documented rules (README, "Row rules"; trec_eval's layout). When
  rankset reads a file that this parser refuses, the test fails too: rankset accepted
  something it should not have.

pytrec_eval keeps scores as 32-bit floats, so rankset runs with ``score_precision="float32"``.
The examples are derandomized and few (``RANKSET_FUZZ_EXAMPLES``, 150 per format by
default), so the test runs in seconds in CI; raise it for a longer search.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankset
from _support.pytrec_reference import PytrecEvalWorker, Values, canonical_metric, reference

QUERY_IDS = ("1", "2", "10", "q1")
DOC_IDS = ("1", "2", "9", "10", "a", "B", "d9", "é")
SCORES = (0.0, 0.5, 1.0, 2.0, 2.5)
CUTOFFS = (1, 5)
METRICS = ["ap", "rr", "ndcg", "num_ret", "num_rel_ret", "precision@5", "recall@5"]
TREC_NAMES = ("map", "recip_rank", "ndcg", "num_ret", "num_rel_ret", "P_5", "recall_5")
TOKENS = (
    b" ", b"  ", b"\t", b"\n", b"\r", b"\r\n", b"\x0b", b"\x0c", b"\x00", b"\x01", b"\x7f",
    b"#", b"{", b"[", b"}", b'"', b",", b":", b"-", b"0", b"9", b".", b"e", b"nan", b"NaN",
    b"inf", b"-inf", b"1e999", b"Q0", b"\xc3\xa9", b"\xff", b"\xef\xbb\xbf", b"null", b"",
)  # fmt: skip
MAX_EXAMPLES = int(os.environ.get("RANKSET_FUZZ_EXAMPLES", "150"))
FUZZ_SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


class Refused(Exception):
    """The independent parser refuses the bytes (rankset must refuse them too)."""


# --- clean inputs and their mutations --------------------------------------------------


@st.composite
def clean_runs(draw: st.DrawFn) -> Run:
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=3, unique=True))
    return {
        query: {
            doc: draw(st.sampled_from(SCORES))
            for doc in draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=5, unique=True))
        }
        for query in queries
    }


def labels_for(run: Run) -> Qrels:
    """One relevant label per query (its first document) and one non-relevant one."""
    qrels: Qrels = {}
    for query, docs in run.items():
        names = list(docs)
        qrels[query] = {names[0]: 1}
        qrels[query].setdefault(DOC_IDS[len(names) % len(DOC_IDS)], 0)
    return qrels


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    buffer = bytearray(data)
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(buffer)))
        token = draw(st.sampled_from(TOKENS))
        operation = draw(st.sampled_from(["insert", "replace", "delete"]))
        if operation == "insert":
            buffer[at:at] = token
        elif operation == "replace":
            buffer[at : at + len(token) or at + 1] = token
        else:
            del buffer[at : at + draw(st.integers(1, 3))]
    return bytes(buffer)


def trec_text(run: Run) -> bytes:
    lines = [
        f"{query} Q0 {doc} {rank} {score} fuzz"
        for query, docs in run.items()
        for rank, (doc, score) in enumerate(docs.items(), start=1)
    ]
    return ("\n".join(lines) + "\n").encode()


def csv_text(run: Run) -> bytes:
    rows = [f"{q},{d},{s}" for q, docs in run.items() for d, s in docs.items()]
    return ("query_id,doc_id,score\n" + "\n".join(rows) + "\n").encode()


def json_text(run: Run) -> bytes:
    return json.dumps(run, ensure_ascii=False).encode()


# --- the independent reader ------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _id(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise Refused(f"id {value!r}")
    text = str(value)
    if not text or _CONTROL.search(text) or text != text.strip(" "):
        raise Refused(f"id {text!r}")
    return text


def _score(value: Any) -> float:
    if isinstance(value, bool):
        raise Refused(f"score {value!r}")
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise Refused(f"score {value!r}") from None
    if isinstance(value, str) and ("_" in value or value != value.strip()):
        raise Refused(f"score {value!r}")  # Python reads '1_0' and ' 1'; Polars does not
    if not math.isfinite(score):
        raise Refused(f"score {value!r}")
    return score


def _add(run: Run, query: Any, doc: Any, score: Any) -> None:
    query_id, doc_id = _id(query), _id(doc)
    if doc_id in run.setdefault(query_id, {}):
        raise Refused(f"duplicate {query_id} {doc_id}")
    run[query_id][doc_id] = _score(score)


def _text(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8") from None
    return text.removeprefix("\ufeff")


def _lines(text: str) -> list[str]:
    if "\r" in text and "\n" not in text:
        return text.split("\r")
    return [line.removesuffix("\r") for line in text.split("\n")]


def read_trec(data: bytes) -> Run:
    """trec_eval's layout with rankset's documented comments: six or more blank-separated
    fields (the rest ignored), blanks being space, tab, CR, VT and FF; blank lines and
    lines starting with ``#`` skipped; the rank an integer."""
    run: Run = {}
    for line in _lines(_text(data)):
        fields = [f for f in re.split(r"[ \t\r\x0b\x0c]+", line) if f]
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 6:
            raise Refused(f"{len(fields)} fields")
        try:
            int(fields[3])
        except ValueError:
            raise Refused(f"rank {fields[3]!r}") from None
        if "_" in fields[3]:
            raise Refused(f"rank {fields[3]!r}")
        _add(run, fields[0], fields[2], fields[4])
    if not run:
        raise Refused("no data lines")
    return run


def read_csv(data: bytes) -> Run:
    text = _text(data).replace("\r\n", "\n").replace("\r", "\n")  # universal line ends
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    except csv.Error as error:
        raise Refused(str(error)) from None
    if not rows or [name.lower() for name in rows[0]] != ["query_id", "doc_id", "score"]:
        raise Refused(f"header {rows[:1]}")
    run: Run = {}
    for row in rows[1:]:
        if len(row) != 3:
            raise Refused(f"row {row}")
        _add(run, *row)
    if not run:
        raise Refused("no rows")
    return run


def read_json(data: bytes) -> Run:
    try:
        document = json.loads(_text(data))
    except (ValueError, RecursionError):
        raise Refused("not JSON") from None
    if not isinstance(document, dict) or not document:
        raise Refused("not a ranx run")
    run: Run = {}
    for query, docs in document.items():
        if not isinstance(docs, dict) or not docs:
            raise Refused(f"query {query!r}")
        for doc, score in docs.items():
            if isinstance(score, str):
                raise Refused(f"score {score!r}")
            _add(run, query, doc, score)
    return run


# --- the property ----------------------------------------------------------------------


def _check(
    tmp_path: Path,
    name: str,
    data: bytes,
    qrels: Qrels,
    read_reference: Callable[[bytes], Run],
    worker: PytrecEvalWorker,
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    try:
        result = rankset.evaluate(path, qrels, METRICS, confidence=None, score_precision="float32")
    except rankset.RanksetError:
        return  # a clean refusal, whatever the reference thinks
    try:
        run = read_reference(data if not name.endswith(".gz") else gzip.decompress(data))
    except Refused as refusal:
        pytest.fail(f"rankset read what it should refuse ({refusal}): {data!r}")
    expected: Values = reference(worker, qrels, run, relevance_level=1, cutoffs=CUTOFFS)
    got = {
        (query, metric): value
        for query, metric, value in result.per_query.select(
            "query_id", "metric", "value"
        ).iter_rows()
    }
    want = {
        (query, str(canonical_metric(measure))): values[measure]
        for query, values in expected.items()
        for measure in TREC_NAMES
    }
    assert set(got) == set(want), f"{data!r}"
    for key, value in want.items():
        assert got[key] is not None, f"{key}: {data!r}"
        assert abs(got[key] - value) <= 1e-9, f"{key}: {data!r}"


@FUZZ_SETTINGS
@given(data=st.data(), run=clean_runs(), compressed=st.booleans())
def test_mutated_trec_runs_fail_cleanly_or_equal_pytrec_eval(
    data: st.DataObject,
    run: Run,
    compressed: bool,
    tmp_path: Path,
    pytrec_worker: PytrecEvalWorker,
) -> None:
    text = data.draw(mutated(trec_text(run)))
    name, payload = ("run.trec.gz", gzip.compress(text)) if compressed else ("run.trec", text)
    _check(tmp_path, name, payload, labels_for(run), read_trec, pytrec_worker)


@FUZZ_SETTINGS
@given(data=st.data(), run=clean_runs())
def test_mutated_csv_runs_fail_cleanly_or_equal_pytrec_eval(
    data: st.DataObject, run: Run, tmp_path: Path, pytrec_worker: PytrecEvalWorker
) -> None:
    text = data.draw(mutated(csv_text(run)))
    _check(tmp_path, "run.csv", text, labels_for(run), read_csv, pytrec_worker)


@FUZZ_SETTINGS
@given(data=st.data(), run=clean_runs())
def test_mutated_json_runs_fail_cleanly_or_equal_pytrec_eval(
    data: st.DataObject, run: Run, tmp_path: Path, pytrec_worker: PytrecEvalWorker
) -> None:
    text = data.draw(mutated(json_text(run)))
    _check(tmp_path, "run.json", text, labels_for(run), read_json, pytrec_worker)
