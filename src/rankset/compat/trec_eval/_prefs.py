"""trec_eval's preference measures: ``-R prefs`` and ``-R qrels_prefs`` (10.0 and 9.0.8).

Inside a judgment sub-group (JSG) a document is preferred to every document of a lower
level; a judgment group (JG) of one JSG keeps its levels as equivalence classes (EC), one
of several JSGs the transitive closure of their preferences (PA). As ``form_prefs_counts.c``
does, each JG's preferences are counted as fulfilled or not among retrieved documents,
between a retrieved and an unretrieved one and between unretrieved ones, and how many JGs
prefer one document to another; the 14 ``prefs_*`` measures are ratios of those counts,
computed exactly and added in trec_eval's order, so their values print as trec_eval's do.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import polars as pl

from rankset.compat.trec_eval._options import PREFS, TrecEvalError, atof, read_label_fields

__all__ = ["COUNT_MEASURES", "PREFERENCE_MEASURES", "preference_values", "read_preferences"]

#: The preference measures in trec_eval's table (and print) order.
PREFERENCE_MEASURES: tuple[str, ...] = PREFS
#: The measures trec_eval prints as longs (``%ld``) and sums (not averages) over queries.
COUNT_MEASURES: tuple[str, ...] = PREFERENCE_MEASURES[:3]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

_FIELDS = {"prefs": 5, "qrels_prefs": 4}
_VERSIONS = ("10.0", "9.0.8")
_UNDEFINED = "rankset trec_eval: "


def read_preferences(path: str, rel_format: str, version: str) -> pl.DataFrame:
    """Read a ``-R prefs`` or ``-R qrels_prefs`` file as trec_eval's ``get_prefs.c`` does.

    Lines need exactly 5 or 4 fields split on C's ``isspace`` (a blank line is malformed);
    10.0 skips a line starting with ``#`` but reads the next one as data, whatever it is;
    9.0.8 has no comments. Levels are read with ``atof``.

    Parameters
    ----------
    path : str
        The rel file.
    rel_format : str
        ``"prefs"`` (``qid jg jsg docno level``) or ``"qrels_prefs"`` (``qid jg docno
        level``, JSG ``"0"``).
    version : str
        ``"10.0"`` or ``"9.0.8"`` (levels rounded to float32).

    Returns
    -------
    pl.DataFrame
        ``query_id``, ``jg``, ``jsg``, ``doc_id`` and ``level`` (Float64), in file order.

    Raises
    ------
    TrecEvalError
        trec_eval's lines and status 2 for an unreadable or empty file or a malformed
        line; status 1 (``rankset trec_eval: ...``) where trec_eval is undefined: a NUL
        byte, or a comment as the last line (10.0 crashes).
    """
    if rel_format not in _FIELDS or version not in _VERSIONS:
        raise ValueError(f"unknown preference format {rel_format!r} or version {version!r}")
    reader = "get_prefs" if rel_format == "prefs" else "get_qrels_prefs"
    rows = read_label_fields(
        path,
        reader=reader,
        what="prefs",
        width=_FIELDS[rel_format],
        version=version,
        opener="get_prefs",  # both formats open the file with get_prefs
    )
    columns = list(zip(*rows, strict=True))
    parsed: dict[bytes, float] = {}
    levels = np.array([parsed.setdefault(t, atof(t)) for t in columns[-1]], dtype=np.float64)
    if version == "9.0.8":
        levels = levels.astype(np.float32).astype(np.float64)

    def text(values: tuple[bytes, ...]) -> list[str]:
        return [value.decode("utf-8", "replace") for value in values]

    return pl.DataFrame(
        {
            "query_id": text(columns[0]),
            "jg": text(columns[1]),
            "jsg": text(columns[2]) if rel_format == "prefs" else ["0"] * len(rows),
            "doc_id": text(columns[-2]),
            "level": levels,
        }
    )


@dataclass
class _Group:
    """A judgment group's counts, and its EC ids per level or its PA closure and levels."""

    name: str
    ful_ret: int
    poss_ret: int
    ful_imp: int
    poss_imp: int
    notoccur: int
    rel: int
    rel_ret: int
    nonrel: int
    nonrel_ret: int
    ecs: list[IntArray] | None = None
    ids: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    closure: BoolArray = field(default_factory=lambda: np.zeros((0, 0), dtype=bool))
    final: FloatArray = field(default_factory=lambda: np.zeros(0))

    @property
    def ful(self) -> int:
        return self.ful_ret + self.ful_imp

    @property
    def poss(self) -> int:
        return self.poss_ret + self.poss_imp + self.notoccur


