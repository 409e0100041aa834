"""Other label sets beside the reference labels: their names, agreement and order."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankset.errors import ParameterError
from rankset.evaluation import EvaluateOptions, EvaluationResult
from rankset.io._shared import display_stem
from rankset.pages._resampling import Resampling

if TYPE_CHECKING:
    from rankset.label_quality.assessors import Agreement
    from rankset.label_quality.rank_stability import RankingStability

__all__ = ["check_label_sets", "label_set_checks"]


def label_set_checks(
    runs: Any,
    labels: Any,
    label_sets: Mapping[str, Any] | None,
    result: EvaluationResult,
    options: EvaluateOptions,
    reference: str,
    policy: Resampling,
) -> tuple[Agreement | None, RankingStability | None]:
    """Return the label sets' agreement with the labels, and the systems' order under each."""
    if not label_sets:
        return None, None
    from rankset.label_quality.assessors import agreement as label_agreement

    agreement = label_agreement(labels, dict(label_sets), out_of_scale="drop", confidence=None)
    if len(result.systems) < 2 or not result.metrics:
        return agreement, None
    from rankset.label_quality.rank_stability import ranking_stability

    stability = ranking_stability(
        runs,
        {reference: labels, **label_sets},
        result.metrics[0],
        n_resamples=policy.n_resamples,
        seed=policy.seed,
        **options.as_kwargs(),
    )
    return agreement, stability


def check_label_sets(labels: object, label_sets: Mapping[str, object] | None) -> str:
    """Return the reference labels' name (its file's stem, else "reference")."""
    if isinstance(labels, str | os.PathLike) and not isinstance(labels, bytes):
        reference = display_stem(Path(labels))
    else:
        reference = "reference"
    if not label_sets:
        return reference
    if not isinstance(label_sets, Mapping):
        msg = (
            "The 'label_sets' parameter must be a mapping {name: labels}. "
            f"Got {type(label_sets).__name__} instead."
        )
        raise ParameterError(msg)
    if labels is None:
        msg = "The 'label_sets' parameter needs 'labels': the reference they are compared with."
        raise ParameterError(msg)
    if reference in label_sets:
        msg = (
            f"The 'label_sets' parameter names {reference!r}, the name of the reference "
            "labels; give that label set another name."
        )
        raise ParameterError(msg)
    return reference
