"""How long work says how far it is: one callback, counted steps, a bar in Jupyter.

The long functions of every layer (the resampling kernels here, the comparison, the
bucket-partitioned writer, the report and the dashboard) take ``progress=``, a
:data:`Progress` callback called with ``(done, total, what)``: ``done`` of ``total``
parts are done and ``what`` names them or the work under way. ``done`` never falls
and the last call has ``done == total``. The command line turns the calls into a line
on a terminal (``rankset.cli``); in a Jupyter notebook :func:`notebook_progress` turns
them into a bar under the cell, with nothing to install. This package is the lowest one
every layer may import, hence the helper's home beside the kernels.
"""

from __future__ import annotations

import html
import sys
import time
from collections.abc import Callable
from typing import Any, Final, TypeAlias

from rankset._typing import Progress
from rankset.errors import ParameterError

__all__ = [
    "IntoProgress",
    "NotebookBar",
    "Progress",
    "Steps",
    "Tally",
    "notebook_progress",
    "progress_text",
    "resolve_progress",
]

#: What a ``progress=`` parameter of the report and the dashboard takes: a callback,
#: ``None`` (a bar in a Jupyter notebook, nothing elsewhere) or ``False`` (nothing).
IntoProgress: TypeAlias = Progress | bool | None

# A notebook bar is redrawn at most this often (seconds) while its count stays, as when
# only the text of a step's inner job changes; a new count and the last are always drawn.
_REDRAW: Final = 0.2
_BAR_WIDTH: Final = 24


def progress_text(done: int, total: int, what: str, elapsed: float) -> str:
    """Say how far a job is: ``what  done/total  elapsed, ETA`` (the ETA while under way).

    The ETA is the time left at the rate so far (``elapsed / done`` per part).

    Examples
    --------
    >>> progress_text(3, 8, "resamples", 6.0)
    'resamples  3/8  6.0 s, ETA 10 s'
    >>> progress_text(8, 8, "done", 16.04)
    'done  8/8  16.0 s'
    """
    line = f"{what}  {done:,}/{total:,}  {elapsed:.1f} s"
    if 0 < done < total:
        line += f", ETA {elapsed / done * (total - done):.0f} s"
    return line


class Steps:
    """Count the named steps of a job for a :data:`Progress` callback (None: silent).

    ``steps(name)`` announces the next step (called before it, with the steps done so
    far); ``steps.part(name)`` announces it too and returns a callback for a counted job
    inside it, whose count goes into the step's text; ``steps.finish()`` says
    ``(total, total, "done")``.

    Examples
    --------
    >>> calls = []
    >>> steps = Steps(lambda done, total, what: calls.append((done, total, what)), 2)
    >>> steps("reading")
    >>> inner = steps.part("comparing")
    >>> inner(500, 1000, "resamples")
    >>> steps.finish()
    >>> calls  # doctest: +NORMALIZE_WHITESPACE
    [(0, 2, 'reading'), (1, 2, 'comparing'), (1, 2, 'comparing: 500/1,000 resamples'),
     (2, 2, 'done')]
    """

    def __init__(self, progress: Progress | None, total: int) -> None:
        self._progress = progress
        self.total = total
        self.done = -1

    def __call__(self, name: str) -> None:
        """Announce the next step, ``name``."""
        self.done = min(self.done + 1, self.total)
        if self._progress is not None:
            self._progress(self.done, self.total, name)

    def part(self, name: str) -> Progress | None:
        """Announce the next step and return a callback for the counted job inside it."""
        self(name)
        outer = self._progress
        if outer is None:
            return None
        done, total = self.done, self.total

        def inner(part_done: int, part_total: int, what: str) -> None:
            outer(done, total, f"{name}: {part_done:,}/{part_total:,} {what}")

        return inner

    def finish(self) -> None:
        """Say that every step is done: ``(total, total, "done")``."""
        self.done = self.total
        if self._progress is not None:
            self._progress(self.total, self.total, "done")


