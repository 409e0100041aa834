"""Intent-aware measures (NIST's ndeval conventions) by hand, over subtopic labels.

Subtopic labels are read as nuggets (:func:`rankset.io.read_subtopics`). The values below
are worked out from the definitions in ndeval's documentation (Clarke et al. 2008 for
α-nDCG, Chapelle et al. 2011 for ERR-IA and NRBP); pyndeval itself is compared in
tests/compat/test_ir_measures_face.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

import rankset
from rankset.errors import InputFormatError

# Subtopic s1: a, b relevant; s2: a, c relevant; d judged not relevant to either;
# s3 only has a non-relevant judgement, so it is not one of the query's A = 2 subtopics.
LINES = "q s1 a 1\nq s1 b 2\nq s2 a 1\nq s2 c 1\nq s2 d 0\nq s3 d 0\nz s1 e 0\n"
# Ranked b, x (unlabelled), a, c: novelty gains with alpha 0.5 are 1, 0, 0.5 + 1, 0.5.
RUN = {"q": {"b": 4.0, "x": 3.0, "a": 2.0, "c": 1.0}, "z": {"e": 1.0}}
GAINS = [1.0, 0.0, 1.5, 0.5]
IDEAL = [2.0, 0.5, 0.5]  # a; then b and c tie at 0.5: the larger id first (c), then b


def _values(tmp_path: Path, metrics: list[str]) -> dict[tuple[str, str], float | None]:
    path = tmp_path / "div.qrels"
    path.write_text(LINES)
    nuggets = rankset.read_subtopics(path)
    res = rankset.evaluate(RUN, None, metrics, nuggets=nuggets, confidence=None)
    return {(q, m): v for q, m, v in res.per_query.select("query_id", "metric", "value").rows()}


def _dcg(gains: list[float]) -> float:
    return sum(g / math.log2(r + 1) for r, g in enumerate(gains, start=1))


def test_every_intent_aware_measure_by_hand(tmp_path: Path) -> None:
    metrics = [
        "alpha_ndcg@4", "alpha_dcg@4", "alpha_dcg@1", "err_ia@4", "err_ia@1", "nerr_ia@4",
        "nrbp", "nnrbp", "map_ia", "p_ia@4", "p_ia@10", "subtopic_recall@2", "strec@4",
    ]  # fmt: skip
    got = _values(tmp_path, metrics)
    every_subtopic = sum(0.5 ** (r - 1) / math.log2(r + 1) for r in range(1, 5))
    err = sum(g / r for r, g in enumerate(GAINS, start=1))
    expected = {
        "alpha_ndcg@4": _dcg(GAINS) / _dcg(IDEAL),
        "alpha_dcg@4": _dcg(GAINS) / (2 * every_subtopic),
        "alpha_dcg@1": 1.0,  # ndeval leaves k = 1 unscaled: the subtopics b covers
        "err_ia@4": err / (2 * sum(0.5 ** (r - 1) / r for r in range(1, 5))),
        "err_ia@1": 1.0,
        "nerr_ia@4": err / (2 / 1 + 0.5 / 2 + 0.5 / 3),
        "nrbp": (1 - 0.5 * 0.5) / 2 * sum(g * 0.5 ** (r - 1) for r, g in enumerate(GAINS, 1)),
        "nnrbp": (1 + 1.5 * 0.25 + 0.5 * 0.125) / (2 + 0.5 * 0.5 + 0.5 * 0.25),
        # s1: b at 1, a at 3 (2 relevant); s2: a at 3, c at 4 (2 relevant)
        "map_ia": ((1 / 1 + 2 / 3) / 2 + (1 / 3 + 2 / 4) / 2) / 2,
        "p_ia@4": 4 / (4 * 2),  # pairs (b, s1), (a, s1), (a, s2), (c, s2)
        "p_ia@10": 4 / (10 * 2),  # over k even past the end of the ranking, as ndeval
        "subtopic_recall@2": 1 / 2,
        "subtopic_recall@4": 1.0,
    }
    for metric, value in expected.items():
        assert got[("q", metric)] == pytest.approx(value, rel=1e-12), metric
    # z has subtopic labels but no relevant passage: NA, as for alpha_ndcg
    assert {m: got[("z", m)] for m in expected} == dict.fromkeys(expected)


def test_alpha_changes_the_novelty_discount(tmp_path: Path) -> None:
    got = _values(tmp_path, ["alpha_ndcg(alpha=0)@4", "nrbp(alpha=0,beta=0.9)"])
    plain = [1.0, 0.0, 2.0, 1.0]  # alpha 0: every subtopic counts again
    assert got[("q", "alpha_ndcg(alpha=0)@4")] == pytest.approx(
        _dcg(plain) / _dcg([2.0, 1.0, 1.0]), rel=1e-12
    )
    expected_nrbp = (1 - 0.9) / 2 * sum(g * 0.9 ** (r - 1) for r, g in enumerate(plain, 1))
    assert got[("q", "nrbp(alpha=0,beta=0.9)")] == pytest.approx(expected_nrbp, rel=1e-12)


def test_subtopic_labels_from_a_frame_with_a_relevance_level() -> None:
    frame = pl.DataFrame(
        {"query_id": "q", "iteration": ["s1", "s1", "s2"], "doc_id": ["a", "b", "a"],
         "relevance": [2, 1, 1]}
    )  # fmt: skip
    nuggets = rankset.read_subtopics(frame, relevance_level=2)
    assert nuggets.select("nugget_id", "doc_id", "support").rows() == [
        ("s1", "a", 1.0), ("s1", "b", 0.0), ("s2", "a", 0.0),
    ]  # fmt: skip
    res = rankset.evaluate({"q": {"b": 2.0, "a": 1.0}}, None, ["subtopic_recall@1", "map_ia"],
                           nuggets=nuggets, confidence=None)  # fmt: skip
    assert res.per_query["value"].to_list() == [0.0, 0.5]  # only s1 counts; a is second


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q s1 a\n", r"line 1: 3 fields in 'q s1 a'; expected 4: query subtopic doc grade"),
        ("q s1 a 1\n\n\nq s1 a x\n", r"line 4: grade 'x' is not a number"),
        (
            "q s1 a 1\nq s2 a 1\n\nq s1 a 0\n",
            r"lines 1 and 4: query 'q', subtopic 's1', document 'a'",
        ),
        ("\n", r"no judgements"),
    ],
)
def test_bad_subtopic_labels_name_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.qrels"
    path.write_text(text)
    with pytest.raises(InputFormatError, match=message):
        rankset.read_subtopics(path)


def test_the_command_line_reads_subtopic_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankset.cli import main

    labels = tmp_path / "div.qrels"
    labels.write_text(LINES)
    run = tmp_path / "run.trec"
    run.write_text("q Q0 b 1 4 s\nq Q0 x 2 3 s\nq Q0 a 3 2 s\nq Q0 c 4 1 s\n")
    args = ["evaluate", str(run), "--subtopics", str(labels), "--json"]
    assert main([*args, "-m", "p_ia@4", "-m", "map_ia", "--relevance-level", "2"]) == 0
    means = {row["metric"]: row["mean"] for row in json.loads(capsys.readouterr().out)}
    assert means == {"p_ia@4": 1 / 4, "map_ia": 1.0}  # at level 2 only (b, s1) is relevant
    # level 0: grade-0 judgements are relevant too: q gains s3 (d, not retrieved)
    assert main([*args, "-m", "subtopic_recall@4", "--relevance-level", "0"]) == 0
    means = {row["metric"]: row["mean"] for row in json.loads(capsys.readouterr().out)}
    assert means["subtopic_recall@4"] == pytest.approx(2 / 3)  # 1 at level 1
    assert main([*args, "--nuggets", str(labels), "-m", "map_ia"]) == 2
    assert "--subtopics and --nuggets" in capsys.readouterr().err
