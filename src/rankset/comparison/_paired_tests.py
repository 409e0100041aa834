"""The resampled tests of many paired comparisons at once: :func:`run_paired_tests`."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from rankset._progress import Tally

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

    from rankset._typing import Progress, Test
    from rankset.stats.paired import FloatArray

__all__ = ["run_paired_tests"]

# Comparisons resampled together: at least this many, more while a chunk's resampled
# sums (resamples x comparisons) stay under _SUMS_BYTES and the differences (queries x
# comparisons) under _DIFFS_BYTES. Each block draws the signs again, so with 10,000
# queries and 990 comparisons one block instead of eight saves seven draws of 10^9 signs.
_BLOCK = 128
_SUMS_BYTES = 16 * 2**20
_DIFFS_BYTES = 128 * 2**20
_CHUNK_BYTES = 64 * 2**20  # the resampling chunks' size (rankset.stats draws them so)


def _block_size(n: int, n_resamples: int) -> int:
    """Comparisons per block for ``n`` queries and ``n_resamples`` draws."""
    rows = max(1, min(n_resamples, _CHUNK_BYTES // (8 * n)))
    return max(_BLOCK, min(_SUMS_BYTES // (8 * rows), _DIFFS_BYTES // (8 * n)))


def run_paired_tests(
    aligned: pl.DataFrame,
    sizes: np.ndarray[Any, np.dtype[Any]],
    tests: list[Test],
    *,
    seed: int,
    n_resamples: int,
    confidence: float,
    progress: Progress | None,
    mirror: bool = False,
    n_bootstrap: int | None = None,
) -> tuple[dict[Test, FloatArray], FloatArray]:
    """P-values per test and bootstrap intervals, one per comparison (row of ``sizes``).

    The randomization test draws ``n_resamples`` sign assignments, the intervals
    ``n_bootstrap`` resamples (default ``n_resamples``).

    ``aligned`` holds each comparison's aligned ``value`` and ``baseline`` rows, in the
    order of ``sizes``. With ``mirror``, a comparison whose differences are exactly the
    negated differences of an earlier one (B against A after A against B) is not drawn
    again: its randomization p-value is the same (the test is symmetric under the draws
    it shares) and its interval is the other's, negated and swapped.
    """
    import numpy as np  # here: importing rankset.comparison stays free of numpy

    from rankset import stats

    values = aligned["value"].to_numpy()
    base = aligned["baseline"].to_numpy()
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    count = len(sizes)
    p_values = {test: np.full(count, np.nan) for test in tests}
    intervals = np.full((count, 2), np.nan)
    # Comparisons over the same number of queries share the random draws: one matrix
    # product per size instead of one resampling per comparison.
    by_size: dict[int, list[int]] = {}
    for index, size in enumerate(sizes.tolist()):
        if size > 0:
            by_size.setdefault(size, []).append(index)
    n_bootstrap = n_resamples if n_bootstrap is None else n_bootstrap
    groups = []
    drawn = max(n_bootstrap, n_resamples if "randomization" in tests else 0)
    for size, group in sorted(by_size.items()):
        columns = [
            values[bounds[i] : bounds[i + 1]] - base[bounds[i] : bounds[i + 1]] for i in group
        ]
        members, mirrors = _mirrored(group, columns) if mirror else (group, {})
        # blocks of nearly equal sizes: none of one
        count = -(-len(members) // _block_size(size, drawn))
        groups.append((group, dict(zip(group, columns, strict=True)), members, mirrors, count))
    # Columns in blocks: each block draws the same resamples (the draws depend on the
    # seed and the number of queries only), so the values are those of one pass, and
    # the memory follows the block, not the number of comparisons.
    blocks = sum(count for *_, count in groups)
    per_block = n_bootstrap + (n_resamples if "randomization" in tests else 0)
    tally = Tally(progress, blocks * per_block, "resamples")
    for group, column_of, members, mirrors, count in groups:
        edges = [k * len(members) // count for k in range(count + 1)]
        for block in (members[low:high] for low, high in itertools.pairwise(edges)):
            diffs = np.column_stack([column_of[i] for i in block])
            if "randomization" in tests:
                p_values["randomization"][block] = stats.paired_randomization_tests(
                    diffs, n_resamples=n_resamples, seed=seed, progress=tally.job(n_resamples)
                )
            intervals[block] = stats.paired_bootstrap_cis(
                diffs,
                confidence=confidence,
                n_resamples=n_bootstrap,
                seed=seed,
                progress=tally.job(n_bootstrap),
            )
        for i in group:
            left, right = values[bounds[i] : bounds[i + 1]], base[bounds[i] : bounds[i + 1]]
            if "t" in tests:
                p_values["t"][i] = stats.paired_t_test(left, right)
            if "wilcoxon" in tests:
                p_values["wilcoxon"][i] = stats.wilcoxon_test(left, right)
        for copy, source in mirrors.items():
            if "randomization" in tests:
                p_values["randomization"][copy] = p_values["randomization"][source]
            intervals[copy] = -intervals[source][::-1]
    return p_values, intervals


def _mirrored(group: list[int], columns: list[FloatArray]) -> tuple[list[int], dict[int, int]]:
    """Split ``group`` into the comparisons to draw and ``{mirror: the one it negates}``."""
    seen: dict[bytes, int] = {}
    drawn, mirrors = [], {}
    for index, column in zip(group, columns, strict=True):
        negated = (-column + 0.0).tobytes()  # + 0.0: a zero difference is +0.0 both ways
        source = seen.get(negated)
        if source is not None:
            mirrors[index] = source
            continue
        seen[(column + 0.0).tobytes()] = index
        drawn.append(index)
    return drawn, mirrors