class Tally:
    """Add up the counts of consecutive jobs into one count for a :data:`Progress` callback.

    ``tally.job(size)`` returns the callback of the next job, ``size`` parts long: its
    ``(done, size, ...)`` is passed on as ``(parts before it + done, total, what)``.

    Examples
    --------
    >>> calls = []
    >>> tally = Tally(lambda done, total, what: calls.append((done, total)), 20, "resamples")
    >>> first, second = tally.job(10), tally.job(10)
    >>> first(10, 10, "")
    >>> second(4, 10, "")
    >>> calls
    [(10, 20), (14, 20)]
    """

    def __init__(self, progress: Progress | None, total: int, what: str) -> None:
        self._progress = progress
        self._total = total
        self._what = what
        self._start = 0

    def job(self, size: int) -> Progress | None:
        """Return the callback of the next job, ``size`` parts long (None when silent)."""
        start, self._start = self._start, self._start + size
        outer = self._progress
        if outer is None:
            return None
        total, what = self._total, self._what

        def inner(done: int, _size: int, _what: str) -> None:
            outer(start + done, total, what)

        return inner


def resolve_progress(progress: IntoProgress, title: str) -> Progress | None:
    """Return the callback a ``progress=`` argument asks for.

    A callback is returned as it is; ``False`` gives None (nothing shown); ``None`` and
    ``True`` give a bar under the running cell in a Jupyter notebook
    (:func:`notebook_progress`) and None elsewhere.

    Raises
    ------
    ParameterError
        If ``progress`` is none of these.

    Examples
    --------
    >>> resolve_progress(None, "rankset report") is None  # not in a notebook
    True
    >>> resolve_progress(print, "rankset report") is print
    True
    """
    if progress is None or progress is True:
        return notebook_progress(title)
    if progress is False:
        return None
    if not callable(progress):
        msg = (
            "The 'progress' parameter must be a callable (done, total, what), None (a bar "
            f"in a notebook) or False (nothing). Got {type(progress).__name__} instead."
        )
        raise ParameterError(msg)
    return progress


def notebook_progress(title: str) -> Progress | None:
    """Return a callback that draws a bar under the running Jupyter cell; None elsewhere.

    The bar (an HTML ``<progress>``, with a text twin for frontends that show text only)
    is redrawn in place through ``IPython.display`` with the count, the step, the elapsed
    time and an ETA; it stays, full, once the job is done. Nothing to install: IPython is
    there in every notebook kernel, and it is not imported when it was not already (a
    plain Python process, a terminal, a pipe get None).

    Examples
    --------
    >>> notebook_progress("rankset report") is None  # a doctest runs in no notebook
    True
    """
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return None
    try:
        shell = ipython.get_ipython()
    except AttributeError:  # pragma: no cover - a partly imported or unusual IPython
        return None
    # A kernel (Jupyter, JupyterLab, VS Code, Colab) has an IPKernelApp section; the
    # terminal IPython has none, and a terminal is the command line's to draw on.
    if shell is None or "IPKernelApp" not in getattr(shell, "config", {}):
        return None
    from IPython.display import display

    return NotebookBar(title, display)


class NotebookBar:
    """A progress bar redrawn in place in a notebook's output (see :func:`notebook_progress`).

    ``display`` is ``IPython.display.display`` (tests pass a stand-in): called once with
    ``display_id=True``, it returns the handle whose ``update`` redraws the bar.
    """

    def __init__(self, title: str, display: Callable[..., Any]) -> None:
        self._title = title
        self._display = display
        self._handle: Any = None
        self._start = time.monotonic()
        self._drawn = -float("inf")
        self._done: int | None = None

    def __call__(self, done: int, total: int, what: str) -> None:
        now = time.monotonic()
        last = done >= total
        if not last and done == self._done and now - self._drawn < _REDRAW:
            return  # a bar redrawn thousands of times a second slows the job and the browser
        self._done, self._drawn = done, now
        bundle = self.bundle(done, total, what, now - self._start)
        if self._handle is None:
            self._handle = self._display(bundle, raw=True, display_id=True)
        else:
            self._handle.update(bundle, raw=True)

    def bundle(self, done: int, total: int, what: str, elapsed: float) -> dict[str, str]:
        """Return the bar as a MIME bundle: HTML, and plain text for text-only frontends."""
        share = min(1.0, done / total) if total > 0 else 1.0
        filled = round(share * _BAR_WIDTH)
        label = progress_text(done, total, what, elapsed)
        text = f"{self._title} [{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {label}"
        page = (
            '<div class="rankset-progress" style="font-family: monospace; font-size: 12px">'
            f"{html.escape(self._title)} "
            f'<progress value="{done}" max="{max(total, 1)}" '
            'style="width: 16em; vertical-align: middle"></progress> '
            f"{html.escape(label)}</div>"
        )
        return {"text/plain": text, "text/html": page}
