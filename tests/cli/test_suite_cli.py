"""``rankset evaluate --suite``: collections from a TOML file, then their aggregate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankset.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    # two collections: the sample's labels, and those of its first 20 queries
    lines = (SAMPLE / "qrels.txt").read_text().splitlines()
    first = sorted({line.split()[0] for line in lines})[:20]
    (tmp_path / "half.qrels").write_text(
        "\n".join(line for line in lines if line.split()[0] in first) + "\n"
    )
    runs = f'{{ bm25 = "{SAMPLE / "bm25.trec"}", rerank = "{SAMPLE / "rerank.trec"}" }}'
    text = f"""metrics = ["ndcg@10", "ap"]
[collections.all]
qrels = "{SAMPLE / "qrels.txt"}"
runs = {runs}
[collections.half]
qrels = "half.qrels"
runs = {runs}
"""
    path = tmp_path / "suite.toml"
    path.write_text(text)
    return path


def _means(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[tuple[str, str], float]:
    assert main([*argv, "--json", "--quiet"]) == 0
    return {(r["system"], r["metric"]): r["mean"] for r in json.loads(capsys.readouterr().out)}


def test_a_suite_equals_separate_evaluations_and_averages_them(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")]
    metrics = ["-m", "ndcg@10", "-m", "ap", "--scale", "trec_dl"]
    alone = {
        "all": _means(["evaluate", *runs, "--qrels", str(SAMPLE / "qrels.txt"), *metrics], capsys),
        "half": _means(
            ["evaluate", *runs, "--qrels", str(suite.parent / "half.qrels"), *metrics], capsys
        ),
    }
    assert main(["evaluate", "--suite", str(suite), "--scale", "trec_dl", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    per = {(r["collection"], r["system"], r["metric"]): r for r in out["per_collection"]}
    for collection, means in alone.items():
        for (system, metric), mean in means.items():
            assert per[collection, system, metric]["mean"] == mean
    for row in out["aggregate"]:
        key = (row["system"], row["metric"])
        expected = (alone["all"][key] + alone["half"][key]) / 2
        assert row["macro_mean"] == pytest.approx(expected, abs=1e-15)
        assert row["n_collections"] == 2
    # rerank is above bm25 on both collections and both metrics: rank 1 twice, Borda 2
    best = {r["metric"]: r for r in out["aggregate"] if r["system"] == "rerank"}
    assert {metric: (r["mean_rank"], r["borda"]) for metric, r in best.items()} == {
        "ndcg@10": (1.0, 2),
        "ap": (1.0, 2),
    }
    # the table form prints the collections, then the aggregate
    assert main(["evaluate", "--suite", str(suite), "--scale", "trec_dl", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split()[:3] == ["collection", "system", "metric"]
    assert "macro_mean" in text


def test_suite_inputs_are_checked(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--quiet"]) == 2
    assert "--suite" in capsys.readouterr().err
    assert main(["evaluate", str(SAMPLE / "bm25.trec"), "--suite", str(suite)]) == 2
    assert "give no RUN" in capsys.readouterr().err
    broken = suite.parent / "broken.toml"
    broken.write_text("[collections.a]\nqrels = 3\n")
    assert main(["evaluate", "--suite", str(broken), "--quiet"]) == 2
    assert "broken.toml" in capsys.readouterr().err


def test_evaluate_is_routed_by_its_own_module_and_names_are_never_overridden() -> None:
    import rankset.cli as cli
    from rankset.cli import _commands, _suite

    # `rankset evaluate` is the one that takes --suite; the runs on the line go on to
    # evaluate_runs from there, not through a table entry a later table overrides
    assert cli._COMMANDS["evaluate"] is _suite.evaluate
    assert "evaluate" not in _commands.COMMANDS
    with pytest.raises(RuntimeError, match="two subcommands are named 'compare'"):
        cli._by_name(_commands.COMMANDS, {"compare": _suite.evaluate})
