"""The numbering's large scratch arrays, kept a few seconds between evaluations.

Checked here: a kept array is lent again (never to two evaluations at once), only the
largest few are kept, they are released after the time given, and evaluations that
reuse them (their earlier contents left in them) give the values of evaluations that
allocate afresh, pytrec_eval's.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from tests._support.pytrec_reference import pytrec_values_in_process

import rankset
from rankset.evaluation import _scratch as scratch

MEASURES = {
    "ndcg@10": ("ndcg_cut.10", "ndcg_cut_10"),
    "ap": ("map", "map"),
    "rr": ("recip_rank", "recip_rank"),
}


@pytest.fixture(autouse=True)
def _nothing_kept() -> Any:
    scratch.release_kept_memory()
    yield
    scratch.release_kept_memory()


def test_an_array_is_lent_again_once_given_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scratch, "KEPT_FROM", 10)
    with scratch.borrowing():
        first = scratch.empty(50)
        assert scratch.empty(9).base is None  # too small to keep
    with scratch.borrowing():
        again = scratch.empty(40)  # a kept array at least as large
        other = scratch.empty(40)  # the kept one is lent: a new one
        larger = scratch.empty(60)
    assert again.base is first.base
    assert other.base is not first.base
    assert larger.base is not first.base
    assert len(again) == 40
    assert scratch.empty(40).base is None  # outside a block: nothing is lent


def test_two_evaluations_at_once_never_share_an_array(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scratch, "KEPT_FROM", 10)
    with scratch.borrowing():
        scratch.empty(100)
        scratch.empty(100)
    bases: list[Any] = []
    both_inside = threading.Barrier(2)

    def borrow() -> None:
        with scratch.borrowing():
            array = scratch.empty(100)
            bases.append(array.base)
            both_inside.wait(timeout=10)  # each holds its array while the other takes one

    threads = [threading.Thread(target=borrow) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(bases) == 2
    assert bases[0] is not bases[1]


def test_only_the_largest_are_kept_lent_to_a_near_size_and_for_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scratch, "KEPT_FROM", 10)
    monkeypatch.setattr(scratch, "KEPT_SECONDS", 0.2)
    with scratch.borrowing():
        first = [scratch.empty(size) for size in (30, 10, 20)]
    assert first[2].base is None  # past the two an evaluation borrows: allocated as usual
    with scratch.borrowing():
        lent = scratch.empty(20)  # the kept 30 (no more than twice the size)
        fresh = scratch.empty(20)  # the kept 10 is too small: a new 20
    assert lent.base is not None
    assert lent.base.size == 30
    assert fresh.base is not None
    assert fresh.base.size == 20
    # kept: the two largest of 30, 10 and 20
    assert sorted(array.size for array in scratch._KEPT.free) == [20, 30]
    with scratch.borrowing():
        small = scratch.empty(12)  # 20 is lent (no more than twice the size); 30 is not
        smaller = scratch.empty(12)  # 30 is more than twice 12: allocated afresh
    assert small.base is not None
    assert small.base.size == 20
    assert smaller.base is not None
    assert smaller.base.size == 12
    assert scratch._KEPT.free != []  # kept, for now
    released_by = time.monotonic() + 10  # past KEPT_SECONDS, on however busy a machine
    while scratch._KEPT.free and time.monotonic() < released_by:
        time.sleep(0.05)
    assert scratch._KEPT.free == []
    with scratch.borrowing():
        again = scratch.empty(12)
    assert again.base is not None
    assert again.base.size == 12


def test_a_forked_child_keeps_none_of_its_parents_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    monkeypatch.setattr(scratch, "KEPT_FROM", 10)
    with scratch.borrowing():
        scratch.empty(50)
    assert len(scratch._KEPT.free) == 1
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: reports how many arrays it holds, then leaves at once
        os.write(write, str(len(scratch._KEPT.free)).encode())
        os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 16) == b"0"
    assert len(scratch._KEPT.free) == 1  # the parent keeps its own


def test_evaluations_reusing_the_arrays_give_pytrec_evals_values(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Every run is numbered as a large one (on the checker thread, the arrays kept):
    # each evaluation finds the previous one's hashes and numbers in the arrays.
    from rankset.evaluation import _packed_pass as packed_pass
    from rankset.evaluation import _pass as run_pass

    pytest.importorskip("pytrec_eval")
    monkeypatch.setattr(scratch, "KEPT_FROM", 1)
    monkeypatch.setattr(packed_pass, "CHECKED_MEANWHILE", 1)
    monkeypatch.setattr(run_pass, "CHECKED_MEANWHILE", 1)
    borrowed: list[int] = []
    lend = scratch._KEPT.take

    def counted(size: int) -> Any:
        found = lend(size)
        borrowed.append(found is not None)
        return found

    monkeypatch.setattr(scratch._KEPT, "take", counted)
    rng = random.Random(11)
    sizes = []
    for queries, depth in ((6, 40), (5, 30), (6, 45)):  # smaller, then larger than before
        rows = [
            (f"q{q}", f"d{rng.randrange(200)}", float(rng.randrange(8)))
            for q in range(queries)
            for _ in range(depth)
        ]
        rows = list({(q, d): (q, d, s) for q, d, s in rows}.values())
        rng.shuffle(rows)
        sizes.append(len(rows))
        run = tmp_path / "run.parquet"
        pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row").write_parquet(run)
        judged = {(q, d): rng.randrange(3) for q, d, _ in rows if rng.random() < 0.3}
        labels = pl.DataFrame(
            [(q, d, float(g)) for (q, d), g in judged.items()],
            schema=["query_id", "doc_id", "grade"],
            orient="row",
        )
        got = rankset.evaluate(run, labels, ["ndcg@10", "ap", "rr"], confidence=None).per_query
        values = {(q, m): v for q, m, v in got.select("query_id", "metric", "value").rows()}
        assert values == pytrec_values_in_process(rows, judged, MEASURES)
    # the first allocated afresh; the second reused them (no more than twice its size);
    # the third, larger, allocated afresh again
    assert sizes[1] < sizes[0] <= 2 * sizes[1]
    assert sizes[2] > sizes[0]
    assert borrowed == [False, False, True, True, False, False]
    assert len(scratch._KEPT.free) == scratch.KEPT_ARRAYS  # kept after the last one
    rankset.evaluation.release_kept_memory()  # the public face: released at once
    assert scratch._KEPT.free == []


def test_a_late_timer_leaves_what_a_later_evaluation_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scratch, "KEPT_FROM", 10)
    with scratch.borrowing():
        scratch.empty(50)
    earlier = scratch._KEPT.timer
    with scratch.borrowing():
        scratch.empty(50)
    assert scratch._KEPT.timer is not earlier
    scratch._KEPT.release(earlier)  # as if it fired just as the later evaluation kept its own
    assert len(scratch._KEPT.free) == 1
    scratch._KEPT.release(scratch._KEPT.timer)  # the latest timer does release them
    assert scratch._KEPT.free == []
