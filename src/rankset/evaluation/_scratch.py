"""The large scratch arrays of a run's numbering, kept a few seconds between evaluations.

A run in no order of 20 million rows is numbered with two arrays of 160 MB (the
query hashes that become the pair hashes, the ranking numbers that become the packed
integers: :mod:`rankset.evaluation._packed_pass`). Allocated afresh on every call,
their pages are faulted in every time; on a virtual machine that hands freed memory
back to its host, one call in three paid up to half a second for it. The allocators
under Polars and Arrow keep freed memory for a while for the same reason; so do these
arrays: an evaluation borrows them (:func:`borrowing`), and they are released once no
evaluation has asked for them for :data:`KEPT_SECONDS`.

Only arrays of :data:`KEPT_FROM` elements or more are kept, at most
:data:`KEPT_ARRAYS` of them (an evaluation of many large runs borrows that many and
allocates the others as usual); a kept array is lent only to a request of at least
1 / :data:`LENT_UP_TO` of its size; an evaluation that borrows none keeps none; a
forked child starts with none.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "KEPT_ARRAYS",
    "KEPT_FROM",
    "KEPT_SECONDS",
    "borrowing",
    "empty",
    "release_kept_memory",
]

#: Seconds an array is kept after the last evaluation that could have borrowed it.
KEPT_SECONDS = 10.0
#: Arrays of fewer elements are allocated as usual.
KEPT_FROM = 1_000_000
#: The most arrays kept at once (the largest), and borrowed by one evaluation.
KEPT_ARRAYS = 2
#: A kept array is lent for at least this share of its size.
LENT_UP_TO = 2


class _Kept:
    """The arrays kept between evaluations, and the timer that releases them."""

    def __init__(self) -> None:
        self.forget()

    def forget(self) -> None:
        """Start empty: at creation, and in a forked child.

        A child has no timer thread, and may have been forked while another thread
        held the lock.
        """
        self.lock = threading.Lock()
        self.free: list[npt.NDArray[np.uint64]] = []
        self.timer: threading.Timer | None = None

    def take(self, size: int) -> npt.NDArray[np.uint64] | None:
        """Take the smallest kept array of ``size`` to ``LENT_UP_TO * size`` elements, if any.

        A much larger array is not lent: kept for a smaller run, it would hold memory
        that run does not need for as long as large evaluations follow one another.
        """
        with self.lock:
            fits = [array for array in self.free if size <= array.size <= LENT_UP_TO * size]
            if not fits:
                return None
            found = min(fits, key=lambda array: array.size)
            self.free = [array for array in self.free if array is not found]
            return found

    def keep(self, arrays: list[npt.NDArray[np.uint64]]) -> None:
        """Keep ``arrays`` (the largest :data:`KEPT_ARRAYS` of all kept) for a while."""
        with self.lock:
            self.free = sorted([*self.free, *arrays], key=lambda array: -array.size)
            del self.free[KEPT_ARRAYS:]
            if self.timer is not None:
                self.timer.cancel()
            timer = threading.Timer(KEPT_SECONDS, lambda: self.release(timer))
            timer.daemon = True  # never keeps the interpreter from exiting
            self.timer = timer
            timer.start()

    def release(self, timer: threading.Timer | None = None) -> None:
        """Release every kept array (when ``timer`` is given: only if it is the latest)."""
        with self.lock:
            if timer is not None and timer is not self.timer:
                return  # an earlier timer, cancelled too late: a later keep() stands
            self.free = []
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None


_KEPT = _Kept()
if hasattr(os, "register_at_fork"):  # a forked child keeps none of its parent's arrays
    os.register_at_fork(after_in_child=_KEPT.forget)
# The arrays the evaluation running in this context has borrowed; None: it keeps none.
_BORROWED: ContextVar[list[npt.NDArray[np.uint64]] | None] = ContextVar(
    "rankset_scratch", default=None
)


@contextmanager
def borrowing() -> Iterator[None]:
    """Let :func:`empty` lend kept arrays within the block; keep them again after it.

    Nothing may hold an array :func:`empty` gave (nor a view of it) past the block.
    """
    borrowed: list[npt.NDArray[np.uint64]] = []
    token = _BORROWED.set(borrowed)
    try:
        yield
    finally:
        _BORROWED.reset(token)
        if borrowed:
            _KEPT.keep(borrowed)


def empty(size: int) -> npt.NDArray[np.uint64]:
    """Return an uninitialised ``uint64`` array of ``size`` elements.

    Within :func:`borrowing`, an array of :data:`KEPT_FROM` elements or more is a
    view of an array kept from an earlier evaluation when one is large enough, and is
    kept after the block.

    Examples
    --------
    >>> with borrowing():
    ...     first = empty(KEPT_FROM + 10)
    ...     first[:] = 7
    >>> with borrowing():
    ...     again = empty(KEPT_FROM)  # a kept array at least as large will do
    ...     small = empty(5)  # below KEPT_FROM: allocated as usual
    >>> bool(again.base is first.base), int(again[0]), len(again), small.base is None
    (True, 7, 1000000, True)
    >>> release_kept_memory()
    """
    import numpy as np

    borrowed = _BORROWED.get()
    if borrowed is None or size < KEPT_FROM or len(borrowed) >= KEPT_ARRAYS:
        # beyond the arrays kept, freed as usual (an evaluation of many large runs
        # holds each run's others no longer than before)
        return np.empty(size, dtype=np.uint64)
    whole = _KEPT.take(size)
    if whole is None:
        whole = np.empty(size, dtype=np.uint64)
    borrowed.append(whole)
    return whole[:size]


def release_kept_memory() -> None:
    """Release now the memory an evaluation of a large run keeps for the next one.

    After evaluating a run of a million rows or more in no order, rankset keeps two
    arrays of 8 bytes per row (320 MB for 20 million rows) for 10 seconds, so that
    the next evaluation reuses their pages instead of faulting in new ones (as the
    allocators under Polars and Arrow keep freed memory). They are released on their
    own once no evaluation has used them for that long; this releases them at once.

    Examples
    --------
    >>> import rankset
    >>> from rankset.evaluation import release_kept_memory
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> labels = {"q1": {"d1": 1}}
    >>> round(rankset.evaluate(run, labels, ["ap"]).summary["mean"][0], 3)
    1.0
    >>> release_kept_memory()  # nothing kept for so small a run: a no-op
    """
    _KEPT.release()
