"""Tests of reading URLs: a local HTTP server on 127.0.0.1 stands in for the network."""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.cli import main
from rankset.errors import InputFormatError
from rankset.io import read, scan_labels, scan_run

RUN_TEXT = "q1 Q0 d1 1 3.0 bm25\nq1 Q0 d2 2 2.0 bm25\nq2 Q0 d1 1 1.0 bm25\n"
LABELS = {"query-id": ["q1", "q1", "q2"], "corpus-id": ["d2", "d3", "d1"], "score": [1, 2, 1]}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """Serve ``tmp_path/www`` over HTTP on 127.0.0.1; yield its base URL and folder."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "www"
    root.mkdir()
    (root / "qrels").mkdir()
    pl.DataFrame(LABELS).write_parquet(root / "qrels" / "test.parquet")
    (root / "bm25.trec").write_text(RUN_TEXT)
    (root / "bm25.trec.gz").write_bytes(gzip.compress(RUN_TEXT.encode()))
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_beir_parquet_qrels_over_http_reads_without_a_mapping(
    served: tuple[str, Path],
) -> None:
    base, root = served
    parsed = read(f"{base}/qrels/test.parquet")

    assert parsed.format == "parquet"
    assert parsed.stem == "test"
    assert parsed.labels is not None
    assert_frame_equal(
        parsed.labels.collect(), scan_labels(root / "qrels" / "test.parquet").collect()
    )


def test_a_trec_run_over_http_equals_the_local_file(served: tuple[str, Path]) -> None:
    base, root = served
    for name in ("bm25.trec", "bm25.trec.gz"):
        run = scan_run(f"{base}/{name}?download=true").collect()
        assert_frame_equal(run, scan_run(root / "bm25.trec").collect())


def test_evaluation_over_http_equals_the_local_files(served: tuple[str, Path]) -> None:
    base, root = served
    metrics = ["ndcg@10", "ap"]
    remote = rankset.evaluate(
        f"{base}/bm25.trec", f"{base}/qrels/test.parquet", metrics, confidence=None
    )
    local = rankset.evaluate(
        root / "bm25.trec", root / "qrels" / "test.parquet", metrics, confidence=None
    )
    assert_frame_equal(remote.summary, local.summary)


def test_the_cli_evaluates_urls(
    served: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, _ = served
    code = main(
        ["evaluate", f"{base}/bm25.trec", "--qrels", f"{base}/qrels/test.parquet", "-m", "rr"]
    )
    assert code == 0
    assert "bm25" in capsys.readouterr().out


def test_the_same_checks_apply_to_remote_files(served: tuple[str, Path]) -> None:
    base, root = served
    (root / "bad.trec").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 two 1.0 t\n")
    with pytest.raises(InputFormatError, match=rf"{base}/bad\.trec, line 2: rank 'two'"):
        read(f"{base}/bad.trec")


def test_a_missing_remote_file_names_the_url(served: tuple[str, Path]) -> None:
    base, _ = served
    with pytest.raises(InputFormatError, match=rf"{base}/nope\.trec: the server answered HTTP 404"):
        read(f"{base}/nope.trec")
    with pytest.raises(InputFormatError, match=r"nope\.parquet: the server answered HTTP 404"):
        read(f"{base}/nope.parquet")


def test_an_unreachable_server_is_a_clear_error() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/qrels.parquet"
    with pytest.raises(InputFormatError, match=rf"{url}: cannot fetch it .*network"):
        read(url)


def test_the_cli_exits_2_without_a_traceback_when_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.trec"
    run.write_text(RUN_TEXT)
    url = f"http://127.0.0.1:{_closed_port()}/qrels/test.parquet"

    code = main(["evaluate", str(run), "--qrels", url, "-m", "rr"])

    err = capsys.readouterr().err
    assert code == 2
    assert url in err
    assert "Traceback" not in err


def test_an_object_store_url_that_cannot_be_read_names_it(tmp_path: Path) -> None:
    # memory:// is fsspec's in-process file system: no network, and nothing there.
    with pytest.raises(InputFormatError, match=r"memory://nothing/here\.trec"):
        read("memory://nothing/here.trec")


def test_fsspec_urls_read_text(tmp_path: Path) -> None:
    fsspec = pytest.importorskip("fsspec")
    with fsspec.open("memory://runs/bm25.trec", "wb") as handle:
        handle.write(RUN_TEXT.encode())
    run = scan_run("memory://runs/bm25.trec").collect()
    assert run.height == 3
    assert read("memory://runs/bm25.trec").stem == "bm25"


def test_a_local_path_with_colons_is_still_a_path(tmp_path: Path) -> None:
    path = tmp_path / "run:v2.trec"
    path.write_text(RUN_TEXT)
    assert scan_run(str(path)).collect().height == 3


def test_hf_text_is_fetched_from_the_hub_resolve_address(
    served: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # BEIR's qrels repos on the Hub hold test.tsv; HF_ENDPOINT points at the local server.
    base, root = served
    folder = root / "datasets" / "BeIR" / "scifact-qrels" / "resolve" / "main"
    folder.mkdir(parents=True)
    (folder / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\t31715818\t1\n3\t14717500\t1\n")
    monkeypatch.setenv("HF_ENDPOINT", base)

    labels = scan_labels("hf://datasets/BeIR/scifact-qrels/test.tsv").collect()

    assert labels.rows() == [("1", "31715818", 1.0), ("3", "14717500", 1.0)]
    with pytest.raises(InputFormatError, match=r"hf://datasets/BeIR/nope/test\.tsv: .*HTTP 404"):
        read("hf://datasets/BeIR/nope/test.tsv")
