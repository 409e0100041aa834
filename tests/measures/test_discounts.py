"""The rank discount log2(position + 1) has C's bits, whatever the positions' range."""

from __future__ import annotations

import math
import random

import polars as pl
import pytest

from rankset.measures import log2_of_positions


def _discounts(positions: list[int | None], dtype: pl.DataType) -> list[float | None]:
    frame = pl.DataFrame({"pos": positions}, schema={"pos": dtype})
    return frame.select(log2_of_positions("pos"))["pos"].to_list()


@pytest.mark.parametrize("dtype", [pl.Int64(), pl.UInt32(), pl.Int32()])
def test_every_position_has_math_log2s_bits(dtype: pl.DataType) -> None:
    # Beyond the first table's 1,024 entries too, and nulls where a row has no position.
    generator = random.Random(7)
    positions: list[int | None] = [generator.randint(1, 5_000) for _ in range(2_000)]
    positions += [1, 1023, 1024, 1025, None]
    expected = [None if p is None else math.log2(p + 1) for p in positions]
    assert _discounts(positions, dtype) == expected


def test_positions_past_the_table_and_fractional_ones_are_computed_alike() -> None:
    far = [1, 2_000_000, 3]
    assert _discounts(far, pl.Int64()) == [math.log2(p + 1) for p in far]
    frame = pl.DataFrame({"pos": [1.5, 2.0]})
    got = frame.select(log2_of_positions("pos"))["pos"].to_list()
    assert got == [math.log2(2.5), math.log2(3.0)]
