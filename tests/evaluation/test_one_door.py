"""One door for measurement: ``evaluate`` is ``evaluate_with``; ``official`` named once.

:func:`rankset.evaluate` builds an :class:`EvaluateOptions` from its keyword arguments
and calls :func:`evaluate_with`, which every other caller (the command line, the pages,
the analyses) calls too: the prepared, one-collect path and the naming of the metrics
(``"official"`` replaced, ``ks`` applied) happen there, once.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import rankset
from rankset.cli import main
from rankset.evaluation import EvaluateOptions
from rankset.evaluation import _evaluate as door
from rankset.io import _irds

RUN = {"q1": {"d1": 2.0, "d2": 1.0, "d3": 0.5}, "q2": {"d4": 1.0, "d5": 0.5}}
QRELS = "q1 0 d2 2\nq1 0 d3 1\nq2 0 d4 3\nq2 0 d5 0\n"
# TREC DL 2022 passage: four official measures, two of them cut by ks
DL22 = ("AP@100", "nDCG@10", "P(rel=2)@10", "RR(rel=2)")


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The labels whose official measures were looked up, in order (rankset's table)."""
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    asked: list[object] = []
    looked_up = _irds.official_measures

    def counted(source: object) -> tuple[str, ...]:
        asked.append(source)
        return looked_up(source)

    monkeypatch.setattr(_irds, "official_measures", counted)
    return asked


@pytest.fixture
def qrels(tmp_path: Path) -> Path:
    path = tmp_path / "qrels.dl22-passage.txt"  # named as pyserini names it
    path.write_text(QRELS)
    return path


def test_evaluate_is_evaluate_with_and_its_options(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    through = door.evaluate_with

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return through(*args, **kwargs)

    monkeypatch.setattr(door, "evaluate_with", spy)
    got = rankset.evaluate(RUN, {"q1": {"d2": 1}}, ["rr"], k=3, missing="zero", seed=4, ks=None)
    [(args, kwargs)] = calls
    assert args[:3] == (RUN, {"q1": {"d2": 1}}, ["rr"])
    assert args[3] == EvaluateOptions(k=3, missing="zero")
    assert kwargs == {
        "ks": None,
        "confidence": 0.95,
        "n_resamples": 1000,
        "seed": 4,
        "progress": None,
    }
    assert got.summary["mean"].to_list() == [0.5]  # q1 alone is labelled


def test_evaluate_and_evaluate_with_take_the_same_keywords() -> None:
    evaluate = inspect.signature(rankset.evaluate).parameters
    evaluate_with = inspect.signature(rankset.evaluate_with).parameters
    options = set(EvaluateOptions.option_names())
    # evaluate's keywords: the options' fields, then evaluate_with's own keywords
    assert set(evaluate) - options == set(evaluate_with) - {"options"}
    assert options <= set(evaluate)


@pytest.mark.parametrize("runs", ["dict", "file"])
def test_official_is_looked_up_once_with_ks(
    lookups: list[object], qrels: Path, tmp_path: Path, runs: str
) -> None:
    run: Any = RUN
    if runs == "file":  # planned whole, not prepared
        run = tmp_path / "run.trec"
        run.write_text("q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\nq2 Q0 d4 1 1.0 bm25\n")
    result = rankset.evaluate(run, qrels, "official", ks=[5, 10], confidence=None)
    assert lookups == [qrels]
    # the official measures, then the one without a fixed cutoff cut at 5 and 10
    cut = ["ap@100", "ndcg@10", "precision(rel=2)@10", "rr(rel=2)@5", "rr(rel=2)@10"]
    assert result.metrics == cut


def test_official_is_looked_up_once_by_evaluate_with(lookups: list[object], qrels: Path) -> None:
    from rankset.evaluation import evaluate_with

    result = evaluate_with(RUN, qrels, ["P_10", "official"], EvaluateOptions(), confidence=None)
    assert lookups == [qrels]
    assert result.metrics == [
        "precision@10",
        "ap@100",
        "ndcg@10",
        "precision(rel=2)@10",
        "rr(rel=2)",
    ]


def test_official_is_looked_up_once_on_the_command_line(
    lookups: list[object], qrels: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\nq2 Q0 d4 1 1.0 bm25\n")
    status = main(["evaluate", str(run), "--qrels", str(qrels), "-m", "official", "--json"])
    assert status == 0
    assert lookups == [str(qrels)]
    rows = json.loads(capsys.readouterr().out)
    assert [row["metric"] for row in rows] == [
        metric.name for metric in door.metrics_of(DL22, None)
    ]
