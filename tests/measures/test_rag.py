"""RAG-specific behaviour by hand: containment, pools, scales, answers, the CLI commands.

The formulas of ra_nwg/proc/n_recall/harm are checked against an independent reference in
test_rag_reference.py; here are the options around them.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import polars as pl
import pytest

import rankset
from rankset.cli import main
from rankset.errors import InputFormatError, ParameterError, SchemaError

TEXT_RUN = pl.DataFrame(
    {
        "system": "s",
        "query_id": ["q1", "q1", "q1", "q2", "q3"],
        "doc_id": ["d2", "d1", "d3", "d9", "d8"],
        "rank": [1, 2, 3, 1, 1],
        "text": [
            "Nothing to see.",
            "The refund window is 30\n  days from purchase.",
            "Refunds: 30 DAYS.",
            "Port 8443.",
            "Unrelated.",
        ],
    }
)
LABELS = {"q1": {"d1": 1}, "q2": {"d9": 1}, "q3": {"d8": 0}}


def _values(result: rankset.EvaluationResult) -> dict[tuple[str, str], float | None]:
    rows = result.per_query.iter_rows(named=True)
    return {(r["query_id"], r["metric"]): r["value"] for r in rows}


def test_containment_modes_and_cutoffs() -> None:
    answers = {"q1": ["30 days"], "q2": "8443"}
    metrics = [
        "containment@1",
        "containment@2",
        "containment@3",
        "containment(match=casefold)@3",
        "containment(match=whitespace)@2",
    ]
    got = _values(rankset.evaluate(TEXT_RUN, LABELS, metrics, answers=answers))
    # q1: rank 2 holds "30\n  days" (whitespace differs), rank 3 "30 DAYS" (case differs)
    assert got["q1", "containment@1"] == 0.0
    assert got["q1", "containment@2"] == 0.0
    assert got["q1", "containment@3"] == 0.0
    assert got["q1", "containment(match=casefold)@3"] == 1.0
    assert got["q1", "containment(match=whitespace)@2"] == 1.0
    assert got["q2", "containment@1"] == 1.0
    # q3 has no acceptable answer: NA, not 0
    assert got["q3", "containment@1"] is None


def test_containment_from_answers_file(tmp_path: Path) -> None:
    path = tmp_path / "answers.tsv"
    path.write_text("# qid<TAB>answer\nq1\t30 DAYS\nq2\tnope\n")
    got = _values(rankset.evaluate(TEXT_RUN, LABELS, ["containment@3"], answers=path))
    assert got["q1", "containment@3"] == 1.0
    assert got["q2", "containment@3"] == 0.0


def test_containment_needs_text_and_answers() -> None:
    run = TEXT_RUN.drop("text")
    with pytest.raises(SchemaError, match="carry no text"):
        rankset.evaluate(run, LABELS, ["containment@3"], answers={"q1": "x"})
    with pytest.raises(ParameterError, match="needs acceptable answers"):
        rankset.evaluate(TEXT_RUN, LABELS, ["containment@3"])


def test_read_answers_formats(tmp_path: Path) -> None:
    jsonl = tmp_path / "answers.jsonl"
    jsonl.write_text(
        json.dumps({"qid": "a", "answers": ["x", "y"]})
        + "\n"
        + json.dumps({"id": 2, "answer": "z"})
    )
    got = rankset.read_answers(jsonl).collect().rows()
    assert got == [("a", "x"), ("a", "y"), ("2", "z")]
    frame = pl.DataFrame({"query_id": ["a"], "answers": [["x", "y"]]})
    assert rankset.read_answers(frame).collect().rows() == [("a", "x"), ("a", "y")]
    bad = tmp_path / "bad.tsv"
    bad.write_text("q1\tfine\nq2 missing-tab\n")
    with pytest.raises(InputFormatError, match=r"bad\.tsv, line 2"):
        rankset.read_answers(bad)


# Labels on the trec_dl scale: a -> 5, b -> 4, c -> 3, z -> 1; every tier count is 1, so
# w4 = min(0.5 * (1/1), 1) = 0.5 and w3 = min(0.1, 0.25) = 0.1; oracle@2 = 1 + 0.5.
DL_LABELS = {"q": {"a": 3, "b": 2, "c": 1, "z": 0}}
FIRST_STAGE = {"q": {"c": 4.0, "z": 3.0, "b": 2.0, "x": 1.0}}  # no tier 5 retrieved
RERANK = {"q": {"b": 4.0, "c": 3.0, "z": 2.0, "x": 1.0}}


def test_proc_default_pool_is_the_system_own_list() -> None:
    result = rankset.evaluate(
        {"first": FIRST_STAGE, "rerank": RERANK}, DL_LABELS, ["proc@2", "ra_nwg@2"], scale="trec_dl"
    )
    values = {
        (r["system"], r["metric"]): r["value"] for r in result.per_query.iter_rows(named=True)
    }
    # both pools hold b (0.5) and c (0.1) at best: (0.5 + 0.1) / 1.5
    assert values["first", "proc@2"] == pytest.approx(0.6 / 1.5)
    assert values["rerank", "proc@2"] == pytest.approx(0.6 / 1.5)
    assert values["first", "ra_nwg@2"] == pytest.approx(0.1 / 1.5)  # c, z
    assert values["rerank", "ra_nwg@2"] == pytest.approx(0.6 / 1.5)  # b, c


def test_separate_pool_for_all_systems_and_by_name() -> None:
    pool = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}  # holds the tier-5 passage
    shared = rankset.evaluate(
        {"first": FIRST_STAGE, "rerank": RERANK},
        DL_LABELS,
        ["proc@2", "pct_proc@2"],
        scale="trec_dl",
        pool=pool,
    )
    values = {
        (r["system"], r["metric"]): r["value"] for r in shared.per_query.iter_rows(named=True)
    }
    assert values["first", "proc@2"] == pytest.approx(1.0)
    assert values["rerank", "proc@2"] == pytest.approx(1.0)
    assert values["rerank", "pct_proc@2"] == pytest.approx(0.6 / 1.5)
    by_name = rankset.evaluate(
        {"first": FIRST_STAGE, "rerank": RERANK},
        DL_LABELS,
        ["proc@2"],
        scale="trec_dl",
        pool={"rerank": pool},
    )
    values = {r["system"]: r["value"] for r in by_name.per_query.iter_rows(named=True)}
    assert values == pytest.approx({"first": 0.6 / 1.5, "rerank": 1.0})
    assert by_name.config["pool"] == "by system: rerank"


def test_pct_proc_is_na_when_pool_holds_nothing_useful() -> None:
    run = {"q": {"z": 1.0, "x": 0.5}}
    got = _values(rankset.evaluate(run, DL_LABELS, ["proc@2", "pct_proc@2"], scale="trec_dl"))
    assert got["q", "proc@2"] == 0.0
    assert got["q", "pct_proc@2"] is None


@pytest.mark.parametrize(
    ("scale", "labels", "expected"),
    [
        # binary: 1 -> tier 5, 0 -> tier 1; one tier-5 labelled, retrieved at rank 2
        ("binary", {"q": {"a": 1, "b": 0}}, {"n_recall_5@2": 1.0, "harm@2": 0.5}),
        # custom: grade 7 -> tier 5, grade 2 -> tier 2
        ({7: 5, 2: 2}, {"q": {"a": 7, "b": 2}}, {"n_recall_5@2": 1.0, "harm@2": 0.5}),
    ],
)
def test_scales(
    scale: object, labels: dict[str, dict[str, int]], expected: dict[str, float]
) -> None:
    run = {"q": {"b": 2.0, "a": 1.0}}
    got = _values(rankset.evaluate(run, labels, list(expected), scale=scale))  # type: ignore[arg-type]
    assert {m: got["q", m] for m in expected} == expected


def test_grade_outside_scale_is_an_error_naming_it() -> None:
    # 0 and 4 fit no preset (rag5 lacks 0, trec_dl lacks 4): the default scale's error
    labels = {"q": {"a": 0, "b": 4}}
    with pytest.raises(SchemaError, match=r"grade\(s\) 0 are outside the scale rag5"):
        rankset.evaluate({"q": {"a": 1.0}}, labels, ["ra_nwg@5"])
    with pytest.raises(SchemaError, match=r"grade\(s\) 4 are outside the scale trec_dl"):
        rankset.evaluate({"q": {"a": 1.0}}, labels, ["ra_nwg@5"], scale="trec_dl")
    with pytest.raises(ParameterError, match="The 'scale' parameter must be one of"):
        rankset.evaluate({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["ra_nwg@5"], scale="trec")


@pytest.mark.parametrize(
    ("grades", "chosen", "expected"),
    [
        # tiers by hand: binary 1 -> 5, 0 -> 1; trec_dl 3 -> 5, 2 -> 4, 1 -> 3, 0 -> 1
        ({"a": 1, "b": 0}, "binary", 1.0),  # a (tier 5) retrieved first
        ({"a": 0, "b": 3}, "trec_dl", 0.0),  # b (the only tier 5) not retrieved
        # a: tier 4, weight min((0.5 / (1/3)) / (1 / (1/3)), 1) = 0.5, over b's weight 1
        ({"a": 2, "b": 3, "c": 0}, "trec_dl", 0.5),
    ],
)
def test_labels_that_do_not_fit_rag5_choose_the_preset_they_fit(
    grades: dict[str, int], chosen: str, expected: float
) -> None:
    # The sample's qrels (grades 0-3) used to need scale="trec_dl" on every call.
    with pytest.warns(rankset.RanksetWarning, match=f"using scale='{chosen}'"):
        result = rankset.evaluate({"q": {"a": 1.0}}, {"q": grades}, ["ra_nwg@1"])
    assert result.config["scale"].startswith(chosen)
    assert result.per_query["value"].to_list() == [pytest.approx(expected)]
    explicit = rankset.evaluate({"q": {"a": 1.0}}, {"q": grades}, ["ra_nwg@1"], scale=chosen)
    assert explicit.per_query.equals(result.per_query)


def test_labels_that_fit_rag5_keep_it_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = rankset.evaluate({"q": {"a": 1.0}}, {"q": {"a": 1, "b": 5}}, ["ra_nwg@1"])
    assert result.config["scale"].startswith("rag5")


def test_classic_metrics_do_not_need_a_matching_scale() -> None:
    # rag5 cannot map grade 0, but only RAG metrics use the scale
    result = rankset.evaluate({"q": {"a": 1.0}}, {"q": {"a": 0}}, ["ndcg@5"])
    assert result.per_query["value"].to_list() == [0.0]


def test_per_query_k_from_samples_applies_to_rag_metrics(tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    lines = [
        {
            "id": "a",
            "expected_output": {"d1": 5, "d2": 3},
            "metadata": {"k": 1},
            "actual_output": ["d2", "d1"],
        },
        {"id": "b", "expected_output": {"d1": 5, "d2": 3}, "actual_output": ["d2", "d1"]},
    ]
    samples.write_text("\n".join(json.dumps(line) for line in lines))
    result = rankset.evaluate(samples, metrics=["n_recall_5", "precision_4plus"], k=2)
    got = _values(result)
    assert got["a", "n_recall_5@k"] == 0.0  # k = 1 from metadata: only d2 (tier 3)
    assert got["b", "n_recall_5@k"] == 1.0  # k = 2 from k=
    assert got["b", "precision_4plus@k"] == 0.5
    ks = dict(
        result.per_query.filter(pl.col("measure") == "n_recall_5").select("query_id", "k").rows()
    )
    assert ks == {"a": 1, "b": 2}


def test_cli_rag_command_with_pool_answers_and_parquet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "rerank.run"
    run.write_text("q Q0 b 1 4 t\nq Q0 c 2 3 t\nq Q0 z 3 2 t\n")
    pool = tmp_path / "first.run"
    pool.write_text("q Q0 a 1 9 p\nq Q0 b 2 8 p\nq Q0 c 3 7 p\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q 0 a 5\nq 0 b 4\nq 0 c 3\nq 0 z 1\n")
    out = tmp_path / "out.parquet"
    args = [
        "evaluate",
        str(run),
        "--qrels",
        str(qrels),
        "--scale",
        "rag5",
        "-m",
        "ra_nwg@2",
        "-m",
        "proc@2",
        "-m",
        "pct_proc@2",
        "--pool",
        str(pool),
        "--per-query",
        str(out),
        "--json",
    ]
    assert main(args) == 0
    means = {r["metric"]: r["mean"] for r in json.loads(capsys.readouterr().out)}
    assert means == pytest.approx({"ra_nwg@2": 0.6 / 1.5, "proc@2": 1.0, "pct_proc@2": 0.4})
    assert set(pl.read_parquet(out)["metric"]) == {"ra_nwg@2", "proc@2", "pct_proc@2"}


def test_cli_containment_on_seed_000_samples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = tmp_path / "samples.jsonl"
    sample = {
        "id": "q-1",
        "expected_output": ["doc-3"],
        "expected_answer": ["30 days", "a month"],
        "actual_output": json.dumps(
            {
                "retrieved": [
                    {"id": "doc-7", "text": "Shipping is free."},
                    {"id": "doc-3", "text": "Refunds within 30 days."},
                ]
            }
        ),
    }
    samples.write_text(json.dumps(sample) + "\n")
    for k, expected in [("1", 0.0), ("3", 1.0)]:
        assert (
            main(["evaluate", str(samples), "-m", "answer-containment-at-k", "--k", k, "--json"])
            == 0
        )
        assert json.loads(capsys.readouterr().out)[0]["mean"] == expected


def test_text_matched_runs_evaluate_and_report_matches() -> None:
    # Seed 003's batch example: ranked chunks vs gold chunks, exact text, k = 3.
    chunks = {
        "1": [
            "Paris is the capital of France.",
            "France is in Europe.",
            "Napoleon was born in Corsica.",
        ],
        "2": ["The sky is blue.", "Water is wet."],
        "3": ["Unrelated 1.", "Unrelated 2.", "Unrelated 3.", "The Louvre is in Paris."],
    }
    gold = {
        "1": ["Paris is the capital of France.", "The Eiffel Tower was built in 1889."],
        "2": ["The sky is blue.", "Water is wet."],
        "3": ["The Louvre is in Paris."],
    }
    run = pl.DataFrame(
        [
            ("rag", q, text, rank)
            for q, texts in chunks.items()
            for rank, text in enumerate(texts, start=1)
        ],
        schema=["system", "query_id", "text", "rank"],
        orient="row",
    )
    gold_frame = pl.DataFrame(
        [(q, text) for q, texts in gold.items() for text in texts],
        schema=["query_id", "text"],
        orient="row",
    )
    matched = rankset.match_text(run, gold_frame, mode="exact")
    result = rankset.evaluate(matched, metrics=["recall@3"])
    got = dict(result.per_query.select("query_id", "value").rows())
    assert got == {"1": 0.5, "2": 1.0, "3": 0.0}
    assert result.text_match is not None
    report = result.text_match.row(0, named=True)
    assert (report["n_chunks"], report["n_matched"], report["n_unmatched"]) == (9, 4, 5)
    assert result.config["text_match"][0]["n_matched"] == 4
    with pytest.raises(ParameterError, match="carries its own labels"):
        rankset.evaluate(matched, gold_frame, ["recall@3"])


def test_pool_depth_limits_the_default_and_the_separate_pool() -> None:
    # FIRST_STAGE ranks c (tier 3), z (tier 1), b (tier 4), x: at depth 2 the pool lacks b.
    got = _values(
        rankset.evaluate(FIRST_STAGE, DL_LABELS, ["proc@2"], scale="trec_dl", pool_depth=2)
    )
    assert got["q", "proc@2"] == pytest.approx(0.1 / 1.5)
    # A pool run of a, b, c with equal scores orders c, b, a (doc id descending): depth 2
    # keeps c and b, so the decisive a is out of reach.
    pool = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    got = _values(
        rankset.evaluate(
            FIRST_STAGE, DL_LABELS, ["proc@2"], scale="trec_dl", pool=pool, pool_depth=2
        )
    )
    assert got["q", "proc@2"] == pytest.approx(0.6 / 1.5)
    with pytest.raises(ParameterError, match="The 'pool_depth' parameter must be an int >= 1"):
        rankset.evaluate(FIRST_STAGE, DL_LABELS, ["proc@2"], pool_depth=0)


def test_pool_depth_in_curves_and_diagnosis() -> None:
    curves = rankset.curves(
        FIRST_STAGE, DL_LABELS, ["proc"], ks=2, scale="trec_dl", pool_depth=2, n_resamples=10
    )
    assert curves.summary.filter(pl.col("k") == 2)["mean"].item() == pytest.approx(0.1 / 1.5)
    diagnosis = rankset.diagnose(FIRST_STAGE, DL_LABELS, k=2, scale="trec_dl", pool_depth=2)
    assert diagnosis.per_query["proc"].item() == pytest.approx(0.1 / 1.5)


def test_the_cli_says_which_scale_the_labels_chose(capsys: pytest.CaptureFixture[str]) -> None:
    sample = Path(__file__).resolve().parents[2] / "data" / "sample"
    argv = ["evaluate", str(sample / "bm25.trec"), "--qrels", str(sample / "qrels.txt")]
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # the suite makes warnings errors; a user's does not
        assert main([*argv, "-m", "ra_nwg@10"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("rankset: warning: ")
    assert "using scale='trec_dl'" in captured.err
    assert "sys.exit" not in captured.err  # no source line under the message
    assert "ra_nwg@10" in captured.out


def test_harm_with_the_distractors_only_rubric() -> None:
    # tiers in the top 4 (rag5): 5, 2, 1, 3 -> tier <= 2: 2 of 4; tier 1 only: 1 of 4
    labels = {"q": {"a": 5, "b": 2, "c": 1, "d": 3, "e": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    names = ["Harm@4", "harm(max_tier=1)@4", "harm(max_tier=1,unjudged=1)@5"]
    res = rankset.evaluate(run, labels, names, confidence=None)
    got = dict(res.per_query.select("metric", "value").rows())
    assert got == {
        "harm@4": 0.5,
        "harm(max_tier=1)@4": 0.25,
        "harm(max_tier=1,unjudged=1)@5": 0.2,  # 4 retrieved, none unlabelled: 1 of 5
    }
