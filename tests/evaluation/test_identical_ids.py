"""``ignore_identical_ids``: a retrieved document whose id is its query's id is dropped.

BEIR and MTEB drop such rows before scoring (ArguAna and Quora, whose queries are
documents of the corpus). The expected values here are rankset's own on the run with
those rows removed by hand: the option must equal that, per query and bit for bit, with
the rows dropped counted in ``query_counts``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset
from rankset.cli import main
from rankset.evaluation import Evaluator

METRICS = ["rr", "ndcg@10", "ap", "precision@5", "recall@10", "num_ret"]
EXISTING = [
    "system",
    "n_scored",
    "n_run_queries_without_labels",
    "n_label_queries_without_run",
    "missing_policy",
]
ADDED = ["n_identical_dropped", "n_queries_with_identical"]

Run = dict[str, dict[str, float]]


def _run(seed: int, *, every: int) -> Run:
    """A run of 12 queries; every ``every``-th query retrieves itself, at varying ranks.

    Scores tie in places (ties go to the larger doc id), so dropping a row moves the
    documents after it up by a rank whatever way they were ordered.
    """
    rng = random.Random(seed)
    run: Run = {}
    for q in range(12):
        query = f"q{q}"
        docs = {f"d{rng.randrange(40)}": float(rng.randrange(8)) for _ in range(15)}
        if q % every == 0:
            docs[query] = float(rng.randrange(9))  # at the top, in a tie, or low
        run[query] = docs
    run["q11"] = {"q11": 1.0}  # only itself: the query leaves the run
    run["q12"] = {"q12": 5.0, "d1": 1.0}  # unlabelled query, itself dropped
    return run


def _labels(seed: int) -> dict[str, dict[str, int]]:
    rng = random.Random(seed + 1)
    labels = {
        f"q{q}": {f"d{rng.randrange(40)}": rng.randrange(3) for _ in range(8)} for q in range(12)
    }
    labels["q0"]["q0"] = 2  # a labelled self-match: dropped from the run all the same
    labels["q0"]["d99"] = 1  # never retrieved
    return labels


RUNS = {"bm25": _run(1, every=2), "dense": _run(2, every=3)}
LABELS = _labels(7)


def _without_identical(run: Run) -> Run:
    kept = {
        query: {doc: s for doc, s in docs.items() if doc != query} for query, docs in run.items()
    }
    return {query: docs for query, docs in kept.items() if docs}


def _dropped(run: Run) -> tuple[int, int]:
    hits = [query for query, docs in run.items() for doc in docs if doc == query]
    return len(hits), len(set(hits))


def _sorted(result: rankset.EvaluationResult) -> pl.DataFrame:
    return result.per_query.sort("system", "query_id", "metric")


def _expected(missing: str = "skip", **options: Any) -> rankset.EvaluationResult:
    removed = {name: _without_identical(run) for name, run in RUNS.items()}
    return rankset.evaluate(removed, LABELS, METRICS, missing=missing, confidence=None, **options)


@pytest.mark.parametrize("missing", ["skip", "zero"])
@pytest.mark.parametrize("options", [{}, {"buckets": 3}, {"engine": "streaming"}])
def test_equals_scoring_the_run_with_those_rows_removed(
    missing: str, options: dict[str, Any]
) -> None:
    got = rankset.evaluate(
        RUNS,
        LABELS,
        METRICS,
        missing=missing,
        ignore_identical_ids=True,
        confidence=None,
        **options,
    )
    expected = _expected(missing, **options)
    assert _sorted(got).equals(_sorted(expected))  # every value, bit for bit
    assert got.summary.equals(expected.summary)
    assert got.query_counts.select(EXISTING).equals(expected.query_counts)


def test_the_rows_drop_before_max_depth_and_judged_only() -> None:
    cut = {"max_depth": 5, "judged_only": True}
    got = rankset.evaluate(RUNS, LABELS, METRICS, ignore_identical_ids=True, confidence=None, **cut)
    assert _sorted(got).equals(_sorted(_expected(**cut)))


def test_the_dropped_rows_are_counted_per_system() -> None:
    got = rankset.evaluate(RUNS, LABELS, ["rr"], ignore_identical_ids=True, confidence=None)
    counts = got.query_counts
    assert counts.columns == EXISTING + ADDED
    assert counts.schema["n_identical_dropped"] == pl.Int64
    for name, run in RUNS.items():
        row = counts.filter(pl.col("system") == name).row(0, named=True)
        assert (row["n_identical_dropped"], row["n_queries_with_identical"]) == _dropped(run)
    bm25 = counts.filter(pl.col("system") == "bm25").row(0, named=True)
    assert bm25["n_identical_dropped"] == 8  # q0, q2 ... q10, q11, q12
    assert bm25["n_run_queries_without_labels"] == 1  # q12 keeps d1; it has no labels
    assert bm25["n_label_queries_without_run"] == 1  # q11 retrieved only itself
    assert got.config["ignore_identical_ids"] is True


def test_a_run_without_identical_ids_counts_zero() -> None:
    run = _without_identical(RUNS["bm25"])
    got = rankset.evaluate(run, LABELS, METRICS, ignore_identical_ids=True, confidence=None)
    plain = rankset.evaluate(run, LABELS, METRICS, confidence=None)
    assert _sorted(got).equals(_sorted(plain))
    assert got.query_counts.select(ADDED).rows() == [(0, 0)]


def test_off_by_default_changes_nothing() -> None:
    default = rankset.evaluate(RUNS, LABELS, METRICS, confidence=None)
    off = rankset.evaluate(RUNS, LABELS, METRICS, ignore_identical_ids=False, confidence=None)
    assert _sorted(default).equals(_sorted(off))
    assert default.query_counts.columns == EXISTING  # no new columns unless asked
    assert default.config["ignore_identical_ids"] is False
    # the self-matches are scored as retrieved documents: q0's labelled one counts
    removed = _expected()
    assert not _sorted(default).equals(_sorted(removed))


def test_ids_compare_as_text_whatever_their_dtype() -> None:
    run = pl.DataFrame(
        {
            "query_id": [1, 1, 1, 2, 2],
            "doc_id": ["1", "7", "8", "9", "2"],
            "score": [3.0, 2, 1, 2, 1],
        }
    )
    labels = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["8", "9"], "grade": [1, 1]})
    got = rankset.evaluate(run, labels, ["rr"], ignore_identical_ids=True, confidence=None)
    assert got.per_query.sort("query_id")["value"].to_list() == [0.5, 1.0]
    assert got.query_counts.select(ADDED).rows() == [(2, 2)]


def test_the_option_is_checked() -> None:
    with pytest.raises(rankset.ParameterError, match="'ignore_identical_ids' parameter"):
        rankset.evaluate(RUNS, LABELS, ["rr"], ignore_identical_ids="yes")  # type: ignore[arg-type]


def test_the_evaluator_gives_what_evaluate_gives() -> None:
    expected = rankset.evaluate(RUNS, LABELS, METRICS, ignore_identical_ids=True, confidence=None)
    evaluator = Evaluator(LABELS, METRICS, ignore_identical_ids=True)
    got = evaluator.evaluate(RUNS, confidence=None)
    assert _sorted(got).equals(_sorted(expected))
    assert got.query_counts.equals(expected.query_counts)
    values = evaluator.values(RUNS["bm25"])
    plain = Evaluator(LABELS, METRICS).values(_without_identical(RUNS["bm25"]))
    assert values == plain
    # planned whole (judged_only reads the runs to plan): the same again
    whole = Evaluator(LABELS, METRICS, ignore_identical_ids=True, judged_only=True)
    assert _sorted(whole.evaluate(RUNS, confidence=None)).equals(
        _sorted(_expected(judged_only=True))
    )


def _write_trec(path: Path, run: Run) -> str:
    lines = []
    for query, docs in run.items():
        ranked = sorted(docs.items(), key=lambda item: (-item[1], [-ord(c) for c in item[0]]))
        lines += [f"{query} Q0 {doc} {i} {s} sys" for i, (doc, s) in enumerate(ranked, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_the_cli_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in LABELS.items() for d, g in docs.items()),
        encoding="utf-8",
    )
    full = _write_trec(tmp_path / "full.trec", RUNS["bm25"])
    removed = _write_trec(tmp_path / "removed.trec", _without_identical(RUNS["bm25"]))
    metrics = [arg for name in METRICS for arg in ("-m", name)]
    printed, tables = [], []
    for run, flag in ((full, ["--ignore-identical-ids"]), (removed, [])):
        out = tmp_path / f"{Path(run).stem}.parquet"
        argv = ["evaluate", run, "--qrels", str(qrels), *metrics, "--json", "--per-query", str(out)]
        assert main([*argv, "--name", "sys", *flag]) == 0
        printed.append(json.loads(capsys.readouterr().out))
        tables.append(pl.read_parquet(out).sort("query_id", "metric"))
    assert printed[0] == printed[1]
    assert tables[0].equals(tables[1])
    # the scanned file is the Python run's: the same values as the library's
    library = rankset.evaluate(
        RUNS["bm25"], LABELS, METRICS, ignore_identical_ids=True, names=["sys"], confidence=None
    )
    assert (
        tables[0]
        .select("query_id", "metric", "value")
        .equals(library.per_query.sort("query_id", "metric").select("query_id", "metric", "value"))
    )


def test_the_cluster_api_drops_and_counts_alike() -> None:
    from rankset.evaluation.cluster import finish, measure_bucket, plan_evaluation

    plan = plan_evaluation(RUNS, LABELS, METRICS, ignore_identical_ids=True, buckets=4)
    got = finish(plan, [measure_bucket(plan, bucket) for bucket in range(4)], confidence=None)
    expected = rankset.evaluate(RUNS, LABELS, METRICS, ignore_identical_ids=True, confidence=None)
    assert _sorted(got).equals(_sorted(expected))
    assert got.query_counts.equals(expected.query_counts)
