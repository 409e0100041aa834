"""One store entry into an MLflow run: its means as metrics, its tables as artifacts.

MLflow is an optional extra (``pip install "rankset[mlflow]"``; ``mlflow-skinny`` is
enough), imported only here. MLflow's metric names take letters, digits, ``_ - . / `` and
spaces, so ``ndcg@10`` of system ``bm25`` is logged as ``bm25/ndcg_at_10`` (:func:`mlflow_name`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import polars as pl

from rankset._dependencies import import_optional

__all__ = ["log_entry_to_mlflow", "mlflow_name"]

_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_\-./ ]")


def mlflow_name(system: str, metric: str) -> str:
    """Return the MLflow metric name of a system's metric.

    Examples
    --------
    >>> mlflow_name("bm25", "ndcg@10"), mlflow_name("rerank", "fbeta(beta=2)@5")
    ('bm25/ndcg_at_10', 'rerank/fbeta_beta_2__at_5')
    """
    return _NOT_ALLOWED.sub("_", f"{system}/{metric.replace('@', '_at_')}")


def log_entry_to_mlflow(
    folder: Path,
    runs: pl.DataFrame,
    summary: pl.DataFrame,
    *,
    tracking_uri: str | None,
    experiment: str | None,
    run_name: str | None,
) -> str:
    """Log one entry (its ``runs`` and ``summary`` rows, its folder's files); return the run id."""
    mlflow: Any = import_optional(
        "mlflow", extra="mlflow", purpose="Logging a store entry to MLflow"
    )
    if tracking_uri is not None:
        mlflow.set_tracking_uri(tracking_uri)
    if experiment is not None:
        mlflow.set_experiment(experiment)
    first = runs.row(0, named=True)
    entry_id = str(first["entry_id"])
    params = {
        "rankset.entry_id": entry_id,
        "rankset.version": first["rankset_version"],
        "rankset.labels_hash": first["labels_hash"],
        "rankset.metrics": first["metrics"],
        "rankset.options": first["options"],
    }
    for row in runs.iter_rows(named=True):
        params[f"rankset.run_hash.{row['system']}"] = row["run_hash"]
    tags = {"rankset.tag": first["tag"], "rankset.git_commit": first["git_commit"]}
    meta = json.loads(first["meta"]) if first["meta"] else {}
    tags.update({f"meta.{key}": value for key, value in meta.items()})
    metrics = {
        mlflow_name(system, metric): mean
        for system, metric, mean in summary.select("system", "metric", "mean").iter_rows()
        if mean is not None
    }
    with mlflow.start_run(run_name=run_name or first["tag"] or entry_id) as run:
        mlflow.log_params({key: _text(value) for key, value in params.items()})
        mlflow.set_tags({key: _text(value) for key, value in tags.items() if value is not None})
        mlflow.log_metrics(metrics)
        for path in sorted(folder.glob("*.parquet")):
            mlflow.log_artifact(str(path), artifact_path="rankset")
        return str(run.info.run_id)


def _text(value: object) -> str:
    # MLflow keeps parameter values up to 6,000 characters
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 6000 else text[:5997] + "..."
