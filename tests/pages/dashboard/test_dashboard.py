"""The dashboard's page without a browser: what it embeds, how it escapes, when it samples."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankset
from _support.dashboard_cases import SAMPLE_QRELS, SAMPLE_RUNS, embedded, sample_texts
from rankset.errors import InputFormatError, ParameterError
from rankset.evaluation import numbered_runs
from rankset.pages import Dashboard, read_texts
from rankset.pages.dashboard import FRAGMENT_KEYS, dashboard
from rankset.pages.report import CSP

N_RESAMPLES = 200
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return sample_texts(tmp_path_factory.mktemp("texts"))


@pytest.fixture(scope="module")
def board(texts: tuple[Path, Path]) -> Dashboard:
    docs, queries = texts
    return dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        texts=docs,
        queries=queries,
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        snippet=60,
    )


@pytest.fixture(scope="module")
def data(board: Dashboard) -> dict[str, Any]:
    return embedded(board.html, "rankset-data")


def test_the_page_is_self_contained(board: Dashboard) -> None:
    page = board.html
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page
    assert page.count('id="rankset-data"') == 1  # the data is written once
    specs = embedded(page, "rankset-specs")
    assert set(specs) == {"summary", "curves", "diagnosis", "differences"}
    for spec in specs.values():  # the specs name their data, the page fills it
        assert "values" not in json.dumps(spec.get("data", {}))
    assert board.n_queries == board.n_queries_total == 40
    assert repr(board).startswith("Dashboard(2 systems, 5 metrics, 40 queries, ")


def test_the_data_matches_the_evaluation(data: dict[str, Any]) -> None:
    result = rankset.evaluate(
        SAMPLE_RUNS, SAMPLE_QRELS, data["metrics"], scale="trec_dl", n_resamples=N_RESAMPLES
    )
    assert data["systems"] == ["bm25", "rerank"]
    assert data["metrics"] == list(rankset.evaluation.DEFAULT_METRICS)  # one default set
    queries = data["queries"]
    for m, metric in enumerate(data["metrics"]):
        for s, system in enumerate(data["systems"]):
            expected = (
                result.per_query.filter(pl.col("system") == system, pl.col("metric") == metric)
                .sort("query_id")["value"]
                .round(6)
                .to_list()
            )
            assert data["values"][m][s] == pytest.approx(expected), (metric, system)
    summary = {(row["system"], row["metric"]): row["mean"] for row in data["summary"]}
    for row in result.summary.iter_rows(named=True):
        assert summary[row["system"], row["metric"]] == pytest.approx(row["mean"])
    # rankings: the evaluation's order, the first `depth` documents, as local doc indices
    top = numbered_runs(SAMPLE_RUNS).filter(pl.col("pos") <= data["depth"])
    for s, system in enumerate(data["systems"]):
        for q in (0, 17, 39):
            expected = (
                top.filter(pl.col("system") == system, pl.col("query_id") == queries[q])
                .sort("pos")["doc_id"]
                .to_list()
            )
            shown = [data["doc_ids"][q][i] for i in data["rankings"][s][q]]
            assert shown == expected


def test_comparisons_are_rankset_compare_for_each_baseline(data: dict[str, Any]) -> None:
    result = rankset.evaluate(
        SAMPLE_RUNS, SAMPLE_QRELS, data["metrics"], scale="trec_dl", n_resamples=N_RESAMPLES
    )
    for baseline in data["systems"]:
        expected = rankset.compare(
            result, baseline, tests=["randomization"], n_resamples=N_RESAMPLES, seed=0
        )
        rows = data["compare"][baseline]
        assert [(r["system"], r["metric"]) for r in rows] == expected.select(
            "system", "metric"
        ).rows()
        assert [r["p_adj"] for r in rows] == pytest.approx(expected["p_adj"].to_list())
        assert [r["delta"] for r in rows] == pytest.approx(expected["delta"].to_list())


def test_grades_texts_and_relevant_documents(data: dict[str, Any]) -> None:
    labels = rankset.io.scan_labels(SAMPLE_QRELS).collect()
    q = data["queries"].index("q003")
    grades = dict(zip(data["doc_ids"][q], data["grades"][q], strict=True))
    judged = labels.filter(pl.col("query_id") == "q003")
    relevant = judged.filter(pl.col("grade") >= data["relevance_level"])["doc_id"].to_list()
    assert set(relevant) <= set(grades)  # every relevant document, retrieved or not
    for doc, grade in judged.select("doc_id", "grade").rows():
        if doc in grades:
            assert grades[doc] == grade
    assert any(grade is None for grade in grades.values())  # unjudged documents
    assert all(len(text) <= 60 for text in data["texts"].values())
    assert data["texts"][data["doc_ids"][q][0]].endswith("…")
    assert data["query_text"][q].startswith("what is the ")


def test_the_diagnosis_and_curves_are_embedded(data: dict[str, Any]) -> None:
    diagnosis = rankset.diagnose(SAMPLE_RUNS, SAMPLE_QRELS, k=10, scale="trec_dl")
    counts = {(r["system"], r["quadrant"]): r["n_queries"] for r in data["diagnosis"]["counts"]}
    for system, quadrant, n in diagnosis.counts.select("system", "quadrant", "n_queries").rows():
        assert counts.get((system, quadrant or "unclassified"), 0) == n
    # every metric that takes a cutoff has a curve (ap and rr too: ap@k, rr@k)
    assert {row["metric"] for row in data["curves"]} == {"ndcg", "ap", "rr", "precision", "recall"}
    assert {row["k"] for row in data["curves"]} == set(range(1, 21))
    assert data["curve_of"] == ["ndcg", "ap", "rr", "recall", "precision"]


HOSTILE = '</script><img src=x onerror="alert(1)">'


def test_every_user_string_is_escaped(tmp_path: Path) -> None:
    queries = ["q1", HOSTILE, "q&3"]
    docs = ["d1", "<b>d2</b>", "d3"]
    run = pl.DataFrame(
        {
            "query_id": [q for q in queries for _ in docs],
            "doc_id": docs * len(queries),
            "score": [3.0, 2.0, 1.0] * len(queries),
        }
    )
    labels = pl.DataFrame(
        {"query_id": queries, "doc_id": ["d1", "<b>d2</b>", "d3"], "grade": [3, 2, 1]}
    )
    board = dashboard(
        {HOSTILE: run, "plain": run.with_columns(pl.col("score").reverse().over("query_id"))},
        labels,
        texts={"<b>d2</b>": HOSTILE},
        queries={HOSTILE: HOSTILE},
        title=HOSTILE,
        k=2,
        depth=3,
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
    )
    page = board.html
    assert page.count("</script>") == page.count("<script")  # nothing ends a script early
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.S)
    assert "<img" not in markup
    assert "<b>" not in markup
    assert "<title>&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</title>" in page
    data = embedded(page, "rankset-data")
    assert data["systems"][0] == HOSTILE
    assert HOSTILE in data["queries"]
    assert data["texts"]["<b>d2</b>"] == HOSTILE
    frame = board._repr_html_()
    assert frame.startswith("<iframe srcdoc=")
    assert "<script" not in frame


def test_a_budget_samples_queries_and_keeps_the_extremes(texts: tuple[Path, Path]) -> None:
    board = dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        texts=texts[0],
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        max_bytes=100_000,
        extremes=3,
    )
    assert board.sampled
    assert board.n_queries < 40
    data = embedded(board.html, "rankset-data")
    assert data["sample"] == {"sampled": True, "n_extremes": 6, "max_bytes": 100_000}
    # the summary, tests and curves count against the budget too
    assert len(json.dumps(data, separators=(",", ":"))) <= 100_000
    result = rankset.evaluate(SAMPLE_RUNS, SAMPLE_QRELS, ["ndcg@10"], scale="trec_dl")
    wide = result.per_query.pivot(on="system", index="query_id", values="value")
    diff = wide.with_columns(d=pl.col("rerank") - pl.col("bm25")).filter(pl.col("d") != 0)
    extremes = [
        *diff.sort("d", "query_id").head(3)["query_id"],
        *diff.sort("d", "query_id").tail(3)["query_id"],
    ]
    assert set(extremes) <= set(data["queries"])
    assert "The queries are a sample" in board.html
    assert f"{board.n_queries:,} of 40 queries" in board.html
    # means and tests still use every query
    assert {row["n_queries"] for row in data["summary"]} == {40}


def test_a_small_budget_keeps_the_biggest_win_and_loss_of_each_system(
    texts: tuple[Path, Path],
) -> None:
    # the extremes stop at the budget too (100 systems x 25 wins and 25 losses would
    # pass any budget), all but the biggest win and loss of every system
    board = dashboard(
        SAMPLE_RUNS,
        SAMPLE_QRELS,
        texts=texts[0],
        scale="trec_dl",
        n_resamples=N_RESAMPLES,
        max_bytes=30_000,
        extremes=3,
    )
    data = embedded(board.html, "rankset-data")
    assert data["sample"]["n_extremes"] == 2
    result = rankset.evaluate(SAMPLE_RUNS, SAMPLE_QRELS, ["ndcg@10"], scale="trec_dl")
    wide = result.per_query.pivot(on="system", index="query_id", values="value")
    diff = wide.with_columns(d=pl.col("rerank") - pl.col("bm25")).filter(pl.col("d") != 0)
    ordered = diff.sort("d", "query_id")
    assert sorted(data["queries"]) == sorted([ordered["query_id"][0], ordered["query_id"][-1]])


def test_save_writes_the_page(board: Dashboard, tmp_path: Path) -> None:
    out = board.save(tmp_path / "board.html")
    assert out.read_text(encoding="utf-8") == board.html
    assert [path.name for path in tmp_path.iterdir()] == ["board.html"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"k": 0}, "The 'k' parameter"),
        ({"k": 10, "depth": 5}, "The 'depth' parameter"),
        ({"baseline": "bm52"}, "The 'baseline' parameter"),
        ({"metrics": []}, "No metric was given"),
        ({"max_bytes": 0}, "The 'max_bytes' parameter"),
    ],
)
def test_bad_parameters_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        dashboard(SAMPLE_RUNS, SAMPLE_QRELS, scale="trec_dl", n_resamples=N_RESAMPLES, **options)


def test_read_texts_reads_every_form(tmp_path: Path) -> None:
    tsv = tmp_path / "plain.tsv"
    tsv.write_text('d1\tfirst "quoted"\ttext\nd2\tsecond\n', encoding="utf-8")
    assert read_texts(tsv).rows() == [("d1", 'first "quoted"\ttext'), ("d2", "second")]
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text('{"docid": "d1", "doc": "one"}\n{"docid": 2, "doc": "two"}\n')
    assert read_texts(jsonl, keep={"2"}).rows() == [("2", "two")]
    parquet = tmp_path / "docs.parquet"
    pl.DataFrame({"doc_id": ["d9"], "contents": ["nine"]}).write_parquet(parquet)
    assert read_texts(parquet).rows() == [("d9", "nine")]
    assert read_texts({"a": "x"}).rows() == [("a", "x")]
    with pytest.raises(InputFormatError, match="needs an id column"):
        read_texts(pl.DataFrame({"name": ["a"], "text": ["x"]}))
    (tmp_path / "bad.txt").write_text("no tab here\n")
    with pytest.raises(InputFormatError, match="not tab-separated"):
        read_texts(tmp_path / "bad.txt")
    with pytest.raises(InputFormatError, match="file not found"):
        read_texts(tmp_path / "missing.tsv")
    with pytest.raises(ParameterError, match="must be a path"):
        read_texts(3)  # type: ignore[arg-type]


def test_the_fragment_keys_are_documented() -> None:
    page = (ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")
    for key in FRAGMENT_KEYS:
        assert f"`{key}`" in page, key


def test_the_face_gives_the_function_not_a_module() -> None:
    import inspect

    import rankset

    assert inspect.isfunction(rankset.dashboard)
    assert inspect.isfunction(rankset.report)
    board = rankset.dashboard(
        {"a": {"q": {"x": 1.0, "y": 0.5}}, "b": {"q": {"y": 1.0, "x": 0.5}}},
        {"q": {"y": 1}},
        scale="binary",
        n_resamples=N_RESAMPLES,
    )
    assert isinstance(board, Dashboard)
    assert board.systems == ["a", "b"]


def test_labels_without_a_scale_leave_the_matrix_out() -> None:
    labels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"], "grade": [7, 12]})
    run = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d1"], "score": 1.0})
    board = dashboard({"one": run, "two": run}, labels, n_resamples=N_RESAMPLES)
    assert any(note.startswith("Left out the diagnostic matrix") for note in board.notes)
    assert "diagnosis" not in embedded(board.html, "rankset-specs")
    assert embedded(board.html, "rankset-data")["diagnosis"] is None
