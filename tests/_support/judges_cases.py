"""Inputs of the judges view's tests: the sample with four systems and a made-up judge.

The bundled sample has two runs; a leaderboard correlation needs three systems or more,
so two more are derived from them (each ranking's scores blended with seeded noise).
The judge is the sample's labels moved (see :func:`sample_judge`): it agrees with the
humans on most pairs, disagrees on some queries, and favours one system.
Also the DL19 inputs of the slow test: four runs, NIST's qrels and an UMBRELA judge from
the shared folder (read there, never copied into the repository).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from _support.dashboard_cases import DL19_QRELS, DL19_RUNS, SAMPLE_QRELS, SAMPLE_RUNS
from rankset.io import scan_labels, scan_run

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
DL19_JUDGE = "llm_qrels_dl/arabzadeh_clarke/qrels.dl19-passage.umbrela-gpt4o.txt.gz"


def sample_runs(seed: int = 7) -> dict[str, pl.DataFrame]:
    """The sample's two runs and two noisy blends of them (four systems)."""
    rng = np.random.default_rng(seed)
    runs = {
        name: scan_run(path).collect().select("query_id", "doc_id", "score")
        for name, path in SAMPLE_RUNS.items()
    }
    for name, source, spread in (("noisy-bm25", "bm25", 4.0), ("noisy-rerank", "rerank", 1.5)):
        frame = runs[source]
        noise = rng.normal(0.0, spread, frame.height)
        runs[name] = frame.with_columns(pl.col("score") + pl.Series(noise))
    return runs


def sample_judge(folder: Path, runs: dict[str, pl.DataFrame], *, seed: int = 3) -> Path:
    """A judge of the sample (a TREC file): the humans' labels, moved.

    A harsher grade on a third of the queries, a lenient one on some pairs, and grade 2
    for the unjudged documents ``noisy-bm25`` ranks in its top 3 (a judge that favours
    one system, which moves it up its leaderboard).
    """
    labels = scan_labels(SAMPLE_QRELS).collect().select("query_id", "doc_id", "grade")
    queries = sorted(set(labels["query_id"]))
    rng = np.random.default_rng(seed)
    harsh = {q for q in queries if rng.random() < 0.35}
    lenient = rng.random(labels.height) < 0.15
    judged = labels.with_columns(
        grade=pl.when(pl.col("query_id").is_in(sorted(harsh)))
        .then((pl.col("grade") - 1).clip(lower_bound=0))
        .when(pl.Series(lenient))
        .then((pl.col("grade") + 1).clip(upper_bound=3))
        .otherwise(pl.col("grade"))
    )
    favoured = (
        runs["noisy-bm25"]
        .sort("query_id", "score", descending=[False, True])
        .group_by("query_id", maintain_order=True)
        .head(3)
        .join(labels, on=["query_id", "doc_id"], how="anti")
        .select("query_id", "doc_id", grade=pl.lit(2, dtype=labels.schema["grade"]))
    )
    judged = pl.concat([judged, favoured])
    path = folder / "llm-judge.txt"
    judged.select("query_id", pl.lit("0").alias("iter"), "doc_id", "grade").write_csv(
        path, separator=" ", include_header=False
    )
    return path


def dl19(shared: Path = SHARED) -> dict[str, object] | None:
    """The DL19 runs, qrels and UMBRELA judge, or None when the shared folder lacks one."""
    paths = {
        "runs": {name: shared / path for name, path in DL19_RUNS.items()},
        "qrels": shared / DL19_QRELS,
        "judge": shared / DL19_JUDGE,
    }
    every = [*paths["runs"].values(), paths["qrels"], paths["judge"]]  # type: ignore[attr-defined]
    return paths if all(Path(p).exists() for p in every) else None
