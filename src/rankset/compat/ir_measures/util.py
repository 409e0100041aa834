"""ir_measures' ``util``: named tuples, TREC readers, measure parsers and input converters.

``Qrel``, ``ScoredDoc``, ``Metric`` and ``CalcResults`` are ir_measures' named tuples;
:func:`read_trec_qrels` and :func:`read_trec_run` yield them from a path (``.gz`` too),
an open file or the text itself; :func:`parse_measure` reads ``P(rel=2)@5`` and
:func:`parse_trec_measure` trec_eval's names (``ndcg_cut.10``, ``P``, ``official``);
``QrelsConverter`` and ``RunConverter`` turn dicts, frames and iterables of named tuples
into each other, as ir_measures' do. The deprecated names (``GenericQrel``,
``parse_trec_qrels``, ``convert_trec_name``...) warn as there.
"""

from __future__ import annotations

import ast
import contextlib
import gzip
import io
import itertools
import re
import tempfile
import warnings
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import IO, Any, NamedTuple

from rankset.compat.ir_measures import measures as _measures

__all__ = [
    "TYPE_QREL",
    "TYPE_RUN",
    "CalcResults",
    "GenericQrel",
    "GenericScoredDoc",
    "Metric",
    "Qrel",
    "QrelsConverter",
    "RunConverter",
    "ScoredDoc",
    "convert_trec_name",
    "parse_measure",
    "parse_trec_measure",
    "parse_trec_qrels",
    "parse_trec_run",
    "read_trec_qrels",
    "read_trec_run",
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
    """One value of one measure on one query."""

    query_id: str
    measure: _measures.Measure
    value: float


class CalcResults(NamedTuple):
    """What ``calc`` returns: the aggregates and the per-query values."""

    aggregated: dict[_measures.Measure, float] | float
    per_query: list[Metric]


class GenericQrel(Qrel):
    """ir_measures' older name of :class:`Qrel` (deprecated there since 0.2.0)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> GenericQrel:
        """Make a ``Qrel``, warning that the name is deprecated."""
        warnings.warn(
            "GenericQrel deprecated in 0.2.0. Please use ir_measures.Qrel instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return super().__new__(cls, *args, **kwargs)


class GenericScoredDoc(ScoredDoc):
    """ir_measures' older name of :class:`ScoredDoc` (deprecated there since 0.2.0)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> GenericScoredDoc:
        """Make a ``ScoredDoc``, warning that the name is deprecated."""
        warnings.warn(
            "GenericScoredDoc deprecated in 0.2.0. Please use ir_measures.ScoredDoc instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return super().__new__(cls, *args, **kwargs)


TYPE_QREL = Iterable[Qrel] | dict[str, dict[str, int]] | Any
TYPE_RUN = Iterable[ScoredDoc] | dict[str, dict[str, float]] | Any


def _lines(file: Any) -> Iterator[str]:
    """Yield the lines of an open file, of text holding a newline, or of a path (``.gz`` too)."""
    if hasattr(file, "read"):
        yield from file
    elif isinstance(file, str) and "\n" in file:
        yield from io.StringIO(file)
    elif isinstance(file, str):
        opener = gzip.open if file.endswith(".gz") else open
        with opener(file, "rt") as handle:
            yield from handle


def read_trec_qrels(file: Any) -> Iterator[Qrel]:
    r"""Yield the ``Qrel`` tuples of a TREC qrels file, as ir_measures reads it.

    Examples
    --------
    >>> list(read_trec_qrels("q1 0 d1 2\nq1 A d2 0\n"))[1]
    Qrel(query_id='q1', doc_id='d2', relevance=0, iteration='A')
    """
    for line in _lines(file):
        if line.strip():
            query_id, iteration, doc_id, relevance = line.split()
            yield Qrel(query_id, doc_id, int(relevance), iteration)


def read_trec_run(file: Any) -> Iterator[ScoredDoc]:
    r"""Yield the ``ScoredDoc`` tuples of a TREC run file, as ir_measures reads it.

    Examples
    --------
    >>> list(read_trec_run("q1 Q0 d1 1 2.5 bm25\n"))
    [ScoredDoc(query_id='q1', doc_id='d1', score=2.5)]
    """
    for line in _lines(file):
        if line.strip():
            query_id, _, doc_id, _, score, _ = line.split()
            yield ScoredDoc(query_id, doc_id, float(score))


def parse_trec_qrels(file: Any) -> Iterator[Qrel]:
    """Return :func:`read_trec_qrels` (deprecated in ir_measures 0.2.0)."""
    warnings.warn(
        "parse_trec_qrels deprecated in 0.2.0. Please use ir_measures.read_trec_qrels() instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return read_trec_qrels(file)


def parse_trec_run(file: Any) -> Iterator[ScoredDoc]:
    """Return :func:`read_trec_run` (deprecated in ir_measures 0.2.0)."""
    warnings.warn(
        "parse_trec_run deprecated in 0.2.0. Please use ir_measures.read_trec_run() instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return read_trec_run(file)


_PARSE_ERROR = "problem parsing measure {}; must be in format Measure(k1=v1, k2=v2)@c"


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True) if k}
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str | bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    raise ValueError(_PARSE_ERROR.format("values must be str, float, int, bool, etc."))


def parse_measure(measure: str | _measures.Measure) -> _measures.Measure:
    """Parse a measure written as ir_measures writes it (``P(rel=2)@5``, ``IPrec@0.5``).

    A name that is no measure raises ``NameError`` and malformed text ``ValueError``,
    as in ir_measures.

    Examples
    --------
    >>> parse_measure("P(rel=2)@5"), parse_measure("IPrec@0.5"), parse_measure("SetF(beta=2.0)")
    (P(rel=2)@5, IPrec@0.5, SetF(beta=2.0))
    """
    if isinstance(measure, _measures.Measure):
        return measure
    try:
        body = ast.parse(measure.strip()).body
    except SyntaxError as error:
        raise ValueError(_PARSE_ERROR.format(error)) from None
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        raise ValueError(_PARSE_ERROR.format("not a single expression"))
    node = body[0].value
    at: Any = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = _value(node.right), node.left
    params: dict[str, Any] = {}
    if isinstance(node, ast.Call):
        if node.args:
            raise ValueError(_PARSE_ERROR.format("args must be named"))
        params = {str(k.arg): _value(k.value) for k in node.keywords}
        node = node.func
    if not isinstance(node, ast.Name):
        raise ValueError(_PARSE_ERROR.format("unexpected expression"))
    if node.id not in _measures.registry:
        msg = f"measure not found: {node.id}"
        raise NameError(msg)
    found = _measures.registry[node.id]
    if at is not None:
        params[found.AT_PARAM] = at
    return found(**params) if params else found


# trec_eval's names: (measure, the parameter its numbers set, trec_eval's default numbers)
_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
_RECALLS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
_TREC_NAMES: dict[str, tuple[_measures.Measure | None, str | None, list[Any] | None]] = {
    "ndcg": (_measures.nDCG, None, None),
    "P": (_measures.P, "cutoff", _CUTOFFS),
    "map_cut": (_measures.AP, "cutoff", _CUTOFFS),
    "set_map": (_measures.SetAP, None, None),
    "set_P": (_measures.SetP, None, None),
    "infAP": (_measures.infAP, None, None),
    "bpref": (_measures.Bpref, None, None),
    "num_rel_ret": (_measures.NumRelRet, None, None),
    "recip_rank": (_measures.RR, None, None),
    "recall": (_measures.R, "cutoff", _CUTOFFS),
    "set_recall": (_measures.SetR, None, None),
    "set_relative_P": (_measures.SetRelP, None, None),
    "num_ret": (_measures.NumRet, None, None),
    "num_rel": (_measures.NumRel, None, None),
    "ndcg_cut": (_measures.nDCG, "cutoff", _CUTOFFS),
    "Rprec": (_measures.Rprec, None, None),
    "num_q": (_measures.NumQ, None, None),
    "map": (_measures.AP, None, None),
    "success": (_measures.Success, "cutoff", [1, 5, 10]),
    "set_F": (_measures.SetF, "beta", [1.0]),
    "iprec_at_recall": (_measures.IPrec, "recall", _RECALLS),
    # trec_eval measures ir_measures has no measure for
    **dict.fromkeys(
        [
            "Rndcg",
            "num_nonrel_judged_ret",
            "11pt_avg",
            "relative_P",
            "gm_map",
            "binG",
            "ndcg_rel",
            "utility",
            "Rprec_mult",
            "relstring",
            "gm_bpref",
            "G",
        ],
        (None, None, None),
    ),
}
_TREC_PARAMETERS = r"[\._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"


def parse_trec_measure(measure: str) -> list[_measures.Measure]:
    """Return the measures a trec_eval name stands for, as ir_measures reads it.

    ``P`` gives P at trec_eval's nine cutoffs, ``ndcg_cut.10,20`` two nDCGs, a nickname
    (``official``) its members that ir_measures has (the others are named on stdout).

    Examples
    --------
    >>> parse_trec_measure("ndcg_cut.10,20"), parse_trec_measure("map")
    ([nDCG@10, nDCG@20], [AP])
    """
    from rankset.compat.pytrec_eval import supported_nicknames

    if measure in supported_nicknames:
        found: list[_measures.Measure] = []
        skipped = []
        for member in sorted(supported_nicknames[measure]):
            try:
                found += parse_trec_measure(member)
            except ValueError:
                if member != "runid":
                    skipped.append(member)
        if skipped:
            print(f"skipped {skipped}: measures not yet supported")
        return found
    if measure in _TREC_NAMES:
        base, name, defaults = _TREC_NAMES[measure]
        if base is None:
            msg = f"known trec name {measure}, but not yet supported"
            raise ValueError(msg)
        if name is not None and defaults is not None:
            return [base(**{name: value}) for value in defaults]
        return [base]
    for trec_name, (base, name, _) in _TREC_NAMES.items():
        match = re.match(re.escape(trec_name) + _TREC_PARAMETERS, measure)
        if match is None:
            continue
        if base is None:
            msg = f"known trec name {measure}, but not yet supported"
            raise ValueError(msg)
        if name is None:
            msg = f"unknown argument for {measure}: {match.group(1)}"
            raise ValueError(msg)
        dtype = base.SUPPORTED_PARAMS[name].dtype or float
        return [base(**{name: dtype(value)}) for value in match.group(1).split(",")]
    msg = f"unkonwn measure {measure}"  # sic: ir_measures' message
    raise ValueError(msg)


def convert_trec_name(measure: str) -> list[_measures.Measure]:
    """Return :func:`parse_trec_measure` (deprecated in ir_measures 0.2.0)."""
    warnings.warn(
        "convert_trec_name deprecated in 0.2.0. Please use ir_measures.parse_trec_measure() "
        "instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return parse_trec_measure(measure)


def _fields_of(item: Any, wanted: tuple[str, ...]) -> list[str]:
    fields = getattr(item, "_fields", None)
    return [] if fields is None else [f for f in wanted if f not in fields]


class _Converter:
    """What QrelsConverter and RunConverter share: the kind of input, told once."""

    FIELDS: tuple[str, ...] = ()
    OPTIONAL: tuple[str, ...] = ()
    TUPLE: Any = tuple
    WHAT = ""

    def __init__(self, data: Any, strict: bool = True) -> None:
        self.data = data
        self.strict = strict
        self._predicted: tuple[str, str | None] | None = None

    def predict_type(self) -> tuple[str, str | None]:
        """Return ``('dict_of_dict' | 'pd_dataframe' | 'namedtuple_iter' | 'UNKNOWN', error)``."""
        if self._predicted is not None:
            return self._predicted
        kind, error = "UNKNOWN", None
        required = tuple(f for f in self.FIELDS if f not in self.OPTIONAL)
        if isinstance(self.data, dict):
            kind = "dict_of_dict"
        elif hasattr(self.data, "itertuples"):
            missing = [f for f in required if f not in self.data.columns]
            if missing and self.strict:
                error = f"DataFrame missing columns: {missing} (found {list(self.data.columns)})"
            else:
                kind = "pd_dataframe"
        elif hasattr(self.data, "__iter__"):
            self.data, peek = itertools.tee(self.data, 2)
            sentinel = object()
            item = next(peek, sentinel)
            if item is sentinel:
                kind = "namedtuple_iter"
            elif isinstance(item, tuple) and hasattr(item, "_fields"):
                missing = _fields_of(item, required)
                if missing:
                    error = (
                        f"namedtuple iter missing fields: {missing} (found {list(item._fields)})"
                    )
                else:
                    kind = "namedtuple_iter"
            else:
                error = "iterable not a namedtuple iterator"
        else:
            error = (
                "unexpected format; please provide either: (1) an iterable of namedtuples "
                f"(fields {required}, e.g., from ir_measures.{self.TUPLE.__name__}); "
                f"(2) a pandas DataFrame with columns {required}; "
                "or (3) a dict-of-dict"
            )
        self._predicted = (kind, error)
        return self._predicted

    def tee(self, count: int) -> list[Any]:
        """Return ``count`` converters over the same input (a one-pass iterator is split)."""
        if self.predict_type()[0] == "namedtuple_iter":
            return [type(self)(copy) for copy in itertools.tee(self.data, count)]
        return [self for _ in range(count)]

    def as_namedtuple_iter(self) -> Iterator[Any]:
        """Yield the input as named tuples."""
        kind, error = self.predict_type()
        if kind == "namedtuple_iter":
            yield from self.data
        elif kind == "dict_of_dict":
            for query_id, docs in self.data.items():
                for doc_id, value in docs.items():
                    yield self.TUPLE(query_id, doc_id, value)
        elif kind == "pd_dataframe":
            columns = [f for f in self.FIELDS if f in self.data.columns]
            for row in self.data.itertuples():
                yield self.TUPLE(*(getattr(row, f) for f in columns))
        else:
            msg = f"unknown {self.WHAT} format: {error}"
            raise ValueError(msg)

    def as_dict_of_dict(self) -> dict[str, dict[str, Any]]:
        """Return the input as ``{query_id: {doc_id: value}}``."""
        if self.predict_type()[0] == "dict_of_dict":
            return dict(self.data)
        result: dict[str, dict[str, Any]] = {}
        for item in self.as_namedtuple_iter():
            result.setdefault(item.query_id, {})[item.doc_id] = item[2]
        return result

    def as_pd_dataframe(self) -> Any:
        """Return the input as a pandas frame with ir_measures' columns."""
        from rankset._dependencies import import_optional

        pd = import_optional("pandas", extra="pandas", purpose="A pandas frame of ir_measures'")
        if self.predict_type()[0] == "pd_dataframe":
            return self._frame_as_given()
        frame = pd.DataFrame(list(self.as_namedtuple_iter()))
        if len(frame) == 0:
            frame = pd.DataFrame([], columns=list(self.FIELDS))
        return frame

    def _frame_as_given(self) -> Any:
        return self.data


class QrelsConverter(_Converter):
    """Qrels in any of ir_measures' forms: a dict of dicts, a frame, ``Qrel`` tuples.

    Examples
    --------
    >>> converter = QrelsConverter({"q1": {"d1": 1}})
    >>> converter.predict_type(), list(converter.as_namedtuple_iter())
    (('dict_of_dict', None), [Qrel(query_id='q1', doc_id='d1', relevance=1, iteration='0')])
    """

    FIELDS = ("query_id", "doc_id", "relevance", "iteration")
    OPTIONAL = ("iteration",)
    TUPLE = Qrel
    WHAT = "qrels"

    @property
    def qrels(self) -> Any:
        """The qrels as given."""
        return self.data

    def _frame_as_given(self) -> Any:
        if "iteration" not in self.data.columns:
            return self.data.assign(iteration=["0"] * len(self.data))
        return self.data

    @contextlib.contextmanager
    def as_tmp_file(self) -> Iterator[IO[str]]:
        """Write the qrels to a temporary TREC file and yield it, open at its start."""
        with tempfile.NamedTemporaryFile(mode="w+t") as handle:
            for qrel in self.as_namedtuple_iter():
                handle.write(f"{qrel.query_id} 0 {qrel.doc_id} {qrel.relevance}\n")
            handle.flush()
            handle.seek(0)
            yield handle


class RunConverter(_Converter):
    """Runs in any of ir_measures' forms: a dict of dicts, a frame, ``ScoredDoc`` tuples.

    Examples
    --------
    >>> run = [ScoredDoc("q1", "a", 1.0), ScoredDoc("q1", "b", 2.0)]
    >>> [doc.doc_id for doc in RunConverter(run).as_sorteddict()["q1"]]
    ['b', 'a']
    """

    FIELDS = ("query_id", "doc_id", "score")
    TUPLE = ScoredDoc
    WHAT = "run"

    @property
    def run(self) -> Any:
        """The run as given."""
        return self.data

    def as_sorted_namedtuple_iter(self) -> Iterator[ScoredDoc]:
        """Yield each query's documents by score, best first (queries as they come)."""
        query, items = None, []
        for item in self.as_namedtuple_iter():
            if query is not None and item.query_id != query:
                yield from sorted(items, key=lambda x: x.score, reverse=True)
                items = []
            query = item.query_id
            items.append(item)
        yield from sorted(items, key=lambda x: x.score, reverse=True)

    def as_sorteddict(self) -> dict[str, list[ScoredDoc]]:
        """Return ``{query_id: [ScoredDoc, ...]}``, each list by score, best first."""
        by_query: defaultdict[str, list[ScoredDoc]] = defaultdict(list)
        for item in self.as_namedtuple_iter():
            by_query[item.query_id].append(item)
        return {
            q: sorted(docs, key=lambda x: x.score, reverse=True) for q, docs in by_query.items()
        }

    @contextlib.contextmanager
    def as_tmp_file(self) -> Iterator[IO[str]]:
        """Write the run to a temporary TREC file and yield it, open at its start."""
        with tempfile.NamedTemporaryFile(mode="w+t") as handle:
            ranks: dict[str, int] = {}
            for item in self.as_namedtuple_iter():
                rank = ranks.get(item.query_id, 0)
                handle.write(f"{item.query_id} Q0 {item.doc_id} {rank} {item.score} run\n")
                ranks[item.query_id] = rank + 1
            handle.flush()
            handle.seek(0)
            yield handle
