"""``rankset judges meta-evaluate``: both forms, text and JSON lines, bad input exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankset.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "meta_evaluation"
REFERENCE = json.loads((DATA / "reference.json").read_text(encoding="utf-8"))


def _reference(case: str, judge: str, truth_metric: str, metric: str) -> dict[str, float]:
    for row in REFERENCE[case]["rows"]:
        if (row["Judge"], row["TruthMeasure"], row["EvalMeasure"]) == (judge, truth_metric, metric):
            return dict(row)
    raise AssertionError("no such reference row")


def test_leaderboards_json_lines_equal_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["judges", "meta-evaluate", "--truth-leaderboard", str(DATA / "truth.txt"),
            "--judge-leaderboard", str(DATA / "judge_a.txt"), "--judge-leaderboard",
            f"b={DATA / 'judge_b.txt'}", "--on-missing", "skip", "--all-pairs",
            "--n-bootstrap", "50", "--json"]  # fmt: skip
    assert main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 8  # 2 judges x 2 x 2 metric pairs
    for line in lines:
        judge = "judge_b" if line["judge"] == "b" else line["judge"]
        expected = _reference("skip", judge, line["truth_metric"], line["metric"])
        for name in ("kendall", "pearson", "spearman", "tauap_b", "tau_gap", "kendall@10"):
            assert line[name] == pytest.approx(expected[name], abs=1e-9)
            low, high = line[f"{name}_ci"]
            assert low <= high


def test_leaderboards_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["judges", "meta-evaluate", "--truth-leaderboard", str(DATA / "truth_trec_eval"),
            "--truth-format", "trec_eval", "--judge-leaderboard", str(DATA / "judge_a.txt"),
            "-m", "ndcg@10", "--correlation", "kendall", "--n-bootstrap", "20",
            "--per-topic"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["judge", "truth_metric", "metric", "kendall", "systems", "topics"]
    expected = _reference("error", "judge_a", "ndcg@10", "ndcg@10")["kendall"]
    assert out[2].split()[:4] == ["judge_a", "ndcg@10", "ndcg@10", f"{expected:.4f}"]
    assert out[2].split()[-2:] == ["12", "5"]
    assert "query_id" in out[4]  # the per-topic table follows, one row per topic
    assert len(out) == 4 + 2 + 5


def test_runs_and_label_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for name, order in {"a": "d1 d2 d3", "b": "d2 d1 d3", "c": "d3 d2 d1"}.items():
        lines = [f"q1 Q0 {doc} {rank} {10 - rank} {name}"
                 for rank, doc in enumerate(order.split(), 1)]  # fmt: skip
        path = tmp_path / f"{name}.run"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        runs.append(str(path))
    truth, judge = tmp_path / "human.qrels", tmp_path / "llm.qrels"
    truth.write_text("q1 0 d1 1\n", encoding="utf-8")
    judge.write_text("q1 0 d2 1\n", encoding="utf-8")
    argv = ["judges", "meta-evaluate", *runs, "--truth", str(truth), "--judge",
            f"llm={judge}", "--judge", f"same={truth}", "-m", "rr", "--correlation", "kendall",
            "--json"]  # fmt: skip
    assert main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_judge = {line["judge"]: line for line in lines}
    # rr under the humans: a 1, b 1/2, c 1/3; under the llm: a 1/2, b 1, c 1/2
    assert by_judge["same"]["kendall"] == pytest.approx(1.0)
    # one concordant pair (b, c), one discordant (a, b), one tied under the llm (a, c)
    assert by_judge["llm"]["kendall"] == pytest.approx(0.0)
    assert by_judge["llm"]["metric"] == "rr"


@pytest.mark.parametrize(
    "extra",
    [
        ["--judge-leaderboard", "judge_a.txt"],  # no truth
        ["--truth-leaderboard", "truth.txt", "--judge-leaderboard", "bad.txt"],
        ["--truth-leaderboard", "truth.txt", "--judge-leaderboard", "judge_b.txt"],  # missing
        ["--truth-leaderboard", "truth.txt", "--judge-leaderboard", "judge_a.txt",
         "--correlation", "tau"],
        ["run.txt", "--truth", "truth.txt"],  # no judge
    ],
)  # fmt: skip
def test_bad_input_exits_2(
    tmp_path: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.txt").write_text("r1 t1 ndcg@10\n", encoding="utf-8")
    for name in ("truth.txt", "judge_a.txt", "judge_b.txt"):
        (tmp_path / name).write_bytes((DATA / name).read_bytes())
    paths = [str(tmp_path / a) if a.endswith(".txt") else a for a in extra]
    assert main(["judges", "meta-evaluate", *paths]) == 2
    error = capsys.readouterr().err
    assert error.startswith("rankset: error:")
    if "bad.txt" in " ".join(extra):
        assert "bad.txt, line 1: expected 4 fields" in error


SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
RUNS = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")]


def _shifted_judge(tmp_path: Path) -> Path:
    """The sample's qrels, every grade one up: a lenient judge on a 1-4 scale."""
    lines = (SAMPLE / "qrels.txt").read_text(encoding="utf-8").splitlines()
    shifted = [" ".join([*line.split()[:3], str(int(line.split()[3]) + 1)]) for line in lines]
    path = tmp_path / "judge.txt"
    path.write_text("\n".join(shifted) + "\n", encoding="utf-8")
    return path


