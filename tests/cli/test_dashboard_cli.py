"""``rankset dashboard``: the page from the command line (the browser tests drive it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rankset.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
INPUTS = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec"), "--qrels"]
INPUTS += [str(SAMPLE / "qrels.txt"), "--scale", "trec_dl", "--quiet"]


def _data(page: str) -> dict[str, object]:
    found = re.search(r'<script [^>]*id="rankset-data"[^>]*>(.*?)</script>', page, re.S)
    assert found is not None
    loaded = json.loads(found.group(1))
    assert isinstance(loaded, dict)
    return loaded


def test_the_page_holds_what_was_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "board.html"
    texts = tmp_path / "texts.tsv"
    texts.write_text("doc_id\ttext\nd1\t<b>bold</b> & more\n", encoding="utf-8")
    command = ["dashboard", *INPUTS, "-m", "ndcg@5", "-m", "ap", "-k", "5"]
    assert main([*command, "--baseline", "rerank", "--texts", str(texts), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"wrote {out}: 2 systems, 40 queries")
    page = out.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in page
    assert re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page) is None  # no network
    assert "<b>bold</b>" not in page  # user text is escaped, never markup
    data = _data(page)
    assert data["systems"] == ["bm25", "rerank"]
    assert data["metrics"] == ["ndcg@5", "ap"]


def test_a_missing_output_or_run_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["dashboard", *INPUTS])  # no --out
    assert stopped.value.code == 2
    capsys.readouterr()
    missing = ["dashboard", str(tmp_path / "nope.trec"), "--qrels", str(SAMPLE / "qrels.txt")]
    assert main([*missing, "--out", str(tmp_path / "b.html")]) == 2
    assert capsys.readouterr().err.startswith("rankset: error:")
    assert not (tmp_path / "b.html").exists()


def test_a_store_s_entries_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = str(tmp_path / "store")
    qrels = ["--qrels", str(SAMPLE / "qrels.txt"), "-m", "rr", "--scale", "trec_dl", "--quiet"]
    monkeypatch.chdir(SAMPLE)  # relative run paths: the store keeps them absolute
    assert main(["log", "bm25.trec", *qrels, "--store", store, "--tag", "old"]) == 0
    assert main(["log", "rerank.trec", *qrels, "--store", store, "--tag", "new"]) == 0
    assert main(["log", "rerank.trec", *qrels, "--store", store, "--tag", "new"]) == 0
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    out = tmp_path / "store.html"
    options = ["--scale", "trec_dl", "--quiet", "--out", str(out)]
    assert main(["dashboard", "--store", store, *options]) == 0
    systems = _data(out.read_text(encoding="utf-8"))["systems"]
    assert isinstance(systems, list)
    assert systems[0] == "old:bm25"  # a unique tag names its entry
    assert [name.split(":")[1] for name in systems[1:]] == ["rerank", "rerank"]  # by id
    entries = [name.split(":")[0] for name in systems[1:]]
    assert entries[0] != entries[1]
    # --entry picks entries; runs given beside the store join them
    picked = ["dashboard", "--store", store, "--entry", entries[0], *options]
    assert main([*picked, str(SAMPLE / "bm25.trec")]) == 0
    picked_systems = _data(out.read_text(encoding="utf-8"))["systems"]
    assert picked_systems == ["new:rerank", "bm25"]  # its tag is unique among those shown


def test_store_inputs_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = ["--out", str(tmp_path / "b.html"), "--quiet"]
    assert main(["dashboard", *out]) == 2  # neither runs nor a store
    assert "--store DIR" in capsys.readouterr().err
    assert main(["dashboard", str(SAMPLE / "bm25.trec"), "--entry", "x", *out]) == 2
    assert "give --store DIR too" in capsys.readouterr().err
    assert main(["dashboard", "--store", str(tmp_path / "none"), *out]) == 2
    assert "not a rankset store" in capsys.readouterr().err
