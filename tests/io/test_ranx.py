"""Tests of rankset.io on ranx-style mappings, in memory and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _io_cases import labels_frame, write_text
from polars.testing import assert_frame_equal

from rankset.errors import InputFormatError
from rankset.io import read, scan_labels, scan_run


def test_ranx_mappings() -> None:
    ranx = {"q1": {"d1": 0.5, "d2": 1}, "q2": {"d3": 2.0}}

    run = scan_run(ranx).collect()
    labels = scan_labels(ranx).collect()

    assert run.rows() == [
        ("q1", "d1", None, 0.5, None),
        ("q1", "d2", None, 1.0, None),
        ("q2", "d3", None, 2.0, None),
    ]
    assert_frame_equal(
        labels, labels_frame([("q1", "d1", 0.5), ("q1", "d2", 1.0), ("q2", "d3", 2.0)])
    )
    with pytest.raises(InputFormatError, match="pass kind='run' or kind='labels'"):
        read(ranx)


def test_ranx_json_file(tmp_path: Path) -> None:
    path = write_text(tmp_path / "ranx.json", json.dumps({"301": {"d": 3}}))

    assert scan_labels(path).collect().rows() == [("301", "d", 3.0)]