def test_simulate_json_one_object_per_plan(capsys: pytest.CaptureFixture[str]) -> None:
    truth = str(SAMPLE / "qrels.txt")
    argv = ["judges", "simulate", *RUNS, "--truth", truth, "--judge", truth,
            "--budget", "10%", "--seeds", "2", "--plan", "random", "--plan", "influence",
            "--json"]  # fmt: skip
    assert main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["plan"] for line in lines] == ["random", "influence"]
    for line in lines:
        assert set(line) == {"plan", "budget", "tau_mean", "tau_min", "coverage", "width_ratio"}
        # the judge is the truth: the leaderboard is the humans', every interval holds it
        assert (line["tau_mean"], line["tau_min"], line["coverage"]) == (1.0, 1.0, 1.0)
    # 10% of the pool, at least one pair per query, as drawn by "random"
    pairs = (SAMPLE / "qrels.txt").read_text(encoding="utf-8").splitlines()
    per_query: dict[str, int] = {}
    for line in pairs:
        per_query[line.split()[0]] = per_query.get(line.split()[0], 0) + 1
    assert lines[0]["budget"] == sum(max(1, round(0.1 * n)) for n in per_query.values())


def test_simulate_budget_spellings_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    truth = str(SAMPLE / "qrels.txt")
    base = ["judges", "simulate", *RUNS, "--truth", truth, "--judge", truth, "--seeds", "1",
            "--plan", "stratified", "--json"]  # fmt: skip
    assert main([*base, "--budget", "40"]) == 0
    assert json.loads(capsys.readouterr().out)["budget"] == pytest.approx(40, abs=12)
    with pytest.raises(SystemExit) as raised:
        main([*base, "--budget", "ten"])
    assert raised.value.code == 2
    assert "expected a share" in capsys.readouterr().err
    assert main([*base[:-1], "-m", "map", "--json"]) == 2
    assert "ndcg@k and dcg@k" in capsys.readouterr().err


def _grades(path: Path) -> dict[tuple[str, str], float]:
    rows = [line.split() for line in path.read_text(encoding="utf-8").splitlines()]
    return {(row[0], row[2]): float(row[3]) for row in rows}


def test_calibrate_prints_the_fit_and_writes_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = _shifted_judge(tmp_path)
    out = tmp_path / "calibrated.txt"
    argv = ["judges", "calibrate", *RUNS, "--truth", str(SAMPLE / "qrels.txt"),
            "--judge", str(judge), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "fitted" in text
    assert "calibrated_bias" in text
    # judge grade g maps to g - 1: the written labels are the sample's qrels again
    original = _grades(SAMPLE / "qrels.txt")
    assert _grades(out) == original
    assert main([*argv[:-2], "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [row["fitted"] for row in document["table"]] == [0.0, 1.0, 2.0, 3.0]
    assert {row["system"] for row in document["means"]} == {"bm25", "rerank"}


def test_the_parsers_plans_are_the_librarys() -> None:
    from rankset.cli._judges import _PLANS
    from rankset.label_quality import PLANS

    assert _PLANS == PLANS
