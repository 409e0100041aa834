"""Tests of rankset.io on ranx-style mappings, in memory and as JSON."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

import rankset
from _support.io_cases import labels_frame, write_text
from rankset.errors import InputFormatError
from rankset.io import read, scan_labels, scan_run


def test_ranx_mappings() -> None:
    ranx = {"q1": {"d1": 0.5, "d2": 1}, "q2": {"d3": 2.0}}

    run = scan_run(ranx).collect()
    labels = scan_labels(ranx).collect()

    assert run.rows() == [
        ("q1", "d1", None, 0.5, None),
        ("q1", "d2", None, 1.0, None),
        ("q2", "d3", None, 2.0, None),
    ]
    assert_frame_equal(
        labels, labels_frame([("q1", "d1", 0.5), ("q1", "d2", 1.0), ("q2", "d3", 2.0)])
    )
    with pytest.raises(InputFormatError, match="pass kind='run' or kind='labels'"):
        read(ranx)


def test_ranx_json_file(tmp_path: Path) -> None:
    path = write_text(tmp_path / "ranx.json", json.dumps({"301": {"d": 3}}))

    assert scan_labels(path).collect().rows() == [("301", "d", 3.0)]


def test_ranx_objects_evaluate_as_ranx_scores_them() -> None:
    ranx = pytest.importorskip("ranx")
    import random

    generator = random.Random(7)
    qrels_dict: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {"bm25": {}, "dense": {}}
    for q in range(30):
        qid = f"q{q}"
        docs = [f"d{d}" for d in range(40)]
        qrels_dict[qid] = {doc: generator.randint(1, 3) for doc in generator.sample(docs, 5)}
        for run in runs.values():
            # distinct scores: no tie for either tool to break its own way
            scores = generator.sample(range(1000), 25)
            run[qid] = {doc: float(score) for doc, score in zip(docs[:25], scores, strict=True)}
    qrels = ranx.Qrels(qrels_dict)
    bm25, dense = (ranx.Run(runs[name], name=name) for name in ("bm25", "dense"))
    names = {"mrr": "rr", "ndcg@10": "ndcg@10", "precision@10": "precision@10"}
    names["recall@20"] = "recall@20"
    result = rankset.evaluate([bm25, dense], qrels, list(names.values()))
    means = {(s, m): v for s, m, v in result.summary.select("system", "metric", "mean").rows()}
    assert result.systems == ["bm25", "dense"]  # the runs' own names
    from numba.core.errors import NumbaTypeSafetyWarning  # ranx's own dependency

    for run, name in ((bm25, "bm25"), (dense, "dense")):
        with warnings.catch_warnings():
            # numba compiling ranx's code for the first time in this environment (no
            # cache yet, as in a fresh clone) notes an unsafe cast inside ranx
            warnings.simplefilter("ignore", NumbaTypeSafetyWarning)
            expected = ranx.evaluate(qrels, run, list(names))
        for ranx_name, ours in names.items():
            assert means[name, ours] == pytest.approx(float(expected[ranx_name]), abs=1e-12)
    # a mapping of names to ranx runs names them itself; read() takes them too
    named = rankset.evaluate({"a": bm25}, qrels, ["rr"])
    assert named.systems == ["a"]
    parsed = rankset.read(qrels, kind="labels")
    assert parsed.labels is not None
    assert parsed.labels.collect().height == 150
