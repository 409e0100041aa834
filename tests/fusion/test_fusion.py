"""Fusion: hand-computed cases, parameter errors, ranx parity on DL19, optimize_fusion."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset
from rankset.fusion import METHODS

BM25 = {"q1": {"a": 12.0, "b": 9.5, "c": 3.1}, "q2": {"x": 2.0, "y": 1.0}}
DENSE = {"q1": {"c": 0.91, "a": 0.88, "d": 0.20}, "q2": {"y": 0.5, "x": 0.5}}


def _scores(frame: pl.LazyFrame) -> dict[tuple[str, str], float]:
    return {(q, d): s for q, d, s in frame.collect().select("query_id", "doc_id", "score").rows()}


def test_rrf_by_hand() -> None:
    fused = _scores(rankset.fuse([BM25, DENSE], "rrf", k=60))
    # q1: a is 1st and 2nd, c 3rd and 1st, b 2nd only, d 3rd only
    assert fused["q1", "a"] == 1 / 61 + 1 / 62
    assert fused["q1", "c"] == 1 / 63 + 1 / 61
    assert fused["q1", "b"] == 1 / 62
    assert fused["q1", "d"] == 1 / 63
    # q2: dense ties x and y at 0.5; the tie goes to the larger doc id, y
    assert fused["q2", "y"] == 1 / 62 + 1 / 61
    assert fused["q2", "x"] == 1 / 61 + 1 / 62


def test_the_fused_run_ranks_by_score_then_doc_id_descending() -> None:
    fused = rankset.fuse([BM25, DENSE], "rrf").collect()
    q2 = fused.filter(pl.col("query_id") == "q2")
    assert q2["doc_id"].to_list() == ["y", "x"]  # equal fused scores: larger id first
    assert q2["rank"].to_list() == [1, 2]
    assert set(fused["system"]) == {"fused"}


def test_combsum_combmnz_and_weights_by_hand() -> None:
    bm25 = {"q": {"a": 3.0, "b": 1.0}}
    dense = {"q": {"a": 1.0, "c": 0.0}}
    # min-max: bm25 a=1, b=0; dense a=1, c=0
    assert _scores(rankset.fuse([bm25, dense], "combsum")) == {
        ("q", "a"): 2.0,
        ("q", "b"): 0.0,
        ("q", "c"): 0.0,
    }
    assert _scores(rankset.fuse([bm25, dense], "combmnz"))["q", "a"] == 4.0
    weighted = _scores(rankset.fuse([bm25, dense], "wsum", weights=[0.25, 0.75]))
    assert weighted["q", "a"] == 1.0
    maxed = _scores(rankset.fuse([bm25, dense], "combmax", norm="none"))
    assert maxed == {("q", "a"): 3.0, ("q", "b"): 1.0, ("q", "c"): 0.0}


def test_borda_by_hand() -> None:
    # N = 3 candidates; run 1 lists a, b (n=2), run 2 lists c, a (n=2)
    run1 = {"q": {"a": 2.0, "b": 1.0}}
    run2 = {"q": {"c": 2.0, "a": 1.0}}
    fused = _scores(rankset.fuse([run1, run2], "borda"))
    missing = (3 - 2 + 1) / 2  # points of a document missing from a run of 2
    assert fused["q", "a"] == 3 + 2
    assert fused["q", "b"] == 2 + missing
    assert fused["q", "c"] == missing + 3


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rankset.fuse([BM25], "rrf"), "two runs or more"),
        (lambda: rankset.fuse([BM25, DENSE], "rfr"), "Did you mean 'rrf'"),
        (lambda: rankset.fuse([BM25, DENSE], "wsum"), "needs weights"),
        (lambda: rankset.fuse([BM25, DENSE], "rrf", weights=[1.0]), "one weight per run"),
        (lambda: rankset.fuse([BM25, DENSE], "rbc"), "needs the parameter 'phi'"),
        (lambda: rankset.fuse([BM25, DENSE], "rrf", kk=3), "takes no parameter 'kk'"),
        (lambda: rankset.fuse([BM25, DENSE], "rrf", norm="min-max"), "leave norm out"),
        (lambda: rankset.fuse([BM25, DENSE], "combsum", norm="l2"), "'norm' parameter"),
        (lambda: rankset.fuse([BM25, DENSE], "rbc", phi=1.5), "'phi' parameter"),
    ],
)
def test_bad_calls_are_named(call: Any, message: str) -> None:
    with pytest.raises(rankset.ParameterError, match=message):
        call()


def test_a_fused_run_evaluates_like_any_run() -> None:
    labels = {"q1": {"c": 2, "d": 1}, "q2": {"y": 1}}
    fused = rankset.fuse([BM25, DENSE], "rrf")
    result = rankset.evaluate({"bm25": BM25, "fused": fused}, labels, ["rr"], confidence=None)
    rr = dict(
        ((s, q), v) for s, q, v in result.per_query.select("system", "query_id", "value").rows()
    )
    assert rr["fused", "q1"] == 1 / 2  # a, then c
    assert rr["bm25", "q1"] == 1 / 3


# --- parity with ranx on TREC DL 2019 -------------------------------------------------------

DL19 = ("bm25", "splade-pp-ed", "tasb")
# Every method against ranx on three full DL19 runs: about five minutes on two cores, so
# the fast lane (-m "not slow") leaves it to CI; the hand-computed cases above stay in it.
SLOW_ON_DL19 = pytest.mark.slow
WEIGHTS = [0.5, 0.3, 0.2]
SCORE_METHODS = {
    "combsum": ("sum", {}),
    "combmnz": ("mnz", {}),
    "combanz": ("anz", {}),
    "combmax": ("max", {}),
    "combmin": ("min", {}),
    "combmed": ("med", {}),
    "combgmnz": ("gmnz", {"gamma": 0.5}),
    "wsum": ("wsum", {"weights": WEIGHTS}),
    "wmnz": ("wmnz", {"weights": WEIGHTS}),
    "mixed": ("mixed", {"weights": WEIGHTS}),
}
POSITION_METHODS = {
    "rrf": ("rrf", {"k": 60}),
    "isr": ("isr", {}),
    "log_isr": ("log_isr", {}),
    "logn_isr": ("logn_isr", {"sigma": 0.01}),
    "rbc": ("rbc", {"phi": 0.8}),
    "borda": ("bordafuse", {}),
}
SCORE_NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv")
POSITION_NORMS = ("rank", "borda")


@pytest.fixture(scope="module")
def dl19_runs(shared_data: Path) -> list[pl.DataFrame]:
    runs = []
    for name in DL19:
        path = shared_data / "rank_llm_dl_runs" / "first_stage" / f"{name}.dl19.trec.gz"
        frame = rankset.scan_run(path).collect()
        # 100 deep keeps ranx's numba code quick; every query of every run is kept
        runs.append(frame.sort("query_id", "score", "doc_id", descending=[False, True, True]))
    queries = set.intersection(*(set(run["query_id"]) for run in runs))
    return [
        run.filter(pl.col("query_id").is_in(sorted(queries)))
        .with_columns(pos=pl.int_range(1, pl.len() + 1).over("query_id"))
        .filter(pl.col("pos") <= 100)
        for run in runs
    ]


def _ranx_run(frame: pl.DataFrame, by_position: bool) -> Any:
    ranx = pytest.importorskip("ranx")
    scores = (-pl.col("pos").cast(pl.Float64)) if by_position else pl.col("score")
    table: dict[str, dict[str, float]] = {}
    for query, doc, score in frame.select("query_id", "doc_id", scores.alias("s")).rows():
        table.setdefault(query, {})[doc] = score
    return ranx.Run(table)


def _ranx_fused(
    runs: list[pl.DataFrame],
    method: str,
    norm: str | None,
    params: dict[str, Any],
    by_position: bool,
) -> dict[tuple[str, str], float]:
    ranx = pytest.importorskip("ranx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's unsafe-cast notices
        fused = ranx.fuse(
            [_ranx_run(r, by_position) for r in runs], norm=norm, method=method, params=params
        )
    return {(q, d): s for q, docs in fused.to_dict().items() for d, s in docs.items()}


def _close(got: dict[tuple[str, str], float], want: dict[tuple[str, str], float]) -> list[str]:
    assert set(got) == set(want)
    return [
        f"{key}: rankset {got[key]!r}, ranx {want[key]!r}"
        for key in sorted(want)
        if not math.isclose(got[key], want[key], rel_tol=1e-9, abs_tol=1e-9)
    ]


def _score_method_mismatches(
    runs: list[pl.DataFrame], method: str, norm: str, *, by_position: bool
) -> list[str]:
    ranx_method, params = SCORE_METHODS[method]
    want = _ranx_fused(runs, ranx_method, norm, params, by_position=by_position)
    ours = dict(params)
    weights = ours.pop("weights", None)
    got = _scores(rankset.fuse(runs, method, norm=norm, weights=weights, **ours))  # type: ignore[arg-type]
    return _close(got, want)


@SLOW_ON_DL19
@pytest.mark.parametrize("norm", SCORE_NORMS)
@pytest.mark.parametrize("method", sorted(SCORE_METHODS))
def test_score_methods_equal_ranx_on_dl19(
    dl19_runs: list[pl.DataFrame], method: str, norm: str
) -> None:
    assert _score_method_mismatches(dl19_runs, method, norm, by_position=False) == []


@SLOW_ON_DL19
@pytest.mark.parametrize("norm", POSITION_NORMS)
@pytest.mark.parametrize("method", ["combsum", "combmnz", "wsum"])
def test_position_norms_equal_ranx_on_dl19(
    dl19_runs: list[pl.DataFrame], method: str, norm: str
) -> None:
    # ranx's rank and Borda normalisations read its stored order, which for tied scores is
    # its unstable sort's; it is given distinct scores in rankset's order here.
    assert _score_method_mismatches(dl19_runs, method, norm, by_position=True) == []


@SLOW_ON_DL19
@pytest.mark.parametrize("method", sorted(POSITION_METHODS))
def test_position_methods_equal_ranx_on_dl19(dl19_runs: list[pl.DataFrame], method: str) -> None:
    ranx_method, params = POSITION_METHODS[method]
    want = _ranx_fused(dl19_runs, ranx_method, None, params, by_position=True)
    got = _scores(rankset.fuse(dl19_runs, method, **params))
    assert _close(got, want) == []


def test_weighted_borda_equals_ranx(dl19_runs: list[pl.DataFrame]) -> None:
    want = _ranx_fused(dl19_runs, "w_bordafuse", None, {"weights": WEIGHTS}, by_position=True)
    got = _scores(rankset.fuse(dl19_runs, "borda", weights=WEIGHTS))
    assert _close(got, want) == []


TRAINED_METHODS = {
    "posfuse": ("posfuse_train", {}, {}),
    "probfuse": ("probfuse_train", {"n_segments": 7}, {"segments": 7}),
    "segfuse": ("segfuse_train", {}, {}),
    "slidefuse": ("slidefuse_train", {}, {"w": 3}),
    "mapfuse": ("mapfuse_train", {}, {}),
    "bayesfuse": ("bayesfuse_train", {}, {}),
}
RANX_PARAMS = {
    "posfuse": lambda trained, ours: {"probs": trained},
    "probfuse": lambda trained, ours: {"probs": trained},
    "segfuse": lambda trained, ours: {"probs": trained},
    "slidefuse": lambda trained, ours: {"probs": trained, "w": ours["w"]},
    "mapfuse": lambda trained, ours: {"map_scores": trained},
    "bayesfuse": lambda trained, ours: {"log_odds": trained},
}


@SLOW_ON_DL19
@pytest.mark.parametrize("method", sorted(TRAINED_METHODS))
def test_trained_methods_equal_ranx_on_dl19(
    dl19_runs: list[pl.DataFrame], shared_data: Path, method: str
) -> None:
    ranx = pytest.importorskip("ranx")
    qrels_path = shared_data / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    # Distinct scores in rankset's order: ranx's sort leaves ties in arbitrary order, and
    # SegFuse reads the normalised scores.
    runs = [run.with_columns(score=1000.0 - pl.col("pos").cast(pl.Float64)) for run in dl19_runs]
    queries = sorted(set(runs[0]["query_id"]))
    labels = rankset.scan_labels(qrels_path).collect().filter(pl.col("query_id").is_in(queries))
    qrels = ranx.Qrels(
        {
            q: {d: int(g) for _, d, g in rows.iter_rows()}
            for (q,), rows in labels.group_by("query_id")
        }
    )
    train_name, train_args, ours = TRAINED_METHODS[method]
    ranx_runs = [_ranx_run(run, by_position=False) for run in runs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trained = getattr(ranx.fusion, train_name)(qrels, ranx_runs, **train_args)
        fused = ranx.fuse(
            ranx_runs, norm="min-max", method=method, params=RANX_PARAMS[method](trained, ours)
        )
    want = {(q, d): s for q, docs in fused.to_dict().items() for d, s in docs.items()}
    got = _scores(rankset.fuse(runs, method, labels=labels, **ours))
    assert _close(got, want) == []


def test_a_trained_method_needs_labels_and_an_untrained_one_refuses_them() -> None:
    with pytest.raises(rankset.ParameterError, match="pass labels="):
        rankset.fuse([BM25, DENSE], "posfuse")
    with pytest.raises(rankset.ParameterError, match="not trained"):
        rankset.fuse([BM25, DENSE], "rrf", labels={"q1": {"a": 1}})


def test_every_method_is_covered_by_a_parity_or_hand_test() -> None:
    assert set(METHODS) == set(SCORE_METHODS) | set(POSITION_METHODS) | set(TRAINED_METHODS)


# --- optimize_fusion ------------------------------------------------------------------------


def test_optimize_fusion_finds_what_a_loop_of_evaluations_finds(
    dl19_runs: list[pl.DataFrame], shared_data: Path
) -> None:
    qrels = shared_data / "anserini_qrels_topics" / "qrels" / "qrels.dl19-passage.txt.gz"
    queries = sorted(set(dl19_runs[0]["query_id"]))
    train = queries[::2]
    grid = {"k": [1.0, 10.0, 30.0, 60.0, 100.0]}
    search = rankset.optimize_fusion(
        dl19_runs, qrels, "rrf", "ndcg@10", grid=grid, train_queries=train
    )
    loop = {}
    for k in grid["k"]:
        fused = rankset.fuse(dl19_runs, "rrf", k=k)
        result = rankset.evaluate(fused, qrels, ["ndcg@10"], confidence=None)
        values = result.per_query.filter(pl.col("query_id").is_in(train))["value"]
        loop[k] = values.mean()
    best_k = max(grid["k"], key=lambda k: (loop[k], -grid["k"].index(k)))
    assert search.best == {"method": "rrf", "k": best_k}
    table = {row["settings"]: row for row in search.table.iter_rows(named=True)}
    for k, mean in loop.items():
        assert table[f'{{"k": {k}}}']["train"] == pytest.approx(mean, rel=1e-12)
    assert search.table["n_test"].min() > 0
    assert search.metric == "ndcg@10"


# --- writing large fusions, and what fusion changed ------------------------------------------

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


@pytest.mark.parametrize("buckets", [1, 3, 7])
def test_write_fused_by_bucket_writes_the_same_run(tmp_path: Path, buckets: int) -> None:
    runs = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]
    out = rankset.fusion.write_fused(runs, tmp_path / "f.trec", "combmnz", buckets=buckets)
    written = rankset.scan_run(out).collect().sort("query_id", "rank")
    expected = rankset.fuse(runs, "combmnz").collect().sort("query_id", "rank")
    assert written.select("query_id", "doc_id", "rank").equals(
        expected.select("query_id", "doc_id", "rank")
    )
    assert written["score"].to_list() == pytest.approx(expected["score"].to_list(), rel=1e-15)
    assert list(tmp_path.iterdir()) == [out]  # no part files left behind


def test_fusion_changes_counts_every_query_of_every_input_once() -> None:
    runs = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
    fused = rankset.fuse(list(runs.values()), "rrf").collect()
    diagnosis = rankset.diagnose(
        {**runs, "fused": fused}, SAMPLE / "qrels.txt", k=10, scale="trec_dl"
    )
    changes = rankset.fusion.fusion_changes(diagnosis, "fused")
    per_system = dict(changes.group_by("system").agg(pl.col("n_queries").sum()).iter_rows())
    assert per_system == {"bm25": 40, "rerank": 40}
    quadrants = diagnosis.per_query.select("system", "query_id", "quadrant")
    for system, before, after, n, ids in changes.iter_rows():
        assert len(ids) == n
        for query in ids:
            got_before = quadrants.filter(
                (pl.col("system") == system) & (pl.col("query_id") == query)
            )["quadrant"].item()
            got_after = quadrants.filter(
                (pl.col("system") == "fused") & (pl.col("query_id") == query)
            )["quadrant"].item()
            assert (got_before, got_after) == (before, after)
    with pytest.raises(rankset.ParameterError, match="Did you mean 'fused'"):
        rankset.fusion.fusion_changes(diagnosis, "fuzed")


def test_the_report_shows_what_fusion_changed(tmp_path: Path) -> None:
    runs = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
    fused = rankset.fuse(list(runs.values()), "rrf").collect()
    page = rankset.report(
        {**runs, "fused": fused},
        SAMPLE / "qrels.txt",
        out=tmp_path / "r.html",
        scale="trec_dl",
        fused="fused",
        n_resamples=100,
    ).path.read_text(encoding="utf-8")
    assert "What fusion changed" in page
    assert "quadrant in fused" in page


def test_optimize_fusion_trains_on_the_training_queries_only() -> None:
    runs = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]
    qrels = SAMPLE / "qrels.txt"
    train = [f"q{i:03d}" for i in range(1, 21)]
    search = rankset.optimize_fusion(
        runs, qrels, "probfuse", "ndcg@10", grid={"segments": [2.0, 5.0]}, train_queries=train
    )
    for row in search.table.iter_rows(named=True):
        segments = json.loads(row["settings"])["segments"]
        fused = rankset.fuse(runs, "probfuse", labels=qrels, train_queries=train, segments=segments)
        result = rankset.evaluate(fused, qrels, ["ndcg@10"], confidence=None)
        values = result.per_query.filter(pl.col("query_id").is_in(train))["value"]
        assert row["train"] == pytest.approx(values.mean(), rel=1e-12)
        assert row["n_train"] == 20
    assert search.best["method"] == "probfuse"
