"""The RAG side tables: a separate candidate pool's tier counts, and answer positions.

Both are small per-query frames computed beside the pass over the runs and joined to its
aggregates: the pool replaces the default pool (what each system retrieved) for
``proc@k``, the answer positions feed ``containment@k``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankset import io as rio
from rankset._typing import OrderPolicy, ScorePrecision
from rankset.errors import ParameterError, SchemaError
from rankset.evaluation._inputs import RunInput, is_ranx_run
from rankset.evaluation._runs import Runs
from rankset.io import ParsedInput
from rankset.measures import Features
from rankset.measures._shared import GROUP
from rankset.measures.scales import TIERS
from rankset.schema import normalize_run

__all__ = ["Pools", "answer_positions", "answer_rows", "pool_tier_counts", "read_answers"]


@dataclass(frozen=True)
class Pools:
    """Tier counts of a separate candidate pool, and how they replace the default ones."""

    counts: pl.LazyFrame  # query_id [, system], _pooled_<tier>...
    by_system: bool
    systems: frozenset[str]
    description: str

    def replace_counts(self, scored: pl.DataFrame, counts: pl.DataFrame) -> pl.DataFrame:
        key = ["system", "query_id"] if self.by_system else ["query_id"]
        joined = scored.join(counts, on=key, how="left")
        uses_pool = pl.col("system").is_in(list(self.systems)) if self.by_system else pl.lit(True)
        return joined.with_columns(
            pl.when(uses_pool)
            .then(pl.col(f"_pooled_{tier}").fill_null(0.0))
            .otherwise(pl.col(f"_pool_tier_{tier}"))
            .alias(f"_pool_tier_{tier}")
            for tier in TIERS
        ).drop([f"_pooled_{tier}" for tier in TIERS])


def pool_tier_counts(
    features: Features,
    pool: Any,
    labels: pl.LazyFrame,
    *,
    order: OrderPolicy,
    depth: int | None = None,
    score_precision: ScorePrecision = "float64",
) -> Pools | None:
    if pool is None or "_pool_tier_5" not in features.aggregations:
        return None
    by_system = isinstance(pool, Mapping) and not is_ranx_run(pool)
    items = list(pool.items()) if by_system else [("_pool", pool)]
    frames = []
    for name, source in items:
        parsed = rio.read(source, kind="run")
        if parsed.run is None:
            msg = f"{parsed.source}: the pool has no run in it."
            raise SchemaError(msg)
        frame = parsed.run.with_columns(system=pl.lit(str(name), dtype=pl.String))
        # A pool is a set of candidates: a repeated document counts once.
        normalised = normalize_run(
            frame,
            source=parsed.source,
            order=order,
            duplicates="keep_best",
            score_precision=score_precision,
        )
        frames.append(normalised if depth is None else normalised.filter(pl.col("pos") <= depth))
    key = ["system", "query_id"] if by_system else ["query_id"]
    # Only pooled documents with a tier count; untiered ones add nothing.
    tiered_labels = labels.join(features.scale.tier_table(), on="grade", how="inner")
    counts = (
        pl.concat(frames, how="diagonal_relaxed")
        .select("system", "query_id", "doc_id")
        .join(tiered_labels, on=["query_id", "doc_id"], how="inner")
        .group_by(key)
        .agg(
            (pl.col("_tier") == t).fill_null(False).sum().cast(pl.Float64).alias(f"_pooled_{t}")
            for t in TIERS
        )
    )
    names = frozenset(str(name) for name, _ in items)
    description = (
        "by system: " + ", ".join(sorted(names)) if by_system else "one pool for all systems"
    )
    return Pools(counts=counts, by_system=by_system, systems=names, description=description)


def read_answers(answers: Any, inputs: list[RunInput], label_input: ParsedInput) -> pl.LazyFrame:
    """Return the acceptable answers: ``answers=``, else those the inputs carry."""
    if answers is None:
        found = [i.parsed.answers for i in inputs if i.parsed.answers is not None]
        if label_input.answers is not None:
            found.append(label_input.answers)
        if not found:
            msg = (
                "containment@k needs acceptable answers: pass answers= (CLI --answers FILE) or "
                "use samples with an expected_answer field."
            )
            raise ParameterError(msg)
        frame = pl.concat(found).unique()
    else:
        frame = rio.read_answers(answers)
    return answer_rows(frame)


def answer_rows(answers: pl.LazyFrame) -> pl.LazyFrame:
    """Return ``query_id, answer`` as text: the answers as every measure reads them."""
    return answers.select(pl.col("query_id").cast(pl.String), pl.col("answer").cast(pl.String))


_WHITESPACE = r"\s+"


def _normalise_for_match(text: pl.Expr, mode: str) -> pl.Expr:
    if mode == "casefold":
        return text.str.to_lowercase()
    if mode == "whitespace":
        return text.str.replace_all(_WHITESPACE, " ").str.strip_chars()
    return text


def answer_positions(features: Features, runs: Runs, answers: pl.LazyFrame) -> pl.LazyFrame:
    """Per (system, query): the first position whose text contains an answer, per mode."""
    run = runs.frame()
    if "text" not in run.collect_schema().names():
        msg = (
            "containment@k needs the passage text of each retrieved document; the runs "
            f"({', '.join(runs.sources)}) carry no text."
        )
        raise SchemaError(msg)
    rows = run.select("system", "query_id", "pos", "text").join(answers, on="query_id")
    return rows.group_by(list(GROUP)).agg(
        pl.col("pos")
        .filter(
            _normalise_for_match(pl.col("text"), mode).str.contains(
                _normalise_for_match(pl.col("answer"), mode), literal=True
            )
            & (pl.col("answer").str.len_bytes() > 0)
        )
        .min()
        .cast(pl.Float64)
        .alias(f"_first_answer_{mode}")
        for mode in sorted(features.containment_modes)
    )
