"""Tests of ``irds:`` labels: ir_datasets ids and pyserini's short names.

ir_datasets reads ``IR_DATASETS_HOME`` when it is first imported, so the tests that
need its cache run in a subprocess with a temporary one, seeded from the shared DL19
qrels. No test downloads: the offline test points every proxy at a closed port.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from rankset.errors import InputFormatError, MissingDependencyError
from rankset.io import IRDS_SHORT_NAMES, read, resolve_irds_id

DL19_ID = "msmarco-passage/trec-dl-2019/judged"


@pytest.mark.parametrize(
    ("name", "dataset_id"),
    [
        ("irds:dl19-passage", DL19_ID),
        ("irds:dl20-passage", "msmarco-passage/trec-dl-2020/judged"),
        ("irds:beir-v1.0.0-scifact-test", "beir/scifact/test"),
        ("irds:beir-v1.0.0-trec-covid-test", "beir/trec-covid"),
        ("irds:beir-v1.0.0-cqadupstack-android-test", "beir/cqadupstack/android"),
        ("irds:beir/nfcorpus/test", "beir/nfcorpus/test"),
    ],
)
def test_short_names_resolve_to_ir_datasets_ids(name: str, dataset_id: str) -> None:
    assert resolve_irds_id(name) == dataset_id


def test_every_short_name_is_an_ir_datasets_id() -> None:
    ir_datasets = pytest.importorskip("ir_datasets", reason="ir_datasets is not installed")
    known = set(ir_datasets.registry)
    assert sorted(set(IRDS_SHORT_NAMES.values()) - known) == []


def test_without_ir_datasets_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "rankset\[irds\]"'):
        read("irds:dl19-passage")


def test_an_irds_id_is_not_a_run() -> None:
    with pytest.raises(InputFormatError, match="names labels"):
        read("irds:dl19-passage", kind="run")


def test_an_unknown_id_suggests_a_name() -> None:
    pytest.importorskip("ir_datasets", reason="ir_datasets is not installed")
    with pytest.raises(InputFormatError, match=r"no dataset 'dl19-pasage'.*'dl19-passage'"):
        read("irds:dl19-pasage")


def _closed_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _offline_env(home: Path) -> dict[str, str]:
    proxy = f"http://127.0.0.1:{_closed_port()}"
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy",)}
    env.update(
        IR_DATASETS_HOME=str(home),
        HTTP_PROXY=proxy,
        HTTPS_PROXY=proxy,
        http_proxy=proxy,
        https_proxy=proxy,
    )
    return env


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "rankset.cli", *args]
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_irds_labels_from_a_seeded_cache_equal_the_shared_qrels(
    shared_data: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ir_datasets", reason="ir_datasets is not installed")
    qrels = shared_data / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    run = shared_data / "rank_llm_dl_runs" / "first_stage" / "bm25.dl19.trec.gz"
    if not (qrels.is_file() and run.is_file()):
        pytest.skip(f"the DL19 qrels or BM25 run are not in {shared_data}")
    # Where ir_datasets keeps this dataset's qrels (ir_datasets/etc/downloads.json:
    # msmarco-passage, trec-dl-2019/qrels, cache_path), uncompressed.
    home = tmp_path / "ir_datasets"
    target = home / "msmarco-passage" / "trec-dl-2019" / "qrels"
    target.parent.mkdir(parents=True)
    target.write_bytes(gzip.decompress(qrels.read_bytes()))
    env = _offline_env(home)
    metrics = ["-m", "ndcg@10", "-m", "map", "-m", "recall@1000"]

    by_id = _cli(["evaluate", str(run), "--qrels", f"irds:{DL19_ID}", *metrics, "--json"], env)
    by_name = _cli(["evaluate", str(run), "--qrels", "irds:dl19-passage", *metrics, "--json"], env)
    by_file = _cli(["evaluate", str(run), "--qrels", str(qrels), *metrics, "--json"], env)

    assert by_id.returncode == 0, by_id.stderr
    assert by_name.returncode == 0, by_name.stderr
    assert by_file.returncode == 0, by_file.stderr
    values = [_means(result.stdout) for result in (by_id, by_name, by_file)]
    assert values[0] == values[2]
    assert values[1] == values[2]
    assert len(values[2]) == 3


def _means(stdout: str) -> dict[str, float]:
    document = json.loads(stdout)
    rows = document["summary"] if isinstance(document, dict) else document
    return {row["metric"]: row["mean"] for row in rows}


def test_offline_with_an_empty_cache_exits_2_naming_the_cache(tmp_path: Path) -> None:
    pytest.importorskip("ir_datasets", reason="ir_datasets is not installed")
    home = tmp_path / "empty"
    home.mkdir()
    run = tmp_path / "run.trec"
    run.write_text("19335 Q0 1017759 1 2.0 bm25\n")

    result = _cli(
        ["evaluate", str(run), "--qrels", "irds:dl19-passage", "-m", "rr"], _offline_env(home)
    )

    assert result.returncode == 2
    assert DL19_ID in result.stderr
    assert f"IR_DATASETS_HOME={home}" in result.stderr
    assert "machine with network" in result.stderr
    assert "Traceback" not in result.stderr
