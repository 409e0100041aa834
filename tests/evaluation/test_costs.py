"""Cost beside quality: ``evaluate(..., costs=)`` and ``--costs``.

Expected summaries come from numpy (``np.mean``, ``np.percentile``'s default linear
interpolation) on the same numbers, computed here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankset
from rankset.cli import main
from rankset.errors import InputFormatError, RanksetWarning
from rankset.io import read_costs

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
QUERIES = [f"q{i:02d}" for i in range(30)]


def _runs_and_labels() -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, dict[str, int]]]:
    rng = np.random.default_rng(7)
    labels = {q: {f"d{j}": int(rng.integers(0, 3)) for j in range(5)} for q in QUERIES}
    runs = {
        name: {q: {f"d{j}": float(rng.random()) for j in range(6)} for q in QUERIES}
        for name in ("bm25", "dense", "hybrid")
    }
    return runs, labels


def test_mean_p50_and_p95_equal_numpy_s_per_system_and_cost() -> None:
    runs, labels = _runs_and_labels()
    rng = np.random.default_rng(11)
    rows = []
    for name in runs:
        for q in QUERIES:
            rows.append(
                {
                    "system": name,
                    "query_id": q,
                    "latency_ms": float(rng.gamma(2, 40)),
                    "tokens_in": float(rng.integers(50, 900)),
                    "cost": float(rng.random()),
                }
            )
    rows.append({"system": "bm25", "query_id": "unscored", "latency_ms": 1e6, "tokens_in": 1.0,
                 "cost": 1.0})  # fmt: skip
    rows.append(
        {
            "system": "other",
            "query_id": QUERIES[0],
            "latency_ms": 1.0,
            "tokens_in": 1.0,
            "cost": 1.0,
        }
    )  # fmt: skip  (another system's row: ignored, not counted)
    costs = pl.DataFrame(rows)
    with pytest.warns(RanksetWarning, match="1 of 91 cost rows of the evaluated systems"):
        result = rankset.evaluate(runs, labels, ["ndcg@5"], costs=costs)
    assert result.costs is not None
    assert result.costs.columns == ["system", "cost", "mean", "p50", "p95", "n_queries"]
    assert result.costs.select("system", "cost").rows() == [
        (name, cost) for name in runs for cost in ("latency_ms", "tokens_in", "cost")
    ]
    for system, cost, mean, p50, p95, n in result.costs.iter_rows():
        values = costs.filter((pl.col("system") == system) & (pl.col("query_id") != "unscored"))[
            cost
        ].to_numpy()
        assert n == len(values) == 30
        assert mean == pytest.approx(np.mean(values), rel=1e-12)
        assert p50 == pytest.approx(np.percentile(values, 50), rel=1e-12)
        assert p95 == pytest.approx(np.percentile(values, 95), rel=1e-12)


def test_one_system_needs_no_system_column_and_many_do() -> None:
    run = {q: {"d1": 1.0} for q in QUERIES[:4]}
    labels = {q: {"d1": 1} for q in QUERIES[:4]}
    costs = pl.DataFrame({"query_id": QUERIES[:4], "tokens_out": [10, 20, 30, 40]})
    result = rankset.evaluate(run, labels, ["rr"], costs=costs)  # the prepared, one-run path
    assert result.costs is not None
    assert result.costs.row(0) == ("run", "tokens_out", 25.0, 25.0, 38.5, 4)
    with pytest.raises(InputFormatError, match="no system column, but 2 systems"):
        rankset.evaluate({"a": run, "b": run}, labels, ["rr"], costs=costs)
    assert rankset.evaluate(run, labels, ["rr"]).costs is None


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"qid": ["q1"], "latency_ms": [1.0]}, "needs a query_id column"),
        ({"query_id": ["q1"], "speed": [1.0]}, "needs at least one of latency_ms"),
        ({"query_id": ["q1", "q2"], "latency_ms": [1.0, -2.0]}, "row 2: latency_ms must be"),
        ({"query_id": ["q1"], "cost": [float("nan")]}, "row 1: cost must be a finite"),
        ({"query_id": ["q1"], "cost": ["cheap"]}, "row 1: cost must be a finite"),
        ({"query_id": ["q1", "q1"], "cost": [1.0, 2.0]}, "query_id 'q1' has 2 rows"),
    ],
)
def test_bad_costs_are_refused_naming_what_is_wrong(
    table: dict[str, list[object]], said: str
) -> None:
    with pytest.raises(InputFormatError, match=said):
        read_costs(pl.DataFrame(table))


def test_cost_files_are_read_by_extension_and_errors_name_them(tmp_path: Path) -> None:
    frame = pl.DataFrame({"system": ["a", "a"], "query_id": ["q1", "q2"], "cost": [0.5, 1.5]})
    for name, write in (("c.csv", frame.write_csv), ("c.parquet", frame.write_parquet),
                        ("c.jsonl", frame.write_ndjson)):  # fmt: skip
        path = tmp_path / name
        write(path)
        assert read_costs(path).rows() == [("a", "q1", 0.5), ("a", "q2", 1.5)]
    tsv = tmp_path / "c.tsv"
    tsv.write_text("query_id\tlatency_ms\nq1\t3\n")
    assert read_costs(tsv).rows() == [("q1", 3.0)]
    with pytest.raises(InputFormatError, match="costs: file not found"):
        read_costs(tmp_path / "missing.csv")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"query_id": "q1", "cost": \n')
    with pytest.raises(InputFormatError, match=r"broken\.jsonl could not be read"):
        read_costs(broken)


def test_the_cli_prints_costs_beside_quality(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    latencies = [float(3 * i) for i in range(1, 41)]
    table = tmp_path / "costs.csv"
    table.write_text(
        "query_id,latency_ms\n" + "".join(f"q{i:03d},{v}\n" for i, v in enumerate(latencies, 1))
    )
    inputs = [str(SAMPLE / "bm25.trec"), "--qrels", str(SAMPLE / "qrels.txt"), "--scale", "trec_dl"]
    assert main(["evaluate", *inputs, "-m", "ndcg@10", "--costs", str(table), "--quiet"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "latency_ms" in line).split()
    assert row[:2] == ["bm25", "latency_ms"]
    expected = [np.mean(latencies), np.percentile(latencies, 50), np.percentile(latencies, 95)]
    assert [float(v) for v in row[2:5]] == pytest.approx(expected, abs=5e-5)
    assert int(row[5]) == 40
    # --json keeps its contract: the summary's records, nothing else
    assert main(["evaluate", *inputs, "-m", "ndcg@10", "--costs", str(table), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["metric"] for r in records] == ["ndcg@10"]
    bad = tmp_path / "bad.csv"
    bad.write_text("query_id,latency_ms\nq001,-1\n")
    assert main(["evaluate", *inputs, "-m", "ndcg@10", "--costs", str(bad), "--quiet"]) == 2
    assert "bad.csv, row 1: latency_ms must be a finite number >= 0" in capsys.readouterr().err


def _run_with_costs(rng: np.random.Generator, queries: list[str]) -> pl.DataFrame:
    """A run of 3 documents per query, each query's latency and tokens on all its rows."""
    latency = {q: float(rng.gamma(2, 30)) for q in queries}
    tokens = {q: float(rng.integers(10, 500)) for q in queries}
    return pl.DataFrame(
        {
            "query_id": [q for q in queries for _ in range(3)],
            "doc_id": [f"d{j}" for _ in queries for j in range(3)],
            "score": [3.0 - j for _ in queries for j in range(3)],
            "latency_ms": [latency[q] for q in queries for _ in range(3)],
            "tokens_in": [tokens[q] for q in queries for _ in range(3)],
        }
    )


