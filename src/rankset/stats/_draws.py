"""The resampling draws every test and interval here shares: chunk sizes and generators."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from rankset._validation import check_int
from rankset.errors import ParameterError

if TYPE_CHECKING:
    from rankset._progress import Progress

#: What the resampling kernels' ``progress`` callbacks count.
RESAMPLES = "resamples"

# Each working matrix (signs, bootstrap counts) is kept near this size.
_CHUNK_BYTES = 64 * 2**20
# The most bytes of bootstrap draws (query indices and their counts) kept for reuse.
_REUSE_BYTES = 512 * 2**20
# Inside reused_draws(): the draws kept, by (seed, queries, resamples); else None.
_REUSED: contextvars.ContextVar[dict[tuple[int, int, int], dict[str, Any]] | None] = (
    contextvars.ContextVar("rankset_reused_draws", default=None)
)


@contextlib.contextmanager
def reused_draws() -> Iterator[None]:
    """Within the block, make each seeded bootstrap's draws once and reuse them.

    The draws of :func:`rankset.stats.bootstrap_column_mean_cis` depend only on the seed,
    the number of queries and of resamples, so a summary of 100 systems, their curves and
    the intervals of their differences would draw the same resamples hundreds of times.
    Inside the block they are drawn once per (seed, queries, resamples) and kept (up to
    512 MB of them, the latest key only): the same values, less time. Calls with their
    own ``rng`` are not affected.

    Examples
    --------
    >>> import numpy as np
    >>> from rankset.stats import bootstrap_column_mean_cis, reused_draws
    >>> values = np.arange(20.0).reshape(10, 2)
    >>> with reused_draws():
    ...     first = bootstrap_column_mean_cis(values[:, :1], seed=3)
    ...     again = bootstrap_column_mean_cis(values, seed=3)
    >>> bool((first[0] == bootstrap_column_mean_cis(values[:, :1], seed=3)[0]).all())
    True
    >>> bool((again == bootstrap_column_mean_cis(values, seed=3)).all())
    True
    """
    token = _REUSED.set({})
    try:
        yield
    finally:
        _REUSED.reset(token)


def reusable_draws(seed: int, n: int, n_resamples: int) -> dict[str, Any] | None:
    """Inside :func:`reused_draws`, the kept draws of this key (a dict to fill), else None."""
    kept = _REUSED.get()
    if kept is None or 16 * n * n_resamples > _REUSE_BYTES:
        return None
    key = (seed, n, n_resamples)
    if key not in kept:
        kept.clear()  # one key at a time: the memory of one set of draws
        kept[key] = {"index": [], "counts": {}, "complete": False}
    return kept[key]


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