def _totals(*parts: IntArray | BoolArray) -> tuple[int, int, int, int]:
    """Sum each of four arrays (the relevant / nonrelevant counts of a group)."""
    rel, rel_ret, nonrel, nonrel_ret = (int(part.sum()) for part in parts)
    return rel, rel_ret, nonrel, nonrel_ret


def _ascending_pairs(seq: IntArray) -> int:
    """Count the pairs ``i < j`` with ``seq[i] < seq[j]`` (bottom-up merge, vectorised)."""
    n = len(seq)
    if n < 2:
        return 0
    keys = seq.astype(np.int64) - int(seq.min())
    span = int(keys.max()) + 1
    position = np.arange(n, dtype=np.int64)
    total = 0
    width = 1
    while width < n:
        block = position // width
        pair = block // 2
        right = (block % 2).astype(bool)
        left_keys = pair[~right] * span + keys[~right]  # sorted: blocks are sorted
        base = pair[right] * span
        below = np.searchsorted(left_keys, base + keys[right]) - np.searchsorted(left_keys, base)
        total += int(below.sum())
        keys = np.sort(pair * span + keys) - pair * span
        width *= 2
    return total


def _pairs_across(sizes: IntArray, other: IntArray | None = None) -> int:
    """``sum over a < b of sizes[a] * other[b]`` (``other`` defaults to ``sizes``)."""
    return int(np.dot(np.cumsum(sizes) - sizes, sizes if other is None else other))


def _concordant(ecs: list[IntArray]) -> int:
    """Pairs ``d1`` of a higher class, ``d2`` of a lower one, with ``d1 < d2``."""
    if len(ecs) < 2:
        return 0
    ids = np.concatenate(ecs)
    classes = np.repeat(np.arange(len(ecs)), [len(ec) for ec in ecs])
    return _ascending_pairs(classes[np.argsort(ids, kind="stable")])


def _form_ec(name: str, ids: IntArray, levels: FloatArray, njr: int) -> _Group:
    """Form an EC group (one JSG): ``form_jg_ec`` and ``add_ec_pref_to_jg``."""
    new_class = np.r_[True, levels[1:] != levels[:-1]]
    starts = np.flatnonzero(new_class)
    ecs = np.split(ids, starts[1:])
    ec_of = np.cumsum(new_class) - 1
    # the same doc at two levels: the first (higher class, lower class, id) pair met
    k = len(ecs)
    unique = np.unique(ids * k + ec_of)
    uid, uec = unique // k, unique % k
    again = np.flatnonzero(uid[1:] == uid[:-1])
    if len(again):
        first = again[np.r_[True, uid[again[1:]] != uid[again[:-1]]]]
        best = np.lexsort((uid[first], uec[first + 1], uec[first]))[0]
        msg = (
            f"trec_eval.form_prefs_counts: Internal docid {uid[first[best]]} occurs with "
            "different rel_level in same jsg"
        )
        raise TrecEvalError(msg, 4)
    sizes = np.diff(np.r_[starts, len(ids)])
    ret = np.add.reduceat((ids < njr).astype(np.int64), starts)
    unret = sizes - ret
    relevant = levels[starts] > 0.0
    ful_ret, ful_imp = _concordant([ec[ec < njr] for ec in ecs]), _pairs_across(ret, unret)
    fails = _pairs_across(unret, ret)
    counts = (ful_ret, _pairs_across(ret), ful_imp, fails + ful_imp, _pairs_across(unret))
    stats = _totals(sizes[relevant], ret[relevant], sizes[~relevant], ret[~relevant])
    return _Group(name, *counts, *stats, ecs=ecs)


def _closure(matrix: BoolArray) -> BoolArray:
    """Reflexive-transitive closure (Warshall, a row operation per intermediate)."""
    np.fill_diagonal(matrix, True)
    for k in range(len(matrix)):
        rows = matrix[:, k]
        if rows.sum() > 1 and matrix[k].sum() > 1:
            matrix[rows] |= matrix[k]
    np.fill_diagonal(matrix, False)
    return matrix


