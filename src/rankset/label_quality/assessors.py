"""Agreement between label sets: how well a judge's grades match reference grades.

:func:`agreement` joins a reference label set (human assessors, say) with one or more
other label sets (LLM judges) on ``(query_id, doc_id)`` and reports, per judge, Cohen's
kappa (unweighted, linear and quadratic weights), kappa with the grades binarised at
each threshold (grade >= T is relevant, as LLMJudge reports 0|123, 01|23, 012|3),
Krippendorff's alpha (nominal and ordinal), the confusion matrix and the judge's
precision and recall per grade, with bootstrap confidence intervals over queries.

Every statistic is computed from the confusion matrix of the joined pairs, so the
bootstrap resamples whole queries by reweighting per-query confusion matrices (one
matrix product for all resamples), and no pair is ever counted twice.

The grades are categories: the reference's distinct grades, or ``grades=``. A judge's
grade outside them is an error that names the judge and the values; with
``out_of_scale="drop"`` those pairs are left out and counted (``n_out_of_scale``).
Pairs present on one side only are never compared, and counted
(``n_reference_only``: reference pairs the judge did not grade; ``n_judge_only``); a
pair left out as out of scale counts in ``n_out_of_scale`` only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from rankset import io as rio
from rankset._format import REPR_ROWS, ReprTable, counted, html_repr, text_repr
from rankset._validation import check_choice, check_int, check_resampling
from rankset.errors import ParameterError, SchemaError
from rankset.schema import normalize_labels
from rankset.schema._rules import duplicate_labels, raise_on_duplicate_labels

__all__ = ["STATISTICS", "Agreement", "agreement"]

#: The statistics of the agreement table, besides ``kappa_at_T`` per threshold.
STATISTICS = ("kappa", "kappa_linear", "kappa_quadratic", "alpha_nominal", "alpha_ordinal")

OutOfScale = Literal["error", "drop"]

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class Agreement:
    """The outcome of :func:`agreement`.

    Attributes
    ----------
    table : polars.DataFrame
        One row per judge: ``judge, n_pairs, n_queries, n_reference_only, n_judge_only,
        n_out_of_scale``, the :data:`STATISTICS` and ``kappa_at_T`` for each threshold.
    intervals : polars.DataFrame
        ``judge, statistic, value, ci_low, ci_high``: a bootstrap interval over queries
        for every statistic of ``table`` (nulls with ``confidence=None``).
    confusion : polars.DataFrame
        ``judge, reference_grade, judge_grade, n_pairs``: every cell, zeros included.
    per_grade : polars.DataFrame
        ``judge, grade, n_reference, n_judge, precision, recall``: of the judge's grade
        g, the share the reference also graded g (precision), and of the reference's
        grade g, the share the judge found (recall); null when undefined.
    grades : list[float]
        The grade categories, in order.
    """

    table: pl.DataFrame
    intervals: pl.DataFrame
    confusion: pl.DataFrame
    per_grade: pl.DataFrame
    grades: list[float]

    def _repr_blocks(self) -> tuple[str, ReprTable, str]:
        """Return the title, the statistics of each judge (the counts last), and a note."""
        grades = ", ".join(f"{grade:g}" for grade in self.grades)
        title = (
            f"Agreement: {counted(self.table.height, 'judge')} against the reference, "
            f"grades {grades}"
        )
        counts = ["n_reference_only", "n_judge_only", "n_out_of_scale"]
        first = [c for c in self.table.columns if c not in counts]
        shown = self.table.select(*first, *(c for c in counts if c in self.table.columns))
        table = ReprTable(
            shown.columns,
            shown.head(REPR_ROWS).rows(),
            n_rows=shown.height,
            row_noun="judges",
            column_noun="statistics",
        )
        return title, table, "(.intervals has the intervals, .confusion every cell)"

    def __repr__(self) -> str:
        return text_repr(*self._repr_blocks())

    def _repr_html_(self) -> str:
        return html_repr(*self._repr_blocks())


def agreement(
    reference: Any,
    judges: Any,
    *,
    grades: Sequence[float] | None = None,
    thresholds: Sequence[float] | None = None,
    out_of_scale: OutOfScale = "error",
    confidence: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> Agreement:
    """Measure how well each judge's labels agree with the reference labels.

    Parameters
    ----------
    reference
        The reference labels: anything :func:`rankset.scan_labels` reads (a qrels file,
        a frame with ``query_id, doc_id, grade``, a dict ``{query: {doc: grade}}``).
    judges
        One label set, a list of them (named after their files, else ``judge1``...), or
        a mapping ``{name: labels}``.
    grades
        The grade categories; by default the reference's distinct grades.
    thresholds
        The binarising thresholds (``kappa_at_T``: grade >= T is relevant); by default
        every grade category but the lowest.
    out_of_scale
        ``"error"`` (default) refuses a judge's grade outside ``grades``; ``"drop"``
        leaves those pairs out and counts them.
    confidence, n_resamples, seed
        The bootstrap over queries of every statistic (``confidence=None``: none).

    Returns
    -------
    Agreement

    Raises
    ------
    SchemaError
        A label set repeats a (query, doc) pair, a grade is outside the scale (with
        ``out_of_scale="error"``), or a judge shares no pair with the reference.

    Examples
    --------
    Two of four pairs agree; the judge says 1 where the reference says 0 once, and 0
    where it says 1 once, so the observed agreement (1/2) equals the chance agreement
    (1/2) and kappa is 0:

    >>> reference = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 0}}
    >>> judge = {"q1": {"a": 1, "b": 1}, "q2": {"c": 0, "d": 0}}
    >>> result = agreement(reference, {"llm": judge}, confidence=None)
    >>> result.table.select("judge", "n_pairs", "kappa", "kappa_at_1").row(0)
    ('llm', 4, 0.0, 0.0)
    """
    check_choice("out_of_scale", out_of_scale, ("error", "drop"))
    if confidence is not None:
        check_resampling(confidence, n_resamples, seed)
    else:
        check_int("n_resamples", n_resamples, 1)
    ref, ref_source = _read(reference, "reference")
    named = _named_judges(judges)
    scale = _scale(ref, grades, ref_source)
    cuts = _thresholds(scale, thresholds)
    k = len(scale)

    rows: list[dict[str, Any]] = []
    intervals: list[pl.DataFrame] = []
    confusions: list[pl.DataFrame] = []
    per_grades: list[pl.DataFrame] = []
    for name, labels in named.items():
        judged, source = _read_parsed(labels, name)
        pairs, counts = _pairs(ref, judged, scale, name, source, out_of_scale)
        per_query = _per_query_confusion(pairs, k)
        total = per_query.sum(axis=0)
        values = _statistics(total[None], scale, cuts)
        row = {"judge": name, **counts, **{s: float(v[0]) for s, v in values.items()}}
        rows.append(row)
        intervals.append(
            _intervals(name, per_query, values, scale, cuts, confidence, n_resamples, seed)
        )
        confusions.append(_confusion_frame(name, total, scale))
        per_grades.append(_per_grade_frame(name, total, scale))

    table = pl.DataFrame(rows).with_columns(
        pl.col("n_pairs", "n_queries", "n_reference_only", "n_judge_only", "n_out_of_scale").cast(
            pl.Int64
        )
    )
    return Agreement(
        table=table,
        intervals=pl.concat(intervals),
        confusion=pl.concat(confusions),
        per_grade=pl.concat(per_grades),
        grades=scale,
    )


# --- inputs ------------------------------------------------------------------------------


def _read(labels: Any, what: str) -> tuple[pl.DataFrame, str]:
    return _read_parsed(rio.read(labels, kind="labels"), what)


def _read_parsed(parsed: rio.ParsedInput, what: str) -> tuple[pl.DataFrame, str]:
    if parsed.labels is None:
        msg = f"{parsed.source}: no labels found for {what}; expected query_id, doc_id, grade."
        raise SchemaError(msg)
    frame = normalize_labels(parsed.labels, source=parsed.source)
    offenders = duplicate_labels(frame).collect()
    raise_on_duplicate_labels(offenders, parsed.source)
    collected = frame.collect()
    if collected.height == 0:
        msg = f"{parsed.source}: the labels have no rows; expected at least one label."
        raise SchemaError(msg)
    return collected, parsed.source


def _named_judges(judges: Any) -> dict[str, rio.ParsedInput]:
    """Read each judge's labels; name it as given, else after its file, else judgeN.

    File names follow the readers' stem rule (``gpt4.qrels.gz`` is ``gpt4``); when two
    judges would share a name, all are numbered instead.
    """
    if isinstance(judges, Mapping) and not _looks_like_labels(judges):
        if not judges:
            raise ParameterError("agreement() needs at least one judge; got an empty mapping.")
        return {str(name): rio.read(labels, kind="labels") for name, labels in judges.items()}
    items = list(judges) if isinstance(judges, list | tuple) else [judges]
    if not items:
        raise ParameterError("agreement() needs at least one judge; got an empty list.")
    parsed = [rio.read(item, kind="labels") for item in items]
    names = [p.stem or f"judge{i}" for i, p in enumerate(parsed, start=1)]
    if len(set(names)) != len(names):
        names = [f"judge{position}" for position in range(1, len(items) + 1)]
    return dict(zip(names, parsed, strict=True))


def _looks_like_labels(mapping: Mapping[Any, Any]) -> bool:
    """Tell a ``{query: {doc: grade}}`` dict from a ``{name: labels}`` one."""
    first = next(iter(mapping.values()), None)
    return isinstance(first, Mapping) and all(isinstance(v, int | float) for v in first.values())


def _scale(reference: pl.DataFrame, grades: Sequence[float] | None, source: str) -> list[float]:
    if grades is None:
        scale = sorted(reference["grade"].unique().to_list())
    else:
        scale = sorted({float(g) for g in grades})
        outside = reference.filter(~pl.col("grade").is_in(pl.Series(scale).implode()))
        if outside.height:
            values = sorted(set(outside["grade"].to_list()))
            msg = (
                f"{source}: {outside.height} reference label(s) have grades "
                f"{_grades_text(values)} outside grades={_grades_text(scale)}."
            )
            raise SchemaError(msg)
    if len(scale) < 2:
        msg = (
            f"{source}: the reference uses one grade ({_grades_text(scale)}); agreement needs "
            "at least two grade categories (pass grades=[...] to name the scale)."
        )
        raise SchemaError(msg)
    return scale


def _thresholds(scale: list[float], thresholds: Sequence[float] | None) -> list[float]:
    if thresholds is None:
        return scale[1:]
    cuts = sorted({float(t) for t in thresholds})
    useless = [t for t in cuts if not scale[0] < t <= scale[-1]]
    if useless:
        msg = (
            f"The 'thresholds' parameter must lie above the lowest grade and at most the "
            f"highest ({_grades_text(scale)}); got {_grades_text(useless)}."
        )
        raise ParameterError(msg)
    return cuts


def _grades_text(values: Sequence[float]) -> str:
    return ", ".join(f"{v:g}" for v in values)


def _pairs(
    reference: pl.DataFrame,
    judged: pl.DataFrame,
    scale: list[float],
    name: str,
    source: str,
    out_of_scale: OutOfScale,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """Join on (query, doc): the pairs with both grades as category indices, and counts."""
    outside = judged.filter(~pl.col("grade").is_in(pl.Series(scale).implode()))
    if outside.height and out_of_scale == "error":
        values = sorted(set(outside["grade"].to_list()))
        first = outside.row(0, named=True)
        msg = (
            f"{source} (judge {name!r}): {outside.height} label(s) have grades "
            f"{_grades_text(values)} outside the scale {_grades_text(scale)} (first: query "
            f"{first['query_id']!r}, doc {first['doc_id']!r}); pass out_of_scale='drop' "
            "(CLI --drop-out-of-scale) to leave them out, counted, or grades=[...]."
        )
        raise SchemaError(msg)
    kept = judged.filter(pl.col("grade").is_in(pl.Series(scale).implode()))
    index = {grade: position for position, grade in enumerate(scale)}
    both = reference.join(kept, on=["query_id", "doc_id"], suffix="_judge").select(
        "query_id",
        pl.col("grade").replace_strict(index, return_dtype=pl.Int64).alias("ref"),
        pl.col("grade_judge").replace_strict(index, return_dtype=pl.Int64).alias("judge"),
    )
    if both.height == 0:
        msg = (
            f"{source} (judge {name!r}) shares no (query_id, doc_id) pair with the reference "
            f"({reference.height} reference labels, {kept.height} judge labels in scale)."
        )
        raise SchemaError(msg)
    keys = ["query_id", "doc_id"]
    counts = {
        "n_pairs": both.height,
        "n_queries": both["query_id"].n_unique(),
        "n_reference_only": reference.join(judged, on=keys, how="anti").height,
        "n_judge_only": kept.join(reference, on=keys, how="anti").height,
        "n_out_of_scale": outside.height,
    }
    return both, counts


# --- statistics from confusion matrices ---------------------------------------------------


def _per_query_confusion(pairs: pl.DataFrame, k: int) -> FloatArray:
    """Confusion matrices per query, flattened: shape (queries, k * k)."""
    queries = pairs["query_id"].unique(maintain_order=True).sort()
    position = {query: i for i, query in enumerate(queries.to_list())}
    q = pairs["query_id"].replace_strict(position, return_dtype=pl.Int64).to_numpy()
    cell = (pairs["ref"] * k + pairs["judge"]).to_numpy()
    matrix = np.zeros((len(position), k * k), dtype=np.float64)
    np.add.at(matrix, (q, cell), 1.0)
    return matrix


def _kappa(confusion: FloatArray, weights: FloatArray) -> FloatArray:
    """Cohen's kappa of many k x k confusion matrices (shape (m, k, k)), given weights.

    ``weights`` are disagreement weights (0 on the diagonal): kappa = 1 - sum(w * O) /
    sum(w * E), E the product of the margins over n, as scikit-learn computes it.
    """
    n = confusion.sum(axis=(1, 2))
    expected = np.einsum("mi,mj->mij", confusion.sum(axis=2), confusion.sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = expected / n[:, None, None]
        observed = (confusion * weights).sum(axis=(1, 2))
        chance = (expected * weights).sum(axis=(1, 2))
        return np.asarray(1.0 - observed / chance, dtype=np.float64)


def _alpha(confusion: FloatArray, distance: str) -> FloatArray:
    """Krippendorff's alpha of two coders without missing values, per confusion matrix.

    The coincidence matrix is O + O^T; alpha = 1 - (n - 1) * sum(o * d) / sum(n_c n_k d),
    with d the squared difference function (nominal: c != k; ordinal: the squared count
    of values between c and k, as the ``krippendorff`` package defines it).
    """
    coincidence = confusion + np.transpose(confusion, (0, 2, 1))
    marginals = coincidence.sum(axis=2)  # n_c, shape (m, k)
    n = marginals.sum(axis=1)
    k = confusion.shape[1]
    if distance == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(k), confusion.shape)
    else:
        cumulative = np.cumsum(marginals, axis=1)
        low = np.minimum.outer(np.arange(k), np.arange(k))
        high = np.maximum.outer(np.arange(k), np.arange(k))
        # sum of n_g for g in [c, k], minus (n_c + n_k) / 2, squared
        between = cumulative[:, high] - np.where(low > 0, cumulative[:, np.maximum(low - 1, 0)], 0)
        halves = (marginals[:, :, None] + marginals[:, None, :]) / 2.0
        delta = (between - halves) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (coincidence * delta).sum(axis=(1, 2))
        expected = (marginals[:, :, None] * marginals[:, None, :] * delta).sum(axis=(1, 2))
        return np.asarray(1.0 - (n - 1.0) * observed / expected, dtype=np.float64)


def _statistics(flat: FloatArray, scale: list[float], cuts: list[float]) -> dict[str, FloatArray]:
    """Every statistic of the table for each row of ``flat`` (shape (m, k * k))."""
    k = len(scale)
    confusion = flat.reshape(-1, k, k)
    index = np.arange(k)
    gap = np.abs(index[:, None] - index[None, :]).astype(np.float64)
    values = {
        "kappa": _kappa(confusion, (gap > 0).astype(np.float64)),
        "kappa_linear": _kappa(confusion, gap),
        "kappa_quadratic": _kappa(confusion, gap**2),
        "alpha_nominal": _alpha(confusion, "nominal"),
        "alpha_ordinal": _alpha(confusion, "ordinal"),
    }
    levels = np.asarray(scale)
    for cut in cuts:
        high = levels >= cut
        binary = np.stack(
            [
                np.stack(
                    [
                        confusion[:, ~high][:, :, ~high].sum(axis=(1, 2)),
                        confusion[:, ~high][:, :, high].sum(axis=(1, 2)),
                    ],
                    axis=1,
                ),
                np.stack(
                    [
                        confusion[:, high][:, :, ~high].sum(axis=(1, 2)),
                        confusion[:, high][:, :, high].sum(axis=(1, 2)),
                    ],
                    axis=1,
                ),
            ],
            axis=1,
        )
        values[f"kappa_at_{cut:g}"] = _kappa(binary, 1.0 - np.eye(2))
    return values


def _intervals(
    name: str,
    per_query: FloatArray,
    values: dict[str, FloatArray],
    scale: list[float],
    cuts: list[float],
    confidence: float | None,
    n_resamples: int,
    seed: int,
) -> pl.DataFrame:
    """Percentile bootstrap over queries: each resample reweights the per-query matrices."""
    statistics = list(values)
    point = [float(values[s][0]) for s in statistics]
    low: list[float | None] = [None] * len(statistics)
    high: list[float | None] = [None] * len(statistics)
    if confidence is not None:
        generator = np.random.default_rng(seed)
        queries = per_query.shape[0]
        weights = generator.multinomial(queries, np.full(queries, 1.0 / queries), n_resamples)
        resampled = _statistics(weights.astype(np.float64) @ per_query, scale, cuts)
        tail = (1.0 - confidence) / 2.0
        for position, statistic in enumerate(statistics):
            draws = resampled[statistic]
            draws = draws[np.isfinite(draws)]
            if draws.size:
                low[position] = float(np.quantile(draws, tail))
                high[position] = float(np.quantile(draws, 1.0 - tail))
    return pl.DataFrame(
        {
            "judge": name,
            "statistic": statistics,
            "value": point,
            "ci_low": low,
            "ci_high": high,
        },
        schema={
            "judge": pl.String,
            "statistic": pl.String,
            "value": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
        },
    ).with_columns(pl.col("value").fill_nan(None))


def _confusion_frame(name: str, total: FloatArray, scale: list[float]) -> pl.DataFrame:
    k = len(scale)
    return pl.DataFrame(
        {
            "judge": name,
            "reference_grade": [scale[i] for i in range(k) for _ in range(k)],
            "judge_grade": [scale[j] for _ in range(k) for j in range(k)],
            "n_pairs": total.astype(np.int64),
        }
    )


def _per_grade_frame(name: str, total: FloatArray, scale: list[float]) -> pl.DataFrame:
    k = len(scale)
    matrix = total.reshape(k, k)
    hits = np.diag(matrix)
    n_reference, n_judge = matrix.sum(axis=1), matrix.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(n_judge > 0, hits / n_judge, np.nan)
        recall = np.where(n_reference > 0, hits / n_reference, np.nan)
    return pl.DataFrame(
        {
            "judge": name,
            "grade": scale,
            "n_reference": n_reference.astype(np.int64),
            "n_judge": n_judge.astype(np.int64),
            "precision": precision,
            "recall": recall,
        }
    ).with_columns(pl.col("precision", "recall").fill_nan(None))
