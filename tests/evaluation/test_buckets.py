"""The larger-than-memory mode: hash buckets and partitioned datasets.

Values must be bit-identical to a single pass (whole queries per bucket, same small
phase), whatever the bucket count, for every measure family, several systems, both query
policies, and a dataset written by :func:`rankset.partition`.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.evaluation import bucket_of
from rankset.testing import assert_results_equal

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
RUNS = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]
QRELS = SAMPLE / "qrels.txt"
METRICS = [
    "ndcg@10",
    "ap",
    "rr",
    "recall@100",
    "P@10",
    "bpref",
    "Rprec",
    "num_ret",
    "ra_nwg@5",
    "proc@10",
    "harm(unjudged=1)@5",
]


def _evaluate(runs: object, labels: object = QRELS, **options: object) -> rankset.EvaluationResult:
    return rankset.evaluate(
        runs,
        labels,
        METRICS,
        scale="trec_dl",
        confidence=None,
        **options,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("buckets", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_buckets_give_the_single_pass_values_bit_for_bit(buckets: int, missing: str) -> None:
    single = _evaluate(RUNS, missing=missing)
    bucketed = _evaluate(RUNS, missing=missing, buckets=buckets)
    assert_results_equal(bucketed, single)
    assert bucketed.config["buckets"] == buckets


def test_every_query_lands_in_exactly_one_bucket() -> None:
    ids = pl.Series("query_id", [f"q{i}" for i in range(1000)] + ["42", "042"])
    buckets = pl.select(bucket_of(pl.lit(ids), 8)).to_series()
    assert buckets.min() >= 0
    assert buckets.max() < 8
    assert buckets.n_unique() == 8  # 1,002 ids fill all 8 buckets
    # the same id text, whatever its dtype, gets the same bucket
    as_int = pl.select(bucket_of(pl.lit(pl.Series([42])), 8)).item()
    assert as_int == buckets[-2]


def test_buckets_catch_duplicates_like_a_single_pass() -> None:
    run = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "a", "b"], "score": [2.0, 1.0, 1.0]}
    )
    labels = {"q1": {"a": 1}, "q2": {"b": 1}}
    with pytest.raises(rankset.SchemaError, match=r"duplicate documents.*'a' \(2 times\)"):
        rankset.evaluate(run, labels, ["rr"], buckets=4)


def test_an_invalid_bucket_count_is_refused() -> None:
    with pytest.raises(rankset.ParameterError, match="'buckets'"):
        _evaluate(RUNS, buckets=0)


def test_a_partitioned_dataset_evaluates_like_its_sources(tmp_path: Path) -> None:
    out = rankset.partition(RUNS, QRELS, tmp_path / "ds", buckets=5)
    manifest = json.loads((out / "rankset-partition.json").read_text())
    assert manifest["buckets"] == 5
    assert sorted(p.name for p in (out / "run").iterdir()) == [f"bucket={b}" for b in range(5)]
    from_dataset = rankset.evaluate(out, metrics=METRICS, scale="trec_dl", confidence=None)
    assert from_dataset.config["buckets"] == 5
    assert_frame_equal(from_dataset.per_query, _evaluate(RUNS).per_query, check_exact=True)


def test_the_manifest_profile_matches_the_written_run(tmp_path: Path) -> None:
    """Evaluating a dataset names its systems from the manifest, without a pass."""
    tied = rankset.io.scan_run(RUNS[0]).collect().with_columns(system=pl.lit("tied"))
    out = rankset.partition([*RUNS, tied], QRELS, tmp_path / "ds", buckets=3)
    manifest = json.loads((out / "rankset-partition.json").read_text())
    written = pl.scan_parquet(out / "run").collect()
    assert manifest["profile"] == {
        "tags": sorted(written["system"].unique().to_list())[:2],
        "n_scores": written["score"].is_not_null().sum(),
        "n_rows": written.height,
    }
    # A dataset written before profiles were stored is profiled when evaluated.
    del manifest["profile"]
    (out / "rankset-partition.json").write_text(json.dumps(manifest))
    old = rankset.evaluate(out, metrics=METRICS, scale="trec_dl", confidence=None)
    assert_frame_equal(old.per_query, _evaluate([*RUNS, tied]).per_query, check_exact=True)


def test_a_dataset_bucket_holds_only_its_queries(tmp_path: Path) -> None:
    out = rankset.partition(RUNS, QRELS, tmp_path / "ds", buckets=3)
    for name in ("run", "labels"):
        for bucket in range(3):
            ids = pl.read_parquet(out / name / f"bucket={bucket}" / "part-0.parquet")["query_id"]
            assert (pl.select(bucket_of(pl.lit(ids), 3)).to_series() == bucket).all()
    total = pl.scan_parquet(out / "run").select(pl.len()).collect().item()
    assert total == sum(rankset.io.scan_run(path).collect().height for path in RUNS)


def test_a_dataset_with_another_bucket_count_falls_back_to_hashing(tmp_path: Path) -> None:
    out = rankset.partition(RUNS, QRELS, tmp_path / "ds", buckets=4)
    again = rankset.evaluate(out, metrics=METRICS, scale="trec_dl", confidence=None, buckets=3)
    assert_frame_equal(again.per_query, _evaluate(RUNS).per_query, check_exact=True)


def test_partition_refuses_a_non_empty_target_and_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "ds"
    target.mkdir()
    (target / "keep.txt").write_text("x")
    with pytest.raises(rankset.ParameterError, match="not an empty directory"):
        rankset.partition(RUNS, QRELS, target)
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]


def test_a_broken_manifest_is_named(tmp_path: Path) -> None:
    out = rankset.partition(RUNS, QRELS, tmp_path / "ds", buckets=2)
    (out / "rankset-partition.json").write_text('{"format": "other", "version": 1}')
    with pytest.raises(rankset.InputFormatError, match=r"rankset-partition\.json.*'other'"):
        rankset.io.scan_run(out)


def test_cli_partition_then_evaluate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rankset.cli import main

    out = tmp_path / "ds"
    args = ["partition", *map(str, RUNS), "--qrels", str(QRELS), "--buckets", "3"]
    assert main(["-q", *args, "--out", str(out)]) == 0
    assert "3 buckets" in capsys.readouterr().out
    assert main(["-q", "evaluate", str(out), "-m", "rr", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = rankset.evaluate(RUNS, QRELS, ["rr"], confidence=None).summary
    means = {row["system"]: row["mean"] for row in printed}
    assert means == dict(zip(expected["system"], expected["mean"], strict=True))