def _form_pa(
    name: str, ids: IntArray, levels: FloatArray, jsgs: IntArray, docnos: list[str], njr: int
) -> _Group:
    """Form a PA group (several JSGs): ``form_jg_pa``, ``add_transitives`` and the counts."""
    n = len(ids)
    by_id = np.lexsort((np.arange(n), ids))
    sorted_ids, sorted_levels = ids[by_id], levels[by_id]
    same = sorted_ids[1:] == sorted_ids[:-1]
    previous = np.full(n, -1.0)
    previous[1:][same] = sorted_levels[:-1][same]
    before = np.empty(n)
    before[by_id] = previous
    mixed = ((before > 0.0) & (levels == 0.0)) | ((before == 0.0) & (levels > 0.0))
    if mixed.any():
        doc = docnos[int(np.argmax(mixed))]
        msg = f"trec_eval.form_prefs_counts: doc '{doc}' has both 0 and non-0 rel_level assigned"
        raise TrecEvalError(msg, 4)
    last = np.r_[~same, True]
    group_ids, final = sorted_ids[last], sorted_levels[last]
    # every line over every later line of its JSG with a lower level
    starts = np.flatnonzero(np.r_[True, jsgs[1:] != jsgs[:-1]])
    sizes = np.diff(np.r_[starts, n])
    span = np.repeat(sizes, sizes)
    first = np.repeat(np.repeat(starts, sizes), span)
    higher = np.repeat(np.arange(n), span)
    lower = first + np.arange(len(higher)) - np.repeat(np.cumsum(span) - span, span)
    keep = levels[higher] > levels[lower]
    at = np.searchsorted(group_ids, ids)
    matrix = np.zeros((len(group_ids), len(group_ids)), dtype=bool)
    matrix[at[higher[keep]], at[lower[keep]]] = True
    matrix = _closure(matrix)
    both = matrix & matrix.T
    if both.any():
        i, j = np.argwhere(both)[0]
        msg = (
            "trec_eval.form_prefs_counts: Pref inconsistency found\n"
            f"      internal rank {group_ids[i]} and internal rank {group_ids[j]} are conflicted"
        )
        raise TrecEvalError(msg, 134)
    rows, cols = np.nonzero(matrix)
    di, dj = group_ids[rows], group_ids[cols]
    ri, rj = di < njr, dj < njr
    ful_ret, ful_imp = int((ri & rj & (dj > di)).sum()), int((ri & ~rj).sum())
    fails = int((ri & (dj < di)).sum()), int((~ri & rj).sum()), int((~ri & ~rj).sum())
    relevant, nonrelevant, retrieved = final > 0.0, final == 0.0, group_ids < njr
    stats = _totals(relevant, relevant & retrieved, nonrelevant, nonrelevant & retrieved)
    counts = (ful_ret, fails[0] + ful_ret, ful_imp, fails[1] + ful_imp, fails[2])
    return _Group(name, *counts, *stats, None, group_ids, matrix, final)


def _pair_keys(group: _Group, nj: int) -> IntArray:
    """Return the ``i * nj + j`` of every ``C[i][j] += 1`` the group adds."""
    if group.ecs is None:
        rows, cols = np.nonzero(group.closure)
        return group.ids[rows] * nj + group.ids[cols]
    keys = []
    for a in range(len(group.ecs) - 1):
        rest = np.concatenate(group.ecs[a + 1 :])
        keys.append(np.repeat(group.ecs[a], len(rest)) * nj + np.tile(rest, len(group.ecs[a])))
    return np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)


def _c_sum(values: FloatArray, start: float = 0.0) -> float:
    """``start + v0 + v1 + ...`` added left to right, as a C loop adds doubles."""
    return float(np.add.accumulate(np.r_[start, values])[-1])


def _pair_values(groups: list[_Group], nj: int, njr: int) -> tuple[float, float, float]:
    """``prefs_pair``, ``prefs_pair_ret`` and ``prefs_pair_imp`` from the counts matrix."""
    keys, counts = np.unique(
        np.concatenate([_pair_keys(g, nj) for g in groups]), return_counts=True
    )
    counts = counts % 65536  # the matrix holds unsigned shorts
    i, j = keys // nj, keys % nj
    low, high = np.minimum(i, j), np.maximum(i, j)
    pairs, inverse = np.unique(low * nj + high, return_inverse=True)
    forward = np.bincount(inverse, weights=np.where(i < j, counts, 0), minlength=len(pairs))
    backward = np.bincount(inverse, weights=np.where(i > j, counts, 0), minlength=len(pairs))
    present = forward + backward > 0
    low, high = pairs // nj, pairs % nj
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = forward / (forward + backward)
    region_ret = present & (high < njr)
    region_imp = present & (low < njr) & (high >= njr)
    n_ret, n_imp = int(region_ret.sum()), int(region_imp.sum())
    n_all = int(present.sum())
    sum_ret = _c_sum(ratio[region_ret])
    sum_imp = _c_sum(ratio[region_imp], sum_ret)
    return (
        sum_imp / n_all if n_all else 0.0,
        sum_ret / n_ret if n_ret else 0.0,
        sum_imp / (n_ret + n_imp) if n_ret + n_imp else 0.0,
    )


