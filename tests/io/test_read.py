"""Tests of rankset.io's dispatch: names, parameters, the deprecated readers, imports."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from _support.io_cases import RUN_TEXT, write_bytes, write_text
from rankset.errors import ParameterError
from rankset.io import read, scan_labels


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("bm25.dl19.trec.gz", "bm25.dl19"),
        ("results.test", "results.test"),
        ("run.txt", "run"),
        ("bm25.noveleval.top20.json.gz", "bm25.noveleval.top20"),
        ("plain", "plain"),
    ],
)
def test_stem_drops_gz_and_format_extension(tmp_path: Path, name: str, stem: str) -> None:
    content = RUN_TEXT if "json" not in name else json.dumps({"1": {"a": 1.0}})
    data = content.encode()
    path = write_bytes(tmp_path / name, gzip.compress(data) if name.endswith(".gz") else data)

    assert read(path, kind="run").stem == stem


def test_invalid_parameters_are_parameter_errors(tmp_path: Path) -> None:
    path = write_text(tmp_path / "r.trec", RUN_TEXT)

    with pytest.raises(ParameterError, match="'format' parameter must be one of"):
        read(path, format="xml")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'kind' parameter must be one of"):
        read(path, kind="both")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="format 'trec' cannot be read from an in-memory"):
        read(pl.DataFrame({"a": [1]}), format="trec")
    with pytest.raises(ParameterError, match="does not apply to the fixed layout of trec"):
        read(path, columns={"x": "query_id"})
    with pytest.raises(ParameterError, match="cannot read a int"):
        read(3)  # type: ignore[arg-type]


def test_explicit_format_overrides_sniffing(tmp_path: Path) -> None:
    path = write_text(tmp_path / "data.txt", "qid,docid,rel\n1,a,1\n")

    assert scan_labels(path, format="csv").collect().rows() == [("1", "a", 1.0)]


@pytest.mark.parametrize("name", ["read_run", "read_labels"])
def test_read_run_and_read_labels_are_gone(name: str) -> None:
    # never in a release: scan_run and scan_labels are the lazy readers, no alias
    import rankset
    import rankset.io

    for face in (rankset, rankset.io):  # `from rankset.io import read_run`: ImportError
        with pytest.raises(AttributeError):
            getattr(face, name)


def test_importing_io_does_not_import_heavy_modules() -> None:
    src = Path(__file__).resolve().parents[2] / "src"
    heavy = "{'pandas', 'pyarrow', 'numpy'}"
    code = f"import sys, rankset.io; print(sorted({heavy} & set(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(src)}

    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )

    assert out.stdout.strip() == "[]"
