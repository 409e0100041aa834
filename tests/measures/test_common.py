"""Invariants that hold for every registered measure at once (sklearn's test_common idea)."""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl
import pytest

import rankset

# signed_gain and utility are signed utilities: their sign is their point; gm_map and
# gm_bpref are logarithms (their summaries are geometric means)
UNBOUNDED = {
    "yaap",  # a logarithm: negative below AP 1/2
    "dcg",
    "ideal_dcg",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "signed_gain",
    "mean_gain",  # a grade's own scale: up to the highest grade
    "max_gain",
    "utility",
    "gm_map",
    "gm_bpref",
    "inum_rel",  # estimated counts (sample_eval.pl)
    "inum_rel_ret",
    "infndcg",  # an estimate over an estimated ideal ranking: may exceed 1
}


def _metric_names() -> list[str]:
    names = []
    for name, spec in sorted(rankset.available_measures().items()):
        names.append(name if spec.cutoff == "none" else f"{name}@3")
        if spec.cutoff == "optional":
            names.append(name)
    return names


def _random_case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = random.Random(seed)
    run_rows, label_rows = [], []
    for q in range(12):
        docs = [f"d{i}" for i in range(rng.randint(1, 15))]
        for doc in docs:
            run_rows.append(("sys", f"q{q}", doc, float(rng.randint(0, 4)), f"text of {doc}"))
        for doc in rng.sample([f"d{i}" for i in range(20)], rng.randint(1, 10)):
            label_rows.append((f"q{q}", doc, float(rng.choice([-1, 0, 0, 1, 2, 3]))))
    run = pl.DataFrame(
        run_rows, schema=["system", "query_id", "doc_id", "score", "text"], orient="row"
    )
    labels = pl.DataFrame(label_rows, schema=["query_id", "doc_id", "grade"], orient="row")
    return run, labels


# Every query but q0 has an answer, found in the text of d3 when retrieved.
ANSWERS = {f"q{q}": ["of d3"] for q in range(1, 12)}
METRICS = _metric_names()
# Nugget labels for every query: nugget j of query q is supported by d(q + j) (fully when
# j is even, partly otherwise) and by d(2j); the vital ones are j < 2.
NUGGETS = pl.DataFrame(
    [
        (f"q{q}", f"n{j}", doc, support, "vital" if j < 2 else "okay")
        for q in range(12)
        for j in range(4)
        for doc, support in (
            (f"d{(q + j) % 20}", "support" if j % 2 == 0 else "partial_support"),
            (f"d{(2 * j + 10) % 20}", "support"),
        )
    ],
    schema=["query_id", "nugget_id", "doc_id", "support", "importance"],
    orient="row",
).unique(subset=["query_id", "nugget_id", "doc_id"], keep="first", maintain_order=True)
OPTIONS = {"scale": "trec_dl", "answers": ANSWERS, "nuggets": NUGGETS}
CAN_BE_NA = {name for name, spec in rankset.available_measures().items() if spec.na_rule}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bounded_measures_stay_in_unit_interval(seed: int) -> None:
    run, labels = _random_case(seed)
    per_query = rankset.evaluate(run, labels, METRICS, **OPTIONS).per_query
    bounded = per_query.filter(~pl.col("measure").is_in(list(UNBOUNDED)))
    assert bounded.height > 0
    never_na = bounded.filter(~pl.col("measure").is_in(list(CAN_BE_NA)))
    assert never_na["value"].null_count() == 0
    assert bounded["value"].min() >= 0.0
    assert bounded["value"].max() <= 1.0 + 1e-12


def test_na_only_where_a_rule_allows_it() -> None:
    run, labels = _random_case(7)
    per_query = rankset.evaluate(run, labels, METRICS, **OPTIONS).per_query
    with_na = set(per_query.filter(pl.col("value").is_null())["measure"])
    assert with_na  # the random case does produce NA somewhere (q0 has no answer)
    assert with_na <= CAN_BE_NA


@pytest.mark.parametrize("seed", [4, 5])
def test_result_does_not_depend_on_input_row_order(seed: int) -> None:
    run, labels = _random_case(seed)
    first = rankset.evaluate(run, labels, METRICS, **OPTIONS).per_query
    shuffled = rankset.evaluate(
        run.sample(fraction=1.0, shuffle=True, seed=seed),
        labels.sample(fraction=1.0, shuffle=True, seed=seed),
        METRICS,
        **OPTIONS,
    ).per_query
    assert first.equals(shuffled)


def test_perfect_ranking_scores_one() -> None:
    labels = pl.DataFrame(
        {"query_id": ["q"] * 5, "doc_id": ["a", "b", "c", "x", "y"], "grade": [3.0, 2, 1, 0, 0]}
    )
    run = pl.DataFrame(
        {
            "system": "s",
            "query_id": ["q"] * 5,
            "doc_id": ["a", "b", "c", "x", "y"],
            "score": [5.0, 4, 3, 2, 1],
        }
    )
    perfect = [
        "ndcg",
        "ndcg@3",
        "ndcg_exp@2",
        "ap",
        "rr",
        "rprec",
        "bpref",
        "hit@1",
        "recall@3",
        "recall_all@3",
        "precision@3",
        "f1@3",
        "judged@5",
        "ra_nwg@3",
        "proc@3",
        "pct_proc@3",
        "n_recall_4plus@2",
        "n_recall_5@1",
    ]
    result = rankset.evaluate(run, labels, perfect, scale="trec_dl")
    values = result.per_query["value"].to_list()
    assert values == pytest.approx([1.0] * len(perfect))


def test_every_system_is_scored_independently() -> None:
    run, labels = _random_case(6)
    alone = rankset.evaluate(run, labels, METRICS, **OPTIONS).per_query
    other = run.with_columns(system=pl.lit("other"), score=-pl.col("score"))
    together = rankset.evaluate(pl.concat([run, other]), labels, METRICS, **OPTIONS).per_query
    assert together.filter(pl.col("system") == "sys").equals(alone)
    assert together["system"].n_unique() == 2


def test_repeated_evaluations_are_bit_identical(shared_data: Path) -> None:
    runs = {
        "bm25": shared_data / "rank_llm_dl_runs/first_stage/bm25.dl19.trec.gz",
        "rv": shared_data / "rank_llm_dl_runs/reranked/rankvicuna-7b-top100.over-bm25.dl19.trec.gz",
    }
    qrels = shared_data / "anserini_qrels_topics/qrels/qrels.dl19-passage.txt.gz"
    metrics = ["ra_nwg@10", "proc@10", "pct_proc@10", "ndcg@10", "recall@10", "ap", "bpref"]
    first = rankset.evaluate(runs, qrels, metrics, scale="trec_dl").per_query
    for _ in range(5):
        assert rankset.evaluate(runs, qrels, metrics, scale="trec_dl").per_query.equals(first)
