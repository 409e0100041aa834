"""read_leaderboard(): the five formats of autojudge-evaluate, folders, frames, bad lines."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import polars as pl
import pytest

from rankset.errors import InputFormatError, ParameterError
from rankset.io import read_leaderboard

DATA = Path(__file__).resolve().parents[1] / "data" / "meta_evaluation"
ROWS = [("r1", "t1", "ndcg@10", 0.5), ("r1", "all", "ndcg@10", 0.5), ("r2", "t1", "map", 0.25)]


def _write(path: Path, format: str) -> Path:
    lines = {
        "ir_measures": [f"{s} {t} {m} {v}" for s, t, m, v in ROWS],
        "tot": [f"{s}\t{m}\t{t}\t{v}" for s, t, m, v in ROWS],
        "ranking": [f"{t} Q0 {s} 0 {v} {m}" for s, t, m, v in ROWS],
        "jsonl": [
            json.dumps({"run_id": s, "topic_id": t, "measure": m, "value": v})
            for s, t, m, v in ROWS
        ],
    }[format]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("format", ["ir_measures", "tot", "ranking", "jsonl"])
def test_each_format_gives_the_same_rows(tmp_path: Path, format: str) -> None:
    frame = read_leaderboard(_write(tmp_path / "board", format), format)
    assert frame.schema == pl.Schema(
        {"system": pl.String, "query_id": pl.String, "metric": pl.String, "value": pl.Float64}
    )
    assert frame.rows() == ROWS


def test_a_trec_eval_folder_names_systems_after_files() -> None:
    folder = read_leaderboard(DATA / "truth_trec_eval", "trec_eval")
    flat = read_leaderboard(DATA / "truth.txt")
    key = ["system", "query_id", "metric"]
    assert folder.sort(key).equals(flat.sort(key))
    assert folder["system"].unique(maintain_order=True).to_list()[:2] == ["r01", "r02"]


def test_gzip_header_and_frames(tmp_path: Path) -> None:
    path = tmp_path / "board.gz"
    path.write_bytes(gzip.compress(b"run topic measure value\nr1 t1 P@10 0.3\n"))
    assert read_leaderboard(path, header=True).rows() == [("r1", "t1", "P@10", 0.3)]
    frame = pl.DataFrame(ROWS, schema=["system", "query_id", "metric", "value"], orient="row")
    assert read_leaderboard(frame.lazy()).rows() == ROWS


def test_a_bad_line_names_the_file_the_line_and_the_format(tmp_path: Path) -> None:
    path = tmp_path / "board.txt"
    path.write_text("r1 t1 ndcg@10 0.5\n\nr1 t2 ndcg@10\n", encoding="utf-8")
    expected = r"board.txt, line 3: expected 4 fields \(system topic measure value\)"
    with pytest.raises(InputFormatError, match=expected + " in the ir_measures format, found 3"):
        read_leaderboard(path)
    path.write_text("r1 t1 ndcg@10 high\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="line 1: expected the value to be a finite"):
        read_leaderboard(path)
    path.write_text('{"run_id": "r1"}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match="line 1: expected a JSON object with run_id"):
        read_leaderboard(path, "jsonl")


def test_bad_sources_and_formats(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match="no such file"):
        read_leaderboard(tmp_path / "nothing")
    with pytest.raises(InputFormatError, match="holds no leaderboard file"):
        read_leaderboard(tmp_path)
    with pytest.raises(ParameterError, match="'format' parameter"):
        read_leaderboard(tmp_path, "csv")
    with pytest.raises(InputFormatError, match="lacks value"):
        read_leaderboard(pl.DataFrame({"system": ["a"], "query_id": ["q"], "metric": ["m"]}))