def _ratio(ful: int, poss: int) -> float:
    """``(double) ful / (double) poss`` with C's results for a zero denominator."""
    if poss == 0:
        return math.nan if ful == 0 else math.copysign(math.inf, ful)
    return float(ful) / float(poss)


def _recalculate(group: _Group, njr: int, nj: int, retrieved_only: bool, where: str) -> float:
    """``recalculate`` of the ``Rnonrel`` measures: keep only the first R nonrelevant docs."""
    if group.ecs is None:
        limit = njr if retrieved_only else nj
        zeros = group.ids[(group.final == 0.0) & (group.ids < limit)]
        discarded = zeros[group.rel] if len(zeros) > group.rel else limit
        kept = ~((group.ids >= discarded) & (group.final == 0.0))
        rows, cols = np.nonzero(group.closure)
        use = kept[rows] & kept[cols]
        di, dj = group.ids[rows][use], group.ids[cols][use]
        if retrieved_only:
            inside = (di < njr) & (dj < njr)
            return _ratio(int((inside & (dj > di)).sum()), int(inside.sum()))
        return _ratio(int(((di < njr) & (dj > di)).sum()), len(di))
    ecs = [ec[ec < njr] for ec in group.ecs] if retrieved_only else group.ecs
    wanted = group.rel_ret if retrieved_only else group.rel
    lowest = group.ecs[-1]
    if wanted > len(lowest) and (not retrieved_only or len(ecs[-1]) == len(lowest)):
        msg = (
            f"{_UNDEFINED}{where}: judgment group '{group.name}' has fewer documents at its "
            f"lowest level ({len(lowest)}) than the {wanted} prefs_avgjg_Rnonrel"
            f"{'_ret' if retrieved_only else ''} takes from it; trec_eval then reads past "
            "them (undefined behaviour, possible only with negative levels)"
        )
        raise TrecEvalError(msg, 1)
    new = ecs[-1][:wanted]
    inner = ecs[:-1]
    sizes = np.array([len(ec) for ec in inner], dtype=np.int64)
    ful = _concordant(inner)
    if not retrieved_only:  # an unretrieved d1 never fulfils (all of them follow the rest)
        ful -= _concordant([ec[ec >= njr] for ec in inner])
    everything = np.concatenate(ecs)
    candidates = np.sort(everything[everything < njr])
    ful += int(np.searchsorted(candidates, new).sum())
    return _ratio(ful, _pairs_across(sizes) + len(everything) * len(new))


def _rnonrel(groups: list[_Group], njr: int, nj: int, retrieved_only: bool, where: str) -> float:
    """``prefs_avgjg_Rnonrel`` (or ``_ret``): no zero guard, so one 0/0 group gives 0."""
    total = 0.0
    for g in groups:
        rel, nonrel = (g.rel_ret, g.nonrel_ret) if retrieved_only else (g.rel, g.nonrel)
        if rel >= nonrel:
            ful = g.ful_ret if retrieved_only else g.ful
            poss = g.poss_ret if retrieved_only else g.poss
            total += _ratio(ful + g.rel_ret * (rel - nonrel), poss + g.rel * (rel - nonrel))
        else:
            total += _recalculate(g, njr, nj, retrieved_only, where)
    return total / len(groups) if total > 0.0 else 0.0


def _avgjg(pairs: list[tuple[int, int]]) -> float:
    """Average ``ful / poss`` over the groups (those with ``poss`` 0 add nothing)."""
    total = 0.0
    for ful, poss in pairs:
        if poss:
            total += float(ful) / float(poss)
    return total / len(pairs) if total > 0.0 else 0.0


