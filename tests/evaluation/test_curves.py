"""curves() must equal evaluate() at every cutoff, for every k-measure, classic and RAG."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankset
from rankset.errors import ParameterError

DATA = Path(__file__).resolve().parents[2] / "data" / "sample"
MEASURES = [
    "ndcg", "ndcg_exp", "dcg", "precision", "recall", "f1", "fbeta(beta=0.5)", "recall_all",
    "ap", "rr", "hit", "judged", "P(rel=2)", "ra_nwg", "proc", "pct_proc", "n_recall_4plus",
    "n_recall_5", "precision_4plus", "harm", "harm(unjudged=1)",
]  # fmt: skip


def _assert_curves_match_evaluate(
    runs: object, labels: object, ks: list[int], **options: object
) -> None:
    curves = rankset.curves(runs, labels, MEASURES, ks=max(ks), n_resamples=50, **options)
    names = {}
    for measure in MEASURES:
        base = rankset.parse_metric(measure)
        for k in ks:
            metric = rankset.Metric(base.measure, k, base.params)
            names[metric.name] = (rankset.Metric(base.measure, None, base.params).name, k)
    expected = rankset.evaluate(runs, labels, list(names), **options).per_query
    expected = expected.with_columns(
        curve=pl.col("metric").replace_strict({n: c for n, (c, _) in names.items()}),
    ).select("system", "query_id", pl.col("curve").alias("metric"), "k", "value")
    got = curves.per_query.filter(pl.col("k").is_in(ks)).select(
        "system", "query_id", "metric", "k", "value"
    )
    joined = expected.join(got, on=["system", "query_id", "metric", "k"], how="full")
    assert joined.height == expected.height == got.height
    both_na = joined["value"].is_null() & joined["value_right"].is_null()
    close = (joined["value"] - joined["value_right"]).abs() <= 1e-12
    mismatched = joined.filter(~(both_na | close.fill_null(False)))
    assert mismatched.height == 0, mismatched.head(10)


def test_curves_equal_evaluate_on_bundled_sample() -> None:
    runs = [DATA / "bm25.trec", DATA / "rerank.trec"]
    # k beyond the 100 retrieved documents checks the "shorter ranking" rule.
    _assert_curves_match_evaluate(
        runs, DATA / "qrels.txt", [1, 2, 3, 5, 10, 20, 100, 120], scale="trec_dl"
    )


def test_curves_in_batches_of_cutoffs_equal_evaluate(monkeypatch: pytest.MonkeyPatch) -> None:
    # 40 queries a system, 45 rows a batch: one cutoff a batch, so every k is built,
    # summarised and dropped on its own and the pieces are put back in order.
    monkeypatch.setattr("rankset.evaluation.cutoff_curves._BATCH_ROWS", 45)
    runs = [DATA / "bm25.trec", DATA / "rerank.trec"]
    _assert_curves_match_evaluate(runs, DATA / "qrels.txt", [1, 2, 3, 10, 120], scale="trec_dl")


def test_batches_keep_the_order_and_the_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = {"bm25": DATA / "bm25.trec", "rerank": DATA / "rerank.trec"}
    whole = rankset.curves(runs, DATA / "qrels.txt", ["ndcg", "recall"], ks=12, n_resamples=100)
    monkeypatch.setattr("rankset.evaluation.cutoff_curves._BATCH_ROWS", 200)  # 5 cutoffs
    batched = rankset.curves(runs, DATA / "qrels.txt", ["ndcg", "recall"], ks=12, n_resamples=100)
    # Order: a block per system (as given), per metric (as asked), k ascending.
    blocks = batched.summary.select("system", "metric").unique(maintain_order=True).rows()
    assert blocks == [(s, m) for s in ("bm25", "rerank") for m in ("ndcg", "recall")]
    for _, block in batched.summary.group_by("system", "metric", maintain_order=True):
        assert block["k"].to_list() == list(range(1, 13))
    # The bootstrap draws depend on the seed and the query count only: the same intervals,
    # up to the rounding of a matrix product with fewer columns.
    assert batched.per_query.equals(whole.per_query)
    exact = ["system", "metric", "measure", "k", "mean", "n_queries", "n_na"]
    assert batched.summary.select(exact).equals(whole.summary.select(exact))
    for bound in ("ci_low", "ci_high"):
        assert (batched.summary[bound] - whole.summary[bound]).abs().max() <= 1e-15


def test_curves_equal_evaluate_with_missing_zero_and_a_pool() -> None:
    runs = {"a": {"q1": {"d1": 3.0, "d2": 2.0}}, "b": {"q1": {"d2": 1.0}, "q2": {"d3": 1.0}}}
    labels = {"q1": {"d1": 3, "d2": 1, "d9": 2}, "q2": {"d3": 2}, "q3": {"d4": 3}}
    pool = {"q1": {"d1": 1.0, "d9": 1.0}, "q3": {"d4": 1.0}}
    _assert_curves_match_evaluate(
        runs, labels, [1, 2, 3, 4], scale="trec_dl", missing="zero", pool=pool
    )


def test_curves_equal_evaluate_on_dl19(shared_data: Path) -> None:
    runs = {
        "bm25": shared_data / "rank_llm_dl_runs/first_stage/bm25.dl19.trec.gz",
        "rankvicuna": shared_data
        / "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-bm25.dl19.trec.gz",
    }
    qrels = shared_data / "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz"
    _assert_curves_match_evaluate(runs, qrels, [1, 2, 5, 10, 20, 50, 100], scale="trec_dl")


def test_summary_means_and_intervals() -> None:
    curves = rankset.curves(
        [DATA / "bm25.trec"], DATA / "qrels.txt", ["ndcg"], ks=[5, 10], n_resamples=200
    )
    per_query_means = (
        curves.per_query.group_by("k").agg(pl.col("value").mean()).sort("k")["value"].to_list()
    )
    assert curves.summary.sort("k")["mean"].to_list() == pytest.approx(per_query_means)
    for row in curves.summary.iter_rows(named=True):
        assert row["ci_low"] <= row["mean"] <= row["ci_high"]
        assert row["n_queries"] == 40
    again = rankset.curves(
        [DATA / "bm25.trec"], DATA / "qrels.txt", ["ndcg"], ks=[5, 10], n_resamples=200
    )
    assert again.summary.equals(curves.summary)


def test_bad_arguments() -> None:
    run = {"q": {"a": 1.0}}
    with pytest.raises(ParameterError, match="bpref has no cutoff"):
        rankset.curves(run, run, ["bpref"])
    with pytest.raises(ParameterError, match="The 'ks' parameter must be an int >= 1"):
        rankset.curves(run, run, ["ndcg"], ks=0)
    with pytest.raises(ParameterError, match="'cutoffs' and 'k' do not apply"):
        rankset.curves(run, run, ["ndcg"], k=3)


def test_curves_without_per_query_values_keep_the_same_summary() -> None:
    # What the report asks for at scale: one system's values in memory at a time.
    runs = [DATA / "bm25.trec", DATA / "rerank.trec"]
    options = {"ks": 12, "n_resamples": 200, "scale": "trec_dl"}
    kept = rankset.curves(runs, DATA / "qrels.txt", ["ndcg", "recall", "ra_nwg"], **options)
    summary_only = rankset.curves(
        runs, DATA / "qrels.txt", ["ndcg", "recall", "ra_nwg"], keep_per_query=False, **options
    )
    assert summary_only.per_query.height == 0
    assert summary_only.per_query.schema == kept.per_query.schema
    assert summary_only.summary.equals(kept.summary)
    expected = rankset.evaluate(
        runs, DATA / "qrels.txt", ["ndcg@10", "recall@10"], scale="trec_dl", confidence=None
    ).summary
    at_10 = summary_only.summary.filter(pl.col("k") == 10, pl.col("metric") != "ra_nwg")
    assert at_10.select("system", "mean").rows() == expected.select("system", "mean").rows()


def _five_systems() -> dict[str, dict[str, dict[str, float]]]:
    """Five runs of the bundled sample: bm25, rerank and three seeded reshuffles of bm25."""
    rng = np.random.default_rng(7)
    systems: dict[str, dict[str, dict[str, float]]] = {}
    for name in ("bm25", "rerank", "noisy0", "noisy1", "noisy2"):
        path = DATA / ("rerank.trec" if name == "rerank" else "bm25.trec")
        rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
        noise = rng.normal(0.0, 2.0, len(rows)) if name.startswith("noisy") else [0.0] * len(rows)
        run: dict[str, dict[str, float]] = {}
        for (query, _, doc, _, score, _), shift in zip(rows, noise, strict=True):
            run.setdefault(query, {})[doc] = float(score) + float(shift)
        systems[name] = run
    return systems


@pytest.mark.parametrize("batch_rows", [None, 1_000, 60])
def test_every_system_at_once_is_bit_identical_to_evaluate_at_each_k(
    monkeypatch: pytest.MonkeyPatch, batch_rows: int | None
) -> None:
    # 5 systems x 40 queries x 15 cutoffs: one batch, batches of one or two systems, and
    # (60 rows) each system's cutoffs in batches of one.
    if batch_rows is not None:
        monkeypatch.setattr("rankset.evaluation.cutoff_curves._BATCH_ROWS", batch_rows)
    runs, qrels = _five_systems(), DATA / "qrels.txt"
    measures = ["ndcg", "precision", "recall", "rr", "ra_nwg"]
    curves = rankset.curves(runs, qrels, measures, ks=15, n_resamples=100, scale="trec_dl")
    for k in (1, 2, 7, 15):
        names = [f"{measure}@{k}" for measure in measures]
        expected = rankset.evaluate(runs, qrels, names, scale="trec_dl", confidence=None)
        got = curves.per_query.filter(pl.col("k") == k)
        # the same rows in the same order (system as given, metric as asked, query id)
        assert got["system"].to_list() == expected.per_query["system"].to_list()
        assert got["query_id"].to_list() == expected.per_query["query_id"].to_list()
        assert got["value"].to_list() == expected.per_query["value"].to_list()  # to the bit
        means = curves.summary.filter(pl.col("k") == k)
        assert means["mean"].to_list() == expected.summary["mean"].to_list()
        assert means["n_na"].to_list() == expected.summary["n_na"].to_list()


def test_the_systems_share_one_table_of_cutoffs(monkeypatch: pytest.MonkeyPatch) -> None:
    from rankset.evaluation import cutoff_curves

    built = []
    original = cutoff_curves._at_every_k

    def counted(*args: object, **kwargs: object) -> pl.DataFrame:
        frame = original(*args, **kwargs)  # type: ignore[arg-type]
        built.append(frame.height)
        return frame

    monkeypatch.setattr(cutoff_curves, "_at_every_k", counted)
    rankset.curves(_five_systems(), DATA / "qrels.txt", ["ndcg"], ks=10, n_resamples=50)
    # one table of every system's rankings at every cutoff: 5 x 40 queries x 10
    assert built == [5 * 40 * 10]
