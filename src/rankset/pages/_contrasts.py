"""What a page shows without labels: two rankings' contrast, and an evaluation of nothing.

:func:`ranking_contrasts` compares each system's top k with the baseline's, per query
(overlap, Jaccard, rank-biased overlap, tau_AP), as the dashboard's script does for the
two systems it shows; :func:`no_evaluation` is the empty result a label-free
:class:`~rankset.pages.Analysis` holds.
"""

from __future__ import annotations

import polars as pl

from rankset.evaluation import EvaluationResult

__all__ = ["no_evaluation", "ranking_contrasts"]


def ranking_contrasts(
    positions: pl.DataFrame, systems: list[str], baseline: str, k: int, p: float = 0.9
) -> pl.DataFrame:
    """:attr:`Analysis.contrasts`: every other system's top ``k`` against the baseline's.

    RBO without a loop over depths: a shared document enters both prefixes at depth
    m = max(its two ranks), so sum over d of X_d / d p^d is the sum over the shared
    documents with m <= n of G(n) - G(m - 1), G(n) = sum over d = 1..n of p^d / d, with n
    the shorter list's length.
    """
    keys = ["system", "query_id"]
    top = positions.filter(pl.col("pos") <= k).select(
        "system", "query_id", "doc_id", pl.col("pos").cast(pl.Int64)
    )
    base = top.filter(pl.col("system") == baseline).select("query_id", "doc_id", pos_a="pos")
    others = top.filter(pl.col("system") != baseline).rename({"pos": "pos_b"})
    queries = positions.select(pl.col("query_id").unique())
    pairs = (
        pl.DataFrame({"system": [name for name in systems if name != baseline]})
        .join(queries, how="cross")
        .join(base.group_by("query_id").agg(n_a=pl.len()), on="query_id", how="left")
        .join(others.group_by(keys).agg(n_b=pl.len()), on=keys, how="left")
        .with_columns(pl.col("n_a", "n_b").fill_null(0).cast(pl.Int64))
        .with_columns(n=pl.min_horizontal("n_a", "n_b"))
    )
    cumulative = [0.0]
    for depth in range(1, k + 1):
        cumulative.append(cumulative[-1] + p**depth / depth)
    g = pl.DataFrame(
        {"at": range(k + 1), "g": cumulative}, schema={"at": pl.Int64, "g": pl.Float64}
    )
    shared = (
        others.join(base, on=["query_id", "doc_id"])
        .join(pairs.select(*keys, "n"), on=keys)
        .with_columns(m=pl.max_horizontal("pos_a", "pos_b"))
        .join(g.rename({"g": "g_before"}), left_on=pl.col("m") - 1, right_on="at", how="left")
        .join(g.rename({"g": "g_n"}), left_on="n", right_on="at", how="left")
    )
    prefix = pl.col("m") <= pl.col("n")
    sums = shared.group_by(keys).agg(
        overlap=pl.len(),
        x_n=prefix.sum(),
        weights=(pl.col("g_n") - pl.col("g_before")).filter(prefix).sum(),
    )
    # tau_AP: for each shared document below the first in the system's order, the share of
    # those above it that the baseline also ranks above it
    above = (
        shared.select(*keys, "doc_id", "pos_a", "pos_b")
        .join(shared.select(*keys, up_a="pos_a", up_b="pos_b"), on=keys)
        .filter(pl.col("up_b") < pl.col("pos_b"))
        .group_by(*keys, "doc_id")
        .agg(share=(pl.col("up_a") < pl.col("pos_a")).mean())
        .group_by(keys)
        .agg(tau_sum=pl.col("share").sum())
    )
    overlap = pl.col("overlap")
    union = pl.col("n_a") + pl.col("n_b") - overlap
    n = pl.col("n")
    return (
        pairs.join(sums, on=keys, how="left")
        .join(above, on=keys, how="left")
        .with_columns(
            pl.col("overlap", "x_n").fill_null(0), pl.col("weights", "tau_sum").fill_null(0.0)
        )
        .select(
            "system",
            pl.lit(baseline).alias("baseline"),
            "query_id",
            overlap.cast(pl.Int64),
            jaccard=pl.when(union > 0).then(overlap / union),
            rbo=pl.when(n > 0).then(
                pl.col("x_n") / n * pl.lit(p).pow(n) + (1 - p) / p * pl.col("weights")
            ),
            tau_ap=pl.when(overlap >= 2).then(2 * pl.col("tau_sum") / (overlap - 1) - 1),
        )
        .sort("system", "query_id")
        .sort(pl.col("system").replace_strict(systems, range(len(systems))), maintain_order=True)
    )


def no_evaluation(systems: list[str]) -> EvaluationResult:
    """Return an evaluation of no metric (the label-free analysis's ``result``)."""
    return EvaluationResult(
        per_query=pl.DataFrame(
            schema={
                "system": pl.String,
                "query_id": pl.String,
                "metric": pl.String,
                "measure": pl.String,
                "k": pl.Int64,
                "value": pl.Float64,
            }
        ),
        summary=pl.DataFrame(
            schema={
                "system": pl.String,
                "metric": pl.String,
                "mean": pl.Float64,
                "ci_low": pl.Float64,
                "ci_high": pl.Float64,
                "n_queries": pl.Int64,
                "n_na": pl.Int64,
            }
        ),
        query_counts=pl.DataFrame(schema={"system": pl.String}),
        config={"metrics": [], "systems": systems},
    )