def test_cost_columns_of_a_parquet_run_are_its_costs(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    labels = {q: {"d1": 1} for q in QUERIES}
    fast, slow = _run_with_costs(rng, QUERIES), _run_with_costs(rng, [*QUERIES, "unjudged"])
    fast.write_parquet(tmp_path / "fast.parquet")
    slow.write_csv(tmp_path / "slow.csv")
    result = rankset.evaluate(
        [tmp_path / "fast.parquet", tmp_path / "slow.csv"], labels, ["rr"], confidence=None
    )  # the unjudged query's costs are left out without a warning (errors in pytest)
    assert result.costs is not None
    assert result.costs.select("system", "cost").rows() == [
        (s, c) for s in ("fast", "slow") for c in ("latency_ms", "tokens_in")
    ]
    for system, cost, mean, p50, p95, n in result.costs.iter_rows():
        run = fast if system == "fast" else slow.filter(pl.col("query_id") != "unjudged")
        values = run.unique("query_id", maintain_order=True)[cost].to_numpy()
        assert n == len(values) == 30
        assert [mean, p50, p95] == pytest.approx(
            [np.mean(values), np.percentile(values, 50), np.percentile(values, 95)], rel=1e-12
        )
    # a frame held in memory (the prepared path) and a multi-system frame carry them too
    one = rankset.evaluate(fast, labels, ["rr"], confidence=None).costs
    assert one is not None
    assert one.drop("system").equals(result.costs.filter(pl.col("system") == "fast").drop("system"))
    both = pl.concat([fast.with_columns(system=pl.lit("x")), slow.with_columns(system=pl.lit("y"))])
    many = rankset.evaluate(both, labels, ["rr"], confidence=None).costs
    assert many is not None
    assert many.drop("system").equals(result.costs.drop("system"))


def test_costs_given_win_over_a_run_s_columns_and_varying_ones_are_refused(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(6)
    labels = {q: {"d1": 1} for q in QUERIES[:4]}
    run = _run_with_costs(rng, QUERIES[:4])
    given = pl.DataFrame({"query_id": QUERIES[:4], "cost": [1.0, 2.0, 3.0, 4.0]})
    result = rankset.evaluate(run, labels, ["rr"], costs=given)
    assert result.costs is not None
    assert result.costs["cost"].to_list() == ["cost"]
    varying = run.with_columns(latency_ms=pl.Series(np.arange(run.height, dtype=float)))
    varying.write_parquet(tmp_path / "varying.parquet")
    with pytest.raises(InputFormatError, match=r"varying\.parquet: column latency_ms holds 3 "):
        rankset.evaluate(tmp_path / "varying.parquet", labels, ["rr"])
    negative = run.with_columns(tokens_in=pl.lit(-1.0))
    with pytest.raises(InputFormatError, match="row 1: cost column tokens_in must be a finite"):
        rankset.evaluate(negative, labels, ["rr"])
    # the same run with the varying column but costs given: the given ones are the costs
    assert rankset.evaluate(varying, labels, ["rr"], costs=given).costs is not None
