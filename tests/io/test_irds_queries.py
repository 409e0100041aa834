"""Tests of what ``irds:`` brings besides the qrels: queries, the grade scale, -m official.

ir_datasets reads ``IR_DATASETS_HOME`` when it is first imported, so every test runs
rankset in a subprocess with a temporary cache seeded from ``../shared/data`` (the DL19
qrels and topics, MS MARCO dev's small qrels), every proxy pointed at a closed port:
nothing is downloaded. The expected values come from the shared files themselves, from
NIST's summary of an official run, or from the same file read with an explicit option.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ir_datasets", reason="ir_datasets is not installed")

ANSERINI = Path("anserini_qrels_topics")
DL19_QRELS = ANSERINI / "qrels" / "qrels.dl19-passage.txt.gz"
DL19_TOPICS = ANSERINI / "topics" / "topics.dl19-passage.txt"
DEV_QRELS = ANSERINI / "qrels" / "qrels.msmarco-passage.dev-subset.txt.gz"
ICT_BERT2 = Path("trec_dl_official") / "runs_dl19_complete" / "ICT-BERT2.run.gz"
# NIST's "passages-eval" summary of ICT-BERT2 (trec_eval -l 2): official_summaries.tsv.
NIST_ICT_BERT2 = {"ndcg@10": 0.6650, "rr(rel=2)": 0.8743, "ap(rel=2)": 0.2421}


def _need(shared_data: Path, *names: Path) -> list[Path]:
    paths = [shared_data / name for name in names]
    missing = [str(name) for name, path in zip(names, paths, strict=True) if not path.is_file()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not in {shared_data}")
    return paths


def _seed(home: Path, shared_data: Path, *, queries: bool = True, dev: bool = False) -> None:
    """Put the shared files where ir_datasets keeps them (its etc/downloads.json)."""
    qrels, topics = _need(shared_data, DL19_QRELS, DL19_TOPICS)
    folder = home / "msmarco-passage" / "trec-dl-2019"
    folder.mkdir(parents=True)
    (folder / "qrels").write_bytes(gzip.decompress(qrels.read_bytes()))
    if queries:  # the judged DL19 topics, 'qid<TAB>text' as msmarco-test2019-queries.tsv
        shutil.copyfile(topics, folder / "queries.tsv")
    if dev:
        (dev_qrels,) = _need(shared_data, DEV_QRELS)
        small = home / "msmarco-passage" / "dev" / "small"
        small.mkdir(parents=True)
        (small / "qrels").write_bytes(gzip.decompress(dev_qrels.read_bytes()))


def _closed_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    proxy = f"http://127.0.0.1:{_closed_port()}"
    env = {k: v for k, v in os.environ.items() if k.lower() != "no_proxy"}
    env.update(IR_DATASETS_HOME=str(home), HTTP_PROXY=proxy, HTTPS_PROXY=proxy)
    env.update(http_proxy=proxy, https_proxy=proxy)
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _python(code: str, home: Path) -> object:
    result = _run(["-c", code], home)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return _run(["-m", "rankset.cli", *args], home)


def _means(stdout: str) -> dict[str, float]:
    document = json.loads(stdout)
    rows = document["summary"] if isinstance(document, dict) else document
    return {row["metric"]: row["mean"] for row in rows}


def test_queries_of_a_seeded_dataset_are_its_topics(shared_data: Path, tmp_path: Path) -> None:
    _seed(tmp_path, shared_data)
    (topics,) = _need(shared_data, DL19_TOPICS)
    expected = [line.split("\t", 1) for line in topics.read_text().splitlines() if line]

    rows = _python(
        "import json; from rankset.io import read_irds_queries\n"
        "q = read_irds_queries('irds:dl19-passage', download=False)\n"
        "print(json.dumps([q.columns, q.rows()]))",
        tmp_path,
    )

    assert rows == [["query_id", "text"], expected]
    assert len(expected) == 43


def test_queries_not_in_the_cache_are_not_downloaded(shared_data: Path, tmp_path: Path) -> None:
    _seed(tmp_path, shared_data, queries=False)

    message = _python(
        "import json; from rankset.io import read_irds_queries\n"
        "try:\n"
        "    read_irds_queries('irds:dl19-passage', download=False)\n"
        "except Exception as e:\n"
        "    print(json.dumps([type(e).__name__, str(e)]))",
        tmp_path,
    )

    assert isinstance(message, list)
    assert message[0] == "InputFormatError"
    assert "the queries of ir_datasets dataset 'msmarco-passage/trec-dl-2019/judged'" in message[1]
    assert f"IR_DATASETS_HOME={tmp_path}" in message[1]
    assert not (tmp_path / "msmarco-passage" / "trec-dl-2019" / "queries.tsv").exists()


def test_dashboard_takes_query_texts_from_irds(shared_data: Path, tmp_path: Path) -> None:
    (run,) = _need(shared_data, ICT_BERT2)
    home = tmp_path / "cache"
    _seed(home, shared_data)
    default, explicit = tmp_path / "default.html", tmp_path / "explicit.html"
    args = ["dashboard", str(run), "--qrels", "irds:dl19-passage", "--quiet"]

    by_default = _cli([*args, "--out", str(default)], home)
    by_option = _cli([*args, "--queries", "irds:dl19-passage", "--out", str(explicit)], home)

    assert by_default.returncode == 0, by_default.stderr
    assert by_option.returncode == 0, by_option.stderr
    # The first judged DL19 topic (topics.dl19-passage.txt, line 1).
    assert "do goldfish grow" in default.read_text()
    assert "do goldfish grow" in explicit.read_text()


def test_dashboard_without_cached_queries_shows_ids_alone(
    shared_data: Path, tmp_path: Path
) -> None:
    (run,) = _need(shared_data, ICT_BERT2)
    home = tmp_path / "cache"
    _seed(home, shared_data, queries=False)
    page = tmp_path / "page.html"

    result = _cli(
        ["dashboard", str(run), "--qrels", "irds:dl19-passage", "--quiet", "--out", str(page)],
        home,
    )

    assert result.returncode == 0, result.stderr
    assert "do goldfish grow" not in page.read_text()
    assert "156493" in page.read_text()


def test_dash_m_official_with_irds_labels_equals_nist_summary(
    shared_data: Path, tmp_path: Path
) -> None:
    (run,) = _need(shared_data, ICT_BERT2)
    _seed(tmp_path, shared_data, queries=False)

    result = _cli(
        ["evaluate", str(run), "--qrels", "irds:dl19-passage", "-m", "official", "--json"],
        tmp_path,
    )

    assert result.returncode == 0, result.stderr
    means = {metric: round(mean, 4) for metric, mean in _means(result.stdout).items()}
    assert means == NIST_ICT_BERT2


def test_relevance_definitions_set_the_grade_scale(shared_data: Path, tmp_path: Path) -> None:
    """MS MARCO dev documents one grade, 1 "relevant": binary, not rag5's distractor."""
    home = tmp_path / "cache"
    _seed(home, shared_data, queries=False, dev=True)
    (qrels,) = _need(shared_data, DEV_QRELS)
    # A run ranking a relevant passage of each of the first 50 dev queries second.
    first: dict[str, str] = {}
    for line in gzip.decompress(qrels.read_bytes()).decode().splitlines()[:200]:
        query, _, doc, _ = line.split()
        first.setdefault(query, doc)
    run = tmp_path / "run.trec"
    run.write_text(
        "".join(
            f"{q} Q0 other-{q} 1 2.0 sys\n{q} Q0 {doc} 2 1.0 sys\n"
            for q, doc in list(first.items())[:50]
        )
    )
    metric = ["-m", "proc@10", "-m", "rr"]

    by_irds = _cli(["evaluate", str(run), "--qrels", "irds:msmarco-passage-dev-subset", *metric,
                    "--json"], home)  # fmt: skip
    binary = _cli(["evaluate", str(run), "--qrels", str(qrels), "--scale", "binary", *metric,
                   "--json"], home)  # fmt: skip
    inferred = _cli(["evaluate", str(run), "--qrels", str(qrels), *metric, "--json"], home)

    for result in (by_irds, binary, inferred):
        assert result.returncode == 0, result.stderr
    assert _means(by_irds.stdout) == _means(binary.stdout)
    assert _means(by_irds.stdout)["rr"] == 0.5
    assert _means(inferred.stdout)["proc@10"] != _means(binary.stdout)["proc@10"]


def test_a_scale_error_quotes_the_relevance_definitions(shared_data: Path, tmp_path: Path) -> None:
    (run,) = _need(shared_data, ICT_BERT2)
    _seed(tmp_path, shared_data, queries=False)

    result = _cli(
        ["evaluate", str(run), "--qrels", "irds:dl19-passage", "--scale", "rag5", "-m",
         "proc@10"],
        tmp_path,
    )  # fmt: skip

    assert result.returncode == 2
    assert "outside the scale rag5" in result.stderr
    assert "0: Irrelevant: The passage has nothing to do with the query." in result.stderr
    assert "Traceback" not in result.stderr
