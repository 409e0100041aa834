"""``rankset log``, ``history`` and ``gate``: the store loop on the command line.

Expected values are hand-computed on a two-query run, or come from ``rankset evaluate``
on the same files (the history must give evaluate's means back).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rankset.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
QRELS = "q1 0 a 1\nq2 0 c 1\n"
GOOD = "q1 Q0 a 1 3.0 s\nq1 Q0 b 2 2.0 s\nq2 Q0 c 1 3.0 s\nq2 Q0 d 2 2.0 s\n"
# the relevant document falls to rank 2 in both queries: rr 1 -> 0.5
WORSE = "q1 Q0 b 1 3.0 s\nq1 Q0 a 2 2.0 s\nq2 Q0 d 1 3.0 s\nq2 Q0 c 2 2.0 s\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"qrels": tmp_path / "qrels.txt", "good": tmp_path / "good.run"}
    paths["worse"] = tmp_path / "worse.run"
    paths["qrels"].write_text(QRELS)
    paths["good"].write_text(GOOD)
    paths["worse"].write_text(WORSE)
    return paths


def _json(capsys: pytest.CaptureFixture[str]) -> object:
    return json.loads(capsys.readouterr().out)


def test_log_then_history_gives_the_means_back(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "store")
    common = ["--qrels", str(files["qrels"]), "-m", "rr", "--store", store]
    assert main(["log", str(files["good"]), *common, "--tag", "base", "--meta", "who=ci"]) == 0
    capsys.readouterr()
    assert main(["log", str(files["worse"]), *common, "--tag", "new", "--json"]) == 0
    logged = _json(capsys)
    assert isinstance(logged, dict)
    assert logged["entry_id"]
    assert main(["history", "--store", store, "-m", "rr", "--json"]) == 0
    rows = _json(capsys)
    assert isinstance(rows, list)
    assert [(row["tag"], row["mean"]) for row in rows] == [("base", 1.0), ("new", 0.5)]
    assert main(["history", "--store", store, "--tag", "new", "-m", "rr", "--json"]) == 0
    only = _json(capsys)
    assert isinstance(only, list)
    assert [row["entry_id"] for row in only] == [logged["entry_id"]]
    # the table form lists both entries too
    assert main(["history", "--store", store, "-m", "rr"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["entry_id", "time", "tag", "system", "metric"]
    table = [line for line in lines if not line.startswith("options of ")]
    assert len(table) == 4
    # the entries differ in their run file only, which each entry's line names
    assert lines[4].startswith("options of every entry: default_k=5")
    assert [line.split(": ", 1)[1].split("=")[0] for line in lines[5:]] == ["runs", "runs"]


def test_history_means_equal_evaluates_on_the_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "store")
    inputs = [str(SAMPLE / "bm25.trec"), "--qrels", str(SAMPLE / "qrels.txt")]
    metrics = ["-m", "ndcg@10", "-m", "ap"]
    assert main(["evaluate", *inputs, *metrics, "--json"]) == 0
    evaluated = {(r["metric"], r["mean"]) for r in _json(capsys)}  # type: ignore[attr-defined]
    assert main(["log", *inputs, *metrics, "--store", store, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["history", "--store", store, "--json"]) == 0
    logged = {(r["metric"], r["mean"]) for r in _json(capsys)}  # type: ignore[attr-defined]
    assert evaluated <= logged  # judged@10 is logged beside them, for the gate's coverage


def test_gate_exit_codes(files: dict[str, Path], tmp_path: Path) -> None:
    qrels = ["--qrels", str(files["qrels"]), "-m", "rr", "--quiet"]
    same = ["gate", str(files["good"]), *qrels, "--baseline", str(files["good"])]
    assert main(same) == 0
    worse = ["gate", str(files["worse"]), *qrels, "--baseline", str(files["good"])]
    assert main([*worse, "--max-drop", "0.1"]) == 1  # fell by 0.5
    assert main([*worse, "--max-drop", "0.6"]) == 0  # 0.5 is within 0.6
    assert main([*worse, "--max-drop", "60%"]) == 0  # 50% of 1.0 is within 60%
    assert main([*worse, "--max-drop", "40%"]) == 1
    # two queries: the smallest exact randomization p-value is 2/4 = 0.5, never below 0.05
    assert main([*worse, "--alpha", "0.05"]) == 0
    assert main([*worse, "--alpha", "0.05", "--max-drop", "0.1"]) == 0  # both rules
    assert main([*worse, "--alpha", "0.6"]) == 1  # p about 0.5 is below 0.6


def test_gate_against_a_store_entry(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "store")
    qrels = ["--qrels", str(files["qrels"]), "-m", "rr", "--quiet"]
    assert main(["log", str(files["good"]), *qrels, "--store", store, "--tag", "main"]) == 0
    gate = ["gate", str(files["worse"]), *qrels, "--store", store, "--against", "main"]
    markdown = tmp_path / "summary.md"
    assert main([*gate, "--markdown", str(markdown)]) == 1
    out = capsys.readouterr().out
    assert out.rstrip().endswith("FAIL: rr")
    text = markdown.read_text(encoding="utf-8")
    assert text.startswith("## ")
    assert "FAIL" in text.splitlines()[0]
    table = [line for line in text.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    row = [cell.strip() for cell in table[2].strip("|").split("|")]
    assert len(table) == 3  # header, alignment, one metric
    assert len(header) == len(row)
    cells = dict(zip(header, row, strict=True))
    assert (cells["metric"], cells["baseline"], cells["candidate"]) == ("rr", "1.0000", "0.5000")
    assert cells["result"] == "**FAIL**"
    # a second gate appends, as a CI job summary expects
    assert main([*gate, "--markdown", str(markdown)]) == 1
    assert markdown.read_text(encoding="utf-8").count("rankset gate") == 2


@pytest.mark.parametrize(
    "extra",
    [
        [],  # no baseline at all
        ["--baseline", "GOOD", "--store", "STORE"],  # both
        ["--against", "main"],  # a tag without a store
        ["--baseline", "GOOD", "--max-drop", "lots"],  # not a number
    ],
)
def test_gate_bad_input_exits_2(
    files: dict[str, Path],
    tmp_path: Path,
    extra: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    extra = [{"GOOD": str(files["good"]), "STORE": str(tmp_path / "s")}.get(a, a) for a in extra]
    command = ["gate", str(files["worse"]), "--qrels", str(files["qrels"]), "-m", "rr"]
    assert main([*command, *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankset: error:")
    assert "Traceback" not in err


def test_history_of_a_folder_that_is_no_store_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "--store", str(tmp_path / "nothing")]) == 2
    assert "rankset: error:" in capsys.readouterr().err


def test_gate_fails_a_shuffled_sample_run_and_passes_the_run_itself(tmp_path: Path) -> None:
    # The sample's rerank run with its top 10 shuffled for half of the queries.
    lines = (SAMPLE / "rerank.trec").read_text().splitlines()
    by_query: dict[str, list[list[str]]] = {}
    for line in lines:
        fields = line.split()
        by_query.setdefault(fields[0], []).append(fields)
    generator = random.Random(0)
    shuffled: list[str] = []
    for index, (_, rows) in enumerate(sorted(by_query.items())):
        rows.sort(key=lambda fields: int(fields[3]))
        if index % 2 == 0:
            top = rows[:10]
            generator.shuffle(top)
            rows = top + rows[10:]
        shuffled += [
            f"{f[0]} Q0 {f[2]} {rank} {1000 - rank} rerank" for rank, f in enumerate(rows, 1)
        ]
    candidate = tmp_path / "shuffled.trec"
    candidate.write_text("\n".join(shuffled) + "\n")
    common = ["--qrels", str(SAMPLE / "qrels.txt"), "-m", "ndcg@10", "--quiet"]
    baseline = ["--baseline", str(SAMPLE / "rerank.trec"), "--n-resamples", "2000"]
    rules = ["--max-drop", "0.01", "--alpha", "0.05"]
    assert main(["gate", str(candidate), *common, *baseline, *rules]) == 1
    assert main(["gate", str(SAMPLE / "rerank.trec"), *common, *baseline, *rules]) == 0


def test_help_lists_the_store_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("log", "history", "gate"):
        assert f"    {command}" in out


def test_history_draws_its_chart(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "store")
    common = ["--qrels", str(files["qrels"]), "-m", "rr", "--store", store, "--quiet"]
    assert main(["log", str(files["good"]), *common, "--tag", "base"]) == 0
    assert main(["log", str(files["worse"]), *common, "--tag", "new"]) == 0
    chart = tmp_path / "history.html"
    assert main(["history", "--store", store, "-m", "rr", "--chart", str(chart)]) == 0
    page = chart.read_text(encoding="utf-8")
    assert "vegaEmbed" in page
    assert '"mean":1.0' in page.replace(" ", "")  # the entries' means are the chart's data
    assert '"mean":0.5' in page.replace(" ", "")
    capsys.readouterr()
    # two metrics logged and none named: the chart cannot choose
    assert main(["log", str(files["good"]), *common[:-1], "-m", "ap", "--quiet"]) == 0
    assert main(["history", "--store", store, "--chart", str(chart)]) == 2
    assert "name it with -m METRIC" in capsys.readouterr().err


# --- gates that cannot mislead ------------------------------------------------------------


def _logged_main(files: dict[str, Path], tmp_path: Path, *extra: str) -> tuple[str, list[str]]:
    """Log GOOD as tag main (with ``extra`` options); return the store and the gate line."""
    store = str(tmp_path / "store")
    log = ["log", str(files["good"]), "--qrels", str(files["qrels"]), "-m", "rr", "--quiet"]
    assert main([*log, "--store", store, "--tag", "main", "--meta", "model=bm25", *extra]) == 0
    gate = ["gate", str(files["worse"]), "-m", "rr", "--quiet", "--store", store]
    return store, [*gate, "--against", "main"]


def test_gate_refuses_a_baseline_evaluated_at_another_relevance_level(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, gate = _logged_main(files, tmp_path)
    qrels = ["--qrels", str(files["qrels"])]
    capsys.readouterr()
    assert main([*gate, *qrels, "--relevance-level", "2"]) == 2
    err = capsys.readouterr().err
    assert "relevance_level: candidate 2, baseline 1" in err
    assert "--allow-mismatch" in err
    assert "Traceback" not in err
    # allowed on purpose: the gate runs and says what differed
    assert main([*gate, *qrels, "--relevance-level", "2", "--allow-mismatch"]) == 1
    captured = capsys.readouterr()
    assert "relevance_level: candidate 2, baseline 1" in captured.err
    assert captured.out.rstrip().endswith("FAIL: rr")
    # the same options pass the check (rr falls 1 -> 0.5, which the rule fails)
    assert main([*gate, *qrels]) == 1


def test_gate_refuses_a_baseline_judged_by_other_labels(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, gate = _logged_main(files, tmp_path)
    other = tmp_path / "qrels-v2.txt"
    other.write_text(QRELS + "q2 0 d 1\n")
    capsys.readouterr()
    assert main([*gate, "--qrels", str(other)]) == 2
    err = capsys.readouterr().err
    assert "labels: their contents differ" in err
    assert "qrels-v2.txt" in err
    assert "qrels.txt" in err


@pytest.mark.parametrize(
    ("max_drop", "hint"),
    [("2", "Did you mean '2%' (relative to the baseline) or 0.02 (absolute)?"),
     ("1", "Did you mean '1%' (relative to the baseline) or 0.01 (absolute)?"),
     ("150%", "cannot fall by 100% or more")],
)  # fmt: skip
def test_gate_refuses_a_drop_no_bounded_metric_can_make(
    files: dict[str, Path],
    tmp_path: Path,
    max_drop: str,
    hint: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ["--qrels", str(files["qrels"]), "-m", "rr", "--quiet"]
    gate = ["gate", str(files["worse"]), *base, "--baseline", str(files["good"])]
    assert main([*gate, "--max-drop", max_drop]) == 2
    err = capsys.readouterr().err
    assert hint in err
    assert "rr" in err
    # below the bound the same flag is a threshold: rr fell by 0.5 (50%)
    assert main([*gate, "--max-drop", "0.6"]) == 0
    assert main([*gate, "--max-drop", "40%"]) == 1


def test_gate_refuses_no_drop_on_an_unbounded_metric(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # num_ret counts documents (2 per query here): an absolute drop of 2 is a real rule
    base = ["--qrels", str(files["qrels"]), "-m", "num_ret", "--quiet"]
    gate = ["gate", str(files["worse"]), *base, "--baseline", str(files["good"])]
    assert main([*gate, "--max-drop", "2"]) == 0


def test_gate_names_its_baseline_and_prints_changes_as_the_flag_takes_them(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, gate = _logged_main(files, tmp_path)
    (entry,) = [p.name for p in (Path(store) / "entries").iterdir()] or [None]
    capsys.readouterr()
    markdown = tmp_path / "summary.md"
    command = [*gate, "--qrels", str(files["qrels"]), "--max-drop", "40%"]
    assert main([*command, "--markdown", str(markdown)]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith(f"Baseline: store entry {entry} (tag main, system s,")
    assert "meta model=bm25" in lines[0]
    assert "-50.00%" in out  # rr 1 -> 0.5
    text = markdown.read_text(encoding="utf-8")
    (named,) = [line for line in text.splitlines() if line.startswith("Baseline:")]
    assert f"store entry `{entry}`" in named
    assert "tag `main`" in named
    assert "system `s`" in named
    assert "meta model=bm25" in named
    assert "commit" in named
    assert "As flags: `--max-drop 40%`." in text
    assert "| -50.00% |" in text
    assert main([*command, "--json"]) == 1
    data = _json(capsys)
    assert isinstance(data, dict)
    assert data["baseline"]["entry_id"] == entry
    assert data["baseline"]["tag"] == "main"
    assert data["baseline"]["meta"] == {"model": "bm25"}
    assert data["mismatches"] == []


def test_history_shows_meta_and_what_options_changed(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "store")
    log = ["log", str(files["good"]), "--qrels", str(files["qrels"]), "-m", "rr", "--quiet"]
    assert main([*log, "--store", store, "--tag", "a", "--meta", "model=bm25"]) == 0
    extra = ["--relevance-level", "2", "--meta", "model=splade", "--meta", "k=10"]
    assert main([*log, "--store", store, "--tag", "b", *extra]) == 0
    capsys.readouterr()
    assert main(["history", "--store", store, "-m", "rr"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == "meta"
    assert lines[2].endswith("model=bm25")
    assert lines[3].endswith("k=10, model=splade")
    shared = next(line for line in lines if line.startswith("options of every entry: "))
    assert "missing=skip" in shared
    assert "relevance_level" not in shared  # it differs, so each entry says its own
    own = [line for line in lines if line.startswith("options of 2")]
    assert [line.rsplit(": ", 1)[1] for line in own] == ["relevance_level=1", "relevance_level=2"]
    assert main(["history", "--store", store, "-m", "rr", "--json"]) == 0
    rows = _json(capsys)
    assert isinstance(rows, list)
    assert [row["meta"] for row in rows] == [{"model": "bm25"}, {"k": "10", "model": "splade"}]
    assert [row["options"]["relevance_level"] for row in rows] == [1, 2]


def test_gate_on_costs_with_a_baseline_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    good, worse = tmp_path / "good.run", tmp_path / "worse.run"
    good.write_text(GOOD.replace(" s\n", " bm25\n"))  # tagged bm25: the system's name
    worse.write_text(WORSE)
    costs = tmp_path / "costs.csv"
    costs.write_text(  # one table for both sides: --name names the candidate
        "system,query_id,latency_ms\nnew,q1,120\nnew,q2,140\nbm25,q1,100\nbm25,q2,100\n"
    )
    base = ["--qrels", str(qrels), "-m", "rr", "--quiet", "--costs", str(costs)]
    gate = ["gate", str(worse), *base, "--baseline", str(good), "--name", "new"]
    gate += ["--max-drop", "0.6"]  # rr falls by 0.5: the metric passes
    assert main([*gate, "--max-increase", "latency_ms=40%"]) == 0  # 100 -> 130: +30%
    assert main([*gate, "--max-increase", "latency_ms=25%"]) == 1
    out = capsys.readouterr().out
    assert "new     latency_ms       100.0000        130.0000" in out
    assert out.rstrip().endswith("FAIL: latency_ms")
    assert main([*gate, "--max-increase", "speed=5%"]) == 2
    assert "not a cost column" in capsys.readouterr().err


def test_the_store_logs_costs_and_the_gate_compares_them_with_the_entry_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    good, worse = tmp_path / "good.run", tmp_path / "worse.run"
    good.write_text(GOOD)
    worse.write_text(WORSE)
    logged_costs, new_costs = tmp_path / "logged.csv", tmp_path / "new.csv"
    logged_costs.write_text("query_id,latency_ms,tokens_in\nq1,100,10\nq2,110,30\n")
    new_costs.write_text("query_id,latency_ms,tokens_out\nq1,120,5\nq2,141,5\n")
    store = str(tmp_path / "store")
    base = ["--qrels", str(qrels), "-m", "rr", "--quiet", "--store", store]
    assert main(["log", str(good), *base, "--tag", "main", "--costs", str(logged_costs)]) == 0
    assert main(["log", str(good), *base, "--tag", "old"]) == 0  # no costs
    capsys.readouterr()
    from rankset.experiments import Store

    opened = Store(store, create=False)
    costs = opened.latest(tag="main").costs
    assert costs is not None  # the entry's costs, as evaluate summarised them
    assert costs.select("cost", "mean", "p50", "n_queries").rows() == [
        ("latency_ms", 105.0, 105.0, 2),
        ("tokens_in", 20.0, 20.0, 2),
    ]
    assert opened.latest(tag="old").costs is None
    gate = ["gate", str(worse), "--qrels", str(qrels), "-m", "rr", "--quiet", "--store", store]
    gate += ["--max-drop", "0.6", "--costs", str(new_costs)]
    # latency's mean 105 -> 130.5: +25.5, +24.3%
    assert main([*gate, "--against", "main", "--max-increase", "latency_ms=25%"]) == 0
    assert main([*gate, "--against", "main", "--max-increase", "latency_ms=24%"]) == 1
    assert "FAIL: latency_ms" in capsys.readouterr().out
    assert main([*gate, "--against", "main", "--max-increase", "tokens_out=5%"]) == 2
    assert "has no tokens_out (it has latency_ms, tokens_in)" in capsys.readouterr().err
    assert main([*gate, "--against", "old", "--max-increase", "latency_ms=25%"]) == 2
    assert "has no latency_ms (no costs recorded)" in capsys.readouterr().err


def test_a_store_written_before_costs_reads_as_none_recorded(tmp_path: Path) -> None:
    from rankset.experiments import Store

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    run = tmp_path / "good.run"
    run.write_text(GOOD)
    store = Store(tmp_path / "store")
    entry = store.evaluate_and_log(run, qrels, ["rr"], n_resamples=100)
    (store.path / "entries" / entry / "costs.parquet").unlink()  # as an older rankset wrote
    assert store.result(entry).costs is None
    assert store.scan("costs").collect().height == 0
    assert store.history("rr")["mean"].to_list() == [1.0]
