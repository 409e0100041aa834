"""Systems keep the order the runs were given, in every frame, table and page.

Runs given as ``{"zeta": ..., "alpha": ...}`` or as a list of files read in that order
everywhere: the evaluation's per-query frame, summary and query counts, ``systems``,
``compare``, ``curves``, ``diagnose``, the CLI's table and the report (whose default
baseline is the first run given). Systems named by a ``system`` column take their input's
place, alphabetically among themselves. Reordering changes no value.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rankset
from rankset.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
QRELS = SAMPLE / "qrels.txt"
GIVEN = {"zeta": SAMPLE / "rerank.trec", "alpha": SAMPLE / "bm25.trec"}
METRICS = ["ndcg@10", "ap"]


def _first_seen(frame: pl.DataFrame) -> list[str]:
    return frame["system"].unique(maintain_order=True).to_list()


@pytest.fixture(scope="module")
def result() -> rankset.EvaluationResult:
    return rankset.evaluate(GIVEN, QRELS, METRICS, n_resamples=100)


def test_an_evaluation_keeps_the_order_of_its_inputs(result: rankset.EvaluationResult) -> None:
    assert result.systems == ["zeta", "alpha"]
    assert result.config["systems"] == ["zeta", "alpha"]
    for frame in (result.per_query, result.summary, result.query_counts, result.wide()):
        assert _first_seen(frame) == ["zeta", "alpha"]
    files = rankset.evaluate([SAMPLE / "rerank.trec", SAMPLE / "bm25.trec"], QRELS, METRICS)
    assert files.systems == ["rerank", "bm25"]


def test_reordering_the_inputs_changes_no_value(result: rankset.EvaluationResult) -> None:
    swapped = rankset.evaluate(dict(reversed(GIVEN.items())), QRELS, METRICS, n_resamples=100)
    assert swapped.systems == ["alpha", "zeta"]
    for system in GIVEN:
        assert_frame_equal(
            swapped.per_query.filter(system=system), result.per_query.filter(system=system)
        )
        assert_frame_equal(
            swapped.summary.filter(system=system).drop("ci_low", "ci_high"),
            result.summary.filter(system=system).drop("ci_low", "ci_high"),
        )


def test_systems_from_a_column_take_their_inputs_place(tmp_path: Path) -> None:
    named = tmp_path / "zz.trec"
    named.write_text("q1 Q0 d1 1 1.0 zz\n", encoding="utf-8")  # named by its tag
    column = pl.DataFrame(
        {"system": ["m2", "m1"], "query_id": "q1", "doc_id": ["d1", "d1"], "score": [1.0, 2.0]}
    )
    labels = {"q1": {"d1": 1}}
    # The frame names its systems in a column: they come at its place, alphabetically.
    after = rankset.evaluate([named, column], labels, ["rr"], confidence=None)
    assert after.systems == ["zz", "m1", "m2"]
    before = rankset.evaluate([column, named], labels, ["rr"], confidence=None)
    assert before.systems == ["m1", "m2", "zz"]


def test_compare_curves_and_diagnose_follow_the_inputs(result: rankset.EvaluationResult) -> None:
    compared = rankset.compare(
        rankset.evaluate({**GIVEN, "mid": SAMPLE / "bm25.trec"}, QRELS, METRICS, n_resamples=50),
        "alpha",
        tests=["randomization"],
        n_resamples=200,
    )
    assert _first_seen(compared) == ["zeta", "mid"]
    curve = rankset.curves(GIVEN, QRELS, ["ndcg"], ks=3, n_resamples=50)
    assert _first_seen(curve.summary) == ["zeta", "alpha"]
    assert _first_seen(curve.per_query) == ["zeta", "alpha"]
    diagnosis = rankset.diagnose(GIVEN, QRELS, k=10, scale="trec_dl")
    assert _first_seen(diagnosis.per_query) == ["zeta", "alpha"]
    assert _first_seen(diagnosis.counts) == ["zeta", "alpha"]
    assert diagnosis.wide()["system"].to_list() == ["zeta", "alpha"]


def test_the_cli_table_lists_the_runs_in_the_order_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = [str(SAMPLE / "rerank.trec"), str(SAMPLE / "bm25.trec")]
    code = main(["evaluate", *runs, "--qrels", str(QRELS), "-m", "ap", "--quiet"])
    assert code == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()[2:] if line]
    assert rows == ["rerank", "bm25"]


def test_the_report_compares_with_the_first_run_and_lists_systems_in_order(
    tmp_path: Path,
) -> None:
    from rankset.pages.report import report

    page = report(
        GIVEN, QRELS, scale="trec_dl", n_resamples=50, out=tmp_path / "r.html"
    ).path.read_text("utf-8")
    assert "Each system against the baseline <code>zeta</code>" in page
    summary = page.split('id="summary"', 1)[1].split("</table>", 1)[0]
    assert summary.index(">zeta<") < summary.index(">alpha<")


def test_the_tidy_frame_is_ordered_by_system_metric_and_query_whatever_the_row_order() -> None:
    from rankset.evaluation._result import planned_tidy
    from rankset.measures import parse_metrics
    from rankset.measures._shared import QUERY_K

    metrics = parse_metrics(["p@k", "ap", "ndcg@3"])
    rows = [  # (system, query, value, per-query k), in no order
        ("b", "q2", 0.2, 4),
        ("a", "q10", 0.5, 2),
        ("b", "q1", 0.1, 3),
        ("a", "q1", 0.3, 3),
        ("a", "q2", 0.4, 4),
    ]
    frame = pl.DataFrame(rows, schema=["system", "query_id", "v", QUERY_K], orient="row")
    values = {metric.name: pl.col("v") * (i + 1) for i, metric in enumerate(metrics)}
    got = planned_tidy(frame, metrics, values, ["b", "a"]).collect()
    # by hand: systems as given, metrics as asked, query ids in byte order ("q1" < "q10")
    expected = []
    for system in ["b", "a"]:
        for i, metric in enumerate(metrics):
            for _, query, value, k in sorted(r for r in rows if r[0] == system):
                cutoff = (
                    k if metric.name == "precision@k" else (3 if metric.name == "ndcg@3" else None)
                )
                expected.append(
                    (system, query, metric.name, metric.measure, cutoff, value * (i + 1))
                )
    assert got.rows() == expected
    assert got.schema == pl.Schema(
        {
            "system": pl.String,
            "query_id": pl.String,
            "metric": pl.String,
            "measure": pl.String,
            "k": pl.Int64,
            "value": pl.Float64,
        }
    )
