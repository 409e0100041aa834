"""Numpy kernels of the statistics: paired tests, bootstrap intervals, corrections, families.

Pure functions over arrays, below every layer that builds frames: :mod:`.paired` holds
the two-system tests (randomization, paired t, Wilcoxon), bootstrap confidence intervals
and the multiple-testing corrections; :mod:`.multiple` the tests over many systems at once
(Tukey's HSD, its randomized form, two-way ANOVA, effect sizes, rank intervals); the
resampling ones take ``progress=``, the :data:`Progress` callback that every long function
of rankset takes (``rankset._progress``: counted steps, and a bar in Jupyter). numpy is
imported here, so ``import rankset`` does not import this package; scipy is an optional
extra (``pip install "rankset[stats]"``).

Examples
--------
>>> from rankset import stats
>>> stats.adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

from rankset._progress import Progress
from rankset.stats._draws import reused_draws
from rankset.stats.multiple import (
    AnovaTable,
    bootstrap_difference_and_effect_cis,
    bootstrap_effect_size_cis,
    bootstrap_rank_intervals,
    paired_effect_sizes,
    randomized_tukey_hsd,
    tukey_hsd,
    two_way_anova,
)
from rankset.stats.paired import (
    CORRECTIONS,
    Correction,
    adjust_pvalues,
    bootstrap_column_mean_cis,
    bootstrap_mean_ci,
    paired_bootstrap_ci,
    paired_bootstrap_cis,
    paired_randomization_test,
    paired_randomization_tests,
    paired_t_test,
    wilcoxon_test,
)

__all__ = [
    "CORRECTIONS",
    "AnovaTable",
    "Correction",
    "Progress",
    "adjust_pvalues",
    "bootstrap_column_mean_cis",
    "bootstrap_difference_and_effect_cis",
    "bootstrap_effect_size_cis",
    "bootstrap_mean_ci",
    "bootstrap_rank_intervals",
    "paired_bootstrap_ci",
    "paired_bootstrap_cis",
    "paired_effect_sizes",
    "paired_randomization_test",
    "paired_randomization_tests",
    "paired_t_test",
    "randomized_tukey_hsd",
    "reused_draws",
    "tukey_hsd",
    "two_way_anova",
    "wilcoxon_test",
]
