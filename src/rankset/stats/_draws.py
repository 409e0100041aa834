"""The resampling draws every test and interval here shares: chunk sizes and generators."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from rankset._validation import check_int
from rankset.errors import ParameterError

if TYPE_CHECKING:
    from rankset._progress import Progress

#: What the resampling kernels' ``progress`` callbacks count.
RESAMPLES = "resamples"

# Each working matrix (signs, bootstrap counts) is kept near this size.
_CHUNK_BYTES = 64 * 2**20


def resample_chunks(n_resamples: int, n: int) -> list[int]:
    """Row counts of the resample chunks for ``n`` queries, each chunk near 64 MB."""
    # Depends on n only (not on the number of comparisons), so one comparison alone and
    # many together draw the same resamples for a seed.
    size = max(1, min(n_resamples, _CHUNK_BYTES // (8 * n)))
    full, rest = divmod(n_resamples, size)
    return [size] * full + ([rest] if rest else [])


def counted_chunks(n_resamples: int, n: int, progress: Progress | None) -> Iterator[int]:
    """Yield :func:`resample_chunks`; after each chunk's work, tell ``progress`` the count.

    ``progress(done, n_resamples, "resamples")`` is called once per chunk, when the loop
    asks for the next one (so after the work on it), the last time with ``done ==
    n_resamples``.
    """
    done = 0
    for rows in resample_chunks(n_resamples, n):
        yield rows
        done += rows
        if progress is not None:
            progress(done, n_resamples, RESAMPLES)


def resample_generator(seed: int, rng: np.random.Generator | None) -> np.random.Generator:
    """Return ``rng`` when given, else a generator seeded with ``seed``."""
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            msg = f"The 'rng' parameter must be a numpy.random.Generator. Got {rng!r} instead."
            raise ParameterError(msg)
        return rng
    check_int("seed", seed, 0)
    return np.random.default_rng(seed)
