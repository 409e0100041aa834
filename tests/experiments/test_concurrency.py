"""Writers at once, and a writer killed mid-write: no entry lost, none half-written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.experiments import Store

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
WRITERS = 8

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX rename and SIGKILL")

# Each writer evaluates first, then waits for the start signal, so that the logs (and the
# creation of the store itself) happen at the same moment.
WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import rankset
    from rankset.experiments import Store

    store, go, i = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    res = rankset.evaluate({f"w{i}": sys.argv[4]}, sys.argv[5], ["ndcg@10", "rr"])
    Path(f"{go}.ready{i}").touch()
    while not go.exists():
        time.sleep(0.005)
    print(Store(store).log(res, tag=f"writer{i}"))
    """
)

# A writer that stops for good between writing its files and publishing them.
STUCK = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    import rankset
    from rankset.experiments import Store

    flag = Path(sys.argv[2])

    def stuck(src, dst):
        flag.write_text(str(src))
        time.sleep(600)

    res = rankset.evaluate({"late": sys.argv[3]}, sys.argv[4], ["ndcg@10", "rr"])
    os.rename = stuck
    Store(sys.argv[1]).log(res, tag="killed")
    """
)


def _wait_for(condition: object, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


def test_eight_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    store_dir, go = tmp_path / "store", tmp_path / "go"
    run, qrels = SAMPLE / "bm25.trec", SAMPLE / "qrels.txt"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(store_dir), str(go), str(i), str(run), str(qrels)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(WRITERS)
    ]
    try:
        _wait_for(
            lambda: (
                all(Path(f"{go}.ready{i}").exists() for i in range(WRITERS))
                or any(p.poll() is not None for p in procs)
            ),
            "the writers to be ready",
        )
        go.touch()
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0] * WRITERS, [err for _, err in outputs]
    ids = sorted(out.strip() for out, _ in outputs)

    store = Store(store_dir)
    assert store.entries() == ids
    assert len(set(ids)) == WRITERS
    runs = store.runs()
    assert sorted(runs["system"].to_list()) == [f"w{i}" for i in range(WRITERS)]
    # every per-query row of every writer: 40 queries x 2 metrics each
    want = rankset.evaluate({"w": run}, qrels, ["ndcg@10", "rr"]).per_query
    per_query = pl.read_parquet(f"{store_dir}/entries/*/per_query.parquet")
    assert per_query.height == WRITERS * want.height == WRITERS * 80
    for i in range(WRITERS):
        mine = per_query.filter(pl.col("system") == f"w{i}").drop("entry_id")
        assert_frame_equal(mine, want.with_columns(system=pl.lit(f"w{i}")))
    # the same run and labels eight times: one original, seven duplicates of it
    assert runs["duplicate_of"].null_count() == 1
    assert runs["duplicate_of"].drop_nulls().unique().to_list() == [runs["entry_id"][0]]
    assert list((store_dir / ".tmp").iterdir()) == []


def test_a_writer_killed_mid_write_leaves_the_store_whole(tmp_path: Path) -> None:
    store_dir, flag = tmp_path / "store", tmp_path / "stuck"
    run, qrels = SAMPLE / "rerank.trec", SAMPLE / "qrels.txt"
    store = Store(store_dir)
    before = rankset.evaluate({"early": SAMPLE / "bm25.trec"}, qrels, ["ndcg@10", "rr"])
    earlier = store.log(before, tag="earlier")

    errors = tmp_path / "stderr.txt"
    with errors.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-c", STUCK, str(store_dir), str(flag), str(run), str(qrels)],
            stderr=sink,
        )
    try:
        # The flag's text, not just the file: it exists a moment before it is written.
        _wait_for(
            lambda: (flag.exists() and flag.read_text()) or proc.poll() is not None,
            "the writer to stall",
        )
        assert proc.poll() is None, errors.read_text()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL

    # the killed writer's files are all there, in a folder no reader looks at
    leftover = Path(flag.read_text())
    assert leftover.parent == store_dir / ".tmp"
    assert len(list(leftover.glob("*.parquet"))) == 5  # each table, costs too

    reread = Store(store_dir)
    assert reread.entries() == [earlier]
    assert reread.history()["tag"].unique().to_list() == ["earlier"]
    assert_frame_equal(reread.result(earlier).per_query, before.per_query)
    assert pl.read_parquet(f"{store_dir}/entries/*/per_query.parquet").height == 80

    # a write in progress is left alone; an old leftover is cleaned
    assert reread.clean() == 0
    assert reread.clean(older_than=0) == 1
    assert list((store_dir / ".tmp").iterdir()) == []
    later = reread.log(before, tag="later")
    assert reread.entries() == [earlier, later]
