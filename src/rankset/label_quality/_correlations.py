"""The correlations of a meta-evaluation, as numpy kernels over many score vectors at once.

Each kernel takes two arrays of shape ``(B, n)``, the truth's and the judge's scores of
the same ``n`` systems in ``B`` draws (one row for a point value, a thousand for a
bootstrap), and returns ``B`` values. The definitions are autojudge-evaluate's:

- ``kendall``: Kendall's tau-b (pandas and scipy's ``kendalltau``);
- ``pearson``: the sample correlation of the scores;
- ``spearman``: Pearson's correlation of the average ranks;
- ``tauap_b``: the tie-aware AP correlation (pyircore's ``tauap_b``), the mean of its
  two directions; each direction averages, over the systems outside the first tie group
  of one ranking, the share of the systems strictly above them in that ranking that the
  other ranking also puts strictly above them; 0.0 when every system ties;
- ``tau_gap``: Gao and Oard's head-weighted gap-sensitive correlation (SIGIR 2015): the
  truth gives the gaps, the judge the order (its ties broken by position), averaged over
  the positions with a non-zero gap mass above them; NaN when there is none.

A constant score vector leaves kendall, pearson and spearman undefined (NaN).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rankset.errors import ParameterError

__all__ = ["BASE_CORRELATIONS", "batched_correlation", "parse_correlation", "top_k_columns"]

FloatArray = npt.NDArray[np.float64]
#: The correlations a name may start with (``kendall@10`` is kendall on the top 10).
BASE_CORRELATIONS = ("kendall", "pearson", "spearman", "tauap_b", "tau_gap")
# (B, n, n) work arrays are cut into blocks of draws of about this many cells.
_BLOCK_CELLS = 4_000_000


def parse_correlation(name: str) -> tuple[str, int | None]:
    """Split ``"kendall@10"`` into ``("kendall", 10)``; a plain name has no cutoff.

    Examples
    --------
    >>> parse_correlation("kendall@10"), parse_correlation("tau_gap")
    (('kendall', 10), ('tau_gap', None))
    """
    base, at, cutoff = str(name).partition("@")
    if base not in BASE_CORRELATIONS or (at and not (cutoff.isdigit() and int(cutoff) > 0)):
        msg = (
            f"Unknown correlation {name!r}: expected one of {', '.join(BASE_CORRELATIONS)}, "
            "or one of them followed by @K (K >= 1: the truth's top K systems)."
        )
        raise ParameterError(msg)
    return base, int(cutoff) if at else None


def batched_correlation(base: str, truth: FloatArray, judged: FloatArray) -> FloatArray:
    """Return the correlation ``base`` of each row of ``truth`` with the same row of ``judged``."""
    kernel = _KERNELS[base]
    n = truth.shape[1]
    block = max(1, _BLOCK_CELLS // max(1, n * n))
    parts = [
        kernel(truth[start : start + block], judged[start : start + block])
        for start in range(0, truth.shape[0], block)
    ]
    out: FloatArray = np.concatenate(parts) if parts else np.empty(0)
    return out


def top_k_columns(truth: FloatArray, k: int, order: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
    """Return the columns of each row's top ``k`` truth scores, in column order.

    Equal scores keep the order of ``order`` (each column's position in the truth's board),
    as a stable sort by decreasing score does.
    """
    keys = np.broadcast_to(order, truth.shape)
    ranked = np.lexsort((keys, -truth), axis=-1)
    return np.sort(ranked[:, :k], axis=1)


def _pearson(x: FloatArray, y: FloatArray) -> FloatArray:
    dx = x - x.mean(axis=1, keepdims=True)
    dy = y - y.mean(axis=1, keepdims=True)
    divisor = np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (dx * dy).sum(axis=1) / divisor
    return np.where(divisor > 0, out, np.nan)


def _average_ranks(x: FloatArray) -> FloatArray:
    below = (x[:, None, :] < x[:, :, None]).sum(axis=2)
    equal = (x[:, None, :] == x[:, :, None]).sum(axis=2)
    ranks: FloatArray = below + (equal + 1) / 2.0
    return ranks


def _spearman(x: FloatArray, y: FloatArray) -> FloatArray:
    return _pearson(_average_ranks(x), _average_ranks(y))


def _kendall(x: FloatArray, y: FloatArray) -> FloatArray:
    sx = np.sign(x[:, :, None] - x[:, None, :])
    sy = np.sign(y[:, :, None] - y[:, None, :])
    score = (sx * sy).sum(axis=(1, 2)) / 2.0  # concordant minus discordant
    untied_x = np.abs(sx).sum(axis=(1, 2)) / 2.0
    untied_y = np.abs(sy).sum(axis=(1, 2)) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = score / np.sqrt(untied_x) / np.sqrt(untied_y)
    return np.where((untied_x > 0) & (untied_y > 0), out, np.nan)


def _tauap_direction(x: FloatArray, y: FloatArray) -> FloatArray:
    """One direction of tau_AP-b: pivots and groups from ``y``, concordance from ``x``.

    Scores are best-first (higher is better): j is above i in y when y_j > y_i.
    """
    above_y = y[:, None, :] > y[:, :, None]  # [b, i, j]: j strictly above i in y
    above_x = x[:, None, :] > x[:, :, None]
    n_above = above_y.sum(axis=2)
    agreeing = (above_y & above_x).sum(axis=2)
    pivots = n_above > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(pivots, agreeing / np.where(pivots, n_above, 1), 0.0)
    n_pivots = pivots.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 2.0 * share.sum(axis=1) / n_pivots - 1.0
    return np.where(n_pivots > 0, out, 0.0)


def _tauap_b(x: FloatArray, y: FloatArray) -> FloatArray:
    return (_tauap_direction(x, y) + _tauap_direction(y, x)) / 2.0


def _tau_gap(truth: FloatArray, judged: FloatArray) -> FloatArray:
    order = np.argsort(-judged, axis=1, kind="stable")
    t = np.take_along_axis(truth, order, axis=1)
    gap = t[:, None, :] - t[:, :, None]  # [b, i, j]: t_j - t_i
    n = t.shape[1]
    before = np.tri(n, n, -1, dtype=bool)[None, :, :]  # j < i
    mass = np.where(before, np.abs(gap), 0.0).sum(axis=2)
    correct = np.where(before & (gap > 0), gap, 0.0).sum(axis=2)
    used = mass > 0
    share = np.where(used, correct / np.where(used, mass, 1.0), 0.0)
    n_used = used.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 2.0 / n_used * share.sum(axis=1) - 1.0
    return np.where(n_used > 0, out, np.nan)


_KERNELS = {
    "kendall": _kendall,
    "pearson": _pearson,
    "spearman": _spearman,
    "tauap_b": _tauap_b,
    "tau_gap": _tau_gap,
}
