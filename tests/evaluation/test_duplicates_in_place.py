"""duplicates="in_place": chunks of one document, counted once, each holding its slot.

The vendor's example (issue 16): gold [A, B], retrieved [A, A, x, B] (two chunks of A):
recall@3 = 0.5, where keeping the best copy would move x and B up (recall@3 = 1.0). The
same values from frames and TREC text, on every engine and in buckets.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankset
from rankset.cli import main

LABELS = {"q": {"A": 1, "B": 1}}
RUN = pl.DataFrame({"query_id": "q", "doc_id": ["A", "A", "x", "B"], "rank": [1, 2, 3, 4]})
NAMES = ["recall@3", "recall@4", "precision@2", "rr", "num_ret"]
EXPECTED = {"recall@3": 0.5, "recall@4": 1.0, "precision@2": 0.5, "rr": 1.0, "num_ret": 4.0}


@pytest.mark.parametrize("options", [{}, {"engine": "in-memory"}, {"buckets": 3}])
def test_every_copy_keeps_its_slot(options: dict[str, object]) -> None:
    res = rankset.evaluate(RUN, LABELS, NAMES, duplicates="in_place", confidence=None, **options)
    assert dict(res.per_query.select("metric", "value").rows()) == EXPECTED
    best = rankset.evaluate(RUN, LABELS, ["recall@3"], duplicates="keep_best", confidence=None)
    assert best.per_query["value"][0] == 1.0


def test_trec_text_and_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "chunks.trec"
    run.write_text("q Q0 A 1 4.0 s\nq Q0 A 2 3.0 s\nq Q0 x 3 2.0 s\nq Q0 B 4 1.0 s\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q 0 A 1\nq 0 B 1\n")
    res = rankset.evaluate(run, qrels, NAMES, duplicates="in_place", confidence=None)
    assert dict(res.per_query.select("metric", "value").rows()) == EXPECTED
    args = ["evaluate", str(run), "--qrels", str(qrels), "-m", "recall@3", "--json"]
    assert main([*args, "--duplicates", "in-place"]) == 0
    assert '"mean": 0.5' in capsys.readouterr().out
    assert main(args) == 2
    assert "--duplicates in-place" in capsys.readouterr().err
