"""The one resampling policy of both pages: :class:`Resampling`.

The intervals of means draw :data:`DEFAULT_RESAMPLES` bootstrap resamples, as
:func:`rankset.evaluate` does; the randomization test draws :data:`TEST_RESAMPLES` sign
assignments, as :func:`rankset.compare` and the gate do, and more when the comparisons
need them: with ``m`` rows per baseline, Holm (or Bonferroni, or BH)
multiplies the smallest p-value, ``1 / (n + 1)``, by ``m``, so too few draws make every
comparison insignificant whatever the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from rankset._typing import Correction, Test, choices_of
from rankset._validation import check_choice, check_fraction, check_int

__all__ = ["DEFAULT_RESAMPLES", "HEADROOM", "TEST_RESAMPLES", "Resampling"]

#: Bootstrap resamples of every interval of a mean (as :func:`rankset.evaluate` draws them,
#: so a page's summary is evaluate's).
DEFAULT_RESAMPLES: Final = 1_000
#: The fewest sign assignments of the randomization test, and resamples of the
#: differences' intervals (as :func:`rankset.compare` and the gate draw them).
TEST_RESAMPLES: Final = 10_000
#: How far below ``alpha`` the smallest reachable adjusted p-value must lie: the
#: randomization test draws at least ``HEADROOM * comparisons / alpha`` assignments.
HEADROOM: Final = 5


@dataclass(frozen=True)
class Resampling:
    """The one resampling policy of an analysis: intervals and tests, on both pages.

    Attributes
    ----------
    n_resamples
        Bootstrap resamples of every interval: of the means (summary, curves) and of the
        differences with a baseline.
    n_permutations
        Random sign assignments of the randomization test, sized to the comparisons:
        with ``m`` rows per baseline and ``correction`` Holm, Bonferroni or BH, the
        smallest reachable adjusted p-value, ``m / (n_permutations + 1)``, is at most
        ``alpha / 5``.
    seed
        One seed for all of them.
    test, correction, alpha
        The paired test, its multiple-testing correction over the rows of one
        baseline, and the level at which a row is significant (``p_adj < alpha``).
    sized
        Whether ``n_permutations`` was raised above :data:`TEST_RESAMPLES` for the
        comparisons.
    """

    n_resamples: int = DEFAULT_RESAMPLES
    n_permutations: int = TEST_RESAMPLES
    seed: int = 0
    test: Test = "randomization"
    correction: Correction | None = "holm"
    alpha: float = 0.05
    sized: bool = False

    @classmethod
    def for_comparisons(
        cls,
        rows: int,
        *,
        n_resamples: int | None = None,
        seed: int = 0,
        test: Test = "randomization",
        correction: Correction | None = "holm",
        alpha: float = 0.05,
    ) -> Resampling:
        """Return the policy for ``rows`` comparisons per baseline.

        ``n_resamples`` given: that many for everything, as asked (a page notes when no
        row can then be significant). None: :data:`DEFAULT_RESAMPLES` for the intervals,
        :data:`TEST_RESAMPLES` for the tests, and for the randomization test enough
        assignments for ``rows`` comparisons.

        Examples
        --------
        >>> Resampling.for_comparisons(6).n_permutations
        10000
        >>> Resampling.for_comparisons(100).n_permutations  # 21 systems x 5 metrics
        10000
        >>> Resampling.for_comparisons(120).n_permutations  # 21 systems x 6 metrics
        12000
        """
        check_choice("test", test, ("randomization", "t", "wilcoxon"))
        if correction is not None:
            check_choice("correction", correction, choices_of(Correction))
        check_fraction("alpha", alpha)
        if n_resamples is not None:
            count = check_int("n_resamples", n_resamples, 1)
            return cls(count, count, seed, test, correction, alpha)
        needed = TEST_RESAMPLES
        if test == "randomization" and correction is not None and rows > 1:
            floor = math.ceil(HEADROOM * rows / alpha)
            needed = max(needed, -(-floor // 1000) * 1000)  # a round number of thousands
        sized = needed > TEST_RESAMPLES
        return cls(DEFAULT_RESAMPLES, needed, seed, test, correction, alpha, sized)

    def describe(self) -> str:
        """One sentence for a page: what the intervals and the tests drew."""
        test = {
            "randomization": f"paired randomization test ({self.n_permutations:,} permutations)",
            "t": "paired t-test",
            "wilcoxon": "Wilcoxon signed-rank test",
        }[self.test]
        correction = "no correction" if self.correction is None else f"{self.correction} correction"
        return (
            f"95% bootstrap intervals ({self.n_resamples:,} resamples); {test}, {correction} "
            f"over each baseline's comparisons, alpha = {self.alpha:g}; seed {self.seed}."
        )
