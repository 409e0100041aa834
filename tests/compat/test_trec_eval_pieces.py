"""``rankset trec_eval`` reads a run a block at a time and measures it a share at a time.

Both bound the drop-in's peak memory on large runs; neither may change a printed byte.
The expected output is trec_eval's own (``out.test.aq``): the run is ``results.test``
rewritten in the plain layout (one space between fields, the scores' leading blanks
dropped: trec_eval reads them with ``atof``), which the block reader takes. Lines in
another order, or a query's lines in two places, or a query without labels (10.0 walks
the labelled queries only) print the same: checked against the trec_eval 10.0 binary.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import polars as pl
import pytest

from rankset.compat import trec_eval
from rankset.compat.trec_eval import _command, _inputs


def _plain_lines(trec_eval_data: Path) -> list[str]:
    text = (trec_eval_data / "results.test").read_text(encoding="utf-8")
    return [" ".join(line.split()) + "\n" for line in text.splitlines()]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = trec_eval.main(argv, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def _arrangements(lines: list[str]) -> dict[str, list[str]]:
    shuffled = lines.copy()
    random.Random(7).shuffle(shuffled)
    # 301's 500 lines, 302's first 200, a query without labels, the rest of 302, 303's
    unlabelled = [line.replace("301 ", "999 ", 1) for line in lines[:500]]
    split = lines[:700] + unlabelled + lines[700:]
    return {"as written": lines, "shuffled": shuffled, "split and unlabelled": split}


@pytest.mark.parametrize("arrangement", ["as written", "shuffled", "split and unlabelled"])
@pytest.mark.parametrize(
    ("block_bytes", "part_rows", "part_labels"),
    [(1 << 24, 1 << 20, 1 << 20), (333, 300, 1 << 20), (40, 1, 1 << 20), (1 << 24, 1 << 20, 1000)],
)
def test_blocks_and_shares_print_trec_evals_lines(
    trec_eval_data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    arrangement: str,
    block_bytes: int,
    part_rows: int,
    part_labels: int,
) -> None:
    # the last: shares set by the labels (3,681 in qrels.test), as -J's short runs get
    run = tmp_path / "run"
    run.write_text("".join(_arrangements(_plain_lines(trec_eval_data))[arrangement]))
    monkeypatch.setattr(_inputs, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(_command, "_PART_ROWS", part_rows)
    monkeypatch.setattr(_command, "_PART_LABELS", part_labels)
    read = _inputs._scan_plain_run(str(run))
    assert read is not None  # the block reader took the file, not the general parser
    assert read.height == len(run.read_text().splitlines())
    if block_bytes < 1000:
        assert read.n_chunks() > 1
    qrels = str(trec_eval_data / "qrels.test")
    status, out, err = _run(["-m", "all_trec", "-q", qrels, str(run)])
    assert (status, err) == (0, "")
    assert out == (trec_eval_data / "out.test.aq").read_text(encoding="utf-8")


def test_shares_are_whole_queries_of_about_the_rows_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # queries of 3, 2, 4 and 1 rows; shares close once they reach 4 rows
    monkeypatch.setattr(_command, "_PART_ROWS", 4)
    ids = ["a"] * 3 + ["b"] * 2 + ["c"] * 4 + ["d"]
    cut = pl.DataFrame({"query_id": ids, "doc_id": [str(i) for i in range(10)]})
    shares = list(_command._shares(cut, ["a", "b", "c", "d"]))
    assert [(frame["query_id"].to_list(), queries) for frame, queries in shares] == [
        (["a"] * 3 + ["b"] * 2, ["a", "b"]),
        (["c"] * 4, ["c"]),
        (["d"], ["d"]),
    ]
    # a query not ranked (no labels) leaves its share; a share of none is not made
    shares = list(_command._shares(cut, ["a", "d"]))
    assert [(frame["doc_id"].to_list(), queries) for frame, queries in shares] == [
        (["0", "1", "2"], ["a"]),
        (["9"], ["d"]),
    ]
    # many labels beside few rows: as many shares as the labels ask, of as many rows each
    monkeypatch.setattr(_command, "_PART_ROWS", 100)
    monkeypatch.setattr(_command, "_PART_LABELS", 10)
    shares = list(_command._shares(cut, ["a", "b", "c", "d"], label_rows=40))
    assert [queries for _, queries in shares] == [["a"], ["b", "c"], ["d"]]
    # a query's rows in two places: shares of the ranked queries, filtered
    cut = pl.DataFrame({"query_id": ["a", "b", "a", "c", "c"], "doc_id": list("12345")})
    monkeypatch.setattr(_command, "_PART_ROWS", 2)
    shares = list(_command._shares(cut, ["a", "b", "c"]))
    assert [(frame["doc_id"].to_list(), queries) for frame, queries in shares] == [
        (["1", "3"], ["a"]),
        (["2"], ["b"]),
        (["4", "5"], ["c"]),
    ]


@pytest.mark.parametrize("block_bytes", [1, 5, 1 << 20])
def test_line_blocks_end_after_a_newline_and_give_back_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_bytes: int
) -> None:
    monkeypatch.setattr(_inputs, "_BLOCK_BYTES", block_bytes)
    data = b"q1 Q0 a 1 2 t\r\nq1 Q0 bbbbbbbb 2 1 t\nq2 Q0 c 1 1 t"  # no newline at the end
    path = tmp_path / "run"
    path.write_bytes(data)
    blocks = list(_inputs._line_blocks(str(path)))
    assert b"".join(blocks) == data
    assert all(block.endswith(b"\n") for block in blocks[:-1])
    assert len(blocks) == (2 if block_bytes > len(data) else 3)


def test_a_bad_line_in_a_later_block_goes_to_the_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the first block reads cleanly; a NaN score far below is refused as the reader does
    monkeypatch.setattr(_inputs, "_BLOCK_BYTES", 64)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d0 1\n", encoding="utf-8")
    lines = [f"q1 Q0 d{i} {i + 1} {100 - i} t\n" for i in range(20)]
    run.write_text("".join(lines) + "q1 Q0 bad 21 nan t\n", encoding="utf-8")
    assert _inputs._scan_plain_run(str(run)) is None
    status, out, err = _run(["-m", "map", str(qrels), str(run)])
    assert status == 2
    assert "trec_eval: Quit in file" in err
    assert out == ""