def _query_values(
    groups: list[_Group], nj: int, njr: int, wanted: list[str], where: str
) -> dict[str, float]:
    """Compute the requested measures of one query from its groups (each measure's C code)."""
    ful = sum(g.ful for g in groups)
    poss = sum(g.poss for g in groups)
    ful_ret = sum(g.ful_ret for g in groups)
    poss_ret = sum(g.poss_ret for g in groups)
    poss_imp = sum(g.poss_ret + g.poss_imp for g in groups)
    values = {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": float(ful) / float(poss) if poss else 0.0,
        "prefs_simp_ret": float(ful_ret) / float(poss_ret) if poss_ret else 0.0,
        "prefs_simp_imp": float(ful) / float(poss_imp) if poss_imp else 0.0,
        "prefs_avgjg": _avgjg([(g.ful, g.poss) for g in groups]),
        "prefs_avgjg_ret": _avgjg([(g.ful_ret, g.poss_ret) for g in groups]),
        "prefs_avgjg_imp": _avgjg([(g.ful, g.poss_ret + g.poss_imp) for g in groups]),
    }
    if any(name.startswith("prefs_pair") for name in wanted):
        ecs = groups[0].ecs
        single = len(groups) == 1 and (
            ecs is None or sum(len(ec) for ec in ecs) == len(np.unique(np.concatenate(ecs)))
        )
        if single:  # C is 0/1, a preference per pair: the pair ratios are simp's counts
            pair = (values["prefs_simp"], values["prefs_simp_ret"], values["prefs_simp_imp"])
        else:
            pair = _pair_values(groups, nj, njr)
        values["prefs_pair"], values["prefs_pair_ret"], values["prefs_pair_imp"] = pair
    for name, retrieved_only in (("prefs_avgjg_Rnonrel", False), ("prefs_avgjg_Rnonrel_ret", True)):
        if name in wanted:
            values[name] = _rnonrel(groups, njr, nj, retrieved_only, where)
    return {name: values[name] for name in wanted}


def _prepare(
    prefs: pl.DataFrame, run: pl.DataFrame, max_depth: int | None
) -> tuple[pl.DataFrame, dict[str, str]]:
    """Rank the runs, number the judged docs (``id``, ``nj``, ``njr``), sort the lines.

    Also returns the first duplicate docno of each query whose kept ranking has one.
    """
    zero = pl.col("level") == 0.0  # -0.0 compares equal to 0.0 in C: one class
    lines = prefs.select(
        pl.col("query_id", "jg", "jsg", "doc_id"),
        level=pl.when(zero).then(0.0).otherwise(pl.col("level").cast(pl.Float64)),
    )
    score = pl.col("score").cast(pl.Float64)
    ranked = (
        run.select("query_id", "doc_id", score=pl.when(score == 0.0).then(0.0).otherwise(score))
        .join(lines.select("query_id").unique(), on="query_id", how="semi")
        .sort(["query_id", "score", "doc_id"], descending=[False, True, False])
        .with_columns(rank=pl.int_range(pl.len()).over("query_id"))
    )
    if lines["level"].is_nan().any() or ranked["score"].is_nan().any():
        msg = f"{_UNDEFINED}NaN levels or scores have no order in trec_eval's sorts; refused"
        raise TrecEvalError(msg, 1)
    if max_depth is not None:
        ranked = ranked.filter(pl.col("rank") < max(max_depth, 0))
    first_rank = ranked.group_by("query_id", "doc_id").agg(pl.len(), pl.col("rank").min())
    repeated = first_rank.filter(pl.col("len") > 1)
    duplicates = repeated.group_by("query_id").agg(pl.col("doc_id").min())
    judged = (
        lines.select("query_id", "doc_id")
        .unique()
        .join(first_rank.drop("len"), on=["query_id", "doc_id"], how="left")
        .sort(["query_id", "rank", "doc_id"], nulls_last=True)
        .with_columns(
            id=pl.int_range(pl.len()).over("query_id"),
            nj=pl.len().over("query_id"),
            njr=pl.col("rank").is_not_null().sum().over("query_id"),
        )
        .drop("rank")
    )
    lines = lines.join(judged, on=["query_id", "doc_id"], how="left").sort(
        ["query_id", "jg", "jsg", "level", "id"], descending=[False, False, False, True, False]
    )
    return lines, dict(zip(duplicates["query_id"], duplicates["doc_id"], strict=True))


