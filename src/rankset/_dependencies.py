"""Optional dependencies: one importer, one install hint.

Heavy packages (scipy, vl-convert, Dask's distributed, rich) are imported only when a
feature needs them, so ``import rankset`` stays fast; a missing one raises
:class:`~rankset.errors.MissingDependencyError` naming the extra that installs it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rankset.errors import MissingDependencyError

__all__ = ["import_optional", "install_hint", "require_scipy"]


def install_hint(extra: str) -> str:
    """Return the pip command that installs rankset's optional ``extra``.

    Examples
    --------
    >>> install_hint("stats")
    'pip install "rankset[stats]"'
    """
    return f'pip install "rankset[{extra}]"'


def import_optional(module: str, *, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingDependencyError` with the install hint.

    Parameters
    ----------
    module
        The module to import (``"scipy.stats"``).
    extra
        rankset's extra that installs it (``"stats"``).
    purpose
        What needs it, starting a sentence (``"The paired t-test"``).

    Examples
    --------
    >>> import_optional("json", extra="stats", purpose="Parsing").__name__
    'json'
    >>> import_optional("no_such_module_xyz", extra="stats", purpose="The t-test")
    Traceback (most recent call last):
    ...
    rankset.errors.MissingDependencyError: The t-test needs no_such_module_xyz: pip install ...
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        msg = f"{purpose} needs {module.split('.')[0]}: {install_hint(extra)}"
        raise MissingDependencyError(msg) from None


def require_scipy() -> None:
    """Raise :class:`MissingDependencyError` unless scipy is importable.

    What the paired t and Wilcoxon tests, Tukey's HSD and the ANOVA check before any
    work, and what :func:`rankset.compare` checks before it evaluates.
    """
    import_optional("scipy.stats", extra="stats", purpose="A paired t or Wilcoxon test")
