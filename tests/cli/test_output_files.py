"""Every output flag writes what its name says (Parquet, CSV, JSON lines, JSON) or refuses.

``-`` writes CSV to stdout, which then carries that table alone; a missing folder is named
as a folder, before any work.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest

from rankset.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
RUNS = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")]
QRELS = str(SAMPLE / "qrels.txt")
EVALUATED = [*RUNS, "--qrels", QRELS]

# (command and its arguments, the output flag, a column the table holds)
TABLE_OUTPUTS = {
    "evaluate --per-query": (["evaluate", *EVALUATED, "-m", "ap"], "--per-query", "value"),
    "curves --out": (["curves", *EVALUATED, "-m", "ndcg", "--k-max", "3"], "--out", "mean"),
    "curves --per-query": (
        ["curves", *EVALUATED, "-m", "ndcg", "--k-max", "3"],
        "--per-query",
        "value",
    ),
    "compare --out": (
        [
            *("compare", *EVALUATED, "--baseline", "bm25", "-m", "ap"),
            *("--test", "randomization", "--n-resamples", "100"),
        ],
        "--out",
        "p_adj",
    ),
    "diagnose --per-query": (
        ["diagnose", *EVALUATED, "--scale", "trec_dl"],
        "--per-query",
        "quadrant",
    ),
    "agreement --out": (["agreement", QRELS, QRELS, "--n-resamples", "50"], "--out", "statistic"),
}
READERS = {
    ".parquet": pl.read_parquet,
    ".pq": pl.read_parquet,
    ".csv": pl.read_csv,
    ".jsonl": pl.read_ndjson,
    ".ndjson": pl.read_ndjson,
    ".json": pl.read_json,
}


def _quiet(argv: list[str]) -> list[str]:
    return ["-q", *argv]


@pytest.mark.parametrize("output", sorted(TABLE_OUTPUTS))
@pytest.mark.parametrize("suffix", sorted(READERS))
def test_a_table_output_is_written_as_its_extension_says(
    output: str, suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, flag, column = TABLE_OUTPUTS[output]
    target = tmp_path / f"table{suffix}"
    assert main(_quiet([*argv, flag, str(target)])) == 0, capsys.readouterr().err
    frame = READERS[suffix](target)
    assert column in frame.columns
    assert frame.height > 0
    if suffix == ".parquet":  # the run configuration travels in Parquet's metadata
        assert "rankset" in pl.read_parquet_metadata(target)
    assert [path.name for path in tmp_path.iterdir()] == [target.name]  # no temporary left


@pytest.mark.parametrize("output", sorted(TABLE_OUTPUTS))
def test_a_dash_writes_csv_to_stdout_and_nothing_else(
    output: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv, flag, column = TABLE_OUTPUTS[output]
    assert main(_quiet([*argv, flag, "-"])) == 0
    out = capsys.readouterr().out
    frame = pl.read_csv(io.StringIO(out))  # the whole of stdout is the table
    assert column in frame.columns
    assert frame.height > 0
    assert list(tmp_path.iterdir()) == []  # no file named '-'


@pytest.mark.parametrize("output", sorted(TABLE_OUTPUTS))
@pytest.mark.parametrize("name", ["table.txt", "table.csv.gz", "table", "table.xlsx"])
def test_a_table_output_refuses_a_name_it_cannot_honour(
    output: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, flag, _ = TABLE_OUTPUTS[output]
    assert main([*argv, flag, str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert f"{flag} {tmp_path / name}: cannot write a table as" in err
    assert ".parquet, .csv, .jsonl or .json" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("output", sorted(TABLE_OUTPUTS))
def test_a_missing_folder_is_named_as_a_folder(
    output: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, flag, _ = TABLE_OUTPUTS[output]
    target = tmp_path / "missing" / "table.csv"
    assert main([*argv, flag, str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"rankset: error: {flag} {target}: the folder {tmp_path / 'missing'} does not exist; "
        "create it first."
    )
    assert ".tmp" not in err  # not the hidden temporary file


def test_stdout_takes_one_table_and_no_other_printout(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["curves", *EVALUATED, "-m", "ndcg", "--k-max", "2"]
    assert main([*argv, "--out", "-", "--per-query", "-"]) == 2
    assert "Only one output can go to stdout" in capsys.readouterr().err
    assert main([*argv, "--out", "-", "--json"]) == 2
    assert "where --json prints too" in capsys.readouterr().err
    compare = TABLE_OUTPUTS["compare --out"][0]
    assert main([*compare, "--out", "-", "--format", "latex"]) == 2
    assert "where --format prints too" in capsys.readouterr().err


def test_json_is_one_array_of_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "per_query.json"
    argv, flag, _ = TABLE_OUTPUTS["evaluate --per-query"]
    assert main(_quiet([*argv, flag, str(target)])) == 0
    records = json.loads(target.read_text(encoding="utf-8"))  # strict JSON
    assert len(records) == 80  # 2 systems x 40 queries x 1 metric
    assert {"system", "query_id", "metric", "value"} <= set(records[0])


@pytest.mark.parametrize(
    ("argv", "name", "message"),
    [
        (["report", *EVALUATED], "report.pdf", "this writes an HTML page; end the name in .html"),
        (["report", *EVALUATED], "-", "an HTML page cannot go to stdout"),
        (["dashboard", *EVALUATED], "board.json", "this writes an HTML page"),
        (["dashboard", *EVALUATED], "-", "an HTML page cannot go to stdout"),
        (["fuse", *RUNS], "fused.json", "a run is written as TREC text"),
        (["fuse", *RUNS], "fused.html", "a run is written as TREC text"),
        (["fuse", *RUNS], "-", "a fused run cannot go to stdout"),
        (["partition", *EVALUATED], "-", "a dataset folder cannot go to stdout"),
    ],
)
def test_a_page_a_run_or_a_folder_refuses_a_name_it_cannot_honour(
    argv: list[str],
    name: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--out", name]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["report", *EVALUATED, "--scale", "trec_dl", "-m", "ap", "--n-resamples", "50"], "r.html"),
        (["dashboard", *EVALUATED, "--scale", "trec_dl"], "board.htm"),
        (["fuse", *RUNS], "fused.trec"),
        (["fuse", *RUNS], "fused.parquet"),
        (["fuse", *RUNS], "fused.csv"),
    ],
)
def test_pages_and_runs_keep_their_names(
    argv: list[str], name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / name
    assert main(_quiet([*argv, "--out", str(target)])) == 0, capsys.readouterr().err
    assert target.stat().st_size > 0
    missing = tmp_path / "nowhere" / name
    assert main([*argv, "--out", str(missing)]) == 2
    assert f"the folder {tmp_path / 'nowhere'} does not exist" in capsys.readouterr().err


def test_the_library_names_a_missing_folder_too(tmp_path: Path) -> None:
    import altair as alt

    from rankset import charts
    from rankset.errors import ParameterError
    from rankset.pages.report import report

    chart = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q")
    with pytest.raises(ParameterError, match=r"the folder .*nowhere does not exist"):
        charts.save_chart(chart, tmp_path / "nowhere" / "chart.json")
    with pytest.raises(ParameterError, match=r"the folder .*nowhere does not exist"):
        report(RUNS, QRELS, out=tmp_path / "nowhere" / "r.html")