def preference_values(
    prefs: pl.DataFrame, run: pl.DataFrame, measures: Sequence[str], *, max_depth: int | None
) -> pl.DataFrame:
    """Compute trec_eval's preference measures for every query of ``prefs``.

    Queries are evaluated in byte order of their ids; the first failing one raises. A
    query the run lacks has an empty ranking (as 10.0's ``-c`` stand-in). Pass only the
    queries trec_eval evaluates (9.0.8: those of the run; 10.0 without ``-c``: those
    before the first one the run lacks; ``-D 0.qid``: one).

    Parameters
    ----------
    prefs : pl.DataFrame
        :func:`read_preferences`' frame.
    run : pl.DataFrame
        ``query_id``, ``doc_id``, ``score`` (for 9.0.8 already rounded to float32).
    measures : Sequence[str]
        The requested names, a subset of :data:`PREFERENCE_MEASURES`.
    max_depth : int | None
        ``-M``: the top of each ranking (score descending, then docno ascending) kept;
        ``None`` all, a negative value none.

    Returns
    -------
    pl.DataFrame
        ``query_id``, ``measure`` (the printed name), ``value`` (Float64); queries in byte
        order, measures in table order.

    Raises
    ------
    TrecEvalError
        Status 4 with trec_eval's lines (the last ``trec_eval: Can't calculate measure
        '<first measure asked>'``) for a duplicate docno among the kept documents (no
        newline before that line, as in trec_eval), a doc at two levels of one JSG or at 0
        and non-0 in a PA group; status 134 for a PA preference cycle (trec_eval aborts;
        the stdout it loses is not modelled); status 1 (``rankset trec_eval: ...``) where
        trec_eval is undefined: NaN levels or scores, ``prefs_avgjg_Rnonrel*`` reading
        past a group's lowest level (possible with negative levels only).

    Examples
    --------
    >>> prefs = pl.DataFrame({"query_id": ["q"] * 3, "jg": ["u"] * 3, "jsg": ["s"] * 3,
    ...     "doc_id": ["a", "b", "c"], "level": [2.0, 1.0, 0.0]})
    >>> run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["b", "a"], "score": [2.0, 1.0]})
    >>> preference_values(prefs, run, ["prefs_simp", "prefs_simp_ret"], max_depth=None).rows()
    [('q', 'prefs_simp', 0.6666666666666666), ('q', 'prefs_simp_ret', 0.0)]
    """
    if unknown := sorted(set(measures) - set(PREFERENCE_MEASURES)):
        raise ValueError(f"not preference measures: {unknown}")
    wanted = [name for name in PREFERENCE_MEASURES if name in measures]
    schema = {"query_id": pl.String, "measure": pl.String, "value": pl.Float64}
    if not wanted or prefs.is_empty():
        return pl.DataFrame(schema=schema)
    cannot = f"trec_eval: Can't calculate measure '{wanted[0]}'"
    lines, duplicates = _prepare(prefs, run, max_depth)
    query_ids = lines["query_id"].to_list()
    jg_names, docnos = lines["jg"].to_list(), lines["doc_id"].to_list()
    keys = ("query_id", "jg", "jsg")
    changed = lines.select((pl.col(key) != pl.col(key).shift()).fill_null(True) for key in keys)
    new_query, new_jg, new_jsg = (changed[key].to_numpy() for key in keys)
    new_group = new_query | new_jg
    jsgs = np.cumsum(new_group | new_jsg)
    ids = lines["id"].to_numpy().astype(np.int64)
    levels = lines["level"].to_numpy().astype(np.float64)
    nj_of, njr_of = lines["nj"].to_numpy(), lines["njr"].to_numpy()
    query_starts = np.r_[np.flatnonzero(new_query), len(lines)]
    group_starts = np.flatnonzero(new_group)
    rows: list[tuple[str, str, float]] = []
    for start, end in itertools.pairwise(query_starts):
        query = query_ids[start]
        nj, njr = int(nj_of[start]), int(njr_of[start])
        if query in duplicates:  # trec_eval prints this line without its newline
            msg = f"trec_eval.form_prefs_counts: duplicate docs {duplicates[query]}"
            raise TrecEvalError(msg + cannot, 4)
        try:
            bounds = group_starts[(group_starts >= start) & (group_starts < end)]
            groups = []
            for a, b in zip(bounds, np.r_[bounds[1:], end], strict=True):
                if jsgs[a] == jsgs[b - 1]:
                    groups.append(_form_ec(jg_names[a], ids[a:b], levels[a:b], njr))
                else:
                    groups.append(
                        _form_pa(jg_names[a], ids[a:b], levels[a:b], jsgs[a:b], docnos[a:b], njr)
                    )
        except TrecEvalError as error:
            if error.status == 4:
                raise TrecEvalError(f"{error}\n{cannot}", 4) from None
            raise
        values = _query_values(groups, nj, njr, wanted, f"query '{query}'")
        rows.extend((query, name, value) for name, value in values.items())
    return pl.DataFrame(rows, schema=schema, orient="row")
