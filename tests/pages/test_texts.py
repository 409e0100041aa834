"""Texts for the pages: the formats people have, and clear errors for the ones that break.

Expected values are written by hand, or read from the same file with the json module.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from rankset.cli import main
from rankset.errors import InputFormatError
from rankset.pages import read_texts

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
PASSAGES = ROOT.parent / "shared" / "data" / "rank_llm_dl_runs" / "passage_text"

HITS = [
    {
        "query": "how long do fleas live",
        "hits": [
            {"qid": 7, "docid": "d1", "content": "A flea lives a year.", "rank": 1, "score": 9.0},
            {"qid": 7, "docid": "d2", "content": "Fleas jump.", "rank": 2, "score": 8.0},
        ],
    },
    {
        "query": {"text": "concrete floor cost", "qid": "8"},
        "hits": [{"qid": 8, "docid": "d2", "content": "Fleas jump.", "rank": 1, "score": 3.0}],
    },
]


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_rank_llm_candidate_lists_give_passages_and_queries(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"bm25.dl19{suffix}"
    data = json.dumps(HITS, indent=2).encode()
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    docs = read_texts(path)
    assert docs.rows() == [("d1", "A flea lives a year."), ("d2", "Fleas jump.")]
    assert read_texts(path, keep={"d2"}).rows() == [("d2", "Fleas jump.")]
    queries = read_texts(path, what="queries")
    assert queries.rows() == [("7", "how long do fleas live"), ("8", "concrete floor cost")]


def test_a_json_array_of_objects_reads_like_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "docs.json"
    path.write_text(
        json.dumps([{"docid": "a", "contents": "Alpha"}, {"docid": 2, "contents": "B"}])
    )
    assert read_texts(path).rows() == [("a", "Alpha"), ("2", "B")]


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("broken.json", '[{"docid": "a", "text": ', "is not valid JSON"),
        ("hits.json", '[{"query": "q", "hits": [1, 2]}]', "element 1 has 'hits' that are not"),
        ("nohit.json", '[{"query": "q", "hits": [{"docid": "a"}]}]', "a hit without an id"),
        ("scalars.json", "[1, 2]", "must be a JSON array of objects"),
        (
            "broken.jsonl",
            '{"doc_id": "a", "text": "x"}\n{"doc_id": "b", "text": \n',
            "could not be",
        ),
        ("nocols.jsonl", '{"x": 1}\n', "needs an id column"),
    ],
)
def test_malformed_texts_name_the_file(tmp_path: Path, name: str, content: str, said: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputFormatError, match=said) as raised:
        read_texts(path)
    assert name in str(raised.value)


def test_the_dashboard_takes_rank_llm_texts_and_refuses_broken_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.trec"
    run.write_text("7 Q0 d1 1 2.0 a\n7 Q0 d2 2 1.0 a\n8 Q0 d2 1 1.0 a\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("7 0 d1 1\n8 0 d2 0\n")
    texts = tmp_path / "bm25.json"
    texts.write_text(json.dumps(HITS))
    page = tmp_path / "page.html"
    common = [str(run), "--qrels", str(qrels), "--out", str(page), "--quiet", "--scale", "binary"]
    assert main(["dashboard", *common, "--texts", str(texts), "--queries", str(texts)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "A flea lives a year." in html
    assert "concrete floor cost" in html
    # --snippet cuts each shown text to N characters, an ellipsis ending a cut one
    assert main(["dashboard", *common, "--texts", str(texts), "--snippet", "12"]) == 0
    html = page.read_text(encoding="utf-8")
    assert "A flea lives a year." not in html
    assert ("A flea live…" in html) or ("A flea live\\u2026" in html)
    assert "Fleas jump." in html
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"doc_id": "a", "text": "x"}\n{"doc_id": \n')
    capsys.readouterr()
    assert main(["dashboard", *common, "--texts", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "broken.jsonl" in err
    assert "Traceback" not in err


@pytest.mark.skipif(not PASSAGES.is_dir(), reason="needs ../shared/data (rank_llm passage texts)")
def test_rank_llm_s_dl19_passages_read_whole() -> None:
    path = PASSAGES / "bm25.dl19.top100.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        items = json.load(handle)
    first: dict[str, str] = {}
    for item in items:
        for hit in item["hits"]:
            first.setdefault(str(hit["docid"]), hit["content"])
    docs = read_texts(path)
    assert docs.height == len(first)
    assert dict(docs.rows()) == first
    queries = dict(read_texts(path, what="queries").rows())
    assert queries == {str(item["hits"][0]["qid"]): item["query"] for item in items}
    assert len(queries) == 43
