"""Store.to_mlflow: an entry's means and tables in an MLflow run (local file store)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

import rankset
from rankset.errors import MissingDependencyError
from rankset.experiments import Store

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def _logged(tmp_path: Path) -> tuple[Store, str, rankset.EvaluationResult]:
    store = Store(tmp_path / "store")
    runs, qrels = str(SAMPLE / "bm25.trec"), str(SAMPLE / "qrels.txt")
    result = rankset.evaluate(runs, qrels, ["ndcg@10", "ap"])
    entry = store.log(result, tag="main", meta={"who": "ci"}, run_sources=runs)
    return store, entry, result


def test_an_entry_lands_in_an_mlflow_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # MLflow's local file store, no server (MLflow 3 asks for this opt-in to use it)
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    with warnings.catch_warnings():  # MLflow's own deprecation notices are not ours
        warnings.simplefilter("ignore")
        mlflow = pytest.importorskip("mlflow", reason="needs the rankset[mlflow] extra")
        store, entry, result = _logged(tmp_path)
        uri = (tmp_path / "mlruns").as_uri()
        run_id = store.to_mlflow(tracking_uri=uri, experiment="rankset-test")
        run = mlflow.MlflowClient(tracking_uri=uri).get_run(run_id)
        artifacts = mlflow.MlflowClient(tracking_uri=uri).list_artifacts(run_id, "rankset")
    means = dict(result.summary.select("metric", "mean").iter_rows())
    assert run.data.metrics == {
        "bm25/ndcg_at_10": means["ndcg@10"],
        "bm25/ap": means["ap"],
    }
    assert run.data.params["rankset.entry_id"] == entry
    assert run.data.params["rankset.version"] == rankset.__version__
    assert run.data.tags["rankset.tag"] == "main"
    assert run.data.tags["meta.who"] == "ci"
    assert run.info.run_name == "main"
    names = sorted(Path(item.path).name for item in artifacts)
    assert "per_query.parquet" in names
    assert "summary.parquet" in names


def test_without_mlflow_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, entry, _ = _logged(tmp_path)
    monkeypatch.setitem(sys.modules, "mlflow", None)
    with pytest.raises(MissingDependencyError, match=r"rankset\[mlflow\]"):
        store.to_mlflow(entry)
