"""``max_depth`` (trec_eval's -M) and ``judged_only`` (-J) as options of ``evaluate``.

Expected values: by hand; pytrec_eval's ``judged_docs_only_flag`` (a test dependency, run
in a fresh interpreter since it keeps trec_eval's state); and the trec_eval 10.0 binary's
per-query output under -M and -J when the shared folder lets the tests build it.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset

RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0, "x": 0.5}, "q2": {"y": 1.0, "z": 0.5}}
LABELS = {"q1": {"a": 0, "c": 1, "d": 1}, "q2": {"k": 1}}
NAMES = ["ap", "num_ret", "precision@2", "rr"]


def _values(**options: Any) -> dict[tuple[str, str], float]:
    res = rankset.evaluate(RUN, LABELS, NAMES, confidence=None, **options)
    return {(q, m): v for q, m, v in res.per_query.select("query_id", "metric", "value").rows()}


def test_judged_only_by_hand() -> None:
    got = _values(judged_only=True)
    # q1 keeps a (grade 0) and c (grade 1): [a, c]; 2 relevant labels (c, d)
    assert got[("q1", "ap")] == pytest.approx(0.5 / 2)
    assert got[("q1", "precision@2")] == 0.5
    assert got[("q1", "rr")] == 0.5
    assert got[("q1", "num_ret")] == 2
    # q2 loses both documents: still scored, as an empty ranking
    assert got[("q2", "num_ret")] == 0
    assert got[("q2", "ap")] == 0
    res = rankset.evaluate(RUN, LABELS, NAMES, judged_only=True, confidence=None)
    assert res.query_counts["n_scored"].to_list() == [2]
    assert res.config["judged_only"] is True


def test_max_depth_by_hand_and_with_judged_only() -> None:
    got = _values(max_depth=2)
    assert got[("q1", "num_ret")] == 2  # a, b: c (relevant) is cut
    assert got[("q1", "rr")] == 0
    both = _values(max_depth=2, judged_only=True)
    assert both[("q1", "num_ret")] == 1  # -M first (a, b), then -J (a)
    assert both[("q1", "ap")] == 0


def test_the_options_are_checked() -> None:
    with pytest.raises(rankset.ParameterError, match="'max_depth' parameter must be an int"):
        rankset.evaluate(RUN, LABELS, ["ap"], max_depth=0)
    with pytest.raises(rankset.ParameterError, match="'judged_only' parameter must be a bool"):
        rankset.evaluate(RUN, LABELS, ["ap"], judged_only="yes")  # type: ignore[arg-type]


def _generated(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(15):
        docs = [f"d{i}" for i in range(rng.randint(2, 30))]
        judged = rng.sample(docs, k=rng.randint(1, len(docs)))
        qrels[f"q{q}"] = {doc: rng.choice([-1, 0, 0, 1, 2, 3]) for doc in judged}
        run[f"q{q}"] = {doc: float(rng.randint(0, 5)) for doc in docs}
    return qrels, run


_PYTREC = """
import json, sys, pytrec_eval
qrels, run, measures = json.load(sys.stdin)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures), 1, True)
json.dump(evaluator.evaluate(run), sys.stdout)
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_judged_only_equals_pytrec_eval(seed: int) -> None:
    pytest.importorskip("pytrec_eval", reason="pytrec_eval is a test dependency")
    qrels, run = _generated(seed)
    measures = {"map": "ap", "P_5": "precision@5", "recip_rank": "rr", "bpref": "bpref",
                "ndcg_cut_10": "ndcg@10", "num_ret": "num_ret", "Rprec": "rprec"}  # fmt: skip
    asked = ["map", "P.5", "recip_rank", "bpref", "ndcg_cut.10", "num_ret", "Rprec"]
    done = subprocess.run(
        [sys.executable, "-c", _PYTREC],
        input=json.dumps([qrels, run, asked]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    theirs = json.loads(done.stdout)
    res = rankset.evaluate(
        run, qrels, list(measures.values()), judged_only=True, score_precision="float32",
        confidence=None,
    )  # fmt: skip
    ours = {(q, m): v for q, m, v in res.per_query.select("query_id", "metric", "value").rows()}
    compared = 0
    for query, values in theirs.items():
        if values["num_ret"] == 0:
            continue  # pytrec_eval's empty rankings are unreliable (see the face's tests)
        for name, metric in measures.items():
            assert ours[(query, metric)] == pytest.approx(values[name], abs=1e-12), (query, name)
            compared += 1
    assert compared > 50


@pytest.mark.parametrize(
    "options", [["-M", "5"], ["-J"], ["-M", "8", "-J"], ["-M", "3", "-J", "-l", "2"]]
)
def test_equals_the_trec_eval_binary(
    trec_eval_10: Path, tmp_path: Path, options: list[str]
) -> None:
    qrels, run = _generated(4)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    run_path.write_text(
        "".join(f"{q} Q0 {d} 0 {s} sys\n" for q, docs in run.items() for d, s in docs.items())
    )
    measures = {"map": "ap", "P_5": "precision@5", "recip_rank": "rr", "bpref": "bpref",
                "ndcg_cut_10": "ndcg@10", "num_ret": "num_ret", "infAP": "infap"}  # fmt: skip
    argv = [str(trec_eval_10), "-q", *options]
    for name in ("map", "P.5", "recip_rank", "bpref", "ndcg_cut.10", "num_ret", "infAP"):
        argv += ["-m", name]
    done = subprocess.run(
        [*argv, str(qrels_path), str(run_path)], capture_output=True, text=True, check=True
    )
    level = int(options[options.index("-l") + 1]) if "-l" in options else 1
    res = rankset.evaluate(
        run_path,
        qrels_path,
        list(measures.values()),
        max_depth=int(options[1]) if options[0] == "-M" else None,
        judged_only="-J" in options,
        relevance_level=level,
        confidence=None,
    )
    ours = {(q, m): v for q, m, v in res.per_query.select("query_id", "metric", "value").rows()}
    lines = [line.split() for line in done.stdout.splitlines()]
    per_query = [(name, query, value) for name, query, value in lines if query != "all"]
    assert len(per_query) == 15 * len(measures)
    for name, query, value in per_query:
        got = ours[(query, measures[name])]
        assert (str(int(got)) if name == "num_ret" else f"{got:.4f}") == value, (query, name)


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_a_system_judged_only_empties_is_scored_as_empty(missing: Any) -> None:
    labels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    runs = {
        "good": {"q1": {"d1": 1.0}, "q2": {"d3": 1.0}},
        "bad": {"q1": {"x": 1.0}, "q2": {"z": 1.0}},  # unlabelled only: -J empties both
    }
    res = rankset.evaluate(
        runs, labels, ["rr", "num_ret"], judged_only=True, missing=missing, confidence=None
    )
    rows = res.per_query.select("system", "query_id", "metric", "value").rows()
    got = {(s, q, m): v for s, q, m, v in rows}
    assert got[("good", "q1", "rr")] == 1.0
    assert got[("bad", "q1", "rr")] == got[("bad", "q2", "num_ret")] == 0.0
    assert res.query_counts["n_scored"].to_list() == [2, 2]


@pytest.mark.parametrize("buckets", [None, 2])
def test_every_ranking_emptied(buckets: int | None) -> None:
    # -M 1 keeps x and z, unlabelled; -J then removes them: two empty rankings
    run = {"q1": {"x": 1.0, "d1": 0.5}, "q2": {"z": 2.0, "d3": 1.0}}
    labels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    res = rankset.evaluate(
        run, labels, ["rr", "num_ret", "num_rel"], max_depth=1, judged_only=True,
        buckets=buckets, confidence=None,
    )  # fmt: skip
    values = dict(
        res.per_query.group_by("metric").agg(rankset_sum=pl.col("value").sum()).iter_rows()
    )
    assert values == {"rr": 0.0, "num_ret": 0.0, "num_rel": 2.0}


def test_max_depth_cuts_the_ranking_keep_best_makes() -> None:
    # a twice: keep_best keeps its first copy, so the top 2 are a and b
    run = pl.DataFrame({"query_id": "q", "doc_id": ["a", "a", "b", "c"], "score": [4.0, 3, 2, 1]})
    labels = {"q": {"a": 1, "b": 1, "c": 1}}
    res = rankset.evaluate(
        run, labels, ["num_ret", "precision@2"], duplicates="keep_best", max_depth=2,
        confidence=None,
    )  # fmt: skip
    assert res.per_query["value"].to_list() == [2.0, 1.0]


def test_run_only_queries_are_still_counted_under_judged_only() -> None:
    run = {"q1": {"d1": 1.0}, "q2": {"y": 1.0}, "q3": {"z": 1.0}}
    labels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    res = rankset.evaluate(run, labels, ["rr"], judged_only=True, confidence=None)
    counts = res.query_counts.row(0, named=True)
    assert (counts["n_scored"], counts["n_run_queries_without_labels"]) == (2, 1)
