"""The markup helpers: numbers as trec_eval prints them, NA as a dash, minus as U+2212."""

from __future__ import annotations

import polars as pl

from _support.report_cases import fmt as _fmt


def test_number_formatting_matches_python() -> None:
    from rankset.pages.report._html import fmt

    values = [0.0, 1.0, 0.12345, 1234.56785, 0.99996, -0.5, 2.5e-5, None, float("nan")]
    got = pl.DataFrame({"v": values}, schema={"v": pl.Float64}).select(fmt(pl.col("v")))
    expected = ["–" if v is None or v != v else _fmt(v) for v in values]
    assert got.to_series().to_list() == expected
