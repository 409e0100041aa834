"""Family-wise tests over every system at once: Tukey's HSD and the randomised Tukey HSD.

Unlike the paired tests of :func:`rankset.compare`, which test each pair on the queries
that pair shares and then correct the p-values, these tests see every system together:
each metric's queries are those that *every* system scored (a query NA for one system is
dropped for all, and counted), and each pair's p-value is already family-wise over all
pairs of systems, so no correction applies (``p_adj`` equals ``p``). The arithmetic is in
:mod:`rankset.stats.multiple`; this module turns per-query frames into its matrices and its
results into rows of the comparison frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from rankset.comparison._inputs import RELATIVE_DELTA

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy as np

    FloatMatrix: TypeAlias = np.ndarray[Any, np.dtype[np.float64]]

__all__ = ["FAMILY_TESTS", "complete_matrix", "family_rows"]

#: Tests whose p-values are family-wise over every pair of systems.
FAMILY_TESTS = ("tukey", "randomized_tukey")


def family_rows(
    frame: pl.DataFrame,
    systems: list[str],
    pairs: list[tuple[str, str]],
    metrics: list[str],
    tests: Sequence[str],
    *,
    greater: dict[str, bool],
    alpha: float,
    seed: int,
    n_resamples: int,
    confidence: float,
    effect_sizes: bool = False,
) -> pl.DataFrame:
    """Rows ``(system, baseline, metric, test, ...)`` of the family-wise tests.

    ``frame`` holds ``system, query_id, metric, value`` (String ids, Float64 values);
    ``pairs`` are ``(system, baseline)``, compared as ``system - baseline``. The columns
    are those of :data:`rankset.comparison.pairwise.COMPARE_COLUMNS` with ``baseline`` after
    ``system`` and, with ``effect_sizes``, ``effect_size, effect_ci_low, effect_ci_high``.
    """
    import numpy as np

    from rankset import stats
    from rankset.stats import multiple

    position = {system: i for i, system in enumerate(systems)}
    left = [position[system] for system, _ in pairs]
    right = [position[baseline] for _, baseline in pairs]
    matrices = {metric: complete_matrix(frame, systems, metric) for metric in metrics}
    randomized = _randomized_p(matrices, n_resamples, seed) if "randomized_tukey" in tests else {}
    pieces = []
    for metric in metrics:
        matrix, n_dropped, _ = matrices[metric]
        n = matrix.shape[0]
        figures: dict[str, Any] = {"n_queries": n, "n_dropped": n_dropped}
        if n >= 2:
            means = matrix.mean(axis=0)
            diffs = matrix[:, left] - matrix[:, right]
            sign = 1.0 if greater[metric] else -1.0
            figures.update(
                mean=means[left],
                baseline_mean=means[right],
                wins=(sign * diffs > 0).sum(axis=0),
                ties=(diffs == 0).sum(axis=0),
                losses=(sign * diffs < 0).sum(axis=0),
            )
            if effect_sizes:  # one set of resamples for both intervals
                interval, effect_interval = multiple.bootstrap_difference_and_effect_cis(
                    diffs, confidence=confidence, n_resamples=n_resamples, seed=seed
                )
                figures["effect"] = multiple.paired_effect_sizes(diffs)
                figures["effect_interval"] = effect_interval
            else:
                interval = stats.paired_bootstrap_cis(
                    diffs, confidence=confidence, n_resamples=n_resamples, seed=seed
                )
            figures["interval"] = interval
        for test in tests:
            p = np.full(len(pairs), np.nan)
            if n >= 2:
                matrix_p = multiple.tukey_hsd(matrix)[1] if test == "tukey" else randomized[metric]
                p = matrix_p[left, right]
            pieces.append(_rows(pairs, metric, test, p, figures, alpha, effect_sizes))
    return pl.concat(pieces, how="vertical")


def _randomized_p(
    matrices: dict[str, tuple[FloatMatrix, int, tuple[str, ...]]], n_resamples: int, seed: int
) -> dict[str, FloatMatrix]:
    """Randomised Tukey p-values per metric; metrics over the same queries share permutations."""
    import numpy as np

    from rankset.stats import multiple

    groups: dict[tuple[str, ...], list[str]] = {}
    for metric, (matrix, _, queries) in matrices.items():
        if matrix.shape[0] >= 2:
            groups.setdefault(queries, []).append(metric)
    p: dict[str, FloatMatrix] = {}
    for members in groups.values():
        stack = np.stack([matrices[metric][0] for metric in members])
        for metric, values in zip(
            members,
            multiple.randomized_tukey_hsd(stack, n_resamples=n_resamples, seed=seed),
            strict=True,
        ):
            p[metric] = values
    return p


def complete_matrix(
    frame: pl.DataFrame, systems: list[str], metric: str
) -> tuple[FloatMatrix, int, tuple[str, ...]]:
    """Return the (queries × systems) values of the queries every system scored, by id.

    Also the number of queries left out (NA or absent for some system) and the ids kept.
    """
    import numpy as np

    wide = (
        frame.filter(pl.col("metric") == metric)
        .pivot(on="system", index="query_id", values="value")
        .sort("query_id")
    )
    for system in systems:
        if system not in wide.columns:
            wide = wide.with_columns(pl.lit(None, dtype=pl.Float64).alias(system))
    complete = wide.drop_nulls(subset=systems)
    matrix = complete.select(systems).to_numpy().astype(np.float64, copy=False)
    queries = tuple(complete["query_id"].to_list())
    return matrix.reshape(complete.height, len(systems)), wide.height - complete.height, queries


def _rows(
    pairs: list[tuple[str, str]],
    metric: str,
    test: str,
    p: Any,
    figures: dict[str, Any],
    alpha: float,
    effect_sizes: bool,
) -> pl.DataFrame:
    count = len(pairs)

    def column(name: str, index: int | None = None) -> list[Any]:
        values = figures.get(name)
        if values is None:
            return [None] * count
        picked = values if index is None else values[:, index]
        return [None if value != value else float(value) for value in picked.tolist()]

    def counts(name: str) -> list[int | None]:
        values = figures.get(name)
        return [None] * count if values is None else [int(v) for v in values.tolist()]

    p_values = [None if value != value else float(value) for value in p.tolist()]
    data: dict[str, Any] = {
        "system": [system for system, _ in pairs],
        "baseline": [baseline for _, baseline in pairs],
        "metric": [metric] * count,
        "test": [test] * count,
        "n_queries": [figures["n_queries"]] * count,
        "n_dropped": [figures["n_dropped"]] * count,
        "mean": column("mean"),
        "baseline_mean": column("baseline_mean"),
        "ci_low": column("interval", 0),
        "ci_high": column("interval", 1),
        "p": p_values,
        "wins": counts("wins"),
        "ties": counts("ties"),
        "losses": counts("losses"),
    }
    schema: dict[str, Any] = {
        "system": pl.String,
        "baseline": pl.String,
        "metric": pl.String,
        "test": pl.String,
        "n_queries": pl.UInt32,
        "n_dropped": pl.UInt32,
        "mean": pl.Float64,
        "baseline_mean": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "p": pl.Float64,
        "wins": pl.UInt32,
        "ties": pl.UInt32,
        "losses": pl.UInt32,
    }
    if effect_sizes:
        data |= {
            "effect_size": column("effect"),
            "effect_ci_low": column("effect_interval", 0),
            "effect_ci_high": column("effect_interval", 1),
        }
        schema |= {name: pl.Float64 for name in ("effect_size", "effect_ci_low", "effect_ci_high")}
    rows = pl.DataFrame(data, schema=schema)
    return rows.with_columns(
        delta=pl.col("mean") - pl.col("baseline_mean"),
        relative_delta=RELATIVE_DELTA,
        p_adj=pl.col("p"),
        reject=pl.col("p") < alpha,
    )
