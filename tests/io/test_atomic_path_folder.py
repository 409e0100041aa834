"""atomic_path names the folder it cannot write in, never its hidden temporary file.

The temporary file (``.NAME.<hex>.tmp``) is created beside the target before anything is
written, so a missing folder used to fail there, with that file's path in the message.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import polars as pl
import pytest

from rankset.errors import OutputError
from rankset.io import write_parquet
from rankset.io._shared import atomic_path


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    target = tmp_path / "results" / "x.parquet"
    with pytest.raises(OutputError) as raised, atomic_path(target):
        pytest.fail("atomic_path yielded without a folder to write in")
    message = str(raised.value)
    assert message == (
        f"cannot write {target}: the folder {tmp_path / 'results'}{os.sep} does not exist; "
        "create it first."
    )
    assert ".tmp" not in message
    assert not (tmp_path / "results").exists()  # nothing created on the way


def test_a_relative_missing_folder_is_named_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    expected = r"^cannot write results/x\.parquet: the folder results/ does not exist"
    with pytest.raises(OutputError, match=expected):
        write_parquet(pl.DataFrame({"a": [1]}), "results/x.parquet")
    assert list(tmp_path.iterdir()) == []


def test_a_file_in_place_of_the_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / "results").write_text("a file, not a folder")
    target = tmp_path / "results" / "x.parquet"
    with (
        pytest.raises(OutputError, match=r"the folder .*results/ is not a folder"),
        atomic_path(target),
    ):
        pass


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="root writes in read-only folders"
)
def test_a_read_only_folder_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(OutputError) as raised, atomic_path(folder / "x.parquet"):
            pass
    finally:
        folder.chmod(0o700)
    assert str(raised.value).startswith(f"cannot write {folder / 'x.parquet'}: ")
    assert str(raised.value).endswith(f"in the folder {folder}{os.sep}")
    assert ".tmp" not in str(raised.value)
