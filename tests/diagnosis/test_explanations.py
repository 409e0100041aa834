"""rankset.explain: the relevant documents found, where, and missed, per system and query.

Checked against a plain-Python walk over the rankings, on the bundled sample (two systems,
40 queries) at several cutoffs, and on a hand case; the report shows the reasons beside
its worst queries.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rankset

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
RUNS = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]


def _read(path: Path, columns: list[str]) -> pl.DataFrame:
    return pl.read_csv(path, separator=" ", has_header=False, new_columns=columns,
                       schema_overrides={"query_id": pl.String, "doc_id": pl.String})  # fmt: skip


@pytest.mark.parametrize("k", [3, 10, None])
def test_found_and_missed_equal_a_walk_over_the_rankings(k: int | None) -> None:
    qrels = _read(SAMPLE / "qrels.txt", ["query_id", "iter", "doc_id", "grade"])
    relevant: dict[str, set[str]] = {}
    for query, doc, grade in qrels.select("query_id", "doc_id", "grade").iter_rows():
        if grade >= 2:
            relevant.setdefault(query, set()).add(doc)
    out = rankset.explain(RUNS, SAMPLE / "qrels.txt", k, relevance_level=2)
    assert out["system"].unique(maintain_order=True).to_list() == ["bm25", "rerank"]
    for path in RUNS:
        run = _read(path, ["query_id", "q0", "doc_id", "rank", "score", "tag"])
        system = path.stem
        for query, docs in relevant.items():
            # trec_eval's order: score descending, ties by document id descending
            ranking = (
                run.filter(query_id=query)
                .sort("score", "doc_id", descending=True)["doc_id"]
                .to_list()
            )
            position = {doc: i for i, doc in enumerate(ranking, start=1)}
            cutoff = k or len(ranking)
            found = sorted(position[d] for d in docs if d in position and position[d] <= cutoff)
            row = out.filter(system=system, query_id=query).row(0, named=True)
            assert row["n_relevant"] == len(docs)
            assert row["found_positions"] == found
            missed = {d: position.get(d) for d in docs if d not in position or position[d] > cutoff}
            assert dict(zip(row["missed_docs"], row["missed_positions"], strict=True)) == missed
            assert row["reason"].startswith(f"{len(found)} of {len(docs)} relevant")


def test_a_long_miss_list_is_cut() -> None:
    run = {"q": {"x": 1.0}}
    labels = {"q": {f"d{i}": 1 for i in range(6)}}
    reason = rankset.explain(run, labels, k=1)["reason"][0]
    assert reason == (
        "0 of 6 relevant in the top 1; missed: d0 not retrieved, d1 not retrieved, "
        "d2 not retrieved and 3 more"
    )


def test_the_report_says_why_a_query_is_among_the_worst(tmp_path: Path) -> None:
    from rankset.pages.report import report

    page = report(
        RUNS, SAMPLE / "qrels.txt", metrics=["ndcg@10"], out=tmp_path / "r.html",
        n_resamples=50, scale="trec_dl", worst=3,
    ).path.read_text(encoding="utf-8")  # fmt: skip
    worst = page[page.index("<h2>Worst queries</h2>") :]
    assert "relevant documents</th>" in worst
    assert worst.count(" relevant in the top 10") >= 6  # 3 queries x 2 systems
