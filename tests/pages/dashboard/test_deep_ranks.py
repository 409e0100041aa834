"""A reranker's promoted documents keep the first stage's rank on the dashboard.

The page ships each ranking's first ``depth`` documents and, for the documents it shows,
the ranks further down (``deep_ranks``). Expected ranks are read from the run files here,
by hand: score descending, then document id descending (trec_eval's order).
"""

from __future__ import annotations

import gzip
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS, embedded
from rankset.pages.dashboard import dashboard

ROOT = Path(__file__).resolve().parents[3]
DL = ROOT.parent / "shared" / "data" / "rank_llm_dl_runs"
QRELS19 = (
    ROOT.parent
    / "shared"
    / "data"
    / "anserini_qrels_topics"
    / "qrels"
    / "qrels.dl19-passage.txt.gz"
)


def _ranks(path: Path) -> dict[str, dict[str, int]]:
    """``{query: {doc: rank}}`` of a TREC run file, in trec_eval's order."""
    rows: dict[str, list[tuple[float, str]]] = defaultdict(list)
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode()
    for line in text.splitlines():
        if line.strip():
            query, _, doc, _, score, _ = line.split()
            rows[query].append((float(score), doc))
    return {
        query: {doc: r for r, (_, doc) in enumerate(sorted(docs, reverse=True), start=1)}
        for query, docs in rows.items()
    }


def _page_ranks(data: dict[str, Any], s: int, qi: int) -> dict[str, int]:
    """What the page knows of system s's ranks for query qi: the top depth, then deeper."""
    ids = data["doc_ids"][qi]
    known = {ids[doc]: r for r, doc in enumerate(data["rankings"][s][qi], start=1)}
    deep = (data["deep_ranks"] or [[[]]])[s][qi] if data["deep_ranks"] else []
    known.update({ids[deep[i]]: deep[i + 1] for i in range(0, len(deep), 2)})
    return known


def _check_every_shown_rank(data: dict[str, Any], runs: dict[str, Path]) -> int:
    """Each system's rank of every shown document equals the run's; return the deep ones."""
    deep_found = 0
    expected = {name: _ranks(path) for name, path in runs.items()}
    for s, name in enumerate(data["systems"]):
        for qi, query in enumerate(data["queries"]):
            truth = expected[name].get(query, {})
            known = _page_ranks(data, s, qi)
            shown = set(data["doc_ids"][qi])
            assert known == {doc: truth[doc] for doc in shown if doc in truth}, (name, query)
            deep_found += sum(1 for rank in known.values() if rank > data["depth"])
    return deep_found


def test_shown_documents_carry_each_system_s_full_depth_rank() -> None:
    runs = {"bm25": SAMPLE_RUNS["bm25"], "rerank": SAMPLE_RUNS["rerank"]}
    board = dashboard(runs, SAMPLE_QRELS, scale="trec_dl", depth=10, n_resamples=50, progress=False)
    data = embedded(board.html, "rankset-data")
    assert data["depth"] == 10
    assert _check_every_shown_rank(data, runs) > 0
    # every deep rank lies below the shipped depth: the top depth is in "rankings"
    for column in data["deep_ranks"]:
        for pairs in column:
            assert all(rank > 10 for rank in pairs[1::2])


@pytest.mark.skipif(not DL.is_dir(), reason="needs ../shared/data (rank_llm's DL19 runs)")
def test_rankgpt_over_bm25_shows_the_bm25_rank_of_every_promoted_document() -> None:
    runs = {
        "bm25": DL / "first_stage" / "bm25.dl19.trec.gz",
        "rankgpt": DL / "reranked" / "rankgpt-gpt-3.5-turbo-top100.over-bm25.dl19.trec.gz",
    }
    board = dashboard(
        runs, QRELS19, scale="trec_dl", n_resamples=50, progress=False
    )  # the default depth
    data = embedded(board.html, "rankset-data")
    assert data["depth"] == 20
    assert _check_every_shown_rank(data, runs) > 0
    # a reranker reorders the same candidates: each document of its top 20 has a bm25 rank
    bm25, rankgpt = data["systems"].index("bm25"), data["systems"].index("rankgpt")
    for qi in range(len(data["queries"])):
        ids = data["doc_ids"][qi]
        known = _page_ranks(data, bm25, qi)
        promoted = [ids[doc] for doc in data["rankings"][rankgpt][qi]]
        assert all(doc in known for doc in promoted), data["queries"][qi]


@pytest.mark.slow
@pytest.mark.skipif(not DL.is_dir(), reason="needs ../shared/data (rank_llm's DL19 runs)")
def test_the_query_view_shows_first_stage_ranks_not_new(browser: Any, tmp_path: Path) -> None:
    runs = {
        "bm25": DL / "first_stage" / "bm25.dl19.trec.gz",
        "rankgpt": DL / "reranked" / "rankgpt-gpt-3.5-turbo-top100.over-bm25.dl19.trec.gz",
    }
    page_path = dashboard(runs, QRELS19, scale="trec_dl", n_resamples=50, progress=False).save(
        tmp_path / "p.html"
    )
    bm25 = _ranks(runs["bm25"])
    rankgpt = _ranks(runs["rankgpt"])
    query = max(bm25, key=lambda q: max(bm25[q][d] for d, r in rankgpt[q].items() if r <= 10))
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(page_path.resolve().as_uri() + f"#query={query}&a=bm25&b=rankgpt&k=10")
    page.wait_for_selector("body[data-ready]")
    cells = page.locator("#serp-b tbody tr td.move").all_text_contents()
    context.close()
    assert len(cells) == 10
    assert not any(cell.startswith("new") for cell in cells)
    top10 = sorted(rankgpt[query], key=rankgpt[query].__getitem__)[:10]
    expected = [bm25[query][doc] for doc in top10]
    assert [int(re.match(r"\d+", cell).group()) for cell in cells] == expected  # type: ignore[union-attr]
    assert max(expected) > 20  # a document promoted from below the shipped depth
