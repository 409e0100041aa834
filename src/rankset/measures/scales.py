"""Grade scales: how a label's native grade maps to a RAG utility tier 5..1.

The RAG set metrics (:mod:`rankset.measures.rag`) reason in tiers: 5 decisive, 4 highly relevant,
3 partially useful, 2 weak, 1 distractor or harmful. Label sets come with their own grades
(TREC DL uses 0-3, golden sets 1-5, binary sets 0-1), so a scale maps each grade to a tier.

Presets:

* ``rag5``: grades 1..5 are the tiers (the default when the labels fit it);
* ``trec_dl``: 3 → 5, 2 → 4, 1 → 3, 0 → 1;
* ``binary``: 1 → 5, 0 → 1.

Without a scale (``scale="auto"``, the default) the labels choose one
(:func:`infer_scale`). A custom scale is a ``{grade: tier}`` dict. Negative grades mean
"in the pool but unjudged"
(as in trec_eval) and get no tier; any other grade missing from the scale is an error.

Examples
--------
>>> from rankset.measures.scales import resolve_scale
>>> resolve_scale("trec_dl").tiers
{3.0: 5, 2.0: 4, 1.0: 3, 0.0: 1}
>>> resolve_scale({0: 1, 1: 4, 2: 5}).name
'custom'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from rankset.errors import GradeScaleError, ParameterError, RanksetError

__all__ = [
    "PRESETS",
    "TIERS",
    "GradeScale",
    "check_grades_in_scale",
    "infer_scale",
    "resolve_scale",
]

TIERS = (5, 4, 3, 2, 1)
_MAX_LISTED = 8


@dataclass(frozen=True)
class GradeScale:
    """A named mapping from native grades to tiers 5..1."""

    name: str
    tiers: dict[float, int]

    def __post_init__(self) -> None:
        for grade, tier in self.tiers.items():
            if tier not in TIERS:
                msg = (
                    f"Scale {self.name!r} maps grade {grade:g} to tier {tier!r}; "
                    "tiers must be integers 1..5."
                )
                raise ParameterError(msg)

    def __hash__(self) -> int:
        # A dict does not hash: equal scales (the same name and tiers) hash alike.
        return hash((self.name, tuple(sorted(self.tiers.items()))))

    def tier_expr(self, grade: pl.Expr) -> pl.Expr:
        """Map a grade column to its tier (Int8); null for unlabelled or negative grades."""
        return grade.replace_strict(
            list(self.tiers), list(self.tiers.values()), default=None, return_dtype=pl.Int8
        )

    def tier_table(self, name: str = "_tier") -> pl.LazyFrame:
        """Return the mapping as a frame ``grade`` (f64), ``name`` (i8), for joins.

        A join maps grades to tiers natively in the streaming engine, where
        :meth:`tier_expr` would fall back to the in-memory one. Negative grades are left
        out (they never have a tier).
        """
        kept = {grade: tier for grade, tier in self.tiers.items() if grade >= 0}
        return pl.LazyFrame(
            {"grade": list(kept), name: list(kept.values())},
            schema={"grade": pl.Float64, name: pl.Int8},
        )

    def describe(self) -> str:
        """Return the scale in words, e.g. ``trec_dl (3→5, 2→4, 1→3, 0→1)``."""
        pairs = ", ".join(f"{grade:g}→{tier}" for grade, tier in self.tiers.items())
        return f"{self.name} ({pairs})"


PRESETS: dict[str, GradeScale] = {
    "rag5": GradeScale("rag5", {5.0: 5, 4.0: 4, 3.0: 3, 2.0: 2, 1.0: 1}),
    "trec_dl": GradeScale("trec_dl", {3.0: 5, 2.0: 4, 1.0: 3, 0.0: 1}),
    "binary": GradeScale("binary", {1.0: 5, 0.0: 1}),
}


def infer_scale(grades: pl.Series) -> str | None:
    """Name the preset the labels' grades fit, or None when none does.

    ``rag5`` whenever every non-negative grade is one of 1..5 (the default scale, so a
    label set that fits it keeps it); else ``binary`` for grades 0 and 1, ``trec_dl`` for
    grades 0..3. Negative grades ("in the pool but unjudged") never count.

    Examples
    --------
    >>> infer_scale(pl.Series([1.0, 5.0])), infer_scale(pl.Series([0.0, 1.0]))
    ('rag5', 'binary')
    >>> infer_scale(pl.Series([0.0, 3.0, -1.0])), infer_scale(pl.Series([0.0, 4.0]))
    ('trec_dl', None)
    """
    present = set(grades.filter(grades >= 0).unique().to_list())
    for name in ("rag5", "binary", "trec_dl"):
        if present <= set(PRESETS[name].tiers):
            return name
    return None


def resolve_scale(scale: str | Mapping[float, int] | GradeScale) -> GradeScale:
    """Return the :class:`GradeScale` named or described by ``scale``."""
    if isinstance(scale, GradeScale):
        return scale
    if isinstance(scale, str):
        try:
            return PRESETS[scale]
        except KeyError:
            msg = (
                f"The 'scale' parameter must be one of {', '.join(map(repr, PRESETS))} or a "
                f"{{grade: tier}} dict. Got {scale!r} instead."
            )
            raise ParameterError(msg) from None
    if isinstance(scale, Mapping) and scale:
        try:
            tiers = {float(grade): int(tier) for grade, tier in scale.items()}
        except (TypeError, ValueError):
            msg = f"A custom scale must map numbers to tiers 1..5. Got {dict(scale)!r} instead."
            raise ParameterError(msg) from None
        return GradeScale("custom", tiers)
    msg = (
        "The 'scale' parameter must be a preset name or a non-empty {grade: tier} dict. "
        f"Got {scale!r} instead."
    )
    raise ParameterError(msg)


def check_grades_in_scale(grades: pl.Series, scale: GradeScale, source: str) -> None:
    """Raise :class:`GradeScaleError` if a non-negative grade has no tier in ``scale``."""
    outside = grades.filter((grades >= 0) & ~grades.is_in(list(scale.tiers))).unique().sort()
    if outside.len():
        listed = ", ".join(f"{g:g}" for g in outside.head(_MAX_LISTED).to_list())
        msg = (
            f"{source}: grade(s) {listed} are outside the scale {scale.describe()}. Choose the "
            "scale that matches the labels (CLI --scale rag5|trec_dl|binary) or pass a "
            "{grade: tier} dict."
        )
        raise GradeScaleError(msg + _documented_grades(source))


def _documented_grades(source: str) -> str:
    """For an ``irds:`` source, what its dataset documents of each grade, else ``""``."""
    if not source.startswith("irds:"):
        return ""
    from rankset.io import irds_grade_definitions

    try:
        definitions = irds_grade_definitions(source)
    except RanksetError:
        return ""
    if not definitions:
        return " The dataset documents no meaning for its grades."
    shown = "; ".join(f"{grade}: {text}" for grade, text in sorted(definitions.items()))
    return f" The dataset documents its grades as {shown}."
