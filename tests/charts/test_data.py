"""Inlined chart data: no Altair row limit, a clear max_rows error, NaN as null."""

from __future__ import annotations

import altair as alt
import polars as pl
import pytest

from rankset import charts
from rankset.charts import _common
from rankset.errors import ParameterError


def big_per_query(n_queries: int, systems: tuple[str, ...] = ("a", "b")) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "system": [s for s in systems for _ in range(n_queries)],
            "query_id": [f"q{i}" for _ in systems for i in range(n_queries)],
            "metric": "ndcg@10",
            "value": [(i % 97) / 97 for _ in systems for i in range(n_queries)],
        }
    )


def test_twenty_thousand_rows_build_without_max_rows_error() -> None:
    frame = big_per_query(10_000)
    spec = charts.distribution_chart(frame, "ndcg@10").to_dict()
    assert len(spec["data"]["values"]) == 20_000
    spec = charts.difference_chart(frame, "ndcg@10", "a").to_dict()
    assert len(spec["data"]["values"]) == 10_000
    assert alt.data_transformers.active == "default"


def test_over_max_rows_is_a_clear_error() -> None:
    frame = big_per_query(600)
    with pytest.raises(ParameterError, match=r"1,200 rows, above max_rows=1,000.*max_rows="):
        charts.distribution_chart(frame, "ndcg@10", max_rows=1_000)


def test_nan_becomes_null() -> None:
    frame = big_per_query(3).with_columns(pl.lit(float("nan")).alias("extra"))
    data = _common.inline_frame(frame, 10, "test")
    assert all(row["extra"] is None for row in data.to_dict()["values"])
