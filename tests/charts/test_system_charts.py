"""significance_chart and rank_interval_chart: the cells and bars are the frames' numbers."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import rankset
from rankset.charts import rank_interval_chart, significance_chart
from rankset.errors import ParameterError, SchemaError

SYSTEMS = ["a", "b", "c"]


def _per_query(metric: str = "ndcg@10") -> pl.DataFrame:
    rng = np.random.default_rng(0)
    base = rng.random(20)
    rows = [
        (system, f"q{i}", metric, float(np.clip(v + 0.1 * j, 0, 1)))
        for j, system in enumerate(SYSTEMS)
        for i, v in enumerate(base + rng.normal(0, 0.05, 20))
    ]
    return pl.DataFrame(rows, schema=["system", "query_id", "metric", "value"], orient="row")


def _data(spec: dict) -> list[dict]:
    return spec["data"]["values"] if "data" in spec else spec["layer"][0]["data"]["values"]


@pytest.mark.parametrize("metric", ["ndcg@10", "harm@10"])
def test_every_ordered_pair_is_a_cell_with_the_rows_advantage(metric: str) -> None:
    table = rankset.compare_all(_per_query(metric), tests=["t"])
    spec = significance_chart(table).to_dict()
    cells = {(c["row"], c["column"]): c for c in _data(spec)}
    assert len(cells) == 6
    sign = 1.0 if metric == "ndcg@10" else -1.0
    for row in table.iter_rows(named=True):
        forward = cells[(row["system"], row["baseline"])]
        backward = cells[(row["baseline"], row["system"])]
        assert forward["delta"] == pytest.approx(row["delta"])
        assert forward["advantage"] == pytest.approx(sign * row["delta"])
        assert backward["advantage"] == pytest.approx(-sign * row["delta"])
        assert forward["p_adj"] == backward["p_adj"] == row["p_adj"]
    assert spec["layer"][0]["encoding"]["x"]["sort"] == SYSTEMS


def test_rank_bars_span_the_interval() -> None:
    ranks = rankset.rank_intervals(_per_query(), n_resamples=200)
    spec = rank_interval_chart(ranks).to_dict()
    drawn = {row["system"]: row for row in _data(spec)}
    for row in ranks.iter_rows(named=True):
        got = drawn[row["system"]]
        assert (got["rank"], got["rank_low"], got["rank_high"]) == (
            row["rank"], row["rank_low"], row["rank_high"],
        )  # fmt: skip
    assert spec["layer"][1]["encoding"]["y"]["sort"] == ranks["system"].to_list()
    two = rankset.rank_intervals(
        pl.concat([_per_query(), _per_query("ap")]), tied_test=None, n_resamples=50
    )
    assert "facet" in rank_interval_chart(two).to_dict()


def test_bad_frames_are_refused() -> None:
    table = rankset.compare_all(_per_query(), tests=["t"])
    with pytest.raises(ParameterError, match="no rows for metric 'ap'"):
        significance_chart(table, metric="ap")
    with pytest.raises(SchemaError, match="reject"):
        significance_chart(table.drop("reject"))
    with pytest.raises(SchemaError, match="rank_low"):
        rank_interval_chart(
            pl.DataFrame({"metric": ["x"], "system": ["a"], "mean": [1.0], "rank": [1]})
        )
