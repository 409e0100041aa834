"""rankset.ranking_stability: system orderings under several label sets.

Kendall's tau-b equals scipy's ``kendalltau`` (ties included, Hypothesis); tau_AP and
RBO equal hand-computed values (a swap at the top costs tau_AP more than one at the
bottom, where Kendall's tau sees no difference); the means are those of
``rankset.evaluate`` under each label set; the top system's change is reported; on TREC
DL 2019 (when ``../shared`` is present) the ordering of four runs under NIST's labels is
compared with the labels binarised at grade 2 and with a pool of the runs' top 10.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankset
from _support.trec_files import read_qrels
from rankset.errors import ParameterError
from rankset.label_quality.rank_stability import kendall_tau_b, rbo, tau_ap

scipy_stats = pytest.importorskip("scipy.stats")

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"


@settings(max_examples=80, deadline=None)
@given(pairs=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=3, max_size=12))
def test_kendall_tau_b_equals_scipys(pairs: list[tuple[int, int]]) -> None:
    x, y = [float(a) for a, _ in pairs], [float(b) for _, b in pairs]
    expected = scipy_stats.kendalltau(x, y).statistic  # tau-b by default
    got = kendall_tau_b(x, y)
    if expected != expected:  # NaN: one list is constant
        assert got != got
    else:
        assert got == pytest.approx(expected, abs=1e-12)


def test_tau_ap_weighs_a_swap_at_the_top_more_than_one_at_the_bottom() -> None:
    true = ["A", "B", "C", "D"]
    # [A, C, B, D]: C(2) = 1/1, C(3) = 1/2 (C is above B wrongly), C(4) = 3/3 -> 2/3 * 2.5 - 1
    assert tau_ap(["A", "C", "B", "D"], true) == pytest.approx(2 / 3 * 2.5 - 1)
    # [A, B, D, C]: C(2) = 1, C(3) = 1, C(4) = 2/3 -> 2/3 * (8/3) - 1
    assert tau_ap(["A", "B", "D", "C"], true) == pytest.approx(2 / 3 * (8 / 3) - 1)
    assert tau_ap(["A", "C", "B", "D"], true) < tau_ap(["A", "B", "D", "C"], true)
    # Kendall's tau sees one discordant pair of six either way: 4/6
    assert kendall_tau_b([4, 2, 3, 1], [4, 3, 2, 1]) == pytest.approx(4 / 6)
    assert kendall_tau_b([4, 3, 1, 2], [4, 3, 2, 1]) == pytest.approx(4 / 6)


def test_rbo_by_hand() -> None:
    # d = 1: no overlap; d = 2: both -> (1 - p)/p * (0 + 2/2 * p^2) + 2/2 * p^2
    assert rbo(["A", "B"], ["B", "A"], p=0.5) == pytest.approx(0.25 + 0.25)
    assert rbo(["A", "B", "C"], ["A", "C", "B"], p=0.9) == pytest.approx(
        (1 - 0.9) / 0.9 * (1 * 0.9 + 1 / 2 * 0.81 + 3 / 3 * 0.729) + 0.729
    )
    assert rbo(["A", "B", "C"], ["A", "B", "C"], p=0.3) == pytest.approx(1.0)


def test_means_and_ranks_are_those_of_evaluate() -> None:
    runs = {"bm25": SAMPLE / "bm25.trec", "rerank": SAMPLE / "rerank.trec"}
    qrels = read_qrels(SAMPLE / "qrels.txt")
    strict = qrels.with_columns(pl.col("grade").ge(3).cast(pl.Int64))  # only grade 3 counts
    result = rankset.ranking_stability(
        runs, {"nist": qrels, "strict": strict}, "ap", n_resamples=100
    )
    for name, labels in (("nist", qrels), ("strict", strict)):
        summary = rankset.evaluate(runs, labels, ["ap"], n_resamples=100).summary
        got = result.ranks.filter(labels=name).sort("system")
        assert got["mean"].to_list() == summary.sort("system")["mean"].to_list()
        assert got["ci_low"].to_list() == summary.sort("system")["ci_low"].to_list()
    assert result.reference == "nist"
    row = result.correlations.row(0, named=True)
    assert row["labels"] == "strict"
    assert row["n_systems"] == 2
    assert row["top_reference"] == "rerank"  # ap 0.3694 against 0.2957 under nist
    assert row["top_stays"] == (row["top"] == "rerank")
    assert row["kendall_tau_b"] == (1.0 if row["top_stays"] else -1.0)


def test_lower_is_better_metrics_rank_the_lowest_first() -> None:
    runs = {"a": {"q": {"x": 2.0, "y": 1.0}}, "b": {"q": {"y": 2.0, "x": 1.0}}}
    labels = {"one": {"q": {"x": 3, "y": 5}}, "two": {"q": {"x": 5, "y": 3}}}
    result = rankset.ranking_stability(runs, labels, "harm@1", scale="rag5", confidence=None)
    # harm@1 is 1 when the top passage is tier <= 2: none here, both systems tie at 0
    assert result.ranks["rank"].to_list() == [1, 1, 1, 1]
    assert result.correlations["n_rank_changes"].to_list() == [0]


def test_bad_inputs_are_refused() -> None:
    runs = {"a": {"q": {"x": 1.0}}, "b": {"q": {"x": 1.0}}}
    with pytest.raises(ParameterError, match="two label sets"):
        rankset.ranking_stability(runs, {"only": {"q": {"x": 1}}})
    with pytest.raises(ParameterError, match="rbo_p"):
        rankset.ranking_stability(runs, {"a": {"q": {"x": 1}}, "b": {"q": {"x": 1}}}, rbo_p=1.0)
    with pytest.raises(ParameterError, match="same"):
        tau_ap(["a", "b"], ["a", "c"])


def test_dl19_orderings_under_other_label_sets(shared_data: Path) -> None:
    names = {
        "bm25": "rank_llm_dl_runs/first_stage/bm25.dl19.trec.gz",
        "splade": "rank_llm_dl_runs/first_stage/splade-pp-ed.dl19.trec.gz",
        "rankvicuna-over-bm25": (
            "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-bm25.dl19.trec.gz"
        ),
        "rankvicuna-over-splade": (
            "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-splade-pp-ed.dl19.trec.gz"
        ),
    }
    runs = {name: shared_data / path for name, path in names.items()}
    qrels = read_qrels(shared_data / "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz")
    binarised = qrels.with_columns(pl.col("grade").ge(2).cast(pl.Int64))
    top10 = pl.concat(
        rankset.scan_run(path).collect().filter(pl.col("rank") <= 10).select("query_id", "doc_id")
        for path in runs.values()
    ).unique()
    shallow = qrels.join(top10, on=["query_id", "doc_id"], how="semi")
    result = rankset.ranking_stability(
        runs, {"nist": qrels, "grade>=2": binarised, "top-10 pool": shallow}, "ndcg@10"
    )
    table = result.correlations
    assert table["labels"].to_list() == ["grade>=2", "top-10 pool"]
    assert result.ranks["labels"].unique(maintain_order=True).to_list() == [
        "nist",
        "grade>=2",
        "top-10 pool",
    ]
    means = {
        name: dict(result.ranks.filter(labels=name).select("system", "mean").iter_rows())
        for name in ("nist", "grade>=2", "top-10 pool")
    }
    for other, tau in zip(["grade>=2", "top-10 pool"], table["kendall_tau_b"], strict=True):
        systems = sorted(means["nist"])
        expected = scipy_stats.kendalltau(
            [means["nist"][s] for s in systems], [means[other][s] for s in systems]
        ).statistic
        assert tau == pytest.approx(expected, abs=1e-12)
    assert set(table["top_reference"]) == {"rankvicuna-over-splade"}


# --- rankset stability: the command line ----------------------------------------------------


def _write_labels(path: Path, frame: pl.DataFrame) -> Path:
    frame.select("query_id", "iter", "doc_id", "grade").write_csv(
        path, separator=" ", include_header=False
    )
    return path


def test_the_stability_command_prints_scipys_tau(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from rankset.cli import main

    qrels = read_qrels(SAMPLE / "qrels.txt")
    strict = _write_labels(tmp_path / "strict.txt", qrels.with_columns(pl.col("grade") // 3))
    runs = [SAMPLE / "bm25.trec", SAMPLE / "rerank.trec"]
    code = main(
        ["stability", *map(str, runs), "--qrels", str(SAMPLE / "qrels.txt"), "--qrels",
         str(strict), "-m", "ap", "--json", "--n-resamples", "50"]
    )  # fmt: skip
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["metric"], out["reference"]) == ("ap", "qrels")
    (row,) = out["correlations"]
    assert row["labels"] == "strict"  # named after the file, as the readers name it
    means = {
        name: rankset.evaluate(runs, labels, ["ap"], confidence=None).summary.sort("system")
        for name, labels in (("qrels", SAMPLE / "qrels.txt"), ("strict", strict))
    }
    expected = scipy_stats.kendalltau(means["qrels"]["mean"], means["strict"]["mean"]).statistic
    assert row["kendall_tau_b"] == pytest.approx(expected, abs=1e-12)
    printed = {(r["labels"], r["system"]): r["mean"] for r in out["ranks"]}
    for name, frame in means.items():
        for system, mean in frame.select("system", "mean").iter_rows():
            assert printed[(name, system)] == pytest.approx(mean, abs=1e-12)


def test_the_stability_command_needs_two_label_sets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rankset.cli import main

    runs = [str(SAMPLE / "bm25.trec"), str(SAMPLE / "rerank.trec")]
    assert main(["stability", *runs, "--qrels", str(SAMPLE / "qrels.txt")]) == 2
    assert "needs --qrels twice or more" in capsys.readouterr().err
